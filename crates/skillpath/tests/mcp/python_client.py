"""The skillpath MCP server driven by the official Python MCP SDK (PyPI `mcp`).

Run by `crates/skillpath/tests/it/mcp_python.rs` with the test-tools venv's Python:

    python python_client.py SKILLPATH_BIN EXAMPLES_DIR WORK_DIR

It starts `skillpath serve` over stdio and over Streamable HTTP (a fresh database in WORK_DIR,
the example skills), in both protocol eras (2025-11-25 `initialize`, 2026-07-28 `server/discover`),
exercises every tool, resources, templates, completion, prompts, authoring, resource subscriptions
and notifications (after tool calls and after edits of a watched folder), and asserts on what
comes back. Any failed assertion exits non-zero with the reason; the last line is `ok`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import ResourceUpdated, ToolsListChanged

from mcp_common import serve_http, text_of


async def scenario(binary: str, examples: str, work: str) -> None:
    notifications: list[str] = []

    async def on_message(message) -> None:
        notifications.append(type(getattr(message, "root", message)).__name__ + repr(message))

    params = StdioServerParameters(
        command=binary,
        args=["serve", "--db", os.path.join(work, "store.db"), "--skills", examples, "--no-discover", "--tools", "per-skill"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()

            # The server's first answers wait for its folder sync (within `--sync-wait`); a
            # client that listed before the sync was done (past the bound) hears
            # `tools/list_changed` and lists again.
            expected_tools = ["add-caching", "add_ci_workflow", "write-release-notes"]
            tools = (await session.list_tools()).tools
            if not all(name in [tool.name for tool in tools] for name in expected_tools):
                for _ in range(300):
                    if any("ToolListChanged" in n for n in notifications):
                        break
                    await asyncio.sleep(0.1)
                assert any("ToolListChanged" in n for n in notifications), notifications
                notifications.clear()
                tools = (await session.list_tools()).tools
            names = [tool.name for tool in tools]
            for expected in ["add-caching", "add_ci_workflow", "write-release-notes", "create_skill", "load_skill", "search_skills"]:
                assert expected in names, f"{expected} not in {names}"
            caching = next(tool for tool in tools if tool.name == "add-caching")
            schema = caching.input_schema
            assert schema["properties"]["cache_provider"]["enum"] == ["redis", "memory"], schema
            assert schema["properties"]["ttl_minutes"]["default"] == 30, schema
            assert schema["required"] == ["service_name"], schema
            assert schema["additionalProperties"] is False, schema

            rendered = await session.call_tool("add-caching", {"service_name": "Orders"})
            assert not rendered.is_error, text_of(rendered)
            body = text_of(rendered)
            assert body.startswith('<skill_content name="add-caching">'), body[:200]
            assert "OrdersCacheService" in body and "{ServiceName}" not in body, body[:500]
            assert "- `ttl_minutes` = `30` (default)" in body, body[-400:]

            refused = await session.call_tool("add-caching", {"cache_provider": "x", "colour": "red"})
            assert refused.is_error, text_of(refused)
            problems = text_of(refused)
            for part in ["missing required argument `service_name`", "must be one of `redis`, `memory`", "unknown argument `colour`"]:
                assert part in problems, problems

            skill_md = await session.read_resource("skill://add-caching/SKILL.md")
            assert skill_md.contents[0].text.startswith("---\nname: add-caching\n"), skill_md
            template = await session.read_resource("skill://add-caching/CacheService.cs")
            assert "{ServiceName}" in template.contents[0].text, "resources are the stored files, not renders"
            try:
                await session.read_resource("skill://add-caching/../../etc/passwd")
                raise AssertionError("a path outside the skill was read")
            except Exception as error:  # the protocol's resource-not-found error
                assert "no resource" in str(error), error

            prompts = (await session.list_prompts()).prompts
            caching_prompt = next(prompt for prompt in prompts if prompt.name == "add-caching")
            assert [a.name for a in caching_prompt.arguments] == ["service_name", "cache_provider", "ttl_minutes"]
            prompt = await session.get_prompt("add-caching", {"service_name": "Billing", "ttl_minutes": "5"})
            prompt_text = prompt.messages[0].content.text
            assert "BillingCacheService" in prompt_text and "FromMinutes(5)" in prompt_text, prompt_text[:300]

            found = text_of(await session.call_tool("search_skills", {"query": "release notes changelog"}))
            assert found.startswith("- write-release-notes:"), found

            spec = {
                "name": "greet",
                "description": "Greets someone. Use when the user wants a greeting.",
                "args": [{"name": "who", "description": "Who to greet", "required": True}],
                "summary": "Say hello to {Who}.",
                "sections": [{"type": "free", "heading": "Steps", "content": "1. Say hello to {Who}."}],
            }
            checked = text_of(await session.call_tool("validate_skill", {"skill": spec}))
            assert checked.startswith("The skill is valid"), checked
            created = await session.call_tool("create_skill", spec)
            assert not created.is_error, text_of(created)
            for _ in range(50):
                if any("ToolListChanged" in n for n in notifications):
                    break
                await asyncio.sleep(0.1)
            assert any("ToolListChanged" in n for n in notifications), notifications
            assert "greet" in [tool.name for tool in (await session.list_tools()).tools]
            greeting = text_of(await session.call_tool("greet", {"who": "Ada"}))
            assert "Say hello to Ada." in greeting, greeting

            invalid = await session.call_tool("create_skill", {"name": "Bad_Name", "description": "x"})
            assert invalid.is_error and "name-" in text_of(invalid), text_of(invalid)
            stale = await session.call_tool("update_skill", {"name": "greet", "expected_revision": 7, "summary": "Hi {Who}."})
            assert stale.is_error and "is at revision 1, not 7" in text_of(stale), text_of(stale)
            updated = await session.call_tool("update_skill", {"name": "greet", "expected_revision": 1, "summary": "Hi {Who}."})
            assert not updated.is_error, text_of(updated)
            assert "Hi Ada." in text_of(await session.call_tool("greet", {"who": "Ada"}))
            history = json.loads(text_of(await session.call_tool("skill_history", {"name": "greet"})))
            assert [r["operation"] for r in history] == ["create", "update"], history
            rolled = await session.call_tool("rollback_skill", {"name": "greet", "to_revision": 1, "expected_revision": 2})
            assert not rolled.is_error, text_of(rolled)
            assert "Say hello to Ada." in text_of(await session.call_tool("greet", {"who": "Ada"}))
            stored = json.loads(text_of(await session.call_tool("get_skill", {"name": "greet"})))
            assert stored["revision"] == 3 and "Say hello to {Who}." in stored["skill_md"], stored
            first_two = json.loads(text_of(await session.call_tool("list_skills", {"limit": 2})))
            assert [s["name"] for s in first_two["skills"]] == ["add-caching", "add-endpoint"], first_two
            plan = text_of(await session.call_tool("plan_skill", {"goal": "add a health check endpoint"}))
            assert plan.startswith("# Planning a skill for: add a health check endpoint"), plan[:200]
            loaded = text_of(await session.call_tool("load_skill", {"name": "greet", "arguments": {"who": "Alan"}}))
            assert "Say hello to Alan." in loaded, loaded
            missing = await session.call_tool("load_skill", {"name": "nope"})
            assert missing.is_error and "search_skills" in text_of(missing), text_of(missing)
            brief = {"name": "brief", "description": "Briefly. Use when testing deletion.", "summary": "Brief."}
            assert not (await session.call_tool("create_skill", brief)).is_error
            deleted = await session.call_tool("delete_skill", {"name": "brief", "expected_revision": 1})
            assert not deleted.is_error, text_of(deleted)
            assert "brief" not in [tool.name for tool in (await session.list_tools()).tools]
            gone = await session.call_tool("rollback_skill", {"name": "brief", "to_revision": 1, "expected_revision": 2})
            assert gone.is_error and "`brief` is deleted" in text_of(gone), text_of(gone)

            templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
            assert templates == ["skill://{name}/SKILL.md", "skill://{name}/{path}"], templates
            names = await session.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="skill://{name}/SKILL.md"),
                {"name": "name", "value": "add-"},
            )
            assert names.completion.values[:2] == ["add-caching", "add-endpoint"], names
            providers = await session.complete(
                types.PromptReference(type="ref/prompt", name="add-caching"), {"name": "cache_provider", "value": "r"}
            )
            assert providers.completion.values == ["redis"], providers

    # Pagination: a page size of 3 still yields every tool exactly once.
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--db", os.path.join(work, "store.db"), "--no-discover", "--tools", "per-skill", "--page-size", "3"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            seen, cursor, pages = [], None, 0
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                seen.extend(tool.name for tool in page.tools)
                pages += 1
                cursor = page.next_cursor
                if not cursor:
                    break
            assert len(seen) == len(set(seen)) and "greet" in seen and pages > 3, (pages, seen)

    # The 2026-07-28 era: `server/discover` instead of `initialize`, the same tools.
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--db", os.path.join(work, "store.db"), "--no-discover", "--tools", "per-skill"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.discover()
            assert session.protocol_version == "2026-07-28", session.protocol_version
            assert "greet" in [tool.name for tool in (await session.list_tools()).tools]
            greeting = await session.call_tool("greet", {"who": "Grace"})
            assert not greeting.is_error and "Say hello to Grace." in text_of(greeting), text_of(greeting)

            # A `subscriptions/listen` stream hears what it asked for (tool changes and one skill's
            # SKILL.md), nothing else, and keeps listening after the first change.
            watched = "skill://listen-probe/SKILL.md"
            expected = {ToolsListChanged(), ResourceUpdated(watched)}
            async with listen(session, tools_list_changed=True, resource_subscriptions=[watched]) as stream:
                spec = {"name": "listen-probe", "description": "Probes. Use when testing listen.", "summary": "Probe."}
                created = await session.call_tool("create_skill", spec)
                assert not created.is_error, text_of(created)
                assert await events_of(stream, len(expected)) == expected
                deleted = await session.call_tool("delete_skill", {"name": "listen-probe", "expected_revision": 1})
                assert not deleted.is_error, text_of(deleted)
                assert await events_of(stream, len(expected)) == expected


async def events_of(stream, count: int) -> set:
    """The next `count` events of a listen stream (waiting at most 10 s for each)."""
    return {await asyncio.wait_for(stream.__anext__(), 10) for _ in range(count)}


def write_skill(folder: str, name: str, description: str) -> None:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "SKILL.md"), "w") as file:
        file.write(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")


async def description_of(session: ClientSession, tool_name: str) -> str | None:
    tools = (await session.list_tools()).tools
    return next((tool.description for tool in tools if tool.name == tool_name), None)


async def over_http(binary: str, work: str) -> None:
    """The same server over Streamable HTTP, in both eras: tools, a call, notifications on the
    GET stream (2025-11-25) and on a listen stream (2026-07-28), after a tool call and after an
    edit of a watched skill folder."""
    watched = os.path.join(work, "watched")
    write_skill(os.path.join(watched, "disk-skill"), "disk-skill", "Use when testing the first version.")
    process, url, _ = await serve_http(
        binary, work, ["--db", os.path.join(work, "store.db"), "--no-discover", "--tools", "per-skill", "--skills", watched]
    )
    try:
        notifications: list[str] = []

        async def on_message(message) -> None:
            notifications.append(repr(message))

        async def tool_list_changed() -> None:
            for _ in range(50):
                if any("ToolListChanged" in n for n in notifications):
                    notifications.clear()
                    return
                await asyncio.sleep(0.1)
            raise AssertionError(f"no tools/list_changed: {notifications}")

        async with streamable_http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=on_message) as session:
                await session.initialize()
                names = [tool.name for tool in (await session.list_tools()).tools]
                assert "greet" in names and "add-caching" in names and "disk-skill" in names, names
                greeting = await session.call_tool("greet", {"who": "Linus"})
                assert "Say hello to Linus." in text_of(greeting), text_of(greeting)
                spec = {"name": "wave", "description": "Waves. Use when the user wants a wave.", "summary": "Wave."}
                created = await session.call_tool("create_skill", spec)
                assert not created.is_error, text_of(created)
                await tool_list_changed()
                write_skill(os.path.join(watched, "disk-skill"), "disk-skill", "Use when testing the second version.")
                await tool_list_changed()
                assert await description_of(session, "disk-skill") == "Use when testing the second version."

        async with streamable_http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.discover()
                assert session.protocol_version == "2026-07-28", session.protocol_version
                assert "wave" in [tool.name for tool in (await session.list_tools()).tools]
                waved = await session.call_tool("wave", {})
                assert "Wave." in text_of(waved), text_of(waved)
                async with listen(session, tools_list_changed=True) as stream:
                    write_skill(os.path.join(watched, "disk-skill"), "disk-skill", "Use when testing the third version.")
                    assert await events_of(stream, 1) == {ToolsListChanged()}
                    assert await description_of(session, "disk-skill") == "Use when testing the third version."
                    # SIGTERM with the listen stream open: the server ends it and exits 0 at
                    # once, not at the end of its drain time (5 s).
                    started = time.monotonic()
                    process.terminate()
                    code = await asyncio.wait_for(process.wait(), 10)
                    took = time.monotonic() - started
                    assert code == 0 and took < 2, (code, took)
    finally:
        if process.returncode is None:
            process.terminate()
            await process.wait()


if __name__ == "__main__":
    asyncio.run(scenario(*sys.argv[1:4]))
    asyncio.run(over_http(sys.argv[1], sys.argv[3]))
    print("ok")
