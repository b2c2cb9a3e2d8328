"""Years from heldout48's and heldout49's misses (session 35): a review copy's head, a
workshop's line, a magazine's running head, LaTeX's © as some fonts give it, a weekday's
date, HAL's cover with another portal's id."""

import pytest

from citeloom.structure.years import paper_year


@pytest.mark.parametrize(("text", "year"), [
    ("CVPR 2015 Submission #1881. CONFIDENTIAL REVIEW COPY. DO NOT DISTRIBUTE.", 2015),
    ("Network Uncertainty\nJohn S. Schuler\nCSSSA 2026 Extended Abstract\nAbstract", 2026),
    ("114 COMMUNICATIONS OF THE ACM | FEBRUARY 2016 | VOL. 59 | NO. 2", 2016),
    ("Nature Nanotechnology | VOL 16 | October 2021 | 1079–1085 | www.nature.com", 2021),
    ("NATURE | VOL 523 | 30 JULY 2015", 2015),
    ("https://doi.org/10.1101/2024.12.11.628077\nthis version posted December 17, 2024.", 2024),
    ("ACM Reference Format: Fabio Luporini, Ana Lucia Varbanescu, and Paul H. J. Kelly, 2014. "
     "Cross-Loop Optimization of Arithmetic Intensity. ACM Trans. V, N, Article A", 2014),
    ("Friday, December 5, 2025 This manuscript is a preprint and with its full version", 2025),
    ("To cite this version:\nEmmanuel Vincent, Nancy Bertin, Roland Badeau. Adaptive harmonic "
     "spectral decomposition. IEEE Transactions on Audio, Speech and Language Processing, "
     "2010, 18 (3), pp.528-537. \uffffinria-00544094\uffff\nHAL Id: inria-00544094\n"
     "Submitted on 7 Dec 2010\nManuscript received December 31, 2009", 2010),
    ("\u2217 Replication files are available on Github (XZX); Current version: July 12, 2023;",
     2023),
    ("To cite this version:\nBhaskar Biswas, Vincent Herbert. Efficient Root Finding. 2009.\n"
     "2.. 2009. \uffffhal-00626997\uffff\nPreprint submitted on 27 Sep 2011", 2009),
    ("\u20ddc, Springer International Publishing AG 2016", 2016),
    ("c\u20dd 2012 IEEE", 2012),
])
def test_a_venue_line_or_a_copyright_gives_the_year(text: str, year: int) -> None:
    assert paper_year(text, {}) == (year, "pdf-text")


@pytest.mark.parametrize(("line", "year"), [
    ("Vol. 4 No. 9 2017 / IFCoLog Journal of Logic and its Applications", 2017),
    ("JGP - Vol. 5, n. 4 1988", 1988),
    ("17 de novembro de 2015", 2015),
    ("Milano, 3 maggio 2019", 2019),
])
def test_a_line_of_page_one_gives_the_year(line: str, year: int) -> None:
    assert paper_year("", {}, [line], [line]) == (year, "pdf-text")


@pytest.mark.parametrize("text", [
    "CVPR 2015 Submission #****. CONFIDENTIAL REVIEW COPY.",  # the template's, unfilled
    "We compare with the CVPR 2015 extended abstract of Smith et al.",  # a year cited
])
def test_no_year_from_a_template_or_a_sentence(text: str) -> None:
    assert paper_year(text, {}) == (None, None)
