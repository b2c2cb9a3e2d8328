"""Papers as heldout44 and heldout45 showed them, after their blind reading (issue #27, item
5, session 34): JSTOR's old cover, a byline broken inside a name, a name and a year, a name
and its links set apart by middle dots, and OT1's "ł" as Docling's parser names its parts."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel

from citeloom.structure.covers import jstor_cover
from citeloom.text import compose_accents

from .test_pdfmeta_more import doc_with

T, X, H = DocItemLabel.TITLE, DocItemLabel.TEXT, DocItemLabel.SECTION_HEADER
CARD = "Estimating the Return to Schooling: Progress on Some Persistent Econometric Problems"
CITATION = ("Econometrica, Vol. 69, No. 5. (Sep., 2001), pp. 1127-1160. Stable URL: "
            "http://links.jstor.org/sici?sici=0012-9682%28200109%2969%3A5%3C1127%3AETRTSP")
COVER = [CARD, "David Card", CITATION,
         "Econometrica is currently published by The Econometric Society."]


def test_jstors_old_cover_gives_title_and_byline() -> None:
    assert jstor_cover(COVER) == (CARD, ["Card, David"])
    two = [CARD, "David Card; Alan B. Krueger", *COVER[2:]]
    assert jstor_cover(two) == (CARD, ["Card, David", "Krueger, Alan B."])
    # a journal's citation line without the archive's link is no cover
    assert jstor_cover([CARD, "David Card", CITATION.split(" Stable")[0], "1. INTRODUCTION"]) \
        is None


def test_a_cover_whose_title_ran_into_its_byline_and_citation() -> None:
    """The text layer sets the cover's three items on one row: page 1's largest type gave
    title, name and citation as the title."""
    from citeloom.structure.metadata import document_metadata

    doc = doc_with([(X, item) for item in COVER])
    merged = f"{CARD} David Card {CITATION.split(' Stable')[0]}"
    meta = document_metadata(doc, None, merged)
    assert meta["title"] == CARD and meta["authors"] == ["Card, David"]
    assert meta["year"] == 2001


def test_a_byline_broken_inside_a_name() -> None:
    """"… G. Christopher Cosner 3 , R. Stephen" / "Cantrell 3 , William F. Fagan 1": the first
    row reads as names alone, with "Stephen, R." for the last; the two rows read as more."""
    from citeloom.structure.metadata import document_metadata

    title = "Memories of migrations past: Sociality and cognition in seasonal environments"
    doc = doc_with([(T, title),
                    (X, "Eliezer Gurarie 1,2,∗ , Sriya Potluri 1 , G. Christopher Cosner 3 , "
                        "R. Stephen"),
                    (X, "Cantrell 3 , William F. Fagan 1"),
                    (X, "1Department of Biology, University of Maryland, College Park, MD"),
                    (H, "Abstract")])
    assert document_metadata(doc, None, title)["authors"] == [
        "Gurarie, Eliezer", "Potluri, Sriya", "Cosner, G. Christopher", "Cantrell, R. Stephen",
        "Fagan, William F."]


def test_a_name_and_a_year_and_a_name_and_its_links() -> None:
    from citeloom.structure.metadata import document_metadata

    title = "SPARQL Diamonds"
    doc = doc_with([(T, title), (X, "an architectural pattern for rapid development"),
                    (X, "Danny Ayers, 2021"), (X, "hyperdata.it"), (X, "danny.ayers@gmail.com"),
                    (H, "Abstract")])
    meta = document_metadata(doc, None, title)
    assert meta["authors"] == ["Ayers, Danny"] and meta["year"] == 2021
    doc = doc_with([(T, "Which molecules break docking predictions"),
                    (X, "Dhruv Singh · LinkedIn · Code and data"), (H, "Abstract")])
    assert document_metadata(doc, None, "Which molecules break docking predictions")[
        "authors"] == ["Singh, Dhruv"]


def test_ot1s_barred_l_as_docling_names_it() -> None:
    assert compose_accents("Tomasz Adam Wesoglyph[suppress]lowski 1") == \
        "Tomasz Adam Wesołowski 1"
    assert compose_accents("glyph[suppress]Lukasz") == "Łukasz"


def test_a_date_under_the_byline_is_no_name() -> None:
    """"Compiled May 7, 2026" or "Received October 30, 2007" after the byline and its
    affiliation (Taylor & Francis's article history) reads as no name with its year, and
    "Compiled July 2021" under a byline as no rest of a name broken over two rows."""
    from citeloom.structure.metadata import document_metadata

    title = "Gamma Scalping PnL with Sticky-Strike Volatility Surface"
    for under in ("Compiled May 7, 2026", "Received October 30, 2007"):
        doc = doc_with([(T, title), (X, "Pietro Maria Sparago a"),
                        (X, "aDepartment of Statistics, London School of Economics, London, UK"),
                        (X, "ARTICLE HISTORY"), (X, under), (H, "ABSTRACT")])
        assert document_metadata(doc, None, title)["authors"] == ["Sparago, Pietro Maria"], under
    doc = doc_with([(T, title), (X, "Pietro Maria Sparago, Anna B. Jones"),
                    (X, "Compiled July 2021"), (H, "Abstract")])
    assert document_metadata(doc, None, title)["authors"] == [
        "Sparago, Pietro Maria", "Jones, Anna B."]


def test_a_generation_suffix_is_no_family_name() -> None:
    """heldout46's "Robert Platt Jr." read alone (a byline part the whole-row parser did not
    take) gave "Jr, Robert Platt"; the suffix goes, as it does in a byline read whole."""
    from citeloom.structure.names import person

    assert person("Robert Platt Jr.") == "Platt, Robert"
    assert person("Robert Platt, Jr.") == "Platt, Robert"
    assert person("John H. Lienhard IV") == "Lienhard, John H."


def test_acls_triangle_marks_part_names() -> None:
    """heldout47's ACL byline marks affiliations with ♦ and ▲ and puts no comma after a
    mark: the marks part the names."""
    from citeloom.structure.names import parse_byline

    row = "Wangyi Mei 1♦ Jiaqing Liang 1 †, Weijia Lu 2▲ Xiaodong Zhang 2▲ Zhifei Yang 2▲"
    assert parse_byline(row) == ["Mei, Wangyi", "Liang, Jiaqing", "Lu, Weijia",
                                 "Zhang, Xiaodong", "Yang, Zhifei"]
