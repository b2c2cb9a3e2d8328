"""A question searched in other phrasings too (``also``, issue #17): a translation into the
papers' language is embedded and searched like the question, and each chunk's scores are
summed. Real embeddings, real Edge index, real BM25."""

from __future__ import annotations

import pytest

from citeloom.errors import InvalidInput
from citeloom.index import Hit
from citeloom.search.ranking import MAX_ALSO, summed
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest

from ..conftest import shared_settings

MASKS = (
    "Les masques en tissu doivent être lavés à 60 °C pendant 30 minutes selon le guide. "
    "Nous avons rempli d'eau bouillante une casserole, un seau en plastique et une bassine "
    "en métal, puis mesuré la température toutes les cinq minutes. "
    "La casserole couverte garde l'eau au-dessus de 60 °C le plus longtemps, pendant "
    "trente-cinq minutes, alors que la bassine descend sous 60 °C en douze minutes. "
    "Il faut donc commencer avec une eau à 80 °C au moins.")
HANDS = (
    "Laundering and hand hygiene in hospital wards: staff washed their hands and their "
    "fabric gowns in hot water, and we measured how long the wash water stayed hot in the "
    "ward sinks. Hot wash water for fabric items reduced bacterial counts.")
COMFORT = (
    "Wearing fabric masks for long shifts raised the skin temperature under the mask; "
    "nurses preferred masks washed in warm water and dried in the sun.")
# Other papers of the library, so each ranking has a real spread of scores to normalise.
OTHERS = [
    "The crystal structure of the enzyme in complex with the inhibitor was solved at 1.8 "
    "angstrom resolution from data collected at a synchrotron beamline.",
    "Row and column access control lets a database administrator mask the values of a "
    "column for users who lack the authority to read them.",
    "Participants in the cardiac rehabilitation programme preferred the hospital to their "
    "general practice, which they felt lacked the space and the equipment.",
    "Open access monographs from the university press were downloaded in 173 countries and "
    "territories within the first year of the project.",
    "Stressful life events in midlife were not associated with a higher risk of dementia "
    "in the fully adjusted Cox model, after a mean follow-up of eleven years.",
    "The encoder with six layers and eight attention heads gave the best table structure "
    "predictions, at a fraction of the decoding time.",
]
QUESTION = "Which containers keep the wash water hot longest when laundering fabric masks?"
FRENCH = ("Quels récipients gardent l'eau de lavage au-dessus de 60 °C le plus longtemps "
          "pour laver les masques en tissu ?")


@pytest.fixture(scope="module")
def app(models_dir, tmp_path_factory):  # type: ignore[no-untyped-def]

    root = tmp_path_factory.mktemp("also")
    service = CiteLoom(shared_settings(data_dir=root / "data", models_dir=models_dir))
    service.index_texts("lib", [TextDoc(doc_id="masques", title="Flash masques", text=MASKS),
                                TextDoc(doc_id="hands", title="Ward hygiene", text=HANDS),
                                TextDoc(doc_id="comfort", title="Mask comfort", text=COMFORT),
                                *(TextDoc(doc_id=f"other{i}", title=f"Paper {i}", text=t)
                                  for i, t in enumerate(OTHERS))])
    yield service
    service.close()


def _rank(result, doc_id: str) -> int | None:  # type: ignore[no-untyped-def]
    return next((h.rank for h in result.hits if h.doc_id == doc_id), None)


@pytest.mark.parametrize("mode", ["hybrid", "dense"])
def test_a_translation_finds_the_paper_in_its_own_language(app: CiteLoom, mode: str) -> None:
    alone = app.query(QueryRequest("lib", QUESTION, mode=mode, top_k=5))
    both = app.query(QueryRequest("lib", QUESTION, mode=mode, top_k=5, also=[FRENCH]))
    assert _rank(alone, "masques") != 1  # the English models miss the French paper...
    assert _rank(both, "masques") == 1  # ...which its own language finds
    assert both.also == [FRENCH] and both.to_dict()["also"] == [FRENCH]
    assert "also" not in alone.to_dict()


def test_the_shown_window_matches_the_translation_too(app: CiteLoom) -> None:
    hit = app.query(QueryRequest("lib", QUESTION, top_k=1, also=[FRENCH], max_chars=160)).hits[0]
    assert hit.doc_id == "masques" and len(hit.text) <= 160
    assert "casserole couverte" in hit.text  # the sentence that answers, not the head


def test_the_question_again_changes_nothing(app: CiteLoom) -> None:
    alone = app.query(QueryRequest("lib", QUESTION, top_k=5))
    again = app.query(QueryRequest("lib", QUESTION, top_k=5, also=[QUESTION, "  ", ""]))
    assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in alone.hits]
    assert again.also == [QUESTION]  # blanks dropped


def test_across_projects_per_chunk_and_per_paper_too(app: CiteLoom) -> None:
    res = app.query(QueryRequest.across_projects(["lib"], QUESTION, top_k=5, also=[FRENCH]))
    assert res.hits[0].doc_id == "masques" and res.also == [FRENCH]
    for kw in ({"per_page": False}, {"group_by_doc": True}):
        hits = app.query(QueryRequest("lib", QUESTION, top_k=5, also=[FRENCH], **kw)).hits
        assert hits[0].doc_id == "masques" and len(hits) == 5, kw


def test_too_many_phrasings_is_invalid_input(app: CiteLoom) -> None:
    with pytest.raises(InvalidInput, match=f"at most {MAX_ALSO}"):
        app.query(QueryRequest("lib", QUESTION, also=[f"variant {i}" for i in range(MAX_ALSO + 1)]))


def test_summed_by_hand() -> None:
    a = [Hit("x", 1.5, {"n": 1}), Hit("y", 1.0, {}), Hit("z", 0.2, {})]
    b = [Hit("y", 1.2, {}), Hit("w", 1.4, {})]
    out = summed([a, b])
    assert [(h.id, round(h.score, 6)) for h in out] == [
        ("y", 2.2), ("x", 1.5), ("w", 1.4), ("z", 0.2)]
    assert out[1].payload == {"n": 1}  # the hit itself, rescored
