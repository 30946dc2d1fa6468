"""Architecture packages driven by the official Python MCP SDK (PyPI `mcp`).

Run by `crates/skillpath/tests/it/mcp_python.rs` with the test-tools venv's Python:

    python python_packages.py SKILLPATH_BIN PACKAGES_DIR WORK_DIR

Over stdio, in both protocol eras (2025-11-25 `initialize`, 2026-07-28 `server/discover`), on
one database: the example package (PACKAGES_DIR) is served with its skills' options; an agent
plans, creates and chooses a package, adds a skill to it with `create_skill`'s `package`, calls
that skill with the option's default and with an override, and reads the package's
documentation pages as resources; refusals (a missing package, an argument that collides with
an option, a second package claiming a member) are `isError` results that say what to do. Any
failed assertion exits non-zero with the reason; the last line is `ok`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_common import text_of, tool_names


async def wait_for_tool(session: ClientSession, name: str) -> None:
    """Waits (at most 30 s) for the background folder sync to make `name` a tool."""
    for _ in range(300):
        if name in await tool_names(session):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{name} never became a tool")


GO_SERVICE = {
    "name": "go-service",
    "description": "A Go HTTP service with chi and sqlc on PostgreSQL. Use for backend services a team writes in Go.",
    "layers": [{"name": "Handlers", "description": "HTTP handlers"}, {"name": "Store", "description": "sqlc queries"}],
    "tech_stack": ["Go 1.23", "chi", "sqlc", "PostgreSQL"],
    "options": [{"name": "routerStyle", "description": "How routes are grouped", "enum": ["flat", "nested"], "default": "flat"}],
    "docs": [{"path": "docs/layout.md", "content": "# Layout\n\n`cmd/` holds the binary; `internal/` the rest.\n"}],
    "overview": "# Go service\n\nOne binary per service.",
}

ADD_HANDLER = {
    "name": "add-handler",
    "description": "Adds an HTTP handler to a Go service. Use when a route is needed.",
    "args": [{"name": "route", "description": "The route", "required": True}],
    "summary": "Adds `{Route}` with {RouterStyle} routing.",
    "package": "go-service",
}


async def first_era(binary: str, packages: str, work: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--db", os.path.join(work, "store.db"), "--skills", packages, "--no-discover", "--tools", "per-skill"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await wait_for_tool(session, "add-entity")
            names = await tool_names(session)
            for tool in ["plan_architecture", "create_architecture", "analyze_requirements", "list_architectures", "get_architecture"]:
                assert tool in names, (tool, names)

            # The example package's member takes the package's options, optional, with defaults.
            entity = next(tool for tool in (await session.list_tools()).tools if tool.name == "add-entity")
            schema = entity.input_schema
            assert schema["properties"]["idStrategy"]["enum"] == ["guid", "typed-id"], schema
            assert schema["properties"]["idStrategy"]["default"] == "guid", schema
            assert "idStrategy" not in schema.get("required", []), schema

            listed = json.loads(text_of(await session.call_tool("list_architectures", {})))
            assert [a["name"] for a in listed["architectures"]] == ["dotnet-clean-architecture"], listed
            got = json.loads(text_of(await session.call_tool("get_architecture", {"name": "dotnet-clean-architecture"})))
            assert [s["name"] for s in got["skills"]] == ["add-entity", "add-repository", "add-endpoint"], got
            assert all(s["in_store"] for s in got["skills"]), got
            assert got["docs"] == [
                "package://dotnet-clean-architecture/docs/architecture.md",
                "package://dotnet-clean-architecture/docs/conventions.md",
            ], got
            page = await session.read_resource(got["docs"][0])
            assert page.contents[0].text.startswith("# Architecture"), page

            plan = text_of(await session.call_tool("plan_architecture", {"repository": "a Go HTTP service"}))
            assert "Discovery questions" in plan and "What to extract as templates" in plan, plan

            created = await session.call_tool("create_architecture", GO_SERVICE)
            assert not created.is_error, text_of(created)

            # Refusals the agent can act on.
            missing = await session.call_tool("create_skill", {**ADD_HANDLER, "package": "no-such-package"})
            assert missing.is_error and "no architecture package named `no-such-package`" in text_of(missing), text_of(missing)
            clash = {**ADD_HANDLER, "name": "add-clash", "args": [{"name": "router_style", "required": True}]}
            clashed = await session.call_tool("create_skill", clash)
            assert clashed.is_error and "option-collides-with-argument" in text_of(clashed), text_of(clashed)

            joined = await session.call_tool("create_skill", ADD_HANDLER)
            assert not joined.is_error, text_of(joined)
            await wait_for_tool(session, "add-handler")
            default = text_of(await session.call_tool("add-handler", {"route": "/orders"}))
            assert "Adds `/orders` with flat routing." in default, default
            assert "package://go-service/docs/layout.md" in default, default
            nested = text_of(await session.call_tool("add-handler", {"route": "/orders", "routerStyle": "nested"}))
            assert "with nested routing." in nested, nested
            wrong = await session.call_tool("add-handler", {"route": "/x", "routerStyle": "deep"})
            assert wrong.is_error and "deep" in text_of(wrong), text_of(wrong)

            got = json.loads(text_of(await session.call_tool("get_architecture", {"name": "go-service"})))
            assert [s["name"] for s in got["skills"]] == ["add-handler"], got
            history = json.loads(text_of(await session.call_tool("skill_history", {"name": "go-service"})))
            assert [r["operation"] for r in history] == ["create", "update"], history

            # A package forked with its members: the copy is a package of its own, its members
            # render with its options, and each records what it was copied from.
            forked = await session.call_tool("fork_skill", {"from": "dotnet-clean-architecture", "name": "acme-dotnet", "member_prefix": "acme-"})
            assert not forked.is_error, text_of(forked)
            assert "Forked `dotnet-clean-architecture` (revision 1) as `acme-dotnet`" in text_of(forked), text_of(forked)
            await wait_for_tool(session, "acme-add-entity")
            copy = json.loads(text_of(await session.call_tool("get_architecture", {"name": "acme-dotnet"})))
            assert [s["name"] for s in copy["skills"]] == ["acme-add-entity", "acme-add-repository", "acme-add-endpoint"], copy
            entity = text_of(await session.call_tool("acme-add-entity", {"service_name": "Orders", "entity_name": "Order", "idStrategy": "typed-id"}))
            assert "Adds the `Order` entity to the `Orders` service, with ids by the `typed-id`" in entity, entity
            assert "package://acme-dotnet/docs/architecture.md" in entity, entity
            origin = json.loads(text_of(await session.call_tool("get_skill", {"name": "acme-add-entity"})))
            assert origin["provenance"] == {"kind": "forked", "from": "add-entity", "revision": 1}, origin["provenance"]
            taken = await session.call_tool("fork_skill", {"from": "add-entity", "name": "acme-add-entity"})
            assert taken.is_error and "exists already" in text_of(taken), text_of(taken)

            # A skill belongs to at most one package.
            rival = {**GO_SERVICE, "name": "go-rival", "skills": ["skills/add-handler"], "docs": []}
            refused = await session.call_tool("create_architecture", rival)
            assert refused.is_error and "`add-handler`" in text_of(refused) and "`go-service`" in text_of(refused), text_of(refused)


async def second_era(binary: str, work: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--db", os.path.join(work, "store.db"), "--no-discover", "--tools", "per-skill"],
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.discover()
            assert session.protocol_version == "2026-07-28", session.protocol_version
            fits = json.loads(text_of(await session.call_tool("analyze_requirements", {"description": "A new Go backend with chi on PostgreSQL"})))
            assert fits["fits"][0]["name"] == "go-service", fits
            assert "chi" in fits["fits"][0]["why"], fits
            dotnet = json.loads(text_of(await session.call_tool("analyze_requirements", {"description": "An ASP.NET Core service with EF Core"})))
            assert dotnet["fits"][0]["name"] == "dotnet-clean-architecture", dotnet
            unrelated = text_of(await session.call_tool("analyze_requirements", {"description": "A mobile game in Unity"}))
            assert unrelated.startswith("No architecture package fits"), unrelated
            rendered = text_of(await session.call_tool("add-handler", {"route": "/a", "routerStyle": "nested"}))
            assert "Adds `/a` with nested routing." in rendered, rendered
            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            assert "package://go-service/PACKAGE.md" in resources and "package://go-service/docs/layout.md" in resources, resources


if __name__ == "__main__":
    asyncio.run(first_era(*sys.argv[1:4]))
    asyncio.run(second_era(sys.argv[1], sys.argv[3]))
    print("ok")
