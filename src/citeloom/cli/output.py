"""How the CLI prints hits: exactly. The user's text (titles, passages, annotations) is
never read as markup, emoji codes or highlighting, and is never hard-wrapped, so a quote
copied from the terminal is the document's text. ``query`` and ``annotations`` print
through here.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from citeloom.cli.library import print_json, service


def plain_console() -> Any:
    """A console that prints the user's text as it is: no markup, emoji codes or
    highlighting read into it (``[sic]`` stays), and no hard line breaks (the terminal
    wraps, so a copied quote is the document's text)."""
    from rich.console import Console

    return Console(markup=False, emoji=False, highlight=False, soft_wrap=True)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


#: What the default (compact) output of five hits may print, headers included (issue #28:
#: it fits a terminal); each hit past five may add a fifth of it. The snippets share what
#: the other lines leave, each at most ``payload.SNIPPET_CHARS`` and at least MIN_SNIPPET.
TERMINAL_CHARS = 2500
MIN_SNIPPET = 120
#: The first hit's snippet is this many times as long as each other's: it holds the answer
#: most often (docs/DECISIONS.md "The first hit's snippet is longer").
FIRST_SHARE = 2.5


def snippet_budgets(n: int, room: int) -> list[int]:
    """What each of ``n`` hits' snippets may print of ``room`` characters: the first
    :data:`FIRST_SHARE` shares, every other one share; each at most its shares of
    ``payload.SNIPPET_CHARS`` and at least :data:`MIN_SNIPPET`."""
    from citeloom.payload import SNIPPET_CHARS

    if n <= 0:
        return []
    shares = [FIRST_SHARE] + [1.0] * (n - 1)
    unit = room / sum(shares)
    return [int(max(MIN_SNIPPET, min(SNIPPET_CHARS * s, unit * s))) for s in shares]


def print_hits(header: str, hits: list[Any], show_project: bool = False,
               answer: dict[str, Any] | None = None, full: bool = False,
               console: Any = None) -> list[str]:
    """Each hit: page, author · year, citekey and score first, then the title and the
    section, then the sentences that best answer the query (``payload.snippet``, its
    words highlighted). ``full``: the whole title and section, the passage on one line
    (exactly its text), the chunk ids and link. ``answer`` (a query's) adds what the
    score means, and why there are no hits or which documents a filter left out.
    ``console``: where to print (the terminal's by default). Returns the snippets
    printed (none with ``full``)."""
    from rich.text import Text

    from citeloom.payload import snippet, term_spans

    query = "\n".join([answer.get("query", ""), *(answer.get("also") or [])]) if answer else ""

    console = console or plain_console()
    lines = [Text(header, style="dim")]  # printed before the hits
    if answer is not None:
        meaning = answer["score"] if full else re.split(r"[:;(]", answer["score"])[0].strip()
        lines.append(Text(f"score: {meaning}", style="dim"))
        for key, n in (answer.get("excluded") or {}).items():
            lines.append(Text(f"note: {n} document{'' if n == 1 else 's'} without {key} "
                              "cannot match this filter", style="yellow"))
        if not hits and answer.get("reason"):
            why = answer["reason"]
            lines.append(Text(f"no hits: {why['message']} — {why['hint']}", style="yellow"))
    for line in lines:
        console.print(line)
    compact: list[tuple[Any, Text, Text | None]] = []  # each hit's two lines, then the text
    titled: set[str] = set()
    for h in hits:
        who = " · ".join(x for x in (h.byline, h.citekey) if x) or Path(h.source_path).name
        if show_project:
            who = f"{h.project}: {who}"
        line = Text(f"\n{h.rank}. ", style="bold")
        if h.kind != "note" and h.page_start is not None:
            line.append(h.pages, style="cyan").append(" · ")
        line.append(who)
        if h.kind != "passage":
            line.append(f" · {h.annotation_type or h.kind}" + (f" {h.color}" if h.color
                                                                else ""), style="magenta")
        if full:
            line.append(f" · score {h.score:.4f}", style="dim")
        # A page hit's sections in reading order, each once (its parts may span two).
        sections = list(dict.fromkeys(x["section_path"] for x in h.parts if x["section_path"]))
        section = " | ".join(sections) or h.section_path
        if not full:  # the title once per paper: the citekey names it again
            title = h.title if h.title and h.doc_id not in titled else ""
            titled.add(h.doc_id)
            about = Text("   " + _clip(title, 50), style="bold") if title else Text("  ")
            if section:
                about.append(" § " + _clip(section, 30), style="green")
            compact.append((h, line, about if about.plain.strip() else None))
            continue
        console.print(line)
        if h.title:
            console.print(Text("   " + h.title, style="bold"))
        if section:
            console.print(Text("   § " + section, style="green"))
        # One line: a paragraph break becomes a space, nothing else in the text changes.
        console.print(Text("   " + re.sub(r"\s*\n\s*", " ", h.text.strip())))
        chunks = (f"chunk {h.chunk_id}" if not h.parts else
                  f"chunk {h.chunk_id} (best) + " + ", ".join(
                      x["chunk_id"] for x in h.parts if x["chunk_id"] != h.chunk_id))
        console.print(Text(f"   {chunks}" + (f" · {h.zotero_link}" if h.zotero_link else ""),
                           style="dim"))
    if not compact:
        return []
    # The snippets share what the lines around them leave of TERMINAL_CHARS.
    used = sum(len(t.plain) + 1 for t in lines) + sum(
        len(line.plain) + 1 + (len(about.plain) + 1 if about else 0) + 4
        for _, line, about in compact)
    room = TERMINAL_CHARS * max(len(compact), 5) // 5 - used
    printed = []
    for (h, line, about), budget in zip(compact, snippet_budgets(len(compact), room),
                                        strict=True):
        console.print(line)
        if about is not None:
            console.print(about)
        shown = snippet(h.text, query or None, budget)
        text = Text("   " + shown)
        for start, end in term_spans(shown, query) if query else []:
            text.stylize("bold yellow", start + 3, end + 3)
        console.print(text)
        printed.append(shown)
    return printed


def cmd_annotations(args: argparse.Namespace, settings: Any) -> int:
    from rich.text import Text

    from citeloom.payload import hit_json

    with service(settings) as app:
        hits = app.list_annotations(args.project, args.citekey, args.kind or None,
                                    max_chars=settings.passage_chars)
    if args.json:  # the MCP tool's shape
        print_json({"project": settings.project(args.project, create=True).name,
                     "citekey": args.citekey, "hits": [hit_json(h) for h in hits]})
        return 0
    console = plain_console()
    if not hits:
        console.print(f"no annotations or notes of {args.citekey} in this project")
    for h in hits:
        if h.kind == "note":
            console.print(Text("note", style="magenta"))
        else:
            printed = (f" (printed {h.page_label})" if h.page_label
                       and h.page_label != str(h.page_start) else "")
            line = Text(f"{h.pages}{printed}", style="cyan").append(
                f" {h.annotation_type}" + (f" {h.color}" if h.color else ""), style="magenta")
            if h.section_path:
                line.append(f" § {h.section_path}", style="green")
            console.print(line)
        console.print(Text("   " + h.text.replace("\n", "\n   ")))
        console.print(Text(f"   {h.zotero_link}", style="dim"))
    return 0
