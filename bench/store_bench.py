"""Import and search: `skillpath import` of a catalog into an empty store, a re-import with one
changed skill, and the latency of a search once the catalog is stored, on SQLite and (with
`--postgres`) PostgreSQL.

Usage: python3 bench/store_bench.py --catalog DIR [--runs 3] [--postgres URL] [--format json|markdown]

Imports are timed end to end, as a user runs them (`skillpath import DIR --db ...`: reading the
folders, parsing, one transaction). The re-import changes one skill's `SKILL.md` (a line at the
end), imports the whole catalog again, and puts the file back. Search latency comes from
`crates/skillpath-store/examples/search_latency.rs` against the imported database.
PostgreSQL gets a fresh schema per run, dropped afterwards.
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


def search_bin() -> Path:
    path = common.build_dir() / "examples" / "search_latency"
    if not path.is_file():
        sys.exit(
            f"no {path}: run `cargo build --profile profiling -p skillpath-store --example search_latency`"
        )
    return path


def psql(url: str, sql: str) -> None:
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                   capture_output=True)


def import_once(db: str, catalog: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(common.skillpath_bin()), "import", str(catalog), "--db", db, "--format", "json"],
        capture_output=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"skillpath import failed: {done.stderr.decode()[-2000:]}")
    return seconds


def one_skill_md(catalog: Path) -> Path:
    for path in sorted(catalog.iterdir()):
        if (path / "SKILL.md").is_file():
            return path / "SKILL.md"
    sys.exit(f"no skill folder directly under {catalog}")


def bench_backend(db_for_run, catalog: Path, runs: int) -> dict:
    """`db_for_run(i)` gives a context manager yielding a fresh database URL or path."""
    first, again, changed, search = [], [], [], []
    skill_md = one_skill_md(catalog)
    original = skill_md.read_bytes()
    for run in range(runs):
        with db_for_run(run) as db:
            first.append(import_once(db, catalog))
            again.append(import_once(db, catalog))
            try:
                skill_md.write_bytes(original + f"\nChanged for run {run}.\n".encode())
                changed.append(import_once(db, catalog))
            finally:
                skill_md.write_bytes(original)
            done = subprocess.run([str(search_bin()), "--db", db], capture_output=True, check=True)
            search.append(json.loads(done.stdout))
    return {
        "import_s": common.median(first),
        "reimport_unchanged_s": common.median(again),
        "reimport_one_changed_s": common.median(changed),
        "search_p50_ms": common.median([s["p50_ms"] for s in search]),
        "search_p99_ms": common.median([s["p99_ms"] for s in search]),
        "search_hits_per_round": search[-1]["hits_per_round"],
    }


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


def markdown(catalog: str, count: int, results: dict) -> str:
    lines = [
        f"Store with {count:,} skills ({catalog}); medians of runs.",
        "",
        "| backend | import | re-import, nothing changed | re-import, one changed | search p50 | search p99 |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for backend, r in results.items():
        lines.append(
            f"| {backend} | {r['import_s']:.2f} s | {r['reimport_unchanged_s'] * 1000:.0f} ms "
            f"| {r['reimport_one_changed_s'] * 1000:.0f} ms | {r['search_p50_ms']:.2f} ms "
            f"| {r['search_p99_ms']:.2f} ms |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--postgres", help="also PostgreSQL at this URL (needs CREATE SCHEMA)")
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs takes a number of at least 1")
    catalog = args.catalog.resolve()
    count = sum(1 for p in catalog.iterdir() if (p / "SKILL.md").is_file())
    results = {"SQLite": bench_backend(SqliteDb, catalog, args.runs)}
    if args.postgres:
        results["PostgreSQL"] = bench_backend(
            lambda run: PostgresDb(args.postgres, run), catalog, args.runs
        )
    if args.format == "json":
        print(json.dumps({"skills": count, "backends": results}, indent=2))
    else:
        print(markdown(str(args.catalog), count, results))


if __name__ == "__main__":
    main()
