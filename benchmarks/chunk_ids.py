"""Every chunk of a project as its id, source, first page, section path and the sha256 of
its text; and the comparison of two such records (issue #32: "same chunk ids as before").

    CITELOOM_DATA_DIR=<run A's data> python benchmarks/chunk_ids.py dump PROJECT --out a.json
    CITELOOM_DATA_DIR=<run B's data> python benchmarks/chunk_ids.py dump PROJECT --out b.json
    python benchmarks/chunk_ids.py compare a.json b.json

Run ``dump`` with the code that wrote the index (``PYTHONPATH=<worktree>/src``): an older
index opens with its own code."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def dump(project: str, out: Path) -> int:
    from citeloom.config import load_settings
    from citeloom.runtime import Runtime

    index = Runtime(load_settings(None)).projects.index(project)
    rows = {}
    for hit in index.scroll():
        p = hit.payload
        text = p.get("chunk_text", "")
        rows[hit.id] = [p.get("source_path", ""), p.get("page_start"), p.get("section_path", ""),
                        hashlib.sha256(text.encode()).hexdigest()]
    out.write_text(json.dumps(rows, sort_keys=True))
    print(f"{len(rows)} chunks -> {out}")
    return 0


def compare(a_path: Path, b_path: Path) -> int:
    a, b = json.loads(a_path.read_text()), json.loads(b_path.read_text())
    common = a.keys() & b.keys()
    differ = sorted(k for k in common if a[k] != b[k])
    print(f"{len(a)} and {len(b)} chunks; {len(common)} ids in both; "
          f"{len(a.keys() - b.keys())} only in the first, {len(b.keys() - a.keys())} only in "
          f"the second; {len(differ)} with another text, page, section or source")
    for k in differ[:10]:
        print(" ", k, a[k], "=>", b[k])
    return 0 if a == b else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    d = sub.add_parser("dump")
    d.add_argument("project")
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    return dump(args.project, args.out) if args.mode == "dump" else compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
