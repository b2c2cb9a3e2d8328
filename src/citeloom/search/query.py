"""Queries: text ─► embed ─► search (dense | sparse | hybrid RRF/DBSF) ─► citable passages,
and "more like these chunks" — in one project, or across several (:func:`query_many`,
:func:`similar_many`: each project searched with the same filters, the rankings merged by
:func:`merge`; a project that cannot answer is reported in ``skipped``)."""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citeloom.embed.rerank import RERANK_MODEL
from citeloom.errors import (
    CatalogDamaged,
    CiteLoomError,
    EmbeddingMismatch,
    HybridNotSupported,
    InvalidInput,
    InvalidProject,
    from_dict,
)
from citeloom.index import DEFAULT_FUSION, Fusion, Hit, Mode, ModelLock, SearchFilter
from citeloom.payload import PASSAGE_CHARS, Passage, chunk_id, hit_json, passage
from citeloom.search.ranking import (
    best_per_doc,
    by_page,
    check_also,
    holds_phrases,
    page_count,
    page_neighbours,
    quoted_phrases,
    rerank_texts,
    reranked,
    summed,
    window_query,
    with_page,
)

if TYPE_CHECKING:
    from citeloom.runtime import Runtime

RRF_K = 60  # rank fusion across projects, as Qdrant's RRF within one
# What a hit's score means, per mode (shown beside the hits, and in the docs).
SCORES = {
    "dense": "cosine similarity of meaning, -1 to 1 (about 0.3 and up is related)",
    "sparse": "BM25 term score, 0 and up; it grows with matched rare words and depends on "
              "the project, so compare it only within one answer",
    "hybrid": "fusion of meaning and terms: DBSF (the default) sums each ranking's "
              "normalised scores, about 0 to 1 each, the meaning ranking as often as its "
              "model's weight (bge: twice, about 0 to 3 in all), a page scoring its best "
              "passage; RRF sums 1/(60+rank) (at most about 0.033)",
    "rrf": "rank fusion across projects: 1/(60+rank in its project)",
}
# Filter fields a document may simply lack (a PDF without a year on its first page).
# payload field -> (the filters on it, what a document lacking it has not)
FILTERED_FIELDS = {"year": (("year_from", "year_to"), "year"),
                   "authors": (("authors",), "authors"),
                   "citekey": (("citekeys",), "citekey"),
                   "tags": (("tags_any", "tags_all"), "tags"),
                   "collections": (("collections",), "Zotero collection"),
                   "section_keys": (("section_prefix",), "headings")}


@dataclass
class QueryResult:
    project: str | None  # None for a query across projects (see ``projects``)
    query: str
    mode: Mode
    fusion: Fusion | None
    models: dict[str, str]
    hits: list[Passage]
    timings_ms: dict[str, float]
    correlation_id: str
    projects: list[str] = field(default_factory=list)  # the projects that answered
    skipped: list[dict[str, str]] = field(default_factory=list)  # {project, code, message, hint}
    merge: str | None = None  # across projects: "score" or "rrf" (see :func:`merge`)
    warnings: list[dict[str, str]] = field(default_factory=list)  # {code, message, hint}
    # Documents a filter left out only because they lack its field: {"year": 3}.
    excluded: dict[str, int] = field(default_factory=dict)
    reason: dict[str, Any] | None = None  # why there are no hits: {code, message, hint}
    also: list[str] = field(default_factory=list)  # other phrasings searched with ``query``

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QueryResult:
        """An answer another process made (``to_dict()``)."""
        return cls(project=d["project"], query=d["query"], mode=d["mode"], fusion=d["fusion"],
                   models=d["models"], hits=[Passage(**h) for h in d["hits"]],
                   timings_ms=d["timings_ms"], correlation_id=d["correlation_id"],
                   projects=d.get("projects") or ([d["project"]] if d["project"] else []),
                   skipped=d.get("skipped", []), merge=d.get("merge"),
                   excluded=d.get("excluded") or {}, reason=d.get("reason"),
                   warnings=d.get("warnings", []), also=d.get("also", []))

    def to_dict(self) -> dict[str, Any]:
        out = {"project": self.project, "projects": self.projects, "skipped": self.skipped,
               "merge": self.merge, "query": self.query, "mode": self.mode,
               "fusion": self.fusion, "models": self.models,
               "score": SCORES[self.mode if self.merge != "rrf" else "rrf"],
               "hits": [hit_json(h) for h in self.hits], "timings_ms": self.timings_ms,
               "excluded": self.excluded, "reason": self.reason,
               "correlation_id": self.correlation_id}
        if self.also:
            out["also"] = self.also
        if self.warnings:
            out["warnings"] = self.warnings
        return out


@dataclass
class SimilarResult:
    """Passages like given chunks, in one ``project`` or found across ``projects``."""

    similar_to: list[str]
    hits: list[Passage]
    projects: list[str]
    skipped: list[dict[str, str]] = field(default_factory=list)
    merge: str | None = None  # across projects: how the rankings were merged
    project: str | None = None  # the one project searched (None: across projects)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SimilarResult:
        return cls(similar_to=d["similar_to"], hits=[Passage(**h) for h in d["hits"]],
                   projects=d.get("projects") or [d["project"]], skipped=d.get("skipped", []),
                   merge=d.get("merge"), project=d.get("project"))

    def to_dict(self) -> dict[str, Any]:
        hits = [hit_json(h) for h in self.hits]
        if self.project is not None:
            return {"project": self.project, "similar_to": self.similar_to,
                    "mode": "recommend", "hits": hits}
        return {"project": None, "projects": self.projects, "skipped": self.skipped,
                "merge": self.merge, "similar_to": self.similar_to, "mode": "recommend",
                "hits": hits}


def _check_top_k(top_k: int) -> None:
    if not 1 <= top_k <= 50:
        raise InvalidInput(f"top_k must be between 1 and 50, not {top_k}", "pick 1-50")


def check_filter(flt: SearchFilter | None) -> None:
    """Refuse what can match nothing by construction: an inverted range."""
    if flt is None:
        return
    for name, lo, hi in (("year", flt.year_from, flt.year_to),
                         ("page", flt.page_from, flt.page_to)):
        if lo is not None and hi is not None and lo > hi:
            raise InvalidInput(f"{name}_from {lo} is after {name}_to {hi}",
                               f"swap them: {name}_from {hi}, {name}_to {lo}")


def _check_query(text: str, top_k: int, mode: str, fusion: str) -> None:
    if not text or not text.strip():
        raise InvalidInput("the query text is empty", "ask a question or give keywords")
    _check_top_k(top_k)
    if mode not in ("dense", "sparse", "hybrid"):
        raise InvalidInput(f"mode must be dense, sparse or hybrid, not {mode!r}",
                           "use hybrid unless you need exact terms (sparse)")
    if fusion not in ("rrf", "dbsf"):
        raise InvalidInput(f"fusion must be rrf or dbsf, not {fusion!r}", "use rrf")


def _embed(rt: Runtime, models: Iterable[str], texts: list[str], mode: Mode
           ) -> dict[str, list[tuple[Any, Any]]]:
    """Per dense model, the (dense, sparse) query vectors of each text, as ``mode`` needs
    them; the sparse ones (the same for every model) are embedded once."""
    sparse = [rt.sparse().embed_query(t) if mode != "dense" else None for t in texts]
    out = {}
    for model in dict.fromkeys(models):
        dense = ([rt.dense(model).embed_query(t) for t in texts] if mode != "sparse"
                 else [None] * len(texts))
        out[model] = list(zip(dense, sparse, strict=True))
    return out


def _lock_for(rt: Runtime, project: Any, mode: Mode) -> ModelLock:
    """The lock a query of ``project`` in ``mode`` embeds for; raises when it cannot."""
    lock = rt.projects.index(project.name).lock() or rt.models.model_lock(project)
    if mode != "dense" and lock.sparse_model == "none":
        raise HybridNotSupported(
            f"project {project.name!r} was indexed without sparse vectors",
            "use dense search (the query tool), or set sparse_model = \"Qdrant/bm25\" "
            f"and run `citeloom reindex --project {project.name}`")
    return lock


def _search_filter(flt: SearchFilter | None, include_references: bool,
                   phrases: list[str] | None = None) -> SearchFilter:
    """Reference-list chunks are left out unless asked for: they match every topic a paper
    cites and crowd out the passages that say something. A query's quoted ``phrases`` must
    be in every passage."""
    flt = dataclasses.replace(flt) if flt else SearchFilter()
    if not include_references:
        flt.exclude_labels = sorted({*flt.exclude_labels, "reference"})
    flt.phrases = [*flt.phrases, *(phrases or [])]
    return flt


def _ms(a: float, b: float) -> float:
    return round((b - a) * 1000, 2)


def query(rt: Runtime, project_name: str | None, text: str, *, mode: Mode = "hybrid",
          top_k: int = 10, fusion: Fusion = DEFAULT_FUSION, flt: SearchFilter | None = None,
          group_by_doc: bool = False, include_references: bool = False,
          max_chars: int = PASSAGE_CHARS, per_page: bool = True,
          also: list[str] | None = None, rerank: int | None = None) -> QueryResult:
    """Search a project. ``per_page`` (the default): one hit per page, showing the page's
    best-matching chunks (:func:`by_page`). A chunk longer than ``max_chars`` shows the
    part that best matches ``text`` (``payload.window``). ``also``: the same question in
    other words or another language, each searched too, the rankings summed
    (:func:`search_index`). ``rerank``: how many of the first hits the cross-encoder
    re-reads (:func:`second_stage`); None: the project's ``rerank_depth``, 0: none (the
    fast mode: page hits show the chunks the ranking found, not their whole page)."""
    t0 = time.perf_counter()
    _check_query(text, top_k, mode, fusion)
    also = check_also(also)
    check_filter(flt)
    project = rt.settings.project(project_name, create=True)
    lock = _lock_for(rt, project, mode)
    t1 = time.perf_counter()
    (dense, sparse), *extra = _embed(rt, [lock.dense_model], [text, *also], mode)[
        lock.dense_model]
    t2 = time.perf_counter()
    given = flt
    flt = _search_filter(flt, include_references, quoted_phrases(text))
    depth = project.rerank_depth if rerank is None else rerank
    hits = search_index(rt, project, dense=dense, sparse=sparse, mode=mode, top_k=top_k,
                        flt=flt, fusion=fusion, group_by_doc=group_by_doc, per_page=per_page,
                        extra=extra, dense_weight=lock.dense_weight,
                        dense_model=_whole_pages_for(lock, depth))
    excluded = excluded_for(rt, project.name, given)
    t3 = time.perf_counter()
    hits = second_stage(rt, [text, *also], hits, depth)
    t4 = time.perf_counter()
    return QueryResult(
        excluded=excluded,
        reason=None if hits else empty_reason(rt, project.name, given, excluded, mode,
                                              flt.phrases),
        project=project.name, query=text, also=also, mode=mode,
        fusion=fusion if mode == "hybrid" else None,
        models={"dense": lock.dense_model, "sparse": lock.sparse_model,
                **({"rerank": RERANK_MODEL} if depth >= 2 else {})},
        hits=[passage(rank, h, max_chars, query=window_query(text, also),
                      project=project.name) for rank, h in enumerate(hits, 1)],
        timings_ms={"open": _ms(t0, t1), "embed": _ms(t1, t2), "search": _ms(t2, t3),
                    "rerank": _ms(t3, t4), "total": _ms(t0, time.perf_counter())},
        correlation_id=uuid.uuid4().hex[:12], projects=[project.name],
        warnings=catalog_warnings(rt, project.name),
    )


def second_stage(rt: Runtime, phrasings: list[str], hits: list[Hit], depth: int
                 ) -> list[Hit]:
    """The first ``depth`` hits re-read with the question by the cross-encoder and
    re-ordered (``ranking.reranked``); annotations and notes are read as their text. A
    question asked in several phrasings (``also``) gets each hit's best verdict over them,
    so a paper found through a translation is read in its own language too."""
    if depth < 2 or len(hits) < 2:
        return hits
    head = hits[:depth]
    model = rt.models.reranker()
    verdicts = [max(v for text in phrasings for v in model.score(text, rerank_texts(h)))
                for h in head]
    return reranked(hits, verdicts)


def catalog_warnings(rt: Runtime, name: str) -> list[dict[str, str]]:
    """A query answers from the index alone, but a damaged catalog is said with its code
    (CATALOG_DAMAGED, and the repair), since the project's next ingest would stop on it."""
    if not (rt.settings.index_dir / name / "catalog.sqlite").exists():
        return []  # (an index written without a catalog: texts)
    try:
        rt.projects.catalog(name)  # opening reads its schema; it stays open for the next query
    except CatalogDamaged as exc:
        return [{**exc.to_dict(), "message": f"project {name!r}: {exc.message} — this answer "
                 "comes from the index, which is intact"}]
    return []


# -- across projects ------------------------------------------------------------------------
def targets(rt: Runtime, names: list[str] | None) -> list[str]:
    """The projects asked for, in order, each once; None: every project with an index."""
    if names is None:
        names = rt.projects.stored_projects()
        if not names:
            raise InvalidProject("no project has an index yet",
                                 "ingest into one first: `citeloom ingest PATH -p NAME`")
    out = list(dict.fromkeys(n for n in names if n))
    if not out:
        raise InvalidInput("no project given", "name one or more projects, or all of them")
    return out


def _skip(name: str, exc: CiteLoomError) -> dict[str, str]:
    return {"project": name, **exc.to_dict()}


def _none_answered(skipped: list[dict[str, str]]) -> CiteLoomError:
    """No project could answer: the first one's error, naming every project's."""
    first = skipped[0]
    why = "; ".join(f"{s['project']}: {s['code']} {s['message']}" for s in skipped)
    return from_dict({"code": first["code"], "message": f"no project could answer ({why})",
                      "hint": first["hint"]})


def merge(ranked: list[tuple[str, ModelLock, list[Hit]]], mode: str,
          top_k: int) -> tuple[str, list[tuple[str, Hit]]]:
    """One ranking from per-project rankings: ``(rule, [(project, hit)])``.

    ``score``: every project has the same model lock and the mode's scores mean the same in
    each (dense cosine; hybrid RRF, a rank score; DBSF, normalised per project) — hits are
    sorted by score. ``rrf``: the locks differ (other models or chunking: scores on other
    scales), or the mode is sparse (BM25's IDF comes from each project's own documents) —
    each hit scores 1/(60 + its rank in its project), and ties go to the project named
    first. A chunk found in two projects (the same passage: same id and text) is shown
    once, under the first."""
    rule = "score" if len({lock for _, lock, _ in ranked}) == 1 and mode != "sparse" else "rrf"
    pool: list[tuple[float, int, int, str, Hit]] = []
    for order, (name, _, hits) in enumerate(ranked):
        for rank, h in enumerate(hits, 1):
            score = h.score if rule == "score" else 1.0 / (RRF_K + rank)
            pool.append((score, -rank, -order, name, dataclasses.replace(h, score=score)))
    pool.sort(key=lambda t: t[:3], reverse=True)
    out: list[tuple[str, Hit]] = []
    seen: set[tuple[str, str]] = set()
    for _, _, _, name, h in pool:
        key = (h.id, h.payload.get("chunk_text", ""))
        if key not in seen:
            seen.add(key)
            out.append((name, h))
    return rule, out[:top_k]


def _models(locks: list[ModelLock]) -> dict[str, str]:
    return {"dense": ", ".join(dict.fromkeys(lk.dense_model for lk in locks)),
            "sparse": ", ".join(dict.fromkeys(lk.sparse_model for lk in locks))}


def query_many(rt: Runtime, names: list[str] | None, text: str, *, mode: Mode = "hybrid",
               top_k: int = 10, fusion: Fusion = DEFAULT_FUSION, flt: SearchFilter | None = None,
               group_by_doc: bool = False, include_references: bool = False,
               max_chars: int = PASSAGE_CHARS, per_page: bool = True,
               also: list[str] | None = None, rerank: int | None = None) -> QueryResult:
    """Search several projects (None: all with an index) with the same question and
    filters, and merge their rankings (:func:`merge`). A project that cannot answer
    (missing, locked by another process, no sparse vectors for hybrid…) is reported in
    ``skipped``; only when none can is it an error. ``group_by_doc``: the best passage of
    each document in each project."""
    t0 = time.perf_counter()
    _check_query(text, top_k, mode, fusion)
    also = check_also(also)
    check_filter(flt)
    answering, skipped = [], []
    for name in targets(rt, names):
        try:
            project = rt.settings.project(name, create=True)
            answering.append((project, _lock_for(rt, project, mode)))
        except CiteLoomError as exc:
            skipped.append(_skip(name, exc))
    if not answering:
        raise _none_answered(skipped)
    t1 = time.perf_counter()
    vectors = _embed(rt, (lock.dense_model for _, lock in answering), [text, *also], mode)
    t2 = time.perf_counter()
    given = flt
    flt = _search_filter(flt, include_references, quoted_phrases(text))
    ranked, excluded, reasons = [], {}, []
    depth = rerank if rerank is not None else min(
        project.rerank_depth for project, _ in answering)
    for project, lock in answering:
        try:
            (dense, sparse), *extra = vectors[lock.dense_model]
            hits = search_index(rt, project, dense=dense, sparse=sparse, mode=mode,
                                top_k=top_k, flt=flt, fusion=fusion,
                                group_by_doc=group_by_doc, per_page=per_page, extra=extra,
                                dense_weight=lock.dense_weight,
                                dense_model=_whole_pages_for(lock, depth))
            found = excluded_for(rt, project.name, given)
            if not hits:
                reasons.append(empty_reason(rt, project.name, given, found, mode,
                                            flt.phrases))
        except CiteLoomError as exc:
            skipped.append(_skip(project.name, exc))
            continue
        for key, n in found.items():
            excluded[key] = excluded.get(key, 0) + n
        ranked.append((project.name, lock, hits))
    if not ranked:
        raise _none_answered(skipped)
    rule, merged = merge(ranked, mode, top_k)
    t3 = time.perf_counter()
    if depth >= 2 and len(merged) >= 2:  # the merged list, re-read as one
        order = second_stage(rt, [text, *also], [h for _, h in merged], depth)
        where = {id(h): name for name, h in merged}
        merged = [(where[id(h)], h) for h in order]
    t4 = time.perf_counter()
    return QueryResult(
        excluded=excluded, reason=None if merged else _reasons(reasons),
        project=None, query=text, also=also, mode=mode,
        fusion=fusion if mode == "hybrid" else None,
        models={**_models([lock for _, lock, _ in ranked]),
                **({"rerank": RERANK_MODEL} if depth >= 2 else {})},
        hits=[passage(rank, h, max_chars, query=window_query(text, also), project=name)
              for rank, (name, h) in enumerate(merged, 1)],
        timings_ms={"open": _ms(t0, t1), "embed": _ms(t1, t2), "search": _ms(t2, t3),
                    "rerank": _ms(t3, t4), "total": _ms(t0, time.perf_counter())},
        correlation_id=uuid.uuid4().hex[:12], projects=[name for name, _, _ in ranked],
        skipped=skipped, merge=rule,
        warnings=[w for name, _, _ in ranked for w in catalog_warnings(rt, name)])


def _check_ids(chunk_ids: list[str], negative_ids: list[str], top_k: int) -> None:
    if not chunk_ids:
        raise InvalidInput("no chunk id given", "take chunk ids from a query answer")
    for cid in [*chunk_ids, *negative_ids]:
        try:
            uuid.UUID(cid)
        except (ValueError, TypeError, AttributeError):
            raise InvalidInput(f"{cid!r} is not a chunk id",
                               "take chunk_id values from a query answer") from None
    _check_top_k(top_k)


def similar(rt: Runtime, project_name: str | None, chunk_ids: list[str],
            negative_ids: list[str] | None = None, top_k: int = 10,
            flt: SearchFilter | None = None, max_chars: int = PASSAGE_CHARS) -> list[Passage]:
    """Passages like the given chunks (and unlike ``negative_ids``). No query text here:
    a long chunk shows its head (its first sentences)."""
    _check_ids(chunk_ids, [], top_k)
    check_filter(flt)
    project = rt.settings.project(project_name, create=True)
    with rt.projects.swap:
        hits = rt.projects.index(project.name).recommend(chunk_ids, negative_ids or [], top_k, flt)
    return [passage(rank, h, max_chars, project=project.name) for rank, h in enumerate(hits, 1)]


def similar_many(rt: Runtime, names: list[str] | None, chunk_ids: list[str],
                 negative_ids: list[str] | None = None, top_k: int = 10,
                 flt: SearchFilter | None = None, max_chars: int = PASSAGE_CHARS) -> SimilarResult:
    """Passages like the given chunks in several projects (None: all). The chunks may come
    from any of them: their dense vectors are looked up where they are, and each project
    is searched with those of its own dense model (a project with another model is
    skipped: its vectors live in another space). The given chunks are never returned."""
    negative_ids = negative_ids or []
    _check_ids(chunk_ids, negative_ids, top_k)
    check_filter(flt)
    opened, skipped = [], []
    for name in targets(rt, names):
        try:
            project = rt.settings.project(name, create=True)
            index = rt.projects.index(project.name)
            opened.append((project.name, index, index.lock() or rt.models.model_lock(project)))
        except CiteLoomError as exc:
            skipped.append(_skip(name, exc))
    vectors: dict[str, tuple[str, list[float]]] = {}  # chunk id -> (dense model, vector)
    wanted = list(dict.fromkeys([*chunk_ids, *negative_ids]))
    for entry in list(opened):
        name, index, lock = entry
        try:
            with rt.projects.swap:
                found = index.dense_vectors([i for i in wanted if i not in vectors])
        except CiteLoomError as exc:  # locked by another process, say
            skipped.append(_skip(name, exc))
            opened.remove(entry)
            continue
        vectors.update({i: (lock.dense_model, v) for i, v in found.items()})
    if not opened:
        raise _none_answered(skipped)
    unknown = [i for i in wanted if i not in vectors]
    if unknown:
        raise InvalidInput(f"unknown chunk id(s): {', '.join(unknown)}",
                           "take chunk ids from a query answer of these projects")
    ranked = []
    for name, index, lock in opened:
        pos = [vectors[i][1] for i in chunk_ids if vectors[i][0] == lock.dense_model]
        neg = [vectors[i][1] for i in negative_ids if vectors[i][0] == lock.dense_model]
        if not pos:
            models = ", ".join(sorted({vectors[i][0] for i in chunk_ids}))
            skipped.append(_skip(name, EmbeddingMismatch(
                f"the given chunks were embedded with {models}; project {name!r} uses "
                f"{lock.dense_model}", "find similar passages in projects with that model")))
            continue
        f = dataclasses.replace(flt) if flt else SearchFilter()
        f.exclude_ids = sorted({*f.exclude_ids, *wanted})
        try:
            with rt.projects.swap:
                hits = index.recommend_vectors(pos, neg, top_k, f)
        except CiteLoomError as exc:
            skipped.append(_skip(name, exc))
            continue
        ranked.append((name, lock, hits))
    if not ranked:
        raise _none_answered(skipped)
    rule, merged = merge(ranked, "dense", top_k)
    return SimilarResult(
        similar_to=chunk_ids, projects=[name for name, _, _ in ranked], skipped=skipped,
        merge=rule, hits=[passage(rank, h, max_chars, project=name)
                          for rank, (name, h) in enumerate(merged, 1)])


def _whole_pages_for(lock: ModelLock, depth: int) -> str:
    """The model that names a project's chunk ids when its page hits show their whole
    pages (:func:`whole_pages`), "" when they do not: the fast mode (no second stage,
    ``rerank`` 0) answers with the ranking alone, one index call less (docs/DECISIONS.md
    "A page hit shows its page")."""
    return lock.dense_model if depth >= 2 else ""


def whole_pages(index: Any, hits: list[Hit], dense_model: str, flt: SearchFilter | None
                ) -> list[Hit]:
    """Each page hit with the chunks of its page that the ranking did not bring
    (:func:`ranking.with_page`), fetched by id in one call: a chunk's id is its document,
    its index and the model (``payload.chunk_id``)."""
    if not dense_model:
        return hits
    wanted: dict[str, list[str]] = {}  # chunk id -> the page hits it may belong to
    for h in hits:
        doc, near = page_neighbours(h)
        for i in near:
            wanted.setdefault(chunk_id(doc, i, dense_model), []).append(h.id)
    if not wanted:
        return hits
    found: dict[str, list[Hit]] = {}
    for c in index.retrieve(list(wanted)):
        for owner in wanted.get(c.id, []):
            found.setdefault(owner, []).append(c)
    return [with_page(h, found[h.id], flt) if h.id in found else h for h in hits]


def search_index(rt: Runtime, project: Any, *, dense: Any, sparse: Any, mode: Mode, top_k: int,
                 flt: SearchFilter | None, fusion: Fusion, group_by_doc: bool,
                 per_page: bool = True, extra: Sequence[tuple[Any, Any]] = (),
                 dense_weight: int = 1, dense_model: str = "") -> list[Hit]:
    """One project's ranking. ``per_page``: ``top_k`` pages (:func:`by_page`), from
    ``top_k`` × 5 chunks, more when they hold fewer pages and the project has more; each
    shows the rest of its page too when ``dense_model`` (which names the chunk ids) is
    given (:func:`whole_pages`).
    ``group_by_doc``: the best passage of each of ``top_k``
    papers, whenever the project has that many. Edge has no group-by query, so it asks for
    ``top_k`` × 5 passages, keeps the best of each paper, and asks again with the papers
    it has left out, until it has ``top_k`` or the project has no more: in dense and
    sparse mode exactly the grouping of the whole ranking (each round continues it);
    in hybrid, each round's fusion ranks the passages that are left.
    ``extra``: the (dense, sparse) vectors of other phrasings of the question; each is
    searched the same way and a chunk's scores are summed (:func:`summed`)."""
    index = rt.projects.index(project.name)
    phrasings = [(dense, sparse), *extra]

    def ask(limit: int, f: SearchFilter | None) -> list[Hit]:
        with rt.projects.swap:
            runs = [index.search(dense=d, sparse=s, mode=mode, limit=limit, flt=f,
                                 fusion=fusion, rrf_k=project.rrf_k,
                                 prefetch=project.prefetch, dense_weight=dense_weight)
                    for d, s in phrasings]
        return summed(runs)[:limit] if extra else runs[0]

    phrases = flt.phrases if flt else []

    def exact(hits: list[Hit]) -> list[Hit]:
        """A quoted phrase as written: the index matched its words, in any order."""
        return [h for h in hits if holds_phrases(h, phrases)] if phrases else hits

    if not group_by_doc and not per_page and not phrases and not extra:
        return ask(top_k, flt)
    # (other phrasings are summed over deeper rankings: a chunk just below one search's
    # top_k still adds its score)
    limit = min(top_k * 5, 250)
    if not group_by_doc:
        while True:
            hits = ask(limit, flt)
            kept = exact(hits)
            done = len(hits) < limit or limit >= 250
            if per_page and (page_count(kept) >= top_k or done):
                return whole_pages(index, by_page(kept, top_k)[:top_k], dense_model, flt)
            if not per_page and (len(kept) >= top_k or done):
                return kept[:top_k]
            limit = min(limit * 2, 250)
    out: list[Hit] = []
    seen: list[str] = []
    while len(out) < top_k:
        f = dataclasses.replace(flt or SearchFilter())
        f.exclude_doc_ids = sorted({*f.exclude_doc_ids, *seen})
        hits = ask(limit, f)
        best = best_per_doc(exact(hits))
        for h in best:
            out.append(h)
            seen.append(h.payload.get("doc_id", h.id))
        if len(hits) < limit:  # the project has nothing more
            break
        if not best:  # none of these holds the phrase: look deeper, or give up
            if limit >= 250:
                break
            limit = min(limit * 2, 250)
    return out[:top_k]


def _docs(rt: Runtime, project: str, flt: SearchFilter) -> int:
    """How many documents ``flt`` lets through, counted by their first chunks (the fields
    it asks about are the document's, the same on every chunk): a count in the index, no
    scroll, since it runs with every filtered query."""
    with rt.projects.swap:
        return rt.projects.index(project).count(flt=dataclasses.replace(flt, first_chunks=True))


def excluded_for(rt: Runtime, project: str, flt: SearchFilter | None) -> dict[str, int]:
    """For each field the filter restricts that documents may lack (a year, authors,
    a citekey…): how many documents of the project lack it, and so cannot match."""
    if flt is None:
        return {}
    out = {}
    for key, (names, _) in FILTERED_FIELDS.items():
        if any(getattr(flt, n) not in (None, [], "") for n in names):
            n = _docs(rt, project, SearchFilter(missing=[key], kinds=["passage"]))
            if n:
                out[key] = n
    return out


def empty_reason(rt: Runtime, project: str, flt: SearchFilter | None, excluded: dict[str, int],
                 mode: str, phrases: list[str] | None = None) -> dict[str, Any]:
    """Why a search of ``project`` found nothing: it is empty; its documents lack what
    the filter asks for; the filter matched nothing else; no passage holds a quoted
    phrase; or (sparse) no passage holds a word of the query."""
    with rt.projects.swap:
        total = rt.projects.index(project).count()
    if not total:
        return {"code": "PROJECT_EMPTY", "project": project,
                "message": f"project {project!r} has no documents yet",
                "hint": f"ingest some: `citeloom ingest PATH -p {project}`"}
    if flt is not None and not flt.is_empty():
        docs = _docs(rt, project, SearchFilter())
        lacking = ", ".join(f"{n} of {docs} documents have no {FILTERED_FIELDS[key][1]}"
                            for key, n in excluded.items())
        return {"code": "FILTERED_OUT", "project": project, "excluded": excluded,
                "message": "no passage matches the filters"
                + (f" ({lacking}, so the filter leaves them out)" if lacking else ""),
                "hint": "loosen or drop a filter; authors match by family name, sections "
                        "by heading words" + ("; documents without the field get it from "
                                             "Zotero, or from their first page when it "
                                             "states it" if lacking else "")}
    if phrases:
        quoted = ", ".join(f'"{p}"' for p in phrases)
        return {"code": "NO_MATCH", "project": project,
                "message": f"no passage contains the quoted phrase {quoted} as written",
                "hint": "check its spelling, or drop the quotes to search for its words "
                        "anywhere in a passage"}
    if mode == "sparse":
        return {"code": "NO_MATCH", "project": project,
                "message": "no passage contains a word of the query (sparse search "
                           "matches exact words)",
                "hint": "try hybrid or dense mode, or other words"}
    return {"code": "NO_MATCH", "project": project, "message": "nothing matched the query",
            "hint": "try other words"}


def _reasons(reasons: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One reason for an empty answer across projects: each project's, joined."""
    if not reasons:
        return None
    if len(reasons) == 1:
        return reasons[0]
    codes = {r["code"] for r in reasons}
    return {"code": codes.pop() if len(codes) == 1 else "NO_MATCH",
            "message": "; ".join(f"{r['project']}: {r['message']}" for r in reasons),
            "hint": reasons[0]["hint"], "projects": reasons}
