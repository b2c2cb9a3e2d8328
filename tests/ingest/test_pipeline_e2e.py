"""End to end through real components: Docling conversion of the bundled PDFs, the ONNX
dense model, BM25, a real Qdrant Edge shard, hybrid RRF search."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

from ..conftest import FIXTURE_PDFS, ROOT, shared_settings

pytestmark = pytest.mark.slow

THROMBOSIS = "cermine__test1.pdf"  # Datta et al. 2010, DVT prophylaxis complications
MALAWI = "cermine__example2.pdf"  # Agyeman-Duah et al. 2014, quality improvement, Malawi


@pytest.fixture(scope="module")
def ingested(models_dir: Path, tmp_path_factory: pytest.TempPathFactory):

    settings = shared_settings(data_dir=tmp_path_factory.mktemp("data"), models_dir=models_dir)
    app = CiteLoom(settings)
    report = app.ingest([FIXTURE_PDFS], "fx")
    yield settings, app, report
    app.close()


def _ids_and_count(app: CiteLoom, project: str) -> tuple[set[str], int]:
    idx = app.runtime.projects.index(project)
    return {h.id for h in idx.scroll()}, idx.count()


def test_ingest_indexes_every_fixture(ingested) -> None:
    _, app, report = ingested
    pdfs = sorted(FIXTURE_PDFS.glob("*.pdf"))
    assert len(pdfs) >= 2
    assert report.outcome == "ok", report.to_dict()
    assert report.count("indexed") == len(pdfs)
    assert all(f.chunks > 0 and f.pages > 0 for f in report.files)
    ids, count = _ids_and_count(app, "fx")
    assert count == sum(f.chunks for f in report.files) == len(ids)


@pytest.mark.parametrize(
    ("question", "filename", "page"),
    [
        ("How often did retrievable vena cava filters migrate in non-trauma patients?",
         THROMBOSIS, 2),
        ("Into which local language was the outpatient questionnaire translated?", MALAWI, 3),
    ],
)
def test_known_answer_in_top3(ingested, question: str, filename: str, page: int) -> None:
    _, app, _ = ingested
    result = app.query(QueryRequest("fx", question, top_k=3))
    assert result.mode == "hybrid" and result.fusion == "dbsf"
    found = [(Path(h.source_path).name, h.page_start, h.page_end) for h in result.hits]
    assert any(name == filename and start <= page <= end for name, start, end in found), found
    top = result.hits[0]
    assert top.title and top.text and top.chunk_id and top.doc_id


def test_payload_carries_citable_fields(ingested) -> None:
    _, app, _ = ingested
    hits = list(itertools.islice(app.runtime.projects.index("fx").scroll(), 50))
    for h in hits:
        p = h.payload
        assert p["project_id"] == "fx"
        assert isinstance(p["page_start"], int) and p["page_end"] >= p["page_start"]
        assert p["chunk_text"].strip()
        assert p["embed_model"] == "BAAI/bge-small-en-v1.5"
        assert p["source_path"].endswith(".pdf")
    # Real papers have sections: most chunks carry a heading chain.
    assert sum(1 for h in hits if h.payload["heading_chain"]) > len(hits) / 2


def test_reingest_is_a_noop_with_identical_ids(ingested) -> None:
    _, app, _ = ingested
    before_ids, before_count = _ids_and_count(app, "fx")
    report = app.ingest([FIXTURE_PDFS], "fx")
    after_ids, after_count = _ids_and_count(app, "fx")
    assert report.count("skipped") == len(report.files)
    assert (after_ids, after_count) == (before_ids, before_count)


def test_reingest_from_scratch_gives_the_same_ids(ingested, models_dir, tmp_path) -> None:
    """Ids depend only on content, chunk position and model: a second index built from the
    same files holds exactly the same point ids."""

    _, app, _ = ingested
    one = FIXTURE_PDFS / THROMBOSIS
    other = CiteLoom(shared_settings(data_dir=tmp_path, models_dir=models_dir))
    other.ingest([one], "fx")
    ids, count = _ids_and_count(other, "fx")
    other.close()
    doc_ids = {h.id for h in app.runtime.projects.index("fx").scroll()
               if h.payload["source_path"].endswith(THROMBOSIS)}
    assert ids == doc_ids and count == len(doc_ids)


def test_cli_query_json(ingested) -> None:
    settings, app, _ = ingested
    app.close()  # the shard's WAL lock admits one process at a time
    env = {**os.environ, "CITELOOM_DATA_DIR": str(settings.data_dir),
           "CITELOOM_MODELS_DIR": str(settings.models_dir), "CITELOOM_CONFIG": ""}
    out = subprocess.run(
        [sys.executable, "-m", "citeloom.cli", "query", "vena cava filter migration",
         "--project", "fx", "--json", "-k", "3"],
        capture_output=True, text=True, env=env, cwd=ROOT / "tests", timeout=120,
    )
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["mode"] == "hybrid" and len(answer["hits"]) == 3
    assert {"page_start", "page_end", "section_path", "title", "text", "score"} <= set(
        answer["hits"][0])
    assert "docling" not in out.stderr.lower()
