"""Every benchmark of BENCHMARKS.md in one run: the machine and versions, then each comparison
on the same data, as markdown tables (also written to `target/bench-results.md`).

Run it through `bench/run`, which builds the binaries first (the `profiling` profile). What is
measured so far is written after each part to `target/bench-results.partial.md` (and `.json`),
so a part that fails late loses nothing before it. `--smoke` runs every part
on tiny inputs with one repetition, to show the harness works (CI runs it; its numbers mean
nothing). Catalogs are generated once per size and seed into the data folder (`--data-dir`, or
`$SKILLPATH_BENCH_DATA`, default `~/.cache/skillpath-bench/catalogs`), which may be shared: see
`catalog`. The results go to `target/bench-results.md` and, with every figure of every part,
`target/bench-results.json`.

`--baseline REF` also measures skillpath as of REF (a commit, tag or branch of this repository),
built once into the cache folder (see `baseline.py`), and `--baseline-bin PATH` a build at hand:
the serving and store benchmarks then run it next to the current build and report
baseline ÷ current.
"""

from __future__ import annotations

import argparse
import json
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
import summary

HERE = Path(__file__).resolve().parent
POSTGRES = os.environ.get("SKILLPATH_TEST_POSTGRES") or "postgres://postgres@127.0.0.1:5432/test"
DATA = Path(os.environ.get("SKILLPATH_BENCH_DATA") or common.CACHE / "catalogs")


def run_script(script: str, *args: str) -> tuple[str, dict]:
    """Runs a benchmark script of this folder; returns its markdown and its JSON report."""
    with tempfile.NamedTemporaryFile(prefix="skillpath-bench-", suffix=".json") as report:
        command = [sys.executable, str(HERE / script), *args, "--format", "markdown",
                   "--json-out", report.name]
        print(f"bench: {' '.join(command[1:])}", file=sys.stderr)
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"bench: {script} failed (exit {done.returncode})")
        return done.stdout.strip(), json.loads(Path(report.name).read_text())


# The catalogs engineers share in one data folder, by these names: what `bench/run` makes
# with the default seed.
SHARED_NAMES = {(1_000, True): "catalog-1k", (10_000, True): "catalog-10k", (100_000, False): "catalog-100k"}
WAIT_IDLE_S = 600  # how long a catalog another process makes may stop growing before giving up


def catalog(data: Path, count: int, files: bool, seed: int = 1) -> Path:
    """A generated catalog of `count` skills in the data folder, made once.

    A catalog `<data>/<name>` is complete when `<data>/<name>.done` exists; `bench` makes it in
    a folder of its own beside it and renames that when it is whole, so a folder without its
    `.done` file is being made by another process (another `bench` run, or someone running
    `gen_catalog.py --out <data>/<name>` and then touching the file): it is waited for, never
    removed. The names are those of `SHARED_NAMES` (catalog-1k, catalog-10k with their files,
    catalog-100k without), else `catalog-<count>-<files|nofiles>-seed<seed>`."""
    name = SHARED_NAMES.get((count, files)) if seed == 1 else None
    name = name or f"catalog-{count}-{'files' if files else 'nofiles'}-seed{seed}"
    path, done = data / name, data / f"{name}.done"
    if done.is_file():
        return path
    if not path.exists():
        partial = data / f".{name}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        data.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, str(HERE / "gen_catalog.py"),
            "--count", str(count), "--out", str(partial), "--seed", str(seed),
        ]
        if not files:
            command.append("--no-files")
        print(f"bench: generating {count:,} skills into {path}", file=sys.stderr)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        try:
            partial.rename(path)
            done.touch()
            return path
        except OSError:  # another process made it meanwhile: use theirs
            shutil.rmtree(partial, ignore_errors=True)
    wait_for(path, done)
    return path


def wait_for(path: Path, done: Path) -> None:
    """Until `done` exists, while another process fills `path`; fails when `path` stops
    growing for WAIT_IDLE_S seconds (left behind by a process that was stopped)."""
    print(f"bench: {path} is being made by another process: waiting for {done}", file=sys.stderr)
    size, since = -1, time.monotonic()
    while not done.is_file():
        now = sum(1 for _ in os.scandir(path))
        if now != size:
            size, since = now, time.monotonic()
        elif time.monotonic() - since > WAIT_IDLE_S:
            sys.exit(f"bench: {path} has had {size} entries for {WAIT_IDLE_S} s and no {done.name}: "
                     "if nothing is making it any more, remove it")
        time.sleep(10)


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
    parser.add_argument("--out", type=Path, default=common.build_dir().parent / "bench-results.md",
                        help="the markdown report (the JSON goes beside it, as .json)")
    parser.add_argument("--data-dir", type=Path, default=DATA,
                        help=f"where the catalogs are made and found (default $SKILLPATH_BENCH_DATA or {DATA})")
    parser.add_argument("--sizes", metavar="SMALL,LARGE,HUGE",
                        help="the three catalog sizes (default 1000,10000,100000; --smoke 20,40,60): the "
                        "first two with their files, the third without")
    parser.add_argument("--no-huge", action="store_true",
                        help="leave out the largest catalog (its growth point, its store figures)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="REF",
                       help="also measure the build of this commit, tag or branch (built once, cached)")
    which.add_argument("--baseline-bin", type=Path, metavar="PATH",
                       help="also measure this skillpath binary (examples/ next to it, if any)")
    args = parser.parse_args()
    if args.smoke:  # the harness's own checks first
        subprocess.run([sys.executable, str(HERE / "test_harness.py")], check=True)
    builds = common.builds(args.baseline_bin)
    if args.baseline:
        builds.append(baseline.prepare(args.baseline))
    compare = ["--baseline-bin", str(builds[1].skillpath)] if len(builds) > 1 else []

    if args.smoke:
        sizes, runs, sample, duration, warmup, skillz_timeout = "20,40,60", "1", "5", "1", "1", "120"
    else:
        sizes, runs, sample, duration, warmup, skillz_timeout = "1000,10000,100000", "3", "300", "10", "2", "300"
    try:
        small, large, huge = (int(n) for n in (args.sizes or sizes).split(","))
    except ValueError:
        parser.error("--sizes takes three numbers, such as 1000,10000,100000")
    serve_args = ["--runs", runs, "--duration", duration, "--warmup", warmup,
                  "--skillz-timeout", skillz_timeout, *compare]

    sections = [f"# Benchmark results{' (smoke run: the numbers mean nothing)' if args.smoke else ''}", machine(builds)]
    results: dict = {"smoke": args.smoke, "builds": {b.name: b.label for b in builds}}
    reports: dict = {"sizes": {"small": small, "large": large, "huge": huge},
                     "serve": {}, "store": {}, "bytes": {}}
    partial = args.out.with_suffix(".partial.md")

    def checkpoint() -> None:
        """What the run has measured so far, written after each part (to `<out>.partial.md` and
        its JSON beside it), so that a part that fails late loses none of those before it."""
        partial.write_text("\n\n".join(sections) + "\n")
        partial.with_suffix(".json").write_text(json.dumps({**results, **reports}, indent=2) + "\n")

    with tempfile.TemporaryDirectory(prefix="skillpath-bench-") as temp:
        corpus = common.CORPUS if args.smoke else flat_corpus(Path(temp) / "corpus")
        catalogs = {"small": catalog(args.data_dir, small, True), "large": catalog(args.data_dir, large, True)}
        if not args.no_huge:
            catalogs["huge"] = catalog(args.data_dir, huge, False)
        for size, path in catalogs.items():
            reports["bytes"][size] = common.catalog_stats(path)["bytes"]

        sections.append("## Validation")
        results["validation"] = []
        for path, extra in ([] if args.smoke else [(corpus, "1000")]) + [(catalogs["large"], sample)]:
            text, report = run_script("validate_bench.py", "--catalog", str(path), "--runs", runs,
                                      "--cli-sample", extra, *compare)
            sections.append(text)
            results["validation"].append(report)
            checkpoint()

        sections.append("## Serving")
        for size in ("small", "large"):
            text, report = run_script("serve_bench.py", "--catalog", str(catalogs[size]), *serve_args)
            sections.append(text)
            reports["serve"][size] = report["catalogs"][0]
            checkpoint()
        if "huge" in catalogs:
            # The growth point: warm starts only (a cold start is an import of the whole
            # catalog, measured under Import), one tool per skill, without skillz (which does
            # not answer at a tenth of this size) or the HTTP load (the size does not change it).
            text, report = run_script("serve_bench.py", "--catalog", str(catalogs["huge"]), *serve_args,
                                      "--phases", "warm,store", "--modes", "per-skill",
                                      "--skip-http", "--no-skillz")
            sections.append(text)
            reports["serve"]["huge"] = report["catalogs"][0]
            checkpoint()
        sections += ["### How start and memory grow with the catalog", summary.growth(reports)]

        sections.append("## Many teams on one server")
        namespaces_args = ["--items", "60", "--namespaces", "6", "--runs", "1"] if args.smoke else []
        text, results["namespaces"] = run_script("namespaces_bench.py", *namespaces_args)
        sections.append(text)
        checkpoint()

        sections.append("## Studio")
        text, results["studio"] = run_script("studio_bench.py", "--catalog", str(catalogs["small"]),
                                             "--catalog", str(catalogs["large"]),
                                             "--requests", "5" if args.smoke else "200")
        sections.append(text)
        checkpoint()

        sections.append("## Search quality and trigger evals")
        # The static model the tests distil (scripts/test), when this machine has it: the
        # fused ranking's quality and what serving it costs at the large catalog.
        test_cache = Path(os.environ.get("SKILLPATH_TEST_CACHE") or Path.home() / ".cache" / "skillpath-test")
        model = Path(os.environ.get("SKILLPATH_TEST_EMBEDDINGS") or test_cache / "static-minilm")
        with_model = ["--embeddings", str(model), "--catalog", str(catalogs["large"]),
                      "--requests", "5" if args.smoke else "200"] if (model / "config.json").is_file() else []
        text, results["eval"] = run_script("eval_bench.py", "--corpus", str(common.CORPUS),
                                           "--runs", runs, *with_model, *compare)
        sections.append(text)
        checkpoint()

        sections.append("## Import and search")
        # PostgreSQL imports about 440 skills/s, so 100,000 skills take minutes per import:
        # the largest catalog runs on SQLite, once.
        text, reports["store"]["large"] = run_script("store_bench.py", "--catalog", str(catalogs["large"]),
                                                     "--runs", runs, "--postgres", POSTGRES, *compare)
        sections.append(text)
        checkpoint()
        if "huge" in catalogs:
            text, reports["store"]["huge"] = run_script("store_bench.py", "--catalog", str(catalogs["huge"]),
                                                        "--runs", "1", *compare)
            sections.append(text)
            checkpoint()

        sections.append("## Audit")
        # Cisco's scanner brings a large environment (an LLM client, ONNX, YARA): the smoke run
        # leaves it out.
        audit_args = ["--runs", runs, *(["--no-scanner"] if args.smoke else [])]
        text, results["audit"] = run_script("audit_bench.py", "--catalog", str(corpus),
                                            "--catalog", str(catalogs["large"]), *audit_args)
        sections.append(text)
        checkpoint()

        sections.append("## Install")
        # The skills CLI comes from npm: the smoke run uses it only when it is already installed
        # (it never goes to the network), on three skills.
        text, report = run_script("install_bench.py", *(["--smoke"] if args.smoke else []))
        sections.append(text)
        results["install"] = report["install"]
        checkpoint()

        sections.append("## Write throughput, PostgreSQL vs SQLite")
        results["write_throughput"] = {}
        for build in builds:
            writes = build.example("write_throughput")
            if writes is None:
                continue
            command = [str(writes), "--postgres", common.libpq_url(POSTGRES), "--format", "json"]
            if args.smoke:
                command += ["--skills", "40", "--runs", "1", "--writers", "1,2"]
            print(f"bench: {' '.join(command)}", file=sys.stderr)
            results["write_throughput"][build.name] = json.loads(
                subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout)
        sections.append(write_markdown(results["write_throughput"]))
        checkpoint()

    sections[2:2] = ["## Headline", summary.headline(reports, len(builds) > 1)]
    results.update(reports)
    text = "\n\n".join(sections) + "\n"
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    print(text)
    partial.unlink(missing_ok=True)
    partial.with_suffix(".json").unlink(missing_ok=True)
    print(f"bench: written to {args.out} and {args.out.with_suffix('.json')}", file=sys.stderr)


def write_markdown(reports: dict) -> str:
    """The write throughput of each build (per second, SQLite and PostgreSQL), with baseline ÷
    current inverted for throughput: current / baseline, above 1 when the current build writes
    faster."""
    current, base = reports["skillpath"], reports.get("baseline")
    setup = current["setup"]
    lines = [
        f"{setup.get('skills', '?')} skills, medians of {setup.get('runs', '?')} runs (`write_throughput`); "
        "per second" + ("; current ÷ baseline: above 1, the current build writes faster" if base else "") + ":",
        "",
        "| writes | writers | SQLite | PostgreSQL | PostgreSQL / SQLite |"
        + (" SQLite, baseline | PostgreSQL, baseline | current ÷ baseline (SQLite / PostgreSQL) |" if base else ""),
        "|---|--:|--:|--:|--:|" + ("--:|--:|--:|" if base else ""),
    ]
    theirs = {(r["measurement"], r["writers"]): r["per_second"] for r in (base or {}).get("results", [])}
    for row in current["results"]:
        ours = row["per_second"]
        line = (f"| {row['measurement']} | {row['writers']} | {summary.value(ours['sqlite'], '')} | "
                f"{summary.value(ours['postgres'], '')} | {common.times(ours['ratio'], 2)} |")
        if base:
            other = theirs.get((row["measurement"], row["writers"]), {})
            line += (f" {summary.value(other.get('sqlite'), '')} | {summary.value(other.get('postgres'), '')} | "
                     f"{common.times(common.ratio_num(ours['sqlite'], other.get('sqlite')), 2)} / "
                     f"{common.times(common.ratio_num(ours['postgres'], other.get('postgres')), 2)} |")
        lines.append(line)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
