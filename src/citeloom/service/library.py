"""What is in the library: the projects, one project's state, an item's annotations,
citations for citekeys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citeloom.config import DEFAULT_CHUNKER, DEFAULT_DENSE_MODEL
from citeloom.errors import CacheDamaged, CiteLoomError, InvalidInput, from_dict, repair_hint
from citeloom.index import Hit, SearchFilter
from citeloom.index.catalog import is_file_source
from citeloom.payload import PASSAGE_CHARS, Passage, joined_text, passage

if TYPE_CHECKING:
    from citeloom.runtime import Runtime


def list_projects(rt: Runtime) -> list[dict[str, Any]]:
    """Every configured or indexed project, with figures from its catalog: no shard is
    opened (an Edge shard is exclusive to one process, and loading a large one takes
    time). Indexes written without a catalog (texts) are counted in the index."""
    names = set(rt.settings.projects) | set(rt.projects.stored_projects())
    out = []
    for name in sorted(names):
        project = rt.settings.project(name, create=True)
        entry: dict[str, Any] = {"project": name, "backend": project.backend,
                                 "configured": name in rt.settings.projects}
        try:
            idx = rt.projects.index(name)
            lock = idx.lock()
            catalog = rt.projects.catalog(name)
            documents = len(catalog)
            chunks = catalog.total_chunks() if documents or lock is None else idx.count()
            entry.update(indexed=lock is not None, chunks=chunks, documents=documents,
                         model_lock=lock.to_dict() if lock else None)
        except CiteLoomError as exc:
            entry.update(indexed=False, status=exc.code)
        out.append(entry)
    return out


def inspect(rt: Runtime, project_name: str | None, sample: int = 3) -> dict[str, Any]:
    project = rt.settings.project(project_name, create=True)
    index = rt.projects.index(project.name)
    lock = index.lock()
    catalog = rt.projects.catalog(project.name)
    stale, missing = [], []
    for rec in catalog.all():
        if not is_file_source(rec.source_path):
            continue  # a Zotero annotation or note: the next sync keeps it current
        p = Path(rec.source_path)
        if not p.exists():
            missing.append(rec.source_path)
        else:
            st = p.stat()
            if (st.st_size, st.st_mtime_ns) != (rec.size, rec.mtime_ns):
                stale.append(rec.source_path)
    warnings = [CacheDamaged(
        f"{len(bad)} cached conversion(s) of {project.name!r} are unreadable: "
        + ", ".join(p.name for p in bad[:3]),
        repair_hint(project.name) + " (it drops them; an ingest re-makes them from the "
        "files)").to_dict()] if (bad := rt.cache.damaged(
            project, [r.content_hash for r in catalog.all()])) else []
    samples = []
    for h in index.scroll(batch=max(1, sample)) if sample > 0 else ():
        samples.append({"id": h.id, **{k: v for k, v in h.payload.items()
                                       if k != "chunk_text"},
                        "chunk_text": h.payload.get("chunk_text", "")[:200]})
        if len(samples) >= sample:
            break
    return {
        "project": project.name,
        "backend": project.backend,
        "generation": index.generation,
        "chunks": index.count(),
        "documents": len(catalog),
        "model_lock": lock.to_dict() if lock else None,
        "config_matches_lock": lock is None or lock == rt.models.model_lock(project),
        # a project built before the default dense model moved: how to move it too
        "dense_model_upgrade": (
            {"to": DEFAULT_DENSE_MODEL, "command": f"citeloom reindex -p {project.name} "
             f"--dense-model {DEFAULT_DENSE_MODEL}"}
            if lock and lock.dense_model != DEFAULT_DENSE_MODEL
            and not rt.settings.pins(project.name, "dense_model") else None),
        # one built with an older chunker (passages embedded alone): a reindex moves it
        "chunker_upgrade": (
            {"to": DEFAULT_CHUNKER, "command": f"citeloom reindex -p {project.name}"}
            if lock and lock.chunker != DEFAULT_CHUNKER
            and not rt.settings.pins(project.name, "chunker") else None),
        "payload_indexes": index.payload_indexes(),
        "health": health(rt, project.name, worst=5),
        "stale_documents": stale,
        "missing_documents": missing,
        "sample": samples,
        "warnings": warnings,
    }


def health(rt: Runtime, project_name: str | None, worst: int | None = None) -> dict[str, Any]:
    """The project's health ledger, from its catalog: per paper, pages ok / repaired /
    read by OCR / unreadable, its lowest page score and the reading most pages kept; the
    totals; and the papers converted before the ledger existed whose cached conversion has
    pages that do not read as language (a ``citeloom reindex`` re-reads them). ``worst``
    keeps that many papers, worst first (None: all)."""
    from citeloom.convert.health import DocHealth, ledger_of, stale

    project = rt.settings.project(project_name, create=True)
    catalog = rt.projects.catalog(project.name)
    papers, reread, unknown = [], [], 0
    totals = {"ok": 0, "repaired": 0, "ocr": 0, "unreadable": 0}
    for rec in catalog.all():
        if not is_file_source(rec.source_path):
            continue
        doc_health = DocHealth.from_dict(json.loads(rec.health)) if rec.health else None
        if doc_health is None or not doc_health.ledger:
            doc = rt.cache.document(rec.content_hash, project)
            if doc is None:
                unknown += 1
                continue
            doc_health = ledger_of(doc)
            if pages := stale(doc):
                reread.append({"doc_id": rec.doc_id, "source_path": rec.source_path,
                               "title": rec.title, "pages": pages})
        for k in totals:
            totals[k] += getattr(doc_health, k)
        papers.append({"doc_id": rec.doc_id, "source_path": rec.source_path,
                       "title": rec.title, "status": doc_health.label,
                       **doc_health.as_dict()})
    papers.sort(key=lambda p: (-p["unreadable"], -p["ocr"] - p["repaired"], p["score"],
                               p["source_path"]))
    not_whole = sum(1 for p in papers if p["unreadable"])
    said = (f"{not_whole} of {len(papers)} papers in project {project.name!r} have pages "
            "without usable text" if not_whole else
            f"every page of the {len(papers)} papers in project {project.name!r} has usable "
            "text")
    if reread:
        said += (f"; {len(reread)} paper(s) were converted before text repair and have "
                 f"unreadable pages: `citeloom reindex -p {project.name}` re-reads them")
    return {"project": project.name, "papers_total": len(papers), "pages": totals,
            "papers_not_whole": not_whole,
            "papers_repaired": sum(1 for p in papers if p["repaired"] or p["ocr"]),
            "papers": papers if worst is None else papers[:worst],
            "reread": reread, "unknown": unknown, "summary": said}


def annotations(rt: Runtime, project_name: str | None, ref: str,
                kinds: list[str] | None = None, max_chars: int = PASSAGE_CHARS) -> list[Passage]:
    """An item's annotations and notes in reading order: annotations by page and place on
    the page (Zotero's sort index), then notes. ``ref`` is the item's citekey or Zotero
    key. A note (or long highlight) of several chunks comes back whole, as one passage (a
    note with its headings as ``#`` lines)."""
    ref = (ref or "").strip()
    kinds = list(kinds or ["annotation", "note"])
    if not ref:
        raise InvalidInput("no citekey given", "name the item by citekey or Zotero key")
    if not set(kinds) <= {"annotation", "note"}:
        raise InvalidInput(f"kinds must be annotation or note, not {kinds}",
                           "leave kinds out for both")
    project = rt.settings.project(project_name, create=True)
    with rt.projects.swap:
        index = rt.projects.index(project.name)
        hits = list(index.scroll(flt=SearchFilter(citekeys=[ref], kinds=kinds)))
        if not hits:  # a Zotero key, or an item without a citekey
            hits = [h for h in index.scroll(flt=SearchFilter(kinds=kinds))
                    if ref in (h.payload.get("zotero_item"), h.payload.get("zotero_key"))]
    docs: dict[str, list[Hit]] = {}
    for h in hits:
        docs.setdefault(h.payload.get("doc_id", h.id), []).append(h)
    whole = []
    for chunks in docs.values():
        chunks.sort(key=lambda h: h.payload.get("chunk_index", 0))
        first = chunks[0].payload
        text = (joined_text([h.payload for h in chunks]) if first.get("kind") == "note"
                else "\n".join(h.payload.get("chunk_text", "") for h in chunks))
        whole.append(Hit(chunks[0].id, 0.0, {**first, "chunk_text": text}))
    whole.sort(key=lambda h: (h.payload.get("kind") != "annotation",
                              h.payload.get("page_start") or 0,
                              h.payload.get("sort_index") or "", h.payload.get("zotero_key")))
    return [passage(rank, h, max_chars) for rank, h in enumerate(whole, 1)]


def cite(rt: Runtime, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
         project_name: str | None = None) -> str:
    """BibTeX or CSL-JSON for citekeys: Better BibTeX's own export when it answers, else
    from the Zotero library, else from what the index stores."""
    from citeloom.zotero import BetterBibTeX, Creator, ZoteroItem, to_bibtex, to_csl_json

    if not citekeys:
        raise InvalidInput("no citekey given", "pass one or more citekeys")
    bbt = BetterBibTeX(port=rt.settings.zotero.bbt_port)
    if bbt.ready():
        translator = "Better BibTeX" if fmt == "bibtex" else "Better CSL JSON"
        return bbt.export(citekeys, translator)
    found: dict[str, Any] = {}
    unread: CiteLoomError | None = None  # the library named but not readable
    if rt.settings.zotero.configured:
        try:
            found = {i.citekey: i for i in rt.zotero_reader().items() if i.citekey}
        except CiteLoomError as exc:
            unread = exc
    missing = [k for k in citekeys if k not in found]
    if missing and project_name:
        index = rt.projects.index(rt.settings.project(project_name, create=True).name)
        for h in index.scroll(fields=["citekey", "title", "authors", "year", "doi"]):
            key = h.payload.get("citekey")
            if key in missing and key not in found:
                p = h.payload
                creators = [Creator(last=a.split(", ", 1)[0],
                                    first=a.split(", ", 1)[1] if ", " in a else "")
                            for a in p.get("authors") or []]
                found[key] = ZoteroItem(key=key, item_type="journalArticle",
                                        title=p.get("title") or "", creators=creators,
                                        year=p.get("year"), doi=p.get("doi"), citekey=key)
    still = [k for k in citekeys if k not in found]
    if still and unread is not None:  # say why they were not found, not that they are wrong
        raise from_dict({"code": unread.code,
                         "message": f"cannot look up {', '.join(still)}: {unread.message}",
                         "hint": unread.hint + ("" if project_name else
                                                " (or name the project that holds them: "
                                                "its stored metadata is used)")})
    if still:
        where = ("" if rt.settings.zotero.configured else
                 "; no Zotero library is configured (ZOTERO_DATA_DIR, ZOTERO_LOCAL or "
                 "ZOTERO_LIBRARY_ID, see docs/ZOTERO.md)")
        raise InvalidInput(f"unknown citekey(s): {', '.join(still)}{where}",
                           "check the keys (`citeloom papers -p NAME` lists a project's), or "
                           "name the project that holds them (-p)")
    items = [found[k] for k in citekeys]
    if fmt == "bibtex":
        return to_bibtex(items)
    return json.dumps(to_csl_json(items), indent=2, ensure_ascii=False)


PAPER_FIELDS = ["doc_id", "citekey", "title", "authors", "year", "doi", "kind", "tags",
                "collections", "zotero_key", "zotero_item", "zotero_link", "source_path",
                "chunk_index", "page_end"]


def _documents(index: Any) -> dict[str, dict[str, Any]]:
    """Each document of an index: the payload of its first chunk, its chunk count and last
    page (one scroll of a few fields: no chunk text)."""
    docs: dict[str, dict[str, Any]] = {}
    for h in index.scroll(fields=PAPER_FIELDS):
        p = h.payload
        doc = docs.get(p.get("doc_id") or h.id)
        if doc is None:
            docs[p.get("doc_id") or h.id] = doc = {**p, "chunks": 0, "pages": 0}
        elif (p.get("chunk_index") or 0) < (doc.get("chunk_index") or 0):
            doc.update({k: v for k, v in p.items()})
        doc["chunks"] += 1
        doc["pages"] = max(doc["pages"], p.get("page_end") or 0)
    return docs


def list_papers(rt: Runtime, project_name: str | None) -> list[dict[str, Any]]:
    """A project's papers (documents of kind passage), ordered by citekey, then title: each
    with its citekey, title, authors, year, DOI, tags, collections, where it came from,
    its chunks and pages, and how many of the user's Zotero annotations and notes it has."""
    project = rt.settings.project(project_name, create=True)
    with rt.projects.swap:
        docs = _documents(rt.projects.index(project.name))
    extras: dict[str, int] = {}
    for d in docs.values():
        if d.get("kind") in ("annotation", "note") and d.get("citekey"):
            extras[d["citekey"]] = extras.get(d["citekey"], 0) + 1
    papers = [{
        "doc_id": d.get("doc_id"), "citekey": d.get("citekey"), "title": d.get("title") or "",
        "authors": d.get("authors") or [], "year": d.get("year"), "doi": d.get("doi"),
        "tags": d.get("tags") or [], "collections": d.get("collections") or [],
        "zotero_key": d.get("zotero_item") or d.get("zotero_key"),
        "source_path": d.get("source_path") or "", "chunks": d["chunks"],
        "pages": d["pages"], "annotations": extras.get(d.get("citekey") or "", 0),
    } for d in docs.values() if d.get("kind") in (None, "passage")]
    papers.sort(key=lambda p: ((p["citekey"] or "~").lower(), p["title"].lower()))
    return papers


def _match(ref: str, docs: dict[str, dict[str, Any]], rows: list[Any]) -> list[str]:
    """The doc ids ``ref`` names, trying in turn: a doc id (or a prefix of 6+ characters),
    a file path, a file name, a citekey or Zotero key (the paper with its annotations and
    notes)."""
    ids = set(docs) | {r.doc_id for r in rows}
    if ref in ids:
        return [ref]
    if len(ref) >= 6:
        prefixed = sorted(i for i in ids if i.startswith(ref))
        if prefixed:
            return prefixed
    sources = {r.doc_id: r.source_path for r in rows}
    sources.update({i: d.get("source_path") or "" for i, d in docs.items() if i not in sources})
    path = str(Path(ref).expanduser().absolute())
    for same in (lambda s: s in (ref, path) or s == str(Path(path).resolve()),
                 lambda s: bool(s) and Path(s).name == ref):
        found = sorted(i for i, s in sources.items() if same(s))
        if found:
            return found
    return sorted(i for i, d in docs.items()
                  if ref in (d.get("citekey"), d.get("zotero_key"), d.get("zotero_item")))


def remove_documents(rt: Runtime, name: str, refs: list[str]) -> dict[str, Any]:
    """Remove documents (points and catalog rows) named by ``refs`` (see :func:`_match`).
    Every ref is resolved first: one that names nothing, or a file name that names several
    files, removes nothing at all. Written to the audit log like an ingest."""
    from citeloom.report import FileResult, IngestReport, write_audit

    refs = [r.strip() for r in refs if r.strip()]
    if not refs:
        raise InvalidInput("no document named", "name documents by doc id, file path, file "
                           "name or citekey; `citeloom papers -p NAME` lists them")
    with rt.projects.swap:
        index = rt.projects.index(name)
        catalog = rt.projects.catalog(name)
        rows = catalog.all()
        docs = _documents(index)
        chosen: dict[str, None] = {}
        for ref in refs:
            found = _match(ref, docs, rows)
            if not found:
                raise InvalidInput(f"no document {ref!r} in project {name!r}; nothing was "
                                   "removed", "name it by doc id, file path, file name or "
                                   f"citekey; `citeloom papers -p {name}` lists them")
            keys = {docs.get(i, {}).get("citekey") for i in found}
            if len(found) > 1 and not (len(keys) == 1 and None not in keys):
                shown = ", ".join(f"{i[:12]} ({docs.get(i, {}).get('source_path', '')})"
                                  for i in found[:5])
                raise InvalidInput(f"{ref!r} names {len(found)} documents: {shown}; nothing "
                                   "was removed", "name one by its doc id or full path")
            chosen.update(dict.fromkeys(found))
        report = IngestReport(name, source="remove")
        by_id = {r.doc_id: r for r in rows}
        for doc_id in chosen:
            doc, rec = docs.get(doc_id, {}), by_id.get(doc_id)
            index.delete_doc(doc_id)
            if rec is not None:
                catalog.delete(doc_id)
            report.files.append(FileResult(
                rec.source_path if rec else doc.get("source_path") or doc_id, "removed",
                doc_id=doc_id, chunks=doc.get("chunks") or (rec.chunks if rec else 0)))
    write_audit(rt.settings.data_dir, report, rt.started_by)
    project = rt.settings.project(name, create=True)
    sources = [str(s.expanduser().resolve()) for s in project.sources]
    back = [f.path for f in report.files if Path(f.path).is_file()
            and any(f.path == s or f.path.startswith(s.rstrip("/") + "/") for s in sources)]
    return {"project": name,
            "removed": [{"doc_id": f.doc_id, "source_path": f.path, "chunks": f.chunks,
                         "citekey": docs.get(f.doc_id or "", {}).get("citekey"),
                         "title": docs.get(f.doc_id or "", {}).get("title") or ""}
                        for f in report.files],
            "chunks": sum(f.chunks for f in report.files),
            "comes_back": back, "audit_log": report.audit_log}
