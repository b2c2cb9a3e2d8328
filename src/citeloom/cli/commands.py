"""The commands behind ``citeloom``'s sub-commands: each reads its arguments, calls the
service (in process or the library daemon) and prints; :mod:`citeloom.cli.main` parses and
dispatches."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from citeloom.cli import library as cli_library
from citeloom.cli.library import print_json as _print_json
from citeloom.cli.library import service as _service
from citeloom.cli.output import print_hits as _print_hits
from citeloom.errors import CiteLoomError, InvalidInput

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL, EXIT_FAILED = 0, 1, 2, 3, 4


def cmd_models(args: argparse.Namespace, settings: Any) -> int:
    from citeloom import provision as models

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


def scale_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, metavar="N",
                   help="convert with N worker processes (default: [defaults] workers, "
                   "else one per two cores, as memory allows)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="convert, chunk and embed on Ray: 'local' (a Ray instance on this "
                   "machine), 'auto', 'HOST:6379' or 'ray://HOST:10001' (default: "
                   "[cluster] address); see docs/CLUSTER.md")


def executor_options(args: argparse.Namespace) -> dict[str, Any]:
    """The executor options given on the command line (the service applies the defaults)."""
    if args.workers is not None and args.workers < 1:
        raise InvalidInput(f"--workers {args.workers}: at least one worker",
                           "give --workers 1 or more, or leave it out for the default")
    if args.workers is not None and args.ray:
        raise InvalidInput("--workers and --ray both given",
                           "choose one: local worker processes, or a Ray cluster")
    return {"workers": args.workers, "ray": args.ray}


def cmd_ingest(args: argparse.Namespace, settings: Any) -> int:
    from rich.console import Console
    from rich.markup import escape  # file names and titles are the user's text, not markup
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from citeloom.config import parse_zotero_source
    from citeloom.report import IngestReport, Tally
    from citeloom.system import human

    scale = executor_options(args)
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
    tally = Tally()  # pages/s and the time left, beside the bar
    with _service(settings) as app, Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("{task.fields[tally]}"), console=console,
            disable=args.json) as bar:
        task = bar.add_task("ingesting", total=None, tally="")

        def progress(event: str, result: Any) -> None:
            tally.event(event, result)
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
                bar.update(task, advance=1, tally=tally.line())

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
            + (f", {summary['pages'] / summary['seconds']:.1f} pages/s"
               if summary["pages"] and summary["seconds"] else "")
            + (f", peak memory {human(summary['peak_rss_mb'] * 2**20)}"
               if summary["peak_rss_mb"] else "")
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


def query_filter(args: argparse.Namespace) -> Any:
    from citeloom.index import SearchFilter
    from citeloom.payload import normalize_color

    return SearchFilter(
        doc_ids=args.doc_id, citekeys=args.citekey, tags_any=args.tag, tags_all=args.all_tags,
        authors=args.author, collections=args.collection, year_from=args.year_from,
        year_to=args.year_to, section_prefix=args.section, exclude_labels=args.exclude_label,
        kinds=args.kind, colors=[normalize_color(c) for c in args.color])


def cmd_query(args: argparse.Namespace, settings: Any) -> int:
    from citeloom.service.api import QueryRequest, SimilarRequest

    names = args.project or []
    across = len(names) > 1 or args.all_projects
    where: dict[str, Any] = {"project": names[0] if names else None}
    if across:  # every project with an index, or these, merged
        where = {"project": None, "projects": () if args.all_projects else names,
                 "all_projects": args.all_projects}
    skipped: list[dict[str, str]] = []
    warnings: list[dict[str, str]] = []
    if not args.text and not args.similar_to:
        raise InvalidInput("no question given", "give TEXT, or --similar-to CHUNK_ID")
    with _service(settings) as app:
        if args.similar_to:
            found = app.similar(SimilarRequest(
                chunk_ids=args.similar_to, top_k=args.top_k, flt=query_filter(args),
                max_chars=settings.passage_chars, **where))
            hits, skipped, data = found.hits, found.skipped, found.to_dict()
            header = (f"{', '.join(found.projects)} · " if across else "") + \
                f"similar to {', '.join(args.similar_to)}"
        else:
            result = app.query(QueryRequest(
                text=args.text, mode=args.mode, top_k=args.top_k, fusion=args.fusion,
                flt=query_filter(args), group_by_doc=args.per_doc,
                include_references=args.include_references,
                max_chars=settings.passage_chars, per_page=not args.per_chunk,
                also=args.also or (), rerank=args.rerank, **where))
            hits, skipped, warnings = result.hits, result.skipped, result.warnings
            how = args.mode + (f" ({args.fusion})" if args.mode == "hybrid" else "")
            if result.also:
                how += f" + {len(result.also)} other phrasing{'s' * (len(result.also) > 1)}"
            shown = (f"{', '.join(result.projects)} (merged by {result.merge})" if across
                     else result.project)
            header = (f"{shown} · {how} · {len(hits)} hit{'' if len(hits) == 1 else 's'} · "
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


def cmd_eval(args: argparse.Namespace, settings: Any) -> int:
    from citeloom.eval.scifact import cmd_eval

    return cmd_eval(args, settings)


def cmd_cite(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        print(app.cite(args.citekeys, args.format, args.project))
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        report = app.reindex(args.project, dense_model=args.dense_model, **executor_options(args))
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


def cmd_optimize(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        seconds = app.optimize(args.project)
        name = settings.project(args.project, create=True).name
        chunks = app.inspect(name, sample=0)["chunks"]
        print(f"{name}: optimized in {seconds:.1f}s ({chunks} chunks)")
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace, settings: Any) -> int:
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


def cmd_projects(args: argparse.Namespace, settings: Any) -> int:
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


def cmd_snapshot(args: argparse.Namespace, settings: Any) -> int:
    with _service(settings) as app:
        info = app.snapshot(args.project, args.output)
    if args.json:
        _print_json(info)
    else:
        print(f"{info['project']}: {info['chunks']} chunks, {info['documents']} documents "
              f"(generation {info['generation']}) → {info['archive']} "
              f"({info['bytes'] / 1e6:.1f} MB, {info['files']} files, {info['seconds']:.1f}s)")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, settings: Any) -> int:
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


def cmd_daemon(args: argparse.Namespace, settings: Any) -> int:
    from citeloom.daemon.client import DaemonClient

    if args.action == "run":
        from citeloom.daemon.server import run_daemon
        from citeloom.logs import setup_logging

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


def cmd_serve(args: argparse.Namespace, settings: Any) -> int:
    if args.transport == "stdio" and settings.daemon and settings.mcp_prefork:
        from citeloom.daemon import daemon_paths
        from citeloom.mcp import prefork

        # Hand this stdio to the daemon's pre-imported server (None: serve here).
        code = prefork.relay(daemon_paths(settings.data_dir).mcp_socket,
                             str(args.config) if args.config else None)
        if code is not None:
            return code
    if args.config:  # the server reads its settings from $CITELOOM_CONFIG
        os.environ["CITELOOM_CONFIG"] = str(args.config)
    from citeloom.mcp.server import serve

    serve(args.transport, args.host, args.port)
    return EXIT_OK


def cmd_validate(args: argparse.Namespace, settings: Any) -> int:
    from citeloom.service.validate import run_checks

    checks = run_checks(settings, args.project, in_daemon)
    if args.json:
        _print_json([c.__dict__ for c in checks])
    else:
        for c in checks:
            mark = {"pass": "PASS", "fail": "FAIL", "skip": "skip"}[c.status]
            print(f"{mark}  {c.name}: {c.detail}" + (f"\n      fix: {c.fix}" if c.fix else ""))
    return EXIT_ERROR if any(c.status == "fail" for c in checks) else EXIT_OK


def cmd_repair(args: argparse.Namespace, settings: Any) -> int:
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


def in_daemon(settings: Any, only: str | None) -> list[Any] | None:
    """The daemon's checks of the projects; None when no daemon runs (nothing is started
    for a check)."""
    from citeloom.daemon.client import DaemonClient
    from citeloom.service.validate import Check

    if not settings.daemon:
        return None
    client = DaemonClient(settings, spawn=False)
    try:
        if client.health() is None:
            return None
        try:
            found = client.post("/call/validate", client.agreeing({"project": only}))
        except CiteLoomError as exc:  # other settings than the daemon's, say
            return [Check("daemon", "fail", f"{exc.code}: {exc.message}", exc.hint)]
        return [Check(**c) for c in found]
    finally:
        client.close()
