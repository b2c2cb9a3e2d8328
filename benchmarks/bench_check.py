"""A 200-citation chapter checked against real PDFs (issue #29, acceptance 3), and how
often the verdicts are right there.

The chapter is written from the second PDF dev set (``pdfqa_dev2.jsonl``, project
``pdfqa-eval-dev2`` as ``citeloom eval pdfqa --questions dev2`` builds it): each question's
evidence phrase becomes a claim citing its own paper, and, until 200 citations, claims
citing a wrong paper (drawn with a seeded generator). The chapter is Markdown with the
papers' citekeys; ``CiteLoom.check`` runs it once, timed; the verdicts are scored.

    .venv/bin/python benchmarks/bench_check.py --out benchmarks/results/check_dev2.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from citeloom.eval.pdfqa_set import load_devset

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser()
    ap.add_argument("--project", default="pdfqa-eval-dev2")
    ap.add_argument("--citations", type=int, default=200)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/check_dev2.json")
    args = ap.parse_args()
    app = CiteLoom(load_settings())
    papers = app.list_papers(args.project)
    key_of = {Path(p["source_path"]).name: p["citekey"] for p in papers}
    keys = sorted(k for k in key_of.values() if k)
    rng = random.Random(29)
    lines, truth = [], []
    questions = load_devset("dev2")
    for q in questions:
        key = key_of[Path(q.pdf).name]
        lines.append(f"{q.evidence.rstrip('.')} [@{key}].")
        truth.append(("true", key, key))
    while len(lines) < args.citations:
        q = questions[rng.randrange(len(questions))]
        right = key_of[Path(q.pdf).name]
        wrong = rng.choice([k for k in keys if k != right])
        lines.append(f"{q.evidence.rstrip('.')} [@{wrong}].")
        truth.append(("wrong", wrong, right))
    chapter = "\n\n".join(lines) + "\n"
    app.check("warm up [@x].", "markdown", [args.project])
    t0 = time.perf_counter()
    report = app.check(chapter, "markdown", [args.project], draft="chapter.md")
    seconds = time.perf_counter() - t0
    app.close()
    by_line = {c["line"]: c for c in report["citations"]}
    rows = []
    for i, (kind, key, right) in enumerate(truth):
        c = by_line[2 * i + 1]
        rows.append({"kind": kind, "key": key, "right": right, "verdict": c["verdict"],
                     "score": c["score"], "better": c["better"]})
    true = [r for r in rows if r["kind"] == "true"]
    wrong = [r for r in rows if r["kind"] == "wrong"]
    out = {
        "measured": time.strftime("%Y-%m-%d %H:%M"), "load": list(os.getloadavg()),
        "project": args.project, "citations": len(rows), "seconds": round(seconds, 1),
        "s_per_citation": round(seconds / len(rows), 3),
        "found_true": round(statistics.fmean(r["verdict"] == "found" for r in true), 3),
        "flagged_wrong": round(statistics.fmean(r["verdict"] != "found" for r in wrong), 3),
        "better_top3": round(statistics.fmean(r["right"] in r["better"] for r in wrong), 3),
        "verdicts_true": {v: sum(r["verdict"] == v for r in true)
                          for v in ("found", "weak", "not found")},
        "verdicts_wrong": {v: sum(r["verdict"] == v for r in wrong)
                           for v in ("found", "weak", "not found")},
        "rows": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main()
