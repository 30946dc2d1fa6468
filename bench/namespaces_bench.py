#!/usr/bin/env python3
"""Many teams on one server: `tools/list` for a person of a few namespaces on a server of many,
against the same person on a server that holds only their items.

    python3 bench/namespaces_bench.py [--items 10000] [--namespaces 100] [--member-of 3]
        [--runs 20] [--format json|markdown] [--json-out FILE]

Two SQLite stores, made with the `skillpath` being measured:

- *many*: `--namespaces` team namespaces holding `--items` skills between them (spread evenly),
  and one person, a reader of `--member-of` of them, with a key for them;
- *theirs*: only that person's items (the skills of those namespaces), in `@global`, the person a
  reader of it: what a team would run if it ran a server of its own.

Each store is served by `skillpath serve --http --auth required --stateless --tools per-skill`
(so every item the person is served is one tool), and the person's key lists the tools, following
`nextCursor` to the last page, as a client does. The measure is the time of that whole listing:
the median of `--runs` listings after two untimed ones, and the 90th percentile. Both servers
must list exactly the same tool names, or the run fails. Reported: both times and theirs ÷ many
(above 1: the shared server is faster; 1: as fast).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no bench/__pycache__ left behind
sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

PROTOCOL_VERSION = "2025-11-25"


def log(message: str) -> None:
    print(f"namespaces_bench: {message}", file=sys.stderr, flush=True)


def run(skillpath: Path, db: Path, *args: str) -> str:
    """`skillpath ARGS --db DB`, which must succeed: its stdout."""
    done = subprocess.run([str(skillpath), *args, "--db", str(db)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env(db.parent))
    if done.returncode != 0:
        sys.exit(f"namespaces_bench: skillpath {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def env(home: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPATH_", "XDG_"))}
    clean["HOME"] = str(home)
    return clean


def write_skills(folder: Path, names: list[str]) -> Path:
    for name in names:
        skill = folder / name
        skill.mkdir(parents=True, exist_ok=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use when the team needs {name.replace('-', ' ')}.\n"
            f"---\n\n# {name}\n\nFollow the steps for {name}.\n")
    return folder


def key_for(skillpath: Path, db: Path, user: str) -> str:
    out = run(skillpath, db, "keys", "create", "--name", f"{user}-key", "--user", user,
              "--role", "reader", "--format", "json")
    return json.loads(out)["key"]


def make_many(skillpath: Path, work: Path, items: int, namespaces: int, member_of: int) -> tuple[Path, str, list[str]]:
    db = work / "many" / "store.db"
    db.parent.mkdir(parents=True)
    run(skillpath, db, "users", "create", "reader")
    theirs: list[str] = []
    for n in range(namespaces):
        namespace = f"@team-{n:03d}"
        run(skillpath, db, "namespaces", "create", namespace)
        names = [f"team-{n:03d}-skill-{i:05d}" for i in range(n, items, namespaces)]
        folder = write_skills(work / "folders" / f"team-{n:03d}", names)
        run(skillpath, db, "import", "--namespace", namespace, str(folder))
        if n < member_of:
            run(skillpath, db, "members", "add", namespace, "reader", "--role", "reader")
            theirs += [str(folder / name) for name in names]
    return db, key_for(skillpath, db, "reader"), theirs


def make_theirs(skillpath: Path, work: Path, folders: list[str]) -> tuple[Path, str]:
    db = work / "theirs" / "store.db"
    db.parent.mkdir(parents=True)
    run(skillpath, db, "users", "create", "reader")
    run(skillpath, db, "members", "add", "@global", "reader", "--role", "reader")
    for start in range(0, len(folders), 500):
        run(skillpath, db, "import", *folders[start:start + 500])
    return db, key_for(skillpath, db, "reader")


class Server:
    """`skillpath serve --http` on a free loopback port, on `db`."""

    def __init__(self, skillpath: Path, db: Path):
        self.proc = subprocess.Popen(
            [str(skillpath), "serve", "--no-discover", "--http", "127.0.0.1:0", "--auth", "required",
             "--stateless", "--tools", "per-skill", "--db", str(db)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=env(db.parent))
        self.address = ""
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if "serving MCP on http://" in line:
                self.address = line.split("serving MCP on http://")[1].strip().removesuffix("/mcp")
                break
        if not self.address:
            sys.exit("namespaces_bench: the server did not start")
        # Its log is read on, so that it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def tools(self, key: str) -> list[str]:
        """Every tool the key is listed, every page."""
        host, port = self.address.rsplit(":", 1)
        names: list[str] = []
        cursor = None
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        while True:
            params = {"cursor": cursor} if cursor else {}
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
            connection.request("POST", "/mcp", body, {
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": PROTOCOL_VERSION, "Authorization": f"Bearer {key}"})
            response = connection.getresponse()
            payload = response.read().decode()
            if response.status != 200:
                sys.exit(f"namespaces_bench: tools/list answered {response.status}: {payload[:200]}")
            message = None
            for line in payload.splitlines():
                if line.startswith("data:") and line[5:].strip():
                    message = json.loads(line[5:])
            message = message or json.loads(payload)
            result = message["result"]
            names += [tool["name"] for tool in result["tools"]]
            cursor = result.get("nextCursor")
            if not cursor:
                connection.close()
                return names


def measure(server: Server, key: str, runs: int) -> tuple[list[float], list[str]]:
    for _ in range(2):
        listed = server.tools(key)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        server.tools(key)
        times.append(time.perf_counter() - start)
    return times, listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--namespaces", type=int, default=100)
    parser.add_argument("--member-of", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--format", choices=["json", "markdown"], default="markdown")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    skillpath = common.skillpath_bin()
    with tempfile.TemporaryDirectory(prefix="skillpath-namespaces-") as temp:
        work = Path(temp)
        log(f"making a store of {args.items} skills in {args.namespaces} namespaces")
        many_db, many_key, folders = make_many(skillpath, work, args.items, args.namespaces, args.member_of)
        log(f"making a store of the person's {len(folders)} skills alone")
        theirs_db, theirs_key = make_theirs(skillpath, work, folders)
        results = {}
        listed = {}
        for name, db, key in (("many", many_db, many_key), ("theirs", theirs_db, theirs_key)):
            server = Server(skillpath, db)
            try:
                times, listed[name] = measure(server, key, args.runs)
            finally:
                server.stop()
            results[name] = {"p50_ms": common.median(times) * 1000,
                             "p90_ms": common.percentile(times, 90) * 1000}
        skills = sorted(n for n in listed["many"] if n.startswith("team-"))
        if skills != sorted(n for n in listed["theirs"] if n.startswith("team-")) or not skills:
            sys.exit("namespaces_bench: the two servers listed different tools")
    report = {
        "setup": {"items": args.items, "namespaces": args.namespaces, "member_of": args.member_of,
                  "tools_listed": len(listed["many"]), "runs": args.runs},
        **results,
        "theirs_over_many": results["theirs"]["p50_ms"] / results["many"]["p50_ms"],
    }
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    if args.format == "json":
        print(json.dumps(report, indent=2))
        return
    print(
        f"`tools/list` (every page) for a reader of {args.member_of} of {args.namespaces} namespaces "
        f"holding {args.items} skills ({report['setup']['tools_listed']} tools listed), against a "
        f"server of their skills alone; {args.runs} listings over HTTP, `--tools per-skill`:\n\n"
        "| server | p50 | p90 |\n|---|---|---|\n"
        f"| shared: {args.namespaces} namespaces, {args.items} skills | {results['many']['p50_ms']:.1f} ms | "
        f"{results['many']['p90_ms']:.1f} ms |\n"
        f"| their own: {len(folders)} skills | {results['theirs']['p50_ms']:.1f} ms | "
        f"{results['theirs']['p90_ms']:.1f} ms |\n\n"
        f"their own ÷ shared: {report['theirs_over_many']:.2f} (1: as fast; above 1: the shared server is faster)")


if __name__ == "__main__":
    main()
