"""How much of each chunk a hit shows (``passage_chars``), measured where it matters: in the
answer Claude gets, after the MCP token budget (issue #17). For every question of a PDF
question set, the default query (hybrid DBSF, one hit per page) is asked at each
``passage_chars`` and top_k; the answer is fitted to ``answer_token_budget`` exactly as the
MCP server fits it (``mcp_schema.fit_budget``). Reported: evidence-hit@5 in the text shown
after the budget, the answer's tokens (p50, p95), and how many answers the budget cut.

    .venv/bin/python benchmarks/shown_ab.py --pdfqa-data /tmp/pdfqa-data [--questions holdout]

``--pdfqa-data`` is a data folder where ``citeloom eval pdfqa`` has built ``pdfqa-eval``.
Writes benchmarks/results/shown_<questions>.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from datetime import date
from pathlib import Path

from fusion_ab import MODELS

from citeloom.config import Settings
from citeloom.eval.pdfqa import evidence_in, first_rank
from citeloom.eval.pdfqa_set import load_devset, set_name
from citeloom.eval.scifact import machine_summary
from citeloom.mcp.schema import answer_tokens, fit_budget
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-data"))
    ap.add_argument("--questions", default=None, help="dev (default), holdout or a file")
    ap.add_argument("--chars", type=int, nargs="+", default=[800, 1000, 1200])
    ap.add_argument("--top-k", type=int, nargs="+", default=[8, 10])
    args = ap.parse_args()
    questions = load_devset(args.questions)
    app = CiteLoom(Settings(data_dir=args.pdfqa_data, models_dir=MODELS))
    budget = app.settings.answer_token_budget
    results = {}
    try:
        for chars in args.chars:
            for top_k in args.top_k:
                ev, tokens, cut = [], [], 0
                for q in questions:
                    answer = app.query(
                        QueryRequest(
                            "pdfqa-eval",
                            q.question,
                            mode="hybrid",
                            fusion="dbsf",
                            top_k=top_k,
                            max_chars=chars,
                        )
                    ).to_dict()
                    tokens.append(answer_tokens(answer))
                    answer = fit_budget(answer, budget)
                    cut += answer["truncated"]
                    rank = first_rank(evidence_in(q.evidence, h["text"])
                                      for h in answer["hits"])
                    ev.append(bool(rank and rank <= 5))
                tokens.sort()
                name = f"passage_chars {chars}, top_k {top_k}"
                results[name] = {
                    "evidence@5 after the budget": round(statistics.fmean(ev), 3),
                    "tokens p50": statistics.median(tokens),
                    "tokens p95": tokens[int(0.95 * (len(tokens) - 1))],
                    "answers cut": cut}
                print(name, results[name], flush=True)
    finally:
        app.close()
    out = ROOT / "benchmarks" / "results" / f"shown_{set_name(args.questions)}.json"
    out.write_text(json.dumps({"date": date.today().isoformat(), "machine": machine_summary(),
                               "questions": len(questions), "answer_token_budget": budget,
                               "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
