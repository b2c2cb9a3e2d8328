"""match_item on real PDFs from ../shared/corpus/pdfs/text, against items built from those
papers' real metadata (title, DOI, first authors as printed on their first pages)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from citeloom.system import pdf_info as pdf_metadata
from citeloom.zotero import Attachment, Creator, ItemMatcher, ZoteroItem, match_item
from citeloom.zotero.base import find_dois, make_item
from citeloom.zotero.match import pdf_first_pages_text

PDFS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "pdfs" / "text"
TEST1 = PDFS / "cermine__test1.pdf"  # DOI in metadata Subject, title in metadata Title
TEST2 = PDFS / "cermine__test2.pdf"  # DOI printed on page 1, no metadata title
EXAMPLE2 = PDFS / "cermine__example2.pdf"  # no DOI anywhere, junk metadata title
EXAMPLE3 = PDFS / "cermine__example3.pdf"  # DOI printed on page 1, empty metadata
EXAMPLE1 = PDFS / "cermine__example1.pdf"  # metadata title "ipg1300180a"
FORMULA = PDFS / "docling__code_and_formula.pdf"  # lorem ipsum: nothing to match


def paper(key: str, title: str, doi: str | None, year: int, *authors: str,
          attachment: Path | None = None) -> ZoteroItem:
    creators = [Creator(first=a.split()[0], last=a.split()[-1]) for a in authors]
    atts = [Attachment(key=f"A{key[1:]}", parent_key=key, content_type="application/pdf",
                       filename=attachment.name, path=attachment, exists=attachment.is_file())
            ] if attachment else []
    return make_item(key, "journalArticle", {"title": title, "DOI": doi or "",
                                             "date": str(year)},
                     creators=creators, attachments=atts)


def library(**drop_doi: bool) -> list[ZoteroItem]:
    """The four papers, plus near-miss distractors that must never be chosen."""
    def doi(name: str, value: str) -> str | None:
        return None if drop_doi.get(name) else value

    return [
        paper("T1000001", "Complications related to deep venous thrombosis prophylaxis in "
              "trauma: a systematic review of the literature",
              doi("test1", "10.1186/1752-2897-4-1"), 2010, "Indraneel Datta", "Chad G Ball"),
        paper("T2000002", "Patient Experiences of Structured Heart Failure Programmes",
              doi("test2", "10.1155/2010/157939"), 2010, "Nuala E. Tully", "Karen M. Morgan"),
        paper("E2000002", "Understanding the barriers to setting up a healthcare quality "
              "improvement process in resource-limited settings: a situational analysis at "
              "the Medical Department of Kamuzu Central Hospital in Lilongwe, Malawi", None,
              2014, "Josephine Nana Afrakoma Agyeman-Duah", "Antje Theurer"),
        paper("E3000003", "Fragment-based design for the development of N-domain-selective "
              "angiotensin-1-converting enzyme inhibitors", doi("example3", "10.1042/CS20130403"),
              2014, "Ross G. Douglas", "Rajni K. Sharma"),
        # distractors
        paper("D0000001", "Complications of venous thromboembolism prophylaxis in pediatric "
              "burn patients", "10.9999/distractor.1", 2012, "A Nother"),
        paper("D0000002", "Patient experiences of heart failure", None, 2011, "B Nother"),
        paper("D0000003", "Introduction", None, 2000, "C Nother"),
    ]


def test_the_corpus_pdfs_hold_what_the_cases_rely_on() -> None:
    meta = pdf_metadata(TEST1)
    assert "10.1186/1752-2897-4-1" in meta["Subject"]
    assert meta["Title"].startswith("Complications related to deep venous thrombosis")
    assert "10.1186/1752-2897-4-1" not in pdf_first_pages_text(TEST1)  # metadata only
    assert find_dois(pdf_first_pages_text(EXAMPLE3))[0] == "10.1042/cs20130403"
    assert pdf_metadata(EXAMPLE3).get("Title", "") == ""
    assert find_dois(pdf_first_pages_text(EXAMPLE2)) == []
    assert pdf_metadata(EXAMPLE1)["Title"] == "ipg1300180a"


def test_doi_from_pdf_metadata() -> None:
    item, how = match_item(TEST1, library(), first_pages_text="")
    assert (item.key, how) == ("T1000001", "doi")


def test_doi_from_first_page_text_normalised() -> None:
    assert match_item(EXAMPLE3, library())[0].key == "E3000003"
    assert match_item(EXAMPLE3, library())[1] == "doi"
    item, how = match_item(TEST2, library())  # printed as "doi:10.1155/2010/157939"
    assert (item.key, how) == ("T2000002", "doi")


def test_title_from_the_first_lines_when_there_is_no_doi() -> None:
    item, how = match_item(EXAMPLE2, library())  # title spread over six printed lines
    assert (item.key, how) == ("E2000002", "title")


def test_title_from_pdf_metadata_when_the_item_has_no_doi() -> None:
    item, how = match_item(TEST1, library(test1=True), first_pages_text="")
    assert (item.key, how) == ("T1000001", "title")


def test_given_text_is_used_instead_of_reading_the_pdf() -> None:
    item, how = match_item(FORMULA, library(),
                           first_pages_text="Preprint. doi: 10.1155/2010/157939.\n")
    assert (item.key, how) == ("T2000002", "doi")


def test_the_attachment_the_file_came_from_wins(tmp_path: Path) -> None:
    stored = tmp_path / "storage" / "ABCD" / "paper.pdf"
    stored.parent.mkdir(parents=True)
    shutil.copyfile(TEST1, stored)  # a file whose DOI names another item
    owner = paper("OWNER001", "Some other title entirely", None, 2020, "O Wner",
                  attachment=stored)
    items = [*library(), owner]
    assert match_item(stored, items) == (owner, "attachment")
    # Same file under another spelling of its path.
    link = tmp_path / "link.pdf"
    os.symlink(stored, link)
    assert match_item(link, items) == (owner, "attachment")
    # A copy elsewhere is not that attachment: it falls through to the DOI.
    copy = tmp_path / "copy.pdf"
    shutil.copyfile(stored, copy)
    assert match_item(copy, items)[0].key == "T1000001"


def test_unmatched_files_give_none() -> None:
    assert match_item(FORMULA, library()) == (None, None)
    # Junk metadata title and a DOI no item has: no match, rather than a guess.
    assert match_item(EXAMPLE1, library()) == (None, None)
    # Without their DOIs and with titles below 0.8, the distractors do not match.
    distractors = library()[4:]
    assert match_item(TEST1, distractors) == (None, None)
    assert match_item(TEST2, distractors) == (None, None)


def test_short_titles_only_match_the_metadata_title() -> None:
    intro = paper("INTRO001", "Introduction", None, 2000, "C Nother")
    assert match_item(FORMULA, [intro], first_pages_text="Introduction\nSome text") == (
        None, None)


def test_matcher_reused_for_many_files() -> None:
    matcher = ItemMatcher(library())
    found = {p.name: matcher.match(p)[0] for p in (TEST1, TEST2, EXAMPLE2, EXAMPLE3, FORMULA)}
    assert {k: v.key if v else None for k, v in found.items()} == {
        TEST1.name: "T1000001", TEST2.name: "T2000002", EXAMPLE2.name: "E2000002",
        EXAMPLE3.name: "E3000003", FORMULA.name: None}


@pytest.mark.parametrize(("text", "dois"), [
    ("doi:10.1155/2010/157939.", ["10.1155/2010/157939"]),
    ("DOI 10.7717/peerj-cs.118\r\nCopyright", ["10.7717/peerj-cs.118"]),
    ("(see https://doi.org/10.1000/ABC(1)), and 10.1000/abc(1)", ["10.1000/abc(1)"]),
    ("no identifiers here, only 10.5 percent", []),
])
def test_find_dois(text: str, dois: list[str]) -> None:
    assert find_dois(text) == dois
