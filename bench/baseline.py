"""The baseline build: skillpath as of another commit of this repository, built once and kept in
the cache folder, so a run can measure it next to the current build.

``prepare(ref)`` resolves ``ref`` (a commit, tag or branch) to a commit, checks it out as a
``git worktree`` under ``<cache>/baseline/<commit>/src`` and builds the same binaries
``bench/run`` builds for the current tree into ``<cache>/baseline/<commit>/target`` (the
``profiling`` profile, or ``release`` when that commit's ``Cargo.toml`` has no such profile). A
commit built before is reused as it is: its build is marked complete only after cargo succeeded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import common

# What `bench/run` builds, so both builds are measured with the same programs.
PACKAGES = ("skillpath", "skillpath-store")
EXAMPLES = ("search_latency", "write_throughput")


def git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(common.ROOT), *args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def profile_of(tree: Path) -> str:
    """The profile to build: ``profiling`` when the tree's Cargo.toml defines it, else ``release``."""
    manifest = (tree / "Cargo.toml").read_text()
    return "profiling" if "[profile.profiling]" in manifest else "release"


def checkout(commit: str, tree: Path) -> None:
    """A detached worktree of `commit` at `tree` (made again if an earlier one was left broken)."""
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True)
    if (tree / ".git").exists() and head.returncode == 0 and head.stdout.strip() == commit:
        return
    shutil.rmtree(tree, ignore_errors=True)
    git("worktree", "prune")
    tree.parent.mkdir(parents=True, exist_ok=True)
    git("worktree", "add", "--detach", str(tree), commit)


def prepare(ref: str) -> common.Build:
    """The baseline build of `ref` (its `skillpath` binary, examples next to it), built now unless that commit was built before."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    home = common.CACHE / "baseline" / commit
    tree, target, marker = home / "src", home / "target", home / ".built"
    if marker.is_file():
        build = common.baseline_build(target / marker.read_text().strip() / "skillpath",
                                      f"{ref} ({commit[:10]})")
        print(f"bench: baseline {build.label}: reusing the build in {target}", file=sys.stderr)
        return build
    checkout(commit, tree)
    profile = profile_of(tree)
    examples = [e for e in EXAMPLES if (tree / "crates" / "skillpath-store" / "examples" / f"{e}.rs").is_file()]
    command = ["cargo", "build", "--profile", profile, "--locked", "--target-dir", str(target)]
    for package in PACKAGES:
        command += ["-p", package]
    command += ["--bin", "skillpath"]
    for example in examples:
        command += ["--example", example]
    print(f"bench: building the baseline {ref} ({commit[:10]}) in {tree}: {' '.join(command)}",
          file=sys.stderr)
    env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=sys.stderr)
    marker.write_text(profile)
    return common.baseline_build(target / profile / "skillpath", f"{ref} ({commit[:10]})")
