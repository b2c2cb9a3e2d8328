"""Quoted phrases as an A/B in one run (issue #17, query handling): the dev set's keyword
questions asked as written and with their exact name in double quotes, as a researcher
would quote it; the product's default query (hybrid DBSF, one hit per page) both times.

    .venv/bin/python benchmarks/quoted_ab.py --pdfqa-data /tmp/pdfqa-data

The project must hold the dev set's PDFs (``citeloom eval pdfqa`` builds it). Writes
benchmarks/results/quoted_ab.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from datetime import date
from pathlib import Path

from citeloom.config import Settings
from citeloom.eval.pdfqa import evidence_in, first_rank, pages_overlap
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import machine_summary
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

ROOT = Path(__file__).resolve().parents[1]
# The exact name each keyword question asks about, as it appears in the question.
NAMES = {"ex1-02": "Betula", "ex2-03": "SBAR", "ex3-03": "SHOP", "t1-01": "PRISMA",
         "t2-05": "Living with Heart Failure", "t6-01": "VESPA", "t6-06": "metal_compare",
         "t6-09": "NEB", "otsl-02": "HPO", "cf-01": "JavaScript", "redp-01": "QIBM_DB_SECADM",
         "redp-08": "CHGFCNUSG", "colmex-06": "EISBN", "colmex-11": "LARRP"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-data"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--models-dir", type=Path,
                    default=Path.home() / ".local/share/citeloom/models")
    args = ap.parse_args()
    app = CiteLoom(Settings(data_dir=args.pdfqa_data, models_dir=args.models_dir))
    questions = [q for q in load_devset() if q.id in NAMES]
    assert len(questions) == len(NAMES)
    runs: dict[str, list[dict]] = {"as written": [], "name quoted": []}
    for q in questions:
        assert NAMES[q.id] in q.question, q.id
        source = str((args.corpus / q.pdf).resolve())
        quoted = q.question.replace(NAMES[q.id], f'"{NAMES[q.id]}"', 1)
        for label, text in (("as written", q.question), ("name quoted", quoted)):
            res = app.query(QueryRequest("pdfqa-eval", text, top_k=10, max_chars=800))
            runs[label].append({
                "id": q.id, "hits": len(res.hits),
                "page": first_rank(h.source_path == source and pages_overlap(
                    h.page_start, h.page_end, q.pages) for h in res.hits),
                "evidence": first_rank(evidence_in(q.evidence, h.text) for h in res.hits),
                "ms": res.timings_ms["total"]})
    app.close()

    def at(rows: list[dict], key: str, k: int) -> float:
        return round(statistics.fmean(1.0 if r[key] and r[key] <= k else 0.0 for r in rows), 3)

    summary = {label: {"page@1": at(rows, "page", 1), "page@5": at(rows, "page", 5),
                       "evidence@5": at(rows, "evidence", 5),
                       "hits_mean": round(statistics.fmean(r["hits"] for r in rows), 1)}
               for label, rows in runs.items()}
    out = {"date": date.today().isoformat(), "machine": machine_summary(),
           "questions": len(questions), "summary": summary, "per_question": runs}
    (ROOT / "benchmarks/results/quoted_ab.json").write_text(json.dumps(out, indent=2))
    for label, r in summary.items():
        print(f"{label:12} page@1 {r['page@1']:.3f} page@5 {r['page@5']:.3f} "
              f"evidence@5 {r['evidence@5']:.3f} hits {r['hits_mean']}")


if __name__ == "__main__":
    main()
