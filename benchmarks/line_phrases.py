"""Phrases across a line break of a line-numbered page, found in the indexed text or not
(session 28: a draft's margin line numbers out of the text).

For every PDF of a folder and every page on which ``structure.linenumbers`` finds margin
line numbers, each pair of consecutive rows of the page's text layer (numbers taken off)
gives a phrase: the last three words of one row and the first three of the next. A phrase
counts as found when the paper's chunks, joined, hold it (case and spacing folded). Two
projects built from the same folder, before and after a change, are read in one run.

    CITELOOM_DATA_DIR=<data> python benchmarks/line_phrases.py DIR -p OLD -p NEW --out F
"""

from __future__ import annotations

import argparse
import json
import unicodedata
from datetime import date
from pathlib import Path

_PLAIN = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                        "\u2013": "-", "\u2014": "-"})


def _fold(text: str) -> str:
    """Case, spacing, curly quotes and dashes folded (the index's text normalisation)."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_PLAIN).casefold().split())


def phrases(pdf: Path) -> list[tuple[int, str]]:
    import pypdfium2 as pdfium

    from citeloom.convert.textlayer import sized_rows
    from citeloom.structure.linenumbers import margin_numbers

    out = []
    for page in range(1, len(pdfium.PdfDocument(str(pdf))) + 1):
        numbers = margin_numbers(pdf, page)
        if not numbers:
            continue
        rows = [text.split() for text, _, _ in sized_rows(pdf, page, limit=1000)]
        rows = [row[1:] if row and row[0].isdigit() and int(row[0]) in numbers else row
                for row in rows]  # the numbers the rows kept (every other line numbered)
        for a, b in zip(rows, rows[1:], strict=False):
            if len(a) >= 4 and len(b) >= 4 and not a[-1].endswith(("-", "\u2010")):
                out.append((page, _fold(" ".join(a[-3:] + b[:3]))))
    return out


def texts(project: str) -> dict[str, str]:
    from citeloom.config import load_settings
    from citeloom.runtime import Runtime

    by_file: dict[str, list[tuple[int, str]]] = {}
    for hit in Runtime(load_settings(None)).projects.index(project).scroll():
        p = hit.payload
        by_file.setdefault(Path(p.get("source_path", "")).name, []).append(
            (p.get("chunk_index", 0) or 0, p.get("chunk_text", "")))
    return {name: _fold(" ".join(t for _, t in sorted(chunks)))
            for name, chunks in by_file.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("-p", "--project", action="append", required=True)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    indexed = {name: texts(name) for name in args.project}
    report: dict[str, object] = {"date": date.today().isoformat(), "files": {}}
    totals = {name: 0 for name in args.project}
    count = 0
    for pdf in sorted(args.folder.glob("*.pdf")):
        try:
            found = phrases(pdf)
        except Exception as exc:  # noqa: BLE001 - a broken or encrypted PDF of the folder
            print(pdf.name, "not read:", exc)
            continue
        if not found:
            continue
        count += len(found)
        row = {"phrases": len(found)}
        for name in args.project:
            text = indexed[name].get(pdf.name, "")
            hits = sum(phrase in text for _, phrase in found)
            row[name] = hits
            totals[name] += hits
        report["files"][pdf.name] = row  # type: ignore[index]
        print(pdf.name, row)
    report["phrases"] = count
    report["found"] = totals
    print("all", count, {k: f"{v} ({v / max(count, 1):.3f})" for k, v in totals.items()})
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
