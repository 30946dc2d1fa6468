"""The studio in a real browser: Chromium (Debian's `chromium`) driven by Playwright for Python.

Three servers: a local one (loopback, no keys: the local user) on the examples and a hostile
skill; a team one (`--auth required`, so review is required) with an admin, an author, a
maintainer and a reader key; and one of three people in two namespaces with an item of each
visibility, each person's pages checked against what they may see. Every flow asserts on what the page shows; every page is
screenshotted at 1280x800 and at a phone's 390x844 into the screenshot folder; no page may open
a dialog, log a console error or run a script of a skill.

Usage: browser.py SKILLPATH_BIN EXAMPLES_DIR WORK_DIR SCREENSHOT_DIR
"""

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

BIN, EXAMPLES, WORK, SHOTS = (Path(arg) for arg in sys.argv[1:5])
CHROMIUM = os.environ.get("SKILLPATH_CHROMIUM", "/usr/bin/chromium")
SHOTS.mkdir(parents=True, exist_ok=True)
TIMEOUT_MS = 15_000

problems = []


def run(work, *args):
    """The CLI in `work` (its store and home): stdout; fails on a non-zero exit."""
    env = dict(os.environ, SKILLPATH_DB=str(work / "store.db"), HOME=str(work))
    done = subprocess.run([str(BIN), *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"skillpath {' '.join(args)}: {done.stderr}"
    return done.stdout


def serve(work, *extra):
    """`skillpath serve --http` on a free port of loopback: the process and the studio's URL."""
    env = dict(os.environ, SKILLPATH_DB=str(work / "store.db"), HOME=str(work))
    process = subprocess.Popen(
        [str(BIN), "serve", "--no-discover", "--http", "127.0.0.1:0", *extra],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = None
    for line in process.stderr:
        found = re.search(r"serving MCP on (http://\S+)/mcp", line)
        if found:
            url = found.group(1)
            break
    assert url, "the server said where it listens"
    # Keep reading its log, so it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, url


def watch(page):
    """Records what must never happen on a page: a dialog (a skill's script ran), a console
    error (a CSP violation among them) or an uncaught exception."""
    def on_dialog(dialog):
        problems.append(f"a dialog opened on {page.url}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    def on_console(message):
        # A page answered with an error status (a 404 page, a refused save) is logged as a
        # failed load: that is the page meant, not a script's error.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            problems.append(f"console {message.type} on {page.url}: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: problems.append(f"page error on {page.url}: {e}"))
    page.set_default_timeout(TIMEOUT_MS)
    return page


def shot(page, name):
    """The page at 1280x800 and at a phone's width, the whole page each time."""
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def new_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    return watch(context.new_page())


# A file name that would be markup and an event handler if it were not escaped.
HOSTILE_FILE = "it's \"x\" onmouseover=alert(1) <b>bold.md"


def hostile_skill(root):
    """A skill whose every part is hostile: script in the body, description, argument
    descriptions and choices; event handlers; `javascript:` links; SVG with script; CSS that
    overlays the page; a 10 MB file."""
    folder = root / "hostile-skill"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        """---
name: hostile-skill
description: "Looks harmless <script>window.__pwned='description'</script><img src=x onerror=\\"window.__pwned='img-description'\\">"
args:
  - name: target
    description: "<img src=x onerror=\\"window.__pwned='arg'\\">where"
    required: true
  - name: mode
    enum: ['\\"><script>window.__pwned=1</script>', plain]
    default: plain
---
# Hostile

<script>window.__pwned = 'body'; alert('body')</script>
<img src="x" onerror="window.__pwned='img'; alert('img')">
<svg onload="window.__pwned='svg'"><script>window.__pwned='svg-script'</script></svg>
<div id="overlay" style="position:fixed;inset:0;z-index:99999;background:red">OVERLAY</div>
<iframe src="javascript:alert('frame')"></iframe>

[a javascript link](javascript:window.__pwned='link')
<a href="javascript:window.__pwned='a'" id="js-link">another</a>
<a href="data:text/html,<script>alert(1)</script>">data link</a>

See [the guide](references/guide.md). Target: {Target}.
""",
        encoding="utf-8",
    )
    (folder / "references" / "guide.md").write_text("# Guide\n<script>alert('guide')</script>\n", encoding="utf-8")
    (folder / "evil.svg").write_text(
        "<svg xmlns='http://www.w3.org/2000/svg' onload=\"alert('svg-file')\"><script>alert('svg')</script></svg>\n",
        encoding="utf-8",
    )
    (folder / HOSTILE_FILE).write_text("<script>alert('file')</script>\n", encoding="utf-8")
    (folder / "references" / "big.md").write_text("ten megabytes of text\n" * 480_000, encoding="utf-8")


def no_script_ran(page):
    assert page.evaluate("() => window.__pwned === undefined"), f"a skill's script ran on {page.url}"


def local_flows(browser):
    work = WORK / "local"
    skills = work / "skills"
    skills.mkdir(parents=True)
    hostile_skill(skills)
    # Imported, so the store owns them: no folder sync writes the examples back over an edit.
    run(work, "import", str(EXAMPLES / "skills"), str(EXAMPLES / "packages"), str(skills))
    process, base = serve(work)
    try:
        page = new_page(browser)

        # Browse.
        page.goto(base + "/")
        expect(page.locator("h1")).to_have_text("Catalog")
        total = page.locator(".skills > li").count()
        assert total >= 8, total
        expect(page.locator(".count")).to_have_text(f"{total} of {total}")
        shot(page, "catalog")

        # Search as you type: results and the address follow the words.
        page.get_by_label("Search").press_sequentially("redis cache", delay=40)
        page.wait_for_url(re.compile(r"q=redis\+cache|q=redis%20cache"))
        expect(page.locator(".skills > li").first.locator(".name")).to_have_text("add-caching")
        expect(page.locator(".snippet mark").first).to_be_visible()
        shot(page, "catalog-search")
        # Filters: only packages.
        page.goto(base + "/?kind=package")
        expect(page.locator(".skills .name")).to_have_text(["dotnet-clean-architecture"])
        page.click(".skills .name >> text=dotnet-clean-architecture")
        expect(page.locator("#options-h")).to_be_visible()
        expect(page.locator("#members-h + ul")).to_contain_text("add-entity")
        shot(page, "package")

        # Open a skill: as the agent sees it.
        page.goto(base + "/?q=redis")
        page.click(".skills .name >> text=add-caching")
        page.wait_for_url(base + "/skills/add-caching")
        expect(page.locator(".title h1")).to_have_text("add-caching")
        expect(page.locator(".markdown h1")).to_have_text("Add Caching")
        tool = page.locator("#tool-h + p + pre").inner_text()
        assert '"name": "add-caching"' in tool and '"inputSchema"' in tool, tool
        assert '"enum": [' in tool and '"redis"' in tool, tool
        expect(page.locator("#cost-h + table")).to_contain_text("Instructions")
        shot(page, "skill")

        # Fill the form: an enum is a choice, a number a number, defaults filled in.
        expect(page.locator("#f-cache_provider")).to_have_value("redis")
        expect(page.locator("#f-ttl_minutes")).to_have_value("30")
        page.fill("#f-service_name", "Orders")
        page.select_option("#f-cache_provider", "memory")
        page.click("text=Preview the call")
        page.wait_for_url(re.compile(r"/skills/add-caching/try\?"))
        answer = page.locator(".answer")
        expect(answer).not_to_have_class(re.compile("is-error"))
        result = answer.locator("pre.result").inner_text()
        assert result.startswith('<skill_content name="add-caching">'), result[:200]
        assert "`Orders` service" in result and "{ServiceName}" not in result, result[:400]
        shot(page, "skill-try")
        # Wrong values: the problems, as the call reports them.
        page.fill("#f-service_name", "")
        page.fill("#f-ttl_minutes", "soon")
        page.click("text=Preview the call")
        expect(page.locator(".answer.is-error")).to_contain_text("service_name")
        expect(page.locator(".answer.is-error")).to_contain_text("ttl_minutes")
        shot(page, "skill-try-error")

        # A file of the skill, and a path that climbs out of it.
        page.goto(base + "/skills/add-caching")
        page.locator(".tree a").nth(1).click()
        expect(page.locator("pre.file")).to_be_visible()
        shot(page, "file")
        climbing = page.goto(base + "/skills/add-caching/files/..%2F..%2Fstore.db")
        assert climbing.status == 404, climbing.status
        shot(page, "not-found")

        # Edit: a diagnostic appears, is fixed, the edit is saved.
        page.goto(base + "/skills/add-caching/edit")
        editor = page.locator("#text")
        original = editor.input_value()
        editor.fill(original.replace("name: add-caching", "name: Add-Caching", 1))
        broken = page.locator("[data-diagnostics] li", has_text="Add-Caching")
        expect(broken.first).to_be_visible()
        expect(page.locator(".gutter .mark-error").first).to_be_visible()
        shot(page, "edit-diagnostic")
        broken.first.click()
        assert page.evaluate("() => document.activeElement.id") == "text"
        added = "A line added in the studio."
        editor.fill(original.replace("## Prerequisites", added + "\n\n## Prerequisites", 1))
        expect(broken).to_have_count(0)
        expect(page.locator("[data-preview]")).to_contain_text(added)
        page.fill("#message", "say what the cache is for")
        page.click("button:has-text('Save')")
        page.wait_for_url(base + "/skills/add-caching/history")
        expect(page.locator(".timeline tbody tr").first).to_contain_text("say what the cache is for")
        shot(page, "history")

        # Side by side, then back to revision 1.
        page.click("text=Compare side by side")
        page.wait_for_url(re.compile(r"/diff\?(to=2&from=1|from=1&to=2)$"))
        expect(page.locator(".side-by-side tr.added, .side-by-side tr.changed").first).to_contain_text(added)
        shot(page, "diff")
        page.go_back()
        page.click("button:has-text('Roll back to this')")
        page.wait_for_url(base + "/skills/add-caching/history")
        expect(page.locator(".timeline tbody tr").first).to_contain_text("rollback")
        page.goto(base + "/skills/add-caching")
        expect(page.locator(".markdown")).not_to_contain_text(added)

        # A stale save: two editors on one revision; the second sees the first's change
        # beside its own, merged, and saves both.
        first, second = new_page(browser), new_page(browser)
        for editor_page in (first, second):
            editor_page.goto(base + "/skills/add-caching/edit")
        text = first.locator("#text").input_value()
        mine = text.replace("# Add Caching", "# Add Caching (first editor)", 1)
        first.locator("#text").fill(mine)
        first.click("button:has-text('Save')")
        first.wait_for_url(re.compile("/history$"))
        theirs = text.rstrip("\n") + "\n\nA closing line from the second editor.\n"
        second.locator("#text").fill(theirs)
        second.click("button:has-text('Save')")
        expect(second.locator("#merge-h")).to_have_text("Someone saved this skill while you edited it")
        merged = second.locator("#text").input_value()
        assert "(first editor)" in merged and "second editor" in merged, merged
        shot(second, "merge")
        second.click("button:has-text('Save')")
        second.wait_for_url(re.compile("/history$"))
        second.goto(base + "/skills/add-caching")
        expect(second.locator(".markdown h1")).to_have_text("Add Caching (first editor)")
        expect(second.locator(".markdown")).to_contain_text("A closing line from the second editor.")

        # The hostile skill: nothing runs, nothing overlays the page.
        page.goto(base + "/skills/hostile-skill")
        expect(page.locator(".markdown h1")).to_have_text("Hostile")
        assert page.locator(".markdown script, .markdown svg, .markdown iframe").count() == 0
        assert page.locator("#overlay").count() == 0 or page.evaluate(
            "() => getComputedStyle(document.querySelector('#overlay')).position") != "fixed"
        for link in page.locator(".markdown a").all():
            href = link.get_attribute("href") or ""
            assert not href.lower().startswith(("javascript:", "data:")), href
        page.click("text=a javascript link")
        no_script_ran(page)
        expect(page.locator(".lead")).to_contain_text("<script>")
        shot(page, "hostile")
        page.goto(base + "/skills/hostile-skill/try?arg.target=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E&arg.mode=plain")
        expect(page.locator(".answer pre.result")).to_contain_text("<img src=x onerror=alert(1)>")
        no_script_ran(page)
        tree = page.locator(".tree a", has_text="onmouseover")
        expect(tree).to_have_text(HOSTILE_FILE)
        assert page.locator(".tree b").count() == 0
        tree.hover()
        tree.click()
        expect(page.locator("pre.file")).to_contain_text("<script>alert('file')</script>")
        no_script_ran(page)
        page.goto(base + "/skills/hostile-skill/files/evil.svg")
        expect(page.locator("pre.file")).to_contain_text("<script>")
        no_script_ran(page)
        page.goto(base + "/skills/hostile-skill/files/references/big.md")
        expect(page.locator(".cut")).to_contain_text("first MiB")
        page.goto(base + "/skills/hostile-skill/files/references/guide.md")
        no_script_ran(page)

        # A Golden Path skill from the structured form.
        page.goto(base + "/new")
        page.fill("input[name=name]", "add-health-check")
        page.fill("textarea[name=description]", "Adds a health check endpoint to a service. Use when a service needs /healthz.")
        page.fill("input[name=title]", "Add a health check")
        page.locator("input[name='arg.name']").first.fill("service_name")
        page.locator("select[name='arg.required']").first.select_option("yes")
        page.locator("input[name='arg.description']").first.fill("The service, in PascalCase")
        sections = page.locator("textarea[name='section.content']")
        sections.nth(0).fill("- [ ] `src/{ServiceName}` builds")
        sections.nth(2).fill("- [ ] `GET /healthz` answers 200")
        page.locator("input[name='phase.name']").first.fill("Add the endpoint")
        page.locator("textarea[name='phase.content']").first.fill("Map `/healthz` in `src/{ServiceName}/Program.cs`.")
        page.click("button[value=check]")
        expect(page.locator(".answer")).to_contain_text("The skill is valid")
        expect(page.locator("#written-h + pre")).to_contain_text("## Execution Steps")
        shot(page, "new-skill")
        page.click("button[value=create]")
        page.wait_for_url(base + "/skills/add-health-check")
        expect(page.locator("#tool-h + p + pre")).to_contain_text("service_name")

        # Keyboard only: skip link, search, open, fill, preview.
        keys = new_page(browser)
        keys.goto(base + "/")
        keys.keyboard.press("Tab")
        assert keys.evaluate("() => document.activeElement.textContent") == "Skip to content"
        keys.keyboard.press("Enter")

        def tab_to(predicate, limit=60):
            for _ in range(limit):
                keys.keyboard.press("Tab")
                if keys.evaluate(predicate):
                    return
            raise AssertionError(f"Tab never reached {predicate}")

        tab_to("() => document.activeElement.name === 'q'")
        keys.keyboard.type("fastapi router")
        keys.wait_for_url(re.compile(r"q=fastapi"))
        tab_to("() => document.activeElement.textContent === 'add-fastapi-router'")
        keys.keyboard.press("Enter")
        keys.wait_for_url(base + "/skills/add-fastapi-router")
        for _ in range(80):
            keys.keyboard.press("Tab")
            active = keys.evaluate(
                "() => [document.activeElement.tagName, document.activeElement.getAttribute('aria-required'), document.activeElement.textContent]")
            if active[0] == "INPUT" and active[1] == "true":
                keys.keyboard.type("Orders")
            if active[0] == "BUTTON" and active[2] == "Preview the call":
                break
        keys.keyboard.press("Enter")
        keys.wait_for_url(re.compile(r"/try\?"))
        expect(keys.locator(".answer")).not_to_have_class(re.compile("is-error"))
        shot(keys, "keyboard")
    finally:
        process.terminate()
        process.wait(timeout=30)


def sign_in(browser, base, key):
    page = new_page(browser)
    page.goto(base + "/")
    page.wait_for_url(re.compile("/login"))
    page.fill("#key", key)
    page.click("button:has-text('Sign in')")
    page.wait_for_url(base + "/")
    return page


def key_of(output):
    return next(word for word in output.split() if word.startswith("sp_"))


def team_flows(browser):
    work = WORK / "team"
    work.mkdir(parents=True)
    run(work, "import", str(EXAMPLES / "skills"))
    keys = {
        role: key_of(run(work, "keys", "create", "--name", name, "--role", role))
        for name, role in (("ada", "admin"), ("ann", "author"), ("max", "maintainer"), ("rex", "reader"))
    }
    process, base = serve(work, "--auth", "required")
    try:
        # Sign-in first; a wrong key is refused.
        page = new_page(browser)
        page.goto(base + "/skills/add-caching")
        page.wait_for_url(re.compile(r"/login\?next=/skills/add-caching"))
        shot(page, "login")
        page.fill("#key", "sp_0123_wrong")
        page.click("button:has-text('Sign in')")
        expect(page.locator(".error")).to_contain_text("That key does not work")

        # An admin creates a key: shown once.
        admin = sign_in(browser, base, keys["admin"])
        expect(admin.locator(".who")).to_contain_text("ada · admin")
        admin.click("nav >> text=API keys")
        admin.fill("input[name=name]", "ci-bot")
        admin.select_option("select[name=role]", "reader")
        admin.click("button:has-text('Create a key')")
        created = admin.locator("[data-created-key]").inner_text().strip()
        assert created.startswith("sp_"), created
        expect(admin.locator(".timeline")).to_contain_text("ci-bot")
        shot(admin, "keys")
        admin.goto(base + "/settings/keys")
        assert admin.locator("[data-created-key]").count() == 0
        # The new key signs in, until an admin revokes it.
        bot = sign_in(browser, base, created)
        expect(bot.locator(".who")).to_contain_text("ci-bot · reader")
        admin.click("button[aria-label='Revoke ci-bot']")
        admin.wait_for_url(base + "/settings/keys")
        expect(admin.locator(".timeline tr", has_text="ci-bot")).to_contain_text("revoked")
        bot.goto(base + "/skills/add-caching")
        bot.wait_for_url(re.compile("/login"))
        bot.fill("#key", created)
        bot.click("button:has-text('Sign in')")
        expect(bot.locator(".error")).to_contain_text("That key does not work")
        admin.goto(base + "/connect")
        expect(admin.locator("#claude-h + pre")).to_contain_text(base + "/mcp")
        expect(admin.locator("#claude-h + pre")).to_contain_text("Authorization: Bearer")
        shot(admin, "connect")

        # An author's edit is a draft nobody is served.
        author = sign_in(browser, base, keys["author"])
        author.goto(base + "/skills/add-caching/edit")
        text = author.locator("#text").input_value()
        author.locator("#text").fill(text.replace("## Prerequisites", "Reviewed line.\n\n## Prerequisites", 1))
        author.fill("#message", "draft from ann")
        author.click("button:has-text('Save a draft for review')")
        author.wait_for_url(re.compile("/review/add-caching"))
        expect(author.locator("main > h1")).to_contain_text("Draft of add-caching")
        assert author.locator("button:has-text('Publish')").count() == 0
        shot(author, "draft-author")
        author.goto(base + "/skills/add-caching")
        expect(author.locator(".markdown")).not_to_contain_text("Reviewed line.")

        # A maintainer publishes it.
        maintainer = sign_in(browser, base, keys["maintainer"])
        maintainer.click("nav >> text=Review")
        expect(maintainer.locator(".timeline")).to_contain_text("draft from ann")
        shot(maintainer, "review-queue")
        maintainer.click(".timeline >> text=add-caching")
        expect(maintainer.locator(".side-by-side")).to_contain_text("Reviewed line.")
        shot(maintainer, "draft-review")
        maintainer.fill("#publish-message", "looks right")
        maintainer.click("button:has-text('Publish')")
        maintainer.wait_for_url(base + "/skills/add-caching/history")
        first_row = maintainer.locator(".timeline tbody tr").first
        expect(first_row).to_contain_text("ann")
        maintainer.goto(base + "/skills/add-caching")
        expect(maintainer.locator(".markdown")).to_contain_text("Reviewed line.")

        # A reader sees no edit control, and the server refuses the edit anyway.
        reader = sign_in(browser, base, keys["reader"])
        reader.goto(base + "/skills/add-caching")
        assert reader.locator("a:has-text('Edit')").count() == 0
        assert reader.locator("nav >> text=Review").count() == 0
        refused = reader.evaluate(
            """async () => {
                const body = new URLSearchParams({csrf: document.body.dataset.csrf, file: 'SKILL.md', base: '1', text: 'x'});
                const response = await fetch('/skills/add-caching/edit', {method: 'POST', body});
                return [response.status, await response.text()];
            }"""
        )
        assert refused[0] == 422 and "`author` role" in refused[1], refused
        shot(reader, "reader")

        # Namespaces: a team's private item is nobody else's; its public one is found, starred
        # and served to whoever stars it; the team's page lists its members and items.
        for name, about in (("team-secret", "Use when only the team may know."),
                            ("team-open", "Use when anyone may deploy with the team's tooling.")):
            folder = work / "team" / name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {about}\n---\n\n{about}\n")
        run(work, "users", "create", "tess")
        run(work, "namespaces", "create", "@team-x", "--owner", "tess")
        run(work, "import", "--namespace", "@team-x", "--visibility", "private", str(work / "team" / "team-secret"))
        run(work, "import", "--namespace", "@team-x", "--visibility", "public", str(work / "team" / "team-open"))
        tess_key = key_of(run(work, "keys", "create", "--name", "tess-key", "--user", "tess", "--role", "admin"))
        # The server hears the command line's changes a moment later.
        for _ in range(100):
            reader.goto(base + "/")
            if "@team-x/team-open" in reader.locator("#results").inner_text():
                break
            time.sleep(0.1)
        expect(reader.locator("#results")).to_contain_text("@team-x/team-open")
        expect(reader.locator("#results")).not_to_contain_text("team-secret")
        reader.goto(base + "/skills/%40team-x%2Fteam-secret")
        expect(reader.locator("main h1")).to_have_text("No such skill")
        reader.goto(base + "/skills/%40team-x%2Fteam-open")
        expect(reader.locator(".title")).to_contain_text("@team-x · public")
        reader.click("button:has-text('Star')")
        expect(reader.locator(".title")).to_contain_text("★ 1")
        expect(reader.locator("button:has-text('Unstar')")).to_have_count(1)
        shot(reader, "starred-item")
        reader.goto(base + "/")
        reader.select_option("select[name=namespace]", "starred")
        reader.click("button:has-text('Apply')")
        expect(reader.locator("#results")).to_contain_text("@team-x/team-open")
        expect(reader.locator("#results")).not_to_contain_text("add-caching")
        shot(reader, "catalog-starred")
        tess = sign_in(browser, base, tess_key)
        tess.goto(base + "/namespaces/%40team-x")
        expect(tess.locator("main")).to_contain_text("team-secret")
        expect(tess.locator("main")).to_contain_text("owner")
        shot(tess, "namespace")
        tess.goto(base + "/log")
        expect(tess.locator(".timeline")).to_contain_text("@team-x")
        shot(tess, "log")
    finally:
        process.terminate()
        process.wait(timeout=30)


# The matrix: (namespace, item, visibility, author), and what each person may see of it.
MATRIX = (
    ("@team-a", "a-private", "private", "alice"),
    ("@team-a", "a-shared", "namespace", "alice"),
    ("@team-a", "a-public", "public", "alice"),
    ("@team-b", "b-shared", "namespace", "carol"),
    ("@team-b", "b-public", "public", "carol"),
)
SEES = {
    "alice": {"a-private", "a-shared", "a-public", "b-public"},
    "bob": {"a-shared", "a-public", "b-public"},
    "carol": {"a-public", "b-shared", "b-public"},
}


def item_url(base, namespace, name):
    return f"{base}/skills/%40{namespace[1:]}%2F{name}"


def seen_in_catalog(page, base):
    """The matrix's items the catalog lists for the signed-in person."""
    page.goto(base + "/")
    listed = page.locator("#results").inner_text()
    return {name for _, name, _, _ in MATRIX if name in listed}


def matrix_flows(browser):
    """Three people in two namespaces, an item of each visibility: the catalog, every item's page
    and each namespace's page show each person exactly what they may see; then a namespace's
    owner manages its members and settings from its page, and what the others see follows."""
    work = WORK / "matrix"
    work.mkdir(parents=True)
    for person in SEES:
        run(work, "users", "create", person)
    run(work, "namespaces", "create", "@team-a", "--owner", "alice")
    run(work, "namespaces", "create", "@team-b", "--owner", "carol")
    run(work, "members", "add", "@team-a", "bob", "--role", "author")
    for namespace, name, visibility, by in MATRIX:
        folder = work / "items" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use when deploying with {name}.\n---\n\nDeploy with {name}.\n"
        )
        run(work, "import", "--namespace", namespace, "--visibility", visibility, "--author", by, str(folder))
    roles = {"alice": "admin", "bob": "author", "carol": "admin"}
    keys = {
        person: key_of(run(work, "keys", "create", "--name", f"{person}-key", "--user", person, "--role", role))
        for person, role in roles.items()
    }
    process, base = serve(work, "--auth", "required")
    try:
        pages = {person: sign_in(browser, base, key) for person, key in keys.items()}
        for person, page in pages.items():
            assert seen_in_catalog(page, base) == SEES[person], (person, seen_in_catalog(page, base))
            for namespace, name, _, _ in MATRIX:
                page.goto(item_url(base, namespace, name))
                heading = page.locator("main h1").first.inner_text()
                if name in SEES[person]:
                    assert heading == f"{namespace}/{name}", (person, name, heading)
                else:
                    assert heading == "No such skill", (person, name, heading)
            for namespace in ("@team-a", "@team-b"):
                page.goto(f"{base}/namespaces/%40{namespace[1:]}")
                shown = page.locator("main").inner_text()
                for team, name, _, _ in MATRIX:
                    if team == namespace:
                        assert (name in shown) == (name in SEES[person]), (person, namespace, name)
        shot(pages["bob"], "catalog-bob")

        # Alice owns @team-a: she adds carol as a reader from its page; carol then sees its
        # shared item (not its private one); alice removes her again, and freezes and thaws it.
        alice, carol = pages["alice"], pages["carol"]
        alice.goto(base + "/namespaces/%40team-a")
        assert pages["bob"].locator("button:has-text('Add member')").count() == 0
        alice.fill("#new-member", "carol")
        alice.select_option("form:has(button:has-text('Add member')) select[name=role]", "reader")
        alice.click("button:has-text('Add member')")
        alice.wait_for_url(base + "/namespaces/%40team-a")
        expect(alice.locator("select[aria-label='Role of carol']")).to_have_value("reader")
        shot(alice, "namespace-manage")
        assert seen_in_catalog(carol, base) == SEES["carol"] | {"a-shared"}
        carol.goto(item_url(base, "@team-a", "a-private"))
        expect(carol.locator("main h1").first).to_have_text("No such skill")
        alice.goto(base + "/namespaces/%40team-a")
        alice.click("form:has(select[aria-label='Role of carol']) button:has-text('Remove')")
        alice.wait_for_url(base + "/namespaces/%40team-a")
        expect(alice.locator("main")).not_to_contain_text("carol")
        assert seen_in_catalog(carol, base) == SEES["carol"]
        alice.click("button:has-text('Freeze')")
        alice.wait_for_url(base + "/namespaces/%40team-a")
        expect(alice.locator(".title")).to_contain_text("frozen")
        alice.click("button:has-text('Thaw')")
        alice.wait_for_url(base + "/namespaces/%40team-a")
        expect(alice.locator(".title")).to_contain_text("open")
    finally:
        process.terminate()
        process.wait(timeout=30)


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        local_flows(browser)
        team_flows(browser)
        matrix_flows(browser)
    finally:
        browser.close()

assert not problems, "\n".join(problems)
print("ok")
