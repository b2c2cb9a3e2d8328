"""One contract, two backends: the embedded Qdrant Edge store and the server store
(qdrant-client's local mode standing in for a Qdrant server)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from citeloom.embed.encoders import SparseEmbedder
from citeloom.errors import EmbeddingMismatch, InvalidInput, InvalidProject
from citeloom.index import (
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    ModelLock,
    PointData,
    SearchFilter,
    Store,
    make_store,
)

LOCK = ModelLock("test/dense", 3, "Qdrant/bm25", 256)
DOCS = [  # doc_id, year, tags, section, labels, text, dense
    ("d1", 2019, ["ir", "fusion"], ["2 Methods", "2.1 Fusion"], ["text"],
     "Hybrid retrieval fuses dense and sparse rankings.", [1, 0, 0]),
    ("d1", 2019, ["ir"], ["2 Methods", "2.2 Calibration"], ["text"],
     "Reciprocal rank fusion needs no score calibration.", [0.9, 0.1, 0]),
    ("d2", 2021, ["ocr"], ["3 Results"], ["text", "table"],
     "Tesseract recognises characters in scanned pages.", [0, 1, 0]),
    ("d2", 2021, ["ocr", "fusion"], ["References"], ["reference"],
     "[1] Smith J. A reference list entry about fusion.", [0.5, 0.5, 0.1]),
]


def pid(i: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"point-{i}"))


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    if request.param == "edge":
        s = make_store("edge", tmp_path / "indexes")
    else:
        s = make_store("server", tmp_path / "indexes", qdrant_url=f"file://{tmp_path / 'q'}")
    yield s
    s.close()


@pytest.fixture
def index(store: Store):  # type: ignore[no-untyped-def]
    idx = store.open("t", create=True)
    idx.ensure(LOCK)
    sparse = SparseEmbedder()
    idx.upsert([
        PointData(pid(i), dense, sparse.embed([text])[0], {
            "doc_id": doc, "year": year, "tags": tags, "chunk_text": text,
            "item_labels": labels, "section_path": " > ".join(sec),
            "section_prefixes": [" > ".join(sec[: j + 1]) for j in range(len(sec))],
            "authors": ["Smith, J"] if doc == "d1" else ["Doe, A"], "page_start": i + 1,
            # 0 and 1 are passages indexed before chunks had a kind; 2 an annotation
            **({2: {"kind": "annotation", "color": "#ffd400"}, 3: {"kind": "note"}}
               .get(i, {}))})
        for i, (doc, year, tags, sec, labels, text, dense) in enumerate(DOCS)
    ])
    yield idx
    idx.close()


def ids(hits) -> set[str]:  # type: ignore[no-untyped-def]
    return {h.id for h in hits}


def test_unknown_project_is_invalid(store: Store) -> None:
    with pytest.raises(InvalidProject, match="ingest into it first"):
        store.open("nope")


def test_payload_indexes_exist(store: Store, index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if hasattr(store, "client"):
        # qdrant-client's local mode accepts payload indexes but keeps none, so for the
        # server backend the check is that each one is requested, with the right type.
        asked: dict[str, str] = {}
        monkeypatch.setattr(store.client, "create_payload_index",
                            lambda coll, name, field_schema: asked.__setitem__(
                                name, field_schema.value))
        fresh = store.open("fresh", create=True)
        fresh.ensure(LOCK)
        have = asked
    else:
        have = index.payload_indexes()
    assert set(KEYWORD_FIELDS) | set(INTEGER_FIELDS) | set(TEXT_FIELDS) <= set(have)
    assert have["year"] == "integer" and have["chunk_text"] == "text"
    assert have["doc_id"] == "keyword"


def test_counts_scroll_retrieve_delete(index) -> None:  # type: ignore[no-untyped-def]
    assert index.count() == 4 and index.count("d1") == 2
    assert ids(index.scroll(batch=1)) == {pid(i) for i in range(4)}  # pages through all
    assert ids(index.scroll("d2")) == {pid(2), pid(3)}
    assert index.retrieve([pid(0)])[0].payload["doc_id"] == "d1"
    assert ids(index.scroll(flt=SearchFilter(kinds=["annotation", "note"]))) == {pid(2), pid(3)}
    assert ids(index.scroll("d2", batch=1, flt=SearchFilter(kinds=["passage"]))) == set()
    assert ids(index.scroll("d1", flt=SearchFilter(page_from=2))) == {pid(1)}
    index.delete_doc("d1")
    assert index.count() == 2 and index.count("d1") == 0
    index.delete_ids([pid(3)])
    index.delete_ids([])
    assert ids(index.scroll()) == {pid(2)}


def test_dense_sparse_hybrid(index) -> None:  # type: ignore[no-untyped-def]
    sparse = SparseEmbedder().embed_query("tesseract scanned")
    assert [h.id for h in index.search(dense=[1, 0, 0], sparse=None, mode="dense",
                                       limit=2)] == [pid(0), pid(1)]
    assert [h.id for h in index.search(dense=None, sparse=sparse, mode="sparse",
                                       limit=4)] == [pid(2)]
    for fusion in ("rrf", "dbsf"):
        hybrid = index.search(dense=[1, 0, 0], sparse=sparse, mode="hybrid", limit=4,
                              fusion=fusion)
        assert len(hybrid) == 4
        assert pid(2) in ids(hybrid[:2])  # the only sparse match is lifted into the top
        assert hybrid[0].score >= hybrid[-1].score


def _dbsf_normalised(ranking: list[tuple[str, float]]) -> dict[str, float]:
    """Qdrant's DBSF normalisation: mean -/+ 3 sample standard deviations -> 0 and 1."""
    if len(ranking) < 2:
        return {i: 0.5 for i, _ in ranking}
    values = [v for _, v in ranking]
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return {i: (v - mean + 3 * sd) / (6 * sd) for i, v in ranking}


def test_dbsf_counts_the_dense_ranking_dense_weight_times(index) -> None:  # type: ignore[no-untyped-def]
    """A hybrid DBSF search's scores are the dense and the sparse rankings' normalised
    scores summed, the dense one ``dense_weight`` times, in either backend."""
    sparse = SparseEmbedder().embed_query("tesseract scanned characters")
    flt = SearchFilter(exclude_labels=["reference"])
    fused = index.search(dense=[0.6, 0.8, 0], sparse=sparse, mode="hybrid", limit=2,
                         flt=flt, fusion="dbsf", dense_weight=2)
    dense = [(h.id, h.score) for h in index.search(
        dense=[0.6, 0.8, 0], sparse=None, mode="dense", limit=100, flt=flt)]
    bm25 = [(h.id, h.score) for h in index.search(
        dense=None, sparse=sparse, mode="sparse", limit=100, flt=flt)]
    assert [i for i, _ in dense] == [pid(2), pid(1), pid(0)]  # the reference is left out
    assert [i for i, _ in bm25] == [pid(2)]
    nd, ns = _dbsf_normalised(dense), _dbsf_normalised(bm25)
    assert {h.id: h.score for h in fused} == pytest.approx(
        {i: 2 * nd[i] + ns.get(i, 0.0) for i in (pid(1), pid(2))}, abs=1e-5)


@pytest.mark.parametrize(("flt", "expected"), [
    (SearchFilter(doc_ids=["d2"]), {2, 3}),
    (SearchFilter(year_from=2020), {2, 3}),
    (SearchFilter(year_to=2019), {0, 1}),
    (SearchFilter(tags_any=["fusion"]), {0, 3}),
    (SearchFilter(tags_all=["ocr", "fusion"]), {3}),
    (SearchFilter(authors=["Smith, J"]), {0, 1}),
    (SearchFilter(section_prefix="2 Methods"), {0, 1}),
    (SearchFilter(section_prefix="2 Methods > 2.2 Calibration"), {1}),
    (SearchFilter(exclude_labels=["reference"]), {0, 1, 2}),
    (SearchFilter(include_labels=["table"]), {2}),
    (SearchFilter(exclude_ids=[pid(0)]), {1, 2, 3}),
    (SearchFilter(kinds=["passage"]), {0, 1}),  # a chunk without a kind is a passage
    (SearchFilter(kinds=["annotation"]), {2}),
    (SearchFilter(kinds=["passage", "note"]), {0, 1, 3}),
    (SearchFilter(kinds=["passage", "annotation", "note"]), {0, 1, 2, 3}),
    (SearchFilter(colors=["#ffd400"]), {2}),
    (SearchFilter(page_from=2, page_to=3), {1, 2}),
])
def test_filters(index, flt: SearchFilter, expected: set[int]) -> None:  # type: ignore[no-untyped-def]
    sparse = SparseEmbedder().embed_query("fusion")
    for mode in ("dense", "hybrid"):
        hits = index.search(dense=[0.5, 0.5, 0.5], sparse=sparse, mode=mode, limit=10, flt=flt)
        assert ids(hits) == {pid(i) for i in expected}, mode


def test_recommend_from_chunk_ids(index) -> None:  # type: ignore[no-untyped-def]
    hits = index.recommend([pid(0)], [], limit=2)
    assert hits[0].id == pid(1) and pid(0) not in ids(hits)
    away = index.recommend([pid(0)], [pid(1)], limit=3)
    assert pid(1) not in ids(away)
    with pytest.raises(InvalidInput, match="unknown chunk"):
        index.recommend([str(uuid.uuid4())], [], limit=2)


def test_model_lock_persists_and_refuses_other_models(store: Store, index) -> None:  # type: ignore[no-untyped-def]
    index.close()
    again = store.open("t")
    assert again.lock() == LOCK and again.count() == 4
    with pytest.raises(EmbeddingMismatch, match="citeloom reindex --project t") as exc:
        again.ensure(ModelLock("other/model", 3, "Qdrant/bm25", 256))
    assert "test/dense" in str(exc.value) and "other/model" in str(exc.value)
    assert store.projects() == ["t"]


def test_generations_swap_atomically(store: Store, index) -> None:  # type: ignore[no-untyped-def]
    new = store.new_generation("t")
    assert new.generation != index.generation
    other = ModelLock("other/model", 3, "Qdrant/bm25", 128)
    new.ensure(other)
    new.upsert([PointData(pid(9), [0, 0, 1], SparseEmbedder().embed(["x"])[0],
                          {"doc_id": "d9"})])
    assert store.current_generation("t") == index.generation  # not visible yet
    assert store.open("t").count() == 4
    store.promote("t", new)
    current = store.open("t")
    assert current.generation == new.generation and current.lock() == other
    assert current.count() == 1
    # An aborted migration leaves nothing behind.
    aborted = store.new_generation("t")
    aborted.ensure(LOCK)
    store.drop("t", aborted)
    assert store.current_generation("t") == new.generation


def test_dense_vectors_and_recommend_by_vectors(index) -> None:  # type: ignore[no-untyped-def]
    vecs = index.dense_vectors([pid(0), pid(2), str(uuid.uuid4())])
    assert set(vecs) == {pid(0), pid(2)} and len(vecs[pid(0)]) == 3
    # The same ranking as by ids: a vector from another project of the same model works.
    hits = index.recommend_vectors([vecs[pid(0)]], [], limit=2,
                                   flt=SearchFilter(exclude_ids=[pid(0)]))
    assert [h.id for h in hits] == [h.id for h in index.recommend([pid(0)], [], limit=2)]
    away = index.recommend_vectors([vecs[pid(0)]], [index.dense_vectors([pid(1)])[pid(1)]],
                                   limit=4, flt=SearchFilter(exclude_ids=[pid(0), pid(1)]))
    assert pid(1) not in ids(away) and pid(0) not in ids(away)


def emulate_server_snapshots(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """qdrant-client's local mode has no snapshot API (create_snapshot and recover raise
    NotImplementedError). For the server store's own steps — snapshot, download, delete it
    on the server; upload into a new generation, check, promote or drop — these stand in
    for the server: a "snapshot" is the collection's config, metadata and points as JSON."""
    import json

    from qdrant_client import models as m

    client = store.client  # type: ignore[attr-defined]
    made: dict[str, str] = {}

    def create_snapshot(collection: str, wait: bool = True) -> m.SnapshotDescription:
        made[f"{collection}.snapshot"] = collection
        return m.SnapshotDescription(name=f"{collection}.snapshot", size=0)

    def delete_snapshot(collection: str, name: str, wait: bool = True) -> bool:
        return made.pop(name) == collection

    def download(collection: str, name: str, path: Path) -> None:
        info = client.get_collection(collection)
        points, _ = client.scroll(collection, limit=10_000, with_vectors=True)
        path.write_text(json.dumps({
            "metadata": info.config.metadata,
            "dim": info.config.params.vectors["dense"].size,
            "points": [{"id": str(p.id), "payload": p.payload,
                        "dense": p.vector["dense"], "sparse": p.vector["sparse"].model_dump()}
                       for p in points]}))

    def upload(collection: str, path: Path) -> None:
        data = json.loads(path.read_text())
        client.create_collection(
            collection, vectors_config={"dense": m.VectorParams(
                size=data["dim"], distance=m.Distance.COSINE)},
            sparse_vectors_config={"sparse": m.SparseVectorParams(modifier=m.Modifier.IDF)},
            metadata=data["metadata"])
        client.upsert(collection, points=[m.PointStruct(
            id=p["id"], payload=p["payload"],
            vector={"dense": p["dense"], "sparse": m.SparseVector(**p["sparse"])})
            for p in data["points"]])

    monkeypatch.setattr(client, "create_snapshot", create_snapshot)
    monkeypatch.setattr(client, "delete_snapshot", delete_snapshot)
    monkeypatch.setattr(store, "_download", download)
    monkeypatch.setattr(store, "_upload", upload)
    monkeypatch.setattr(store, "url", "http://qdrant.emulated")


def test_snapshot_restores_a_generation_under_another_name(
        store: Store, index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    if hasattr(store, "client"):
        emulate_server_snapshots(monkeypatch, store)
    dense_hits = ids(index.search(dense=[1, 0, 0], sparse=None, mode="dense", limit=2))
    store.snapshot("t", tmp_path / "indexes" / ".snap")
    with pytest.raises(InvalidProject):
        store.snapshot("nope", tmp_path / "indexes" / ".none")
    new = store.restore("u", tmp_path / "indexes" / ".snap")
    assert store.current_generation("u") is None  # not current until promoted
    assert new.lock() == LOCK and new.count() == 4
    store.promote("u", new)
    copy = store.open("u")
    assert copy.count() == 4 and copy.lock() == LOCK
    assert ids(copy.search(dense=[1, 0, 0], sparse=None, mode="dense", limit=2)) == dense_hits
    # Onto an existing project: a new generation, swapped in; the old one goes.
    store.snapshot("u", tmp_path / "indexes" / ".again")
    old = store.current_generation("t")
    again = store.restore("t", tmp_path / "indexes" / ".again")
    store.promote("t", again)
    assert store.current_generation("t") == again.generation != old
    assert store.open("t").count() == 4
    # A restore given up on (the caller's check failed) leaves nothing.
    store.snapshot("u", tmp_path / "indexes" / ".third")
    dropped = store.restore("w", tmp_path / "indexes" / ".third")
    store.drop("w", dropped)
    assert "w" not in store.projects()


def test_local_mode_says_it_has_no_snapshot_api(tmp_path: Path) -> None:
    """What qdrant-client's local mode does not support: making or recovering a snapshot.
    The server store says so with a coded error, and creates nothing."""
    from citeloom.errors import ConfigError

    s = make_store("server", tmp_path / "indexes", qdrant_url=f"file://{tmp_path / 'q'}")
    try:
        idx = s.open("t", create=True)
        idx.ensure(LOCK)
        with pytest.raises(ConfigError, match="local mode"):
            s.snapshot("t", tmp_path / "snap")
        (tmp_path / "staged").mkdir()
        (tmp_path / "staged" / "collection.snapshot").write_bytes(b"x")
        with pytest.raises(ConfigError, match="local mode"):
            s.restore("u", tmp_path / "staged")
        assert s.projects() == ["t"] and not (tmp_path / "snap").exists()
        assert [c.name for c in s.client.get_collections().collections] == [  # type: ignore[attr-defined]
            "citeloom__t__g0001"]
    finally:
        s.close()
