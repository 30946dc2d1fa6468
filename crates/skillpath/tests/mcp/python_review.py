"""Drafts and review on a team server, driven by the official Python MCP SDK (PyPI `mcp`).

Run by `crates/skillpath/tests/it/mcp_python.rs` with the test-tools venv's Python:

    python python_review.py SKILLPATH_BIN EXAMPLES_DIR WORK_DIR

One `skillpath serve --http --auth required` (review is then required) on a SQLite store with
the example skills, and keys made with `skillpath keys create`: an author (`ana`), a second
author (`bo`), a maintainer (`mia`) and a reader (`rex`). In the 2025-11-25 era: what the author
creates is a draft nobody is served; the reader cannot tell a draft from nothing; the author
sees only their own drafts, the maintainer every one; a rejection reaches the author with its
message; publishing sends `tools/list_changed` to a connected client and makes the tool
callable; a draft made on an old revision is refused naming both; an author cannot delete. In
the 2026-07-28 era (`server/discover`): an architecture package and an update drafted, the
update built on the author's own draft, published by the maintainer and served; a fork by the
maintainer, recording its origin (an author's fork is refused, as a deletion is). The CLI's
`review`, `publish` and `reject` act on the same drafts. Any failed assertion exits non-zero
with the reason; the last line is `ok`.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from contextlib import asynccontextmanager

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp_common import serve_http, text_of, tool_names


def cli(binary: str, db: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *args, "--db", db], capture_output=True, text=True, timeout=60)


def make_key(binary: str, db: str, name: str, role: str) -> str:
    made = cli(binary, db, "keys", "create", "--name", name, "--role", role, "--format", "json")
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)["key"]


@asynccontextmanager
async def session_of(url: str, key: str, era: str, on_message=None):
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1], message_handler=on_message) as session:
                if era == "2025-11-25":
                    await session.initialize()
                else:
                    await session.discover()
                assert session.protocol_version == era, session.protocol_version
                yield session


async def call(session: ClientSession, tool: str, arguments: dict) -> tuple[bool, str]:
    result = await session.call_tool(tool, arguments)
    return bool(result.is_error), text_of(result)


AUDIT_LOG = {
    "name": "add-audit-log",
    "description": "Adds an audit log to a service. Use when a team must record who changed what.",
    "args": [{"name": "service_name", "description": "The service", "required": True}],
    "summary": "Adds an audit log to {ServiceName}.",
}


async def first_era(binary: str, url: str, db: str, keys: dict[str, str]) -> None:
    era = "2025-11-25"
    notifications: list[str] = []

    async def on_message(message) -> None:
        notifications.append(repr(message))

    async with session_of(url, keys["ana"], era) as ana, session_of(url, keys["rex"], era) as rex, \
            session_of(url, keys["mia"], era, on_message) as mia, session_of(url, keys["bo"], era) as bo:
        # The author's creation is a draft: saved, said so, served to nobody.
        failed, saved = await call(ana, "create_skill", AUDIT_LOG)
        assert not failed and "Saved your draft of `add-audit-log`" in saved, saved
        for session in (ana, rex, mia):
            assert "add-audit-log" not in await tool_names(session)
        listed = json.loads(text_of(await rex.call_tool("list_skills", {})))
        assert "add-audit-log" not in json.dumps(listed), listed
        failed, loaded = await call(rex, "load_skill", {"name": "add-audit-log"})
        assert failed and "no skill named `add-audit-log`" in loaded, loaded

        # A reader asking for the draft hears exactly what it hears for a name nobody drafted.
        failed, hidden = await call(rex, "get_skill", {"name": "add-audit-log", "draft": True})
        failed_none, nothing = await call(rex, "get_skill", {"name": "no-such-skill", "draft": True})
        assert failed and failed_none, (hidden, nothing)
        assert hidden == nothing.replace("no-such-skill", "add-audit-log"), (hidden, nothing)
        assert "list_drafts" not in await tool_names(rex)

        # The author reads their draft with its diff; another author sees neither it nor it in the queue.
        failed, mine = await call(ana, "get_skill", {"name": "add-audit-log", "draft": True})
        assert not failed, mine
        mine = json.loads(mine)
        assert mine["draft"]["author"] == "ana" and mine["draft"]["base"] == 0, mine
        assert mine["draft"]["status"] == "open", mine
        assert "+name: add-audit-log" in mine["diff"], mine["diff"]
        failed, theirs = await call(bo, "get_skill", {"name": "add-audit-log", "draft": True})
        assert failed and theirs == hidden, theirs
        bo_queue = json.loads(text_of(await bo.call_tool("list_drafts", {})))
        assert bo_queue["drafts"] == [], bo_queue

        # The maintainer's queue has it; a rejection reaches the author with its message.
        queue = json.loads(text_of(await mia.call_tool("list_drafts", {})))
        assert [(d["name"], d["author"]) for d in queue["drafts"]] == [("add-audit-log", "ana")], queue
        failed, rejected = await call(mia, "reject_skill", {"name": "add-audit-log", "message": "say which events are logged"})
        assert not failed and "Rejected the draft of `add-audit-log` by `ana`" in rejected, rejected
        own = json.loads(text_of(await ana.call_tool("list_drafts", {})))["drafts"]
        assert own[0]["status"] == "rejected" and own[0]["review_message"] == "say which events are logged", own
        assert own[0]["reviewer"] == "mia", own
        # Only a maintainer publishes.
        assert "publish_skill" not in await tool_names(ana)

        # Saved again, it is open; published, every client hears of it and can call it.
        spec = {**AUDIT_LOG, "summary": "Adds an audit log of logins and changes to {ServiceName}."}
        failed, saved = await call(ana, "create_skill", spec)
        assert not failed, saved
        assert json.loads(text_of(await ana.call_tool("list_drafts", {})))["drafts"][0]["status"] == "open"
        notifications.clear()
        failed, published = await call(mia, "publish_skill", {"name": "add-audit-log", "message": "thanks"})
        assert not failed and "Published `add-audit-log` at revision 1" in published, published
        for _ in range(50):
            if any("ToolListChanged" in n for n in notifications):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"no tools/list_changed after publishing: {notifications}")
        assert "add-audit-log" in await tool_names(rex)
        rendered = text_of(await rex.call_tool("add-audit-log", {"service_name": "Billing"}))
        assert "Adds an audit log of logins and changes to Billing." in rendered, rendered
        history = json.loads(text_of(await rex.call_tool("skill_history", {"name": "add-audit-log"})))
        assert history[0]["author"] == "ana" and "published by mia: thanks" in history[0]["message"], history

        # A draft made on an old revision: someone published in between.
        current = json.loads(text_of(await ana.call_tool("get_skill", {"name": "add-caching"})))["revision"]
        failed, saved = await call(ana, "update_skill", {"name": "add-caching", "expected_revision": current, "description": "Adds a cache. Use when ana says so."})
        assert not failed and f"on revision {current}" in saved, saved
        failed, direct = await call(mia, "update_skill", {"name": "add-caching", "expected_revision": current, "description": "Adds a cache. Use when mia says so."})
        assert not failed and f"Updated `add-caching` to revision {current + 1}" in direct, direct
        failed, stale = await call(mia, "publish_skill", {"name": "add-caching"})
        assert failed, stale
        assert f"made on revision {current}, and revision {current + 1} was published since" in stale, stale
        assert "reject_skill" in stale, stale

        # Nor can a fork, which may create several items: an author's is refused.
        failed, refused = await call(ana, "fork_skill", {"from": "add-audit-log", "name": "ana-audit-log"})
        assert failed and "ask a maintainer to fork `add-audit-log`" in refused, refused

        # Deleting cannot wait for review: an author's deletion is refused, a maintainer's is not.
        failed, refused = await call(ana, "delete_skill", {"name": "add-audit-log", "expected_revision": 1})
        assert failed and "ask a maintainer" in refused, refused
        assert "add-audit-log" in await tool_names(rex)


async def second_era(binary: str, url: str, db: str, keys: dict[str, str]) -> None:
    era = "2026-07-28"
    async with session_of(url, keys["bo"], era) as bo, session_of(url, keys["mia"], era) as mia:
        package = {
            "name": "go-service",
            "description": "A Go HTTP service with chi on PostgreSQL. Use for backend services in Go.",
            "layers": [{"name": "Handlers", "description": "HTTP handlers"}],
            "tech_stack": ["Go", "chi"],
            "docs": [{"path": "docs/layout.md", "content": "# Layout\n"}],
        }
        failed, saved = await call(bo, "create_architecture", package)
        assert not failed and "Saved your draft of `go-service` (as a new package)" in saved, saved
        listed = json.loads(text_of(await mia.call_tool("list_architectures", {})))
        assert "go-service" not in [a["name"] for a in listed["architectures"]], listed

        # An update drafted twice builds on the author's own draft, not on the published revision.
        current = json.loads(text_of(await bo.call_tool("get_skill", {"name": "write-release-notes"})))["revision"]
        first = {"name": "write-release-notes", "expected_revision": current, "description": "Writes release notes. Use when bo releases."}
        assert not (await bo.call_tool("update_skill", first)).is_error
        second = {"name": "write-release-notes", "expected_revision": current, "summary": "Plain words."}
        failed, saved = await call(bo, "update_skill", second)
        assert not failed, saved
        draft = json.loads(text_of(await bo.call_tool("get_skill", {"name": "write-release-notes", "draft": True})))
        assert "Use when bo releases." in draft["skill_md"] and "Plain words." in draft["skill_md"], draft["skill_md"]

        # A maintainer forks at once; the copy records what it was copied from.
        failed, forked = await call(mia, "fork_skill", {"from": "add-audit-log", "name": "acme-audit-log"})
        assert not failed and "Forked `add-audit-log` (revision 1) as `acme-audit-log`" in forked, forked
        copy = json.loads(text_of(await bo.call_tool("get_skill", {"name": "acme-audit-log"})))
        assert copy["provenance"] == {"kind": "forked", "from": "add-audit-log", "revision": 1}, copy
        assert "name: acme-audit-log" in copy["skill_md"], copy["skill_md"]

        failed, published = await call(mia, "publish_skill", {"name": "go-service"})
        assert not failed and "Published `go-service` at revision 1" in published, published
        listed = json.loads(text_of(await mia.call_tool("list_architectures", {})))
        assert "go-service" in [a["name"] for a in listed["architectures"]], listed

    # The command line reviews the same drafts.
    review = cli(binary, db, "review", "--format", "json")
    assert review.returncode == 0, review.stderr
    queue = json.loads(review.stdout)
    assert [(d["name"], d["author"]) for d in queue] == [("add-caching", "ana"), ("write-release-notes", "bo")], queue
    shown = cli(binary, db, "review", "write-release-notes")
    assert shown.returncode == 0 and "+Plain words." in shown.stdout, shown.stdout
    unknown = cli(binary, db, "publish", "no-such-skill")
    assert unknown.returncode == 1 and "no draft of `no-such-skill`" in unknown.stderr, unknown.stderr
    stale = cli(binary, db, "publish", "add-caching")
    assert stale.returncode == 1 and "was published since" in stale.stderr and "skillpath reject add-caching --by ana" in stale.stderr, stale.stderr
    rejected = cli(binary, db, "reject", "add-caching", "--by", "ana", "--author", "lead", "--message", "made on an old revision")
    assert rejected.returncode == 0, rejected.stderr
    published = cli(binary, db, "publish", "write-release-notes", "--author", "lead", "--format", "json")
    assert published.returncode == 0, published.stderr
    assert json.loads(published.stdout)["name"] == "write-release-notes", published.stdout
    remaining = json.loads(cli(binary, db, "review", "--format", "json").stdout)
    assert [(d["name"], d["status"]) for d in remaining] == [("add-caching", "rejected")], remaining


async def main(binary: str, examples: str, work: str) -> None:
    db = os.path.join(work, "store.db")
    keys = {
        "ana": make_key(binary, db, "ana", "author"),
        "bo": make_key(binary, db, "bo", "author"),
        "mia": make_key(binary, db, "mia", "maintainer"),
        "rex": make_key(binary, db, "rex", "reader"),
    }
    process, url, said = await serve_http(
        binary, work, ["--auth", "required", "--db", db, "--no-discover", "--tools", "per-skill", "--skills", examples]
    )
    try:
        assert any("waits for a maintainer to publish it" in line for line in said), said
        await first_era(binary, url, db, keys)
        await second_era(binary, url, db, keys)
    finally:
        process.terminate()
        await process.wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
    print("ok")
