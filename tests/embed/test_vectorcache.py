"""The vector cache (embed/vectorcache.py): text the model has read before is not embedded
again, and what comes back is bit for bit what the model gives; a damaged cache costs time,
never an ingest. Real bge-small, real SQLite files, a real ingest of a real PDF."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from citeloom.embed.encoders import DenseEmbedder
from citeloom.embed.vectorcache import fingerprint
from citeloom.service import CiteLoom

from ..conftest import FIXTURE_PDFS

BGE = "BAAI/bge-small-en-v1.5"
TEXTS = [
    "Retrievable inferior vena cava filters migrated in three to eight percent of patients.",
    "Low molecular weight heparin prevented deep venous thrombosis after trauma surgery.",
    "TableFormer predicts the structure of tables in document images.",
    "Tesseract recognises the text of scanned pages when a PDF has no text layer.",
    "Major bleeding was rare among patients given prophylactic anticoagulation.",
]


class Counting:
    """Counts the passages that reach the model (and can refuse them)."""

    def __init__(self, emb: DenseEmbedder, refuse: bool = False) -> None:
        self.seen: list[str] = []
        real = emb.embed

        def embed(texts: list[str], batch_size: int = 1) -> np.ndarray:
            if refuse and texts:
                raise AssertionError(f"embedded although cached: {texts}")
            self.seen += texts
            return real(texts, batch_size)

        emb.embed = embed  # type: ignore[method-assign]


def test_cached_vectors_are_the_models_own(models_dir: Path, tmp_path: Path) -> None:
    plain = DenseEmbedder(models_dir, BGE, threads=1).embed(TEXTS)
    first = DenseEmbedder(models_dir, BGE, threads=1, cache_dir=tmp_path)
    spy = Counting(first)
    assert np.array_equal(first.embed_passages(TEXTS[:3]), plain[:3])
    assert np.array_equal(first.embed_passages(TEXTS), plain)  # 3 from the cache, 2 new
    assert spy.seen == TEXTS[:3] + TEXTS[3:]
    assert first.cache is not None
    with sqlite3.connect(first.cache.path) as db:
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(TEXTS)

    # Another process (a new embedder over the same folder) reads them without the model.
    second = DenseEmbedder(models_dir, BGE, threads=1, cache_dir=tmp_path)
    Counting(second, refuse=True)
    assert np.array_equal(second.embed_passages(list(reversed(TEXTS))), plain[::-1])
    assert second.embed_passages([]).shape == (0, 384)


def test_a_damaged_cache_file_costs_time_not_the_vectors(models_dir: Path, tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture
                                                         ) -> None:
    emb = DenseEmbedder(models_dir, BGE, threads=1, cache_dir=tmp_path)
    assert emb.cache is not None
    emb.cache.path.parent.mkdir(parents=True)
    emb.cache.path.write_bytes(b"this is not a database" * 100)
    plain = DenseEmbedder(models_dir, BGE, threads=1).embed(TEXTS)
    with caplog.at_level(logging.WARNING):
        assert np.array_equal(emb.embed_passages(TEXTS), plain)
        assert np.array_equal(emb.embed_passages(TEXTS), plain)
    warned = [r.getMessage() for r in caplog.records if "vector cache" in r.getMessage()]
    assert len(warned) == 1 and str(emb.cache.path) in warned[0] and "delete" in warned[0]


def test_another_model_graph_has_a_cache_of_its_own(tmp_path: Path) -> None:
    model = tmp_path / "dense" / "m" / "model.onnx"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"graph")
    manifest = tmp_path / "manifest.json"

    def provisioned(sha: str) -> str:
        manifest.write_text(json.dumps({"artifacts": [
            {"path": "/elsewhere/dense/m/tokenizer.json", "sha256": "t" * 64},
            {"path": f"/elsewhere/dense/m/{model.name}", "sha256": sha}]}))
        return fingerprint(model)

    assert provisioned("a" * 64) == "a" * 12
    assert provisioned("b" * 64) == "b" * 12
    manifest.unlink()  # no manifest: the file's size and time stand for it
    without = fingerprint(model)
    model.write_bytes(b"another graph")
    assert fingerprint(model) != without


def test_a_second_project_embeds_nothing_and_gets_the_same_vectors(make_settings,
                                                                   tmp_path: Path) -> None:
    app = CiteLoom(make_settings(cache_dir=tmp_path / "cache"))
    pdf = FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"
    try:
        assert app.ingest([pdf], "a").count("indexed") == 1
        Counting(app.runtime.models.dense(BGE), refuse=True)
        assert app.ingest([pdf], "b").count("indexed") == 1
        vectors = []
        for name in ("a", "b"):
            index = app.runtime.projects.index(name)
            ids = sorted(h.id for h in index.scroll(fields=["doc_id"]))
            vectors.append(index.dense_vectors(ids))
    finally:
        app.close()
    assert vectors[0].keys() == vectors[1].keys() and vectors[0]
    for pid, vec in vectors[0].items():
        assert np.array_equal(np.asarray(vec), np.asarray(vectors[1][pid]))
