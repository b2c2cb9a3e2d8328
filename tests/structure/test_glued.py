"""Names the text layer glued together (heldout48's Scientific Reports byline)."""

from citeloom.structure.names import parse_byline


def test_a_given_name_glued_to_its_family_name_is_set_apart_where_the_byline_needs_it():
    row = "Hajar Moradmand 1\uf02a, Jason Molitoris 1, Xiao Ling 2, Lisa Schumaker 3, ErinAllor 4,"
    assert parse_byline(row) == ["Moradmand, Hajar", "Molitoris, Jason", "Ling, Xiao",
                                 "Schumaker, Lisa", "Allor, Erin"]
    assert parse_byline("HannahThomas 4, DanielleArons 4") == ["Thomas, Hannah",
                                                               "Arons, Danielle"]
    # names that are written so stay whole; a short prefix is never a given name
    assert parse_byline("Yann LeCun and Ryan McDonald") == ["LeCun, Yann", "McDonald, Ryan"]
    assert parse_byline("Jake VanderPlas, Mary MacKay") == ["VanderPlas, Jake", "MacKay, Mary"]
    # nothing glued into a person where there is none
    assert parse_byline("Google DeepMind") == []
    assert parse_byline("BiobitWorks") == []  # a company's name alone, in the PDF's Author
