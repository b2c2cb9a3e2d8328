"""Bylines and years as 125 papers nobody here had read print them (the accepted papers of
the heldout19-21 draws that the walks did not take; docs/DECISIONS.md "What a sweep of
125 unread papers showed"). Each string is a real PDF's text-layer row."""

import pytest

from citeloom.structure.metadata import _accented, title_byline
from citeloom.structure.names import parse_byline, person
from citeloom.structure.years import paper_year


@pytest.mark.parametrize("row, want", [
    # a post, an office or a place printed under a name is no person
    ("Independent Researcher", []),
    ("Sagan Fellow", []),
    ("Mountain View", []),
    ("Pine AI", []),
    ("Federal Reserve Board", []),
    # an accent set as a glyph of its own beside its word (old TeX fonts)
    ("Jill-Jenn Vie, ˆ 1 Hisashi Kashima 1 2", ["Vie, Jill-Jenn", "Kashima, Hisashi"]),
    ("Sebastien Jean ´", ["Jean, Sebastien"]),
    ("Moustapha Cisse´ 1, David Grangier 1", ["Cisse, Moustapha", "Grangier, David"]),
    # "◦" and "•" as affiliation marks
    ("Afonso Menegola †‡, Michel Fornaciali †‡, Ramon Pires ◦ , Flavia Vasques Bittencourt ´ • ,"
     " Sandra Avila † , Eduardo Valle †∗",
     ["Menegola, Afonso", "Fornaciali, Michel", "Pires, Ramon", "Bittencourt, Flavia Vasques",
      "Avila, Sandra", "Valle, Eduardo"]),
    # Elsevier's letters, and a Chinese family name spelt like a particle
    ("Fujin Wang a,b,∗ , Zhi Zhai a,b,∗ , Zhibin Zhao a,b,∗∗, Yi Di a,b, Xuefeng Chen a,b,∗∗",
     ["Wang, Fujin", "Zhai, Zhi", "Zhao, Zhibin", "Di, Yi", "Chen, Xuefeng"]),
    # initials without their last full stop
    ("Ahmed G.A.H Ahmed", ["Ahmed, Ahmed G.A.H"]),
])
def test_sweep_rows(row, want):
    assert parse_byline(row) == want


def test_a_particle_is_still_no_family_name():
    assert person("Pierre de") is None
    assert person("Bo Du") == "Du, Bo"


def test_names_before_the_and_list_each_closed_by_a_comma():
    title, names = title_byline(
        "Pandemics Depress the Economy, Public Health Interventions Do Not: Evidence from the "
        "1918 Flu Sergio Correia, Stephan Luck, and Emil Verner * [PRELIMINARY – COMMENTS "
        "WELCOME]")
    assert title.endswith("from the 1918 Flu")
    assert names == ["Correia, Sergio", "Luck, Stephan", "Verner, Emil"]
    # a given name before its initial stays with its name
    title, names = title_byline("A Study of Things in the World J. Smith, Anna B. Jones, and "
                                "Emil Verner")
    assert names[-2:] == ["Jones, Anna B.", "Verner, Emil"]


def test_accents_the_rows_lost_come_back_from_the_page_text():
    text = "Audio Style Transfer Eric Grinstein, Alexey Ozerov and Patrick Pérez Technicolor Å"
    assert _accented(["Perez, Patrick", "Savchenko, A."], text) == ["Pérez, Patrick",
                                                                    "Savchenko, A."]


def test_aaai_header_year():
    line = "The Thirty-Third AAAI Conference on Artificial Intelligence (AAAI-19)"
    assert paper_year("", {}, [], [line]) == (2019, "pdf-text")
    assert paper_year("", {}, [], ["Workshop notes (ABC-19)"]) == (None, None)


def test_a_kind_and_its_year_under_the_title():
    assert paper_year("", {}, ["Preliminary report — 2026"], []) == (2026, "pdf-text")
    assert paper_year("", {}, ["Working paper, 2019"], []) == (2019, "pdf-text")
    assert paper_year("", {}, ["Model report — 2026 results"], []) == (None, None)


@pytest.mark.parametrize("row, want", [
    # REVTeX's marks after the comma, and "O' Neale" with its stray space
    ("Chakresh Kr. Singh, ∗ Demival Vasques Filho, † Shivakumar Jolad, ‡ and Dion O' Neale §",
     ["Singh, Chakresh Kr.", "Vasques Filho, Demival", "Jolad, Shivakumar", "O'Neale, Dion"]),
    # a generation suffix with an affiliation's letter after it
    ("Murray Campbell a,∗, A. Joseph Hoane Jr. b, Feng-hsiung Hsu c",
     ["Campbell, Murray", "Hoane, A. Joseph", "Hsu, Feng-hsiung"]),
    # the first of two Spanish family names
    ("Jose María Ezquiaga, Juan García-Bellido and Ester Ruiz Morales",
     ["Ezquiaga, Jose María", "García-Bellido, Juan", "Ruiz Morales, Ester"]),
    ("Juan Carlos Ruiz", ["Ruiz, Juan Carlos"]),
    # a form's labels (Springer's chapter metadata page)
    ("Given Name, Jia R.", []),
    ("Copyright Year, 2021", []),
])
def test_h22_rows(row, want):
    assert parse_byline(row) == want


def test_a_joss_byline_broken_inside_names_over_three_rows():
    from citeloom.structure.metadata import _authors

    rows = ["omock: A R package for Mock Data Generation",
            "Mike Du 1 , Núria Mercadé-Besora 1 , Marta Alcalde-Herraiz 1 , Xihang",
            "Chen 1 , Yuchen Guo 1 , Kim López-Güell 1 , Edward Burn 1 , and Martí",
            "Català 1¶",
            "1 Health Data Sciences Group, Nuffield Department of Orthopaedics, Rheumatology and",
            "DOI: 10.21105/joss.08178"]
    names, _ = _authors(rows, {}, "", rows[0])
    assert names == ["Du, Mike", "Mercadé-Besora, Núria", "Alcalde-Herraiz, Marta",
                     "Chen, Xihang", "Guo, Yuchen", "López-Güell, Kim", "Burn, Edward",
                     "Català, Martí"]


def test_cover_pages_iop_and_scholarone():
    from citeloom.structure.metadata import _authors

    iop = ("To cite this article: A Bogdanchikov et al 2013 J. Phys.: Conf. Ser. 423 012027\n"
           "View the article online for updates and enhancements.")
    assert _authors([], {}, iop, "Python to learn programming") == (["Bogdanchikov, A."],
                                                                    "pdf-text")
    assert paper_year(iop, {}) == (2013, "pdf-text")
    rows = ["Journal: Part E: Journal of Process Mechanical Engineering",
            "Manuscript ID JPME-22-0830",
            "Complete List of Authors: Amirzadeh, Hamidreza; Amirkabir University, Mechanical "
            "Engineering", "Department",
            "Heidari, Mohammad; Amirkabir University, Mechanical Engineering",
            "Bahrami, Mohsen; Amirkabir University of Technology",
            "Keywords: Gait phase detection, Rehabilitation, Inertial Measurement Unit, Machine"]
    assert _authors(rows, {}, "", "Gait Event Detection")[0] == [
        "Amirzadeh, Hamidreza", "Heidari, Mohammad", "Bahrami, Mohsen"]


@pytest.mark.parametrize("row, want", [
    # numbers after a hyphenated given name; two numbers with no comma between
    ("Yi Tay 1 Dara Bahri 1 Donald Metzler 1 Da-Cheng Juan 1 Zhe Zhao 1 Che Zheng 1",
     ["Tay, Yi", "Bahri, Dara", "Metzler, Donald", "Juan, Da-Cheng", "Zhao, Zhe", "Zheng, Che"]),
    ("Stephane d’Ascoli * 1 2 Pierre-Alexandre Kamienny * 2 3 Guillaume Lample 2",
     ["d’Ascoli, Stephane", "Kamienny, Pierre-Alexandre", "Lample, Guillaume"]),
    # stars some fonts map to "⇤" or "˚"
    ("Prafulla Dhariwal⇤", ["Dhariwal, Prafulla"]),
    ("John T. Halloran˚ Manbir Gulati˚", ["Halloran, John T.", "Gulati, Manbir"]),
    # IEEE's grade with no comma before it; ORCIDs with a minus sign, between names
    ("Sinno Jialin Pan and Qiang Yang Fellow, IEEE", ["Pan, Sinno Jialin", "Yang, Qiang"]),
    ("Jie Hu[0000−0002−5150−1003] Li Shen[0000−0002−2283−4976] Samuel Albanie[0000−0001−9736"
     "−5134]", ["Hu, Jie", "Shen, Li", "Albanie, Samuel"]),
    ("Anonymous Authors", []),
])
def test_sweep2_rows(row, want):
    assert parse_byline(row) == want


def test_a_cedilla_after_its_letter():
    from citeloom.text import compose_accents

    assert compose_accents("Franc¸ois Fran¸cois Gar¸con") == "François François Garçon"


def test_thesis_and_cover_years():
    # a thesis's academic year: the later one
    assert paper_year("", {}, [], ["ANNO ACCADEMICO 2020-2021"]) == (2021, "pdf-text")
    assert paper_year("", {}, [], ["Academic Year 2019/20"]) == (2020, "pdf-text")
    assert paper_year("", {}, [], ["Academic Year 2019-2023"]) == (None, None)
    # JSTOR's cover: the source's year, not the day it was downloaded
    cover = ("Effects of Spouse Presence Author(s): William S. Aquilino Source: The Public "
             "Opinion Quarterly , Autumn, 1993, Vol. 57, No. 3 (Autumn, 1993), pp. 358-376 "
             "Published by: Oxford University Press Stable URL: https://www.jstor.org/stable/1\n"
             "This content downloaded from 142.150.190.39 on Fri, 29 Nov 2024 07:22:42 UTC")
    assert paper_year(cover, {}) == (1993, "pdf-text")
    # a figure's source is no cover
    assert paper_year("Figure 2. Source: World Bank, 2019 data.", {}) == (None, None)


def test_a_subtitle_that_starts_with_summary_does_not_end_the_header():
    from citeloom.structure.metadata import _header

    page = ["Projection of state-level foster care outcomes", "Summary of technical model "
            "details", "Monica Alexander", "December 11, 2020", "1 Overview"]
    assert _header(page, page[0])[:3] == page[1:4]


def test_h23_researchgate_cover():
    from citeloom.structure.metadata import _authors

    rows = ["Security Analysis of MD5 Algorithm in Password Storage", "Article · February 2013",
            "CITATIONS, READS", "49, 10,923", "3 authors, including:",
            "Mary Cindy Ah Kioon", "2 PUBLICATIONS\xa0\xa0\xa050 CITATIONS", "SEE PROFILE",
            "M.Tuncay Gençoğlu", "Fırat University", "77 PUBLICATIONS 201 CITATIONS",
            "SEE PROFILE", "Shubra Deb Das", "2 PUBLICATIONS 50 CITATIONS", "SEE PROFILE",
            "All content following this page was uploaded by Mary Cindy Ah Kioon."]
    # four words may be two people: left out rather than guessed
    assert _authors(rows, {}, "", rows[0])[0] == ["Gençoğlu, M. Tuncay", "Das, Shubra Deb"]
    assert parse_byline("SEE PROFILE") == []


@pytest.mark.parametrize("row, want", [
    ("Michael P. O'Donnell †,§ , Bennett W. Fox ‡ , Pin\xadHao Chao † , Frank C. Schroeder ‡ "
     "and Piali Sengupta †,§",
     ["O'Donnell, Michael P.", "Fox, Bennett W.", "Chao, Pin-Hao", "Schroeder, Frank C.",
      "Sengupta, Piali"]),
    ("Pierre de", []),
])
def test_h23_rows(row, want):
    assert parse_byline(row) == want


def test_h23_a_name_whose_mailbox_is_its_given_name_and_years():
    from citeloom.structure.metadata import _lead_name

    assert _lead_name("Ashish Thapa Ampixa Labs ashish@ampixa.com") == ["Thapa, Ashish"]
    assert paper_year("Dermatological Nursing 2016, Vol 15, No 4, www.bdng.org.uk", {}) == (
        2016, "pdf-text")
    assert paper_year("Date: Revision: May 24, 2023. We thank Paul Goldsmith-Pinkham", {}) == (
        2023, "pdf-text")


def test_h24_names_and_years():
    from citeloom.structure.metadata import _lead_name
    from citeloom.structure.names import email_locals, split_by_emails

    assert person("Laura St. Germain") == "St. Germain, Laura"
    assert parse_byline("Indian Trail Church") == []
    assert person("Social Predictors") is None and person("Hector Garcia") == "Garcia, Hector"
    # names side by side, as many pairs of words as addresses under them (nicknames)
    rbg = email_locals(["{rbg,jdonahue,trevor,malik}@eecs.berkeley.edu"])
    assert split_by_emails("Ross Girshick Jeff Donahue Trevor Darrell Jitendra Malik", rbg) == [
        "Girshick, Ross", "Donahue, Jeff", "Darrell, Trevor", "Malik, Jitendra"]
    # ... but a college's name over two addresses that spell neither pair is no byline
    assert split_by_emails("Mapua Malayan Colleges Mindanao",
                           email_locals(["{aDanial, skiMargate}@mcm.edu.ph"])) == []
    assert _lead_name("Anthony Le | Denison University, Department of Economics") == [
        "Le, Anthony"]
    assert paper_year("", {}, [], ["BioKDD’18, August 2018, London, UK"]) == (2018, "pdf-text")
    assert paper_year("", {}, [], ["TAICHI 2026, Taiwan"]) == (2026, "pdf-text")


@pytest.mark.parametrize("row, want", [
    ("Zhen Li →, Tan Li †, Hai Liu †, Tse-Tin Chan →",
     ["Li, Zhen", "Li, Tan", "Liu, Hai", "Chan, Tse-Tin"]),
    ("Miguel Becerra a , Alejandro Jerez a,⇑ , Bastián Aballay a , Hugo O. Garcés b , Andrés "
     "Fuentes a", ["Becerra, Miguel", "Jerez, Alejandro", "Aballay, Bastián", "Garcés, Hugo O.",
                   "Fuentes, Andrés"]),
    ("Ashwitha Cryptographic", []),
    ("Applied Probability Trust", []),
])
def test_h25_rows(row, want):
    assert parse_byline(row) == want
