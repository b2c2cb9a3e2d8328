"""The CLI's library commands — ``papers`` (what a project holds, with citekeys) and
``remove`` (documents, or a whole project) — and what every command shares: the service it
talks to and JSON output. Kept apart from ``cli.py`` so that each shell module stays small;
like ``cli.py``, nothing here but argument handling and printing over ``service.CiteLoom``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.errors import InvalidInput

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.service.api import Library


@contextlib.contextmanager
def service(settings: Settings) -> Iterator[Library]:
    """The service, closed after the command: the library daemon's (started if none runs),
    or with ``[daemon] enabled = false`` one in this process, which waits (with a message)
    for an index another process has open (an in-process MCP server lets go of it after
    ``release_idle_s`` without queries)."""
    from citeloom.daemon.client import connect

    app = connect(settings, started_by="cli", index_wait_s=settings.release_idle_s + 10)
    try:
        yield app
    finally:
        app.close()


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def add_parsers(sub: Any) -> None:
    pa = sub.add_parser("papers", help="a project's papers: citekey, year, title, authors, "
                        "chunks, pages, doc id and file (the ids `remove` and `cite` take)")
    pa.add_argument("--project", "-p", help="the project (default: the configured default "
                    "project)")
    pa.add_argument("--json", action="store_true", help="print the list as JSON")

    he = sub.add_parser("health", help="how well each paper's pages were read: ok, re-read "
                        "from the text layer, read by OCR, unreadable (worst first)")
    he.add_argument("--project", "-p")
    he.add_argument("--json", action="store_true")

    rm = sub.add_parser("remove", help="remove documents from a project (by doc id, file "
                        "path, file name or citekey), or with no DOC the whole project")
    rm.add_argument("docs", nargs="*", metavar="DOC",
                    help="doc id (or its first 6+ characters), file path, file name, or "
                    "citekey (the paper with its Zotero annotations and notes); none: the "
                    "whole project")
    rm.add_argument("--project", "-p", help="the project (required to remove a project)")
    rm.add_argument("--yes", "-y", action="store_true",
                    help="remove a whole project without asking (needed off a terminal)")
    rm.add_argument("--json", action="store_true", help="print what was removed as JSON")


def cmd_papers(args: argparse.Namespace, settings: Any) -> int:
    name = settings.project(args.project, create=True).name
    with service(settings) as app:
        papers = app.list_papers(name)
    if args.json:
        print_json({"project": name, "papers": papers})
        return 0
    print(f"{name}: {len(papers)} paper{'' if len(papers) == 1 else 's'}")
    for p in papers:
        authors = "; ".join(p["authors"][:3]) + (" et al." if len(p["authors"]) > 3 else "")
        print(f"\n{p['citekey'] or '(no citekey)'}  {p['year'] or '----'}  {p['title']}")
        print("    " + " · ".join(x for x in (
            authors, f"{p['chunks']} chunks", f"{p['pages']} pages" if p["pages"] else "",
            f"{p['annotations']} annotations/notes" if p["annotations"] else "",
            f"doc {p['doc_id'][:12]}", Path(p["source_path"]).name) if x))
    return 0


def print_health(info: dict[str, Any], indent: str = "") -> None:
    """The ledger's totals and its worst papers, one line each."""
    pages = info["pages"]
    print(f"{indent}{info['summary']}")
    pad = " " * len(indent)
    print(f"{pad}pages: {pages['ok']} ok, {pages['repaired']} re-read from the text layer, "
          f"{pages['ocr']} read by OCR, {pages['unreadable']} unreadable")
    for p in info["papers"]:
        if p["status"] == "ok":
            continue
        where = (f"; unreadable pages {', '.join(map(str, p['unreadable_pages'][:12]))}"
                 if p["unreadable_pages"] else "")
        print(f"{pad}  {p['status']:10} {Path(p['source_path']).name}: {p['pages']} pages, "
              f"{p['repaired']} re-read, {p['ocr']} OCR, {p['unreadable']} unreadable, "
              f"lowest score {p['score']:.2f}{where}")
    for r in info["reread"]:
        print(f"{pad}  reindex    {Path(r['source_path']).name}: converted before text "
              f"repair; pages {', '.join(map(str, r['pages'][:12]))} do not read as words")


def cmd_health(args: argparse.Namespace, settings: Any) -> int:
    with service(settings) as app:
        info = app.health(args.project)
    if args.json:
        print_json(info)
    else:
        print_health(info)
    return 0


def health_note(result: Any) -> str:
    """What a file's line says of pages that were re-read (nothing when all read fine)."""
    h = result.health or {}
    said = [f"{h[k]} page(s) {w}" for k, w in (("repaired", "re-read from the text layer"),
                                               ("ocr", "read by OCR")) if h.get(k)]
    return f" — {', '.join(said)}" if said else ""


def cmd_remove(args: argparse.Namespace, settings: Any) -> int:
    if not args.docs:
        return _remove_project(args, settings)
    with service(settings) as app:
        done = app.remove_documents(args.project, args.docs)
    if args.json:
        print_json(done)
        return 0
    n = len(done["removed"])
    print(f"{done['project']}: removed {n} document{'' if n == 1 else 's'} "
          f"({done['chunks']} chunks)")
    for d in done["removed"]:
        print(f"  − {Path(d['source_path']).name or d['doc_id']}"
              + (f" ({d['citekey']})" if d["citekey"] else "") + f" doc {d['doc_id'][:12]}")
    for path in done["comes_back"]:
        print(f"  note: {path} is still under the project's sources, so the next "
              f"`citeloom ingest -p {done['project']}` brings it back; move the file away "
              "first", file=sys.stderr)
    return 0


def _remove_project(args: argparse.Namespace, settings: Any) -> int:
    if not args.project:
        raise InvalidInput("removing a whole project needs its name",
                           "pass -p NAME (and DOCs to remove only those documents)")
    if not args.yes:
        if not sys.stdin.isatty():
            raise InvalidInput(f"removing project {args.project!r} deletes its index",
                               "add --yes to confirm")
        answer = input(f"remove project {args.project!r} with its whole index? "
                       "type its name to confirm: ")
        if answer.strip() != args.project:
            print("nothing removed", file=sys.stderr)
            return 1
    with service(settings) as app:
        done = app.delete_project(args.project)
    if args.json:
        print_json(done)
        return 0
    what = (f" ({done['documents']} documents, {done['chunks']} chunks)"
            if done["chunks"] is not None else "")
    print(f"removed project {done['project']!r}{what}")
    if done["configured"]:
        print(f"  its [projects.{done['project']}] table in citeloom.toml stays: the next "
              "ingest into it makes it anew", file=sys.stderr)
    return 0
