"""Validation: `skillpath validate -r` against the reference validator (skills-ref 0.1.1) on
the same folder of skills, in one run.

The reference is run the two ways a user runs it: its CLI once per skill (`agentskills
validate DIR`, in a loop, as a shell script or CI job does), and its Python API in one process
(`skills_ref.validator.validate` over every folder, interpreter start and import included).
skillpath runs once over the whole tree, in `skills-ref` mode (the reference's rules and
messages, so both do the same work) and in its default `spec` mode (more rules, plus lints).

Usage: python3 bench/validate_bench.py --catalog DIR [--runs 3] [--cli-sample 300]
                                        [--baseline-bin PATH] [--format json|markdown] [--json-out FILE]

The CLI loop over 10,000 skills would take about 20 minutes, so it runs over a sample of
`--cli-sample` skills spread evenly over the catalog (all of them when there are fewer), and the
per-skill time is that sample's mean. Everything else runs over every skill, `--runs` times;
the median is reported.

With `--baseline-bin PATH` (an earlier build's `skillpath`), its `validate -r` is timed the same
way in both modes, the builds taking turns within each run, and reported as baseline ÷ current
(above 1, the current build is faster).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import common

API_SCRIPT = """
import sys, time
start = time.perf_counter()
from skills_ref.validator import validate
problems = 0
for line in sys.stdin:
    problems += bool(validate(__import__("pathlib").Path(line.rstrip("\\n"))))
print(time.perf_counter() - start, problems)
"""


def skill_dirs(catalog: Path) -> list[Path]:
    """Every folder with a SKILL.md under `catalog`, in path order."""
    return sorted({p.parent for p in catalog.rglob("SKILL.md") if p.is_file()})


def timed(command: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, **kwargs)
    return time.perf_counter() - start, done


MODES = ("skills-ref", "spec")


def bench(catalog: Path, runs: int, cli_sample: int, builds: list[common.Build]) -> dict:
    skills = skill_dirs(catalog)
    if not skills:
        sys.exit(f"no skills under {catalog}")
    venv = common.tools_venv()
    results: dict = {"skills": len(skills)}

    for mode in MODES:
        times: dict[str, list[float]] = {build.name: [] for build in builds}
        for _ in range(runs):
            for build in builds:
                seconds, done = timed([str(build.skillpath), "validate", "-r", str(catalog), "--mode", mode])
                if done.returncode not in (0, 1):
                    sys.exit(f"{build.name} validate failed: {done.stderr.decode()[-2000:]}")
                times[build.name].append(seconds)
        results[f"skillpath_{mode}_s"] = common.median(times["skillpath"])
        if "baseline" in times:
            results.setdefault("baseline", {})[f"{mode}_s"] = common.median(times["baseline"])
    if "baseline" in results:
        results["baseline_ratios"] = {
            mode: common.ratio_num(results["baseline"][f"{mode}_s"], results[f"skillpath_{mode}_s"])
            for mode in MODES
        }

    api_times, api_inner = [], []
    listing = "".join(f"{d}\n" for d in skills).encode()
    for _ in range(runs):
        seconds, done = timed([str(venv / "bin" / "python"), "-c", API_SCRIPT], input=listing)
        if done.returncode != 0:
            sys.exit(f"the reference API failed: {done.stderr.decode()[-2000:]}")
        api_times.append(seconds)
        api_inner.append(float(done.stdout.split()[0]))
    results["reference_api_s"] = common.median(api_times)
    results["reference_api_loop_s"] = common.median(api_inner)

    step = max(1, len(skills) // min(cli_sample, len(skills)))
    sample = skills[::step][:cli_sample]
    cli = str(venv / "bin" / "agentskills")
    start = time.perf_counter()
    for skill in sample:
        subprocess.run([cli, "validate", str(skill)], capture_output=True)
    results["reference_cli_sample"] = len(sample)
    results["reference_cli_per_skill_ms"] = (time.perf_counter() - start) * 1000 / len(sample)

    def per_skill(seconds: float) -> float:
        return seconds * 1000 / len(skills)

    results["per_skill_ms"] = {
        "skillpath (skills-ref mode)": per_skill(results["skillpath_skills-ref_s"]),
        "skillpath (spec mode, lints)": per_skill(results["skillpath_spec_s"]),
        "reference API, one process": per_skill(results["reference_api_s"]),
        "reference CLI, per skill": results["reference_cli_per_skill_ms"],
    }
    return results


def markdown(catalog: str, results: dict) -> str:
    ours = results["per_skill_ms"]["skillpath (skills-ref mode)"]
    lines = [
        f"Validation of {results['skills']:,} skills ({catalog}); per skill, median of runs; "
        f"ratio = time of the tool / time of `skillpath validate -r --mode skills-ref`.",
        "",
        "| tool | per skill | whole catalog | ratio |",
        "|---|--:|--:|--:|",
    ]
    for name, ms in results["per_skill_ms"].items():
        whole = ms * results["skills"] / 1000
        lines.append(f"| {name} | {ms:.3f} ms | {whole:,.2f} s | {common.ratio(ms, ours)} |")
    lines.append(
        f"\nThe CLI ran over {results['reference_cli_sample']} skills spread over the catalog; "
        "its whole-catalog time is that per-skill mean times the catalog."
    )
    if "baseline" in results:
        lines += [
            "",
            "| `skillpath validate -r` | current | baseline | baseline ÷ current |",
            "|---|--:|--:|--:|",
        ]
        for mode in MODES:
            lines.append(f"| `--mode {mode}` | {results[f'skillpath_{mode}_s']:,.2f} s | "
                         f"{results['baseline'][f'{mode}_s']:,.2f} s | "
                         f"**{common.times(results['baseline_ratios'][mode], 2)}** |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-sample", type=int, default=300)
    parser.add_argument("--format", choices=("json", "markdown"), default="json")
    parser.add_argument("--json-out", type=Path, help="also write the JSON report to this file")
    common.baseline_arg(parser)
    args = parser.parse_args()
    if args.runs < 1 or args.cli_sample < 1:
        parser.error("--runs and --cli-sample take a number of at least 1")
    results = bench(args.catalog.resolve(), args.runs, args.cli_sample, common.builds(args.baseline_bin))
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n")
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        print(markdown(str(args.catalog), results))


if __name__ == "__main__":
    main()
