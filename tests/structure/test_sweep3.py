"""Bylines, titles and years as a third sweep of unread papers printed them (170 pool PDFs
of the heldout22-26 draws nobody had judged; docs/DECISIONS.md "A third sweep"). Each
string is a real PDF's text-layer row or item; the PDFs are built here with those rows."""

from pathlib import Path

import pytest

from citeloom.structure.metadata import _authors
from citeloom.structure.names import parse_byline
from citeloom.structure.titles import _as_printed
from citeloom.structure.years import paper_year

from .test_drafts import _pdf


@pytest.mark.parametrize("row, want", [
    # IEEE's ordinal with its letters set apart as a superscript
    ("1 st Weizhen Sun", ["Sun, Weizhen"]),
    # degrees after the names, one with the corresponding author's star
    ("Brian K. Fung, PharmD, MPH", ["Fung, Brian K."]),
    ("Andreas Ekström, M Ed; Lisa Kurland, MD, PhD; Nasim Farrokhnia, MD, PhD; Maaret "
     "Castrén, MD, PhD; Martin Nordberg, MD*",
     ["Ekström, Andreas", "Kurland, Lisa", "Farrokhnia, Nasim", "Castrén, Maaret",
      "Nordberg, Martin"]),
    # an assistant professor's title before the name
    ("Mandavi Katare*1 & Ass. Pro. Ankit Chouhan2", ["Katare, Mandavi", "Chouhan, Ankit"]),
    # SAGE's ORCID icon (a private-use glyph) and Arabic's "Al" inside a family name
    ("Arman Malekloo 1 , Ekin Ozer 2\ue840, Mohammad AlHamaydeh 3\ue840 and Mark Girolami 4,5",
     ["Malekloo, Arman", "Ozer, Ekin", "AlHamaydeh, Mohammad", "Girolami, Mark"]),
    # superscript digits as affiliation marks
    ("Hauke Roggenkamp¹\uf8d2, Michael V. Reiss 2,3\uf8d2, Susanne Adler⁴\uf8d2",
     ["Roggenkamp, Hauke", "Reiss, Michael V.", "Adler, Susanne"]),
    # a country's two words, a letter's salutation, a web form's buttons
    ("Sri Lanka", []),
    ("Dear Feng Liu,", []),
    ("Create Account", []),
    ("QUICK LINKS", []),
    ("JavaScript Strict", []),  # a capital inside a word still is no name
])
def test_sweep3_rows(row: str, want: list[str]) -> None:
    assert parse_byline(row) == want


TITLE = "Approximation fMRI data from the audio time series"


def test_the_next_author_block_after_an_address() -> None:
    rows = [TITLE, "Anastasia German", "MIPT", "Moscow, Russia", "german.aia@phystech.edu",
            "Daniil Dorin", "MIPT", "Moscow, Russia", "dorin.dd.contact@gmail.com", "Abstract"]
    assert _authors(rows, {}, "", TITLE)[0] == ["German, Anastasia", "Dorin, Daniil"]
    # the address on the name's own line (JMLR's)
    rows = [TITLE, "Yoshua Bengio, BENGIOY@IRO.UMONTREAL.CA", "Dept. IRO, Universite de Montréal",
            "C.P. 6128, Montreal, Qc, H3C 3J7, Canada", "Yves Grandvalet, YVES.GRANDVALET@UTC.FR",
            "Heudiasyc, UMR CNRS 6599", "Editor: Dana Ron", "Abstract"]
    assert _authors(rows, {}, "", TITLE)[0] == ["Bengio, Yoshua", "Grandvalet, Yves"]
    # a third author under the addresses that spell the name (ACL's)
    rows = [TITLE, "Avijit Thawani, Jay Pujara", "University of Southern California / Los Angeles",
            "Information Sciences Institute / Marina del Rey", "{thawani,jpujara,ilievski}@isi.edu",
            "Filip Ilievski", "Abstract"]
    assert _authors(rows, {}, "", TITLE)[0] == ["Thawani, Avijit", "Pujara, Jay",
                                               "Ilievski, Filip"]
    # a city under an address is still no author
    rows = [TITLE, "Anastasia German", "MIPT", "german.aia@phystech.edu", "Moscow, Russia",
            "Abstract"]
    assert _authors(rows, {}, "", TITLE)[0] == ["German, Anastasia"]


def test_names_set_family_name_first_that_their_mailboxes_turn() -> None:
    rows = [TITLE, "Carrà Edoardo", "edoardo.carra@mail.polimi.it", "Gentile Lorenzo",
            "lorenzo3.gentile@mail.polimi.it", "Ferrario Daniele",
            "daniele6.ferrario@mail.polimi.it", "1 Introduction"]
    assert _authors(rows, {}, "", TITLE)[0] == ["Carrà, Edoardo", "Gentile, Lorenzo",
                                               "Ferrario, Daniele"]
    # one person's "family.given" mailbox is a choice of mailbox, not the name's order
    rows = [TITLE, "Sebastian Ruder", "Insight Centre for Data Analytics",
            "ruder.sebastian@gmail.com", "Abstract"]
    assert _authors(rows, {}, "", TITLE)[0] == ["Ruder, Sebastian"]


def test_a_researchgate_cover_that_shows_fewer_than_its_authors() -> None:
    cover = ["See discussions, stats, and author profiles for this publication at: https://www.",
             "A runtime model for fUML", "Conference Paper · October 2012", "3 authors, including:",
             "Tanja Mayerhofer", "TU Wien", "39 PUBLICATIONS 422 CITATIONS", "SEE PROFILE",
             "Philip Langer", "TU Wien", "45 PUBLICATIONS 872 CITATIONS", "SEE PROFILE"]
    page2 = ("A Runtime Model for fUML∗\nTanja Mayerhofer, Philip Langer, and Gerti Kappel "
             "Business Informatics Group Institute of Software Technology and Interactive Systems")
    text = "\n".join(cover) + "\n" + page2
    assert _authors(cover, {}, text, "A runtime model for fUML")[0] == [
        "Mayerhofer, Tanja", "Langer, Philip", "Kappel, Gerti"]
    # the byline as a run of names with nothing between them
    cover[4:12] = ["Brandon Lloyd", "Microsoft", "16 PUBLICATIONS 931 CITATIONS", "SEE PROFILE",
                   "Chas. Boyd", "Advanced Micro Devices", "6 PUBLICATIONS 237 CITATIONS",
                   "SEE PROFILE"]
    text = "\n".join(cover) + "\nD. Brandon Lloyd Chas Boyd Naga Govindaraju\nMicrosoft"
    assert _authors(cover, {}, text, "A runtime model for fUML")[0] == [
        "Lloyd, D. Brandon", "Boyd, Chas", "Govindaraju, Naga"]
    # no byline of that many: the profiles, as before
    assert _authors(cover, {}, "\n".join(cover), "A runtime model for fUML")[0] == [
        "Lloyd, Brandon", "Boyd, Chas."]


def test_the_aea_running_head_gives_the_year_not_a_period_studied() -> None:
    text = ("American Economic Journal: Applied Economics 2021, 13(4): 70–100\n"
            "Air Pollution and Criminal Activity\nUsing the geolocation of crimes in Chicago "
            "from 2001–2012, we compare crime upwind and downwind")
    assert paper_year(text, {})[0] == 2021


def _titled(tmp_path: Path, printed: str, info: str) -> Path:
    body = [(90, 80, 18, printed), (90, 120, 10, "Elena Fuchs, Kristin Lauter"),
            (90, 150, 10, "Abstract"),
            (90, 166, 10, "Cryptographic hash functions from expander graphs were proposed"),
            (90, 180, 10, "by Charles, Goren and Lauter based on the hardness of finding paths"),
            (90, 194, 10, "in the graph; we propose a new candidate for a hash function.")]
    return _pdf(tmp_path / "paper.pdf", body, title=info)


def test_an_info_title_near_the_printed_one_gives_way_to_it(tmp_path: Path) -> None:
    printed = "A Cryptographic Hash Function from Markoff Triples"
    pdf = _titled(tmp_path, printed, "Cryptographic Hash Functions from Markoff Triples")
    assert _as_printed("Cryptographic Hash Functions from Markoff Triples", pdf, None) == printed
    # not to a printed title cut short, nor to one that says something else
    cut = "Cryptographic Hash Functions from Markoff Triples and Expander Graphs"
    assert _as_printed(cut, pdf, None) == cut
    other = "Supplementary material: proofs of the lemmas"
    assert _as_printed(other, pdf, None) == other


def test_a_byline_of_capitals_each_name_with_its_affiliation() -> None:
    # Advances in Applied Probability: a name, its marks, its affiliation after a comma
    title = "PARALLEL MATCHING FOR RANKING ALL TEAMS IN A TOURNAMENT"
    rows = [title, "KEI KOBAYASHI, ∗ The Institute of Statistical Mathematics",
            "HIDEKI KAWASAKI ∗∗ ∗∗∗ and", "AKIMICHI TAKEMURA, ∗∗ ∗∗∗∗ The University of Tokyo",
            "Abstract"]
    assert _authors(rows, {}, "", title)[0] == ["Kobayashi, Kei", "Kawasaki, Hideki",
                                               "Takemura, Akimichi"]
    # a field of study before an institute is no name ("… Center for" / "Computational
    # Astrophysics, Flatiron Institute, New York")
    assert parse_byline("Computational Astrophysics") == []


def test_a_labelled_orcid_after_a_name() -> None:
    assert parse_byline("Joshua V. Dillon (ORCID: 0009-0009-6482-1899)") == ["Dillon, Joshua V."]


def test_sweep4_rows_and_years() -> None:
    # affiliation letters before the first name (Mathematical Social Sciences, 1997)
    assert parse_byline("a, b Herman Monsuur , Ton Storcken *") == ["Monsuur, Herman",
                                                                     "Storcken, Ton"]
    # initials in capitals are no family name: "Martin W.A. CAMINADA" is Caminada
    assert parse_byline("Ofer ARIELI a and Martin W.A. CAMINADA b,1") == [
        "Arieli, Ofer", "Caminada, Martin W.A."]
    assert parse_byline("Recommended Reading") == []
    # old Elsevier fonts set the en dash of a page range as "}"
    text = ("Journal of Econometrics 92 (1999) 1}45\nGMM estimation with cross sectional "
            "dependence\nReceived 1 July 1996; received in revised form 1 June 1998")
    assert paper_year(text, {})[0] == 1999


# heldout27 (read blind first, benchmarks/results/meta_heldout27_s30_blind.json), its misses:

def test_h27_rows() -> None:
    # names that start with initials after an affiliation's number (AASTeX)
    assert parse_byline("C. N. Poveda-Ruiz 1 J. E. Forero-Romero 1 J. C. Munoz-Cuartas ˜ 2") == [
        "Poveda-Ruiz, C. N.", "Forero-Romero, J. E.", "Munoz-Cuartas, J. C."]
    # a run of initialed names whose last has no initial
    assert parse_byline("Sage A. Weil Andrew W. Leung Scott A. Brandt Carlos Maltzahn") == [
        "Weil, Sage A.", "Leung, Andrew W.", "Brandt, Scott A.", "Maltzahn, Carlos"]
    # a nickname in quotes
    assert parse_byline('Yicheng "Billy" Lu 1 ; Xinyi Lu 2') == ["Lu, Yicheng", "Lu, Xinyi"]


@pytest.mark.parametrize("text, year", [
    ("PVLDB Reference Format: Ki Hyun Tae, Hantian Zhang. Falcon: Fair Active Learning.\n"
     "PVLDB, 17(5): XXX-XXX, 2024.", 2024),
    # HAL's cover: its reference's year, not the deposit's
    ("HAL Id: hal-01305026\nSubmitted on 20 Apr 2016\nTo cite this version:\nDavid Déharbe, "
     "Stephan Merz. Software Component Design with the B Method. Formal Aspects of Component "
     "Software - 12th International Conference, FACS 2015, Oct 2015, Niterói, Brazil. "
     "pp.31-47, ff10.1007/978-3-319-28934-2_2ff. ffhal-01305026ff", 2015),
])
def test_h27_years(text: str, year: int) -> None:
    assert paper_year(text, {})[0] == year


def test_h27_acm_running_head_year() -> None:
    first = ["ACM OOPS Messenger 4,4 (Oct. 1993), 2-27.", "Equal Rights for Functional Objects",
             "Henry G. Baker", "August, October, 1990, October, 1991, and April, 1992"]
    assert paper_year("\n".join(first), {}, first_page=first)[0] == 1993


def test_an_aastex_title_in_the_bodys_size(tmp_path: Path) -> None:
    from citeloom.structure.titles import layer_title

    rows = [(60, 47, 8, "Submitted for publication in ApJL"),
            (60, 56, 7, "Preprint typeset using LATEX style emulateapj v. 01/23/15"),
            (60, 101, 10, "QUANTIFYING AND CONTROLLING BIASES IN DARK MATTER HALO"),
            (60, 113, 10, "CONCENTRATION ESTIMATES"),
            (60, 128, 9, "C. N. Poveda-Ruiz 1 J. E. Forero-Romero 1 J. C. Munoz-Cuartas 2"),
            (60, 140, 8, "1 Departamento de Fisica, Universidad de los Andes, Bogota, Colombia"),
            (60, 167, 10, "ABSTRACT"),
            (60, 181, 10, "We use bootstrapping to estimate the bias of concentration estimates"),
            (60, 193, 10, "on N-body dark matter halos as a function of particle number.")]
    pdf = _pdf(tmp_path / "ms.pdf", rows)
    assert layer_title(pdf) == ("QUANTIFYING AND CONTROLLING BIASES IN DARK MATTER HALO "
                                "CONCENTRATION ESTIMATES")
    # without the stamps, a title in the body's size stands out from nothing: none
    pdf = _pdf(tmp_path / "plain.pdf", rows[2:])
    assert layer_title(pdf) is None


# heldout28 (read blind first, benchmarks/results/meta_heldout28_s30_blind.json), its misses:

@pytest.mark.parametrize("text, year", [
    # MNRAS's template before publication: volume 000, the template's year, the build's date
    ("MNRAS 000, 1-19 (2016)\nPreprint 17 February 2017\nCluster Dynamics with HETDEX", 2017),
    ("Mon. Not. R. Astron. Soc. 000, ??–?? () Printed 23 June 2016 (MN LATEX style file v2.2)",
     2016),
])
def test_h28_years(text: str, year: int) -> None:
    assert paper_year(text, {})[0] == year


def test_h28_names() -> None:
    assert parse_byline("Andrew Emerick, Greg L. Bryan and Mordecai-Mark Mac Low") == [
        "Emerick, Andrew", "Bryan, Greg L.", "Mac Low, Mordecai-Mark"]
    assert parse_byline("Ruth Angus, et al.") == ["Angus, Ruth"]
    assert parse_byline("Machine Intelligence") == []
    title = "LongCat-Flash-Omni Technical Report"
    assert _authors([title, "Meituan LongCat Team", "longcat-team@meituan.com", "ABSTRACT"], {},
                    "", title)[0] == ["Meituan LongCat Team"]
    # a team under a byline of people is an affiliation's, not the byline
    assert _authors([title, "Jane Doe", "Data Science Team", "ABSTRACT"], {}, "",
                    title)[0] == ["Doe, Jane"]


def test_a_labelled_manuscript_title_and_its_numbered_lines(tmp_path: Path) -> None:
    from citeloom.structure.header import layer_rows
    from citeloom.structure.titles import _labelled_title

    rows = [(20, 71, 12, "1"), (90, 71, 12, "Title: Using neutral theory to reveal the "
                                               "contribution of meta-community pro-"),
            (20, 86, 12, "2"), (90, 86, 12, "cesses to assembly in complex landscapes"),
            (20, 105, 6, "3"),
            (20, 113, 12, "4"), (90, 113, 12, "Authors: Dominique Gravel 1,2, Timothee Poisot 1,2"),
            (20, 134, 6, "5"),
            (20, 144, 12, "6"), (90, 144, 12, "1: Canada Research Chair on Terrestrial Ecosystems"),
            (20, 160, 12, "7"), (90, 160, 12, "Abstract"),
            (20, 176, 12, "8"), (90, 176, 12, "We use neutral theory to reveal the contribution")]
    pdf = _pdf(tmp_path / "ms.pdf", rows)
    title = _labelled_title(pdf, None)
    assert title == ("Using neutral theory to reveal the contribution of meta-community processes "
                     "to assembly in complex landscapes")
    found, _ = layer_rows(pdf, None, title)
    assert _authors(found, {}, "", title)[0] == ["Gravel, Dominique", "Poisot, Timothee"]


def test_h29_after_a_post_and_a_name_broken_after_bare_initials() -> None:
    # found after heldout29 was read once with the final code (its blind figures stand)
    title = "Regression Conformal Prediction: Empirical Study"
    rows = [title, "Emre Tasar, Data Scientist", "2026", "Contact: detasar@gmail.com",
            "1 Abstract"]
    assert _authors(rows, {}, "", title)[0] == ["Tasar, Emre"]
    title = "Neural Co-Processors for Restoring Brain Function"
    rows = [title, "Matthew J Bryan 1 , Linxing Preston Jiang 1,2,3 , Rajesh P N", "Rao 1,2,3",
            "1 Neural Systems Laboratory, University of Washington, Seattle, WA, USA", "Abstract"]
    assert _authors(rows, {}, "", title)[0] == ["Bryan, Matthew J", "Jiang, Linxing Preston",
                                               "Rao, Rajesh P N"]
