#!/usr/bin/env python3
"""Serving skills over MCP: `skillpath serve` against `skillz` (PyPI), on the same skill folder.

    python3 bench/serve_bench.py --catalog DIR [--catalog DIR2 ...] [--runs 5]
        [--clients 1,8,32] [--duration 10] [--baseline-bin PATH] [--format json|markdown]

Two measurements per catalog and server:

1. **Start to the first complete `tools/list`, over stdio.** The clock starts before the process
   is spawned and stops when the client holds the whole tool list: `initialize`,
   `notifications/initialized`, then `tools/list`, following `nextCursor` until the last page,
   as any client does (skillpath pages at its default 100 items; the pages are part of what is
   measured). Median of `--runs` runs, after one untimed run of each (file cache, Python
   bytecode). Both servers get a fresh, empty `HOME`. skillpath runs with
   `--no-discover --skills DIR --db FILE`:
   - *cold*: a new SQLite file every run, so the start includes importing the whole folder into
     an empty store (a first start);
   - *warm*: the store of the previous cold run reused, so the import finds nothing changed
     (every later start).
   skillz keeps nothing between starts (it parses the folder every time), so it has one number.
   skillpath is measured in two tool modes:
   - `per-skill` (`--tools per-skill`): one tool per skill, as skillz serves them. This is the
     like-for-like comparison, and the one the ratios use;
   - `default` (`--tools auto`): what a user gets without flags; above 40 skills that is the
     loader (`search_skills`/`load_skill`) and the built-in tools, so far fewer tools.
   The peak memory is the server's VmHWM, read just before it is stopped.

2. **`tools/call` over Streamable HTTP.** Each server on a free loopback port (skillpath with
   `--tools per-skill` and a fresh store), one session initialized (`Mcp-Session-Id` captured),
   then `wrk --latency` with `bench/mcp_call.lua` POSTs `tools/call` of one skill's tool, with
   1, 8 and 32 connections (`--clients`) for `--duration` seconds each, after a `--warmup`
   at the same concurrency. All connections share the one session. The skill is one both
   servers serve as a tool and that takes no arguments in skillpath (the first by name, or
   `--skill`); skillz's tools require a `task` string, so it gets `{"task": ...}` and skillpath
   `{}`. Before the load one call to each server is checked by hand to be a successful result
   (not a JSON-RPC error, not `isError`); during the load the Lua script checks every
   response the same way, so an error never counts as a success; afterwards another call
   checks the server still answers. Reported: p50/p99 latency (wrk's), good requests/s, good and bad
   responses, non-2xx, socket errors, and the peak memory after the load.

Ratios are "how many times better skillpath is": skillz / skillpath for times and memory,
skillpath / skillz for requests per second.

With `--baseline-bin PATH` (an earlier build's `skillpath`), that binary is measured exactly as the
current one (both start modes, cold and warm, and `tools/call` over HTTP), under the name
`baseline`; the tables gain its rows and "baseline ÷ current" ratios, computed the same way as
against skillz (baseline / current for times and memory, current / baseline for requests per
second: above 1, the current build is better).

If one server's p50 is ~40 ms at every concurrency while its CPU idles, its sockets lack
TCP_NODELAY: a response written in two pieces (an SSE event after the headers) waits for the
client's delayed ACK (Nagle). That is what a client of the server gets, so it is measured as is.

wrk is the load generator because a Python client would itself be the bottleneck at
sub-millisecond latencies; it is installed with apt-get if missing. On a small machine wrk,
the server and (for skillz) its Python all share the same cores; the report says how many.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.dont_write_bytecode = True  # no bench/__pycache__ left behind
sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

PROTOCOL_VERSION = "2025-11-25"  # both servers accept it (skillz also answers 2025-06-18)
LUA_SCRIPT = Path(__file__).resolve().parent / "mcp_call.lua"
START_TIMEOUT = 300.0  # seconds for a server to answer its first tools/list
SKILLZ_TASK = "Summarize what this skill is for."

_PROCS: list[subprocess.Popen] = []  # every process this script started and has not reaped


def log(message: str) -> None:
    print(f"serve_bench: {message}", file=sys.stderr, flush=True)


# --- processes ---------------------------------------------------------------------------


def spawn(cmd: list[str], **kwargs) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, **kwargs)
    _PROCS.append(proc)
    return proc


def stop(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """Stop a process this script started: close its stdin, then SIGTERM, then SIGKILL."""
    try:
        if proc.poll() is None:
            if proc.stdin:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    pass
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=grace)
    finally:
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass
        if proc in _PROCS:
            _PROCS.remove(proc)


def stop_all() -> None:
    for proc in list(_PROCS):
        try:
            stop(proc, grace=2.0)
        except Exception:  # noqa: BLE001 - cleanup must go on
            pass


def _on_sigterm(signum, frame):  # noqa: ARG001
    raise SystemExit(128 + signum)


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    log("wrk is not installed; installing it with `apt-get install -y wrk` (Debian package)")
    apt = ["apt-get", "install", "-y", "-q", "wrk"]
    if os.geteuid() != 0:
        apt = ["sudo", *apt]
    if subprocess.run(apt, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(apt[:-4] + ["update", "-q"], stdout=subprocess.DEVNULL)
        subprocess.run(apt, check=False, stdout=subprocess.DEVNULL)
    found = shutil.which("wrk")
    if not found:
        sys.exit("serve_bench: wrk is needed for the HTTP benchmark: apt-get install -y wrk")
    return found


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPATH_", "XDG_"))}
    env["HOME"] = str(home)
    env.pop("RUST_LOG", None)
    return env


# --- MCP over stdio ----------------------------------------------------------------------


def jsonrpc(id_: int | None, method: str, params: dict | None = None) -> dict:
    message: dict = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params is not None:
        message["params"] = params
    return message


def initialize_params() -> dict:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "skillpath-serve-bench", "version": "1"},
    }


def stdio_start(cmd: list[str], env: dict, stderr_path: Path) -> dict:
    """Spawn a stdio server and time it to the end of its complete tools/list."""
    with stderr_path.open("wb") as err:
        t0 = time.perf_counter()
        proc = spawn(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env)
    watchdog = threading.Timer(START_TIMEOUT, proc.kill)
    watchdog.start()
    try:

        def send(message: dict) -> None:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()

        def answer(id_: int) -> dict:
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError(
                        f"{cmd[0]} closed stdout (exit {proc.poll()}):\n{tail(stderr_path)}"
                    )
                if not line.strip():
                    continue
                message = json.loads(line)
                if message.get("id") == id_ and ("result" in message or "error" in message):
                    if "error" in message:
                        raise RuntimeError(f"{cmd[0]}: {message['error']}")
                    return message["result"]

        send(jsonrpc(1, "initialize", initialize_params()))
        init = answer(1)
        send(jsonrpc(None, "notifications/initialized"))
        tools: list[dict] = []
        cursor, pages, next_id = None, 0, 2
        while True:
            send(jsonrpc(next_id, "tools/list", {"cursor": cursor} if cursor else {}))
            page = answer(next_id)
            next_id += 1
            pages += 1
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        elapsed_ms = (time.perf_counter() - t0) * 1000
        peak = common.peak_rss_mb(proc.pid)
    finally:
        watchdog.cancel()
        stop(proc)
    return {
        "ms": elapsed_ms,
        "tools": tools,
        "pages": pages,
        "peak_mb": peak,
        "protocol": init.get("protocolVersion"),
    }


def summarize_starts(runs: list[dict]) -> dict:
    return {
        "median_ms": round(common.median([r["ms"] for r in runs]), 1),
        "min_ms": round(min(r["ms"] for r in runs), 1),
        "max_ms": round(max(r["ms"] for r in runs), 1),
        "runs_ms": [round(r["ms"], 1) for r in runs],
        "tools": runs[-1]["tools_count"],
        "pages": runs[-1]["pages"],
        "peak_mb": _round(common.median([r["peak_mb"] for r in runs if r["peak_mb"]] or [0.0])),
    }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def skillpath_starts(ctx: dict, build: common.Build, catalog: Path, runs: int) -> tuple[dict, list]:
    """The cold and warm starts of one skillpath build in both tool modes; also its per-skill
    tool list."""
    tmp: Path = ctx["tmp"]
    out: dict = {}
    tools: list = []

    for mode, flags in (("per-skill", ["--tools", "per-skill"]), ("default", [])):
        dbdir = tmp / f"db-{build.name}-{catalog.name}-{mode}"
        dbdir.mkdir(parents=True, exist_ok=True)

        def cmd(db: Path) -> list[str]:
            return [
                str(build.skillpath), "serve", "--no-discover",
                "--skills", str(catalog), "--db", str(db), *flags,
            ]  # fmt: skip

        env = server_env(ctx["home"])
        # One untimed start first (file cache), on a store of its own.
        stdio_start(cmd(dbdir / "untimed.sqlite"), env, tmp / f"{build.name}-untimed.log")
        cold = []
        for i in range(runs):
            db = dbdir / f"cold-{i}.sqlite"
            cold.append(keep(stdio_start(cmd(db), env, tmp / f"{build.name}-{mode}-cold-{i}.log")))
            log(f"  {build.name} {mode} cold #{i + 1}: {cold[-1]['ms']:.0f} ms, {cold[-1]['tools_count']} tools")
        warm = []
        for i in range(runs):  # the store of the last cold run: nothing to import
            warm.append(keep(stdio_start(cmd(db), env, tmp / f"{build.name}-{mode}-warm-{i}.log")))
            log(f"  {build.name} {mode} warm #{i + 1}: {warm[-1]['ms']:.0f} ms")
        out[mode] = {"cold": summarize_starts(cold), "warm": summarize_starts(warm)}
        if mode == "per-skill":
            tools = warm[-1]["tools"]
    return out, tools


def keep(result: dict) -> dict:
    result["tools_count"] = len(result["tools"])
    return result


def measure_starts(ctx: dict, catalog: Path, runs: int) -> tuple[dict, dict]:
    """Every start measurement of one catalog, by server name; also the tool lists, for picking
    the HTTP tool."""
    tmp: Path = ctx["tmp"]
    out: dict = {}
    tool_lists: dict = {}
    for build in ctx["builds"]:
        out[build.name], tool_lists[build.name] = skillpath_starts(ctx, build, catalog, runs)

    cmd = [str(ctx["skillz"]), str(catalog)]
    env = server_env(ctx["home"])
    stdio_start(cmd, env, tmp / "skillz-untimed.log")
    starts = []
    for i in range(runs):
        starts.append(keep(stdio_start(cmd, env, tmp / f"skillz-{i}.log")))
        log(f"  skillz #{i + 1}: {starts[-1]['ms']:.0f} ms, {starts[-1]['tools_count']} tools")
    out["skillz"] = summarize_starts(starts)
    tool_lists["skillz"] = starts[-1]["tools"]
    return out, tool_lists


# --- MCP over Streamable HTTP ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_post(port: int, message: dict, session: str | None = None, version: str | None = None,
              timeout: float = 30.0) -> tuple[int, dict, list[dict], int]:
    """POST one JSON-RPC message; returns status, headers, the JSON-RPC messages, body bytes."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session:
        headers["Mcp-Session-Id"] = session
    if version:
        headers["MCP-Protocol-Version"] = version
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        response = conn.getresponse()
        body = response.read()
        resp_headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    messages: list[dict] = []
    text = body.decode("utf-8", errors="replace")
    if resp_headers.get("content-type", "").startswith("text/event-stream"):
        for event in re.split(r"\r?\n\r?\n", text):
            data = "\n".join(
                line[5:].lstrip(" ") for line in event.splitlines() if line.startswith("data:")
            )
            if data.strip():
                messages.append(json.loads(data))
    elif text.strip():
        parsed = json.loads(text)
        messages.extend(parsed if isinstance(parsed, list) else [parsed])
    return response.status, resp_headers, messages, len(body)


def http_answer(messages: list[dict], id_: int) -> dict | None:
    for message in messages:
        if message.get("id") == id_:
            return message
    return None


class HttpServer:
    """One server on a loopback port with one initialized session."""

    def __init__(self, name: str, cmd: list[str], port: int, env: dict, log_path: Path):
        self.name, self.port, self.log_path = name, port, log_path
        with log_path.open("wb") as err:
            self.t0 = time.perf_counter()
            self.proc = spawn(cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env)
        self.session: str | None = None
        self.version = PROTOCOL_VERSION
        self.ready_ms: float | None = None
        self.next_id = 100

    def initialize(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.proc.returncode}):\n{tail(self.log_path)}")
            try:
                status, headers, messages, _ = http_post(
                    self.port, jsonrpc(1, "initialize", initialize_params()), timeout=10
                )
            except (ConnectionError, OSError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} never answered on port {self.port}") from None
                time.sleep(0.05)
                continue
            answer = http_answer(messages, 1)
            if status != 200 or not answer or "result" not in answer:
                raise RuntimeError(f"{self.name}: initialize failed: {status} {messages}")
            break
        self.ready_ms = (time.perf_counter() - self.t0) * 1000
        self.session = headers.get("mcp-session-id")
        self.version = answer["result"].get("protocolVersion", PROTOCOL_VERSION)
        status, _, _, _ = http_post(
            self.port, jsonrpc(None, "notifications/initialized"), self.session, self.version
        )
        if status not in (200, 202):
            raise RuntimeError(f"{self.name}: notifications/initialized got {status}")

    def call(self, method: str, params: dict) -> tuple[int, dict | None, int]:
        self.next_id += 1
        status, _, messages, size = http_post(
            self.port, jsonrpc(self.next_id, method, params), self.session, self.version
        )
        return status, http_answer(messages, self.next_id), size

    def list_tools(self) -> list[dict]:
        tools, cursor = [], None
        while True:
            status, answer, _ = self.call("tools/list", {"cursor": cursor} if cursor else {})
            if status != 200 or not answer or "result" not in answer:
                raise RuntimeError(f"{self.name}: tools/list failed: {status} {answer}")
            tools.extend(answer["result"].get("tools", []))
            cursor = answer["result"].get("nextCursor")
            if not cursor:
                return tools

    def check_call(self, params: dict) -> tuple[bool, str, int]:
        """One tools/call by hand: is it a successful result?"""
        try:
            status, answer, size = self.call("tools/call", params)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            return False, f"request failed: {exc}", 0
        if status != 200 or not answer:
            return False, f"HTTP {status}, answer {answer}", size
        if "error" in answer:
            return False, f"JSON-RPC error {answer['error']}", size
        result = answer.get("result") or {}
        if result.get("isError"):
            return False, f"isError result: {json.dumps(result)[:300]}", size
        texts = [c.get("text", "") for c in result.get("content", []) if c.get("type") == "text"]
        if not any(texts):
            return False, f"no text content: {json.dumps(result)[:300]}", size
        return True, f"ok, {sum(map(len, texts))} characters of text", size

    def peak_mb(self) -> float | None:
        return common.peak_rss_mb(self.proc.pid)

    def close(self) -> None:
        stop(self.proc)


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text.strip())
    if not match:
        raise ValueError(f"unexpected wrk duration {text!r}")
    return float(match.group(1)) * _UNITS_MS[match.group(2)]


def parse_wrk(output: str) -> dict:
    row: dict = {}
    for pct in ("50", "75", "90", "99"):
        match = re.search(rf"^\s*{pct}%\s+(\S+)\s*$", output, re.M)
        row[f"p{pct}_ms"] = round(_ms(match.group(1)), 3) if match else None
    match = re.search(r"^\s*(\d+) requests in ([\d.]+\w+)", output, re.M)
    row["requests"] = int(match.group(1)) if match else 0
    elapsed_s = _ms(match.group(2)) / 1000 if match else 0.0
    match = re.search(r"^Requests/sec:\s+([\d.]+)", output, re.M)
    row["rps"] = round(float(match.group(1)), 1) if match else 0.0
    match = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    row["non_2xx"] = int(match.group(1)) if match else 0
    match = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    row["socket_errors"] = sum(map(int, match.groups())) if match else 0
    match = re.search(r"^MCPBENCH (\{.*\})\s*$", output, re.M)
    checked = json.loads(match.group(1)) if match else {"ok": 0, "bad": None}
    row["ok"], row["bad"] = checked["ok"], checked["bad"]
    row["errors"] = (checked["bad"] or 0) + row["socket_errors"]
    # Requests per second that were successful tools/call results: what the ratios use.
    row["ok_rps"] = round(row["ok"] / elapsed_s, 1) if elapsed_s else 0.0
    return row


def run_wrk(ctx: dict, server: HttpServer, params: dict, clients: int, seconds: float) -> dict:
    threads = max(1, min(clients, ctx["wrk_threads"]))
    env = dict(os.environ)
    env.update(
        MCP_SESSION=server.session or "",
        MCP_VERSION=server.version,
        MCP_PARAMS=json.dumps(params, separators=(",", ":")),
    )
    cmd = [
        ctx["wrk"], "--latency", "-t", str(threads), "-c", str(clients),
        "-d", f"{seconds:g}s", "--timeout", "30s", "-s", str(LUA_SCRIPT),
        f"http://127.0.0.1:{server.port}/mcp",
    ]  # fmt: skip
    proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        output, _ = proc.communicate(timeout=seconds + 120)
    finally:
        stop(proc)
    text = output.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"wrk failed ({proc.returncode}):\n{text}")
    row = parse_wrk(text)
    row.update(clients=clients, wrk_threads=threads)
    return row


def pick_tool(tool_lists: dict, wanted: str | None) -> str:
    """A skill tool both servers serve, which takes no arguments in skillpath."""
    skillz_names = {t["name"] for t in tool_lists["skillz"]} - {"fetch_resource"}
    candidates = []
    for tool in tool_lists["skillpath"]:
        schema = tool.get("inputSchema") or {}
        if tool["name"] in skillz_names and not schema.get("required") and not schema.get("properties"):
            candidates.append(tool["name"])
    if wanted:
        if wanted not in skillz_names or wanted not in {t["name"] for t in tool_lists["skillpath"]}:
            sys.exit(f"serve_bench: --skill {wanted} is not a tool of both servers")
        return wanted
    if not candidates:
        sys.exit("serve_bench: no skill is a tool of both servers without arguments; use --skill")
    return sorted(candidates)[0]


def http_servers(ctx: dict, catalog: Path, tool: str) -> list[tuple[str, Callable[[int], list[str]], dict]]:
    """Every server of the HTTP benchmark: its name, its command for a port, and the
    `tools/call` params it gets."""
    servers = []
    for build in ctx["builds"]:
        def skillpath(port: int, build: common.Build = build) -> list[str]:
            return [
                str(build.skillpath), "serve", "--http", f"127.0.0.1:{port}", "--no-discover",
                "--skills", str(catalog), "--db", str(ctx["tmp"] / f"http-{build.name}-{catalog.name}.sqlite"),
                "--tools", "per-skill",
            ]  # fmt: skip
        servers.append((build.name, skillpath, {"name": tool, "arguments": {}}))

    def skillz(port: int) -> list[str]:
        return [
            str(ctx["skillz"]), str(catalog), "--transport", "http",
            "--host", "127.0.0.1", "--port", str(port), "--path", "/mcp",
        ]  # fmt: skip
    servers.append(("skillz", skillz, {"name": tool, "arguments": {"task": SKILLZ_TASK}}))
    return servers


def measure_http(ctx: dict, catalog: Path, tool: str, clients: list[int], args) -> dict:
    out: dict = {}
    tmp: Path = ctx["tmp"]
    for name, command, params in http_servers(ctx, catalog, tool):
        port = free_port()
        cmd = command(port)
        log(f"  {name} over HTTP on port {port}: tools/call {tool}")
        server = HttpServer(name, cmd, port, server_env(ctx["home"]), tmp / f"{name}-http.log")
        try:
            server.initialize()
            tools = server.list_tools()
            ok, detail, size = server.check_call(params)
            entry: dict = {
                "tool": tool,
                "arguments": params["arguments"],
                "tools": len(tools),
                "ready_ms": _round(server.ready_ms),
                "protocol": server.version,
                "check_before": detail,
                "response_bytes": size,
                "rows": [],
            }
            if not ok:
                raise RuntimeError(f"{name}: the manual tools/call is not a success: {detail}")
            for c in clients:
                run_wrk(ctx, server, params, c, args.warmup)
                row = run_wrk(ctx, server, params, c, args.duration)
                log(
                    f"    {c:>3} clients: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms, "
                    f"{row['ok_rps']} good req/s, {row['errors']} errors, {row['non_2xx']} non-2xx"
                )
                entry["rows"].append(row)
            entry["peak_mb"] = _round(server.peak_mb())
            ok_after, detail_after, _ = server.check_call(params)
            entry["healthy_after"] = ok_after and server.proc.poll() is None
            entry["check_after"] = detail_after
        finally:
            server.close()
        out[name] = entry
    return out


# --- report ------------------------------------------------------------------------------


def start_of(server: dict, mode: str, phase: str) -> dict:
    """A server's start figures for a tool mode and cold/warm; skillz has one start for all."""
    start = server["start"]
    return start[mode][phase] if mode in start else start


def ratios(entry: dict, other: str) -> dict:
    """How many times better the current skillpath is than `other` (skillz or the baseline)."""
    sp, them = entry["servers"]["skillpath"], entry["servers"][other]
    out: dict = {"how": f"{other} / skillpath for times and memory, skillpath / {other} for requests/s"}
    for mode, suffix in (("per-skill", ""), ("default", "_default_tools")):
        for phase in ("cold", "warm"):
            out[f"start_{phase}{suffix}"] = common.ratio_num(
                start_of(them, mode, phase)["median_ms"], start_of(sp, mode, phase)["median_ms"]
            )
        out[f"start_peak_mb{suffix}"] = common.ratio_num(
            start_of(them, mode, "cold")["peak_mb"], start_of(sp, mode, "cold")["peak_mb"]
        )
    if "http" in sp and "http" in them:
        out["http"] = []
        for a, b in zip(sp["http"]["rows"], them["http"]["rows"]):
            out["http"].append(
                {
                    "clients": a["clients"],
                    "p50": common.ratio_num(b["p50_ms"], a["p50_ms"]),
                    "p99": common.ratio_num(b["p99_ms"], a["p99_ms"]),
                    "rps": common.ratio_num(a["ok_rps"], b["ok_rps"]),
                }
            )
        out["http_peak_mb"] = common.ratio_num(them["http"].get("peak_mb"), sp["http"].get("peak_mb"))
    return out


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


MODES = (("per-skill", "`--tools per-skill`", ""), ("default", "(default `--tools auto`)", "_default_tools"))


def markdown(report: dict) -> str:
    m = report["machine"]
    baseline = report["versions"].get("baseline")
    lines = [
        f"Machine: {m['cpus']} CPUs, {m['platform']}, Python {m['python']}; "
        f"skillpath {report['versions']['skillpath']}"
        + (f", baseline {baseline}" if baseline else "")
        + f", skillz {report['versions']['skillz']}; "
        f"{report['runs']} runs (median), HTTP {report['duration_s']:g} s per concurrency "
        f"after {report['warmup_s']:g} s warm-up, wrk with ≤{m['wrk_threads']} threads.",
        "",
    ]
    for entry in report["catalogs"]:
        servers, r = entry["servers"], entry["ratios"]
        rb = entry.get("baseline_ratios")
        lines += [
            f"### `{entry['catalog']}` ({entry['skill_folders']} skill folders)",
            "",
            "Start to the complete first `tools/list` over stdio (median ms; peak RSS at that point):",
            "",
            "| server | tools | pages | cold ms | warm ms | peak MB | skillz ÷ skillpath (cold / warm) |"
            + (" baseline ÷ current (cold / warm / peak) |" if rb else ""),
            "|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if rb else ""),
        ]
        for mode, label, suffix in MODES:
            s = servers["skillpath"]["start"][mode]
            line = (
                f"| skillpath {label} | {s['cold']['tools']} | {s['cold']['pages']} | {fmt(s['cold']['median_ms'])} | "
                f"{fmt(s['warm']['median_ms'])} | {fmt(s['cold']['peak_mb'])} | "
                f"{common.times(r['start_cold' + suffix])} / {common.times(r['start_warm' + suffix])} |"
            )
            if rb:
                line += (f" {common.times(rb['start_cold' + suffix], 2)} / {common.times(rb['start_warm' + suffix], 2)}"
                         f" / {common.times(rb['start_peak_mb' + suffix], 2)} |")
            lines.append(line)
        if rb:
            for mode, label, _ in MODES:
                s = servers["baseline"]["start"][mode]
                lines.append(
                    f"| baseline {label} | {s['cold']['tools']} | {s['cold']['pages']} | "
                    f"{fmt(s['cold']['median_ms'])} | {fmt(s['warm']['median_ms'])} | "
                    f"{fmt(s['cold']['peak_mb'])} | | |"
                )
        s = servers["skillz"]["start"]
        lines.append(
            f"| skillz | {s['tools']} | {s['pages']} | {fmt(s['median_ms'])} | (same) | {fmt(s['peak_mb'])} | |"
            + (" |" if rb else "")
        )
        lines.append("")
        if "http" in servers["skillpath"] and "http" in servers["skillz"]:
            lines += http_markdown(servers, [("skillz", r, "skillpath advantage", 1)]
                                   + ([("baseline", rb, "baseline ÷ current", 2)] if rb else []))
    return "\n".join(lines)


def http_markdown(servers: dict, comparisons: list[tuple[str, dict, str, int]]) -> list[str]:
    """The HTTP table: each server's row per concurrency, then the ratios against each of the
    `comparisons` (the other server, its ratios, the row's label, the ratios' decimals)."""
    names = ["skillpath", *(name for name, _, _, _ in comparisons)]
    http = {name: servers[name]["http"] for name in names}
    order = ["skillpath", *sorted(names[1:], key=lambda n: n != "baseline")]
    lines = [
        f"`tools/call` of `{http['skillpath']['tool']}` over Streamable HTTP, one session (response "
        + ", ".join(f"{http[n]['response_bytes']:,} B from {n}" for n in order) + "):",
        "",
        "| clients | server | p50 ms | p99 ms | good req/s | bad responses | non-2xx | socket errors |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, first in enumerate(http["skillpath"]["rows"]):
        for name in order:
            row = http[name]["rows"][i]
            lines.append(
                f"| {row['clients']} | {name} | {fmt(row['p50_ms'], 3)} | {fmt(row['p99_ms'], 3)} | "
                f"{fmt(row['ok_rps'])} | {fmt(row['bad'], 0)} | {row['non_2xx']} | {row['socket_errors']} |"
            )
        for _, ratio, label, digits in comparisons:
            q = ratio["http"][i]
            lines.append(
                f"| {first['clients']} | **{label}** | {common.times(q['p50'], digits)} | "
                f"{common.times(q['p99'], digits)} | {common.times(q['rps'], digits)} | | | |"
            )
    peaks = ", ".join(
        f"{name} {fmt(http[name].get('peak_mb'))} MB"
        + "".join(f" ({common.times(ratio.get('http_peak_mb'), digits)})"
                  for other, ratio, _, digits in comparisons if other == name)
        for name in order
    )
    healthy = ", ".join(f"{name} {'yes' if http[name].get('healthy_after') else 'NO'}" for name in order)
    lines += ["", f"Peak RSS after the load: {peaks}; healthy after the load: {healthy}.", ""]
    if "baseline" in names:
        lines += [
            "Ratios against the baseline are baseline ÷ current for times and memory and current ÷ "
            "baseline for requests/s: above 1, the current build is better.",
            "",
        ]
    return lines


# --- main --------------------------------------------------------------------------------


def count_skill_folders(catalog: Path) -> int:
    """Folders with a SKILL.md, not counting those nested inside another skill."""
    count = 0
    for dirpath, dirnames, filenames in os.walk(catalog):
        if "SKILL.md" in filenames:
            count += 1
            dirnames.clear()
    return count


def version_of(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
        return out.split()[-1] if out else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", action="append", required=True, type=Path,
                        help="a folder of skill folders (repeatable)")
    parser.add_argument("--runs", type=int, default=5, help="timed starts per variant (median)")
    parser.add_argument("--clients", default="1,8,32", help="HTTP concurrencies, comma-separated")
    parser.add_argument("--duration", type=float, default=10, help="seconds of load per concurrency")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of warm-up load before each")
    parser.add_argument("--skill", help="the tool to call over HTTP (default: the first by name that both serve"
                        " and that takes no arguments in skillpath)")
    parser.add_argument("--wrk-threads", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                        help="at most this many wrk threads (default: half the CPUs)")
    parser.add_argument("--skip-http", action="store_true", help="only the stdio start")
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report to this file")
    common.baseline_arg(parser)
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",") if c.strip()]
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    for catalog in args.catalog:
        if not catalog.is_dir():
            parser.error(f"--catalog {catalog} is not a folder")

    signal.signal(signal.SIGTERM, _on_sigterm)
    venv = common.tools_venv()
    ctx: dict = {
        "builds": common.builds(args.baseline_bin),
        "skillz": venv / "bin" / "skillz",
        "wrk": None if args.skip_http else ensure_wrk(),
        "wrk_threads": args.wrk_threads,
    }
    tmp = Path(tempfile.mkdtemp(prefix="skillpath-serve-bench-"))
    ctx["tmp"] = tmp
    ctx["home"] = tmp / "home"
    ctx["home"].mkdir()
    try:
        report: dict = {
            "benchmark": "serve",
            "protocol_version": PROTOCOL_VERSION,
            "runs": args.runs,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "machine": {
                "cpus": os.cpu_count(),
                "platform": platform.platform(),
                "python": platform.python_version(),
                "wrk_threads": args.wrk_threads,
            },
            "versions": {
                **{build.name: version_of([str(build.skillpath), "--version"]) for build in ctx["builds"]},
                "skillz": version_of([str(venv / "bin" / "python"), "-c",
                                      "import importlib.metadata as m; print(m.version('skillz'))"]),
            },
            "catalogs": [],
        }  # fmt: skip
        for catalog in args.catalog:
            catalog = catalog.resolve()
            log(f"catalog {catalog}: start over stdio ({args.runs} runs per variant)")
            starts, tool_lists = measure_starts(ctx, catalog, args.runs)
            entry = {
                "catalog": str(catalog),
                "skill_folders": count_skill_folders(catalog),
                "servers": {name: {"start": start} for name, start in starts.items()},
            }
            if not args.skip_http:
                tool = pick_tool(tool_lists, args.skill)
                http = measure_http(ctx, catalog, tool, clients, args)
                for name, figures in http.items():
                    entry["servers"][name]["http"] = figures
            entry["ratios"] = ratios(entry, "skillz")
            if "baseline" in entry["servers"]:
                entry["baseline_ratios"] = ratios(entry, "baseline")
            report["catalogs"].append(entry)
        if args.json_out:
            args.json_out.write_text(json.dumps(report, indent=2) + "\n")
        if args.format == "markdown":
            print(markdown(report))
        else:
            print(json.dumps(report, indent=2))
        return 0
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
