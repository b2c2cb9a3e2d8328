"""A quoted phrase in a query is searched as written (issue #17, query handling): the
parsing and the exact check here; on a real index in test_metadata_filters."""

from __future__ import annotations

from citeloom.index import Hit
from citeloom.search.ranking import holds_phrases, quoted_phrases


def test_quoted_phrases_in_every_quoting_style_once() -> None:
    assert quoted_phrases('what is "vena cava" filter') == ["vena cava"]
    assert quoted_phrases("the \u201clife  events\u201d and \u00ab S76-001 \u00bb") == [
        "life events", "S76-001"]
    assert quoted_phrases('"a b" and "a b" again') == ["a b"]
    assert quoted_phrases('no phrase, "" or " - " here') == []  # nothing to match
    assert quoted_phrases("an apostrophe's 'single quotes' are words") == []


def test_a_phrase_holds_across_case_hyphens_and_line_breaks_but_not_reordered() -> None:
    hit = Hit("c", 1.0, {"chunk_text": "Retrievable Vena-\ncava filters (IVC) were used."})
    assert holds_phrases(hit, ["vena cava filters"])
    assert holds_phrases(hit, ["VENA CAVA", "ivc"])  # every phrase must hold
    assert not holds_phrases(hit, ["cava vena"])
    assert not holds_phrases(hit, ["vena cava", "heparin"])
