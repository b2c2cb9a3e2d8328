"""The provisioned ONNX export of all-MiniLM-L6-v2, run through CiteLoom's fastembed
loader, matches sentence-transformers.

The reference vectors in tests/fixtures/reference_embeddings.json were made independently,
with real torch 2.13.0 (CPU) + sentence-transformers 6.2.0 in a throwaway venv, by
``scripts/make_reference_embeddings.py`` (normalised, max_seq_length 256). The project's
venv has no torch: the ONNX graph is written from the safetensors with numpy + onnx.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from citeloom.embed.encoders import DenseEmbedder

FIXTURE = Path(__file__).parents[1] / "fixtures" / "reference_embeddings.json"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def embedder(models_dir: Path) -> DenseEmbedder:
    return DenseEmbedder(models_dir, MODEL)


@pytest.mark.parametrize("batch_size", [1, 64], ids=["unpadded", "padded-batch"])
def test_matches_sentence_transformers(embedder: DenseEmbedder, reference: dict,
                                       batch_size: int) -> None:
    got = embedder.embed(reference["sentences"], batch_size=batch_size)
    want = np.array(reference["embeddings"], dtype=np.float32)
    assert got.shape == want.shape == (len(reference["sentences"]), 384)
    diffs = np.abs(got - want).max(axis=1)
    assert diffs.max() < 1e-4, diffs


def test_query_embedding_is_the_document_embedding(embedder: DenseEmbedder,
                                                   reference: dict) -> None:
    """No query prefix for this model: a query and a passage of the same text coincide."""
    text = reference["sentences"][1]
    assert np.allclose(embedder.embed_query(text), reference["embeddings"][1], atol=1e-4)


def test_long_passage_truncated_at_256(embedder: DenseEmbedder, tokenizer,
                                       reference: dict) -> None:
    longest = max(reference["sentences"], key=len)
    assert len(tokenizer.encode(longest).ids) > 256  # else the check proves nothing
    assert embedder.token_count(longest) == 256
