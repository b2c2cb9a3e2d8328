"""A project's paper metadata against a truth file written by reading the papers (issue #27,
item 5): authors, years, titles and citekeys, and every disagreement.

    .venv/bin/python benchmarks/metadata_truth.py TRUTH.jsonl PAPERS.json [--out FILE.json]

TRUTH.jsonl: one line a paper, {"file", "title", "authors": ["Family, Given", ...],
"year": int or null (the year the paper gives for itself on pages 1-2), ...}.
PAPERS.json: ``citeloom papers -p NAME --json``. A paper's authors are right when every
family name found is one of the truth's (folded: case and accents); a year is right when it
equals the truth's, wrong when it differs, and "on a null" when the paper gives none.
"""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
from pathlib import Path
from typing import Any


def fold(text: str | None) -> str:
    # The dotless ı has no decomposition: "Saygın" printed in capitals reads "SAYGIN".
    text = unicodedata.normalize("NFKD", (text or "").replace("ı", "i"))
    return re.sub(r"[^a-z]", "", "".join(c for c in text if not unicodedata.combining(c)).lower())


def families(names: list[str]) -> list[str]:
    # a generation suffix is no part of the family name: "Doyle III, Francis J." is Doyle
    return [fold(re.sub(r"\s+(?:Jr|Sr|II|III|IV)\.?$", "", n.split(",")[0])) for n in names]


def score(truth: dict[str, dict[str, Any]], got: dict[str, dict[str, Any]]) -> dict[str, Any]:
    c = dict.fromkeys(("papers", "naming_authors", "giving_a_year", "authors_found",
                       "authors_right", "authors_wrong", "year_found", "year_right",
                       "year_wrong", "year_on_null", "title_right", "citekey"), 0)
    misses: list[list[Any]] = []
    for name, t in truth.items():
        g = got.get(name, {})
        c["papers"] += 1
        c["naming_authors"] += bool(t["authors"])
        found = g.get("authors") or []
        if found:
            c["authors_found"] += 1
            right = set(families(found)) <= set(families(t["authors"]))
            c["authors_right" if right else "authors_wrong"] += 1
            if not right:
                misses.append([name, "authors", found, t["authors"]])
        elif t["authors"]:
            misses.append([name, "no authors", t["authors"]])
        year = g.get("year")
        if t["year"] is None:
            c["year_on_null"] += bool(year)
            if year:
                misses.append([name, "a year where the paper gives none", year])
        else:
            c["giving_a_year"] += 1
            c["year_found"] += bool(year)
            c["year_right"] += year == t["year"]
            if year and year != t["year"]:
                c["year_wrong"] += 1
                misses.append([name, "year", year, t["year"]])
            elif not year:
                misses.append([name, "no year", t["year"]])
        title, want = fold(g.get("title")), fold(t["title"])
        if title == want or (len(title) > 15 and want.startswith(title)):
            c["title_right"] += 1
        else:
            misses.append([name, "title", g.get("title"), t["title"]])
        c["citekey"] += bool(g.get("citekey"))
    return {"counts": c, "misses": misses}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("truth", type=Path)
    ap.add_argument("papers", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    truth = {json.loads(ln)["file"]: json.loads(ln)
             for ln in args.truth.read_text().splitlines() if ln.strip()}
    got = {Path(p["source_path"]).name: p
           for p in json.loads(args.papers.read_text())["papers"]}
    out = score(truth, got)
    if args.out:  # first: a reader that closes the pipe early ("| head") loses no file
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    c = out["counts"]
    print(f"{c['papers']} papers: authors found {c['authors_found']} (right "
          f"{c['authors_right']}, wrong {c['authors_wrong']}) of {c['naming_authors']} that "
          f"name authors; years found {c['year_found']} (right {c['year_right']}, wrong "
          f"{c['year_wrong']}) of {c['giving_a_year']} that give one, and "
          f"{c['year_on_null']} where none is given; titles right {c['title_right']}; "
          f"citekeys {c['citekey']}")
    for miss in out["misses"]:
        print("  ", *miss)


if __name__ == "__main__":
    main()
