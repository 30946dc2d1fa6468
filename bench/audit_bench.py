"""The audit: what it costs per skill, what it adds to an import, and how it compares with a
scanner a user would otherwise run.

Usage: python3 bench/audit_bench.py --catalog DIR [--catalog DIR ...] [--runs 3]
    [--scanner-sample N] [--no-scanner] [--format json|markdown] [--json-out FILE]

For each catalog (the shared corpus, a generated one):

- `skillpath audit DIR --format json --fail-on none`, end to end as a user runs it (finding the
  folders, reading them, auditing on every core, printing), its median over `--runs`, per skill;
- `skillpath import DIR` into an empty SQLite database with `--audit-policy off`, `warn` (the
  default: the audit runs beside the import's writer) and `block-high` (the audit runs before
  the transaction, which needs its verdicts), taken in turn, each median over `--runs`: what
  the audit on the way in adds to an import, as a share of the import without it;
- Cisco's `skill-scanner` (`cisco-ai-skill-scanner` from PyPI, installed on first use into the
  benchmark cache; its static analyzers only, offline: no LLM, no VirusTotal, no cloud), over the
  first `--scanner-sample` skill folders of the catalog (sorted; all of them for the corpus), one
  `scan-all` run, and skillpath's audit over the same folders: seconds per skill side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import common

SCANNER = "cisco-ai-skill-scanner==2.3.2"


def scanner_venv() -> Path | None:
    """The virtual environment with Cisco's scanner, installed on first use; None when it cannot
    be installed (said on stderr)."""
    home = common.CACHE / "skill-scanner"
    marker = home / ".installed"
    if marker.is_file() and marker.read_text() == SCANNER:
        return home
    print(f"bench: installing {SCANNER} into {home}", file=sys.stderr)
    venv.create(home, with_pip=True, clear=True)
    done = subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", SCANNER])
    if done.returncode != 0:
        print(f"bench: {SCANNER} did not install; it is left out", file=sys.stderr)
        return None
    marker.write_text(SCANNER)
    return home


def skill_folders(catalog: Path) -> list[Path]:
    """Every folder with a `SKILL.md` under `catalog`, sorted."""
    return sorted(path.parent for path in catalog.rglob("SKILL.md"))


def timed(command: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"bench: {' '.join(command[:3])} failed (exit {done.returncode}): "
                 f"{done.stderr.decode(errors='replace')[-2000:]}")
    return seconds


def audit_seconds(skillpath: Path, folder: Path, runs: int) -> float:
    return common.median([
        timed([str(skillpath), "audit", str(folder), "--format", "json", "--fail-on", "none"])
        for _ in range(runs)
    ])


def import_seconds(skillpath: Path, folder: Path, policies: list[str], runs: int) -> dict[str, float]:
    """The median import time under each policy, the policies taken in turn within each run
    (so that a machine that slows down or speeds up over the runs weighs on all alike)."""
    seconds: dict[str, list[float]] = {policy: [] for policy in policies}
    for _ in range(runs):
        for policy in policies:
            with tempfile.TemporaryDirectory(prefix="skillpath-audit-bench-") as temp:
                seconds[policy].append(timed([str(skillpath), "import", str(folder), "--db",
                                              f"{temp}/store.db", "--audit-policy", policy,
                                              "--format", "json"]))
    return {policy: common.median(values) for policy, values in seconds.items()}


def sample(folders: list[Path], count: int, into: Path) -> Path:
    """The first `count` of `folders` as one flat folder of copies (the scanner's `scan-all`
    reads one folder of skills)."""
    into.mkdir(parents=True)
    for index, folder in enumerate(folders[:count]):
        shutil.copytree(folder, into / f"{index:05}-{folder.name}", symlinks=True)
    return into


def scanner_seconds(scanner: Path, folder: Path) -> tuple[float, int]:
    """One `scan-all` of `folder` with the static analyzers only, and how many findings it
    reported."""
    report = folder.parent / "scanner-report.json"
    command = [str(scanner / "bin" / "skill-scanner"), "scan-all", str(folder), "--format", "json",
               "--output", str(report)]
    env = {**os.environ, "NO_COLOR": "1"}
    seconds = timed(command, env)
    findings = 0
    try:
        document = json.loads(report.read_text())
        results = document.get("results", document if isinstance(document, list) else [])
        for result in results:
            findings += len(result.get("findings", []))
    except (OSError, ValueError, AttributeError):
        findings = -1
    return seconds, findings


def audited(skillpath: Path, folder: Path) -> int:
    """How many skills `skillpath audit` finds under `folder` (a skill folder inside another
    skill's files is not one)."""
    done = subprocess.run([str(skillpath), "audit", str(folder), "--format", "json", "--fail-on", "none"],
                          capture_output=True, text=True)
    return json.loads(done.stdout)["summary"]["skills"]


def measure(skillpath: Path, catalog: Path, runs: int, scanner: Path | None, scanner_sample: int) -> dict:
    folders = skill_folders(catalog)
    count = audited(skillpath, catalog)
    audit = audit_seconds(skillpath, catalog, runs)
    imports = import_seconds(skillpath, catalog, ["off", "warn", "block-high"], runs)
    off, warn, block = imports["off"], imports["warn"], imports["block-high"]
    figures = {
        "catalog": catalog.name,
        "skills": count,
        "audit_s": round(audit, 3),
        "audit_ms_per_skill": round(audit / count * 1000, 3),
        "import_off_s": round(off, 3),
        "import_warn_s": round(warn, 3),
        "import_added_share": round((warn - off) / off, 3),
        "import_block_high_s": round(block, 3),
        "import_block_high_added_share": round((block - off) / off, 3),
    }
    if scanner is not None:
        with tempfile.TemporaryDirectory(prefix="skillpath-audit-bench-") as temp:
            sampled = sample(folders, min(scanner_sample, len(folders)), Path(temp) / "skills")
            n = audited(skillpath, sampled)
            theirs, theirs_findings = scanner_seconds(scanner, sampled)
            ours = audit_seconds(skillpath, sampled, runs)
            figures["scanner"] = {
                "skills": n,
                "skill_scanner_s": round(theirs, 3),
                "skill_scanner_findings": theirs_findings,
                "skillpath_s": round(ours, 3),
                "skill_scanner_ms_per_skill": round(theirs / n * 1000, 2),
                "skillpath_ms_per_skill": round(ours / n * 1000, 3),
                "ratio": common.ratio_num(theirs, ours),
            }
    return figures


def markdown(rows: list[dict]) -> str:
    lines = [
        "| catalog | skills | `audit`, per skill | import, `--audit-policy off` | `warn` (default) | `block-high` |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['catalog']} | {row['skills']:,} | {row['audit_ms_per_skill']:.2f} ms "
            f"| {row['import_off_s']:.2f} s "
            f"| {row['import_warn_s']:.2f} s ({row['import_added_share'] * 100:+.1f} %) "
            f"| {row['import_block_high_s']:.2f} s ({row['import_block_high_added_share'] * 100:+.1f} %) |")
    scanned = [row for row in rows if "scanner" in row]
    if scanned:
        lines += [
            "",
            "| catalog | skills scanned | Cisco skill-scanner (static) | skillpath `audit` | ratio |",
            "|---|--:|--:|--:|--:|",
        ]
        for row in scanned:
            s = row["scanner"]
            lines.append(
                f"| {row['catalog']} | {s['skills']:,} | {s['skill_scanner_s']:.2f} s "
                f"({s['skill_scanner_ms_per_skill']:.1f} ms/skill) | {s['skillpath_s']:.2f} s "
                f"({s['skillpath_ms_per_skill']:.2f} ms/skill) | {common.times(s['ratio'])} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, action="append", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scanner-sample", type=int, default=1000,
                        help="how many skill folders of each catalog the scanner reads (default 1000)")
    parser.add_argument("--no-scanner", action="store_true", help="leave Cisco's scanner out")
    parser.add_argument("--format", choices=("json", "markdown"), default="markdown")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    skillpath = common.skillpath_bin()
    scanner = None if args.no_scanner else scanner_venv()
    rows = [measure(skillpath, catalog, args.runs, scanner, args.scanner_sample)
            for catalog in args.catalog]
    report = {"audit": rows}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2) if args.format == "json" else markdown(rows))


if __name__ == "__main__":
    main()
