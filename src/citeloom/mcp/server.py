"""The MCP server Claude Desktop talks to: a thin shell over ``service.CiteLoom``.

Tools: ``list_projects``, ``query_hybrid`` (dense + BM25, RRF or DBSF: the one to use),
``query`` (dense only), ``find_similar`` (recommend from chunk ids), ``list_papers`` (a
project's papers and citekeys), ``cite`` (BibTeX / CSL-JSON), ``list_annotations`` (an
item's, in page order), ``inspect``, ``ingest_from_source`` (a job), plus ``ingest_status``
and ``cancel_ingest`` for the jobs. Nothing that deletes: removing is for the CLI. Every
error is a tool error whose text is JSON ``{code, message, hint}``.
Nothing is written to stdout but the protocol: logs are JSON lines on stderr or in a file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import Middleware
from pydantic import Field

from citeloom.config import Settings, load_settings, parse_zotero_source
from citeloom.errors import (
    CiteLoomError,
    ConfigError,
    InvalidInput,
    PathNotAllowed,
    SourceNotFound,
    Timeout,
    as_error,
)
from citeloom.logs import setup_logging
from citeloom.mcp.auth import BearerToken, is_loopback
from citeloom.mcp.schema import (
    INSTRUCTIONS,
    Also,
    Filters,
    IngestOptions,
    ProjectName,
    Projects,
    QueryText,
    SearchFilters,
    SomeProject,
    TopK,
    answer_tokens,
    fit_budget,
)
from citeloom.payload import hit_json
from citeloom.report import tally_line
from citeloom.service.api import QueryRequest, SimilarRequest

log = logging.getLogger("citeloom.mcp")

WARM_UP_AFTER_S = 3.0  # start the warm-up this long after start-up if no request came


# -- state ------------------------------------------------------------------------------
class _State:
    """Settings, the service and the jobs, made on first use so that the server answers its
    first request quickly and imports nothing heavy at start-up. The service is the library
    daemon's (a client: several Claude windows and a terminal share the indexes through
    it), or with ``[daemon] enabled = false`` one in this process."""

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._app: Any = None
        self._jobs: Any = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from citeloom.provision import use_offline_runtime

            self._settings = load_settings()  # --config is not a server option: $CITELOOM_CONFIG
            # The token budget's tokenizer comes from the provisioned models, never the
            # network (the service does this for itself; a daemon client must too).
            use_offline_runtime(self._settings.models_dir)
        return self._settings

    @property
    def app(self) -> Any:
        if self._app is None:
            from citeloom.daemon.client import connect

            # A CLI query holds an index for a second or two: worth waiting for.
            self._app = connect(self.settings, started_by="mcp", index_wait_s=3.0)
        return self._app

    @property
    def jobs(self) -> Any:
        """Ingest jobs as dicts: the daemon's, or a job manager of this process."""
        if self._jobs is None:
            if self.settings.daemon:
                self._jobs = self.app.jobs
            else:
                from citeloom.service.jobs import JobManager, LocalJobs

                self._jobs = LocalJobs(JobManager(self.app), "mcp")
        return self._jobs


state = _State()
_background_started = threading.Event()


@contextlib.asynccontextmanager
async def _lifespan(server: Any) -> AsyncIterator[dict[str, Any]]:
    """Start the warm-up and idle-release threads once per process, however the server was
    started (`citeloom serve` or `fastmcp run fastmcp.json`)."""
    if not _background_started.is_set():
        _background_started.set()
        try:
            settings: Settings | None = state.settings
        except CiteLoomError:  # a bad citeloom.toml: every tool call reports it
            settings = None
        if not logging.getLogger("citeloom").handlers:
            setup_logging(settings.log_file if settings else None)
        if settings is not None:
            threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
            if settings.daemon:
                threading.Thread(target=_keep_daemon, name="keep-daemon", daemon=True).start()
            else:
                threading.Thread(target=_release_idle, name="release-idle",
                                 daemon=True).start()
    yield {}


mcp = FastMCP(name="CiteLoom", instructions=INSTRUCTIONS, lifespan=_lifespan)
_answered = threading.Event()  # set once the first tool list or tool call has been answered


class _FirstAnswer(Middleware):
    """Marks the first answered request, so the model warm-up (which competes with the
    request for the GIL on import) starts after it rather than slowing it down."""

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        try:
            return await call_next(context)
        finally:
            _answered.set()

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        try:
            return await call_next(context)
        finally:
            _answered.set()


mcp.add_middleware(_FirstAnswer())


def _fail(exc: CiteLoomError, cid: str) -> ToolError:
    log.warning("tool error", extra={"cid": cid, "code": exc.code, "detail": exc.message})
    return ToolError(json.dumps({**exc.to_dict(), "correlation_id": cid}))


async def _call(cid: str, fn: Any, *, timeout: float | None = None) -> Any:
    """Run a blocking service call in a worker thread, with an optional time budget.
    Errors become tool errors with a code; the server itself never goes down."""
    import anyio

    try:
        if timeout is None:
            return await anyio.to_thread.run_sync(fn)
        with anyio.fail_after(timeout):
            return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
    except TimeoutError:
        raise _fail(Timeout(f"no answer within {timeout:.0f} s",
                            "retry with a smaller top_k, or later: an ingest may be busy"),
                    cid) from None
    except CiteLoomError as exc:
        raise _fail(exc, cid) from None
    except ToolError:
        raise
    except Exception as exc:
        log.exception("unexpected error", extra={"cid": cid})
        raise _fail(as_error(exc), cid) from None


def _settings(cid: str) -> Settings:
    try:
        return state.settings
    except CiteLoomError as exc:
        raise _fail(exc, cid) from None


def _which(project: str | None, projects: list[str] | None, cid: str) -> tuple[bool, Any]:
    """``(across, names)``: one project (``across`` false), or several to merge (``names``
    None: every project with an index, asked for as ``["*"]``)."""
    if projects:
        if "*" in projects:
            return True, None
        return True, list(dict.fromkeys([*([project] if project else []), *projects]))
    if not project:
        raise _fail(InvalidInput("no project given", "pass project, or projects (['*'] for "
                                 "every project); list_projects names them"), cid)
    return False, project


def _where(project: str | None, projects: list[str] | None, cid: str) -> dict[str, Any]:
    """The request's projects: one (``project``), or several to merge (``["*"]``: every
    project with an index)."""
    across, names = _which(project, projects, cid)
    if not across:
        return {"project": names}
    return {"project": None, "projects": names or (), "all_projects": names is None}


async def _search(project: str | None, text: str, top_k: int, filters: Filters | None,
                  mode: str, fusion: str, projects: list[str] | None = None,
                  also: list[str] | None = None) -> dict[str, Any]:
    cid = uuid.uuid4().hex[:12]
    s = _settings(cid)
    f = filters or Filters()
    where = _where(project, projects, cid)
    request = QueryRequest(text=text, mode=mode, top_k=top_k, fusion=fusion,  # type: ignore[arg-type]
                           flt=f.to_search(), group_by_doc=f.one_per_document,
                           include_references=f.include_references, max_chars=s.passage_chars,
                           per_page=f.one_per_page, also=tuple(also or ()), **where)
    # state.app is looked up inside the call, so a bad citeloom.toml (raised while the
    # service is made) comes back as a coded tool error.
    result = await _call(cid, lambda: state.app.query(request), timeout=s.query_timeout_s)
    answer = {**result.to_dict(), "correlation_id": cid}
    log.info("query", extra={"cid": cid, "project": project or request.names, "mode": mode,
                             "hits": len(answer["hits"]), "ms": result.timings_ms["total"]})
    return fit_budget(answer, s.answer_token_budget)


async def _similar(project: str | None, chunk_ids: list[str], top_k: int,
                   filters: Filters | None, projects: list[str] | None = None
                   ) -> dict[str, Any]:
    cid = uuid.uuid4().hex[:12]
    s = _settings(cid)
    f = filters or Filters()
    request = SimilarRequest(chunk_ids=tuple(chunk_ids), top_k=top_k, flt=f.to_search(),
                             max_chars=s.passage_chars, **_where(project, projects, cid))
    started = time.perf_counter()
    found = await _call(cid, lambda: state.app.similar(request), timeout=s.query_timeout_s)
    answer = found.to_dict()
    if not answer["hits"]:  # an empty answer says why, as a query's does
        filtered = not f.to_search().is_empty()
        answer["reason"] = {
            "code": "FILTERED_OUT" if filtered else "NO_MATCH",
            "message": "no other passage like these matches the filters" if filtered
            else "no other passage is like these (the project may hold only them)",
            "hint": "loosen or drop a filter" if filtered
            else "search with query_hybrid instead"}
    ms = round((time.perf_counter() - started) * 1000, 2)
    answer.update(timings_ms={"total": ms}, correlation_id=cid)
    log.info("similar", extra={"cid": cid, "project": project or request.names,
                               "hits": len(answer["hits"]), "ms": ms})
    return fit_budget(answer, s.answer_token_budget)


@mcp.tool
async def query(project: SomeProject = None, *, text: QueryText, top_k: TopK = 8,
                filters: SearchFilters = None, projects: Projects = None,
                also: Also = None) -> dict[str, Any]:
    """Dense-only search, by meaning alone. Prefer query_hybrid, which finds these passages
    too and also matches exact terms (names, acronyms, numbers) and ranks better; use this
    one only to compare. Returns citable passages like query_hybrid."""
    return await _search(project, text, top_k, filters, "dense", "rrf", projects, also)


@mcp.tool
async def query_hybrid(project: SomeProject = None, *, text: QueryText, top_k: TopK = 8,
                       filters: SearchFilters = None,
                       fusion: Annotated[Literal["rrf", "dbsf"], Field(
                           description="rank fusion: dbsf (distribution-based score fusion, the "
                           "default: it ranked best in our evaluations) or rrf (reciprocal "
                           "rank)")] = "dbsf",
                       projects: Projects = None, also: Also = None) -> dict[str, Any]:
    """The search to use for any question about the user's papers: meaning and exact terms
    together (dense embeddings + BM25, fused), which ranks better than query (dense only)
    in our evaluations. Searches one project, or several with projects. Returns citable
    passages: citekey, title, authors, year, page span, section path, text, project — one
    hit per page, its text the page's best-matching passages (parts names each chunk).
    Put an exact name or phrase in double quotes to get only passages that contain it.
    Asked in another language than the papers'? Put the translation in also."""
    return await _search(project, text, top_k, filters, "hybrid", fusion, projects, also)


@mcp.tool
async def find_similar(project: SomeProject = None, *,
                       chunk_ids: Annotated[list[str], Field(
                           description="chunk_id values of hits from query or query_hybrid")],
                       top_k: TopK = 8, filters: SearchFilters = None,
                       projects: Projects = None) -> dict[str, Any]:
    """More passages like the given ones (by their dense vectors), e.g. to follow up a good
    hit across the library (or across projects). The given chunks are not returned."""
    return await _similar(project, chunk_ids, top_k, filters, projects)


@mcp.tool
async def list_projects() -> dict[str, Any]:
    """The projects, their size and models, and any ingest jobs."""
    cid = uuid.uuid4().hex[:12]
    projects = await _call(cid, lambda: state.app.list_projects())
    jobs = await _call(cid, lambda: state.jobs.for_project())
    return {"projects": projects, "jobs": jobs, "correlation_id": cid}


@mcp.tool
async def inspect(project: ProjectName,
                  sample: Annotated[int, Field(description="payload samples to show, 0-10",
                                               json_schema_extra={"minimum": 0,
                                                                  "maximum": 10})] = 2,
                  ) -> dict[str, Any]:
    """A project's size, models, payload indexes, stale or missing documents, a sample of
    its chunks, and its ingest jobs."""
    cid = uuid.uuid4().hex[:12]
    if not 0 <= sample <= 10:
        raise _fail(InvalidInput(f"sample must be 0-10, not {sample}", "pick 0-10"), cid)
    info = await _call(cid, lambda: state.app.inspect(project, sample=sample))
    info["jobs"] = await _call(cid, lambda: state.jobs.for_project(project))
    info["correlation_id"] = cid
    return info


@mcp.tool
async def list_annotations(project: ProjectName,
                           citekey: Annotated[str, Field(
                               description="the item's citekey (or Zotero item key)")],
                           kinds: Annotated[list[Literal["annotation", "note"]] | None, Field(
                               description="annotation, note, or both (default)")
                           ] = None) -> dict[str, Any]:
    """What the user highlighted and noted in one item, in page order: each annotation with
    its page, printed page label, colour, comment and a zotero:// link that opens the PDF
    at it; then the item's notes."""
    cid = uuid.uuid4().hex[:12]
    s = _settings(cid)
    hits = await _call(cid, lambda: state.app.list_annotations(
        project, citekey, list(kinds or []) or None, max_chars=s.passage_chars),
        timeout=s.query_timeout_s)
    answer = {"project": project, "citekey": citekey, "query": None,
              "hits": [hit_json(p) for p in hits], "correlation_id": cid}
    return fit_budget(answer, s.answer_token_budget)


@mcp.tool
async def list_papers(project: ProjectName,
                      offset: Annotated[int, Field(description="skip this many papers (for "
                                                   "the next page)",
                                                   json_schema_extra={"minimum": 0})] = 0,
                      limit: Annotated[int, Field(description="papers per answer, 1-200",
                                                  json_schema_extra={"minimum": 1,
                                                                     "maximum": 200})] = 50,
                      ) -> dict[str, Any]:
    """The papers a project holds, ordered by citekey: each with citekey, title, authors,
    year, DOI, tags, Zotero collections, file, chunks, pages and the number of the user's
    annotations and notes on it. Use it to see what can be searched or cited."""
    cid = uuid.uuid4().hex[:12]
    if offset < 0 or not 1 <= limit <= 200:
        raise _fail(InvalidInput(f"offset {offset}, limit {limit}: out of range",
                                 "offset 0 or more, limit 1-200"), cid)
    s = _settings(cid)
    papers = await _call(cid, lambda: state.app.list_papers(project))
    page = papers[offset:offset + limit]
    answer = {"project": project, "total": len(papers), "offset": offset, "papers": page,
              "truncated": False, "correlation_id": cid}
    size = answer_tokens(answer)
    if size > s.answer_token_budget and len(page) > 1:  # fewer papers, the rest next page
        answer["papers"] = page = page[:max(1, len(page) * s.answer_token_budget // size)]
        answer["truncated"] = True
    answer["next_offset"] = offset + len(page) if offset + len(page) < len(papers) else None
    return answer


@mcp.tool
async def library_health(project: ProjectName) -> dict[str, Any]:
    """How well the project's papers were read: per paper, pages ok, re-read from the PDF's
    text layer (fonts without a Unicode map), read by OCR, or unreadable (indexed without
    text, so nothing on them can be found), worst papers first, and a one-line summary to
    tell the user (e.g. "3 of 40 papers in this project have pages without usable text")."""
    cid = uuid.uuid4().hex[:12]
    s = _settings(cid)
    info = await _call(cid, lambda: state.app.health(project))
    answer = {**info, "truncated": False, "correlation_id": cid}
    size = answer_tokens(answer)
    if size > s.answer_token_budget and len(info["papers"]) > 1:  # the worst papers fit
        keep = max(1, len(info["papers"]) * s.answer_token_budget // size)
        answer["papers"], answer["truncated"] = info["papers"][:keep], True
    return answer


@mcp.tool
async def cite(citekeys: Annotated[list[str], Field(
                   description="citekeys, as hits and list_papers give them")],
               format: Annotated[Literal["bibtex", "csl-json"], Field(  # noqa: A002
                   description="bibtex (default) or csl-json")] = "bibtex",
               project: Annotated[str | None, Field(
                   description="a project holding the papers: its stored metadata is used "
                   "when Zotero and Better BibTeX are not reachable")] = None,
               ) -> dict[str, Any]:
    """BibTeX or CSL-JSON for citekeys: Better BibTeX's own export when Zotero runs, else
    the Zotero library's metadata, else what the project stores."""
    cid = uuid.uuid4().hex[:12]
    text = await _call(cid, lambda: state.app.cite(citekeys, format, project))
    return {"format": format, "citekeys": citekeys, "citation": text, "correlation_id": cid}


@mcp.tool
async def check_citations(
        text: Annotated[str | None, Field(description="the draft's text: a paragraph or "
                                          "more, LaTeX (\\cite{key}) or Markdown ([@key])")
                        ] = None,
        path: Annotated[str | None, Field(description="or a .tex / .md draft's path under an "
                                          "allowed root")] = None,
        projects: Projects = None) -> dict[str, Any]:
    """Check a draft's citations against the cited papers: for each citation and key, the
    claim (its sentence), a verdict (found, weak, not found, not in library), the best
    passage of the cited paper with its pages, and better sources from the library where
    the paper is weak or silent. Tell the user the pages, and suggest the better sources."""
    cid = uuid.uuid4().hex[:12]
    s = _settings(cid)
    if (text is None) == (path is None):
        raise _fail(InvalidInput("give the draft as text or as path, one of them",
                                 "paste the paragraph as text"), cid)
    if path is not None:
        from citeloom.service.drafts import read_draft

        real = resolve_source(path, (projects or [""])[0])[0]
        text, fmt = await _call(cid, lambda: read_draft(real))
    else:
        from citeloom.service.drafts import detect_format

        fmt = detect_format(Path("draft"), text or "")
    report = await _call(cid, lambda: state.app.check(text or "", fmt, projects or None,
                                                      draft=Path(path).name if path else
                                                      "pasted text"))
    answer = {**report, "truncated": False, "correlation_id": cid}
    while answer_tokens(answer) > s.answer_token_budget and any(
            c["better_sources"] for c in answer["citations"]):  # drop passages, keep keys
        for c in answer["citations"]:
            c["better_sources"] = []
        answer["truncated"] = True
    return answer


def resolve_source(source: str, project: str) -> list[Path]:
    """Paths an MCP client may ingest: under the project's sources, the configured
    allowed roots, or the Zotero storage folder. Refuses '..', and symlinks that lead out."""
    s = state.settings
    raw = source.removeprefix("file://").removeprefix("path:").strip()
    if not raw:
        raise InvalidInput("source is empty", "give a file or folder path")
    if ".." in Path(raw).parts:
        raise PathNotAllowed(f"{source!r} contains '..'", "give a path without '..'")
    proj = s.projects.get(project)
    roots = [*(proj.sources if proj else []), *s.allowed_roots]
    if s.zotero.storage_dir:
        roots.append(s.zotero.storage_dir)
    resolved_roots = [r.expanduser().resolve() for r in roots]
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        base = s.config_path.parent if s.config_path else Path.cwd()
        candidate = base / candidate
    real = candidate.resolve()  # follows symlinks: an escape shows up here
    if not any(real == r or real.is_relative_to(r) for r in resolved_roots):
        raise PathNotAllowed(
            f"{source!r} is outside the folders CiteLoom may read",
            "add its folder to [mcp] allowed_roots or to the project's sources in "
            "citeloom.toml, then restart the server")
    if not real.exists():
        raise SourceNotFound(f"{source!r} does not exist", "check the path")
    return [real]


@mcp.tool
async def ingest_from_source(
        project: Annotated[str, Field(description="project to ingest into (created on first "
                                      "ingest); list_projects names the existing ones")],
        source: Annotated[str, Field(description="a file or folder path under an allowed "
                                     "root (the project's sources, [mcp] allowed_roots), or "
                                     "'zotero:collection/NAME_OR_KEY' (add '?subcollections' "
                                     "to include them) or 'zotero:library'; Zotero sources "
                                     "bring the items' annotations and notes too (add "
                                     "'?noannotations' to leave them out)")],
        options: Annotated[IngestOptions | None, Field(
            description="prune (drop indexed files that are gone) and wait_seconds")] = None,
        ctx: Context | None = None) -> dict[str, Any]:
    """Convert, chunk, embed and index the documents at ``source`` (PDF, also scans, DOCX,
    PPTX, HTML, Markdown, LaTeX, images) into ``project`` (created on first ingest). Runs
    as a job: answers within seconds with the result, or with a job id
    to follow with ingest_status. Unchanged files are skipped; re-running is safe."""
    cid = uuid.uuid4().hex[:12]
    opts = options or IngestOptions()
    zotero: dict[str, Any] | None = None
    try:
        state.settings.project(project, create=True)
        if source.startswith("zotero:"):
            zotero = parse_zotero_source(source)
            paths: list[Path] = []
        else:
            paths = resolve_source(source, project)
    except CiteLoomError as exc:
        raise _fail(exc, cid) from None
    await _call(cid, lambda: state.app.check_writable(project))
    kind, args = (("zotero", zotero) if zotero is not None
                  else ("ingest", {"paths": [str(p) for p in paths], "prune": opts.prune}))
    job = await _call(cid, lambda: state.jobs.start(project, source, kind, args))
    log.info("ingest job started", extra={"cid": cid, "job": job["job_id"],
                                          "project": project})
    job = await _follow(cid, job, opts.wait_seconds, ctx)
    return {**job, "correlation_id": cid}


async def _follow(cid: str, job: dict[str, Any], seconds: float,
                  ctx: Context | None) -> dict[str, Any]:
    """Wait up to ``seconds`` for a job, sending MCP progress notifications meanwhile;
    the job as it then stands."""
    deadline = time.monotonic() + seconds
    while job["finished"] is None and time.monotonic() < deadline:
        wait = min(0.5, max(0.0, deadline - time.monotonic()))
        job = await _call(cid, lambda j=job["job_id"], w=wait: state.jobs.get(j, wait=w))
        if ctx is not None:
            rate = tally_line(job)
            await ctx.report_progress(job["files_done"], job["files_total"],
                                      f"{job['files_done']}/{job['files_total'] or '?'} "
                                      f"files {job['current']}" + (f" · {rate}" if rate else ""))
    return job


@mcp.tool
async def ingest_status(job_id: Annotated[str, Field(description="from ingest_from_source")],
                        wait_seconds: Annotated[float, Field(
                            description="wait up to this long for the job to finish, 0-60",
                            json_schema_extra={"minimum": 0, "maximum": 60})] = 0,
                        ctx: Context | None = None) -> dict[str, Any]:
    """The state of an ingest job: files and pages done and left, pages per second, an
    estimate of the seconds left (eta_s), the report when finished."""
    cid = uuid.uuid4().hex[:12]
    job = await _call(cid, lambda: state.jobs.get(job_id))
    job = await _follow(cid, job, min(max(wait_seconds, 0), 60), ctx)
    return {**job, "correlation_id": cid}


@mcp.tool
async def cancel_ingest(job_id: Annotated[str, Field(description="from ingest_from_source")]
                        ) -> dict[str, Any]:
    """Stop an ingest job after the file it is working on; what is indexed stays."""
    cid = uuid.uuid4().hex[:12]
    job = await _call(cid, lambda: state.jobs.cancel(job_id))
    return {**job, "cancel_requested": True, "correlation_id": cid}


# -- logging and start-up -------------------------------------------------------------------
def _warm_up(delay_s: float = WARM_UP_AFTER_S) -> None:
    """Load the query-side models once the client has had its first answer (or after
    ``delay_s`` without one), so that neither the first answer nor, usually, the first
    query pays for them. Failures are left for the real call to report."""
    _answered.wait(delay_s)
    try:
        if state.settings.daemon:  # the daemon loads the models; make sure it runs
            state.app.client.health() or state.app.client.start()
            return
        state.app.warm_up()
        import tiktoken

        tiktoken.get_encoding("cl100k_base")
    except Exception:  # noqa: BLE001 - reported when a tool needs the model
        log.warning("warm-up failed", exc_info=True)


def _keep_daemon() -> None:
    """While this server runs, the library daemon runs (it answers, and watches folders):
    a health call now and then keeps it from stopping as idle, and starts a new one if it
    went away (killed, or the machine slept)."""
    every = min(60.0, state.settings.daemon_idle_s / 3)
    while True:
        time.sleep(every)
        if state._app is None:
            continue
        try:
            state.app.client.health() or state.app.client.start()
        except Exception:  # noqa: BLE001 - the next call reports it with a code
            log.warning("the daemon did not answer", exc_info=True)


def _release_idle() -> None:
    """Close indexes left idle, so the server does not lock a CLI ingest out for as long
    as Claude Desktop stays open. Projects with a running ingest job are kept."""
    idle_s = state.settings.release_idle_s
    while idle_s > 0:
        time.sleep(min(idle_s / 2, 10.0))
        if state._app is None:
            continue
        busy = {j["project"] for j in state.jobs.for_project() if j["finished"] is None}
        try:
            for name in state.app.release_idle(idle_s, busy):
                log.info("index released", extra={"project": name})
        except Exception:  # noqa: BLE001 - a failed close is retried on the next round
            log.warning("releasing idle indexes failed", exc_info=True)


def serve(transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve MCP on stdio (Claude Desktop), or on HTTP when asked. Beyond loopback, HTTP
    needs a bearer token (``CITELOOM_MCP_TOKEN``): the tools read the user's library."""
    setup_logging(state.settings.log_file)
    log.info("server starting", extra={"detail": transport})
    if transport == "stdio":
        mcp.run(transport="stdio", show_banner=False)
    else:
        secret = state.settings.mcp_token
        token = secret.get_secret_value() if secret else ""
        if not token and not is_loopback(host):
            raise ConfigError(f"serving MCP over HTTP on {host} needs a bearer token",
                              "set CITELOOM_MCP_TOKEN to a long random secret (clients send "
                              "it as 'Authorization: Bearer ...'), or bind to 127.0.0.1")
        if token:
            mcp.auth = BearerToken.make(token)
        mcp.run(transport="streamable-http", host=host, port=port, show_banner=False)
    # Job threads are not daemons: the process stays until running ingests finish.
    log.info("server stopped; waiting for running jobs")


if __name__ == "__main__":
    serve()
