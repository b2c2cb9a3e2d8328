"""What is in the library: the projects, one project's state, an item's annotations,
citations for citekeys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from ..catalog import is_file_source
from ..errors import CacheDamaged, CiteLoomError, InvalidInput, repair_hint
from ..index import Hit, SearchFilter
from ..payload import Passage, joined_text, passage


def list_projects(app: Any) -> list[dict[str, Any]]:
    """Every configured or indexed project, with figures from its catalog: no shard is
    opened (an Edge shard is exclusive to one process, and loading a large one takes
    time). Indexes written without a catalog (texts) are counted in the index."""
    names = set(app.settings.projects) | set(app.stored_projects())
    out = []
    for name in sorted(names):
        project = app.settings.project(name, create=True)
        entry: dict[str, Any] = {"project": name, "backend": project.backend,
                                 "configured": name in app.settings.projects}
        try:
            idx = app.index(name)
            lock = idx.lock()
            catalog = app.catalog(name)
            documents = len(catalog)
            chunks = catalog.total_chunks() if documents or lock is None else idx.count()
            entry.update(indexed=lock is not None, chunks=chunks, documents=documents,
                         model_lock=lock.to_dict() if lock else None)
        except CiteLoomError as exc:
            entry.update(indexed=False, status=exc.code)
        out.append(entry)
    return out


def inspect(app: Any, project_name: str | None, sample: int = 3) -> dict[str, Any]:
    project = app.settings.project(project_name, create=True)
    index = app.index(project.name)
    lock = index.lock()
    catalog = app.catalog(project.name)
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
        "files)").to_dict()] if (bad := app.damaged_cache_entries(
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
        "config_matches_lock": lock is None or lock == app.model_lock(project),
        "payload_indexes": index.payload_indexes(),
        "stale_documents": stale,
        "missing_documents": missing,
        "sample": samples,
        "warnings": warnings,
    }


def annotations(app: Any, project_name: str | None, ref: str,
                kinds: list[str] | None = None, max_chars: int = 600) -> list[Passage]:
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
    project = app.settings.project(project_name, create=True)
    with app._swap:
        index = app.index(project.name)
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


def cite(app: Any, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
         project_name: str | None = None) -> str:
    """BibTeX or CSL-JSON for citekeys: Better BibTeX's own export when it answers, else
    from the Zotero library, else from what the index stores."""
    from ..zotero import BetterBibTeX, Creator, ZoteroItem, to_bibtex, to_csl_json

    if not citekeys:
        raise InvalidInput("no citekey given", "pass one or more citekeys")
    bbt = BetterBibTeX(port=app.settings.zotero.bbt_port)
    if bbt.ready():
        translator = "Better BibTeX" if fmt == "bibtex" else "Better CSL JSON"
        return bbt.export(citekeys, translator)
    found: dict[str, Any] = {}
    if app.settings.zotero.configured:
        try:
            found = {i.citekey: i for i in app.zotero_reader().items() if i.citekey}
        except CiteLoomError:
            found = {}
    missing = [k for k in citekeys if k not in found]
    if missing and project_name:
        index = app.index(app.settings.project(project_name, create=True).name)
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
    if still:
        raise InvalidInput(f"unknown citekey(s): {', '.join(still)}",
                           "check the keys, or name the project that holds them (-p)")
    items = [found[k] for k in citekeys]
    if fmt == "bibtex":
        return to_bibtex(items)
    return json.dumps(to_csl_json(items), indent=2, ensure_ascii=False)
