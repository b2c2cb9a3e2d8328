"""Which sentences should the CLI print of a hit? (issue #28, item 4)

For each question of a PDF set, the default query's top 5 hits are taken once; then each
way of choosing a hit's snippet is scored by whether the evidence phrase is in the snippet
of one of the 5 (``evidence@5 snippet``), beside the ceiling: the evidence in the whole
shown text.

    .venv/bin/python benchmarks/snippets.py --set dev --out benchmarks/results/snippets_dev.json
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from citeloom.eval.pdfqa import evidence_in
from citeloom.eval.pdfqa_set import load_devset
from citeloom.payload import _segments, terms, window
from citeloom.service.api import QueryRequest


def one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text.strip())


def weighted_window(text: str, query: str, max_chars: int, weight: dict[str, float]) -> str:
    """The run of whole sentences within ``max_chars`` whose distinct query terms weigh
    most (each term by ``weight``)."""
    text = one_line(text)
    if len(text) <= max_chars:
        return text
    segs = _segments(text, max(max_chars // 3, 1))
    want = terms(query)
    has = [terms(text[s:e]) & want for s, e in segs]
    best, best_key = (0, 0), (-1.0, 0)
    for i in range(len(segs)):
        covered: set[str] = set()
        for j in range(i, len(segs)):
            if segs[j][1] - segs[i][0] > max_chars:
                break
            covered |= has[j]
            key = (sum(weight.get(t, 1.0) for t in covered), -(segs[j][1] - segs[i][0]))
            if key > best_key:
                best, best_key = (i, j), key
    i, j = best
    while j + 1 < len(segs) and segs[j + 1][1] - segs[i][0] <= max_chars:
        j += 1
    return text[segs[i][0]:segs[j][1]]


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    questions = load_devset(args.set)
    project = "pdfqa-eval" if args.set == "dev" else f"pdfqa-eval-{args.set}"
    app = CiteLoom(load_settings())
    chunks = [h.payload.get("chunk_text", "") for h in app.runtime.projects.index(project).scroll(
        fields=["chunk_text"])]
    df = Counter(t for c in chunks for t in terms(c))
    idf = {t: math.log(1 + len(chunks) / (n + 1)) for t, n in df.items()}
    rows = []
    t0 = time.perf_counter()
    for q in questions:
        hits = app.query(QueryRequest(project, q.question, rerank=False)).hits[:5]
        row = {"id": q.id, "kind": q.kind, "half": q.half,
               "shown": any(evidence_in(q.evidence, h.text) for h in hits)}
        for size in (300, 350, 360, 400):
            row[f"window{size}"] = any(evidence_in(q.evidence, window(one_line(h.text), size,
                                                                       q.question))
                                       for h in hits)
            row[f"idf{size}"] = any(evidence_in(q.evidence, weighted_window(
                h.text, q.question, size, idf)) for h in hits)

        rows.append(row)
    app.close()
    keys = [k for k in rows[0] if k not in ("id", "kind", "half")]
    summary = {half: {k: round(statistics.fmean(r[k] for r in rows if half in ("all", r["half"])),
                               3) for k in keys} for half in ("tune", "check", "all")}
    print(json.dumps(summary, indent=1))
    Path(args.out).write_text(json.dumps({"set": args.set, "summary": summary,
                                          "seconds": round(time.perf_counter() - t0),
                                          "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
