"""The tables `bench.py` builds from the other scripts' JSON reports, to paste into
BENCHMARKS.md: the headline figures against their targets, and how start time and memory grow
with the catalog.

Both put the current build beside the baseline (when one was measured) as baseline ÷ current:
above 1, the current build is better.
"""

from __future__ import annotations

import common

# The headline rows: a label, where the figure is in the reports (a function of the reports and
# a build name, None when not measured), its unit, and the target (below it is met).
Reports = dict  # {"serve": {size: serve report}, "store": {size: store report}, "sizes": {...}}


def _start(reports: Reports, size: str, phase: str, figure: str):
    def get(build: str):
        entry = reports["serve"].get(size)
        if entry is None or build not in entry["servers"]:
            return None
        start = entry["servers"][build]["start"].get("per-skill", {}).get(phase)
        return None if start is None else start[figure]
    return get


def _store(reports: Reports, size: str, backend: str, figure: str, scale: float = 1.0):
    def get(build: str):
        result = reports["store"].get(size)
        if result is None:
            return None
        figures = result["backends"] if build == "skillpath" else result.get("baseline")
        value = (figures or {}).get(backend, {}).get(figure)
        return None if value is None else value * scale
    return get


def _http(reports: Reports, size: str, clients: int, figure: str):
    def get(build: str):
        entry = reports["serve"].get(size)
        http = entry and entry["servers"].get(build, {}).get("http")
        if not http:
            return None
        return next((row[figure] for row in http["rows"] if row["clients"] == clients), None)
    return get


def headline_rows(reports: Reports) -> list[tuple[str, object, str, float | None]]:
    """The rows of issue 18's table, at the run's sizes."""
    sizes = reports["sizes"]
    large, huge = sizes["large"], sizes["huge"]
    n = f"{large:,} skills"
    return [
        (f"`serve` start to a complete `tools/list`, per-skill, with the folder sync, warm ({n})",
         _start(reports, "large", "warm", "median_ms"), "ms", 200),
        (f"the same, cold: a new store ({n})", _start(reports, "large", "cold", "median_ms"), "ms", None),
        (f"the same from the store alone ({n})", _start(reports, "large", "store", "median_ms"), "ms", 100),
        (f"peak memory (RSS), start with the folder sync, warm ({n})",
         _start(reports, "large", "warm", "peak_mb"), "MB", 150),
        (f"peak memory (RSS), start from the store alone ({n})",
         _start(reports, "large", "store", "peak_mb"), "MB", 150),
        (f"`import` into SQLite ({n}, {reports['bytes']['large'] / 1e6:,.0f} MB)",
         _store(reports, "large", "SQLite", "import_s"), "s", 5),
        (f"re-import with one change, SQLite ({n})",
         _store(reports, "large", "SQLite", "reimport_one_changed_s", 1000), "ms", 500),
        (f"search p50, SQLite ({huge:,} skills)", _store(reports, "huge", "SQLite", "search_p50_ms"), "ms", 10),
        (f"search p99, SQLite ({huge:,} skills)", _store(reports, "huge", "SQLite", "search_p99_ms"), "ms", 50),
        (f"import into PostgreSQL ({n})", _store(reports, "large", "PostgreSQL", "import_s"), "s", 10),
        (f"`tools/call` over HTTP, 8 clients, p99 ({n})", _http(reports, "large", 8, "p99_ms"), "ms", 2),
        (f"`tools/call` over HTTP, 8 clients, p99 ({sizes['small']:,} skills)",
         _http(reports, "small", 8, "p99_ms"), "ms", 2),
    ]


def value(figure: float | None, unit: str) -> str:
    """A figure with its unit, to three significant digits or so ("–" when not measured)."""
    if figure is None:
        return "–"
    digits = 2 if figure < 10 else 1 if figure < 100 else 0
    return f"{figure:,.{digits}f} {unit}".rstrip()


def headline(reports: Reports, baseline: bool) -> str:
    """Issue 18's rows: current, baseline, baseline ÷ current, target, met."""
    lines = [
        "| row | current | " + ("baseline | baseline ÷ current | " if baseline else "") + "target | met |",
        "|---|--:|" + ("--:|--:|" if baseline else "") + "--:|:-:|",
    ]
    for label, get, unit, target in headline_rows(reports):
        ours = get("skillpath")
        cells = [label, value(ours, unit)]
        if baseline:
            theirs = get("baseline")
            cells += [value(theirs, unit), common.times(common.ratio_num(theirs, ours), 2)]
        cells.append("–" if target is None else f"< {target:g} {unit}")
        cells.append("" if target is None or ours is None else "✔" if ours < target else "✘")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


GROWTH_FIGURES = (("store", "median_ms"), ("store", "peak_mb"), ("warm", "median_ms"), ("warm", "peak_mb"))


def growth_points(reports: Reports) -> list[dict]:
    """Per catalog size: its shape and, per build, the warm per-skill starts (from the store
    alone and with the folder sync): time and peak memory; skillz's start where measured."""
    points = []
    for size in ("small", "large", "huge"):
        entry = reports["serve"].get(size)
        if entry is None:
            continue
        point = {key: entry[key] for key in ("skill_folders", "files", "bytes")}
        point["size"] = size
        for build, server in entry["servers"].items():
            start = server["start"]
            if build == "skillz":
                point["skillz"] = start
                continue
            point[build] = {f"{phase}_{figure}": start["per-skill"].get(phase, {}).get(figure)
                            for phase, figure in GROWTH_FIGURES}
        points.append(point)
    return points


def growth(reports: Reports) -> str:
    """How start time and peak memory grow with the catalog: a row per size and build (with
    per-skill costs), the baseline ÷ current ratios, skillz; then each step's growth factors
    beside the growth of the skills and of their bytes."""
    points = growth_points(reports)
    builds = [b for b in ("skillpath", "baseline") if any(b in p for p in points)]
    lines = [
        "Warm starts with one tool per skill (`--tools per-skill`): from the store alone, and with the "
        "folder sync (nothing changed); per skill: µs of start and KB of peak RSS per skill.",
        "",
        "| skills | files | MB | build | from the store | µs/skill | peak MB | KB/skill | with the folder sync | µs/skill | peak MB | KB/skill |",
        "|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for p in points:
        n = p["skill_folders"] or 1
        shape = f"{p['skill_folders']:,} | {p['files']:,} | {value(p['bytes'] / 1e6, '')}"
        for build in builds:
            f = p.get(build)
            if f is None:
                continue
            cells = []
            for phase in ("store", "warm"):
                ms, mb = f[f"{phase}_median_ms"], f[f"{phase}_peak_mb"]
                cells += [value(ms, "ms"), "–" if ms is None else f"{ms * 1000 / n:,.0f}",
                          value(mb, "MB"), "–" if mb is None else f"{mb * 1024 / n:,.1f}"]
            lines.append(f"| {shape} | {'current' if build == 'skillpath' else 'baseline'} | " + " | ".join(cells) + " |")
            shape = " | |"
        if "skillpath" in p and "baseline" in p:
            ratios = [common.times(common.ratio_num(p["baseline"][k], p["skillpath"][k]), 2)
                      for k in (f"{phase}_{figure}" for phase, figure in GROWTH_FIGURES)]
            lines.append(f"| | | | baseline ÷ current | **{ratios[0]}** | | **{ratios[1]}** | | "
                         f"**{ratios[2]}** | | **{ratios[3]}** | |")
        if "skillz" in p:
            z = p["skillz"]
            if "timeout_s" in z:
                lines.append(f"| | | | skillz | | | | | no complete list in {z['timeout_s']:g} s | | | |")
            else:
                lines.append(f"| | | | skillz | | | | | {value(z['median_ms'], 'ms')} | "
                             f"{z['median_ms'] * 1000 / n:,.0f} | {value(z['peak_mb'], 'MB')} | "
                             f"{z['peak_mb'] * 1024 / n:,.1f} |")
    lines += [
        "",
        "Growth from one size to the next (× of the larger over the smaller):",
        "",
        "| step | skills | bytes | build | from the store | its peak RSS | with the folder sync | its peak RSS |",
        "|---|--:|--:|---|--:|--:|--:|--:|",
    ]
    for a, b in zip(points, points[1:]):
        step = f"{a['skill_folders']:,} → {b['skill_folders']:,}"
        shape = (f"{common.times(common.ratio_num(b['skill_folders'], a['skill_folders']))} | "
                 f"{common.times(common.ratio_num(b['bytes'], a['bytes']))}")
        for build in builds:
            if build not in a or build not in b:
                continue
            factors = [common.times(common.ratio_num(b[build][k], a[build][k]))
                       for k in (f"{phase}_{figure}" for phase, figure in GROWTH_FIGURES)]
            lines.append(f"| {step} | {shape} | {'current' if build == 'skillpath' else 'baseline'} | "
                         + " | ".join(factors) + " |")
            step, shape = "", " | "
    return "\n".join(lines)
