"""Elicitation and logging with the official Python MCP SDK (PyPI `mcp`).

Run by `crates/skillpath/tests/it/mcp_python.rs`:

    python python_elicitation.py SKILLPATH_BIN EXAMPLES_DIR WORK_DIR

In both protocol eras (2025-11-25: `elicitation/create` requests; 2026-07-28: input-required
results the SDK answers by calling again) and over stdio and Streamable HTTP, a call of
`add-caching` missing `service_name` and with a `cache_provider` outside its enum is answered
through one form and renders; decline, cancel and an unanswered form give the problems; a
client without the capability gets them as before; hostile answers (wrong values, extra fields,
10 MB) and a client that goes away mid-form end cleanly with nothing left waiting on the
server. Logging: a skipped folder and a refused write reach a client at `info`, not at `error`.
The last line is `ok`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import urllib.request

from mcp import Client, StdioServerParameters, types

from mcp_common import serve_http, text_of

# Seconds a user has to answer a form here: short, so the unanswered form is quick to test.
TIMEOUT = 2


class Forms:
    """An elicitation callback that answers with the next of `answers` ("decline", "cancel",
    ("sleep", seconds) or a dict of values) and keeps every form it was shown."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.shown: list[types.ElicitRequestParams] = []

    async def __call__(self, context, params):
        self.shown.append(params)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if answer in ("decline", "cancel"):
            return types.ElicitResult(action=answer)
        if isinstance(answer, tuple):
            await asyncio.sleep(answer[1])
            return types.ElicitResult(action="accept", content={"service_name": "Late"})
        return types.ElicitResult(action="accept", content=answer)


async def synced(client) -> None:
    """Waits until the server's first folder sync has made `add-caching` a tool."""
    for _ in range(300):
        if "add-caching" in [tool.name for tool in (await client.list_tools()).tools]:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("`add-caching` never became a tool")


def schema_of(form) -> dict:
    schema = form.requested_schema
    return schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)


async def elicitation(connect, label: str, modern: bool) -> None:
    """Every elicitation case on one server; `connect(**kwargs)` makes a Client."""
    bad_call = {"cache_provider": "memcached"}

    forms = Forms({"service_name": "Orders", "cache_provider": "memory"})
    async with connect(elicitation_callback=forms) as client:
        await synced(client)
        rendered = await client.call_tool("add-caching", bad_call)
        body = text_of(rendered)
        assert not rendered.is_error, (label, body)
        assert "OrdersCacheService" in body and "- `cache_provider` = `memory`" in body, (label, body[-600:])
        assert len(forms.shown) == 1, (label, "one form for both problems", forms.shown)
        form = forms.shown[0]
        assert "missing required argument `service_name`" in form.message, (label, form.message)
        assert "must be one of `redis`, `memory`, got `memcached`" in form.message, (label, form.message)
        schema = schema_of(form)
        assert list(schema["properties"]) == ["service_name", "cache_provider"], (label, schema)
        provider = schema["properties"]["cache_provider"]
        assert provider["enum"] == ["redis", "memory"] and provider["default"] == "redis", (label, provider)
        assert schema["required"] == ["service_name"], (label, schema)
        assert schema["properties"]["service_name"]["description"], (label, schema)

        # The same through `load_skill`, and as a prompt.
        loaded = await client.call_tool("load_skill", {"name": "add-caching", "arguments": bad_call})
        assert not loaded.is_error and "OrdersCacheService" in text_of(loaded), (label, text_of(loaded)[:300])
        prompt = await client.get_prompt("add-caching", {"cache_provider": "memcached"})
        assert "OrdersCacheService" in prompt.messages[0].content.text, label
        assert len(forms.shown) == 3, (label, len(forms.shown))

        # A complete call asks nothing.
        plain = await client.call_tool("add-caching", {"service_name": "Billing"})
        assert not plain.is_error and len(forms.shown) == 3, label

    for answer, said in [("decline", "declined"), ("cancel", "dismissed")]:
        async with connect(elicitation_callback=Forms(answer)) as client:
            refused = await client.call_tool("add-caching", bad_call)
            text = text_of(refused)
            assert refused.is_error, (label, answer, text)
            assert said in text and "missing required argument `service_name`" in text, (label, text)
            assert "must be one of `redis`, `memory`" in text, (label, text)

    # Wrong answers are asked again (an extra field ignored), then right ones render.
    forms = Forms({"service_name": "", "cache_provider": "memcached", "colour": "red"},
                  {"service_name": "Again", "cache_provider": "redis"})
    async with connect(elicitation_callback=forms) as client:
        again = await client.call_tool("add-caching", bad_call)
        assert not again.is_error and "AgainCacheService" in text_of(again), (label, text_of(again)[:300])
        assert len(forms.shown) == 2, (label, len(forms.shown))
        assert "got `memcached`" in forms.shown[1].message, (label, forms.shown[1].message)
        assert "colour" not in text_of(again), label

    # A 10 MB answer: refused as too long, three forms at most, then the problems.
    huge = {"service_name": "x" * (10 * 1024 * 1024), "cache_provider": "redis"}
    forms = Forms(huge)
    async with connect(elicitation_callback=forms) as client:
        try:
            result = await client.call_tool("add-caching", bad_call)
            text = text_of(result)
            assert result.is_error, (label, text[:300])
            assert "limit is" in text or "did not answer" in text or "could not be asked" in text, (label, text[:300])
        except Exception as error:  # a transport that refuses the 10 MB message outright
            assert "too large" in str(error).lower() or "413" in str(error), (label, error)
        assert 1 <= len(forms.shown) <= 3, (label, len(forms.shown))
        # The server still answers.
        assert not (await client.call_tool("add-caching", {"service_name": "After"})).is_error, label

    # A form nobody answers in time.
    async with connect(elicitation_callback=Forms(("sleep", TIMEOUT + 2))) as client:
        late = await client.call_tool("add-caching", bad_call)
        text = text_of(late)
        assert late.is_error, (label, text)
        assert f"did not answer within {TIMEOUT} s" in text and "missing required argument" in text, (label, text)

    # A client that cannot show forms gets the problems, as before.
    async with connect() as client:
        refused = await client.call_tool("add-caching", bad_call)
        text = text_of(refused)
        assert refused.is_error and text.startswith("the arguments have 2 problems"), (label, text)

    print(f"{label}: elicitation ok", file=sys.stderr)


def readyz(url: str) -> dict:
    base = url.rsplit("/mcp", 1)[0]
    with urllib.request.urlopen(f"{base}/readyz", timeout=10) as response:
        return json.loads(response.read())


async def nothing_waits(url: str) -> None:
    """Within the timeout and a second, no form of a gone client is waited for."""
    for _ in range((TIMEOUT + 3) * 10):
        if readyz(url)["elicitations_waiting"] == 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"forms still wait: {readyz(url)}")


async def gone_mid_form(url: str) -> None:
    """A legacy HTTP client that goes away while its form is open."""
    shown = asyncio.Event()

    async def never(context, params):
        shown.set()
        await asyncio.sleep(3600)

    async def call() -> None:
        async with Client(url, mode="legacy", elicitation_callback=never) as client:
            await client.call_tool("add-caching", {"cache_provider": "memcached"})

    task = asyncio.create_task(call())
    await asyncio.wait_for(shown.wait(), 30)
    assert readyz(url)["elicitations_waiting"] == 1, readyz(url)
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass
    await nothing_waits(url)


async def stdio_client_gone(binary: str, examples: str, work: str) -> None:
    """A stdio client that exits while its form is open: the server ends, cleanly."""
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--db", os.path.join(work, "gone.db"), "--skills", examples, "--no-discover",
        "--tools", "per-skill",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "HOME": work},
    )

    async def send(message: dict) -> None:
        process.stdin.write((json.dumps(message) + "\n").encode())
        await process.stdin.drain()

    await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "gone", "version": "1"}}})
    await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for _ in range(300):  # until the folder sync has made `add-caching` a tool
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "add-caching", "arguments": {"cache_provider": "memcached"}}})
        while True:
            line = json.loads(await asyncio.wait_for(process.stdout.readline(), 30))
            if line.get("method") == "elicitation/create" or line.get("id") == 2:
                break
        if line.get("method") == "elicitation/create":
            break
        await asyncio.sleep(0.1)
    assert line.get("method") == "elicitation/create", line
    process.stdin.close()
    code = await asyncio.wait_for(process.wait(), 15)
    assert code == 0, code


async def logging(binary: str, examples: str, work: str) -> None:
    """A skipped folder and a refused write reach a client at `info`, not at `error`."""
    folder = os.path.join(work, "logged-skills")
    shutil.copytree(examples, folder)
    messages = {"info": [], "error": []}

    def collect(level):
        async def on_log(params) -> None:
            messages[level].append(params)
        return on_log

    def params(db: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=binary,
            args=["serve", "--db", os.path.join(work, db), "--skills", folder, "--no-discover", "--tools", "per-skill"],
            env={"PATH": os.environ.get("PATH", ""), "HOME": work},
        )

    async with Client(params("log-info.db"), mode="legacy", cache=None, logging_callback=collect("info")) as info, \
            Client(params("log-error.db"), mode="legacy", cache=None, logging_callback=collect("error")) as error:
        await info.set_logging_level("info")
        await error.set_logging_level("error")
        for client in (info, error):
            await synced(client)
        broken = os.path.join(folder, "half-written")
        os.makedirs(broken)
        with open(os.path.join(broken, "SKILL.md"), "w") as file:
            file.write("---\nname: half-written\ndescription: [unclosed\n---\n")
        for client in (info, error):
            refused = await client.call_tool("delete_skill", {"name": "add-caching", "expected_revision": 99})
            assert refused.is_error, text_of(refused)
        for _ in range(100):
            if any("half-written" in str(m.data) for m in messages["info"]):
                break
            await asyncio.sleep(0.1)
        said = [(m.level, m.logger, str(m.data)) for m in messages["info"]]
        skipped = [m for m in said if "half-written" in m[2]]
        assert skipped and skipped[0][0] == "warning" and skipped[0][1] == "folders", said
        writes = [m for m in said if m[1] == "writes"]
        assert writes and "`delete_skill` was refused" in writes[0][2] and "revision" in writes[0][2], said
        assert not any("sp_" in m[2] for m in said), said
        assert messages["error"] == [], [(m.level, m.data) for m in messages["error"]]

    # 2026-07-28: a request hears about itself when it names a level, and only then.
    for level, expected in [("info", True), ("error", False), (None, False)]:
        heard = []

        async def on_log(params) -> None:
            heard.append(params)

        async with Client(params("log-modern.db"), mode="2026-07-28", cache=None, logging_callback=on_log, log_level=level) as client:
            await synced(client)
            refused = await client.call_tool("delete_skill", {"name": "add-caching", "expected_revision": 99})
            assert refused.is_error, text_of(refused)
            await asyncio.sleep(0.3)
        got = [str(m.data) for m in heard]
        assert any("`delete_skill` was refused" in text for text in got) == expected, (level, got)
    print("logging ok", file=sys.stderr)


async def modes(binary: str, examples: str, work: str) -> None:
    """`--elicit always` asks a skill that says `metadata: {elicit: optional}` for its optional
    arguments too; `--elicit never` asks nothing."""
    folder = os.path.join(work, "optional-skills")
    shutil.copytree(examples, folder)
    path = os.path.join(folder, "add-caching", "SKILL.md")
    with open(path) as file:
        text = file.read()
    with open(path, "w") as file:
        file.write(text.replace("\nargs:\n", "\nmetadata:\n  elicit: optional\nargs:\n", 1))

    def params(mode: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=binary,
            args=["serve", "--db", os.path.join(work, f"elicit-{mode}.db"), "--skills", folder, "--no-discover",
                  "--tools", "per-skill", "--elicit", mode],
            env={"PATH": os.environ.get("PATH", ""), "HOME": work},
        )

    forms = Forms({"cache_provider": "memory", "ttl_minutes": 5})
    async with Client(params("always"), mode="legacy", cache=None, elicitation_callback=forms) as client:
        await synced(client)
        rendered = await client.call_tool("add-caching", {"service_name": "Orders"})
        body = text_of(rendered)
        assert not rendered.is_error and "FromMinutes(5)" in body and "- `cache_provider` = `memory`" in body, body[-500:]
        assert len(forms.shown) == 1 and "optional values" in forms.shown[0].message, forms.shown
        assert list(schema_of(forms.shown[0])["properties"]) == ["cache_provider", "ttl_minutes"], forms.shown
        assert schema_of(forms.shown[0]).get("required", []) == [], forms.shown
        # A skill that does not ask for it is not asked.
        notes = await client.call_tool("write-release-notes", {})
        assert len(forms.shown) == 1, (text_of(notes)[:200], forms.shown)

    forms = Forms({"service_name": "Orders"})
    async with Client(params("never"), mode="legacy", cache=None, elicitation_callback=forms) as client:
        await synced(client)
        refused = await client.call_tool("add-caching", {"cache_provider": "memcached"})
        assert refused.is_error and forms.shown == [], (text_of(refused), forms.shown)
    print("modes ok", file=sys.stderr)


async def main(binary: str, examples: str, work: str) -> None:
    common = ["--skills", examples, "--no-discover", "--tools", "per-skill", "--elicit-timeout", str(TIMEOUT)]
    for era in ["legacy", "2026-07-28"]:
        params = StdioServerParameters(
            command=binary,
            args=["serve", "--db", os.path.join(work, f"stdio-{era}.db"), *common],
            env={"PATH": os.environ.get("PATH", ""), "HOME": work},
        )
        await elicitation(lambda **kwargs: Client(params, mode=era, cache=None, **kwargs), f"stdio {era}", era != "legacy")

    process, url, _ = await serve_http(binary, work, ["--db", os.path.join(work, "http.db"), *common])
    try:
        for era in ["legacy", "2026-07-28"]:
            await elicitation(lambda **kwargs: Client(url, mode=era, cache=None, **kwargs), f"http {era}", era != "legacy")
        await nothing_waits(url)
        await gone_mid_form(url)
    finally:
        process.terminate()
        await process.wait()
    await stdio_client_gone(binary, examples, work)
    await logging(binary, examples, work)
    await modes(binary, examples, work)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
    print("ok")
