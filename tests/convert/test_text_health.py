"""Text health and the repair ladder, on real PDFs: pages set in fonts without a Unicode map
(corpus2's dvips papers and a small Type 3 fixture), a scan under a bad OCR layer, and a page
nothing can read; through Docling's real conversion, a real ingest, the CLI, and the MCP
server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeloom.convert import textlayer
from citeloom.convert.health import ledger_of, page_entries, page_texts, stale
from citeloom.convert.texthealth import OK, REREAD, SOUP_LEXICAL, UNREADABLE, health
from citeloom.service.api import QueryRequest

from ..clirun import run_cli
from ..conftest import CORPUS, FIXTURE_PDFS, SHARED

CORPUS2 = SHARED / "corpus2" / "pdfs"
HEALTH = FIXTURE_PDFS.parent / "health"  # not in fixtures/pdfs: `make demo` ingests those
TYPE3 = HEALTH / "type3_no_unicode.pdf"
UNREADABLE_PDF = HEALTH / "type3_unreadable.pdf"
BAD_OCR = HEALTH / "bad_ocr_layer.pdf"
CJK_OCR = HEALTH / "cjk_ocr_layer.pdf"  # an English scan read by an engine set for Chinese
MATH = HEALTH / "type3_math.pdf"  # one glyph maps to U+1D439, outside the BMP
LETTER_NAMES = HEALTH / "type3_letter_names.pdf"  # glyphs named /CP, /D2 as re-encoded dvips fonts
# What Docling's parser prints for glyphs without a Unicode value: dvips glyph names and
# the Dingbats / Miscellaneous Symbols it maps unknown codes to.
SOUP_MARKS = ("a115", "a116", "❡", "❛", "✐", "♦", "✥")


def parser_page_text(pdf: Path, page_no: int) -> str:
    """The page's text as Docling's parser (docling-parse) gives it, before any repair."""
    from docling.backend.docling_parse_backend import DoclingParseDocumentBackend
    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.document import InputDocument

    doc = InputDocument(path_or_stream=pdf, format=InputFormat.PDF,
                        backend=DoclingParseDocumentBackend)
    backend = doc._backend
    try:
        for page in backend.iter_pages():
            text = " ".join(c.text for c in page.get_text_cells())
            if page.page_no == page_no:
                return text
    finally:
        backend.unload()
    raise AssertionError(f"no page {page_no} in {pdf}")


def soup(text: str) -> bool:
    return any(mark in text for mark in SOUP_MARKS)


# -- the score -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["survival__timedep.pdf", "ape__RandomTopologies.pdf",
                                  "texlive__elteikthesis_en.pdf"])
def test_parser_glyph_soup_scores_unreadable_and_pdfium_text_reads_as_words(name: str) -> None:
    pdf = CORPUS2 / name
    parsed = parser_page_text(pdf, 5)
    layer = textlayer.page_text(pdf, 5)
    assert soup(parsed) and health(parsed).score < UNREADABLE, parsed[:200]
    assert not soup(layer) and health(layer).score >= OK, layer[:200]


def test_born_digital_pages_score_ok() -> None:
    pdf = FIXTURE_PDFS / "cermine__example2.pdf"
    for page_no in range(1, 6):
        h = health(parser_page_text(pdf, page_no))
        assert h.ok, (page_no, h)


def test_lexical_share_tells_a_bad_ocr_layer_from_prose() -> None:
    bad = health(textlayer.page_text(BAD_OCR, 1))
    good = health(textlayer.page_text(FIXTURE_PDFS / "cermine__example2.pdf", 2))
    assert bad.score >= OK  # ordinary letters: the glyph signal cannot see it
    assert bad.lexical is not None and not bad.reads_as_words()
    assert good.reads_as_words()


def test_ideographs_inside_latin_words_count_as_misread_words() -> None:
    """An OCR layer an engine set for Chinese made over an English scan ("w二th", "de⒒very",
    "W。 C。"): its words are ordinary letters but for one ideograph each, so they are no
    words of any script; the words the lexicon knows are too few for prose."""
    layer = textlayer.page_text(CJK_OCR, 1)
    assert "二" in layer and health(layer).score >= OK  # no glyph the score could see
    assert not health(layer).reads_as_words()
    # Angle brackets U+3008/9 ("〈Ident〉" in a grammar, "Zq[x]/〈xp〉") are no misreading.
    prose = textlayer.page_text(FIXTURE_PDFS / "cermine__example2.pdf", 2)
    bracketed = " ".join(f"〈{w}〉" if i % 3 == 0 else w for i, w in enumerate(prose.split()))
    assert health(bracketed).reads_as_words()


def test_pdfium_restores_tex_ligature_codes() -> None:
    text = textlayer.page_text(TYPE3, 1)
    # OT1 codes 12 (fi), 13 (fl), 11 (ff) in the body: PDFium returns the bare codes.
    for word in ("first", "fluctuation", "effect"):
        assert word in text, text
    survival = textlayer.page_text(CORPUS2 / "survival__timedep.pdf", 3)  # T1: 0x1B = ff
    assert "false effect" in survival and "\x1b" not in survival


# -- the ladder in a real conversion ------------------------------------------------------


@pytest.fixture(scope="module")
def unrepaired(models_dir: Path) -> Any:
    from citeloom.convert.converter import build_converter
    from citeloom.provision import layout_model_path

    return build_converter(ocr=True, layout_model_path=layout_model_path(models_dir),
                           text_repair=False)


def test_type3_page_is_repaired_from_the_text_layer(converted, unrepaired) -> None:  # type: ignore[no-untyped-def]
    from citeloom.convert.converter import convert_file

    before = convert_file(TYPE3, unrepaired)
    after = converted(TYPE3)
    assert soup(page_texts(before)[1])
    assert ledger_of(before).label == "ok" and page_entries(before)[1]["score"] < UNREADABLE
    text = page_texts(after)[1]
    assert "fluctuation of income" in text and not soup(text)
    entry = page_entries(after)[1]
    assert entry["method"] == "text-layer" and entry["score"] >= OK
    assert entry["before"] < UNREADABLE
    assert ledger_of(after).repaired == 1


def test_letter_soup_passes_the_glyph_test_but_not_the_lexicon() -> None:
    """Glyph names made of capitals and digits ("CTD6D6D3D6" for "error", as arXiv papers of
    2006 converted from dvips output print them) hold no glyph-name pattern and no odd code
    point: the page scores above the re-read mark on glyphs. Its words are what give it away."""
    parsed = health(parser_page_text(LETTER_NAMES, 1))
    assert parsed.score >= REREAD and parsed.letter_soup()
    layer = health(textlayer.page_text(LETTER_NAMES, 1))
    assert not layer.letter_soup() and layer.reads_as_words()
    assert not health(textlayer.page_text(TYPE3, 1)).letter_soup()


def test_a_carriage_return_read_from_the_page_is_what_makes_words() -> None:
    """OT1 puts "fl" at 0x0D; fonts re-encoded by old dvips name their "c" /CR, which PDFium
    also hands out as 0x0D. The page's words decide which it is."""
    cr = textlayer._CR
    box = (0.0, 0.0, 1.0, 1.0)
    lines = [(f"A Model-Theoreti{cr} Approa{cr}h to In{cr}onsistent Data", box)]
    read = textlayer._carriage_returns(lines)[0][0]
    assert read == "A Model-Theoretic Approach to Inconsistent Data"
    lines = [(f"The {cr}uctuation of in{cr}ow and re{cr}ection", box)]
    assert textlayer._carriage_returns(lines)[0][0] == "The fluctuation of inflow and reflection"


def test_letter_soup_page_is_read_from_the_text_layer(converted, unrepaired) -> None:  # type: ignore[no-untyped-def]
    from citeloom.convert.converter import convert_file

    before = convert_file(LETTER_NAMES, unrepaired)
    assert "CTD6D6D3D6" in page_texts(before)[1]
    doc = converted(LETTER_NAMES)
    text = page_texts(doc)[1]
    assert "simple error correction model" in text and "CTD6D6D3D6" not in text
    entry = page_entries(doc)[1]
    assert entry["method"] == "text-layer" and entry["lexical"] < SOUP_LEXICAL
    assert ledger_of(doc).repaired == 1
    assert stale(doc) == []
    # As a ladder that did not know letter soup left it: no ``lexical`` in the page's entry.
    for e in page_entries(before).values():
        e.pop("lexical", None)
    assert stale(before) == [1]


def test_a_character_outside_the_bmp_is_one_character_not_two_halves() -> None:
    """PDFium hands out U+1D439 (math italic F) as two UTF-16 halves; they become the one
    character, and nothing left in the text is a lone surrogate (which no UTF-8 can hold)."""
    text = textlayer.page_text(MATH, 1)
    assert "div \U0001D439 = grad \U0001D439" in text
    text.encode("utf-8")  # raises on a lone surrogate


def test_a_repaired_page_with_math_converts_and_serialises(converted) -> None:  # type: ignore[no-untyped-def]
    """TeX Live's nwejm-fr.pdf failed whole with "surrogates not allowed": its repaired
    page's text held the halves, and the worker could not write the document as JSON."""
    doc = converted(MATH)
    assert page_entries(doc)[1]["method"] == "text-layer"
    assert "div \U0001D439 = grad \U0001D439" in page_texts(doc)[1]
    assert "\U0001D439" in doc.model_dump_json(), "the document must serialise"


def test_bad_ocr_layer_is_read_again_by_ocr(converted) -> None:  # type: ignore[no-untyped-def]
    doc = converted(BAD_OCR)
    text = page_texts(doc)[1]
    assert page_entries(doc)[1]["method"] == "ocr"
    assert "situational analysis" in text
    assert "Tedesiretoiroveonealt" not in text.replace(" ", "")
    assert health(text).reads_as_words()


def test_ocr_layer_with_ideographs_is_read_again_by_ocr(converted) -> None:  # type: ignore[no-untyped-def]
    doc = converted(CJK_OCR)
    text = page_texts(doc)[1]
    assert page_entries(doc)[1]["method"] == "ocr"
    assert "delivery is common in many low and middle income countries" in text
    assert not any(ch in text for ch in "二山犭乱冗吵口\u2492\u3002")
    assert health(text).reads_as_words()


def test_unreadable_page_keeps_no_soup(converted) -> None:  # type: ignore[no-untyped-def]
    doc = converted(UNREADABLE_PDF)
    h = ledger_of(doc)
    assert h.unreadable == 1 and h.unreadable_pages == [2] and h.ok == 1
    assert not any(soup(t) for t in page_texts(doc).values())


def test_old_conversion_without_ledger_is_stale_only_where_text_is_bad(  # type: ignore[no-untyped-def]
        converted, unrepaired) -> None:
    from citeloom.convert.converter import convert_file

    old = convert_file(TYPE3, unrepaired)
    old.body.meta = None  # as a conversion cached before the ledger existed
    assert stale(old) == [1]
    assert ledger_of(old).unreadable == 1 and not ledger_of(old).ledger
    fine = converted(FIXTURE_PDFS / "cermine__test1.pdf").model_copy(deep=True)
    fine.body.meta = None
    assert stale(fine) == []


def test_an_ocr_layer_with_ideographs_judged_before_is_stale(converted, unrepaired) -> None:  # type: ignore[no-untyped-def]
    from citeloom.convert.converter import convert_file
    from citeloom.convert.health import attach_ledger, detach_ledger

    old = convert_file(CJK_OCR, unrepaired)
    assert "二" in page_texts(old)[1]
    detach_ledger(old)  # the ledger as the ladder wrote it before it counted such words:
    attach_ledger(old, {1: {"method": "parser", "score": 1.0, "lexical": 0.94}})  # prose
    assert stale(old) == [1]
    assert stale(converted(CJK_OCR)) == []  # read again by OCR: judged by today's ladder
    attach_ledger(old, {1: {"method": "parser", "score": 1.0, "lexical": 0.57}})
    assert stale(old) == []  # judged by today's rule, kept: not read again and again


# -- ingest, CLI and MCP ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def library(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("health")
    papers = root / "papers"
    papers.mkdir()
    for pdf in (TYPE3, UNREADABLE_PDF, CORPUS / "text" / "cermine__test2.pdf"):
        shutil.copy(pdf, papers / pdf.name)
    config = root / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{root / "data"}"\nmodels_dir = "{models_dir}"\n'
                      f'[mcp]\nallowed_roots = ["{papers}"]\n'
                      f'[projects.old]\nsources = ["{papers}"]\n')
    env = {**os.environ, "CITELOOM_CONFIG": str(config), "CITELOOM_DAEMON": "off",
           "COLUMNS": "300"}
    env.pop("CITELOOM_DATA_DIR", None)
    env.pop("CITELOOM_MODELS_DIR", None)
    ingest = cli(env, root, "ingest", "-p", "old", "--json")
    return {"root": root, "env": env, "papers": papers, "ingest": ingest}


def cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(list(args), env, cwd)


@pytest.mark.slow
def test_ingest_reports_health_and_unreadable_pages_make_a_partial_result(
        library: dict[str, Any]) -> None:
    done = library["ingest"]
    assert done.returncode == 3, done.stderr  # partial: one paper has an unreadable page
    report = json.loads(done.stdout)
    assert report["outcome"] == "partial" and report["indexed"] == 3
    assert report["health"]["pages"]["repaired"] >= 1
    assert report["health"]["papers"]["unreadable"] == 1
    files = {Path(f["path"]).name: f for f in report["files"]}
    assert files["type3_unreadable.pdf"]["note"].startswith("UNREADABLE_PAGES")
    assert files["type3_no_unicode.pdf"]["health"]["repaired"] == 1


@pytest.mark.slow
def test_index_and_shown_text_hold_words_not_glyph_names(library: dict[str, Any]) -> None:
    done = cli(library["env"], library["root"], "query", "fluctuation of income", "-p", "old",
               "--json")
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)["hits"]
    top = hits[0]
    assert top["source_path"].endswith("type3_no_unicode.pdf")
    assert "fluctuation of income" in top["text"] and not soup(top["text"])
    assert not any(soup(h["text"]) for h in hits)


@pytest.mark.slow
def test_health_command_inspect_and_mcp_tool(library: dict[str, Any]) -> None:
    done = cli(library["env"], library["root"], "health", "-p", "old", "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["papers_total"] == 3 and info["papers_not_whole"] == 1
    worst = info["papers"][0]
    assert Path(worst["source_path"]).name == "type3_unreadable.pdf"
    assert worst["status"] == "unreadable" and worst["unreadable_pages"] == [2]
    assert "1 of 3 papers" in info["summary"]
    text = cli(library["env"], library["root"], "health", "-p", "old").stdout
    assert "type3_unreadable.pdf" in text and "unreadable" in text
    shown = cli(library["env"], library["root"], "inspect", "-p", "old", "--json")
    assert json.loads(shown.stdout)["health"]["papers_not_whole"] == 1

    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    async def ask() -> dict[str, Any]:
        env = {k: v for k, v in library["env"].items() if k != "CITELOOM_DAEMON"}
        transport = StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                   env={**env, "CITELOOM_DAEMON": "off"},
                                   cwd=str(library["root"]))
        async with Client(transport) as c:
            result = await c.call_tool("library_health", {"project": "old"})
            return json.loads(result.content[0].text)

    answer = asyncio.run(ask())
    assert answer["papers_not_whole"] == 1 and "1 of 3 papers" in answer["summary"]


@pytest.mark.slow
def test_a_project_converted_before_the_ladder_is_reread_by_reindex(  # type: ignore[no-untyped-def]
        make_settings, unrepaired, tmp_path: Path) -> None:
    """A project whose cached conversion predates the ledger (glyph soup, no health in its
    catalog row): `health` names the paper a reindex would re-read, and the reindex does."""
    import gzip

    from citeloom.convert.converter import convert_file
    from citeloom.service import CiteLoom

    pdf = tmp_path / "old.pdf"
    shutil.copy(TYPE3, pdf)
    app = CiteLoom(make_settings())
    try:
        assert app.ingest([pdf], "p").outcome == "ok"
        project = app.settings.project("p", create=True)
        rec = app.runtime.projects.catalog("p").all()[0]
        assert json.loads(rec.health)["repaired"] == 1
        # Make it as an older CiteLoom left it: soup in the cache and the index, no ledger.
        old = convert_file(pdf, unrepaired)
        old.body.meta = None
        app.runtime.cache.put(rec.content_hash, project,
                             gzip.compress(old.model_dump_json().encode()), pdf.name)
        rec.health = None
        app.runtime.projects.catalog("p").put(rec)
        info = app.health("p")
        assert [Path(r["source_path"]).name for r in info["reread"]] == ["old.pdf"]
        assert info["papers_not_whole"] == 1  # the soup in the index reads as unreadable
        assert "reindex" in info["summary"]

        report = app.reindex("p")
        assert report.outcome == "ok" and report.health()["pages"]["repaired"] == 1
        info = app.health("p")
        assert info["reread"] == [] and info["papers_not_whole"] == 0
        hits = app.query(QueryRequest("p", "fluctuation of income", top_k=1)).hits
        assert "fluctuation of income" in hits[0].text and not soup(hits[0].text)
    finally:
        app.close()
