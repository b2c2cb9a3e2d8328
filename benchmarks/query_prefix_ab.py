"""bge's query instruction, on and off, with the product's own query (issue #28, session 24).

bge-small-en-v1.5's authors recommend prefixing a short retrieval *query* with
``PREFIX`` (passages are embedded bare). This script runs each question of the PDF sets
twice on the same indexes, the dense query vector made of the bare question and of the
prefixed one, and reports page@1 / page@5 per half and pooled over the unseen sets with
paired 95 % bootstrap intervals, page BM25 beside them (docs/DECISIONS.md "bge's query
instruction").

    CITELOOM_DATA_DIR=<eval data dir> CITELOOM_DAEMON=off .venv/bin/python \\
        benchmarks/query_prefix_ab.py pdf --sets dev,dev2,dev3 \\
        --questions dev3=benchmarks/data/pdfqa_dev3.jsonl --corpus dev3=<dev3 dir> \\
        --out benchmarks/results/query_prefix_ab.json

``cli PREFIX|- ARGS…`` runs any ``citeloom`` command in this process with the prefix
applied to every dense query (``-``: none), e.g. ``cli "$P" eval scifact --out F``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pdfsets

from citeloom.embed import encoders
from citeloom.eval.pdfqa import TOP_K, baseline_ranks, bootstrap, first_rank, hit_at, pages_overlap
from citeloom.eval.pdfqa_set import page_texts
from citeloom.service.api import QueryRequest

PREFIX = "Represent this sentence for searching relevant passages: "
_BARE = encoders.DenseEmbedder.embed_query


def use_prefix(prefix: str) -> None:
    """Every dense query vector from now on is the prefixed text's."""
    def embed_query(self: encoders.DenseEmbedder, text: str) -> list[float]:
        return _BARE(self, prefix + text)

    encoders.DenseEmbedder.embed_query = embed_query  # type: ignore[method-assign]


ARMS = {"bare": "", "prefix": PREFIX}


def run_set(app: Any, src: pdfsets.Source) -> dict[str, Any]:
    questions, corpus = src.load()
    project = src.project
    texts = {q.pdf: page_texts(corpus / q.pdf) for q in questions}
    bm25 = baseline_ranks(questions, texts)
    app.query(QueryRequest(project, "warm up", top_k=1))
    rows = []
    for q in questions:
        source = str((corpus / q.pdf).resolve())
        row: dict[str, Any] = {"id": q.id, "kind": q.kind, "half": q.half,
                               "page-bm25": bm25[q.id]["page"]}
        for arm, prefix in ARMS.items():
            use_prefix(prefix)
            for mode, key in (("hybrid", arm), ("dense", f"{arm}-dense")):
                res = app.query(QueryRequest(project, q.question, top_k=TOP_K, mode=mode))
                row[key] = first_rank(
                    h.source_path == source and pages_overlap(h.page_start, h.page_end, q.pages)
                    for h in res.hits)
        rows.append(row)
    use_prefix("")
    return {"set": src.name, "project": project, "questions": rows}


def _cell(rows: list[dict[str, Any]], system: str, base: str | None) -> str:
    p1 = [hit_at(r[system], 1) for r in rows]
    p5 = statistics.fmean(hit_at(r[system], 5) for r in rows)
    text = f"{statistics.fmean(p1):.3f} / {p5:.3f}"
    if base:
        d, lo, hi = bootstrap(p1, [hit_at(r[base], 1) for r in rows])
        d5 = p5 - statistics.fmean(hit_at(r[base], 5) for r in rows)
        text += f" ({d:+.3f} [{lo:+.3f}, {hi:+.3f}]; p@5 {d5:+.3f})"
    return text


def table(results: list[dict[str, Any]], unseen: set[str]) -> list[str]:
    lines = ["| set, half | page BM25 | bare | prefix | dense bare | dense prefix |",
             "|---|---|---|---|---|---|"]
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for r in results:
        qs = r["questions"]
        groups += [(f"{r['set']} {h}", [q for q in qs if q["half"] == h])
                   for h in ("tune", "check")]
        groups.append((f"{r['set']} all", qs))
    pooled = [q for r in results if r["set"] in unseen for q in r["questions"]]
    if pooled:
        groups.append(("unseen pooled (" + ", ".join(sorted(unseen)) + ")", pooled))
    for label, rows in groups:
        if rows:
            lines.append(f"| {label} ({len(rows)}) | {_cell(rows, 'page-bm25', None)} | "
                         f"{_cell(rows, 'bare', None)} | {_cell(rows, 'prefix', 'bare')} | "
                         f"{_cell(rows, 'bare-dense', None)} | "
                         f"{_cell(rows, 'prefix-dense', 'bare-dense')} |")
    return lines


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "cli":
        from citeloom.cli.main import main as cli_main

        use_prefix("" if sys.argv[2] == "-" else sys.argv[2])
        sys.exit(cli_main(sys.argv[3:]))
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["pdf", "report"])
    pdfsets.add_options(ap)
    ap.add_argument("--unseen", default="dev2,dev3,dev4")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--inputs", nargs="*", type=Path, default=[], help="report: result files")
    args = ap.parse_args()
    unseen = set(args.unseen.split(","))
    if args.what == "report":
        results = [r for f in args.inputs for r in json.loads(f.read_text())["results"]]
        print("\n".join(table(results, unseen & {r["set"] for r in results})))
        return
    app = CiteLoom(load_settings())
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    try:
        results = [run_set(app, src) for src in pdfsets.chosen(args)]
    finally:
        app.close()
    lines = table(results, unseen & {r["set"] for r in results})
    print("\n".join(lines))
    args.out.write_text(json.dumps({"started": started, "prefix": PREFIX, "table": lines,
                                    "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
