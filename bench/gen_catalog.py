#!/usr/bin/env python3
"""Generates synthetic skill catalogs for benchmarks, shaped like the real corpus.

    python3 bench/gen_catalog.py --count N --out DIR [--seed 1] [--golden-share 0.2]
                                 [--no-files] [--corpus PATH] [--print-stats]

First the corpus (``bench/common.py``'s CORPUS: ``$SKILLPATH_CORPUS`` or ../shared/corpus, or
``--corpus``) is measured: every folder with a ``SKILL.md`` is a skill. Measured are the sizes of
the ``SKILL.md`` files, which frontmatter keys skills use (and their values), how many extra files
a skill has, and each extra file's folder, extension and size. Bodies are cut into markdown blocks
(paragraphs, lists, headings, whole fenced code blocks), which are the vocabulary of the synthetic
bodies.

Every generated skill samples from those empirical distributions with one seeded
``random.Random(seed)``, so a seed always gives the same catalog:

- ``DIR/<name>/SKILL.md`` whose ``name`` is a unique kebab-case name equal to the folder name, a
  description "<what it does>. Use when …" recombined from corpus descriptions, the optional
  spec fields (license, compatibility, metadata, allowed-tools) at the corpus's rates (keys the
  specification does not define go into ``metadata``, as strings), and a body of corpus blocks
  sized after a sampled ``SKILL.md`` size. Relative links of the corpus are turned into plain
  text; the body links the skill's own extra files instead.
- extra files (unless ``--no-files``): a sampled count, each with a sampled folder, extension
  and size, filled with corpus text (markdown blocks, text lines, JSON, YAML, CSV, code from the
  corpus's code blocks of that language; binary extensions get random bytes).
- ``--golden-share`` of the skills are Golden Path skills: ``args`` (1–4 typed arguments),
  sometimes a ``tool_name``, a body with ``# Title``, a summary, ``## Prerequisites``,
  ``## Execution Steps`` with ``### Phase N: …`` phases holding template references written as in
  ``examples/skills`` (``**Template:** `templates/x.ext` ``, ``**Target:** `…/{Placeholder}/…` ``,
  optional ``**Condition:** `Var=value` ``), ``## Success Criteria``, and the template files
  (``{PascalCase}`` placeholders of declared arguments only, ``{{#if X}}`` line blocks). Their
  templates are written even with ``--no-files``: without them the skills would be invalid.

Every YAML string value is written double-quoted with escapes, so every frontmatter parses.
Prints one JSON line to stdout (count, golden, files, bytes, seconds, ...); progress goes to
stderr when N is large.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    from common import CORPUS as DEFAULT_CORPUS  # noqa: E402
except Exception:  # pragma: no cover - common.py is optional for this script
    DEFAULT_CORPUS = Path(
        os.environ.get("SKILLPATH_CORPUS", Path(__file__).resolve().parent.parent.parent / "shared" / "corpus")
    )

# The fields the Agent Skills specification defines; everything else of the corpus is folded
# into `metadata` so that generated skills carry no unknown fields.
SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
OPTIONAL_FIELDS = ("license", "compatibility", "metadata", "allowed-tools")
# MCP tool names the server keeps for itself.
BUILTIN_TOOLS = {
    "list_skills", "search_skills", "get_skill", "load_skill", "skill_history", "validate_skill",
    "plan_skill", "create_skill", "update_skill", "delete_skill", "rollback_skill", "fork_skill",
    "list_architectures", "get_architecture", "analyze_requirements", "plan_architecture",
    "create_architecture", "list_drafts", "publish_skill", "reject_skill", "list_api_keys",
    "create_api_key", "revoke_api_key",
}
# Plain scalars YAML 1.1/1.2 would read as something other than a string.
YAML_SPECIAL = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "nan", "inf"}
STOPWORDS = set(
    "a an and are as at be by for from has have in into is it its of on or that the their this "
    "to with when use used using you your any all can not will via how what which while who".split()
)
BINARY_EXTENSIONS = {
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".pdf", ".zip", ".gz", ".tar", ".ttf",
    ".otf", ".woff", ".woff2", ".bin", ".wasm", ".mp3", ".mp4", ".xlsx", ".docx", ".pptx",
}
# Line-comment syntax of template files, for `{{#if X}}` marker lines (JSON has none).
COMMENTS = {
    "py": ("#", ""), "sh": ("#", ""), "yml": ("#", ""), "toml": ("#", ""), "rb": ("#", ""),
    "ps1": ("#", ""), "tf": ("#", ""), "Dockerfile": ("#", ""), "cs": ("//", ""),
    "ts": ("//", ""), "tsx": ("//", ""), "js": ("//", ""), "jsx": ("//", ""), "go": ("//", ""),
    "java": ("//", ""), "kt": ("//", ""), "swift": ("//", ""), "rs": ("//", ""),
    "md": ("<!--", " -->"), "html": ("<!--", " -->"), "xml": ("<!--", " -->"),
    "sql": ("--", ""), "css": ("/*", " */"),
}
# Code-block languages of the corpus → template file extension.
LANG_EXT = {
    "python": "py", "py": "py", "bash": "sh", "sh": "sh", "shell": "sh", "zsh": "sh",
    "yaml": "yml", "yml": "yml", "json": "json", "typescript": "ts", "ts": "ts", "tsx": "tsx",
    "javascript": "js", "js": "js", "jsx": "jsx", "csharp": "cs", "cs": "cs", "c#": "cs",
    "sql": "sql", "powershell": "ps1", "pwsh": "ps1", "ps1": "ps1", "xml": "xml", "java": "java",
    "go": "go", "golang": "go", "kotlin": "kt", "swift": "swift", "rust": "rs", "toml": "toml",
    "hcl": "tf", "terraform": "tf", "dockerfile": "Dockerfile", "html": "html", "css": "css",
    "markdown": "md", "md": "md", "ruby": "rb",
}
TARGET_ROOTS = {
    "py": ["app", "src", "tests", "scripts"], "sh": ["scripts", "bin"], "yml": ["config", "deploy", ".github/workflows"],
    "json": ["config", "src"], "ts": ["src", "packages", "apps"], "tsx": ["src/components", "app"],
    "js": ["src", "lib"], "jsx": ["src/components"], "cs": ["src"], "sql": ["db/migrations", "sql"],
    "ps1": ["scripts", "tools"], "xml": ["src", "config"], "java": ["src/main/java"], "go": ["internal", "cmd"],
    "kt": ["src/main/kotlin"], "swift": ["Sources"], "rs": ["src", "crates"], "toml": ["config", "."],
    "tf": ["infra", "terraform"], "Dockerfile": ["docker", "."], "html": ["templates", "public"],
    "css": ["styles", "src/styles"], "md": ["docs", "."], "rb": ["lib", "app"],
}
NAME_NOUNS = (
    "service module component resource entity model project package table queue topic endpoint job "
    "workflow app feature route bucket schema client handler page report repo cluster namespace "
    "database function plugin widget screen command pipeline stage environment tenant region domain "
    "event metric dashboard index collection provider library agent prompt dataset notebook channel"
).split()
ENUM_KINDS = "provider style mode backend format engine runtime strategy level framework language driver tier".split()
NUMBER_ARGS = [
    ("timeout_seconds", "Timeout of each step in seconds", ["30", "60", "120", "300"]),
    ("ttl_minutes", "Default cache TTL in minutes", ["5", "15", "30", "60"]),
    ("page_size", "Default number of items a list request returns", ["20", "50", "100"]),
    ("max_retries", "How many times a failed call is retried", ["0", "3", "5"]),
    ("port", "Port the process listens on", ["3000", "8000", "8080"]),
    ("replicas", "Number of replicas to run", ["1", "2", "3", "5"]),
    ("batch_size", "Number of records processed per batch", ["100", "500", "1000"]),
    ("retention_days", "How long records are kept, in days", ["7", "30", "90"]),
    ("concurrency", "Maximum number of parallel workers", ["1", "4", "8"]),
    ("memory_mb", "Memory limit in megabytes", ["256", "512", "1024"]),
    ("threshold_percent", "Alert threshold in percent", ["50", "80", "95"]),
    ("interval_seconds", "Polling interval in seconds", ["10", "30", "60"]),
]
BOOL_ARGS = [
    ("with_auth", "Whether every endpoint requires an authenticated user"),
    ("with_tests", "Whether tests are generated next to the code"),
    ("enable_logging", "Whether structured logging is wired in"),
    ("use_cache", "Whether responses are cached"),
    ("include_docs", "Whether documentation pages are added"),
    ("dry_run", "Whether to only print what would change"),
    ("with_metrics", "Whether metrics are exported"),
    ("enable_tracing", "Whether distributed tracing is enabled"),
    ("with_docker", "Whether a container image is built"),
    ("strict_mode", "Whether warnings fail the build"),
]
STRING_DEFAULTS = ["app", "main", "default", "core", "api", "shared", "web", "backend"]
SAMPLE_VALUES = ["Orders", "Billing", "Inventory", "Payments", "Catalog", "Accounts", "Reports", "Shipping"]
TRIGGER_RE = re.compile(
    r"\b(use (this skill )?(when|whenever|for|to|before|after|if|during)|use this|triggers? (on|when|for)|"
    r"invoke (when|with)|activate when|apply when|(this skill )?should be used when)\b",
    re.IGNORECASE,
)
LINK_RE = re.compile(r"(!?)\[([^\[\]]*)\]\((<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(\s+(\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S")
PLACEHOLDER_RE = re.compile(r"(?<!\\)\{([A-Z][A-Za-z0-9]*)\}")
LABEL_RE = re.compile(r"^\s*\*\*(Template|Target|Condition):\*\*")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)\s*$")
WORD_RE = re.compile(r"[a-z][a-z0-9]{2,13}")
PHASE_RE = re.compile(r"^\s*phase\s+\d+\s*:", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Reading the corpus


def find_skills(corpus: Path) -> list[Path]:
    """Folders that contain a SKILL.md, sorted (so measuring is deterministic)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules"))
        if "SKILL.md" in filenames:
            found.append(Path(dirpath))
    return sorted(found)


def split_frontmatter(text: str) -> tuple[list[str], str]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return [], text
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return lines[1:i], "\n".join(lines[i + 1 :])
    return [], text


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        inner = value[1:-1]
        try:
            return json.loads('"' + inner.replace("\n", " ") + '"')
        except ValueError:
            return inner.replace('\\"', '"').replace("\\\\", "\\")
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def parse_frontmatter(lines: list[str]) -> dict[str, object]:
    """A tolerant reader of the top level of a frontmatter: scalars (plain, quoted, block),
    lists and one-level mappings, as strings. Enough to measure what skills use."""
    fields: dict[str, list[str]] = {}
    order: list[str] = []
    current = None
    for line in lines:
        match = re.match(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|\s*)$", line)
        if match:
            current = match.group(1)
            order.append(current)
            fields[current] = [match.group(2) or ""]
        elif current is not None:
            fields[current].append(line)
    out: dict[str, object] = {}
    for key in order:
        head, *rest = fields[key]
        head = head.strip()
        rest_nonblank = [r for r in rest if r.strip() and not r.strip().startswith("#")]
        if head.startswith(("|", ">")):
            texts = [r.strip() for r in rest]
            joiner = "\n" if head.startswith("|") else " "
            out[key] = joiner.join(t for t in texts if t).strip()
        elif head == "" and rest_nonblank and rest_nonblank[0].lstrip().startswith("- "):
            out[key] = [unquote(r.strip()[2:]) for r in rest_nonblank if r.lstrip().startswith("- ")]
        elif head == "" and rest_nonblank and re.match(r"^\s+[^\s:][^:]*:(\s|$)", rest_nonblank[0]):
            mapping: dict[str, str] = {}
            indent = len(rest_nonblank[0]) - len(rest_nonblank[0].lstrip())
            last = None
            for r in rest_nonblank:
                r_indent = len(r) - len(r.lstrip())
                m = re.match(r"^\s+([^\s:][^:]*?)\s*:(?:\s+(.*))?$", r)
                if m and r_indent == indent:
                    last = unquote(m.group(1))
                    mapping[last] = unquote(m.group(2) or "")
                elif last is not None:
                    mapping[last] = (mapping[last] + " " + unquote(r.strip().lstrip("- "))).strip()
            out[key] = mapping
        elif head.startswith("[") and head.endswith("]"):
            out[key] = [unquote(x) for x in head[1:-1].split(",") if x.strip()]
        else:
            text = " ".join([head] + [r.strip() for r in rest if r.strip()])
            out[key] = unquote(text)
    return out


def clean_inline(text: str) -> str:
    """Relative links become their text (the synthetic skill does not have those files); links
    with a scheme stay."""
    for _ in range(4):
        changed = False

        def repl(m: re.Match) -> str:
            nonlocal changed
            dest = m.group(3).strip("<>")
            path = dest.split("#")[0].split("?")[0]
            scheme = re.match(r"^[A-Za-z0-9+.-]+:", path)
            if path == "" or scheme or path.startswith("//"):
                return m.group(0)
            changed = True
            return m.group(2)

        text = LINK_RE.sub(repl, text)
        if not changed:
            break
    return text


class Block:
    __slots__ = ("text", "kind", "size")

    def __init__(self, text: str, kind: str):
        self.text = text
        self.kind = kind
        self.size = len(text.encode("utf-8")) + 2  # with the blank line after it


def split_blocks(body: str) -> list[Block]:
    """Cuts a markdown body into self-contained blocks: every fenced code block is whole, every
    ATX heading is a block of its own, other blocks end at blank lines."""
    blocks: list[Block] = []
    current: list[str] = []
    fence = None  # (char, length) of the open fence

    def flush(kind: str | None = None) -> None:
        if current:
            text = "\n".join(current).strip("\n")
            if text.strip():
                blocks.append(Block(text, kind or classify(text)))
            current.clear()

    for line in body.split("\n"):
        line = line.rstrip("\r")
        if fence is not None:
            current.append(line)
            m = FENCE_RE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and not m.group(2).strip():
                fence = None
                flush("code")
            continue
        m = FENCE_RE.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            flush()
            fence = (m.group(1)[0], len(m.group(1)))
            current.append(line)
            continue
        if HEADING_RE.match(line):
            flush()
            current.append(line)
            flush("heading")
            continue
        if not line.strip():
            flush()
            continue
        if REF_DEF_RE.match(line) or LABEL_RE.match(line):
            continue
        current.append(line)
    if fence is None:
        flush()
    return blocks


def classify(text: str) -> str:
    first = text.lstrip()
    lines = text.split("\n")
    if first.startswith("<"):
        return "html"
    if any(SETEXT_RE.match(l) for l in lines[1:]) or any(HEADING_RE.match(l) for l in lines):
        return "other"
    if first.startswith("|"):
        return "table"
    if re.match(r"^([-*+]|\d+[.)])\s", first):
        return "list"
    if lines[0].startswith("    ") or lines[0].startswith("\t"):
        return "indented"
    return "para"


def code_language(block: str) -> tuple[str, str]:
    lines = block.split("\n")
    m = FENCE_RE.match(lines[0])
    info = m.group(2).strip().split()[0].lower() if m and m.group(2).strip() else ""
    return info, "\n".join(lines[1:-1])


class Corpus:
    """The measured distributions and the text pools sampled from."""

    def __init__(self, root: Path):
        started = time.monotonic()
        self.root = root
        skills = find_skills(root)
        if not skills:
            sys.exit(f"gen_catalog: no SKILL.md under {root}")
        self.skill_count = len(skills)
        self.sizes: list[int] = []
        self.key_counts: Counter[str] = Counter()
        self.values: dict[str, list[object]] = {k: [] for k in OPTIONAL_FIELDS}
        self.extra_values: dict[str, list[str]] = {}
        self.metadata_items: list[tuple[str, str]] = []
        self.metadata_counts: list[int] = []
        self.file_counts: list[int] = []
        self.files: list[tuple[str, str, int]] = []  # (folder, extension, size)
        self.blocks: list[Block] = []
        self.whats: list[str] = []
        self.triggers: list[str] = []
        self.name_words: list[str] = []
        self.corpus_names: list[list[str]] = []
        self.titles: list[str] = []
        self.items: list[str] = []
        self.code: dict[str, list[str]] = {}
        self.text_lines: list[str] = []
        skill_set = {str(s) for s in skills}
        for skill in skills:
            self._read_skill(skill, skill_set)
        self._finish()
        self.seconds = time.monotonic() - started

    def _read_skill(self, skill: Path, skill_set: set[str]) -> None:
        raw = (skill / "SKILL.md").read_bytes()
        self.sizes.append(len(raw))
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        fm_lines, body = split_frontmatter(text)
        fm = parse_frontmatter(fm_lines)
        for key, value in fm.items():
            self.key_counts[key] += 1
            if key in self.values:
                self.values[key].append(value)
            elif key not in ("name", "description"):
                self.extra_values.setdefault(key, []).append(flatten(value))
        if isinstance(fm.get("metadata"), dict):
            meta = fm["metadata"]
            self.metadata_counts.append(len(meta))
            self.metadata_items.extend((str(k), flatten(v)) for k, v in meta.items())
        name = fm.get("name")
        if isinstance(name, str):
            words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
            if words:
                self.corpus_names.append(words)
                self.name_words.extend(w for w in words if w.isalpha() and 2 < len(w) < 15)
        description = fm.get("description")
        if isinstance(description, str):
            self._read_description(description)
        # Extra files: everything in the folder but SKILL.md, not descending into nested skills.
        count = 0
        for dirpath, dirnames, filenames in os.walk(skill):
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in (".git", "node_modules") and str(Path(dirpath) / d) not in skill_set
            )
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                rel = path.relative_to(skill)
                if str(rel) == "SKILL.md":
                    continue
                count += 1
                folder = str(rel.parent) if str(rel.parent) != "." else ""
                ext = path.suffix.lower() if path.suffix else ""
                try:
                    size = path.stat().st_size
                except OSError:
                    continue
                self.files.append((folder, ext if ext else filename, size))
                if ext in (".txt", ".md") and size < 200_000:
                    try:
                        content = path.read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError):
                        continue
                    if ext == ".txt":
                        self.text_lines.extend(l for l in content.splitlines() if 0 < len(l) < 300)
        self.file_counts.append(count)
        for block in split_blocks(clean_inline(body)):
            self.blocks.append(block)
            if block.kind == "heading":
                m = HEADING_RE.match(block.text)
                title = (m.group(2) or "").strip() if m else ""
                if 2 <= len(title.split()) <= 6 and re.fullmatch(r"[A-Za-z][A-Za-z0-9 ,'/-]*", title):
                    self.titles.append(title)
            elif block.kind == "list":
                for line in block.text.split("\n"):
                    m = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$", line)
                    if m and 20 <= len(m.group(1)) <= 110 and "[" not in m.group(1) and "{" not in m.group(1) \
                            and m.group(1).count("`") % 2 == 0 and "**" not in m.group(1) and "<" not in m.group(1):
                        self.items.append(m.group(1).strip().rstrip(":"))
            elif block.kind == "code":
                lang, code = code_language(block.text)
                ext = LANG_EXT.get(lang)
                if ext and code.strip() and "{{" not in code and not PLACEHOLDER_RE.search(code) \
                        and "\\{" not in code and len(code) < 6000:
                    self.code.setdefault(ext, []).append(code)

    def _read_description(self, description: str) -> None:
        description = " ".join(description.split())
        m = TRIGGER_RE.search(description)
        if m and m.start() > 20:
            what = description[: m.start()].rstrip(" ,;:-—(")
            trigger = description[m.start():].strip()
            if not what.endswith((".", "!", "?")):
                what += "."
            self.whats.append(what)
            if 10 < len(trigger) < 700:
                self.triggers.append(trigger)
        elif m:
            if 10 < len(description) < 700:
                self.triggers.append(description)
        elif len(description) > 20:
            self.whats.append(description if description.endswith(".") else description + ".")

    def _finish(self) -> None:
        self.sizes.sort()
        self.filler = [b for b in self.blocks if b.kind in ("para", "list", "table") and "{{" not in b.text
                       and "<" not in b.text and not PHASE_RE.search(b.text)]
        self.paragraphs = [b.text for b in self.blocks if b.kind == "para" and 60 < len(b.text) < 700
                           and "{{" not in b.text and "<" not in b.text]
        self.words = sorted(set(w for b in self.paragraphs[:5000] for w in WORD_RE.findall(b.lower())) - STOPWORDS - YAML_SPECIAL)
        if not self.name_words:
            self.name_words = self.words[:1000] or ["skill"]
        self.enum_words = sorted({w for w in self.name_words if w not in YAML_SPECIAL and 3 <= len(w) <= 12})
        if not self.items:
            self.items = ["The project builds without errors"]
        if not self.titles:
            self.titles = ["Set up the project"]
        if not self.whats:
            self.whats = ["Helps with a task."]
        if not self.triggers:
            self.triggers = ["Use when the user asks for it."]
        if not self.text_lines:
            self.text_lines = [l for p in self.paragraphs for l in p.split("\n")] or ["text"]
        if not self.file_counts:
            self.file_counts = [0]

    # -----------------------------------------------------------------------------------------

    def share(self, key: str) -> float:
        return self.key_counts.get(key, 0) / self.skill_count

    def stats(self) -> dict:
        def pct(values: list[int], p: float) -> int:
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0

        fc = Counter(self.file_counts)
        exts = Counter(e for _, e, _ in self.files)
        folders = Counter(f.split("/")[0] if f else "." for f, _, _ in self.files)
        fsizes = [s for _, _, s in self.files]
        return {
            "corpus": str(self.root),
            "skills": self.skill_count,
            "skill_md_bytes": {p: pct(self.sizes, p) for p in (0, 10, 25, 50, 75, 90, 95, 99, 100)},
            "skill_md_mean": round(sum(self.sizes) / len(self.sizes)),
            "frontmatter_key_share": {k: round(v / self.skill_count, 3) for k, v in self.key_counts.most_common()},
            "extra_files_per_skill": {
                "share_with_none": round(fc.get(0, 0) / len(self.file_counts), 3),
                "mean": round(sum(self.file_counts) / len(self.file_counts), 2),
                "p50": pct(self.file_counts, 50), "p90": pct(self.file_counts, 90), "max": max(self.file_counts),
            },
            "extra_file_bytes": {p: pct(fsizes, p) for p in (10, 50, 90, 99, 100)},
            "extra_file_extensions": dict(exts.most_common(12)),
            "extra_file_folders": dict(folders.most_common(12)),
            "body_blocks": len(self.blocks),
            "code_blocks_by_template_ext": {k: len(v) for k, v in sorted(self.code.items(), key=lambda kv: -len(kv[1]))},
            "descriptions_with_trigger_clause": len(self.triggers),
            "measure_seconds": round(self.seconds, 2),
        }


def flatten(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {flatten(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(flatten(v) for v in value)
    return " ".join(str(value).split())


# ---------------------------------------------------------------------------------------------
# Writing YAML safely

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def yq(value: str) -> str:
    """A YAML double-quoted scalar; control characters, Unicode line breaks and the BOM escaped."""
    out = ['"']
    for ch in value:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= code <= 0xDFFF \
                or code in (0xFFFE, 0xFFFF):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:")


def pascal(snake: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


# ---------------------------------------------------------------------------------------------
# Generating


class Generator:
    def __init__(self, corpus: Corpus, rng: random.Random, with_files: bool):
        self.c = corpus
        self.rng = rng
        self.with_files = with_files
        self.names: set[str] = set()
        self.tool_names: set[str] = set(BUILTIN_TOOLS)
        self.files_written = 0
        self.bytes_written = 0
        self.extension_keys = [k for k in corpus.extra_values if re.fullmatch(r"[a-z][a-z0-9_-]*", k)]

    # --- names and descriptions ---------------------------------------------------------------

    def new_name(self) -> str:
        rng, c = self.rng, self.c
        for attempt in range(30):
            base = list(rng.choice(c.corpus_names)) if c.corpus_names else [rng.choice(c.name_words)]
            # Replace one or two words, sometimes add one, so names recombine the corpus's words.
            for _ in range(rng.choice((1, 1, 2))):
                base[rng.randrange(len(base))] = rng.choice(c.name_words)
            if len(base) < 2 or rng.random() < 0.15:
                base.insert(rng.randrange(len(base) + 1), rng.choice(c.name_words))
            if attempt > 10:
                base.append(rng.choice(c.name_words))
            words = []
            for w in base:
                if w and (not words or words[-1] != w):
                    words.append(w)
            name = "-".join(words)[:64].strip("-")
            name = re.sub(r"-+", "-", name)
            if name and name not in self.names and name.replace("-", "_") not in BUILTIN_TOOLS:
                self.names.add(name)
                return name
        n = 2
        while f"{name}-{n}" in self.names:
            n += 1
        name = f"{name[:60].strip('-')}-{n}"
        self.names.add(name)
        return name

    def description(self) -> str:
        rng = self.rng
        what = rng.choice(self.c.whats)
        trigger = rng.choice(self.c.triggers)
        trigger = truncate(trigger, 400)
        if not trigger.endswith((".", "!", "?", ")")):
            trigger += "."
        text = truncate(what, 1024 - len(trigger) - 1) + " " + trigger
        return text.strip()

    # --- frontmatter ----------------------------------------------------------------------------

    def optional_fields(self) -> list[str]:
        rng, c = self.rng, self.c
        lines = []
        if c.values["license"] and rng.random() < c.share("license"):
            lines.append(f"license: {yq(flatten(rng.choice(c.values['license']))[:200] or 'MIT')}")
        if c.values["compatibility"] and rng.random() < c.share("compatibility"):
            value = truncate(flatten(rng.choice(c.values["compatibility"])), 500) or "Requires git"
            lines.append(f"compatibility: {yq(value)}")
        metadata: dict[str, str] = {}
        if c.metadata_items and rng.random() < c.share("metadata"):
            for _ in range(rng.choice(c.metadata_counts or [1])):
                key, value = rng.choice(c.metadata_items)
                if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key) and key.lower() not in YAML_SPECIAL:
                    metadata[key] = value[:300]
        for key in self.extension_keys:
            if rng.random() < c.share(key):
                metadata.setdefault(key, rng.choice(c.extra_values[key])[:300])
        if metadata:
            lines.append("metadata:")
            lines.extend(f"  {k}: {yq(v)}" for k, v in metadata.items())
        if c.values["allowed-tools"] and rng.random() < c.share("allowed-tools"):
            value = rng.choice(c.values["allowed-tools"])
            value = " ".join(value) if isinstance(value, list) else flatten(value)
            lines.append(f"allowed-tools: {yq(value or 'Read')}")
        return lines

    # --- bodies -------------------------------------------------------------------------------

    def sample_size(self) -> int:
        base = self.rng.choice(self.c.sizes)
        return max(300, int(base * self.rng.uniform(0.9, 1.1)))

    def corpus_run(self, budget: int, pool: list[Block] | None = None) -> list[str]:
        """Blocks read from a random place of the corpus (with rare jumps) until `budget` bytes."""
        rng = self.rng
        blocks = pool if pool is not None else self.c.blocks
        if not blocks or budget <= 0:
            return []
        out: list[str] = []
        used = 0
        at = rng.randrange(len(blocks))
        skips = 0
        while used < budget and skips < 200:
            block = blocks[at]
            at = (at + 1) % len(blocks)
            if rng.random() < 0.04:
                at = rng.randrange(len(blocks))
            if used + block.size > budget * 1.3 + 200:
                skips += 1
                continue
            text = block.text
            if block.kind == "heading":
                if text.startswith("# "):
                    text = "#" + text
                if re.search(r"(?i)execution\s+steps", text):
                    text = re.sub(r"(?i)execution\s+steps", "Steps", text)
            out.append(text)
            used += block.size
        return out

    def plain_body(self, name: str, budget: int, links: list[str]) -> str:
        parts = [f"# {title_of(name)}"]
        link_part = []
        if links:
            link_part = ["## Additional Resources", "\n".join(f"- [{p}]({p})" for p in links)]
        budget -= len(parts[0]) + sum(len(p) + 2 for p in link_part)
        parts.extend(self.corpus_run(budget))
        parts.extend(link_part)
        return "\n\n".join(parts) + "\n"

    # --- extra files ----------------------------------------------------------------------------

    def extra_files(self, skill_dir: Path) -> list[str]:
        """Writes the sampled extra files; returns the relative paths worth linking."""
        rng, c = self.rng, self.c
        count = rng.choice(c.file_counts)
        if count == 0 or not c.files:
            return []
        linked = []
        used: set[str] = set()
        for _ in range(count):
            folder, ext, size = rng.choice(c.files)
            if not ext.startswith("."):
                filename = ext if ext.upper() != "SKILL.MD" else "NOTES.md"  # LICENSE and the like
                ext = ""
            else:
                filename = "-".join(rng.choice(c.name_words) for _ in range(rng.choice((1, 2, 2, 3)))) + ext
            folder = "/".join(p for p in folder.split("/") if re.fullmatch(r"[A-Za-z0-9._-]+", p) and p not in ("..", "."))
            rel = f"{folder}/{filename}" if folder else filename
            if filename.lower() == "skill.md" or rel in used:  # a SKILL.md would be a nested skill
                continue
            used.add(rel)
            data = self.file_content(ext, max(size, 16))
            path = skill_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            self.files_written += 1
            self.bytes_written += len(data)
            if ext in (".md", ".txt") and len(linked) < 12:
                linked.append(rel)
        return linked

    def file_content(self, ext: str, size: int) -> bytes:
        rng, c = self.rng, self.c
        if ext in BINARY_EXTENSIONS:
            return rng.randbytes(size)
        if ext == ".md":
            text = "\n\n".join([f"# {title_of(rng.choice(c.titles))}"] + self.corpus_run(size)) + "\n"
        elif ext == ".json":
            items, used = [], 0
            while used < size:
                entry = {"id": len(items) + 1, "name": rng.choice(c.name_words), "text": rng.choice(c.text_lines)}
                items.append(entry)
                used += len(json.dumps(entry)) + 6
            text = json.dumps({"version": "1.0", "items": items}, indent=2, ensure_ascii=False) + "\n"
        elif ext in (".yaml", ".yml"):
            lines, used = [], 0
            while used < size:
                line = f"{rng.choice(c.name_words)}_{len(lines)}: {yq(rng.choice(c.text_lines))}"
                lines.append(line)
                used += len(line) + 1
            text = "\n".join(lines) + "\n"
        elif ext == ".csv":
            rows, used = ["id,name,value,note"], 0
            while used < size:
                row = f"{len(rows)},{rng.choice(c.name_words)},{rng.randrange(1000)},{yq(rng.choice(c.text_lines)[:80])}"
                rows.append(row)
                used += len(row) + 1
            text = "\n".join(rows) + "\n"
        elif ext.lstrip(".") in {v for v in LANG_EXT.values()} and c.code.get(LANG_EXT.get(ext.lstrip("."), ext.lstrip("."))):
            pool = c.code[ext.lstrip(".")]
            chunks, used = [], 0
            while used < size:
                chunk = rng.choice(pool)
                chunks.append(chunk)
                used += len(chunk) + 2
            text = "\n\n".join(chunks) + "\n"
        else:  # .txt, license files, anything else textual
            lines, used = [], 0
            at = rng.randrange(len(c.text_lines))
            while used < size:
                line = c.text_lines[at % len(c.text_lines)]
                at += 1
                lines.append(line)
                used += len(line) + 1
            text = "\n".join(lines) + "\n"
        return text.encode("utf-8")

    # --- Golden Path ----------------------------------------------------------------------------

    def golden_args(self) -> list[dict]:
        rng, c = self.rng, self.c
        args: list[dict] = []
        noun = rng.choice(NAME_NOUNS)
        args.append({
            "name": f"{noun}_name", "type": "string", "required": True,
            "description": f"Name of the target {noun} (PascalCase), e.g. {rng.choice(SAMPLE_VALUES)}",
        })
        used_values: set[str] = set()
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
            kind = rng.choice(("enum", "enum", "string", "number", "boolean"))
            if kind == "enum":
                other, what = rng.choice(NAME_NOUNS), rng.choice(ENUM_KINDS)
                arg = {"name": f"{other}_{what}", "type": "string",
                       "description": f"Which {other} {what} to use"}
                choices = [w for w in rng.sample(c.enum_words, min(len(c.enum_words), 6)) if w not in used_values]
                values = choices[: rng.choice((2, 2, 3, 4))] or ["basic", "full"]
                used_values.update(values)
                arg["enum"] = values
                if rng.random() < 0.85:
                    arg["default"] = rng.choice(values)
            elif kind == "string":
                other = rng.choice(NAME_NOUNS)
                arg = {"name": f"{other}_path" if rng.random() < 0.5 else f"{other}_package", "type": "string",
                       "description": f"Folder or package of the {other}"}
                if rng.random() < 0.7:
                    arg["default"] = rng.choice(STRING_DEFAULTS)
            elif kind == "number":
                name, description, values = rng.choice(NUMBER_ARGS)
                arg = {"name": name, "type": "number", "description": description}
                if rng.random() < 0.3:
                    arg["enum"] = values
                if rng.random() < 0.8:
                    arg["default"] = rng.choice(values)
            else:
                name, description = rng.choice(BOOL_ARGS)
                arg = {"name": name, "type": "boolean", "description": description,
                       "default": rng.choice(("false", "false", "true"))}
            arg["required"] = "default" not in arg and rng.random() < 0.3
            if arg["name"] in {a["name"] for a in args} or pascal(arg["name"]) in {pascal(a["name"]) for a in args}:
                continue
            if any(v == arg["name"] for v in used_values):
                continue
            args.append(arg)
        return args

    def args_yaml(self, args: list[dict]) -> list[str]:
        lines = ["args:"]
        for arg in args:
            lines.append(f"  - name: {arg['name']}")
            lines.append(f"    description: {yq(arg['description'])}")
            if self.rng.random() < 0.8 or arg["required"]:
                lines.append(f"    required: {'true' if arg['required'] else 'false'}")
            if arg["type"] != "string" or self.rng.random() < 0.5:
                lines.append(f"    type: {arg['type']}")
            if "enum" in arg:
                lines.append(f"    enum: [{', '.join(arg['enum'])}]")
            if "default" in arg:
                lines.append(f"    default: {yq(arg['default'])}")
        return lines

    def condition(self, args: list[dict]) -> str | None:
        rng = self.rng
        candidates = [a for a in args if "enum" in a or a["type"] == "boolean"]
        if not candidates:
            return None
        arg = rng.choice(candidates)
        var = pascal(arg["name"]) if rng.random() < 0.85 else arg["name"]
        if arg["type"] == "boolean":
            return var if rng.random() < 0.6 else f"{var}=true"
        values = arg["enum"]
        roll = rng.random()
        if roll < 0.6 or len(values) < 3:
            return f"{var}={rng.choice(values)}" if roll < 0.8 else f"{var}!={rng.choice(values)}"
        return f"{var}={'|'.join(rng.sample(values, 2))}"

    def template_file(self, args: list[dict], ext: str, skill_name: str) -> str:
        """A template: a header naming the declared placeholders, corpus code, and sometimes a
        `{{#if X}}` block in the file's comment syntax."""
        rng, c = self.rng, self.c
        first = pascal(args[0]["name"])
        placeholders = [pascal(a["name"]) for a in args if a is args[0] or a["required"] or "default" in a]
        pool = c.code.get(ext) or c.code.get("sh") or ["echo ok"]
        code = rng.choice(pool).rstrip("\n")
        if ext == "json":
            extra = {p[0].lower() + p[1:]: "{" + p + "}" for p in placeholders}
            return json.dumps({"name": "{" + first + "}", "generatedBy": skill_name, "settings": extra}, indent=2) + "\n"
        opener, closer = COMMENTS.get(ext, ("#", ""))
        lines = [f"{opener} {{{first}}}: generated by the {skill_name} skill{closer}"]
        if len(placeholders) > 1:
            lines.append(f"{opener} settings: " + ", ".join(f"{{{p}}}" for p in placeholders[1:]) + closer)
        body = code.split("\n")
        flags = []
        for arg in args:
            if arg["type"] == "boolean":
                flags.append(pascal(arg["name"]))
            elif "enum" in arg:
                flags.append(rng.choice(arg["enum"]) if rng.random() < 0.6 else f"{pascal(arg['name'])}={rng.choice(arg['enum'])}")
        if flags and len(body) >= 2 and rng.random() < 0.8:
            start = rng.randrange(len(body))
            end = min(len(body), start + rng.randint(1, 6))
            flag = rng.choice(flags)
            body = body[:start] + [f"{opener} {{{{#if {flag}}}}}{closer}"] + body[start:end] \
                + [f"{opener} {{{{/if}}}}{closer}"] + body[end:]
        lines.extend(body)
        return "\n".join(lines) + "\n"

    def golden_body(self, name: str, description: str, args: list[dict], budget: int,
                    skill_dir: Path, links: list[str]) -> str:
        rng, c = self.rng, self.c
        first = pascal(args[0]["name"])
        exts = [e for e in c.code if len(c.code[e]) >= 3] or ["sh"]
        weights = [len(c.code[e]) if e in c.code else 1 for e in exts]
        trigger = TRIGGER_RE.search(description)
        summary = escape_placeholders(description[: trigger.start()].strip() if trigger and trigger.start() > 20 else description)
        summary += f" Target: `{{{first}}}`"
        # Only arguments that always have a value: an optional one without a default stays `{X}`.
        settled = [a for a in args[1:] if a["required"] or "default" in a]
        if settled:
            summary += "; " + ", ".join(f"{a['name'].replace('_', ' ')}: `{{{pascal(a['name'])}}}`" for a in settled[:3])
        summary += "."
        prereqs = [f"- [ ] `{rng.choice(('src', 'app', 'services'))}/{{{first}}}` exists and builds"]
        prereqs += [f"- [ ] {escape_placeholders(item)}" for item in rng.sample(c.items, min(len(c.items), rng.randint(1, 4)))]
        criteria = [f"- [ ] {escape_placeholders(item)}" for item in rng.sample(c.items, min(len(c.items), rng.randint(1, 4)))]
        criteria.append(f"- [ ] The `{{{first}}}` changes pass review")

        phase_count = rng.choice((1, 2, 2, 3, 3, 3, 4, 4))
        template_count = rng.randint(1, min(4, phase_count + 1))
        holders = sorted(rng.randrange(phase_count) for _ in range(template_count))
        phases: list[list[str]] = []
        used_templates: set[str] = set()
        for index in range(phase_count):
            title = rng.choice(c.titles)
            parts = [f"### Phase {index + 1}: {title}"]
            for _ in range(holders.count(index)):
                ext = rng.choices(exts, weights)[0]
                stem = rng.choice(c.name_words)
                if f"{stem}.{ext}".lower() == "skill.md":  # would make the templates folder a skill
                    stem = "guide"
                filename = "Dockerfile" if ext == "Dockerfile" else f"{stem}.{ext}"
                rel = f"templates/{filename}"
                n = 2
                while rel in used_templates:
                    rel = f"templates/{stem}-{n}.{ext}" if ext != "Dockerfile" else f"templates/Dockerfile.{n}"
                    n += 1
                used_templates.add(rel)
                content = self.template_file(args, ext, name)
                path = skill_dir / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                data = content.encode("utf-8")
                path.write_bytes(data)
                self.files_written += 1
                self.bytes_written += len(data)
                root = rng.choice(TARGET_ROOTS.get(ext, ["src"]))
                target_name = "Dockerfile" if ext == "Dockerfile" else (
                    f"{{{first}}}{title_of(stem).replace(' ', '')}.{ext}" if rng.random() < 0.5 else f"{stem}.{ext}")
                target = f"{root}/{{{first}}}/{target_name}" if root != "." else f"{{{first}}}/{target_name}"
                ref = [f"**Template:** `{rel}`", f"**Target:** `{target}`"]
                cond = self.condition(args) if rng.random() < 0.4 else None
                if cond:
                    ref.append(f"**Condition:** `{cond}`")
                parts.append("\n".join(ref))
            phases.append(parts)

        head = [f"# {title_of(name)}", summary, "## Prerequisites", "\n".join(prereqs), "## Execution Steps"]
        tail = ["## Success Criteria", "\n".join(criteria)]
        if links:
            tail += ["## Additional Resources", "\n".join(f"- [{p}]({p})" for p in links)]
        fixed = sum(len(p) + 2 for p in head + tail) + sum(len(p) + 2 for ph in phases for p in ph)
        remaining = budget - fixed
        if remaining > 0 and c.filler:
            filler = [escape_placeholders(t) for t in self.corpus_run(remaining, c.filler)]
            # Spread the filler over the phases, after their template references.
            for i, text in enumerate(filler):
                phases[i % len(phases)].append(text)
        body = head + [p for ph in phases for p in ph] + tail
        return "\n\n".join(body) + "\n"

    # --- one skill ------------------------------------------------------------------------------

    def skill(self, out: Path, golden: bool) -> None:
        rng = self.rng
        name = self.new_name()
        skill_dir = out / name
        skill_dir.mkdir(parents=True)
        description = self.description()
        size = self.sample_size()
        links = self.extra_files(skill_dir) if self.with_files else []
        fm = [f"name: {name}", f"description: {yq(description)}"] + self.optional_fields()
        if golden:
            args = self.golden_args()
            if rng.random() < 0.35:
                tool = name.replace("-", "_")
                if rng.random() < 0.5:
                    tool = f"{rng.choice(('add', 'create', 'run', 'setup', 'generate'))}_{tool}"
                tool = tool[:128]
                # Names are kebab-case, so a tool name with `_` never collides with another skill's.
                if tool not in self.tool_names and (tool == name or tool not in self.names):
                    self.tool_names.add(tool)
                    fm.append(f"tool_name: {tool}")
            fm += self.args_yaml(args)
            head = "---\n" + "\n".join(fm) + "\n---\n\n"
            body = self.golden_body(name, description, args, size - len(head), skill_dir, links)
        else:
            head = "---\n" + "\n".join(fm) + "\n---\n\n"
            body = self.plain_body(name, size - len(head), links)
        data = (head + body).encode("utf-8")
        (skill_dir / "SKILL.md").write_bytes(data)
        self.files_written += 1
        self.bytes_written += len(data)


def escape_placeholders(text: str) -> str:
    """`{Name}` in corpus text would be a placeholder of no argument: write it as `\\{Name}`."""
    return PLACEHOLDER_RE.sub(lambda m: "\\" + m.group(0), text)


def title_of(name: str) -> str:
    words = re.split(r"[-_\s]+", name.strip())
    return " ".join(w[:1].upper() + w[1:] for w in words if w) or "Skill"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, help="how many skills to generate")
    parser.add_argument("--out", type=Path, help="folder to write the catalog into (must be empty or absent)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--golden-share", type=float, default=0.2, help="fraction of Golden Path skills (0-1)")
    parser.add_argument("--no-files", action="store_true", help="no extra files (Golden Path templates are still written)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"corpus to measure (default {DEFAULT_CORPUS})")
    parser.add_argument("--print-stats", action="store_true", help="print the measured distributions (JSON) and exit")
    opts = parser.parse_args()

    started = time.monotonic()
    corpus = Corpus(opts.corpus)
    if opts.print_stats:
        print(json.dumps(corpus.stats(), indent=2))
        return
    if opts.count is None or opts.out is None:
        parser.error("--count and --out are required")
    if opts.count < 0 or not 0 <= opts.golden_share <= 1:
        parser.error("--count must be >= 0 and --golden-share within 0..1")
    out: Path = opts.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        sys.exit(f"gen_catalog: {out} exists and is not an empty folder; remove it first")
    out.mkdir(parents=True, exist_ok=True)

    rng = random.Random(opts.seed)
    gen = Generator(corpus, rng, with_files=not opts.no_files)
    golden_count = round(opts.count * opts.golden_share)
    golden = set(rng.sample(range(opts.count), golden_count))
    progress = opts.count >= 2000
    step = max(1000, opts.count // 20)
    for i in range(opts.count):
        gen.skill(out, i in golden)
        if progress and (i + 1) % step == 0:
            print(f"gen_catalog: {i + 1}/{opts.count} skills, {gen.bytes_written / 1e6:.0f} MB, "
                  f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    seconds = time.monotonic() - started
    print(json.dumps({
        "count": opts.count, "golden": golden_count, "files": gen.files_written, "bytes": gen.bytes_written,
        "seconds": round(seconds, 2), "seed": opts.seed, "with_files": not opts.no_files, "out": str(out),
        "corpus_skills": corpus.skill_count,
    }))


if __name__ == "__main__":
    main()
