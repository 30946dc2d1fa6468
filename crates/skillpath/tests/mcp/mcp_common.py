"""What the Python MCP clients of the tests share: reading a result's text, listing every tool
name through the pages, and starting `skillpath serve --http` until it listens and has synced
its folders."""

from __future__ import annotations

import asyncio
import os

from mcp import ClientSession


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def tool_names(session: ClientSession) -> list[str]:
    names: list[str] = []
    cursor = None
    while True:
        page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
        names.extend(tool.name for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            return names


async def serve_http(binary: str, work: str, args: list[str]) -> tuple[asyncio.subprocess.Process, str, list[str]]:
    """Starts `skillpath serve --http 127.0.0.1:0 ARGS` with `work` as its home, and waits (at
    most 30 s a line) until it listens and its folders are synced: this scenario then starts,
    so that the notifications it counts are those of its own changes. The process, the MCP URL
    and the lines it said until then."""
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--http", "127.0.0.1:0", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )
    url, synced, said = None, False, []
    while url is None or not synced:
        line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        assert line, f"the server exited before it listened and synced: {said}"
        said.append(line)
        if "serving MCP on " in line:
            url = line.split("serving MCP on ", 1)[1].strip()
        synced = synced or "skill folders synced:" in line
    return process, url, said
