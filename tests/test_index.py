"""The Edge index: named dense + sparse vectors, payload indexes, model lock, filters."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from citeloom.embed import SparseEmbedder
from citeloom.errors import EmbeddingMismatch, InvalidProject
from citeloom.index import (
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    EdgeIndex,
    ModelLock,
    PointData,
    SearchFilter,
)

LOCK = ModelLock("test/dense", 3, "Qdrant/bm25", 256)
TEXTS = [
    ("d1", 2019, "Hybrid retrieval fuses dense and sparse rankings.", ["text"]),
    ("d1", 2019, "Reciprocal rank fusion needs no score calibration.", ["text"]),
    ("d2", 2021, "Tesseract recognises characters in scanned pages.", ["text"]),
    ("d2", 2021, "[1] Smith J. A reference list entry about fusion.", ["reference"]),
]
VECS = [[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0.5, 0.5, 0.1]]


@pytest.fixture
def index(tmp_path: Path) -> EdgeIndex:
    idx = EdgeIndex(tmp_path, "t", create=True)
    idx.ensure(LOCK)
    sparse = SparseEmbedder()
    idx.upsert([
        PointData(str(uuid.uuid5(uuid.NAMESPACE_OID, t)), VECS[i], sparse.embed([t])[0],
                  {"doc_id": d, "year": y, "chunk_text": t, "item_labels": labels})
        for i, (d, y, t, labels) in enumerate(TEXTS)
    ])
    yield idx
    idx.close()


def test_missing_project_is_invalid(tmp_path: Path) -> None:
    with pytest.raises(InvalidProject, match="ingest into it first"):
        EdgeIndex(tmp_path, "nope")


def test_payload_indexes_are_created(index: EdgeIndex) -> None:
    schema = index._open().info().payload_schema
    assert set(KEYWORD_FIELDS) | set(INTEGER_FIELDS) | {"chunk_text"} <= set(schema)


def test_modes_and_filters(index: EdgeIndex) -> None:
    sparse = SparseEmbedder().embed_query("rank fusion")
    dense_hits = index.search(dense=[1, 0, 0], sparse=None, mode="dense", limit=2)
    assert [h.payload["chunk_text"][:6] for h in dense_hits] == ["Hybrid", "Recipr"]
    sparse_hits = index.search(dense=None, sparse=sparse, mode="sparse", limit=4)
    assert {h.payload["doc_id"] for h in sparse_hits} == {"d1", "d2"}  # "fusion" in both
    # Stemmed term matches only: "rank" also matches "rankings"; the OCR text has neither.
    assert all({"fusion", "rank"} & set(h.payload["chunk_text"].lower().replace(".", "").split())
               or "rankings" in h.payload["chunk_text"] for h in sparse_hits)
    assert not any("Tesseract" in h.payload["chunk_text"] for h in sparse_hits)
    hybrid = index.search(dense=[0, 1, 0], sparse=sparse, mode="hybrid", limit=4)
    assert len(hybrid) == 4 and hybrid[0].score >= hybrid[-1].score
    dbsf = index.search(dense=[0, 1, 0], sparse=sparse, mode="hybrid", fusion="dbsf", limit=4)
    assert len(dbsf) == 4
    only_d2 = index.search(dense=[1, 0, 0], sparse=sparse, mode="hybrid", limit=4,
                           flt=SearchFilter(doc_ids=["d2"]))
    assert {h.payload["doc_id"] for h in only_d2} == {"d2"}
    no_refs = index.search(dense=[0.5, 0.5, 0.1], sparse=sparse, mode="hybrid", limit=4,
                           flt=SearchFilter(exclude_labels=["reference"]))
    assert all("reference" not in h.payload["item_labels"] for h in no_refs)
    recent = index.search(dense=[1, 0, 0], sparse=None, mode="dense", limit=4,
                          flt=SearchFilter(year_from=2020))
    assert {h.payload["year"] for h in recent} == {2021}


def test_model_lock_survives_reopen_and_refuses_other_models(index: EdgeIndex,
                                                             tmp_path: Path) -> None:
    index.close()
    again = EdgeIndex(tmp_path, "t")
    assert again.lock() == LOCK
    assert again.count() == 4
    with pytest.raises(EmbeddingMismatch, match="citeloom reindex --project t") as exc:
        again.ensure(ModelLock("other/model", 3, "Qdrant/bm25", 256))
    assert "test/dense" in str(exc.value) and "other/model" in str(exc.value)
    again.close()


def test_delete_doc(index: EdgeIndex) -> None:
    index.delete_doc("d1")
    assert index.count() == 2 and index.count("d1") == 0


def test_stopwords_are_removed_by_bm25() -> None:
    sparse = SparseEmbedder()
    assert sparse.embed(["the of and"])[0].indices == []
    assert len(sparse.embed_query("fusion of rankings").indices) == 2
