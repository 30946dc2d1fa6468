#!/usr/bin/env python3
"""Checks of the harness itself (`bench/run --smoke` runs them first): the start measurement of
`serve_bench.stdio_start` against scripted stdio servers that behave as each kind of skillpath
build does, so the rule for "the list is complete" is shown right for a build that syncs its
folders before it answers and for one that answers from its store and syncs in the background,
whichever order it announces the sync in.

    python3 bench/test_harness.py
"""

from __future__ import annotations

import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True  # no bench/__pycache__ left behind
sys.path.insert(0, str(Path(__file__).resolve().parent))
import serve_bench  # noqa: E402

# A stdio MCP server of seven tools, paged two at a time, whose folder sync takes SYNC_S:
# - "first": syncs before it reads stdin (the builds before issue 18);
# - "unchanged": answers with every tool at once, says it synced later (a warm store);
# - "notify-then-log" / "log-then-notify": answers from an empty store; after its sync, the
#   tools appear with `notifications/tools/list_changed`, announced before or after the
#   `skill folders synced` line on stderr (after: 0.2 s later, so the client's listing asked
#   for after the line still shows the empty store).
SERVER = r"""
import json, sys, threading, time
SYNC_S = 0.3
kind = sys.argv[1]
full = [{"name": f"skill-{i}", "inputSchema": {"type": "object"}} for i in range(7)]
lock = threading.Lock()
def say(message):
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
def synced():
    sys.stderr.write("skillpath: skill folders synced: 7 created\n")
    sys.stderr.flush()
def changed():
    say({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
tools = []
if kind == "first":
    time.sleep(SYNC_S)
    synced()
    tools = full
elif kind == "unchanged":
    tools = full
def background():
    global tools
    time.sleep(SYNC_S)
    if kind == "notify-then-log":
        tools = full
        changed()
        time.sleep(0.05)
        synced()
    elif kind == "log-then-notify":
        synced()
        time.sleep(0.2)  # longer than the client's listing after the line takes
        tools = full
        changed()
    elif kind == "unchanged":
        synced()
for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        say({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25"}})
    elif method == "notifications/initialized" and kind != "first":
        threading.Thread(target=background, daemon=True).start()
    elif method == "tools/list":
        start = int((message.get("params") or {}).get("cursor") or 0)
        result = {"tools": tools[start:start + 2]}
        if start + 2 < len(tools):
            result["nextCursor"] = str(start + 2)
        time.sleep(0.01)
        say({"jsonrpc": "2.0", "id": message["id"], "result": result})
"""


class StartMeasurement(unittest.TestCase):
    def start(self, kind: str) -> dict:
        with tempfile.TemporaryDirectory() as temp:
            script = Path(temp) / "server.py"
            script.write_text(SERVER)
            result = serve_bench.stdio_start(
                [sys.executable, str(script), kind], {}, Path(temp) / "stderr.log", True, 30
            )
        self.assertEqual([t["name"] for t in result["tools"]], [f"skill-{i}" for i in range(7)])
        self.assertEqual(result["pages"], 4)
        return result

    def test_a_build_that_syncs_first_is_done_at_its_first_listing(self):
        result = self.start("first")
        self.assertEqual(result["ms"], result["first_list_ms"])
        self.assertEqual(result["list_changed"], 0)

    def test_a_warm_store_is_done_at_its_first_listing_before_the_sync_ends(self):
        result = self.start("unchanged")
        self.assertEqual(result["ms"], result["first_list_ms"])
        self.assertLess(result["ms"], result["synced_ms"])

    def test_an_empty_store_is_done_at_the_listing_after_its_sync(self):
        for kind in ("notify-then-log", "log-then-notify"):
            with self.subTest(kind):
                result = self.start(kind)
                self.assertGreater(result["ms"], result["synced_ms"])
                self.assertGreater(result["ms"], result["first_list_ms"])
                self.assertEqual(result["list_changed"], 1)


if __name__ == "__main__":
    unittest.main()
