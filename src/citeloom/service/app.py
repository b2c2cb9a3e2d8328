"""The application object: the operations the CLI, the MCP server and the daemon call, each
a few lines over the ingest pipeline (``ingest/``), the searches (``search/``) and the
library (``service/library.py``), run on the process's :class:`~citeloom.runtime.Runtime`
(models, open projects, the conversion cache), which it owns.

Heavy imports (Docling, onnxruntime) happen on first use, so a query never loads Docling.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, Literal

from citeloom.config import Settings
from citeloom.errors import CiteLoomError, InvalidProject, did_you_mean
from citeloom.ingest import reindex
from citeloom.ingest.executor import Executor
from citeloom.ingest.pipeline import Pipeline, ProgressFn, make_executor
from citeloom.payload import PASSAGE_CHARS, Passage
from citeloom.report import IngestReport
from citeloom.runtime import Runtime, index_params, model_lock
from citeloom.search import query as search
from citeloom.search.query import QueryResult, SimilarResult
from citeloom.service import library, snapshots
from citeloom.service.api import QueryRequest, SimilarRequest
from citeloom.sources import (
    AnnotationSource,
    ChainSource,
    FileSource,
    Source,
    TextDoc,
    TextSource,
    ZoteroSource,
)


class CiteLoom:
    """Ingest and query projects. Thread-safe for the daemon's and the MCP server's use:
    queries may run while an ingest job writes (the locks are the runtime's:
    :mod:`citeloom.runtime.projects`)."""

    def __init__(self, settings: Settings, *, index_wait_s: float = 0.0,
                 started_by: str = "api") -> None:
        """``index_wait_s``: how long to wait for an index another process has open (the
        CLI waits out the MCP server's ``release_idle_s``; the server does not).
        ``started_by`` names the caller in the audit log (cli, mcp, eval)."""
        self.runtime = Runtime(settings, index_wait_s=index_wait_s, started_by=started_by)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self.runtime.settings = value

    @property
    def started_by(self) -> str:
        return self.runtime.started_by

    def release_idle(self, idle_s: float, busy: set[str] | frozenset[str] = frozenset()
                     ) -> list[str]:
        """Close the indexes nobody used for ``idle_s`` seconds (``Projects.release_idle``)."""
        return self.runtime.projects.release_idle(idle_s, busy)

    def dense_models_in_use(self) -> set[str]:
        return self.runtime.projects.dense_models_in_use()

    def reload_zotero(self) -> None:
        """Read the Zotero library anew on next use (it changed)."""
        self.runtime.reload_zotero()

    def warm_up(self) -> None:
        """Load the models every known project queries with (the daemon's and the MCP
        server's first query is then as fast as the next)."""
        self.runtime.sparse()
        for model in sorted(self.dense_models_in_use()):
            self.runtime.dense(model)

    def delete_project(self, name: str) -> dict[str, Any]:
        """``citeloom remove -p NAME``: a project's index and catalog, what they held."""
        rt = self.runtime
        project = self.settings.project(name, create=True)
        with rt.projects.writer(name):
            root = self.settings.index_dir / name
            if not rt.projects.is_new(project) or root.is_dir():
                gone = {"project": name, "documents": None, "chunks": None,
                        "configured": name in self.settings.projects}
                with contextlib.suppress(CiteLoomError):  # damaged: removed all the same
                    gone["chunks"] = rt.projects.index(name).count()
                    gone["documents"] = len(rt.projects.catalog(name))
                rt.projects.remove_project(name)
                return gone
        raise rt.projects.unknown_project(name)

    def remove_documents(self, project_name: str | None, refs: list[str]) -> dict[str, Any]:
        """``citeloom remove -p NAME DOC...``: documents by doc id, path, file name or
        citekey (``library.remove_documents``)."""
        project = self.settings.project(project_name, create=True)
        with self.runtime.projects.writer(project.name):
            return library.remove_documents(self.runtime, project.name, refs)

    def repair(self, project_name: str | None) -> dict[str, Any]:
        """Put a damaged project back together from what is intact (``repair.py``); what
        was found, done and left, as a dict."""
        from citeloom.service.repair import repair

        return repair(self.runtime, project_name).to_dict()

    def close(self) -> None:
        self.runtime.close()

    def check_writable(self, project_name: str) -> None:
        """Raise EmbeddingMismatch now if an ingest into this project would be refused."""
        project = self.settings.project(project_name, create=True)
        try:
            index = self.runtime.projects.index(project.name)
        except CiteLoomError as exc:
            if exc.code == "INVALID_PROJECT":
                return  # a new project: the first ingest creates it
            raise
        index.check_lock(model_lock(project))

    # -- ingest: every source through the one pipeline -------------------------------------
    def executor(self, workers: int | None = None, ray: str | None = None) -> Executor:
        """Where convert, chunk and embed run (``ingest.pipeline.make_executor``)."""
        return make_executor(self.runtime, workers, ray)

    def run(self, source: Source, project_name: str | None, *,
            progress: ProgressFn | None = None, optimize: bool = True,
            started_by: str | None = None, workers: int | None = None,
            ray: str | None = None) -> IngestReport:
        """Ingest ``source`` into a project (created on first write). ``started_by`` names
        the caller in the audit log (default: the service's); ``workers`` and ``ray``
        choose the executor (:meth:`executor`)."""
        from citeloom.provision import require

        project = self.settings.project(project_name, create=True)
        require(self.settings.models_dir)  # once, not as a conversion failure per file
        with self.runtime.projects.writer(project.name):
            new = self.runtime.projects.is_new(project)
            index = self.runtime.projects.index(project.name, create=True)
            try:
                index.ensure(model_lock(project), index_params(project))
                pipeline = Pipeline(self.runtime, project, index,
                                    self.runtime.projects.catalog(project.name),
                                    self.executor(workers, ray))
                report = pipeline.run(source, progress=progress, optimize=optimize,
                                      started_by=started_by or self.started_by)
            except BaseException:
                if new:
                    self.runtime.projects.drop_if_empty(project.name)
                raise
            if new:
                self._first_ingest(project.name, report)
            return report

    def _first_ingest(self, name: str, report: IngestReport) -> None:
        """A new project: gone again if nothing was indexed; a warning either way when its
        name is close to a known one (``-p scrtach`` for ``scratch``)."""
        others = [p for p in self.runtime.projects.known_projects() if p != name]
        guess = did_you_mean(name, others)
        if self.runtime.projects.drop_if_empty(name):
            report.warnings.append(InvalidProject(
                f"nothing was indexed, so project {name!r} was not created",
                (f"did you mean {guess!r}? " if guess else "")
                + "check the paths and the errors above").to_dict())
        elif guess:
            report.warnings.append(InvalidProject(
                f"{name!r} is a new project", f"did you mean {guess!r}? If so, "
                f"`citeloom remove -p {name} --yes` and ingest into {guess!r}").to_dict())

    def ingest(self, paths: list[Path], project_name: str | None,
               progress: ProgressFn | None = None, prune: bool = False,
               optimize: bool = True, started_by: str | None = None,
               workers: int | None = None, ray: str | None = None) -> IngestReport:
        """Files and folders. ``optimize=False`` leaves Edge's optimize() (which holds the
        GIL) to :meth:`release_idle`, for the MCP server's jobs."""
        return self.run(FileSource(paths, prune=prune, matcher_for=self.runtime.zotero_matcher),
                        project_name, progress=progress, optimize=optimize,
                        started_by=started_by, workers=workers, ray=ray)

    def ingest_zotero(self, project_name: str | None, collection: str | None, *,
                      include_subcollections: bool = False, tags_include: list[str] | None = None,
                      tags_exclude: list[str] | None = None, annotations: bool = True,
                      progress: ProgressFn | None = None, optimize: bool = True,
                      started_by: str | None = None, workers: int | None = None,
                      ray: str | None = None) -> IngestReport:
        """The PDF attachments of a Zotero collection (name, path or key; None for the
        whole library), then (``annotations``) its items' annotations and notes, in one
        run: one report, and the annotations find their PDFs' sections in the index."""
        reader = self.runtime.zotero_reader()
        pdfs = ZoteroSource(reader, collection,
                            downloads=self.settings.cache_root / "zotero-files",
                            include_subcollections=include_subcollections,
                            tags_include=tags_include, tags_exclude=tags_exclude)
        source: Source = pdfs
        if annotations:
            source = ChainSource(pdfs, AnnotationSource(
                reader, collection, include_subcollections=include_subcollections,
                tags_include=tags_include, tags_exclude=tags_exclude,
                items=lambda: pdfs.items))
        return self.run(source, project_name, progress=progress, optimize=optimize,
                        started_by=started_by, workers=workers, ray=ray)

    def index_texts(self, project_name: str, docs: list[TextDoc],
                    progress: ProgressFn | None = None) -> IngestReport:
        """Plain-text documents (no file, no conversion); used by the evaluation."""
        return self.run(TextSource(docs), project_name, progress=progress)

    def reindex(self, project_name: str | None, progress: ProgressFn | None = None,
                started_by: str | None = None, workers: int | None = None,
                ray: str | None = None, dense_model: str | None = None) -> IngestReport:
        """Rebuild a project's index with its configured models and today's chunker (unless
        configured), from the cached conversions, in a new generation; swap it in when
        complete. Queries keep answering from the old generation until then.
        ``dense_model``: migrate to this model (refused if the configuration names
        another). See reindex.py."""
        project = reindex.target(self.runtime, project_name, dense_model)
        with self.runtime.projects.writer(project.name):
            return reindex.rebuild(self.runtime, project, progress, started_by,
                                   self.executor(workers, ray))

    def optimize(self, project_name: str | None) -> float:
        """Merge and index the project's segments now; returns the seconds it took."""
        project = self.settings.project(project_name, create=True)
        started = time.perf_counter()
        with self.runtime.projects.swap:
            self.runtime.projects.index(project.name).optimize()
            self.runtime.projects.unoptimized.discard(project.name)
        return time.perf_counter() - started

    # -- queries and the library ----------------------------------------------------------
    def query(self, request: QueryRequest) -> QueryResult:
        """A question to one project, or to several with their rankings merged."""
        r = request
        options = dict(mode=r.mode, top_k=r.top_k, fusion=r.fusion, flt=r.flt,
                       group_by_doc=r.group_by_doc, include_references=r.include_references,
                       max_chars=r.max_chars, per_page=r.per_page, also=list(r.also),
                       rerank=r.rerank)
        if r.across:
            return search.query_many(self.runtime, r.names, r.text, **options)
        return search.query(self.runtime, r.project, r.text, **options)

    def similar(self, request: SimilarRequest) -> SimilarResult:
        """Passages like the given chunks (and unlike ``negative_ids``)."""
        r = request
        args = (list(r.chunk_ids), list(r.negative_ids) or None, r.top_k, r.flt, r.max_chars)
        if r.across:
            return search.similar_many(self.runtime, r.names, *args)
        name = self.settings.project(r.project, create=True).name
        hits = search.similar(self.runtime, r.project, *args)
        return SimilarResult(list(r.chunk_ids), hits, [name], project=name)

    def snapshot(self, project_name: str | None, out: Path) -> dict[str, Any]:
        """Write one archive that restores the project (see ``snapshots.py``)."""
        return snapshots.take(self.runtime, project_name, Path(out))

    def restore(self, archive: Path, project_name: str | None, *,
                force: bool = False) -> dict[str, Any]:
        """Restore an archive as ``project_name`` (an existing project only with ``force``)."""
        return snapshots.restore(self.runtime, Path(archive), project_name, force=force)

    def list_projects(self) -> list[dict[str, Any]]:
        return library.list_projects(self.runtime)

    def inspect(self, project_name: str | None, sample: int = 3) -> dict[str, Any]:
        return library.inspect(self.runtime, project_name, sample)

    def health(self, project_name: str | None, worst: int | None = None) -> dict[str, Any]:
        """The project's health ledger (``library.health``)."""
        return library.health(self.runtime, project_name, worst)

    def check(self, text: str, fmt: str, projects: list[str] | None = None,
              draft: str = "draft") -> dict[str, Any]:
        """A draft's citations judged (``service/citecheck.py``); None: every project."""
        from citeloom.service.citecheck import check_draft
        from citeloom.service.drafts import citations

        return check_draft(self.runtime, draft, search.targets(self.runtime, projects),
                           citations(text, fmt)).to_dict()

    def list_papers(self, project_name: str | None) -> list[dict[str, Any]]:
        """A project's papers with their citekeys and metadata (``library.list_papers``)."""
        return library.list_papers(self.runtime, project_name)

    def list_annotations(self, project_name: str | None, citekey: str,
                         kinds: list[str] | None = None, max_chars: int = PASSAGE_CHARS
                         ) -> list[Passage]:
        """An item's annotations (and notes) in page order, by citekey or Zotero key."""
        return library.annotations(self.runtime, project_name, citekey, kinds, max_chars)

    def cite(self, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
             project_name: str | None = None) -> str:
        return library.cite(self.runtime, citekeys, fmt, project_name)
