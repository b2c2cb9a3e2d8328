"""PDFium is not thread-safe: every read of a PDF outside Docling's own parse takes Docling's
``pypdfium2_lock``, so a daemon's second job, or a thread beside a conversion, waits instead
of entering PDFium at the same time."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from docling.utils.locks import pypdfium2_lock

from citeloom.structure.fonts import line_end_hyphens
from citeloom.structure.titles import pdf_metadata_title
from citeloom.system import counted_pages, pdf_info
from citeloom.zotero.match import pdf_first_pages_text

from ..conftest import FIXTURE_PDFS

PDF = FIXTURE_PDFS / "cermine__example2.pdf"


@pytest.mark.parametrize("read", [pdf_info, counted_pages, pdf_metadata_title,
                                  pdf_first_pages_text, line_end_hyphens])
def test_a_pdf_read_waits_while_another_thread_is_inside_pdfium(read) -> None:
    got: list[object] = []
    with pypdfium2_lock:  # as Docling holds it while it parses a page
        reader = threading.Thread(target=lambda: got.append(read(PDF)), daemon=True)
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and not got  # it waits for the lock
    reader.join(30)
    assert not reader.is_alive() and len(got) == 1


def test_the_info_dictionary_is_read_stripped_and_empty_for_what_is_no_pdf(
        tmp_path: Path) -> None:
    info = pdf_info(PDF)
    assert info["Producer"] and all(v == v.strip() for v in info.values())
    text = tmp_path / "notes.txt"
    text.write_text("not a PDF")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nothing else")
    assert pdf_info(text) == pdf_info(broken) == pdf_info(None) == {}
    assert counted_pages(broken) == 0 and counted_pages(PDF) == 10
