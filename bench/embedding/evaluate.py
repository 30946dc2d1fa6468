#!/usr/bin/env python3
"""Measures a static embedding model against skillpath's search on the labelled queries.

Usage: evaluate.py MODEL_DIR [--skillpath PATH] [--corpus DIR] [--queries FILE]

MODEL_DIR is what `distill.py` writes. The corpus is imported into a temporary store with
`skillpath import`; every labelled query of `bench/search-quality/queries.json` is ranked three
ways, and recall@1, recall@5 and MRR (over the first ten, as `skillpath eval triggers` counts
them) are printed for each:

- the search: `skillpath search --limit 50`, what `search_skills` answers with;
- the model alone: the cosine of the query's vector and each skill's (its name and description),
  a text's vector being the mean of its WordPiece tokens' vectors;
- both, fused by reciprocal rank: a skill scores `w / (k + rank)` in the search's ranking plus
  `1 / (k + rank)` in the model's, for a grid of `k` and `w` (the best of a grid is tuned on the
  set itself: read it as an upper bound).
"""

import argparse
import json
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


class StaticModel:
    """A model written by distill.py: WordPiece vocabulary and one vector per token."""

    def __init__(self, folder: Path):
        config = json.loads((folder / "config.json").read_text())
        self.vocab = {
            token: i
            for i, token in enumerate((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
        }
        self.vectors = np.fromfile(folder / "embeddings.f32", dtype="<f4").reshape(
            config["rows"], config["dims"]
        )

    def tokens(self, text: str) -> list[int]:
        # BERT's basic tokenizer (lowercase, accents stripped, punctuation split off), then
        # greedy longest-match WordPiece; a word with no split is left out.
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        words = []
        for chunk in text.split():
            current = ""
            for c in chunk:
                if unicodedata.category(c).startswith("P") or (c.isascii() and not c.isalnum()):
                    words += [current, c] if current else [c]
                    current = ""
                else:
                    current += c
            if current:
                words.append(current)
        ids = []
        for word in words:
            pieces, start = [], 0
            while start < len(word):
                end = len(word)
                while end > start:
                    piece = ("##" if start else "") + word[start:end]
                    if piece in self.vocab:
                        break
                    end -= 1
                if end == start:
                    pieces = []
                    break
                pieces.append(self.vocab[piece])
                start = end
            ids += pieces
        return ids

    def embed(self, text: str) -> np.ndarray:
        ids = self.tokens(text)
        if not ids:
            return np.zeros(self.vectors.shape[1], dtype=np.float32)
        vector = self.vectors[ids].mean(0)
        norm = np.linalg.norm(vector)
        return vector / norm if norm else vector


def search(skillpath: Path, db: str, query: str) -> list[str]:
    out = subprocess.run(
        [str(skillpath), "search", query, "--db", db, "--format", "json", "--limit", "50"],
        capture_output=True, text=True, check=True,
    ).stdout
    return [hit["name"] for hit in json.loads(out) if hit["kind"] == "skill"]


def scores(rows, ranking) -> tuple[float, float, float]:
    """recall@1, recall@5 and MRR (0 past the tenth) of `ranking(query)` over labelled rows."""
    at1 = at5 = mrr = 0.0
    for row in rows:
        first = ranking(row["query"])[:10]
        if row["skill"] in first:
            rank = first.index(row["skill"]) + 1
            at1 += rank == 1
            at5 += rank <= 5
            mrr += 1 / rank
    return tuple(round(x / len(rows), 3) for x in (at1, at5, mrr))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--skillpath", type=Path, default=ROOT / "target/release/skillpath")
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/corpus")
    parser.add_argument("--queries", type=Path, default=ROOT / "bench/search-quality/queries.json")
    args = parser.parse_args()

    model = StaticModel(args.model)
    rows = [row for row in json.loads(args.queries.read_text()) if row["skill"]]
    with tempfile.TemporaryDirectory() as temp:
        db = str(Path(temp) / "store.db")
        subprocess.run(
            [str(args.skillpath), "import", str(args.corpus), "--db", db, "--format", "json"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        listed = subprocess.run(
            [str(args.skillpath), "list", "--db", db, "--format", "json", "--kind", "skill",
             "--limit", "100000"],
            capture_output=True, text=True, check=True,
        ).stdout
        skills = json.loads(listed)["items"]
        lexical = {row["query"]: search(args.skillpath, db, row["query"]) for row in rows}

    names = [s["name"] for s in skills]
    matrix = np.stack([model.embed(s["name"].replace("-", " ") + ". " + s["description"]) for s in skills])

    def embedded(query):
        order = np.argsort(-(matrix @ model.embed(query)))[:50]
        return [names[i] for i in order]

    print(f"search alone:  recall@1, recall@5, MRR = {scores(rows, lambda q: lexical[q])}")
    print(f"model alone:   recall@1, recall@5, MRR = {scores(rows, embedded)}")
    for k in (3, 5, 10, 30):
        for weight in (1.0, 2.0, 3.0, 4.0):
            def fused(query):
                score = {}
                for rank, name in enumerate(lexical[query]):
                    score[name] = score.get(name, 0) + weight / (k + rank + 1)
                for rank, name in enumerate(embedded(query)):
                    score[name] = score.get(name, 0) + 1 / (k + rank + 1)
                return sorted(score, key=lambda name: -score[name])

            print(f"fused k={k:<2} w={weight}: recall@1, recall@5, MRR = {scores(rows, fused)}")


if __name__ == "__main__":
    sys.exit(main())
