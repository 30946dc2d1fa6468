"""Import and search: `skillpath import` of a catalog into an empty store, a re-import with one
changed skill, and the latency of a search once the catalog is stored, on SQLite and (with
`--postgres`) PostgreSQL.

Usage: python3 bench/store_bench.py --catalog DIR [--runs 3] [--postgres URL] [--baseline-bin PATH]
    [--format json|markdown] [--json-out FILE]

Imports are timed end to end, as a user runs them (`skillpath import DIR --db ...`: reading the
folders, parsing, one transaction). The re-import changes one skill's `SKILL.md` (a line at the
end), imports the whole catalog again, and puts the file back. Search latency comes from
`crates/skillpath-store/examples/search_latency.rs` against the imported database.
PostgreSQL gets a fresh schema per run, dropped afterwards.

With `--baseline-bin PATH` (an earlier build's `skillpath`) every figure is measured again with
that binary, and its own `examples/search_latency` next to it when there is one, on the same
catalog and backends; the table gains a row per backend for the baseline and one for
baseline ÷ current (above 1, the current build is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common


def search_bin(build: common.Build) -> Path | None:
    """The build's `search_latency` example: required of the current build, optional for a
    baseline (one built without it gets no search figures)."""
    path = build.example("search_latency")
    if path is None and build.name == "skillpath":
        sys.exit(
            "no search_latency example next to the skillpath binary: run "
            "`cargo build --profile profiling -p skillpath-store --example search_latency`"
        )
    return path


def psql(url: str, sql: str) -> None:
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", common.libpq_url(url), "-c", sql], check=True,
                   capture_output=True)


def import_once(build: common.Build, db: str, catalog: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(build.skillpath), "import", str(catalog), "--db", db, "--format", "json"],
        capture_output=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{build.name} import failed: {done.stderr.decode()[-2000:]}")
    return seconds


def one_skill_md(catalog: Path) -> Path:
    for path in sorted(catalog.iterdir()):
        if (path / "SKILL.md").is_file():
            return path / "SKILL.md"
    sys.exit(f"no skill folder directly under {catalog}")


def measure_once(build: common.Build, db: str, catalog: Path, skill_md: Path, run: int) -> dict:
    """One run of one build into the empty database `db`: the import, a re-import of nothing
    changed, one of one changed `SKILL.md` (put back afterwards), then the search latency."""
    original = skill_md.read_bytes()
    figures = {
        "import_s": import_once(build, db, catalog),
        "reimport_unchanged_s": import_once(build, db, catalog),
    }
    try:
        skill_md.write_bytes(original + f"\nChanged for run {run}.\n".encode())
        figures["reimport_one_changed_s"] = import_once(build, db, catalog)
    finally:
        skill_md.write_bytes(original)
    searcher = search_bin(build)
    if searcher is not None:
        done = subprocess.run([str(searcher), "--db", db], capture_output=True, check=True)
        figures["search"] = json.loads(done.stdout)
    return figures


def bench_backend(builds: list[common.Build], db_for_run, catalog: Path, runs: int) -> dict:
    """Every figure of each build on one backend, by build name. The builds take turns within
    each run, so a change of the machine's load during the runs touches them alike.
    `db_for_run(i)` gives a context manager yielding a fresh database URL or path."""
    skill_md = one_skill_md(catalog)
    measured: dict[str, list[dict]] = {build.name: [] for build in builds}
    for run in range(runs):
        for build in builds:
            with db_for_run(run) as db:
                measured[build.name].append(measure_once(build, db, catalog, skill_md, run))
    return {name: summarize(each) for name, each in measured.items()}


def summarize(each: list[dict]) -> dict:
    """The medians of one build's runs."""
    search = [m["search"] for m in each if "search" in m]
    return {
        "import_s": common.median([m["import_s"] for m in each]),
        "reimport_unchanged_s": common.median([m["reimport_unchanged_s"] for m in each]),
        "reimport_one_changed_s": common.median([m["reimport_one_changed_s"] for m in each]),
        "search_p50_ms": common.median([s["p50_ms"] for s in search]) if search else None,
        "search_p99_ms": common.median([s["p99_ms"] for s in search]) if search else None,
        "search_hits_per_round": search[-1]["hits_per_round"] if search else None,
    }


# The figures of a backend, in the order of the table's columns.
FIGURES = ("import_s", "reimport_unchanged_s", "reimport_one_changed_s", "search_p50_ms", "search_p99_ms")


def baseline_ratios(current: dict, baseline: dict) -> dict:
    """baseline / current for every figure (all are times: above 1, the current build is faster)."""
    return {figure: common.ratio_num(baseline[figure], current[figure]) for figure in FIGURES}


class SqliteDb:
    def __init__(self, run: int):
        self.dir = tempfile.TemporaryDirectory(prefix="skillpath-bench-")

    def __enter__(self) -> str:
        return str(Path(self.dir.name) / "store.db")

    def __exit__(self, *exc) -> None:
        self.dir.cleanup()


class PostgresDb:
    def __init__(self, url: str, run: int):
        self.url = url
        self.schema = f"bench_store_{os.getpid()}_{run}"

    def __enter__(self) -> str:
        psql(self.url, f"CREATE SCHEMA {self.schema}")
        separator = "&" if "?" in self.url else "?"
        return f"{self.url}{separator}options=-c%20search_path%3D{self.schema}"

    def __exit__(self, *exc) -> None:
        psql(self.url, f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")


def markdown(catalog: str, results: dict) -> str:
    lines = [
        f"Store with {results['skills']:,} skills ({catalog}: {results['files']:,} files, "
        f"{results['bytes'] / 1e6:,.1f} MB); medians of runs.",
        "",
        "| backend | import | re-import, nothing changed | re-import, one changed | search p50 | search p99 |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for backend, r in results["backends"].items():
        lines.append(f"| {backend} | {row(r)} |")
        if "baseline" in results:
            lines.append(f"| {backend}, baseline | {row(results['baseline'][backend])} |")
            ratios = results["baseline_ratios"][backend]
            lines.append(f"| {backend}, baseline ÷ current | "
                         + " | ".join(common.times(ratios[f], 2) for f in FIGURES) + " |")
    return "\n".join(lines)


def row(r: dict) -> str:
    """One backend's figures as the cells of a table row."""
    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f} ms"

    return (
        f"{r['import_s']:.2f} s | {r['reimport_unchanged_s'] * 1000:.0f} ms "
        f"| {r['reimport_one_changed_s'] * 1000:.0f} ms | {ms(r['search_p50_ms'])} "
        f"| {ms(r['search_p99_ms'])}"
    )



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--postgres", help="also PostgreSQL at this URL (needs CREATE SCHEMA)")
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report to this file")
    common.baseline_arg(parser)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs takes a number of at least 1")
    catalog = args.catalog.resolve()
    shape = common.catalog_stats(catalog)
    backends = {"SQLite": SqliteDb}
    if args.postgres:
        backends["PostgreSQL"] = lambda run: PostgresDb(args.postgres, run)
    builds = common.builds(args.baseline_bin)
    by_backend = {name: bench_backend(builds, db, catalog, args.runs) for name, db in backends.items()}
    measured = {build.name: {name: by_backend[name][build.name] for name in backends} for build in builds}
    results = {"skills": shape["skill_folders"], "files": shape["files"], "bytes": shape["bytes"],
               "backends": measured["skillpath"]}
    if "baseline" in measured:
        results["baseline"] = measured["baseline"]
        results["baseline_ratios"] = {
            name: baseline_ratios(measured["skillpath"][name], measured["baseline"][name])
            for name in backends
        }
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        print(markdown(str(args.catalog), results))


if __name__ == "__main__":
    main()
