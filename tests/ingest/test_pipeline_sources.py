"""Every way into an index runs through the one ingest loop (``service.pipeline.Pipeline``):
files and folders, a Zotero collection, plain texts, and reindex — a test each, with real
inputs, each leaving an audit log; their chunks are the same whichever way a document came."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeloom.index import SearchFilter
from citeloom.ingest.pipeline import Pipeline
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest

from ..conftest import CORPUS, FIXTURE_PDFS
from ..zotero.test_zotero_ingest import library  # noqa: F401 (a real zotero.sqlite with two PDFs)

pytestmark = pytest.mark.slow
THROMBOSIS = FIXTURE_PDFS / "cermine__test1.pdf"  # the two PDFs of the Zotero fixture too
TABLES = CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources every Pipeline.run saw, in order."""
    seen: list[str] = []
    real = Pipeline.run

    def spy(self: Pipeline, source, **kw):  # type: ignore[no-untyped-def]
        seen.append(type(source).__name__)
        return real(self, source, **kw)

    monkeypatch.setattr(Pipeline, "run", spy)
    return seen


def _audit(report) -> list[dict]:  # type: ignore[no-untyped-def]
    assert report.audit_log, "every ingest writes an audit log"
    return [json.loads(line) for line in Path(report.audit_log).read_text().splitlines()]


def _papers(tmp_path: Path) -> Path:
    papers = tmp_path / "papers"
    papers.mkdir()
    shutil.copy(THROMBOSIS, papers / "thrombosis.pdf")
    shutil.copy(TABLES, papers / "tables.pdf")
    return papers


def test_files_and_folders(make_settings, tmp_path: Path, runs: list[str]) -> None:
    app = CiteLoom(make_settings(), started_by="test")
    try:
        files = app.ingest([_papers(tmp_path)], "f")
        assert runs == ["FileSource"] and files.outcome == "ok" and files.count("indexed") == 2
        assert app.runtime.projects.index("f").count() == files.to_dict()["chunks"] > 0
        audit = _audit(files)
        assert [(r["status"], r["source"], r["started_by"]) for r in audit] == [
            ("indexed", "files", "test")] * 2
        top = app.query(QueryRequest("f", "retrievable vena cava filter migration", top_k=1)).hits[
            0
        ]
        assert Path(top.source_path).name == "thrombosis.pdf"
    finally:
        app.close()


def test_zotero_collection(make_settings, tmp_path: Path, library: dict,  # noqa: F811
                           runs: list[str]) -> None:
    """The same two papers through Zotero: the same chunk ids as from files, plus the
    item's metadata."""
    app = CiteLoom(make_settings(), started_by="test")
    try:
        zot = app.ingest_zotero("z", "Thesis", annotations=False)
        assert runs == ["ZoteroSource"] and zot.count("indexed") == 2, zot.to_dict()
        assert {r["source"] for r in _audit(zot)} == {"zotero"}
        files = app.ingest([_papers(tmp_path)], "f")
        ids = {name: {h.id for h in app.runtime.projects.index(name).scroll()} for name in "zf"}
        assert ids["z"] == ids["f"]
        assert files.count("indexed") == 2  # other project, from the conversion cache
        cited = app.query(
            QueryRequest("z", "retrievable vena cava filter migration", top_k=1)
        ).hits[0]
        assert cited.citekey and cited.zotero_link and cited.year
    finally:
        app.close()


def test_reindex_from_the_catalog(make_settings, library: dict, runs: list[str],  # noqa: F811
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Reindex: the catalog as the source, into a new generation, converting nothing;
    Zotero's metadata is kept (it comes from the library, not the file)."""
    app = CiteLoom(make_settings(), started_by="test")
    try:
        app.ingest_zotero("z", "Thesis", annotations=False)
        ids = {h.id for h in app.runtime.projects.index("z").scroll()}
        cited = app.query(
            QueryRequest("z", "retrievable vena cava filter migration", top_k=1)
        ).hits[0]

        def no_conversion(*_a, **_k):  # type: ignore[no-untyped-def]
            raise AssertionError("converted again")

        monkeypatch.setattr("citeloom.convert.worker.ConversionWorker.convert", no_conversion)
        generation = app.runtime.projects.index("z").generation
        again = app.reindex("z")
        assert runs[-1] == "CatalogSource" and again.count("indexed") == 2, again.to_dict()
        assert app.runtime.projects.index("z").generation != generation
        assert {h.id for h in app.runtime.projects.index("z").scroll()} == ids
        after = app.query(
            QueryRequest("z", "retrievable vena cava filter migration", top_k=1)
        ).hits[0]
        assert (after.citekey, after.zotero_link, after.authors) == (
            cited.citekey, cited.zotero_link, cited.authors)
        assert len(app.runtime.projects.catalog("z")) == 2
        assert {r["source"] for r in _audit(again)} == {"reindex"}
    finally:
        app.close()



def test_zotero_collection_with_its_notes(make_settings, library: dict,  # noqa: F811
                                          runs: list[str]) -> None:
    """By default a collection comes with its items' annotations and notes: the PDFs and
    then the notes, in one run (one report, one audit log)."""

    app = CiteLoom(make_settings(), started_by="test")
    try:
        app.ingest_zotero("z", "Thesis", annotations=False)
        ids = {h.id for h in app.runtime.projects.index("z").scroll()}
        notes = app.ingest_zotero("z", "Thesis")
        assert runs[-1] == "ChainSource" and notes.outcome == "ok", notes.to_dict()
        assert [f.status for f in notes.files[:2]] == ["skipped", "skipped"]
        assert {f.status for f in notes.files[2:]} == {"indexed"} and notes.files[2:]
        assert {r["source"] for r in _audit(notes)} == {"zotero"}
        assert {h.id for h in app.runtime.projects.index("z").scroll(
            flt=SearchFilter(kinds=["passage"]))} == ids  # the PDFs' chunks untouched
    finally:
        app.close()


def test_plain_texts(make_settings, runs: list[str]) -> None:
    """The SciFact evaluation's way in: texts, no file, no conversion."""
    app = CiteLoom(make_settings(), started_by="eval")
    try:
        texts = app.index_texts("t", [
            TextDoc("d1", "Vena cava filters", "Filters migrated in three to eight percent."),
            TextDoc("d2", "Table recognition", "TableFormer predicts table structure.")])
        assert runs == ["TextSource"] and texts.count("indexed") == 2
        top = app.query(QueryRequest("t", "how often do filters migrate", top_k=1)).hits[0]
        assert top.doc_id == "d1" and top.title == "Vena cava filters"
        assert [(r["source"], r["started_by"]) for r in _audit(texts)] == [("texts", "eval")] * 2
        assert len(app.runtime.projects.catalog("t")) == 0  # texts have no file to keep track of
        # a reindex has no file or conversion for them: it rebuilds them from their
        # passages (a long text of several passages too), the same passages, re-embedded
        long = " ".join(f"Sentence {i} of a long abstract about protein folding kinetics."
                        for i in range(120))
        app.index_texts("t", [TextDoc("d3", "A long one", long)])
        before = {h.id: (h.payload["doc_id"], h.payload["chunk_text"], h.payload["title"])
                  for h in app.runtime.projects.index("t").scroll()}
        assert sum(d == "d3" for d, _, _ in before.values()) > 2
        again = app.reindex("t")
        assert runs[-1] == "ChainSource" and again.count("indexed") == 3, again.to_dict()
        assert {h.id: (h.payload["doc_id"], h.payload["chunk_text"], h.payload["title"])
                for h in app.runtime.projects.index("t").scroll()} == before
        assert (
            app.query(QueryRequest("t", "how often do filters migrate", top_k=1)).hits[0].doc_id
            == "d1"
        )
        assert len(app.runtime.projects.catalog("t")) == 0
    finally:
        app.close()


def test_only_a_text_documents_passages_are_rebuilt_as_text() -> None:
    from citeloom.sources import is_text_document

    assert is_text_document({"source_path": "scifact:12", "page_start": None})
    assert is_text_document({"source_path": "d1", "kind": "passage"})
    # a file's chunks (a PDF's page, a Markdown file), an annotation: not texts
    assert not is_text_document({"source_path": "/papers/a.pdf", "page_start": 3})
    assert not is_text_document({"source_path": "/papers/notes.md", "page_start": None})
    assert not is_text_document({"source_path": "zotero-annotation:AB12", "kind": "annotation"})
