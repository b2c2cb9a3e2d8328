"""The cross-encoder as a judge that overrides the first stage only when it is sure: the
first two hits of the default query swap when the second's verdict beats the first's by
more than a margin (issue #28; docs/DECISIONS.md "How much a tuned-on set weighs").

``collect`` runs the default query (no rerank) once per question and records, per
question, which of the first ten hits are right and the cross-encoder's verdict on each
of the first two (``search.ranking.rerank_texts``: a page's two best chunks, the better
verdict; recorded inside the product's own depth-2 second stage, whose re-ordering is
left out). ``report`` replays "swap when v2 - v1 > margin" for every margin, per set and
half, with the paired 95 % bootstrap difference against no swap. A margin of 0 is the
product's depth 2 (the cross-encoder decides), +inf is today's default.

    CITELOOM_DATA_DIR=<eval data dir> .venv/bin/python benchmarks/rerank_margin.py collect \\
        --out benchmarks/results/rerank_margin.json [--questions dev3=FILE --corpus dev3=DIR]
    .venv/bin/python benchmarks/rerank_margin.py report benchmarks/results/rerank_margin.json

SciFact train is one of the sets (one hit per document, nDCG@10); its queries alternate
between a tune and a check half in qrels order, as ``eval citecheck``'s claims do. The set
``scifact-q`` asks the same claims as questions ("Is it true that …?").
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

from citeloom.eval.pdfqa import TOP_K, bootstrap, pages_overlap
from citeloom.eval.pdfqa_set import SETS as CORPORA
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import default_data_dir, load_scifact, ndcg_at_k
from citeloom.search.ranking import RERANK_MARGIN
from citeloom.service.api import QueryRequest

SHARED = Path(__file__).resolve().parents[2] / "shared"
PROJECTS = {"dev": "pdfqa-eval-v3", "dev2": "pdfqa-eval-dev2-v3", "dev3": "pdfqa-eval-dev3",
            "scifact": "scifact-eval"}
MARGINS = [-2.0, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, math.inf]


_SEEN: list[list[float]] = []


def _record(hits: list[Any], verdicts: list[float], *args: Any, **kw: Any) -> list[Any]:
    """Stands in for ``ranking.reranked`` inside the product's own second stage: keeps the
    verdicts it was given and leaves the first stage's order as it was."""
    _SEEN.append(list(verdicts))
    return hits


def ask(app: Any, request: QueryRequest) -> tuple[Any, list[float]]:
    """The default query, first-stage order, with the verdicts the product's depth-2 second
    stage gives its first two hits (the same texts, the same model calls)."""
    _SEEN.clear()
    res = app.query(request)
    return res, (_SEEN[0] if _SEEN else [])


def collect_pdf(app: Any, name: str, project: str, qfile: str | None,
                corpus: Path | None) -> list[dict[str, Any]]:
    corpus = corpus or SHARED / CORPORA[name]
    rows = []
    for q in load_devset(qfile or name):
        source = str((corpus / q.pdf).resolve())
        res, v = ask(app, QueryRequest(project, q.question, top_k=TOP_K, rerank=2))
        right = [int(h.source_path == source and pages_overlap(h.page_start, h.page_end,
                                                                q.pages)) for h in res.hits]
        same = len(res.hits) > 1 and res.hits[0].doc_id == res.hits[1].doc_id
        rows.append({"id": q.id, "half": q.half, "kind": q.kind, "right": right,
                     "v": v, "same": same})
    return rows


def as_question(claim: str) -> str:
    """A SciFact claim asked as a question: "Is it true that …?" (first letter lowered)."""
    claim = claim.strip().rstrip(".")
    return f"Is it true that {claim[:1].lower()}{claim[1:]}?"


def collect_scifact(app: Any, project: str, questions: bool = False) -> list[dict[str, Any]]:
    ds = load_scifact(default_data_dir(app.settings))
    rows = []
    for n, (qid, claim) in enumerate(q for q in ds.queries.items() if q[0] in ds.qrels):
        text = as_question(claim) if questions else claim
        res, v = ask(app, QueryRequest(project, text, top_k=10, group_by_doc=True, rerank=2))
        rows.append({"id": qid, "half": "tune" if n % 2 == 0 else "check",
                     "docs": [h.doc_id for h in res.hits], "rels": ds.qrels[qid],
                     "v": v})
    return rows


def swapped(row: dict[str, Any], margin: float, other: float | None = None) -> bool:
    """Whether the first two swap: by ``margin``, or, with ``other``, by ``margin`` for two
    pages of one paper and by ``other`` for two papers (a SciFact row is always two
    papers)."""
    v = row["v"]
    if other is not None and not row.get("same", False):
        margin = other
    return len(v) == 2 and v[1] - v[0] > margin


def score(row: dict[str, Any], margin: float, other: float | None = None) -> float:
    """page@1 (a PDF set) or nDCG@10 (SciFact) after the rule."""
    swap = swapped(row, margin, other)
    if "docs" in row:
        docs = row["docs"]
        docs = [docs[1], docs[0], *docs[2:]] if swap else docs
        return ndcg_at_k(docs, row["rels"])
    right = row["right"]
    return float(bool(right) and bool(right[1] if swap and len(right) > 1 else right[0]))


def report(path: Path, halves: list[str]) -> list[str]:
    data = json.loads(path.read_text())
    lines = ["| margin | " + " | ".join(f"{s} {h} (n)" for s in data["sets"] for h in halves)
             + " |", "|---|" + "---|" * (len(data["sets"]) * len(halves))]
    cells: dict[float, list[str]] = {m: [] for m in MARGINS}
    for rows in data["sets"].values():
        for h in halves:
            part = [r for r in rows if h == "all" or r["half"] == h]
            base = [score(r, math.inf) for r in part]
            for m in MARGINS:
                vals = [score(r, m) for r in part]
                if m == math.inf:
                    cells[m].append(f"{statistics.fmean(vals):.3f} ({len(part)})")
                else:
                    d, lo, hi = bootstrap(vals, base)
                    moved = sum(swapped(r, m) for r in part)
                    cells[m].append(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}] {moved} sw")
    for m in MARGINS:
        label = "no swap (default)" if m == math.inf else (
            "0 (the product's depth 2)" if m == 0 else f"{m:g}")
        lines.append(f"| {label} | " + " | ".join(cells[m]) + " |")
    if not any("same" in r for rows in data["sets"].values() for r in rows):
        return lines
    # Against today's default (margin 3 for every pair): a same-paper margin m with margin 3
    # across papers, and the reverse (m across papers, 3 within one), each paired.
    lines += ["", "| rule, against margin 3 for every pair | " + " | ".join(
        f"{s} {h}" for s in data["sets"] for h in halves) + " |",
        "|---|" + "---|" * (len(data["sets"]) * len(halves))]
    for m in (0.0, 1.0, 2.0):
        for label, (a, b) in ((f"same paper {m:g}, two papers 3", (m, RERANK_MARGIN)),
                              (f"two papers {m:g}, same paper 3", (RERANK_MARGIN, m))):
            cells_m = []
            for rows in data["sets"].values():
                for h in halves:
                    part = [r for r in rows if h == "all" or r["half"] == h]
                    base = [score(r, RERANK_MARGIN) for r in part]
                    vals = [score(r, a, b) for r in part]
                    d, lo, hi = bootstrap(vals, base)
                    moved = sum(swapped(r, a, b) != swapped(r, RERANK_MARGIN) for r in part)
                    cells_m.append(f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}] {moved} ch")
            lines.append(f"| {label} | " + " | ".join(cells_m) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--sets", default="dev,dev2,scifact")
    c.add_argument("--project", action="append", default=[], help="SET=PROJECT")
    c.add_argument("--questions", action="append", default=[], help="SET=FILE")
    c.add_argument("--corpus", action="append", default=[], help="SET=DIR")
    c.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report")
    r.add_argument("path", type=Path)
    r.add_argument("--halves", default="tune,check,all")
    args = ap.parse_args()
    if args.cmd == "report":
        print("\n".join(report(args.path, args.halves.split(","))))
        return
    import citeloom.search.query as query_module
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    query_module.reranked = _record  # type: ignore[assignment]
    projects = PROJECTS | dict(x.split("=", 1) for x in args.project)
    files = dict(x.split("=", 1) for x in args.questions)
    corpora = {k: Path(v) for k, v in (x.split("=", 1) for x in args.corpus)}
    app = CiteLoom(load_settings())
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    out: dict[str, Any] = {}
    try:
        for s in args.sets.split(","):
            out[s] = (collect_scifact(app, projects["scifact"], s == "scifact-q")
                      if s.startswith("scifact") else
                      collect_pdf(app, s, projects[s], files.get(s), corpora.get(s)))
    finally:
        app.close()
    args.out.write_text(json.dumps({"started": started, "sets": out}) + "\n")


if __name__ == "__main__":
    main()
