"""A question and its translation searched together (``also``, issue #17), on the questions
of both PDF question sets that are asked in another language than their paper's (Spanish,
French or German about English papers; English about the French and Arabic ones).

``benchmarks/data/pdfqa_translations.json`` gives each such question once more in its
paper's language, as Claude would pass it in ``also`` (written for this benchmark, one
plain translation each, after the question sets were fixed). The product's default query
(hybrid DBSF, one hit per page) is asked with the question alone, with the translation
alone, and with the question plus ``also=[translation]``.

    .venv/bin/python benchmarks/also_ab.py --pdfqa-data /tmp/pdfqa-data

Writes benchmarks/results/also_ab.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from datetime import date
from pathlib import Path

from fusion_ab import MODELS

from citeloom.config import Settings
from citeloom.eval.pdfqa import evidence_in, first_rank, pages_overlap
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import machine_summary
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-data"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    args = ap.parse_args()
    translations = json.loads((ROOT / "benchmarks" / "data" / "pdfqa_translations.json")
                              .read_text("utf-8"))
    questions = [q for name in ("dev", "holdout") for q in load_devset(name)
                 if q.id in translations]
    app = CiteLoom(Settings(data_dir=args.pdfqa_data, models_dir=MODELS))
    rows: dict[str, list[dict[str, float | bool]]] = {}
    try:
        app.query(QueryRequest("pdfqa-eval", "warm up", top_k=1))
        for q in questions:
            source = str((args.corpus / q.pdf).resolve())
            runs = {"question alone": (q.question, []),
                    "translation alone": (translations[q.id], []),
                    "question, also=[translation]": (q.question, [translations[q.id]])}
            for name, (text, also) in runs.items():
                res = app.query(QueryRequest("pdfqa-eval", text, top_k=10, also=also))
                page = first_rank(h.source_path == source
                                  and pages_overlap(h.page_start, h.page_end, q.pages)
                                  for h in res.hits)
                ev = first_rank(evidence_in(q.evidence, h.text) for h in res.hits)
                rows.setdefault(name, []).append({
                    "page@1": page == 1, "page@5": bool(page and page <= 5),
                    "evidence@5": bool(ev and ev <= 5), "ms": res.timings_ms["total"]})
    finally:
        app.close()
    result = {"date": date.today().isoformat(), "machine": machine_summary(),
              "questions": [q.id for q in questions], "results": {
                  name: {**{k: round(statistics.fmean(float(r[k]) for r in rs), 3)
                            for k in ("page@1", "page@5", "evidence@5")},
                         "ms p50": round(statistics.median(float(r["ms"]) for r in rs), 1)}
                  for name, rs in rows.items()}}
    (ROOT / "benchmarks" / "results" / "also_ab.json").write_text(
        json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result["results"], indent=2))


if __name__ == "__main__":
    main()
