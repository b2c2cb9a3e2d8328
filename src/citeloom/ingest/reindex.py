"""Rebuilding a project's index from its cached conversions, in a new generation that is
swapped in when complete (queries answer from the old one until then). This is also how
a project moves to a new dense model or chunker: its model lock is respected, since the
new generation gets a lock of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citeloom.config import DEFAULT_CHUNKER, ProjectConfig
from citeloom.errors import InvalidInput
from citeloom.index import Index, SearchFilter
from citeloom.ingest.pipeline import Pipeline
from citeloom.payload import external_metadata
from citeloom.provision import dense_spec
from citeloom.sources import CatalogSource, ChainSource, IndexedTextSource, is_text_document

if TYPE_CHECKING:
    from citeloom.ingest.executor import Executor
    from citeloom.ingest.pipeline import ProgressFn
    from citeloom.report import IngestReport
    from citeloom.runtime import Runtime


def target(rt: Runtime, project_name: str | None, dense_model: str | None) -> ProjectConfig:
    """The settings a reindex builds with: the project's own, with today's chunker unless
    the configuration names one, and ``dense_model`` if given (refused when the
    configuration names another)."""
    project = rt.settings.project(project_name, create=True)
    update: dict[str, Any] = {}
    if not rt.settings.pins(project.name, "chunker"):
        update["chunker"] = DEFAULT_CHUNKER
    if dense_model and dense_model != project.dense_model:
        dense_spec(dense_model)  # one CiteLoom can provision, or a clear error
        if rt.settings.pins(project.name, "dense_model"):
            raise InvalidInput(
                f"project {project.name!r} is configured with dense_model = "
                f"{project.dense_model!r}",
                f"change dense_model in {rt.settings.config_path or 'citeloom.toml'} "
                "to the new model and run `citeloom reindex` again")
        update["dense_model"] = dense_model
    return project.model_copy(update=update)


def rebuild(rt: Runtime, project: ProjectConfig, progress: ProgressFn | None,
            started_by: str | None, executor: Executor) -> IngestReport:
    """Build the new generation and swap it in (the caller holds the project's writer)."""
    store = rt.projects.store(project)
    old = rt.projects.index(project.name)
    catalog = rt.projects.catalog(project.name)
    new = store.new_generation(project.name)
    new.ensure(rt.models.model_lock(project), rt.models.index_params(project))

    def meta_of(doc_id: str) -> dict[str, Any] | None:
        first = next(iter(old.scroll(doc_id, batch=1)), None)
        return external_metadata(first.payload) if first else None

    records = CatalogSource(catalog.all(), lambda h: rt.cache.path(h, project).is_file(),
                            meta_of, lambda doc_id: [h.payload for h in old.scroll(doc_id)])
    texts = text_documents(old, [r.doc_id for r in records.records])
    source = ChainSource(records, IndexedTextSource(texts)) if texts else records
    pipeline = Pipeline(rt, project, new, catalog, executor, catalog_writes=False)
    try:
        report = pipeline.run(source, progress=progress, optimize=True,
                              started_by=started_by or rt.started_by)
    except BaseException:
        store.drop(project.name, new)
        raise
    with rt.projects.swap:  # the new generation and its catalog rows: one step
        store.promote(project.name, new)
        rt.projects.open_indexes[project.name] = new
        old.close()
        pipeline.commit_records(replacing=records.records)
    return report


def text_documents(index: Index, catalogued: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The chunk payloads of each document the index holds that was given as text (the
    evaluation's ``index_texts``): no catalog row, no file, no conversion to rebuild from,
    so a reindex rebuilds them from their passages rather than leave them out. A file's
    chunks without a catalog row (an ingest killed before writing it) are not among them:
    ``citeloom repair`` settles those."""
    out: dict[str, list[dict[str, Any]]] = {}
    for hit in index.scroll(flt=SearchFilter(exclude_doc_ids=catalogued)):
        if is_text_document(hit.payload):
            out.setdefault(hit.payload.get("doc_id", hit.id), []).append(hit.payload)
    return out
