"""A family name of two words, told by the paper's own references (session 33)."""

from citeloom.structure.names import cited_families
from citeloom.structure.titles import layer_title

from .test_drafts import _pdf

# A reference list as the text layer gives it: Vancouver and author-year forms.
REFS = ("References 1. Davey Smith G, Ebrahim S. Mendelian randomization: can genetic "
        "epidemiology contribute? Int J Epidemiol. 2003. 2. Silva Aguirre, V., Davies, G. R., "
        "Basu, S. 2015, MNRAS, 452, 2127. 3. McAfee, R. P. and McMillan, J. (1987). Auctions "
        "and bidding. 4. MAC LOW, M.-M. & Klessen, R. S. 2004, RvMP, 76, 125. "
        "5. Shagan-Damti R, Cohen A. Selective rejection. 2023.")


def test_a_given_name_that_the_references_cite_as_family_moves_over():
    got = cited_families(["Smith, George Davey", "Aguirre, Victor Silva", "Tilling, Kate",
                          "Low, Mordecai-Mark Mac", "Damti, Ravit Shagan"], REFS)
    assert got == ["Davey Smith, George", "Silva Aguirre, Victor", "Tilling, Kate",
                   "Mac Low, Mordecai-Mark", "Shagan-Damti, Ravit"]


def test_a_family_name_cited_only_by_its_last_word_keeps_that_word():
    # "R. PRESTON MCAFEE" read with a family name of two words
    assert cited_families(["Preston Mcafee, R."], REFS) == ["McAfee, R. Preston"]


def test_no_reference_no_change():
    names = ["Teja, K. Sai", "Smith, John Ravit", "White, Timothy R.", "St. Germain, Laura",
             "Khan, Abdullah Ayub"]
    # an initial is never a family name's part, and "St." stays with Germain
    assert cited_families(names, REFS + " Germain, L. 2019. Khan, A. 2020.") == names
    # a byline's next author is no citation: "Smith, John Ravit" with "Ravit Smith, J." only
    # when the initial stands alone ("Ravit Smith, Jane" is a list of names)
    assert cited_families(["Smith, John Ravit"], "Ravit Smith, Jane Doe") \
        == ["Smith, John Ravit"]


def test_affiliation_letters_glued_to_the_names_come_off():
    from citeloom.structure.glued import unglued_letters

    # elsarticle, as Docling reads its head (sweep10)
    head = ["30 Days After Introducing Programming:", "Will My Students Fail?",
            "Marcio Ribeiroa , Rodrigo Paesa,⇤, Rohit Gheyib",
            "a Federal University of Alagoas, Maceio, Brazil b Federal University of Campina "
            "Grande, Campina Grande, Brazil", "Abstract"]
    names = ["Ribeiroa, Marcio", "Paesa, Rodrigo", "Gheyib, Rohit"]
    assert unglued_letters(names, head) == ["Ribeiro, Marcio", "Paes, Rodrigo",
                                            "Gheyi, Rohit"]
    # no lettered affiliations: names that end in "a" and "b" stay
    assert unglued_letters(names, head[:3]) == names
    # every name ending in "a" proves nothing ("Silva", "Costa")
    assert unglued_letters(["Silva, Ana", "Costa, Rui"], head) == ["Silva, Ana", "Costa, Rui"]


# page 1's body: twelve rows in a small type, under the head
_BODY = [(60, 300 + 12 * i, 7, "The rest of the first page sets its text in a small type like "
          "this one, line after line.") for i in range(12)]


def test_a_title_under_elsevier_masthead_and_a_title_that_starts_with_a_count(tmp_path):
    body = _BODY
    masthead = [(60, 48, 6.4, "Neuroscience Letters 446 (2008) 101-104"),
                (60, 74, 8, "Contents lists available at ScienceDirect"),
                (60, 98, 14, "Neuroscience Letters"),
                (60, 130, 8, "journal homepage: www.elsevier.com/locate/neulet"),
                (60, 178, 13.4, "Effects of salvinorin A on locomotor sensitization to"),
                (60, 195, 13.4, "a dopamine agonist"),
                (60, 219, 10.5, "Pieter Beerepoot a, Vincent Lam a, Henry Szechtman a,*"),
                (60, 280, 9, "Abstract")]
    assert layer_title(_pdf(tmp_path / "a.pdf", masthead + body)) == \
        "Effects of salvinorin A on locomotor sensitization to a dopamine agonist"
    # a banner alone over a title well below its type: the banner is no title, nor the byline
    assert layer_title(_pdf(tmp_path / "b.pdf", masthead[:4] + masthead[6:] + body)) is None
    counted = [(60, 124, 14.3, "30 Days After Introducing Programming:"),
               (60, 142, 14.3, "Will My Students Fail?"),
               (60, 174, 10, "Marcio Ribeiro a, Rodrigo Paes a, Rohit Gheyi b"),
               (60, 261, 10, "Abstract")]
    assert layer_title(_pdf(tmp_path / "c.pdf", counted + body)) == \
        "30 Days After Introducing Programming: Will My Students Fail"
    # a numbered heading in the largest type stays no title
    assert layer_title(_pdf(tmp_path / "d.pdf", [(60, 124, 14.3, "1 Einleitung")] + body)) is None


def test_affiliation_letters_after_the_comma_before_the_next_name():
    from citeloom.structure.names import parse_byline

    assert parse_byline("Ruslan V. Bikbulatov, a Feng Yan, b Bryan L. Roth b and Jordan K. "
                        "Zjawiony a,c,*") == ["Bikbulatov, Ruslan V.", "Yan, Feng",
                                              "Roth, Bryan L.", "Zjawiony, Jordan K."]


def test_initials_first_references_prove_nothing():
    # IEEE: "A. Ayub Khan, A. A. Laghari": the "A." after the comma is Laghari's
    refs = "[10] A. Ayub Khan, A. A. Laghari, Z. A. Shaikh, and Z. Dacko, \"Blockchain\", 2023."
    assert cited_families(["Khan, Abdullah Ayub"], refs) == ["Khan, Abdullah Ayub"]


def test_the_masthead_journal_in_the_titles_type_and_a_jstor_cover(tmp_path):
    body = _BODY
    elsevier = [(60, 37, 6.6, "Operations Research for Health Care 21 (2019) 1-18"),
                (60, 63, 8, "Contents lists available at ScienceDirect"),
                (60, 87, 14, "Operations Research for Health Care"),
                (60, 118, 8, "journal homepage: www.elsevier.com/locate/orhc"),
                (60, 165, 14, "Forecasting arrivals and occupancy levels in an emergency "
                 "department"),
                (60, 187, 11, "Ward Whitt, Xiaopei Zhang *")]
    assert layer_title(_pdf(tmp_path / "e.pdf", elsevier + body)) == \
        "Forecasting arrivals and occupancy levels in an emergency department"
    jstor = [(60, 167, 12, "Effects of Spouse Presence During the Interview on Survey"),
             (60, 179, 12, "Responses Concerning Marriage"),
             (60, 198, 12, "Author(s): William S. Aquilino"),
             (60, 218, 12.3, "Source: The Public Opinion Quarterly , Autumn, 1993, Vol. 57"),
             (60, 231, 12, "358-376")]
    # the larger "Source:" row is below the title: no banner over it, and no title here
    assert layer_title(_pdf(tmp_path / "j.pdf", jstor + body)) is None
