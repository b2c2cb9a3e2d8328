"""A page hit showing its whole page, against showing only the chunks the ranking brought
(issue #28; docs/DECISIONS.md "A page hit shows its page"). Each question of the PDF sets
is asked twice with the default query on the same indexes; per set: page@1 / page@5 (the
same by construction), the evidence phrase in the shown text of a top-5 hit, in its
terminal snippet and in a top-5 hit of the MCP tool's answer (8 hits fitted to the default
token budget) (paired 95 % bootstrap intervals), characters of the five hits' shown text
and of the terminal's five hits, the MCP answer's tokens, and the query's p50.

    CITELOOM_DATA_DIR=<eval data dir> CITELOOM_DAEMON=off .venv/bin/python \\
        benchmarks/whole_page_ab.py --sets dev,dev2,dev3 \\
        --questions dev3=benchmarks/data/pdfqa_dev3.jsonl --corpus dev3=<dev3 dir> \\
        --out benchmarks/results/whole_page_ab.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import pdfsets

from citeloom.eval.pdfqa import (
    TOP_K,
    bootstrap,
    evidence_in,
    first_rank,
    hit_at,
    pages_overlap,
    terminal_chars,
)
from citeloom.mcp.schema import fit_budget
from citeloom.payload import snippet
from citeloom.search import query as search
from citeloom.service.api import QueryRequest

WHOLE = search.whole_pages
BUDGET = 8000  # the MCP server's default answer_token_budget
ARMS = {"ranked": lambda index, hits, model, flt: hits, "whole": WHOLE}


def run_set(app: Any, src: pdfsets.Source) -> dict[str, Any]:
    questions, corpus = src.load()
    project = src.project
    app.query(QueryRequest(project, "warm up", top_k=1))
    rows = []
    for q in questions:
        source = str((corpus / q.pdf).resolve())
        row: dict[str, Any] = {"id": q.id, "kind": q.kind, "half": q.half}
        for arm, fill in ARMS.items():
            search.whole_pages = fill
            res = app.query(QueryRequest(project, q.question, top_k=TOP_K))
            top = res.hits[:5]
            row[arm] = {
                "page": first_rank(h.source_path == source
                                   and pages_overlap(h.page_start, h.page_end, q.pages)
                                   for h in res.hits),
                "evidence": first_rank(evidence_in(q.evidence, h.text) for h in res.hits),
                "snippet": first_rank(evidence_in(q.evidence, snippet(h.text, q.question))
                                      for h in res.hits),
                "chars": sum(len(h.text) for h in top),
                "terminal": terminal_chars(res),
                "ms": res.timings_ms["total"],
            }
            mcp = fit_budget(app.query(QueryRequest(project, q.question, top_k=8)).to_dict(),
                             BUDGET)
            row[arm]["mcp"] = first_rank(evidence_in(q.evidence, h["text"])
                                         for h in mcp["hits"])
            row[arm]["mcp_tokens"] = mcp["tokens"]
            row[arm]["mcp_truncated"] = mcp["truncated"]
        rows.append(row)
    search.whole_pages = WHOLE
    return {"set": src.name, "project": project, "questions": rows}


def table(results: list[dict[str, Any]]) -> list[str]:
    lines = ["| set (questions) | arm | page@1 / @5 | evidence@5 shown | evidence@5 snippet "
             "| evidence@5 MCP | chars of 5 hits, p50 / max | terminal p50 / max "
             "| MCP tokens p50 / max, truncated | p50 ms |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        qs = r["questions"]
        for arm in ARMS:
            def at(key: str, k: int, arm: str = arm, qs: list = qs) -> list[bool]:
                return [hit_at(q[arm][key], k) for q in qs]

            cells = []
            for key in ("evidence", "snippet", "mcp"):
                got = at(key, 5)
                text = f"{statistics.fmean(got):.3f}"
                if arm == "whole":
                    d, lo, hi = bootstrap(got, [hit_at(q["ranked"][key], 5) for q in qs])
                    text += f" ({d:+.3f} [{lo:+.3f}, {hi:+.3f}])"
                cells.append(text)
            tokens = [q[arm]["mcp_tokens"] for q in qs]
            cut = sum(q[arm]["mcp_truncated"] for q in qs)
            chars = [q[arm]["chars"] for q in qs]
            term = [q[arm]["terminal"] for q in qs]
            lines.append(
                f"| {r['set']} ({len(qs)}) | {arm} | {statistics.fmean(at('page', 1)):.3f} / "
                f"{statistics.fmean(at('page', 5)):.3f} | " + " | ".join(cells) + " | "
                f"{statistics.median(chars):,.0f} / {max(chars):,} | "
                f"{statistics.median(term):,.0f} / {max(term):,} | "
                f"{statistics.median(tokens):,.0f} / {max(tokens):,}, {cut} | "
                f"{statistics.median(q[arm]['ms'] for q in qs):.0f} |")
    return lines


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    pdfsets.add_options(ap)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    app = CiteLoom(load_settings())
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    try:
        results = [run_set(app, src) for src in pdfsets.chosen(args)]
    finally:
        app.close()
    lines = table(results)
    print("\n".join(lines))
    args.out.write_text(json.dumps({"started": started, "table": lines, "results": results},
                                   indent=1) + "\n")


if __name__ == "__main__":
    main()
