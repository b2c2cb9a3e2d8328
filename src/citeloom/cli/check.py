"""``citeloom check DRAFT``: the CLI shell over the citation check (``service/citecheck.py``):
argument handling, the terminal report (one block per citation, worst first), ``--json``
and ``--report FILE.md``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from citeloom.cli.library import print_json, service

STYLE = {"found": "green", "weak": "yellow", "not found": "red", "not in library": "magenta"}


def add_parser(sub: Any) -> None:
    ch = sub.add_parser("check", help="check a draft's citations (LaTeX or Markdown) against "
                        "the papers they cite: found, weak, not found, not in library, with "
                        "the pages and better sources")
    ch.add_argument("draft", type=Path, help="the draft: .tex, or .md / Pandoc Markdown")
    ch.add_argument("--project", "-p", action="append", default=[],
                    help="the project(s) holding the cited papers (repeatable; default: "
                    "every project)")
    ch.add_argument("--all-projects", action="store_true", help="every project")
    ch.add_argument("--json", action="store_true", help="print the report as JSON")
    ch.add_argument("--report", type=Path, metavar="FILE.md",
                    help="also write the report as Markdown to keep beside the draft")


def cmd_check(args: argparse.Namespace, settings: Any) -> int:
    from citeloom.service.citecheck import markdown_report
    from citeloom.service.drafts import read_draft

    text, fmt = read_draft(args.draft)
    projects = None if args.all_projects or not args.project else args.project
    with service(settings) as app:
        report = app.check(text, fmt, projects, draft=args.draft.name)
    if args.report:
        args.report.write_text(markdown_report(report) + "\n", encoding="utf-8")
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    from rich.text import Text

    from citeloom.cli.output import plain_console
    from citeloom.payload import snippet

    console = plain_console()
    counts = ", ".join(f"{n} {v}" for v, n in report["counts"].items() if n)
    console.print(Text(f"{report['draft']} · {', '.join(report['projects'])} · {counts} · "
                       f"{report['seconds']:.1f} s", style="dim"))
    for c in report["citations"]:
        line = Text(f"\n{c['verdict'].upper()}", style=f"bold {STYLE[c['verdict']]}")
        line.append(f"  {c['key']}, line {c['line']}")
        if c["best"]:
            line.append(f" · {c['best']['pages']}", style="cyan")
            if c["best"]["section"]:
                line.append(f" § {c['best']['section'][:40]}", style="green")
            line.append(f" · score {c['score']:.2f}", style="dim")
        console.print(line)
        console.print(Text(f"   claim: {c['claim']}"))
        if c["best"]:
            console.print(Text(f"   paper: {snippet(c['best']['text'], c['claim'])}"))
        for b in c["better_sources"]:
            console.print(Text(f"   better: {b['citekey'] or b['title']} · {b['pages']} · "
                               f"score {b['score']:.2f}: {snippet(b['text'], c['claim'], 200)}",
                               style="bold" if c["verdict"] != "found" else ""))
