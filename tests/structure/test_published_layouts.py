"""Bylines and year lines as publishers print them (issue #27, item 5, session 26): shapes
written from the publishers' own layouts before the blind sets heldout15 and heldout16
were read, each a rule a paper of that kind needs."""

from __future__ import annotations

import pytest

from citeloom.structure.names import parse_byline
from citeloom.structure.years import paper_year

from .test_pdfmeta_more import _doc as _page  # a document whose page 1 is these lines


@pytest.mark.parametrize(("line", "names"), [
    # Springer's middle dots, Wiley's bars, with and without affiliation numbers
    ("John Smith · Jane Doe · Wei Zhang", ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    ("John Smith1 · Jane Doe2,3 · Wei Zhang1", ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    ("A. Smith | B. Jones", ["Smith, A.", "Jones, B."]),
    # IEEE's grades
    ("John Smith, Member, IEEE, Jane Doe, Senior Member, IEEE, and Wei Zhang, Fellow, IEEE",
     ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    ("and Wei Zhang, Life Fellow, IEEE", ["Zhang, Wei"]),  # a byline's second line
    # PLOS's marks, LNCS's ORCIDs
    ("John Smith1☯, Jane Doe2☯*, Wei Zhang1¤", ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    ("John Smith1[0000-0002-1825-0097], Jane Doe2, and Wei Zhang1[0000-0001-5109-3700]",
     ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    # IEEE's numbered authors, Nature's envelope for the corresponding author
    ("1st John Smith, 2nd Jane Doe, 3rd Wei Zhang", ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    ("John Smith1, Jane Doe2 & Wei Zhang1,3✉", ["Smith, John", "Doe, Jane", "Zhang, Wei"]),
    # not people
    ("Ashish Vaswani, Google Brain", []),
    ("And Then There Were None", []),
])
def test_publishers_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


@pytest.mark.parametrize(("line", "names"), [
    ("Andrew Baumann, Microsoft Research", ["Baumann, Andrew"]),
    ("Mary Jones, University of Oxford", ["Jones, Mary"]),
    ("Alex Krizhevsky University of Toronto kriz@cs.utoronto.ca", ["Krizhevsky, Alex"]),
    ("Diederik P. Kingma* University of Amsterdam, OpenAI", ["Kingma, Diederik P."]),
    # no comma, no "of": the name is part of an institution's
    ("Johns Hopkins University", []),
    ("Andrew W. Mellon Foundation", []),
])
def test_one_name_then_its_affiliation(line: str, names: list[str]) -> None:
    from citeloom.structure.metadata import _lead_name

    assert _lead_name(line) == names


@pytest.mark.parametrize(("year", "lines"), [
    (2014, ["Journal of Machine Learning Research 15 (2014) 1929-1958 Submitted 11/13; "
            "Published 6/14", "A Title Here"]),
    (2013, ["SIAM J. SCI. COMPUT. Vol. 35, No. 2, pp. A123–A145",
            "c 2013 Society for Industrial and Applied Mathematics", "A TITLE HERE"]),
    (2021, ["Bioinformatics, 37(5), 2021, 123–130", "doi: 10.1093/bioinformatics/btaa123",
            "Advance Access Publication Date: 12 August 2020", "A Title Here"]),
    (2015, ["Nucleic Acids Research, 2015, Vol. 43, No. 7 e47", "A Title Here"]),
    (2004, ["Machine Learning, 56, 9–33, 2004", "A Title Here"]),
    (2016, ["Vol. 32 no. 12 2016, pages 1–8", "BIOINFORMATICS ORIGINAL PAPER", "A Title Here"]),
    (2019, ["A Title Here", "John Smith", "Abstract", "We do.",
            "33rd Conference on Neural Information Processing Systems (NeurIPS 2019), "
            "Vancouver, Canada."]),
    (2020, ["Published as a conference paper at ICLR 2020", "A TITLE HERE", "John Smith"]),
    (2019, ["A Title Here", "John Smith", "This CVPR 2019 paper is the Open Access version, "
            "provided by the Computer Vision Foundation."]),
    (2010, ["In Proceedings of the 2010 Conference on Empirical Methods in Natural Language "
            "Processing", "A Title Here"]),
])
def test_publishers_year_lines(year: int, lines: list[str]) -> None:
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:], lines, whole=text)[0] == year


def test_a_venue_cited_in_the_text_is_no_year() -> None:
    lines = ["A Title Here", "John Smith", "Abstract",
             "We build on the model presented at NeurIPS 2017 and extend it to many more "
             "settings than the original paper considered in its experiments, as one would "
             "expect of a model that was meant to be general (ICML 2018) from the start."]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:2], lines, whole=text)[0] is None


def test_a_journal_line_about_another_version_is_not_this_ones() -> None:
    lines = ["Text merges in TEX and LATEX", "Mike Piff", "November 13, 2010", "Abstract",
             "This article originally appeared in TUGboat Vol 13(4), 1992, p518–523."]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:3], lines, whole=text)[0] == 2010


def test_nature_published_before_accepted_and_one_author_a_line() -> None:
    from citeloom.structure.metadata import document_metadata

    title = "Gut microbiota composition in elderly adults"
    meta = document_metadata(_page([
        "Article", title, "Received: 3 May 2018", "Accepted: 12 December 2018",
        "Published online: 10 January 2019", "John Smith1, Jane Doe2 & Wei Zhang1,3✉",
        "We study."]), None, title)
    assert meta["year"] == 2019
    assert meta["authors"] == ["Smith, John", "Doe, Jane", "Zhang, Wei"]
    # NeurIPS: each author on a line with their affiliation and e-mail
    title = "Attention Mechanisms for Long Sequence Modelling"
    meta = document_metadata(_page([
        title, "John Smith∗ Department of Computer Science University of X john@x.edu",
        "Jane Doe Google Research jane@google.com", "Abstract", "We do.",
        "33rd Conference on Neural Information Processing Systems (NeurIPS 2019), "
        "Vancouver, Canada."]), None, title)
    assert meta["authors"] == ["Smith, John", "Doe, Jane"]
    assert meta["year"] == 2019


def test_what_heldout16_showed() -> None:
    from citeloom.structure.names import person

    # a © range with a two-digit end, under a version line whose month has a comma
    lines = ["SimTK Simmatrix", "Michael Sherman", "Version 2.1, January, 2010", "Abstract",
             "We describe the goals.", "© 2005-10 Stanford University and Michael Sherman"]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:3], lines, whole=text)[0] == 2010
    assert paper_year("© 1998-03 Jane Doe", {})[0] == 2003
    # dvips's build stamp in the info dictionary's Subject is the file's date, not the paper's
    assert paper_year("Sampling", {"Subject": "TeX output 2003.10.17:1908"})[0] is None
    assert paper_year("Sampling", {"Subject": "Journal of X, 2003"})[0] == 2003
    assert person("Artifex Software") is None


@pytest.mark.parametrize(("line", "names"), [
    # a Dutch particle; the e-mail in brackets and the date after the name
    ("Bas des Tombe (bdestombe@gmail.com), October 7, 2020", ["des Tombe, Bas"]),
    # IUCr 1999: "at" before the affiliation
    ("Th. Proffen* and S. J. L. Billinge at Department of Physics and Astronomy, Michigan "
     "State University", ["Proffen, Th.", "Billinge, S. J. L."]),
    # Springer 2006: lost symbols, and the first affiliation's own letter before it
    ("Rasmus H. Fogh a, , Wim F. Vranken b, , Wayne Boucher a & Ernest D. Laue a, * a "
     "Department of Biochemistry, University of Cambridge",
     ["Fogh, Rasmus H.", "Vranken, Wim F.", "Boucher, Wayne", "Laue, Ernest D."]),
    # LHCb's notes: a lone full stop, then the affiliation
    ("M. Clemencic1 and B. Couturier1 . 1CERN, Geneva, Switzerland",
     ["Clemencic, M.", "Couturier, B."]),
    # a team credited in lower case after the person, then the date
    ("Bryna Hazelton, and the pyradiosky team October 5, 2023", ["Hazelton, Bryna"]),
])
def test_what_heldout15_showed_in_bylines(line: str, names: list[str]) -> None:
    from citeloom.structure.metadata import _lead_name

    assert _lead_name(line) == names


def test_what_heldout15_showed_on_pages() -> None:
    from citeloom.structure.metadata import document_metadata

    # JOSS: a byline broken inside a name; the footer's own reference gives the year
    title = "PyCM: Multiclass confusion matrix library in Python"
    meta = document_metadata(_page([
        title, "Sepand Haghighi 1 , Masoomeh Jasemi 1 , Shaahin Hessabi 1 , and Alireza",
        "Zolanvari 2", "1 Sharif University of Technology 2 Amirkabir University",
        "Summary", "Haghighi et al., (2018). PyCM: Multiclass confusion matrix library in "
        "Python. Journal of Open Source Software, 3(25), 729."]), None, title)
    assert meta["authors"] == ["Haghighi, Sepand", "Jasemi, Masoomeh", "Hessabi, Shaahin",
                               "Zolanvari, Alireza"]
    assert meta["year"] == 2018
    # a thesis: the author, not the supervisor and the jury
    title = "Binary Diffing as a Network Alignment Problem"
    meta = document_metadata(_page([
        title, "Thèse de doctorat de mathématiques appliquées de : Elie MENGIN",
        "Sous la direction de : Fabrice ROSSI",
        "Soutenue le 17 décembre 2021 devant un jury composé de :",
        "Guillaume Bonfante École des Mines de Nancy Rapporteur",
        "Éric Gaussier Université Grenoble Alpes Rapporteur"]), None, title)
    assert meta.get("authors", []) == []  # (the info dictionary's Author names Mengin)
    # the venue's year before a later arXiv version's stamp
    title = "Attention Is All You Need"
    lines = [title, "Ashish Vaswani∗ Google Brain avaswani@google.com", "Abstract", "We do.",
             "31st Conference on Neural Information Processing Systems (NIPS 2017), Long "
             "Beach, CA, USA.", "arXiv:1706.03762v7 [cs.CL] 2 Aug 2023"]
    assert document_metadata(_page(lines), None, title)["year"] == 2017


@pytest.mark.parametrize(("line", "names"), [
    # a family name of two words in capitals after the given name
    ("Duvérier DJIFACK ZEBAZE", ["Djifack Zebaze, Duvérier"]),
    ("Ross G. DOUGLAS", ["Douglas, Ross G."]),
    # a label before the names; LaTeX's "--" typed in a name
    ("Designers: Alex Biryukov, Daniel Dinu, and Dmitry Khovratovich",
     ["Biryukov, Alex", "Dinu, Daniel", "Khovratovich, Dmitry"]),
    ("Clément Pit--Claudel, Zelda Mariet", ["Pit-Claudel, Clément", "Mariet, Zelda"]),
])
def test_what_heldout17_showed_in_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


def test_an_aastex_byline_runs_into_its_draft_date() -> None:
    from citeloom.structure.metadata import document_metadata

    title = "NINE-YEAR WMAP OBSERVATIONS: COSMOLOGICAL PARAMETER RESULTS"
    meta = document_metadata(_page([
        title, "G. Hinshaw 1 , D. Larson 2 , E. Komatsu 3,4,5 , E. L. Wright 17 Draft version "
        "June 5, 2013", "ABSTRACT", "We present."]), None, title)
    assert meta["authors"] == ["Hinshaw, G.", "Larson, D.", "Komatsu, E.", "Wright, E. L."]
    assert meta["year"] == 2013


def test_an_old_arxiv_identifiers_stamp() -> None:
    text = "Distance measures in cosmology\nDavid W. Hogg\narXiv:astro-ph/9905116v4 16 Dec 2000"
    assert paper_year(text, {})[0] == 2000
    assert paper_year("as shown in arXiv:astro-ph/9905116 (Hogg 1999)", {})[0] is None
