"""Every benchmark of BENCHMARKS.md in one run: the machine and versions, then each comparison
on the same data, as markdown tables (also written to `target/bench-results.md`).

Run it through `bench/run`, which builds the binaries first (the `profiling` profile). `--smoke` runs every part
on tiny inputs with one repetition, to show the harness works (CI runs it; its numbers mean
nothing). Catalogs are generated once per size and seed into the cache folder
(`$SKILLPATH_BENCH_CACHE`, default `~/.cache/skillpath-bench/catalogs`).

`--baseline REF` also measures skillpath as of REF (a commit, tag or branch of this repository),
built once into the cache folder (see `baseline.py`), and `--baseline-bin PATH` a build at hand:
the serving and store benchmarks then run it next to the current build and report
baseline ÷ current.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import baseline
import common

HERE = Path(__file__).resolve().parent
POSTGRES = os.environ.get("SKILLPATH_TEST_POSTGRES") or "postgres://postgres@127.0.0.1:5432/test"


def run_script(script: str, *args: str) -> str:
    """Runs a benchmark script of this folder and returns its markdown."""
    command = [sys.executable, str(HERE / script), *args, "--format", "markdown"]
    print(f"bench: {' '.join(command[1:])}", file=sys.stderr)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: {script} failed (exit {done.returncode})")
    return done.stdout.strip()


def catalog(count: int, files: bool, seed: int = 1) -> Path:
    """A generated catalog of `count` skills, made once and kept in the cache."""
    name = f"{count}-{'files' if files else 'nofiles'}-seed{seed}"
    path = common.CACHE / "catalogs" / name
    marker = path / ".complete"
    if marker.is_file():
        return path
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, str(HERE / "gen_catalog.py"),
        "--count", str(count), "--out", str(path), "--seed", str(seed),
    ]
    if not files:
        command.append("--no-files")
    print(f"bench: generating {count:,} skills into {path}", file=sys.stderr)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    marker.write_text("")
    return path


def flat_corpus(into: Path) -> Path:
    """The shared corpus as one flat folder of skills (the first of two with one folder name),
    which every tool can read: skillz expects skills under one root."""
    for skill_md in sorted(common.CORPUS.rglob("SKILL.md")):
        target = into / skill_md.parent.name
        if not target.exists():
            shutil.copytree(skill_md.parent, target, symlinks=True)
    return into


def version(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        return (done.stdout or done.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "not found"


def machine(builds: list[common.Build]) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    venv = common.tools_venv()
    python = platform.python_version()
    def package(name: str) -> str:
        """The installed version of a package of the tools' environment."""
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "show", name],
            capture_output=True, text=True,
        )
        for line in done.stdout.splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
        return "not installed"

    rows = [
        ("machine", f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"),
        ("skillpath", version([str(builds[0].skillpath), "--version"])),
        *(("baseline", f"{version([str(b.skillpath), '--version'])}, {b.label}") for b in builds[1:]),
        ("rustc", version(["rustc", "--version"])),
        ("reference validator", f"skills-ref {package('skills-ref')} on Python {python}"),
        ("skillz", f"skillz {package('skillz')} on Python {python} (it asks for 3.12)"),
        ("PostgreSQL", version(["psql", "--version"])),
        ("date", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
    ]
    return "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny inputs, one repetition")
    parser.add_argument("--out", type=Path, default=common.build_dir().parent / "bench-results.md")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="REF",
                       help="also measure the build of this commit, tag or branch (built once, cached)")
    which.add_argument("--baseline-bin", type=Path, metavar="PATH",
                       help="also measure this skillpath binary (examples/ next to it, if any)")
    args = parser.parse_args()
    builds = common.builds(args.baseline_bin)
    if args.baseline:
        builds.append(baseline.prepare(args.baseline))
    compare = ["--baseline-bin", str(builds[1].skillpath)] if len(builds) > 1 else []

    if args.smoke:
        small, large, huge, runs, sample, duration = 20, 40, 60, "1", "5", "1"
    else:
        small, large, huge, runs, sample, duration = 1_000, 10_000, 100_000, "3", "300", "10"

    sections = [f"# Benchmark results{' (smoke run: the numbers mean nothing)' if args.smoke else ''}", machine(builds)]
    with tempfile.TemporaryDirectory(prefix="skillpath-bench-") as temp:
        corpus = common.CORPUS if args.smoke else flat_corpus(Path(temp) / "corpus")
        small_catalog, large_catalog = catalog(small, True), catalog(large, True)
        huge_catalog = catalog(huge, False)

        sections.append("## Validation")
        if not args.smoke:
            sections.append(run_script("validate_bench.py", "--catalog", str(corpus),
                                       "--runs", runs, "--cli-sample", "1000"))
        sections.append(run_script("validate_bench.py", "--catalog", str(large_catalog),
                                   "--runs", runs, "--cli-sample", sample))

        sections.append("## Serving")
        for each in (small_catalog, large_catalog):
            sections.append(run_script("serve_bench.py", "--catalog", str(each), "--runs", runs,
                                       "--duration", duration, *compare))

        sections.append("## Import and search")
        # PostgreSQL imports about 440 skills/s, so 100,000 skills take minutes per import:
        # the largest catalog runs on SQLite, once.
        sections.append(run_script("store_bench.py", "--catalog", str(large_catalog),
                                   "--runs", runs, "--postgres", POSTGRES, *compare))
        sections.append(run_script("store_bench.py", "--catalog", str(huge_catalog),
                                   "--runs", "1", *compare))

        sections.append("## Write throughput, PostgreSQL vs SQLite")
        writes = common.build_dir() / "examples" / "write_throughput"
        command = [str(writes), "--postgres", POSTGRES, "--format", "markdown"]
        if args.smoke:
            command += ["--skills", "40", "--runs", "1", "--writers", "1,2"]
        print(f"bench: {' '.join(command)}", file=sys.stderr)
        sections.append(subprocess.run(command, check=True, stdout=subprocess.PIPE,
                                       text=True).stdout.strip())

    text = "\n\n".join(sections) + "\n"
    args.out.write_text(text)
    print(text)
    print(f"bench: written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
