"""The first hit's snippet longer than the others, against equal shares (issue #28, item 4;
docs/DECISIONS.md "The first hit's snippet is longer"). Each question of the PDF sets is
asked once with the default query; its top five are printed as ``citeloom query`` prints
them with each ``FIRST_SHARE`` (the first snippet's shares of the room the other lines
leave), and the evidence phrase looked for in the printed snippets. Per set and half:
evidence in a printed snippet, the paired difference with equal shares (95 % bootstrap),
and the printed characters (p50 / max).

    CITELOOM_DATA_DIR=<eval data dir> CITELOOM_DAEMON=off .venv/bin/python \\
        benchmarks/snippet_share_ab.py --shares 1,2.5 --sets dev,dev2,dev3 \\
        --questions dev3=benchmarks/data/pdfqa_dev3.jsonl \\
        --out benchmarks/results/snippet_share_ab.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import pdfsets

from citeloom.cli import output
from citeloom.eval.pdfqa import bootstrap, evidence_in, terminal_view
from citeloom.service.api import QueryRequest


def run_set(app: Any, src: pdfsets.Source, shares: list[float]) -> dict[str, Any]:
    rows = []
    for q in src.load()[0]:
        res = app.query(QueryRequest(src.project, q.question, top_k=10))
        row: dict[str, Any] = {"id": q.id, "kind": q.kind, "half": q.half}
        for share in shares:
            output.FIRST_SHARE = share
            chars, printed = terminal_view(res)
            row[str(share)] = {"found": any(evidence_in(q.evidence, s) for s in printed),
                               "chars": chars}
        rows.append(row)
    return {"set": src.name, "questions": rows}


def table(results: list[dict[str, Any]], shares: list[float]) -> list[str]:
    base = str(shares[0])
    lines = ["| set, half | " + " | ".join(f"first share {s}" for s in shares) + " |",
             "|---|" + "---|" * len(shares)]
    for r in results:
        for half in ("tune", "check", "all"):
            qs = [q for q in r["questions"] if half == "all" or q["half"] == half]
            if not qs:
                continue
            cells = []
            for share in map(str, shares):
                got = [float(q[share]["found"]) for q in qs]
                chars = [q[share]["chars"] for q in qs]
                text = f"{statistics.fmean(got):.3f}"
                if share != base:
                    d, lo, hi = bootstrap(got, [float(q[base]["found"]) for q in qs])
                    text += f" ({d:+.3f} [{lo:+.3f}, {hi:+.3f}])"
                cells.append(text + f", {statistics.median(chars):,.0f} / {max(chars):,} chars")
            lines.append(f"| {r['set']} {half} ({len(qs)}) | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shares", default="1,2.5")
    pdfsets.add_options(ap)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    app = CiteLoom(load_settings())
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    try:
        results = [run_set(app, src, shares) for src in pdfsets.chosen(args)]
    finally:
        app.close()
    lines = table(results, shares)
    print("\n".join(lines))
    args.out.write_text(json.dumps({"started": started, "shares": shares, "table": lines,
                                    "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
