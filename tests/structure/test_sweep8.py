"""Bylines as an eighth sweep and the next blind sets printed them (docs/DECISIONS.md "An
eighth sweep and heldout34-35"). Each string is a real PDF's text-layer row."""

from citeloom.structure.metadata import _authors
from citeloom.structure.names import parse_byline, person


def test_initials_after_a_name_when_another_name_follows() -> None:
    # IEEE VLSID 2021: "Babu P S" is Babu, P. S. (the byline was dropped whole before)
    line = "Babu P S †, Snehashri Sivaraman ∗, Deepa N Sarma § and Tripti S Warrier †"
    assert parse_byline(line) == ["Babu, P S", "Sivaraman, Snehashri", "Sarma, Deepa N",
                                  "Warrier, Tripti S"]
    # at the line's end the family name may come on the next row ("Rajesh P N" / "Rao")
    assert parse_byline("Matthew J Bryan 1 , Rajesh P N") == []
    # a word a letter follows is no name: "Appendix A B"
    assert parse_byline("Appendix A B, Table S C") == []


def test_a_university_named_by_its_city_is_no_person() -> None:
    # DDECS 2024: "Nele Mentens KU Leuven" gave a fifth author "Leuven, KU"
    assert person("KU Leuven") is None
    assert person("TU Delft") is None
    title = "Optimised AES with RISC-V Vector Extensions"
    rows = [title, "Mahnaz Namazi Rizi, Nusa Zidaric, Lejla Batina, Nele Mentens",
            "KU Leuven", "Abstract"]
    assert [n.split(",")[0] for n in _authors(rows, {}, "", title)[0]] == [
        "Rizi", "Zidaric", "Batina", "Mentens"]
