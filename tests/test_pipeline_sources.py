"""Every way into an index runs through the one ingest loop (``service.pipeline.Pipeline``):
files and folders, a Zotero collection, plain texts, and reindex — each with real inputs,
each leaving an audit log; their chunks are the same whichever way a document came in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citeloom.index import SearchFilter
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.pipeline import Pipeline

from .conftest import CORPUS, FIXTURE_PDFS
from .test_zotero_ingest import library  # noqa: F401 (a real zotero.sqlite with two PDFs)

pytestmark = pytest.mark.slow


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


def test_files_zotero_texts_and_reindex_run_through_one_loop(
        make_settings, tmp_path: Path, library: dict, runs: list[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", papers / "thrombosis.pdf")
    shutil.copy(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf", papers / "tables.pdf")
    app = CiteLoom(make_settings(), started_by="test")
    try:
        # Files and folders.
        files = app.ingest([papers], "f")
        assert runs == ["FileSource"] and files.outcome == "ok" and files.count("indexed") == 2
        ids = {h.id for h in app.index("f").scroll()}
        assert len(ids) == files.to_dict()["chunks"]
        assert [r["status"] for r in _audit(files)] == ["indexed", "indexed"]
        assert {r["started_by"] for r in _audit(files)} == {"test"}

        # A Zotero collection of the same two papers: converted from the cache (the worker
        # is never asked), the same chunks under the same ids, with Zotero's metadata.
        def no_conversion(*_a, **_k):  # type: ignore[no-untyped-def]
            raise AssertionError("converted again")

        monkeypatch.setattr("citeloom.worker.ConversionWorker.convert", no_conversion)
        zot = app.ingest_zotero("z", "Thesis", annotations=False)
        assert runs[-1] == "ZoteroSource" and zot.count("indexed") == 2, zot.to_dict()
        assert {r["source"] for r in _audit(zot)} == {"zotero"}
        assert {h.id for h in app.index("z").scroll()} == ids
        cited = app.query("z", "retrievable vena cava filter migration", top_k=1).hits[0]
        assert cited.citekey and cited.zotero_link

        # Reindex: the catalog as the source, into a new generation; Zotero's metadata is
        # kept (it comes from the library, not the file), the chunk ids are the same.
        generation = app.index("z").generation
        again = app.reindex("z")
        assert runs[-1] == "CatalogSource" and again.count("indexed") == 2, again.to_dict()
        assert app.index("z").generation != generation
        assert {h.id for h in app.index("z").scroll()} == ids
        after = app.query("z", "retrievable vena cava filter migration", top_k=1).hits[0]
        assert (after.citekey, after.zotero_link) == (cited.citekey, cited.zotero_link)
        assert len(app.catalog("z")) == 2 and {r["source"] for r in _audit(again)} == {"reindex"}

        # The collection with its items' notes: the PDFs and then the notes, one run.
        notes = app.ingest_zotero("z", "Thesis")
        assert runs[-1] == "ChainSource" and notes.outcome == "ok", notes.to_dict()
        assert [f.status for f in notes.files[:2]] == ["skipped", "skipped"]
        assert {f.status for f in notes.files[2:]} == {"indexed"} and notes.files[2:]
        assert {r["source"] for r in _audit(notes)} == {"zotero"}
        assert {h.id for h in app.index("z").scroll(
            flt=SearchFilter(kinds=["passage"]))} == ids  # the PDFs' chunks untouched

        # Plain texts (the SciFact evaluation's way in).
        texts = app.index_texts("t", [
            TextDoc("d1", "Vena cava filters", "Filters migrated in three to eight percent."),
            TextDoc("d2", "Table recognition", "TableFormer predicts table structure.")])
        assert runs[-1] == "TextSource" and texts.count("indexed") == 2
        top = app.query("t", "how often do filters migrate", top_k=1).hits[0]
        assert top.doc_id == "d1" and top.title == "Vena cava filters"
        assert len(_audit(texts)) == 2
    finally:
        app.close()
