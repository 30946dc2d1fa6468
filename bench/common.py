"""What every benchmark shares: where things are, the tools a comparison runs against, and
the statistics reported.

The tools are installed on first use into a cache folder (``$SKILLPATH_BENCH_CACHE``, default
``~/.cache/skillpath-bench``): a virtual environment with the reference validator
(``skills-ref==0.1.1``) and ``skillz==0.1.14``. skillz declares Python >= 3.12; this machine
has 3.11, on which it installs with ``--ignore-requires-python`` and runs unchanged.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import urllib.parse
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("SKILLPATH_CORPUS", ROOT.parent / "shared" / "corpus"))
CACHE = Path(
    os.environ.get(
        "SKILLPATH_BENCH_CACHE",
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "skillpath-bench",
    )
)
TOOLS = ("skills-ref==0.1.1", "skillz==0.1.14")


def build_dir() -> Path:
    """Where cargo puts the ``profiling`` builds ``bench/run`` makes (the release build with line
    tables): ``$CARGO_TARGET_DIR/profiling``, else ``target/profiling``."""
    return ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "profiling"


def skillpath_bin() -> Path:
    """The benchmarked binary (built by ``bench/run``), or ``$SKILLPATH_BIN``."""
    path = Path(os.environ.get("SKILLPATH_BIN", build_dir() / "skillpath"))
    if not path.is_file():
        sys.exit(f"no skillpath binary at {path}: run `cargo build --profile profiling -p skillpath` first")
    return path


@dataclass(frozen=True)
class Build:
    """One skillpath build a run measures: the binary, and the folder of the examples cargo built
    with it (``search_latency``), if any."""

    name: str  # "skillpath" (this tree) or "baseline": its key in the JSON output and its name in tables
    skillpath: Path
    examples: Path
    label: str  # which build it is, for the report

    def example(self, name: str) -> Path | None:
        """The example program `name` of this build, or None when it was not built."""
        path = self.examples / name
        return path if path.is_file() else None


def baseline_build(skillpath: Path, label: str) -> Build:
    """A baseline binary, with the examples cargo puts next to it (``<profile>/examples``)."""
    if not skillpath.is_file():
        sys.exit(f"no baseline skillpath binary at {skillpath}")
    return Build("baseline", skillpath.resolve(), skillpath.resolve().parent / "examples", label)


def builds(baseline_bin: Path | None) -> list[Build]:
    """The builds a script measures: the current one, then the baseline at `baseline_bin` if any."""
    found = [Build("skillpath", skillpath_bin(), build_dir() / "examples", "this tree")]
    if baseline_bin is not None:
        found.append(baseline_build(baseline_bin, str(baseline_bin)))
    return found


def tools_venv() -> Path:
    """The virtual environment with the tools compared against, installed on first use."""
    home = CACHE / "venv"
    marker = home / ".installed"
    if marker.is_file() and marker.read_text() == " ".join(TOOLS):
        return home
    print(f"bench: installing {' '.join(TOOLS)} into {home}", file=sys.stderr)
    venv.create(home, with_pip=True, clear=True)
    pip = [str(home / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, TOOLS[0]], check=True)
    # skillz says it needs Python 3.12; it runs on 3.11, which is what this machine has.
    subprocess.run([*pip, "--ignore-requires-python", TOOLS[1]], check=True)
    marker.write_text(" ".join(TOOLS))
    return home


def catalog_stats(catalog: Path) -> dict:
    """What a catalog holds: its skill folders (folders with a SKILL.md, not counting those
    nested inside another skill), the files under it and their bytes (the growth tables set
    start and memory against both)."""
    skills = files = size = 0
    for dirpath, dirnames, filenames in os.walk(catalog):
        if "SKILL.md" in filenames:
            skills += 1
        for name in filenames:
            files += 1
            size += os.lstat(os.path.join(dirpath, name)).st_size
    return {"skill_folders": skills, "files": files, "bytes": size}


def libpq_url(url: str) -> str:
    """`url` without skillpath's own parameters (`timeout`), which libpq (`psql`, and the
    `write_throughput` example's own connections) refuses."""
    parts = urllib.parse.urlsplit(url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "timeout"]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def median(values: list[float]) -> float:
    return statistics.median(values)


def percentile(values: list[float], p: float) -> float:
    """The `p`-th percentile (0-100) by the nearest-rank method."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def peak_rss_mb(pid: int) -> float | None:
    """The peak resident memory of a running process (VmHWM), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def baseline_arg(parser) -> None:
    """The option of every script that can measure a baseline build next to the current one."""
    parser.add_argument("--baseline-bin", type=Path,
                        help="also measure this skillpath binary (an earlier build), side by side")


def ratio_num(theirs: float | None, ours: float | None) -> float | None:
    """theirs / ours, rounded; None when either is missing or zero."""
    if not theirs or not ours:
        return None
    return round(theirs / ours, 2)


def times(value: float | None, digits: int = 1) -> str:
    """A ratio as text: "2.5×", or "–" when there is none."""
    return "–" if value is None else f"{value:,.{digits}f}×"


def ratio(theirs: float, ours: float) -> str:
    """How many times faster (or smaller) ours is: theirs / ours, as text."""
    if ours <= 0 or theirs != theirs or ours != ours:
        return "–"
    return f"{theirs / ours:,.1f}×"
