#!/usr/bin/env python3
"""Serving skills over MCP: `skillpath serve` against `skillz` (PyPI), on the same skill folder.

    python3 bench/serve_bench.py --catalog DIR [--catalog DIR2 ...] [--runs 5]
        [--phases cold,warm,store] [--modes per-skill,default] [--no-skillz] [--skillz-timeout 300]
        [--clients 1,8,32] [--duration 10] [--skip-http] [--baseline-bin PATH]
        [--format json|markdown] [--json-out FILE]

Two measurements per catalog and server:

1. **Start to a complete `tools/list`, over stdio.** The clock starts before the process is
   spawned and stops when the client first holds the whole tool list: `initialize`,
   `notifications/initialized`, then `tools/list`, following `nextCursor` until the last page,
   as any client does (skillpath pages at its default 100 items; the pages are part of what is
   measured). Median of `--runs` runs, after one untimed run of each (file cache, Python
   bytecode). Both servers get a fresh, empty `HOME`. skillpath runs with `--no-discover --db
   FILE`, in three kinds of start (`--phases`):
   - *cold*: `--skills DIR` and a new SQLite file every run, so the start includes importing
     the whole folder into an empty store (a first start);
   - *warm*: `--skills DIR` and the store the untimed start made, so the sync finds nothing
     changed (every later start);
   - *store*: that store alone, without `--skills` (nothing to sync; `--tools per-skill` only).
   When the list is complete: a build may sync its folders before it answers (those before
   issue 18) or answer from the store at once and sync in the background, announcing what the
   sync changed with `notifications/tools/list_changed`. So after the first listing of a start
   with `--skills`, the client waits for `skill folders synced` on stderr and lists again (and
   again after any list_changed, including one within a second of the last listing) until it
   holds a listing asked for after both; the start ends
   when the first listing showing exactly that final list arrived, unless a list_changed came
   after it was asked for (see `stdio_start`). A build that syncs first is done at its first
   listing, one that answers from an empty store at the listing after its sync, one whose
   store already held everything (warm) at its first. The table also gives when the first
   listing arrived and when the sync was said to be done; every start of a build and tool
   mode must end with the same tool names, or the run fails.
   skillz keeps nothing between starts (it parses the folder every time), so it has one kind
   of start; one that does not complete within `--skillz-timeout` is reported as such, and
   skillz is left out of the rest of that catalog.
   skillpath is measured in two tool modes (`--modes`):
   - `per-skill` (`--tools per-skill`): one tool per skill, as skillz serves them. This is the
     like-for-like comparison;
   - `default` (`--tools auto`): what a user gets without flags; above 40 skills that is the
     loader (`search_skills`/`load_skill`) and the built-in tools, so far fewer tools.
   The peak memory is the server's VmHWM, read once the start is complete and its sync done,
   just before it is stopped.

2. **`tools/call` over Streamable HTTP.** Each server on a free loopback port (skillpath with
   `--tools per-skill` on the store its stdio starts made, measured once stderr says the folder
   sync is done), one session initialized (`Mcp-Session-Id` captured),
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
current one (every start, and `tools/call` over HTTP), under the name
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
import queue
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
# Seconds for skillpath's first, untimed start, which imports the whole catalog into the store
# the warm starts use (100,000 skills take minutes on a small machine).
FIRST_START_TIMEOUT = 3600.0
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


SYNCED_LINE = "skill folders synced"  # what `serve` says on stderr once its folder sync is done
# How long the client waits, once it holds a listing asked for after the sync, for a
# list_changed a server sends just after saying it synced. Not part of the measured time.
SETTLE_S = 1.0


class StartTimeout(Exception):
    """A server did not complete its start within the time allowed."""


class StdioClient:
    """A stdio MCP server and its client side: every message the server writes is read by a
    thread as it comes, stamped with the time it arrived, so the client can wait for an
    answer, a `notifications/tools/list_changed` or the server's `skill folders synced` line
    on stderr, whichever comes first. Stderr is copied to `stderr_path`."""

    def __init__(self, cmd: list[str], env: dict, stderr_path: Path, timeout: float):
        self.name = cmd[0]
        self.stderr_path = stderr_path
        self.deadline = time.perf_counter() + timeout
        self.timeout = timeout
        self.inbox: queue.Queue = queue.Queue()
        self.synced = threading.Event()
        self.synced_at: float | None = None
        self.changed_at: list[float] = []  # arrival of every tools/list_changed notification
        self.next_id = 0
        self.t0 = time.perf_counter()
        self.proc = spawn(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        for line in self.proc.stdout:
            if line.strip():
                self.inbox.put((time.perf_counter(), json.loads(line)))
        self.inbox.put((time.perf_counter(), None))

    def _read_stderr(self) -> None:
        with self.stderr_path.open("wb") as copy:
            for line in self.proc.stderr:
                copy.write(line)
                copy.flush()
                if not self.synced.is_set() and SYNCED_LINE.encode() in line:
                    self.synced_at = time.perf_counter()
                    self.synced.set()

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _next(self, wait: float) -> dict | None:
        """The next message within `wait` seconds (None if there is none yet); notes
        list_changed notifications. Raises when the server closed stdout or time is up."""
        if time.perf_counter() > self.deadline:
            raise StartTimeout(f"{self.name} did not complete its start within {self.timeout:g} s")
        try:
            arrived, message = self.inbox.get(timeout=wait)
        except queue.Empty:
            return None
        if message is None:
            raise RuntimeError(f"{self.name} closed stdout (exit {self.proc.poll()}):\n{tail(self.stderr_path)}")
        if message.get("method") == "notifications/tools/list_changed":
            self.changed_at.append(arrived)
        return message

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send(jsonrpc(self.next_id, method, params))
        while True:
            message = self._next(1.0)
            if message and message.get("id") == self.next_id and ("result" in message or "error" in message):
                if "error" in message:
                    raise RuntimeError(f"{self.name}: {message['error']}")
                return message["result"]

    def list_tools(self) -> dict:
        """Every page of tools/list, following the cursors: the tools, the pages, and when the
        first page was asked for and the last one arrived."""
        tools: list[dict] = []
        cursor, pages, asked = None, 0, time.perf_counter()
        while True:
            page = self.request("tools/list", {"cursor": cursor} if cursor else {})
            pages += 1
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        content = json.dumps(sorted(tools, key=lambda t: t.get("name", "")), sort_keys=True)
        return {"tools": tools, "pages": pages, "asked": asked, "done": time.perf_counter(), "content": content}

    def wait_synced(self) -> None:
        """Until stderr says the folder sync is done (reading notifications meanwhile)."""
        try:
            while not self.synced.is_set():
                self._next(0.05)
        except StartTimeout:
            raise StartTimeout(f"{self.name} answered, but its stderr did not say `{SYNCED_LINE}` within "
                               f"{self.timeout:g} s:\n{tail(self.stderr_path)}") from None

    def changed_within(self, seconds: float) -> bool:
        """Whether a list_changed arrives within `seconds` (reading whatever comes meanwhile)."""
        seen, until = len(self.changed_at), time.perf_counter() + seconds
        while len(self.changed_at) == seen and (left := until - time.perf_counter()) > 0:
            self._next(left)
        return len(self.changed_at) > seen

    def drain(self) -> None:
        """Reads the messages that have arrived, without waiting."""
        while self._next(0) is not None:
            pass

    def close(self) -> None:
        stop(self.proc)


def stdio_start(cmd: list[str], env: dict, stderr_path: Path, syncs: bool, timeout: float) -> dict:
    """Spawns a stdio server and times it from before the spawn to the moment the client first
    held the complete tool list.

    `initialize`, `notifications/initialized`, then `tools/list` page by page. A server that
    syncs skill folders at start (`syncs`: skillpath with `--skills`) may answer before its
    sync is done (from the store) and announce the sync's changes with
    `notifications/tools/list_changed`, or sync first and answer after (builds before issue
    18). So for it the client then waits for `skill folders synced` on stderr and lists again
    until it has made a listing asked for after that line and after the last list_changed, and
    no further list_changed has come within SETTLE_S (a server may announce its changes just
    after saying it synced). The list it holds then is the complete one; the start ends when the first listing that showed
    exactly that list (every tool's name, description and schema) arrived, and no
    list_changed came after that listing was asked for. A server that syncs first is done at
    its first listing (the later one only confirms it); one that answers from an empty store
    is done at the listing made after its sync. The peak memory is read after all that, so it
    includes the sync in both cases.
    """
    client = StdioClient(cmd, env, stderr_path, timeout)
    try:
        init = client.request("initialize", initialize_params())
        client.send(jsonrpc(None, "notifications/initialized"))
        listings = [client.list_tools()]
        if syncs:
            client.wait_synced()
            while True:
                client.drain()
                last = listings[-1]["asked"]
                if client.synced_at <= last and all(t <= last for t in client.changed_at):
                    if not client.changed_within(SETTLE_S):
                        break
                    continue
                listings.append(client.list_tools())
        final = listings[-1]["content"]
        complete = listings[-1]
        for listing in reversed(listings):
            if listing["content"] != final or any(t > listing["asked"] for t in client.changed_at):
                break
            complete = listing
        peak = common.peak_rss_mb(client.proc.pid)
    finally:
        client.close()
    return {
        "ms": (complete["done"] - client.t0) * 1000,
        "first_list_ms": (listings[0]["done"] - client.t0) * 1000,
        "synced_ms": None if client.synced_at is None else (client.synced_at - client.t0) * 1000,
        "listings": len(listings),
        "list_changed": len(client.changed_at),
        "tools": complete["tools"],
        "tools_count": len(complete["tools"]),
        "pages": complete["pages"],
        "peak_mb": peak,
        "protocol": init.get("protocolVersion"),
    }


def summarize_starts(runs: list[dict]) -> dict:
    synced = [r["synced_ms"] for r in runs if r["synced_ms"] is not None]
    return {
        "median_ms": round(common.median([r["ms"] for r in runs]), 1),
        "min_ms": round(min(r["ms"] for r in runs), 1),
        "max_ms": round(max(r["ms"] for r in runs), 1),
        "runs_ms": [round(r["ms"], 1) for r in runs],
        "first_list_ms": round(common.median([r["first_list_ms"] for r in runs]), 1),
        "synced_ms": round(common.median(synced), 1) if synced else None,
        "tools": runs[-1]["tools_count"],
        "pages": runs[-1]["pages"],
        "peak_mb": _round(common.median([r["peak_mb"] for r in runs if r["peak_mb"]] or [0.0])),
    }


def _round(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


# The starts measured for skillpath: a new store, the store of an earlier start with the
# folders to sync, and that store alone (`--tools per-skill` only).
PHASES = ("cold", "warm", "store")
TOOL_MODES = {"per-skill": ["--tools", "per-skill"], "default": []}


def remove_db(db: Path) -> None:
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.unlink(missing_ok=True)


def store_db(ctx: dict, build: common.Build, catalog: Path, mode: str) -> Path:
    """The store a build's warm and store-alone starts (and its HTTP server) use, made by its
    first, untimed start."""
    return ctx["tmp"] / f"db-{build.name}-{catalog.name}-{mode}" / "store.sqlite"


def skillpath_starts(ctx: dict, build: common.Build, catalog: Path) -> tuple[dict, list]:
    """The starts of one skillpath build (cold, warm and from the store alone, as `--phases`
    and `--modes` ask); also its last per-skill tool list. Every start of a tool mode must end
    with the same tool names: a start that stopped at an incomplete list is an error."""
    tmp: Path = ctx["tmp"]
    out: dict = {}
    tools: list = []
    runs = ctx["runs"]
    env = server_env(ctx["home"])
    for mode in ctx["modes"]:
        store = store_db(ctx, build, catalog, mode)
        store.parent.mkdir(parents=True, exist_ok=True)

        def start(db: Path, folders: bool, label: str, timeout: float = ctx["timeout"]) -> dict:
            cmd = [str(build.skillpath), "serve", "--no-discover", "--db", str(db), *TOOL_MODES[mode]]
            if folders:
                cmd[3:3] = ["--skills", str(catalog)]
            return stdio_start(cmd, env, tmp / f"{build.name}-{mode}-{label}.log", folders, timeout)

        # One untimed start first (file cache), which also makes the store of the warm starts.
        start(store, True, "untimed", max(ctx["timeout"], FIRST_START_TIMEOUT))
        out[mode] = {}
        names: dict[str, set] = {}
        for phase in ctx["phases"]:
            if phase == "store" and mode != "per-skill":
                continue
            results = []
            for i in range(runs):
                if phase == "cold":
                    db = tmp / f"cold-{build.name}.sqlite"
                    remove_db(db)
                    results.append(start(db, True, f"cold-{i}"))
                    remove_db(db)
                else:
                    results.append(start(store, phase == "warm", f"{phase}-{i}"))
                r = results[-1]
                log(f"  {build.name} {mode} {phase} #{i + 1}: {r['ms']:.0f} ms, {r['tools_count']} tools, "
                    f"{_round(r['peak_mb'])} MB" + (f", synced at {r['synced_ms']:.0f} ms" if r["synced_ms"] else ""))
            out[mode][phase] = summarize_starts(results)
            names[phase] = {t["name"] for t in results[-1]["tools"]}
            if mode == "per-skill":
                tools = results[-1]["tools"]
        if len({frozenset(n) for n in names.values()}) > 1:
            counts = ", ".join(f"{phase} {len(n)}" for phase, n in names.items())
            raise RuntimeError(f"{build.name} {mode}: the starts ended with different tools ({counts})")
    return out, tools


def skillz_starts(ctx: dict, catalog: Path) -> tuple[dict, list]:
    """skillz's starts (it keeps nothing between starts: one kind). A start that does not
    complete within the timeout is reported as such, and the others are not tried."""
    tmp: Path = ctx["tmp"]
    cmd = [str(ctx["skillz"]), str(catalog)]
    env = server_env(ctx["home"])
    timeout = ctx["skillz_timeout"]
    try:
        stdio_start(cmd, env, tmp / "skillz-untimed.log", False, timeout)
        starts = []
        for i in range(ctx["runs"]):
            starts.append(stdio_start(cmd, env, tmp / f"skillz-{i}.log", False, timeout))
            log(f"  skillz #{i + 1}: {starts[-1]['ms']:.0f} ms, {starts[-1]['tools_count']} tools")
    except StartTimeout as error:
        log(f"  skillz: {error}")
        return {"timeout_s": timeout}, []
    return summarize_starts(starts), starts[-1]["tools"]


def measure_starts(ctx: dict, catalog: Path) -> tuple[dict, dict]:
    """Every start measurement of one catalog, by server name; also the tool lists, for picking
    the HTTP tool."""
    out: dict = {}
    tool_lists: dict = {}
    for build in ctx["builds"]:
        out[build.name], tool_lists[build.name] = skillpath_starts(ctx, build, catalog)
    if ctx["skillz"] is not None:
        out["skillz"], tool_lists["skillz"] = skillz_starts(ctx, catalog)
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

    def __init__(self, name: str, cmd: list[str], port: int, env: dict, log_path: Path, syncs: bool):
        self.name, self.port, self.log_path, self.syncs = name, port, log_path, syncs
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
        # A server that syncs its folders in the background is measured once that is done.
        while self.syncs and SYNCED_LINE not in self.log_path.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} never said `{SYNCED_LINE}`:\n{tail(self.log_path)}")
            time.sleep(0.05)
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


def pick_tool(tool_lists: dict, catalog: Path, wanted: str | None) -> str:
    """A skill tool both servers serve (every skill of the catalog, when skillz is not
    measured), which takes no arguments in skillpath."""
    if tool_lists.get("skillz"):
        skillz_names = {t["name"] for t in tool_lists["skillz"]} - {"fetch_resource"}
    else:
        skillz_names = {path.parent.name for path in catalog.glob("*/SKILL.md")}
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


def http_servers(ctx: dict, catalog: Path, tool: str, skillz: bool) -> list[tuple[str, Callable[[int], list[str]], dict]]:
    """Every server of the HTTP benchmark: its name, its command for a port, and the
    `tools/call` params it gets. skillpath serves the store its stdio starts made (synced)."""
    servers = []
    for build in ctx["builds"]:
        def skillpath(port: int, build: common.Build = build) -> list[str]:
            return [
                str(build.skillpath), "serve", "--http", f"127.0.0.1:{port}", "--no-discover",
                "--skills", str(catalog), "--db", str(store_db(ctx, build, catalog, "per-skill")),
                "--tools", "per-skill",
            ]  # fmt: skip
        servers.append((build.name, skillpath, {"name": tool, "arguments": {}}))
    if not skillz:
        return servers

    def skillz(port: int) -> list[str]:
        return [
            str(ctx["skillz"]), str(catalog), "--transport", "http",
            "--host", "127.0.0.1", "--port", str(port), "--path", "/mcp",
        ]  # fmt: skip
    servers.append(("skillz", skillz, {"name": tool, "arguments": {"task": SKILLZ_TASK}}))
    return servers


def measure_http(ctx: dict, catalog: Path, tool: str, clients: list[int], args, skillz: bool) -> dict:
    out: dict = {}
    tmp: Path = ctx["tmp"]
    for name, command, params in http_servers(ctx, catalog, tool, skillz):
        port = free_port()
        cmd = command(port)
        log(f"  {name} over HTTP on port {port}: tools/call {tool}")
        server = HttpServer(name, cmd, port, server_env(ctx["home"]), tmp / f"{name}-http.log", name != "skillz")
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
    """A server's start figures for a tool mode and phase; skillz has one start for all (or
    `{"timeout_s": N}` when it did not complete one)."""
    start = server["start"]
    return start.get(mode, {}).get(phase, {}) if "median_ms" not in start and "timeout_s" not in start else start


# Each tool mode: its label in the tables and the suffix of its keys in the ratios.
MODES = {"per-skill": ("`--tools per-skill`", ""), "default": ("default `--tools auto`", "_default_tools")}
PHASE_LABELS = {
    "cold": "cold: new store, folder sync",
    "warm": "warm: folder sync, nothing changed",
    "store": "from the store alone (no `--skills`)",
}


def ratios(entry: dict, other: str) -> dict:
    """How many times better the current skillpath is than `other` (skillz or the baseline),
    for every start measured (`start_<phase>[_default_tools]` for its time, `peak_<phase>...`
    for its peak memory) and every HTTP row."""
    sp, them = entry["servers"]["skillpath"], entry["servers"][other]
    out: dict = {"how": f"{other} / skillpath for times and memory, skillpath / {other} for requests/s"}
    for mode, starts in sp["start"].items():
        suffix = MODES[mode][1]
        for phase, mine in starts.items():
            theirs = start_of(them, mode, phase)
            out[f"start_{phase}{suffix}"] = common.ratio_num(theirs.get("median_ms"), mine["median_ms"])
            out[f"peak_{phase}{suffix}"] = common.ratio_num(theirs.get("peak_mb"), mine["peak_mb"])
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


def start_cells(s: dict) -> str:
    """A start's cells: tools, pages, median ms (range), first listing, synced at, peak MB."""
    if "timeout_s" in s:
        return f"– | – | no complete list in {s['timeout_s']:g} s | – | – | –"
    spread = f" ({fmt(s['min_ms'], 0)}–{fmt(s['max_ms'], 0)})" if s["min_ms"] != s["max_ms"] else ""
    return (f"{fmt(s['tools'])} | {fmt(s['pages'])} | **{fmt(s['median_ms'], 0)}**{spread} | {fmt(s['first_list_ms'], 0)} | "
            f"{fmt(s.get('synced_ms'), 0)} | {fmt(s['peak_mb'])}")


def start_markdown(entry: dict) -> list[str]:
    """The start table of one catalog: each build's row per tool mode and phase, the
    baseline's beneath the current build's, and skillz."""
    servers, r, rb = entry["servers"], entry.get("ratios"), entry.get("baseline_ratios")
    skillz = servers.get("skillz")
    lines = [
        "Start to a complete `tools/list` over stdio (median ms of the runs, their range; when the first "
        "listing arrived; when stderr said `skill folders synced`; peak RSS once the start and its sync were done):",
        "",
        "| server | start | tools | pages | ms to the complete list | first list ms | synced at ms | peak MB |"
        + (" skillz ÷ this (time / memory) |" if skillz else "")
        + (" baseline ÷ current (time / memory) |" if rb else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if skillz else "") + ("---:|" if rb else ""),
    ]
    for mode, starts in servers["skillpath"]["start"].items():
        label, suffix = MODES[mode]
        for phase, s in starts.items():
            key = f"{phase}{suffix}"
            line = f"| skillpath {label} | {PHASE_LABELS[phase]} | {start_cells(s)} |"
            if skillz:
                line += f" {common.times(r['start_' + key])} / {common.times(r['peak_' + key])} |"
            if rb:
                line += f" **{common.times(rb['start_' + key], 2)}** / **{common.times(rb['peak_' + key], 2)}** |"
            lines.append(line)
            if rb:
                lines.append(f"| baseline {label} | {PHASE_LABELS[phase]} | "
                             f"{start_cells(servers['baseline']['start'][mode][phase])} |"
                             + (" |" if skillz else "") + " |")
    if skillz:
        lines.append(f"| skillz | every start (it keeps nothing) | {start_cells(skillz['start'])} | |" + (" |" if rb else ""))
    lines.append("")
    return lines


def markdown(report: dict) -> str:
    m = report["machine"]
    baseline = report["versions"].get("baseline")
    skillz = report["versions"].get("skillz")
    lines = [
        f"Machine: {m['cpus']} CPUs, {m['platform']}, Python {m['python']}; "
        f"skillpath {report['versions']['skillpath']}"
        + (f", baseline {baseline}" if baseline else "")
        + (f", skillz {skillz}" if skillz else "")
        + f"; {report['runs']} runs (median), HTTP {report['duration_s']:g} s per concurrency "
        f"after {report['warmup_s']:g} s warm-up, wrk with ≤{m['wrk_threads']} threads.",
        "",
    ]
    for entry in report["catalogs"]:
        servers, r = entry["servers"], entry.get("ratios")
        rb = entry.get("baseline_ratios")
        lines += [
            f"### `{entry['catalog']}` ({entry['skill_folders']:,} skill folders, "
            f"{entry['files']:,} files, {entry['bytes'] / 1e6:,.1f} MB)",
            "",
            *start_markdown(entry),
        ]
        if "http" in servers["skillpath"]:
            comparisons = []
            if "http" in servers.get("skillz", {}):
                comparisons.append(("skillz", r, "skillpath advantage", 1))
            if rb:
                comparisons.append(("baseline", rb, "baseline ÷ current", 2))
            lines += http_markdown(servers, comparisons)
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
    parser.add_argument("--phases", default=",".join(PHASES),
                        help="skillpath's starts to time, comma-separated: cold (a new store), warm (the "
                        "store of an earlier start, with the folders to sync), store (that store alone, "
                        "per-skill only); default all")
    parser.add_argument("--modes", default=",".join(TOOL_MODES),
                        help="skillpath's tool modes, comma-separated: per-skill, default (`--tools auto`)")
    parser.add_argument("--no-skillz", action="store_true", help="measure skillpath only")
    parser.add_argument("--timeout", type=float, default=START_TIMEOUT,
                        help="seconds a skillpath start may take before the run fails")
    parser.add_argument("--skillz-timeout", type=float, default=START_TIMEOUT,
                        help="seconds a skillz start may take; past it, skillz is reported as not "
                        "answering and its other starts and its HTTP part are skipped")
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report to this file")
    common.baseline_arg(parser)
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",") if c.strip()]
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    phases = [p for p in PHASES if p in args.phases.split(",")]
    modes = [m for m in TOOL_MODES if m in args.modes.split(",")]
    if not phases or not modes:
        parser.error(f"--phases takes some of {', '.join(PHASES)}; --modes some of {', '.join(TOOL_MODES)}")
    if not args.skip_http and "per-skill" not in modes:
        parser.error("the HTTP part serves the per-skill store: add per-skill to --modes, or --skip-http")
    for catalog in args.catalog:
        if not catalog.is_dir():
            parser.error(f"--catalog {catalog} is not a folder")

    signal.signal(signal.SIGTERM, _on_sigterm)
    venv = common.tools_venv()
    ctx: dict = {
        "builds": common.builds(args.baseline_bin),
        "skillz": None if args.no_skillz else venv / "bin" / "skillz",
        "wrk": None if args.skip_http else ensure_wrk(),
        "wrk_threads": args.wrk_threads,
        "runs": args.runs,
        "phases": phases,
        "modes": modes,
        "timeout": args.timeout,
        "skillz_timeout": args.skillz_timeout,
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
                **({} if args.no_skillz else {"skillz": version_of([
                    str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('skillz'))",
                ])}),
            },
            "catalogs": [],
        }  # fmt: skip
        for catalog in args.catalog:
            catalog = catalog.resolve()
            log(f"catalog {catalog}: start over stdio ({args.runs} runs per variant)")
            starts, tool_lists = measure_starts(ctx, catalog)
            entry = {
                "catalog": str(catalog),
                **common.catalog_stats(catalog),
                "servers": {name: {"start": start} for name, start in starts.items()},
            }
            if not args.skip_http:
                skillz = bool(tool_lists.get("skillz"))
                tool = pick_tool(tool_lists, catalog, args.skill)
                http = measure_http(ctx, catalog, tool, clients, args, skillz)
                for name, figures in http.items():
                    entry["servers"][name]["http"] = figures
            if "skillz" in entry["servers"]:
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
