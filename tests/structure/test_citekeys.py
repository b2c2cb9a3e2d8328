"""Citekeys made for papers without one (``citekeys``): Better BibTeX-like, ASCII, stable,
and told apart the same way whatever order the papers came in."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

from citeloom.payload import GENERATED, chunk_payload, external_metadata
from citeloom.structure.citekeys import citekey, ensure_citekey, unique_keys


def test_family_year_and_first_significant_title_word() -> None:
    assert citekey(["Therneau, Terry"], 2023,
                   "Using Time Dependent Covariates in the Cox Model") == "therneau2023using"
    assert citekey(["Hothorn, Torsten"], 2008,
                   "The Simultaneous Inference of Models") == "hothorn2008simultaneous"
    assert citekey(["Koller, Manuel"], 2022,
                   "A Definitions of ψ-Functions") == "koller2022definitions"


def test_names_fold_to_ascii() -> None:
    assert citekey(["Oehlschlägel, Jens"], 2022, "Usage of bit") == "oehlschlagel2022usage"
    assert citekey(["van de Wiel, Mark A."], 2006, "Lego") == "vandewiel2006lego"
    assert citekey(["O'Connell, Mary J."], 2017, "VESPA: Very large") == "oconnell2017vespa"
    assert citekey(["Mark A. van de Wiel"], 2006, "Lego") == "vandewiel2006lego"
    assert citekey(["Łukasiewicz, Jan"], 1951, "Æsthetic Œuvre") == "lukasiewicz1951aesthetic"
    for key in (citekey(["Sundström, Anna"], 2014, "Stressful life"),
                citekey(["Агеев, И."], 2020, "Über Straße")):
        assert re.fullmatch(r"[a-z][a-z0-9]*", key), key


def test_missing_parts_are_left_out() -> None:
    assert citekey([], 2019, "The Impact of Open Access") == "impactopen2019"
    assert citekey(["Hothorn, Torsten"], None, "coin: A Framework") == "hothorncoin"
    assert citekey([], None, "5.1 Hyper Parameter Optimization") == "hyperparameter"
    assert citekey([], None, "", fallback="3f2a9c1d") == "3f2a9c1d"
    assert citekey(None, None, None) == "paper"
    assert citekey(["Smith, J."], 2020, "") == "smith2020"


def test_the_same_metadata_always_gives_the_same_key() -> None:
    args = (["Agyeman-Duah, Josephine"], 2014, "Understanding the barriers to setting up")
    assert citekey(*args) == citekey(*args) == "agyemanduah2014understanding"


def test_collisions_get_postfixes_in_doc_id_order_whatever_the_order_given() -> None:
    papers = [("d3", "smith2020models"), ("d1", "smith2020models"), ("d2", "jones2019data"),
              ("d9", "smith2020models"), ("d0", "smith2020modelsa")]
    expected = {"d0": "smith2020modelsa", "d1": "smith2020models", "d2": "jones2019data",
                "d3": "smith2020modelsb", "d9": "smith2020modelsc"}
    for seed in range(5):
        shuffled = papers[:]
        random.Random(seed).shuffle(shuffled)
        assert unique_keys(shuffled) == expected
    # a Zotero key the project already has is never handed out again
    assert unique_keys([("d1", "smith2020"), ("d2", "smith2020")], taken={"smith2020"}) == {
        "d1": "smith2020a", "d2": "smith2020b"}
    many = unique_keys([(f"d{i:02}", "k") for i in range(30)])
    assert many["d00"] == "k" and many["d26"] == "kz" and many["d27"] == "kaa"


def _chunk() -> SimpleNamespace:
    return SimpleNamespace(heading_chain=[], page_start=1, page_end=1, index=0, text="t",
                           item_labels=[])


def _payload(meta: dict) -> dict:
    title = "Using Time Dependent Covariates"
    return chunk_payload(_chunk(), project="p", doc_id="abc123", content_hash="h",
                         source="x.pdf", title=title, chunk_count=1, dense_model="m",
                         meta=ensure_citekey(meta, title, "abc123"))


def test_a_paper_outside_zotero_gets_a_generated_key() -> None:
    p = _payload({"authors": ["Therneau, Terry"], "year": 2023})
    assert (p["citekey"], p["citekey_source"]) == ("therneau2023using", GENERATED)
    assert _payload({})["citekey"] == "usingtime"


def test_a_given_key_wins_and_notes_get_none() -> None:
    p = _payload({"citekey": "therneau2023cox", "authors": ["Therneau, Terry"]})
    assert p["citekey"] == "therneau2023cox" and "citekey_source" not in p
    # a Zotero item Better BibTeX gave no key is a paper too: it gets one
    z = _payload({"zotero_key": "ABCD1234", "authors": ["Therneau, Terry"]})
    assert z["citekey"] == "therneauusing" and z["citekey_source"] == GENERATED
    note = _payload({"zotero_key": "N1", "kind": "note"})
    assert note["citekey"] is None and "citekey_source" not in note


def test_a_generated_key_is_not_kept_as_zotero_metadata() -> None:
    p = {**_payload({"authors": ["Therneau, Terry"], "year": 2023}), "zotero_key": "Z1"}
    assert "citekey" not in (external_metadata(p) or {})
