"""The studio's pages: how long the server takes to answer each, and search as you type, on a
catalog imported into a store and served by `skillpath serve --http`.

Usage: python3 bench/studio_bench.py --catalog DIR [--catalog DIR ...] [--requests 200]
    [--format json|markdown] [--json-out FILE]

For each catalog: the catalog is imported into an empty SQLite store, a server started on it,
and each page asked for `--requests` times over one kept-alive connection, the skills and
queries taken in turn: the catalog (first page, a later page, filtered), search as you type (the
results part, `fragment=1`, for each prefix of a query as it is typed, as the page's script asks
for it), a skill's page, its form's answer (a `tools/call`), a file, the editor, the history and
a diff. The server's own time is its `Server-Timing` header (from the request reaching the studio
to the page rendered); the round trip is the client's. Side by side, the same searches as
`search_skills` calls over MCP (`POST /mcp`, stateless; as many hits as the page's 50 and one),
which is what a user without the studio would run to look through the catalog: the ratio is the
search page's round trip over the MCP call's, the cost of the HTML around the same ranking.

Target (the studio's issue): p99 server time under 50 ms for every page.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import common

TARGET_MS = 50.0
QUERIES = ["deploy kubernetes", "write tests", "pdf form", "database migration", "code review",
           "release notes", "api endpoint", "docker image"]


def skill_names(catalog: Path) -> list[str]:
    """The names of the catalog's skills (their folders' names), sorted."""
    return sorted(path.parent.name for path in catalog.rglob("SKILL.md"))


def import_into(skillpath: Path, catalog: Path, store: Path) -> None:
    """Imports `catalog` into the new SQLite store `store`."""
    subprocess.run([str(skillpath), "import", str(catalog), "--db", str(store), "--format", "json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def serve(skillpath: Path, store: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """`skillpath serve` (with `extra` arguments) on `store`, once it says where it listens."""
    env = {**os.environ, "SKILLPATH_DB": str(store), "HOME": str(store.parent)}
    # Stateless, so that a `search_skills` call needs no session set up first.
    process = subprocess.Popen([str(skillpath), "serve", "--no-discover", "--stateless", "--http", "127.0.0.1:0",
                                *extra],
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    address = None
    for line in process.stderr:
        found = re.search(r"serving MCP on http://(\S+)/mcp", line)
        if found:
            address = found.group(1)
            break
    if address is None:
        sys.exit("bench: the server did not start")
    threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
    return process, address


class Client:
    """One kept-alive connection with the studio's cookie."""

    def __init__(self, address: str):
        host, port = address.rsplit(":", 1)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
        self.cookie = ""

    def get(self, path: str) -> tuple[float, float, int]:
        """Server milliseconds, round-trip milliseconds and the status of one GET."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        start = time.perf_counter()
        self.connection.request("GET", path, headers=headers)
        response = self.connection.getresponse()
        response.read()
        took = (time.perf_counter() - start) * 1000
        cookie = response.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        timing = response.getheader("server-timing") or ""
        found = re.search(r"dur=([0-9.]+)", timing)
        return (float(found.group(1)) if found else float("nan")), took, response.status

    def mcp(self, method: str, params: dict) -> float:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-11-25"}
        start = time.perf_counter()
        self.connection.request("POST", "/mcp", body=body, headers=headers)
        response = self.connection.getresponse()
        response.read()
        if response.status != 200:
            sys.exit(f"bench: {method} answered {response.status}")
        return (time.perf_counter() - start) * 1000


def pages(names: list[str], requests: int) -> dict[str, list[str]]:
    """The paths asked for, per page, `requests` of each (skills and queries taken in turn)."""
    def skills(template: str) -> list[str]:
        return [template.format(urllib.parse.quote(names[(i * 7919) % len(names)])) for i in range(requests)]

    typed = []
    while len(typed) < requests:
        for query in QUERIES:
            typed += [f"/?fragment=1&q={urllib.parse.quote(query[:n])}" for n in range(1, len(query) + 1)]
    last_page = max(1, len(names) // 50)
    return {
        "catalog": ["/"] * requests,
        "catalog, a later page": [f"/?page={1 + i % last_page}" for i in range(requests)],
        "catalog, filtered": ["/?kind=golden&audit=clean&validity=valid"] * requests,
        "search as you type": typed[:requests],
        "skill": skills("/skills/{}"),
        "form answer (tools/call)": skills("/skills/{}/try?arg.service_name=Orders"),
        "file": skills("/skills/{}/files/SKILL.md"),
        "editor": skills("/skills/{}/edit"),
        "history": skills("/skills/{}/history"),
        "diff": skills("/skills/{}/diff?from=1&to=1"),
    }


def summarize(values: list[float]) -> dict:
    return {"p50": round(common.percentile(values, 50), 2), "p99": round(common.percentile(values, 99), 2)}


def measure(skillpath: Path, catalog: Path, requests: int) -> dict:
    names = skill_names(catalog)
    with tempfile.TemporaryDirectory(prefix="skillpath-studio-bench-") as temp:
        store = Path(temp) / "store.db"
        import_into(skillpath, catalog, store)
        process, address = serve(skillpath, store)
        try:
            client = Client(address)
            client.get("/")  # the cookie, and a warm catalog
            results = {}
            for page, paths in pages(names, requests).items():
                server, trip = [], []
                for path in paths:
                    ms, rtt, status = client.get(path)
                    if status != 200:
                        sys.exit(f"bench: {path} answered {status}")
                    server.append(ms)
                    trip.append(rtt)
                results[page] = {"server_ms": summarize(server), "round_trip_ms": summarize(trip)}
            searches = pages(names, requests)["search as you type"]
            # As many hits as the catalog's first page asks for: its 50 and one more.
            mcp = [client.mcp("tools/call", {"name": "search_skills", "arguments": {
                "query": urllib.parse.unquote(path.split("q=", 1)[1]), "limit": 51}}) for path in searches]
            results["search_skills over MCP"] = {"round_trip_ms": summarize(mcp)}
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {"catalog": catalog.name, "skills": len(names), "requests": requests, "pages": results}


def markdown(reports: list[dict]) -> str:
    parts = []
    for report in reports:
        pages = report["pages"]
        mcp = pages["search_skills over MCP"]["round_trip_ms"]
        lines = [
            f"Studio pages on {report['skills']:,} skills (`{report['catalog']}`), {report['requests']} "
            f"requests each over one connection; server time from `Server-Timing`, target p99 < {TARGET_MS:.0f} ms:",
            "",
            "| page | server p50 | server p99 | round trip p50 | round trip p99 | p99 target |",
            "|---|--:|--:|--:|--:|:-:|",
        ]
        for page, figures in pages.items():
            if "server_ms" not in figures:
                continue
            server, trip = figures["server_ms"], figures["round_trip_ms"]
            met = "met" if server["p99"] < TARGET_MS else "missed"
            lines.append(f"| {page} | {server['p50']} ms | {server['p99']} ms | {trip['p50']} ms | "
                         f"{trip['p99']} ms | {met} |")
        typed = pages["search as you type"]["round_trip_ms"]
        lines += ["", f"Search as you type against `search_skills` over MCP, same queries: round trip p50 "
                      f"{typed['p50']} ms vs {mcp['p50']} ms ({common.times(common.ratio_num(typed['p50'], mcp['p50']), 2)} "
                      f"the MCP call), p99 {typed['p99']} ms vs {mcp['p99']} ms."]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, action="append", required=True)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--format", choices=["json", "markdown"], default="markdown")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    skillpath = common.skillpath_bin()
    reports = [measure(skillpath, catalog, args.requests) for catalog in args.catalog]
    document = {"studio": reports}
    if args.json_out:
        args.json_out.write_text(json.dumps(document, indent=2) + "\n")
    print(markdown(reports) if args.format == "markdown" else json.dumps(document, indent=2))


if __name__ == "__main__":
    main()
