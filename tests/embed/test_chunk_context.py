"""Chunker v2: each passage is embedded with the last words of the passage before it (the
dense model's input only; the shown and BM25-indexed text is the passage), and a project
built with v1 keeps v1 until `citeloom reindex` rebuilds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citeloom.cli import main
from citeloom.config import DEFAULT_CHUNKER, load_settings
from citeloom.embed.chunk import CONTEXT_WORDS, Chunker, token_count
from citeloom.embed.encoders import load_tokenizer
from citeloom.ingest.executor import chunk_document
from citeloom.provision import sha256_file
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest

from ..conftest import FIXTURE_PDFS

BGE = "BAAI/bge-small-en-v1.5"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
PDF = FIXTURE_PDFS / "cermine__example2.pdf"


def _context(chunk: Any) -> list[str]:
    """The words the dense input puts between the headings and the passage."""
    at = chunk.embed_text.rfind(chunk.text)
    assert at >= 0
    head, tail = chunk.embed_text[:at], chunk.embed_text[at:]
    assert chunk.dense_text.startswith(head) and chunk.dense_text.endswith("\n" + tail)
    return chunk.dense_text[len(head):-len(tail) - 1].split()


def test_a_passage_is_embedded_after_the_end_of_the_one_before(converted, models_dir: Path
                                                               ) -> None:
    doc = converted(PDF)
    bge = load_tokenizer(models_dir, BGE)
    v2 = Chunker(bge, 512, 256, "docling-hybrid/v2").chunk(doc)
    v1 = Chunker(bge, 512, 256, "docling-hybrid/v1").chunk(doc)
    assert len(v2) > 5
    # The same passages, shown and BM25-indexed as before: only the dense input differs.
    assert [(c.text, c.embed_text, c.page_start) for c in v1] == \
        [(c.text, c.embed_text, c.page_start) for c in v2]
    assert all(c.dense_text == c.embed_text for c in v1)
    assert v2[0].dense_text == v2[0].embed_text  # nothing before the first
    for before, chunk in zip(v2, v2[1:], strict=False):
        assert token_count(bge, chunk.dense_text) <= 512
        context = _context(chunk)
        assert context == before.text.split()[-CONTEXT_WORDS[DEFAULT_CHUNKER]:]

    # MiniLM reads 256 tokens, as many as a passage may have: the context takes only the
    # room left, nearest words first, and never pushes the passage past the window.
    mini = load_tokenizer(models_dir, MINILM)
    small = Chunker(mini, 256, 256, "docling-hybrid/v2").chunk(doc)
    assert all(token_count(mini, c.dense_text) <= 256 for c in small)
    with_context = [(b, c) for b, c in zip(small, small[1:], strict=False)
                    if c.dense_text != c.embed_text]
    assert with_context  # the short passages get some
    for before, chunk in with_context:
        context = _context(chunk)
        assert 0 < len(context) <= CONTEXT_WORDS[DEFAULT_CHUNKER]
        assert before.text.split()[-len(context):][1:] == context[1:]  # its tail


def test_v3_keeps_a_sentence_cut_between_two_passages_whole(converted, models_dir: Path
                                                             ) -> None:
    doc = converted(PDF)
    bge = load_tokenizer(models_dir, BGE)
    v2 = Chunker(bge, 512, 256, "docling-hybrid/v2").chunk(doc)
    v3 = Chunker(bge, 512, 256, "docling-hybrid/v3").chunk(doc)
    # The same passages, in the same places, with no word lost or repeated...
    assert len(v3) == len(v2)
    assert " ".join(c.text for c in v3).split() == " ".join(c.text for c in v2).split()
    assert all(token_count(bge, c.embed_text) <= 256 for c in v3)
    # ...but where v2 cut a paragraph inside a sentence, v3 ends the passage at the full
    # stop and the next one starts with the rest of that sentence.
    moved = [(a2, a3, b3) for a2, a3, b3 in zip(v2, v3, v3[1:], strict=False)
             if a2.text != a3.text and a2.text.startswith(a3.text)]  # the givers
    assert moved
    for a2, a3, b3 in moved:
        assert not a2.text.rstrip().endswith((".", "!", "?"))
        assert a3.text.rstrip().endswith((".", "!", "?", ".)", '."'))
        tail = a2.text[len(a3.text):].strip()
        assert tail and b3.text.startswith(tail)
        assert b3.embed_text.endswith(b3.text) and a3.embed_text.endswith(a3.text)
        assert b3.page_start <= a3.page_end or b3.page_start == a2.page_end
    # The dense input still carries the words before (v2's context), from v3's passages.
    for before, chunk in zip(v3, v3[1:], strict=False):
        assert token_count(bge, chunk.dense_text) <= 512
        assert _context(chunk) == before.text.split()[-CONTEXT_WORDS["docling-hybrid/v3"]:]


def _settings(tmp_path: Path, models_dir: Path, extra: str = "") -> Any:
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'models_dir = "{models_dir}"\n[daemon]\nenabled = false\n{extra}')
    return load_settings(str(config))


def _stored(app: CiteLoom) -> tuple[list[Any], dict[int, np.ndarray]]:
    """The PDF's chunks as the pipeline cuts them now (from the cached conversion), and
    the dense vectors the index holds for them, by chunk index."""
    project = app.settings.project("lib", create=True)
    doc = app.runtime.convert(PDF, project, sha256_file(PDF))
    chunks, _, _ = chunk_document(app.runtime, doc, PDF, project)
    index = app.runtime.projects.index("lib")
    points = {h.id: h.payload for h in index.scroll() if h.payload.get("page_start")}
    vecs = index.dense_vectors(list(points))
    return chunks, {points[i]["chunk_index"]: np.asarray(v) for i, v in vecs.items()}


def test_the_index_holds_the_context_vectors_and_an_old_project_keeps_v1(
        tmp_path: Path, models_dir: Path) -> None:
    v1 = 'chunker = "docling-hybrid/v1"\n'
    app = CiteLoom(_settings(tmp_path, models_dir, f"[projects.lib]\n{v1}"), started_by="t")
    try:
        assert app.ingest([PDF], "lib").outcome == "ok"
        assert app.runtime.projects.index("lib").lock().chunker == "docling-hybrid/v1"
        chunks, before = _stored(app)
    finally:
        app.close()
    assert len(chunks) > 5 and set(before) == set(range(len(chunks)))
    assert all(c.dense_text == c.embed_text for c in chunks)

    upgraded = _settings(tmp_path, models_dir)  # the same data, no chunker named
    app = CiteLoom(upgraded, started_by="test")
    try:
        assert upgraded.project("lib", create=True).chunker == "docling-hybrid/v1"
        assert upgraded.project("brand-new", create=True).chunker == DEFAULT_CHUNKER
        assert app.index_texts("lib", [TextDoc("more", "More", "Another passage.")]
                               ).outcome == "ok"  # a write: no EMBEDDING_MISMATCH
        info = app.inspect("lib", sample=0)
        assert info["config_matches_lock"] is True
        assert info["chunker_upgrade"] == {"to": DEFAULT_CHUNKER,
                                           "command": "citeloom reindex -p lib"}
        dense = app.runtime.dense(BGE)
        for k in (1, 2, len(chunks) - 1):  # v1: each passage embedded alone
            assert np.allclose(before[k], dense.embed([chunks[k].embed_text])[0], atol=1e-5)
    finally:
        app.close()

    # A reindex rebuilds it with today's chunker: the same passages, the dense vectors
    # of each passage after the end of the one before.
    assert main(["--config", str(upgraded.config_path), "reindex", "-p", "lib",
                 "--json"]) == 0
    app = CiteLoom(_settings(tmp_path, models_dir), started_by="test")
    try:
        assert app.runtime.projects.index("lib").lock().chunker == DEFAULT_CHUNKER
        assert app.inspect("lib", sample=0)["chunker_upgrade"] is None
        v2, after = _stored(app)
        dense = app.runtime.dense(BGE)
        # the same passages (v3 may move the end of a cut sentence to the next one)
        assert " ".join(c.text for c in v2).split() == " ".join(c.text for c in chunks).split()
        assert len(v2) == len(chunks) and set(after) == set(before)
        assert np.allclose(after[0], before[0], atol=1e-5)  # nothing before the first
        for k in (1, 2, len(v2) - 1):
            assert v2[k].dense_text != v2[k].embed_text
            assert np.allclose(after[k], dense.embed([v2[k].dense_text])[0], atol=1e-5)
            assert not np.allclose(after[k], before[k], atol=1e-3)
        assert app.query(QueryRequest("lib", "What do the authors conclude?", top_k=3)).hits
        # a document given as text has no file to rebuild from: it is rebuilt from its
        # passage, not left out
        more = list(app.runtime.projects.index("lib").scroll("more"))
        assert [(h.payload["chunk_text"], h.payload["title"]) for h in more] == [
            ("Another passage.", "More")]
    finally:
        app.close()

    # A configuration that names v1 keeps it through a reindex.
    app = CiteLoom(_settings(tmp_path, models_dir, f"[projects.lib]\n{v1}"), started_by="t")
    try:
        app.reindex("lib")
        assert app.runtime.projects.index("lib").lock().chunker == "docling-hybrid/v1"
        assert app.inspect("lib", sample=0)["chunker_upgrade"] is None
    finally:
        app.close()


@pytest.mark.parametrize("name", ["docling-hybrid/v9"])
def test_an_unknown_chunker_is_a_config_error(tmp_path: Path, models_dir: Path,
                                              name: str) -> None:
    with pytest.raises(Exception, match="docling-hybrid/v1"):
        _settings(tmp_path, models_dir, f'[projects.lib]\nchunker = "{name}"\n')
