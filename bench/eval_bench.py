"""Search quality and the cost of trigger evals: how often skillpath's search ranks the right
skill first, over the shared corpus, for the labelled queries of `bench/search-quality`.

Usage: python3 bench/eval_bench.py [--corpus DIR] [--queries FILE] [--runs 3]
    [--baseline-bin PATH] [--format json|markdown] [--json-out FILE]

For each build (this tree's, and a baseline's with `--baseline-bin`, so a ranking change is
measured against the ranking before it on the same queries):

- `skillpath eval triggers CORPUS --queries FILE --format json`, end to end as a user runs it
  (reading the corpus into a temporary store, ranking every query with the store's search,
  scoring): recall@1, recall@5 and MRR of the labelled skill, how many of the queries without a
  right skill matched nothing, and the median wall time over `--runs`;
- `skillpath eval overlap CORPUS --format json`: how many pairs of descriptions compete, and its
  median wall time.

There is no offline tool to run beside it: skill-creator's trigger evals run a live model on
one skill at a time (minutes per skill), which this machine cannot do.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import common

QUERIES = common.ROOT / "bench" / "search-quality" / "queries.json"


def timed(command: list[str]) -> tuple[float, dict]:
    """Runs `command` (which prints JSON); its wall time and its output."""
    started = time.perf_counter()
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def measure(build: common.Build, corpus: Path, queries: Path, runs: int) -> dict:
    triggers = [str(build.skillpath), "eval", "triggers", str(corpus), "--queries", str(queries),
                "--format", "json"]
    overlap = [str(build.skillpath), "eval", "overlap", str(corpus), "--format", "json"]
    print(f"bench: {' '.join(triggers)}", file=sys.stderr)
    trigger_times, report = [], {}
    for _ in range(runs):
        elapsed, report = timed(triggers)
        trigger_times.append(elapsed)
    overlap_times, pairs = [], {}
    for _ in range(runs):
        elapsed, pairs = timed(overlap)
        overlap_times.append(elapsed)
    summary = report["summary"]
    return {
        "build": build.name,
        "label": build.label,
        "library": report["library"],
        "queries": summary["queries"],
        "answerable": summary["answerable"],
        "recall_at_1": summary["recall_at_1"],
        "recall_at_5": summary["recall_at_5"],
        "mrr": summary["mrr"],
        "unanswerable": summary["unanswerable"],
        "unanswered": summary["unanswered"],
        "triggers_s": common.median(trigger_times),
        "overlap_pairs": len(pairs["overlaps"]),
        "overlap_s": common.median(overlap_times),
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        f"{rows[0]['queries']} labelled queries over {rows[0]['library']} skills of the shared corpus "
        f"({rows[0]['answerable']} with a right skill, {rows[0]['unanswerable']} without):",
        "",
        "| build | recall@1 | recall@5 | MRR | no-answer queries that matched nothing | `eval triggers` | per query | `eval overlap` (pairs) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['label']} | {row['recall_at_1']:.3f} | {row['recall_at_5']:.3f} | {row['mrr']:.3f} "
            f"| {row['unanswered']} of {row['unanswerable']} | {row['triggers_s']:.2f} s "
            f"| {1000 * row['triggers_s'] / row['queries']:.1f} ms | {row['overlap_s']:.2f} s ({row['overlap_pairs']}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=common.CORPUS)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", choices=["json", "markdown"], default="markdown")
    parser.add_argument("--json-out", type=Path)
    common.baseline_arg(parser)
    args = parser.parse_args()
    rows = [measure(build, args.corpus, args.queries, args.runs) for build in common.builds(args.baseline_bin)]
    report = {"eval": rows}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2) if args.format == "json" else markdown(rows))


if __name__ == "__main__":
    main()
