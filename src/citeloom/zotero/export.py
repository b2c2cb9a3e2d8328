"""Export files in (Better BibTeX JSON, CSL-JSON) and citations out (BibTeX, CSL-JSON).

Better BibTeX JSON is ``{"config", "items", "collections"?}``; items carry Zotero's own
field names plus ``itemID`` and ``citationKey``; collections are a map
``key -> {name, parent, collections: [child keys], items: [itemIDs]}``.
CSL-JSON is a list of CSL items (``id``/``citation-key``, ``author`` as
``{family, given}`` or ``{literal}``, ``issued.date-parts``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from citeloom.errors import SourceNotFound, ZoteroUnavailable
from citeloom.zotero.base import (
    NON_REGULAR_TYPES,
    SECONDARY_CREATOR_TYPES,
    Attachment,
    Collection,
    Creator,
    ZoteroItem,
    ZoteroReader,
    creator_from_api,
    make_item,
)
from citeloom.zotero.bbt import resolve_citekeys

# Zotero item type -> CSL type. CSL -> Zotero is the inverse, first mapping winning.
ZOTERO_TO_CSL = {
    "journalArticle": "article-journal", "magazineArticle": "article-magazine",
    "newspaperArticle": "article-newspaper", "book": "book", "bookSection": "chapter",
    "conferencePaper": "paper-conference", "thesis": "thesis", "report": "report",
    "manuscript": "manuscript", "webpage": "webpage", "blogPost": "post-weblog",
    "forumPost": "post", "preprint": "article", "presentation": "speech",
    "computerProgram": "software", "videoRecording": "motion_picture", "film": "motion_picture",
    "encyclopediaArticle": "entry-encyclopedia", "dictionaryEntry": "entry-dictionary",
    "patent": "patent", "dataset": "dataset", "map": "map", "letter": "personal_communication",
    "interview": "interview", "artwork": "graphic", "case": "legal_case", "statute": "legislation",
    "document": "document", "standard": "standard",
}
CSL_TO_ZOTERO = {v: k for k, v in reversed(list(ZOTERO_TO_CSL.items()))}
CSL_TO_ZOTERO.update({"article": "preprint", "motion_picture": "film", "entry": "dictionaryEntry",
                      "paper-conference": "conferencePaper"})

# CSL variable -> Zotero field, for what items and payloads use.
_CSL_FIELDS = {
    "title": "title", "container-title": "publicationTitle", "volume": "volume",
    "issue": "issue", "page": "pages", "publisher": "publisher", "publisher-place": "place",
    "ISBN": "ISBN", "ISSN": "ISSN", "language": "language", "abstract": "abstractNote",
    "URL": "url", "DOI": "DOI", "note": "extra", "collection-title": "series",
    "edition": "edition", "number-of-pages": "numPages", "title-short": "shortTitle",
}
_CSL_CREATOR_ROLES = {"author": "author", "editor": "editor", "translator": "translator",
                      "container-author": "bookAuthor", "collection-editor": "seriesEditor",
                      "director": "director", "composer": "composer", "interviewer": "interviewer",
                      "recipient": "recipient", "reviewed-author": "reviewedAuthor",
                      "contributor": "contributor"}


class ExportFileReader(ZoteroReader):
    """Items from a Better BibTeX JSON or a CSL-JSON export file (format sniffed)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._cache: tuple[list[Collection], list[ZoteroItem]] | None = None

    def collections(self) -> list[Collection]:
        return list(self._load()[0])

    def _load_items(self, collection_keys: set[str] | None) -> list[ZoteroItem]:
        return self._load()[1]

    def _load(self) -> tuple[list[Collection], list[ZoteroItem]]:
        if self._cache is None:
            if not self.path.is_file():
                raise ZoteroUnavailable(f"no export file at {self.path}",
                                        "export the library from Zotero (Better BibTeX JSON "
                                        "or CSL JSON) and give its path")
            try:
                doc = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ZoteroUnavailable(f"cannot read export {self.path}: {exc}",
                                        "export again as Better BibTeX JSON or CSL JSON") \
                    from None
            if isinstance(doc, dict) and isinstance(doc.get("items"), list):
                cols, items = _read_bbt_json(doc)
            elif isinstance(doc, list):
                cols, items = [], [_csl_item(d, i) for i, d in enumerate(doc)
                                   if isinstance(d, dict)]
            else:
                raise ZoteroUnavailable(f"{self.path} is neither Better BibTeX JSON nor "
                                        "CSL-JSON", "export as Better BibTeX JSON or CSL JSON")
            resolve_citekeys(items)  # an export's own key, else `Citation Key:` in extra
            self._cache = (cols, items)
        return self._cache

    def fetch_attachment(self, att: Attachment, dest_dir: Path) -> Path:
        if att.path is not None and att.path.is_file():
            return att.path
        raise SourceNotFound(f"attachment file missing: {att.path or att.filename}",
                             "export with file paths from the machine that has the files")


def _read_bbt_json(doc: dict[str, Any]) -> tuple[list[Collection], list[ZoteroItem]]:
    raw_cols = doc.get("collections") or {}
    cols = [Collection(key=c.get("key") or k, name=c.get("name", ""),
                       parent_key=c.get("parent") or None)
            for k, c in raw_cols.items() if isinstance(c, dict)]
    names = {c.key: c.name for c in cols}
    by_item: dict[Any, list[str]] = {}
    for c in raw_cols.values():
        if isinstance(c, dict):
            for item_id in c.get("items") or []:
                by_item.setdefault(item_id, []).append(c["key"])
    items = []
    for raw in doc["items"]:
        if not isinstance(raw, dict) or raw.get("itemType") in NON_REGULAR_TYPES:
            continue
        fields = dict(raw)
        # Older exports store `extra` as a list of lines.
        if isinstance(fields.get("extra"), list):
            fields["extra"] = "\n".join(str(x) for x in fields["extra"])
        key = str(raw.get("itemKey") or raw.get("key") or raw.get("itemID", ""))
        col_keys = by_item.get(raw.get("itemID"), []) + [
            k for k in raw.get("collections") or [] if isinstance(k, str)]
        atts = [Attachment(key=str(a.get("itemKey") or a.get("key") or ""), parent_key=key,
                           content_type=a.get("contentType") or "",
                           link_mode=a.get("linkMode") or "linked_file",
                           filename=Path(a["path"]).name if a.get("path") else "",
                           path=Path(a["path"]) if a.get("path") else None,
                           exists=bool(a.get("path") and Path(a["path"]).is_file()),
                           title=a.get("title") or "")
                for a in raw.get("attachments") or [] if isinstance(a, dict)]
        items.append(make_item(
            key, raw.get("itemType", ""), {k: v for k, v in fields.items()
                                           if isinstance(v, str | int | float)},
            creators=[creator_from_api(c) for c in raw.get("creators") or []],
            tags=[t["tag"] if isinstance(t, dict) else str(t) for t in raw.get("tags") or []],
            collection_keys=col_keys, collections=[names.get(k, k) for k in col_keys],
            attachments=atts, version=raw.get("version"), library_id=raw.get("libraryID"),
            item_id=raw.get("itemID") if isinstance(raw.get("itemID"), int) else None))
    return cols, items


def _csl_item(d: dict[str, Any], index: int) -> ZoteroItem:
    fields = {z: d[c] for c, z in _CSL_FIELDS.items() if isinstance(d.get(c), str | int)}
    citekey = d.get("citation-key") or d.get("citationKey") or d.get("id")
    if citekey is not None:
        fields["citationKey"] = str(citekey)
    parts = ((d.get("issued") or {}).get("date-parts") or [[]])[0] or []
    if parts:
        fields["date"] = "-".join(f"{int(p):02d}" if i else str(p) for i, p in enumerate(parts))
    elif (d.get("issued") or {}).get("raw") or (d.get("issued") or {}).get("literal"):
        fields["date"] = d["issued"].get("raw") or d["issued"]["literal"]
    creators = []
    for role, ztype in _CSL_CREATOR_ROLES.items():
        for n in d.get(role) or []:
            if n.get("literal"):
                creators.append(Creator(name=n["literal"], creator_type=ztype))
            else:
                family = " ".join(x for x in (n.get("non-dropping-particle"), n.get("family"))
                                  if x)
                creators.append(Creator(first=n.get("given", ""), last=family,
                                        creator_type=ztype))
    keywords = d.get("keyword") or ""
    tags = [t.strip() for t in re.split(r"[,;]", keywords)] if isinstance(keywords, str) else []
    return make_item(str(d.get("id", index)), CSL_TO_ZOTERO.get(d.get("type", ""), "document"),
                     fields, creators=creators, tags=tags)


# ---------------------------------------------------------------------------------------
# Citations out
# ---------------------------------------------------------------------------------------

_BIBTEX_TYPES = {
    "journalArticle": "article", "magazineArticle": "article", "newspaperArticle": "article",
    "book": "book", "bookSection": "incollection", "conferencePaper": "inproceedings",
    "report": "techreport", "manuscript": "unpublished", "thesis": "phdthesis",
}
# (BibTeX field, Zotero fields to take it from, first non-empty wins)
_BIBTEX_FIELDS: list[tuple[str, tuple[str, ...]]] = [
    ("journal", ("publicationTitle",)),
    ("booktitle", ("bookTitle", "proceedingsTitle")),
    ("volume", ("volume",)), ("number", ("issue", "reportNumber")), ("pages", ("pages",)),
    ("publisher", ("publisher",)), ("address", ("place",)), ("edition", ("edition",)),
    ("series", ("series",)), ("isbn", ("ISBN",)), ("issn", ("ISSN",)),
]
_BIBTEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%",
                   "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}
_BIBTEX_ESCAPE = re.compile("|".join(re.escape(c) for c in _BIBTEX_SPECIAL))


def bibtex_escape(text: str) -> str:
    """Escape characters that would break a braced BibTeX value (unbalanced braces, ``%``…)."""
    return _BIBTEX_ESCAPE.sub(lambda m: _BIBTEX_SPECIAL[m.group(0)], text)


def entry_key(item: ZoteroItem) -> str:
    """The item's citekey, else its Zotero key: always something BibTeX accepts as a key."""
    key = re.sub(r"[\s,{}()\"#%'=\\]", "", item.citekey or "")
    return key or item.key or "item"


def _names(creators: Iterable[Creator]) -> str:
    # Institutions get an extra brace pair so BibTeX does not split them into first/last.
    return " and ".join(f"{{{bibtex_escape(c.name)}}}" if c.name else
                        bibtex_escape(f"{c.last}, {c.first}" if c.first else c.last)
                        for c in creators if c.display)


def to_bibtex(items: Iterable[ZoteroItem]) -> str:
    """Plain BibTeX entries from stored metadata (for BBT's own output use
    :meth:`BetterBibTeX.export`)."""
    out = []
    for it in items:
        etype = _BIBTEX_TYPES.get(it.item_type, "misc")
        thesis_type = it.fields.get("thesisType", "").lower()
        if etype == "phdthesis" and ("master" in thesis_type or "msc" in thesis_type):
            etype = "mastersthesis"
        lines: list[tuple[str, str]] = [("title", bibtex_escape(it.title))]
        editors = [c for c in it.creators if c.creator_type == "editor"]
        authors = [c for c in it.creators if c.creator_type not in SECONDARY_CREATOR_TYPES]
        if authors:
            lines.append(("author", _names(authors)))
        if editors:
            lines.append(("editor", _names(editors)))
        if it.year:
            lines.append(("year", str(it.year)))
        for name, sources in _BIBTEX_FIELDS:
            value = next((it.fields[s] for s in sources if it.fields.get(s)), "")
            if name == "journal" and etype != "article":
                value = ""
            if name == "booktitle" and not value and etype in ("incollection", "inproceedings"):
                value = it.fields.get("publicationTitle", "")
            if name == "pages":
                value = re.sub(r"\s*[-–—]+\s*", "--", value)
            if value:
                lines.append((name, bibtex_escape(value)))
        if etype in ("phdthesis", "mastersthesis") and it.fields.get("university"):
            lines.append(("school", bibtex_escape(it.fields["university"])))
        if etype == "techreport" and it.fields.get("institution"):
            lines.append(("institution", bibtex_escape(it.fields["institution"])))
        if it.doi:
            lines.append(("doi", bibtex_escape(it.doi)))
        if it.url:
            lines.append(("url", bibtex_escape(it.url)))
        if it.tags:
            lines.append(("keywords", bibtex_escape(", ".join(it.tags))))
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in lines if v)
        out.append(f"@{etype}{{{entry_key(it)},\n{body}\n}}\n")
    return "\n".join(out)


def _date_parts(item: ZoteroItem) -> list[int] | None:
    m = re.match(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", item.date.strip())
    if m:
        parts = [int(p) for p in m.groups() if p and int(p)]
        return parts or None
    return [item.year] if item.year else None


def to_csl_json(items: Iterable[ZoteroItem]) -> list[dict[str, Any]]:
    """CSL-JSON items (``id`` = citekey, else the Zotero key) from stored metadata."""
    out = []
    for it in items:
        key = entry_key(it)
        d: dict[str, Any] = {"id": key, "citation-key": key,
                             "type": ZOTERO_TO_CSL.get(it.item_type, "document")}
        for csl, zotero in _CSL_FIELDS.items():
            if zotero in ("DOI", "url", "extra"):
                continue
            if it.fields.get(zotero):
                d[csl] = it.fields[zotero]
        if not d.get("container-title"):
            for alt in ("bookTitle", "proceedingsTitle", "websiteTitle", "blogTitle"):
                if it.fields.get(alt):
                    d["container-title"] = it.fields[alt]
                    break
        roles = {v: k for k, v in _CSL_CREATOR_ROLES.items()}
        for c in it.creators:
            # Roles CSL lacks (presenter, programmer…) are authors when primary, so the
            # display authors survive the trip; secondary ones stay out of `author`.
            fallback = "contributor" if c.creator_type in SECONDARY_CREATOR_TYPES else "author"
            role = roles.get(c.creator_type, fallback)
            name = {"literal": c.name} if c.name else {"family": c.last, "given": c.first}
            d.setdefault(role, []).append({k: v for k, v in name.items() if v})
        parts = _date_parts(it)
        if parts:
            d["issued"] = {"date-parts": [parts]}
        if it.doi:
            d["DOI"] = it.doi
        if it.url:
            d["URL"] = it.url
        if it.tags:
            d["keyword"] = ", ".join(it.tags)
        out.append(d)
    return out
