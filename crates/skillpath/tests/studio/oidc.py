"""Signing in with a real OpenID provider: Debian's glewlwyd (`shared/tools/oidc-provider`), the
studio driven by Chromium (Debian's `chromium`) with Playwright through the provider's own
login page, and the command line's device login.

- alice signs in: her person, personal namespace, the namespaces and roles her groups give
  (`platform` a maintainer's, `team-a` an author's and the administration), every change in the
  governance log with the provider as its actor; a forged and a replayed callback are refused.
- alice leaves `team-a` at the provider: at her next sign-in the membership and the
  administration are gone (logged); she makes a key of her own, narrowed to `@platform`.
- alice is disabled: her studio session stops at its next page, and her own key stops on a
  second replica of the same database.
- bob signs in with `skillpath login` (the device grant, approved in Chromium): the key lands in
  the credentials file (0600) and works; `skillpath logout` revokes it.
- a person whose username makes a handle that is taken already is refused, nothing created.
- a provider that does not answer: the studio says so within its time-out, and a key still
  signs in.

- bob signs in with the `clawhub` CLI's own device login (`clawhub login`), and `clawhub whoami`
  names him.

Usage: oidc.py SKILLPATH_BIN PROVIDER_TOOL_DIR WORK_DIR SCREENSHOT_DIR NODE CLAWHUB_JS
"""

import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

BIN, TOOL, WORK, SHOTS, NODE, CLAWHUB = (Path(arg) for arg in sys.argv[1:7])
CHROMIUM = os.environ.get("SKILLPATH_CHROMIUM", "/usr/bin/chromium")
SHOTS.mkdir(parents=True, exist_ok=True)
TIMEOUT_MS = 20_000
sys.path.insert(0, str(TOOL))
import _common as C  # noqa: E402  (the provider tool's HTTP helper)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(home, *args, check=True, timeout=120):
    """The CLI with `home` as its HOME and config folder: (exit code, stdout, stderr)."""
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"))
    done = subprocess.run([str(BIN), *args], env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, f"skillpath {' '.join(args)}: {done.stderr}"
    return done.returncode, done.stdout, done.stderr


def serve(home, port, *extra):
    """`skillpath serve --http` on `port`, waited for: the process and its URL."""
    env = dict(os.environ, HOME=str(home))
    process = subprocess.Popen(
        [str(BIN), "serve", "--no-discover", "--http", f"127.0.0.1:{port}", "--auth", "required",
         "--db", str(home / "store.db"), *extra],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    for line in process.stderr:
        if "serving MCP on" in line:
            break
    else:
        raise AssertionError("the server did not start")
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, f"http://127.0.0.1:{port}"


def log_entries(home):
    _, out, _ = run(home, "log", "--db", str(home / "store.db"), "--format", "json")
    return json.loads(out)


def members(home, namespace):
    code, out, _ = run(home, "members", "list", namespace, "--db", str(home / "store.db"),
                       "--format", "json", check=False)
    return {m["handle"]: m["role"] for m in json.loads(out)} if code == 0 else None


def provider_login(page, user, password):
    """glewlwyd's login page: the user, then Continue."""
    page.wait_for_selector("#username", timeout=TIMEOUT_MS)
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#loginbut")
    page.get_by_role("button", name="Continue").click(timeout=TIMEOUT_MS)


def set_groups(info, user, groups):
    """Changes `user`'s groups at the provider, through its admin API."""
    cookies = {}
    st, _, _ = C.request("POST", info["base_url"] + "/api/auth/", cookies=cookies,
                         json_body={"username": info["admin"]["username"], "password": info["admin"]["password"]})
    assert st == 200, st
    st, _, data = C.request("GET", info["base_url"] + f"/api/user/{user}", cookies=cookies)
    assert st == 200, st
    record = json.loads(data)
    record["groups"] = groups
    record.pop("password", None)
    st, _, data = C.request("PUT", info["base_url"] + f"/api/user/{user}", cookies=cookies, json_body=record)
    assert st == 200, (st, data)


def main():
    studio_port, collide_port, down_port, replica_port = free_port(), free_port(), free_port(), free_port()
    redirects = ",".join(f"http://127.0.0.1:{p}/login/oidc/callback" for p in (studio_port, collide_port))
    state = WORK / "provider"
    started = subprocess.run([str(TOOL / "start"), str(state)], env=dict(os.environ, REDIRECT_URI=redirects),
                             capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout.splitlines()[0])
    try:
        scenarios(info, studio_port, collide_port, down_port, replica_port)
    finally:
        subprocess.run([str(TOOL / "stop"), str(state)], capture_output=True, timeout=60)
    print("ok")


def scenarios(info, studio_port, collide_port, down_port, replica_port):
    home = WORK / "team"
    home.mkdir()
    secret = WORK / "client-secret"
    secret.write_text(info["client_secret"] + "\n")
    oidc = ["--oidc-issuer", info["issuer"], "--oidc-client-id", info["client_id"],
            "--oidc-client-secret-file", str(secret), "--oidc-name", "Example SSO",
            "--oidc-group", "platform=@platform:maintainer", "--oidc-group", "team-a=admin",
            "--oidc-group", "team-a=@team-a:author", "--oidc-group", "team-b=@team-b:reader"]
    server, url = serve(home, studio_port, *oidc)
    servers = [server]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            callbacks = []
            page.on("request", lambda r: callbacks.append(r.url) if "/login/oidc/callback" in r.url else None)

            # alice signs in through the provider's page.
            page.goto(url + "/review")
            expect(page.get_by_role("link", name="Sign in with Example SSO")).to_be_visible()
            page.screenshot(path=str(SHOTS / "oidc-sign-in.png"))
            page.get_by_role("link", name="Sign in with Example SSO").click()
            provider_login(page, "alice", info["users"]["alice"]["password"])
            page.wait_for_url(url + "/review", timeout=TIMEOUT_MS)
            expect(page.locator(".who")).to_contain_text("alice")
            expect(page.locator(".who")).to_contain_text("admin")
            page.screenshot(path=str(SHOTS / "oidc-signed-in.png"))
            assert members(home, "@platform") == {"alice": "maintainer"}, members(home, "@platform")
            assert members(home, "@team-a") == {"alice": "author"}
            assert members(home, "@alice") == {"alice": "owner"}
            assert members(home, "@team-b") is None, "no one of team-b signed in: no namespace"
            entries = log_entries(home)
            actions = [(e["actor"], e["action"], e["target"]) for e in entries]
            for wanted in [("oidc:oidc", "user.create", "alice"), ("oidc:oidc", "user.link", "alice"),
                           ("oidc:oidc", "namespace.create", "@platform"), ("oidc:oidc", "member.add", "@platform:alice"),
                           ("oidc:oidc", "member.add", "@team-a:alice"), ("oidc:oidc", "user.admin", "alice"),
                           ("oidc:oidc", "key.create", "alice")]:
                assert wanted in actions, (wanted, actions)

            # A forged state and a replayed callback are refused; the session stays alice's.
            forged = page.request.get(url + "/login/oidc/callback?state=forged&code=whatever")
            assert forged.status == 400 and "not one this server began" in forged.text(), forged.text()
            replay = [u for u in callbacks if "code=" in u][0]
            replayed = page.request.get(replay)
            assert replayed.status == 400, replayed.status
            page.goto(url + "/")
            expect(page.locator(".who")).to_contain_text("alice")

            # alice leaves team-a at the provider: her next sign-in takes the membership away.
            set_groups(info, "alice", ["platform"])
            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_role("heading", name="You are signed out")).to_be_visible()
            expect(page.get_by_role("link", name="Sign out of Example SSO too")).to_be_visible()
            page.screenshot(path=str(SHOTS / "oidc-signed-out.png"))
            page.goto(url + "/login")
            page.get_by_role("link", name="Sign in with Example SSO").click()
            page.get_by_role("button", name="Continue").click(timeout=TIMEOUT_MS)
            page.wait_for_url(url + "/", timeout=TIMEOUT_MS)
            expect(page.locator(".who")).to_contain_text("alice")
            assert members(home, "@team-a") == {}, members(home, "@team-a")
            expect(page.locator(".who")).to_contain_text("maintainer")
            logged = [(e["actor"], e["action"], e["target"]) for e in log_entries(home)]
            assert ("oidc:oidc", "member.remove", "@team-a:alice") in logged, logged
            assert logged.count(("oidc:oidc", "user.admin", "alice")) == 2, logged

            # Her own key, narrowed to one of her namespaces, shown once.
            page.get_by_role("link", name="API keys").click()
            expect(page.get_by_role("heading", name="Your API keys")).to_be_visible()
            page.fill("input[name=name]", "alice-laptop")
            page.select_option("select[name=namespace]", "@platform")
            page.fill("input[name=expires]", "30d")
            page.get_by_role("button", name="Create a key").click()
            own_key = page.locator("[data-created-key]").inner_text().strip()
            page.screenshot(path=str(SHOTS / "oidc-own-key.png"))
            mine = page.request.get(url + "/api/v1/whoami", headers={"Authorization": f"Bearer {own_key}"})
            assert mine.status == 200 and mine.json()["user"]["handle"] == "alice", mine.text()
            _, keys_out, _ = run(home, "keys", "list", "--db", str(home / "store.db"), "--format", "json")
            studio_keys = [k for k in json.loads(keys_out) if k["name"].startswith("studio-alice-")]
            assert len(studio_keys) == 2 and sum(1 for k in studio_keys if k.get("revoked_at")) == 1, studio_keys
            laptop = [k for k in json.loads(keys_out) if k["name"] == "alice-laptop"]
            assert laptop and laptop[0]["namespaces"] == ["@platform"] and laptop[0]["expires_at"], laptop

            # alice disabled: her session stops at its next page, her key on every replica.
            replica, replica_url = serve(home, replica_port, *oidc)
            servers.append(replica)
            on_replica = lambda: page.request.get(replica_url + "/api/v1/whoami",
                                                  headers={"Authorization": f"Bearer {own_key}"}).status
            assert on_replica() == 200
            run(home, "users", "disable", "alice", "--db", str(home / "store.db"))
            deadline = time.monotonic() + 5
            while on_replica() != 401 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert on_replica() == 401, "the replica refuses a disabled person's key"
            page.goto(url + "/")
            expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
            page.screenshot(path=str(SHOTS / "oidc-disabled.png"))

            # bob signs in from the command line; the device grant is approved in the browser.
            cli_home = WORK / "bob"
            cli_home.mkdir()
            env = dict(os.environ, HOME=str(cli_home), XDG_CONFIG_HOME=str(cli_home / "config"))
            login = subprocess.Popen([str(BIN), "login", "--server", url, "--format", "json"], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            said = ""
            for line in login.stderr:
                said += line
                if "Waiting" in line:
                    break
            direct = re.search(r"\(or open (\S+),", said)
            assert direct, said
            device = browser.new_context().new_page()
            device.goto(direct.group(1))
            provider_login(device, "bob", info["users"]["bob"]["password"])
            device.screenshot(path=str(SHOTS / "oidc-device-approved.png"))
            out, err = login.communicate(timeout=120)
            assert login.returncode == 0, (out, err)
            signed = json.loads(out)
            assert signed["user"] == "bob", signed
            credentials = Path(signed["credentials"])
            assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
            key = re.search(r'key = "(sp_[^"]+)"', credentials.read_text()).group(1)
            whoami = page.request.get(url + "/api/v1/whoami", headers={"Authorization": f"Bearer {key}"})
            assert whoami.status == 200 and whoami.json()["user"]["handle"] == "bob", whoami.text()
            assert members(home, "@team-b") == {"bob": "reader"}
            code, out, err = run(cli_home, "logout", check=False)
            assert code == 0 and "revoked" in out, (code, out, err)
            after = page.request.get(url + "/api/v1/whoami", headers={"Authorization": f"Bearer {key}"})
            assert after.status == 401, after.status
            assert "servers" in credentials.read_text() and key not in credentials.read_text()

            # The clawhub CLI's own device login, against the same server.
            claw = WORK / "claw"
            claw.mkdir()
            claw_env = dict(os.environ, CLAWHUB_REGISTRY=url, CLAWHUB_CONFIG_PATH=str(claw / "config.json"),
                            CLAWHUB_WORKDIR=str(claw), CLAWHUB_DISABLE_TELEMETRY="1", HOME=str(claw))
            claw_env.pop("CLAWHUB_SITE", None)
            clawhub = subprocess.Popen([str(NODE), str(CLAWHUB), "login", "--no-browser"], env=claw_env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            printed = ""
            for line in clawhub.stdout:
                printed += line
                if "code=" in line:
                    break
            shown = re.search(r"(http\S+code=\S+)", printed)
            assert shown, printed
            approve = browser.new_context().new_page()
            approve.goto(shown.group(1))
            provider_login(approve, "bob", info["users"]["bob"]["password"])
            rest, _ = clawhub.communicate(timeout=120)
            assert clawhub.returncode == 0 and "Logged in as @bob" in printed + rest, printed + rest
            whoami = subprocess.run([str(NODE), str(CLAWHUB), "whoami"], env=claw_env, capture_output=True, text=True, timeout=60)
            assert whoami.returncode == 0 and "bob" in whoami.stdout + whoami.stderr, whoami

            # A username whose handle is taken: refused, nothing created.
            taken = WORK / "taken"
            taken.mkdir()
            run(taken, "users", "create", "alice", "--db", str(taken / "store.db"))
            before = len(log_entries(taken))
            second, second_url = serve(taken, collide_port, *oidc)
            servers.append(second)
            fresh = browser.new_context().new_page()
            fresh.goto(second_url + "/login")
            fresh.get_by_role("link", name="Sign in with Example SSO").click()
            provider_login(fresh, "alice", info["users"]["alice"]["password"])
            expect(fresh.get_by_text("already another person's")).to_be_visible(timeout=TIMEOUT_MS)
            fresh.screenshot(path=str(SHOTS / "oidc-collision.png"))
            assert len(log_entries(taken)) == before, "nothing was created"
            assert members(taken, "@platform") is None

            # A provider that does not answer: said within the time-out; keys still sign in.
            silent = socket.socket()
            silent.bind(("127.0.0.1", 0))
            silent.listen(16)
            down = WORK / "down"
            down.mkdir()
            _, made, _ = run(down, "keys", "create", "--name", "ops", "--role", "admin", "--format", "json",
                             "--db", str(down / "store.db"))
            ops_key = json.loads(made)["key"]
            third, third_url = serve(
                down, down_port, "--oidc-issuer", f"http://127.0.0.1:{silent.getsockname()[1]}/realms/x",
                "--oidc-client-id", "x", "--oidc-client-secret-file", str(secret), "--oidc-timeout", "2")
            servers.append(third)
            slow = browser.new_context().new_page()
            slow.goto(third_url + "/login")
            began = time.monotonic()
            slow.get_by_role("link", name="Sign in with your organisation").click()
            expect(slow.get_by_text("did not answer")).to_be_visible(timeout=TIMEOUT_MS)
            assert time.monotonic() - began < 10, "said within the time-out"
            slow.fill("#key", ops_key)
            slow.get_by_role("button", name="Sign in").click()
            expect(slow.locator(".who")).to_contain_text("ops")
            silent.close()
            browser.close()
    finally:
        for process in servers:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
