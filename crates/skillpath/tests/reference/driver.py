"""Batch driver for the reference Agent Skills CLI (``skills-ref`` 0.1.1, ``agentskills``).

Runs the REAL reference command group ``skills_ref.cli.main`` many times inside one Python
process through ``click.testing.CliRunner``, so a differential test does not pay Python
start-up for every invocation.

Call it with the reference venv's interpreter (Python 3.11, click >= 8.2, which captures
stdout and stderr separately)::

    /work/cache/refvenv/bin/python tests/reference/driver.py < requests.json > results.json

stdin is a JSON array of requests, each ``{"argv": [...], "cwd": "..."}``: ``argv`` excludes
the program name (e.g. ``["validate", "some-dir"]``); ``cwd`` is the directory to run in
(relative paths are taken from the driver's own working directory; omitted = that directory).
stdout is a JSON array (ASCII-only, same order) of
``{"stdout": str, "stderr": str, "exit_code": int, "exception": str | null}``.

Fidelity to running ``agentskills`` as a subprocess:

* stdout, stderr and exit codes are byte-identical for normal results and for click usage
  errors (exit 2). Plain ``CliRunner`` forces an 80-column help width, so the driver passes
  the width the real CLI would pick (``COLUMNS``, else the terminal, else 80; capped at 80,
  minus 2, at least 50), and it reads the raw output bytes because ``Result.stdout`` turns
  CRLF into LF;
* ``exception`` is the type name of an uncaught non-``SystemExit`` exception (for example
  ``UnicodeDecodeError``, ``IsADirectoryError``, ``AttributeError``) or ``null``; such a run
  reports ``exit_code`` 1, like the interpreter does, and a Python traceback is appended to
  ``stderr``. Its last line matches the real traceback, the stack frames do not (compare
  exit codes only for these).

A malformed request, or a ``cwd`` that cannot be entered, aborts the whole batch with a
message on stderr and exit status 2 (it is a harness bug, not a CLI result).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import traceback
from typing import Any, NoReturn

from click.testing import CliRunner

from skills_ref.cli import main as reference_cli

PROG_NAME = "agentskills"


def _help_width() -> int:
    """Width click's HelpFormatter picks in a real process (CliRunner would force 80)."""
    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"driver.py: {message}\n")
    raise SystemExit(2)


def _decode(data: bytes) -> str:
    # The CLI writes through UTF-8 text streams (stderr with backslashreplace), so the bytes
    # are valid UTF-8; "replace" is only a guard that keeps the output JSON parseable.
    return data.decode("utf-8", "replace")


def run_one(runner: CliRunner, argv: list[str], cwd: str, width: int) -> dict[str, Any]:
    """Invoke the reference CLI once in ``cwd`` and describe what it did."""
    home = os.getcwd()
    try:
        os.chdir(cwd)
    except OSError as err:
        _fail(f"cannot enter cwd {cwd!r}: {err}")
    try:
        result = runner.invoke(
            reference_cli,
            argv,
            prog_name=PROG_NAME,
            terminal_width=width,
            catch_exceptions=True,
        )
    finally:
        os.chdir(home)

    stdout = _decode(result.stdout_bytes)
    stderr = _decode(result.stderr_bytes)
    exit_code = result.exit_code
    exception = None
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        exception = type(exc).__name__
        exit_code = 1
        stderr += "".join(traceback.format_exception(exc))
    return {
        "stdout": stdout,
        "stderr": stderr,
        "exit_code": exit_code,
        "exception": exception,
    }


def main() -> None:
    try:
        requests = json.loads(sys.stdin.buffer.read())
    except ValueError as err:
        _fail(f"stdin is not JSON: {err}")
    if not isinstance(requests, list):
        _fail("stdin must be a JSON array of {argv, cwd} objects")

    runner = CliRunner()
    width = _help_width()
    start = os.getcwd()
    results = []
    for index, request in enumerate(requests):
        if not isinstance(request, dict):
            _fail(f"request {index} is not an object")
        argv = request.get("argv")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            _fail(f"request {index}: argv must be an array of strings")
        cwd = request.get("cwd", start)
        if not isinstance(cwd, str):
            _fail(f"request {index}: cwd must be a string")
        results.append(run_one(runner, argv, os.path.join(start, cwd), width))

    sys.stdout.buffer.write(json.dumps(results, ensure_ascii=True).encode("ascii"))
    sys.stdout.buffer.write(b"\n")
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
