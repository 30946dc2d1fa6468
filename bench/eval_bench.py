"""Search quality and the cost of trigger evals: how often skillpath's search ranks the right
skill first, over the shared corpus, for the labelled queries of `bench/search-quality`.

Usage: python3 bench/eval_bench.py [--corpus DIR] [--queries FILE] [--runs 3]
    [--embeddings MODEL_DIR [--catalog DIR] [--requests 200]]
    [--baseline-bin PATH] [--format json|markdown] [--json-out FILE]

For each build (this tree's, and a baseline's with `--baseline-bin`, so a ranking change is
measured against the ranking before it on the same queries):

- `skillpath eval triggers CORPUS --queries FILE --format json`, end to end as a user runs it
  (reading the corpus into a temporary store, ranking every query with the store's search,
  scoring): recall@1, recall@5 and MRR of the labelled skill, how many of the queries without a
  right skill matched nothing, and the median wall time over `--runs`;
- `skillpath eval overlap CORPUS --format json`: how many pairs of descriptions compete, and its
  median wall time.

With `--embeddings` (a static model's folder, `bench/embedding/distill.py`), for each build that
takes the flag:

- the same `eval triggers` with `--embeddings`: the search fused with the model's ranking;
- with `--catalog`, what serving that ranking costs: the catalog imported into a store, then
  `skillpath serve --stateless --http` on it without and with `--embeddings`, each timed from
  its spawn to the line saying where it listens (the catalog, and its vectors, are loaded
  before), then `--requests` `search_skills` calls over one kept-alive connection (the labelled
  queries in turn: round trip p50 and p99), and the server's peak resident memory.

There is no offline tool to run beside it: skill-creator's trigger evals run a live model on
one skill at a time (minutes per skill), which this machine cannot do.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
import studio_bench

QUERIES = common.ROOT / "bench" / "search-quality" / "queries.json"


def timed(command: list[str]) -> tuple[float, dict]:
    """Runs `command` (which prints JSON); its wall time and its output."""
    started = time.perf_counter()
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def takes_embeddings(build: common.Build) -> bool:
    """Whether the build ranks with a model (`serve --embeddings`)."""
    done = subprocess.run([str(build.skillpath), "serve", "--help"], stdout=subprocess.PIPE, text=True)
    return "--embeddings" in done.stdout


def measure(build: common.Build, corpus: Path, queries: Path, runs: int, *extra: str) -> dict:
    triggers = [str(build.skillpath), "eval", "triggers", str(corpus), "--queries", str(queries),
                "--format", "json", *extra]
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
        "label": build.label + (" + `--embeddings`" if extra else ""),
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


def serving(build: common.Build, catalog: Path, model: Path, queries: list[str], requests: int) -> list[dict]:
    """`search_skills` served without and with the model, on one store of `catalog`."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="skillpath-eval-bench-") as temp:
        store = Path(temp) / "store.db"
        studio_bench.import_into(build.skillpath, catalog, store)
        for label, extra in (("the search", []), ("the search + the model", ["--embeddings", str(model)])):
            print(f"bench: serve {catalog.name} {' '.join(extra)}", file=sys.stderr)
            started = time.perf_counter()
            process, address = studio_bench.serve(build.skillpath, store, *extra)
            start_s = time.perf_counter() - started
            try:
                client = studio_bench.Client(address)
                asked = [queries[i % len(queries)] for i in range(requests)]
                times = [client.mcp("tools/call", {"name": "search_skills", "arguments": {"query": query}})
                         for query in asked]
                rows.append({
                    "build": build.name,
                    "label": label,
                    "skills": len(studio_bench.skill_names(catalog)),
                    "start_s": start_s,
                    **studio_bench.summarize(times),
                    "peak_rss_mb": common.peak_rss_mb(process.pid),
                })
            finally:
                process.terminate()
                process.wait(timeout=30)
    return rows


def markdown(rows: list[dict], served: list[dict]) -> str:
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
    if served:
        lines += [
            "",
            f"`search_skills` served from a store of {served[0]['skills']} skills (the labelled queries in turn):",
            "",
            "| ranking | start to listening | round trip p50 | p99 | peak memory |",
            "|---|--:|--:|--:|--:|",
        ]
        for row in served:
            rss = f"{row['peak_rss_mb']:.0f} MB" if row["peak_rss_mb"] is not None else "–"
            lines.append(f"| {row['label']} | {row['start_s']:.2f} s | {row['p50']:.2f} ms | {row['p99']:.2f} ms | {rss} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=common.CORPUS)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embeddings", type=Path, help="a static model's folder: also rank with it")
    parser.add_argument("--catalog", type=Path, help="with --embeddings: a catalog to serve with and without it")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--format", choices=["json", "markdown"], default="markdown")
    parser.add_argument("--json-out", type=Path)
    common.baseline_arg(parser)
    args = parser.parse_args()
    rows, served = [], []
    for build in common.builds(args.baseline_bin):
        rows.append(measure(build, args.corpus, args.queries, args.runs))
        if args.embeddings and takes_embeddings(build):
            rows.append(measure(build, args.corpus, args.queries, args.runs, "--embeddings", str(args.embeddings)))
            if args.catalog and build.name == "skillpath":
                queries = [row["query"] for row in json.loads(args.queries.read_text())]
                served = serving(build, args.catalog, args.embeddings, queries, args.requests)
    report = {"eval": rows, "served": served}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2) if args.format == "json" else markdown(rows, served))


if __name__ == "__main__":
    main()
