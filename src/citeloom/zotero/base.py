"""Zotero data types, the reader interface, and the field normalisation every reader shares.

Every reader (database, Web API, local API, export file) builds its items through
:func:`make_item`, so titles, years, DOIs and authors come out the same whichever
source they were read from.
"""

from __future__ import annotations

import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeloom.errors import InvalidInput

LinkMode = Literal["imported_file", "imported_url", "linked_file", "linked_url"]
LINK_MODES: tuple[LinkMode, ...] = ("imported_file", "imported_url", "linked_file", "linked_url")

# Item types that are never "papers": they hang under a regular item or are not items at all.
NON_REGULAR_TYPES = frozenset({"attachment", "note", "annotation"})

# Creator roles that describe someone other than the work's author. An item's display
# authors are its other creators; only when it has none do editors (then anyone) stand in.
SECONDARY_CREATOR_TYPES = frozenset({
    "editor", "seriesEditor", "translator", "contributor", "reviewedAuthor", "bookAuthor",
    "commenter", "counsel", "attorneyAgent", "cosponsor", "castMember", "guest", "wordsBy",
    "interviewer", "recipient", "producer", "scriptwriter",
})


@dataclass
class Creator:
    """One creator. Two-field names have ``first``/``last``; single-field ones ``name``."""

    first: str = ""
    last: str = ""
    name: str = ""
    creator_type: str = "author"

    @property
    def display(self) -> str:
        """``"Last, First"``, ``"Last"`` or the single-field name."""
        if self.name:
            return self.name
        if self.first and self.last:
            return f"{self.last}, {self.first}"
        return self.last or self.first

    @property
    def family(self) -> str:
        """Surname for sorting and citekeys; the whole name for institutions."""
        return self.last or self.name or self.first


@dataclass
class Attachment:
    """A file (or link) attached to an item.

    ``path`` is where the file is (or would be) on this machine; ``exists`` says whether it
    is there. Web API files have no local path until :meth:`ZoteroReader.fetch_attachment`
    downloads them, so ask the reader rather than trusting ``path`` alone.
    """

    key: str
    parent_key: str | None
    content_type: str = ""
    link_mode: LinkMode = "imported_file"
    filename: str = ""
    path: Path | None = None
    exists: bool = False
    md5: str | None = None
    mtime: int | None = None  # milliseconds since the epoch, as Zotero stores it
    title: str = ""
    url: str | None = None

    @property
    def is_pdf(self) -> bool:
        return self.content_type == "application/pdf" or self.filename.lower().endswith(".pdf")

    @property
    def has_file(self) -> bool:
        """False for links to web pages, which have no file to index."""
        return self.link_mode != "linked_url"


@dataclass
class Collection:
    key: str
    name: str
    parent_key: str | None = None
    library_id: int | str | None = None


@dataclass
class ZoteroItem:
    """A regular Zotero item (not an attachment, note or annotation) with its attachments,
    or a standalone PDF (``item_type == "attachment"``, see :func:`standalone_item`)."""

    key: str
    item_type: str
    title: str = ""
    creators: list[Creator] = field(default_factory=list)
    date: str = ""
    year: int | None = None
    doi: str | None = None
    url: str | None = None
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)  # names
    collection_keys: list[str] = field(default_factory=list)
    language: str | None = None
    citekey: str | None = None
    citekey_source: str | None = None  # "bbt" | "native" | "bbt-db" | "extra"
    native_citekey: str | None = None  # Zotero 8 citationKey field / the export's own key
    version: int | None = None
    extra: str = ""
    attachments: list[Attachment] = field(default_factory=list)
    library_id: int | str | None = None
    library_type: str = "user"  # "user" | "group" | "feed"
    group_id: int | None = None  # a group library's public id (zotero.org/groups/<id>)
    item_id: int | None = None  # zotero.sqlite itemID (old Better BibTeX keys by it)
    fields: dict[str, str] = field(default_factory=dict)  # every stored field, by Zotero name

    @property
    def authors(self) -> list[str]:
        """Display names of the work's authors (see ``SECONDARY_CREATOR_TYPES``)."""
        primary = [c for c in self.creators if c.creator_type not in SECONDARY_CREATOR_TYPES]
        if not primary:
            primary = [c for c in self.creators if c.creator_type == "editor"] or self.creators
        return [c.display for c in primary if c.display]

    @property
    def library_path(self) -> str | None:
        """The library part of a ``zotero://`` link: ``library`` (My Library) or
        ``groups/<id>``; None when a group's public id is unknown."""
        if self.library_type == "group":
            return f"groups/{self.group_id}" if self.group_id is not None else None
        return "library"

    @property
    def bbt_ref(self) -> str:
        """How Better BibTeX's JSON-RPC names this item: ``KEY`` in My Library, else
        ``libraryID:KEY``. BBT means Zotero's *local* libraryID, which only database items
        know (a Web API group ID is a different number), so others are asked by key."""
        if self.library_type == "group" and self.item_id is not None and isinstance(
                self.library_id, int):
            return f"{self.library_id}:{self.key}"
        return self.key


# ---------------------------------------------------------------------------------------
# Field normalisation
# ---------------------------------------------------------------------------------------

DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*|doi\s+)", re.IGNORECASE)
_DOI_TRAILING = ".,;:)]}>'\"”’"
_YEAR_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_EXTRA_DOI = re.compile(r"^\s*DOI\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)


def normalise_doi(value: str | None) -> str | None:
    """Lower-case DOI without ``https://doi.org/``/``doi:`` prefix or trailing punctuation.

    Short DOIs (``10/fqd6hj``) are kept as given: they cannot be expanded offline.
    Returns None for anything that is not a DOI.
    """
    if not value:
        return None
    doi = _DOI_PREFIX.sub("", value.strip()).strip()
    # Closing brackets are trailing punctuation only when unbalanced: 10.1002/(sici)...
    while doi and doi[-1] in _DOI_TRAILING:
        if doi[-1] in ")]}" and doi.count(doi[-1]) <= doi.count({")": "(", "]": "[",
                                                                  "}": "{"}[doi[-1]]):
            break
        doi = doi[:-1]
    doi = doi.lower()
    return doi if doi.startswith(("10.", "10/")) else None


def find_dois(text: str) -> list[str]:
    """Every DOI in ``text``, normalised, in order of appearance, without repeats."""
    seen: list[str] = []
    for m in DOI_RE.finditer(text or ""):
        doi = normalise_doi(m.group(0))
        if doi and doi not in seen:
            seen.append(doi)
    return seen


def parse_year(date: str | None) -> int | None:
    """The first plausible four-digit year in a free-text date ("April 1, 2003" → 2003)."""
    for m in _YEAR_RE.finditer(date or ""):
        year = int(m.group(1))
        if 1000 <= year <= 2999:
            return year
    return None


def extra_field(extra: str, name: str) -> str | None:
    """A ``Name: value`` line from Zotero's ``extra`` field (how CSL variables and pinned
    citekeys are stored for item types without a real field)."""
    m = re.search(rf"^\s*{re.escape(name)}\s*:\s*(.+?)\s*$", extra or "",
                  re.IGNORECASE | re.MULTILINE)
    return m.group(1) if m else None


def make_item(
    key: str,
    item_type: str,
    fields: dict[str, Any],
    *,
    creators: Sequence[Creator] = (),
    tags: Iterable[str] = (),
    collection_keys: Iterable[str] = (),
    collections: Iterable[str] = (),
    attachments: Iterable[Attachment] = (),
    version: int | None = None,
    library_id: int | str | None = None,
    library_type: str = "user",
    group_id: int | None = None,
    item_id: int | None = None,
    year: int | None = None,
) -> ZoteroItem:
    """Build an item from its raw Zotero fields, normalising the ones CiteLoom searches on.

    ``year`` overrides the year parsed from ``date`` when the source parsed it already
    (the database's ``YYYY-MM-DD`` part, the Web API's ``meta.parsedDate``).
    """
    # Scalars only: creators, tags, collections and relations arrive as their own arguments.
    flat = {k: str(v) for k, v in fields.items()
            if isinstance(v, str | int | float) and str(v) != ""}
    extra = flat.get("extra", "")
    date = flat.get("date", "")
    # A full DOI beats a short one (10/abc): PDFs print full DOIs, and matching needs them.
    dois = [normalise_doi(flat.get("DOI")), normalise_doi(_first(_EXTRA_DOI, extra))]
    url = flat.get("url", "")
    if re.match(r"https?://(dx\.)?doi\.org/10\.", url, re.IGNORECASE):
        dois.insert(1, normalise_doi(url))
    doi = next((d for d in dois if d and d.startswith("10.")), None) or next(
        (d for d in dois if d), None)
    return ZoteroItem(
        key=key,
        item_type=item_type,
        title=flat.get("title", "").strip(),
        creators=list(creators),
        date=date,
        year=year if year is not None else parse_year(date),
        doi=doi,
        url=flat.get("url") or None,
        tags=sorted(dict.fromkeys(t for t in tags if t)),
        collections=list(dict.fromkeys(collections)),
        collection_keys=list(dict.fromkeys(collection_keys)),
        language=flat.get("language") or None,
        native_citekey=flat.get("citationKey") or None,
        version=version,
        extra=extra,
        attachments=list(attachments),
        library_id=library_id,
        library_type=library_type,
        group_id=group_id,
        item_id=item_id,
        fields=flat,
    )


def standalone_item(att: Attachment, fields: dict[str, Any], **kw: Any) -> ZoteroItem:
    """A PDF added to Zotero on its own (no parent item) as an item of type ``attachment``
    whose one attachment is itself. Its Zotero title is usually the file name, so it has
    none here: the PDF's own title is used. It has no citekey (Better BibTeX gives none)."""
    item = make_item(att.key, "attachment", {**fields, "title": ""}, attachments=[att], **kw)
    item.citekey_source = None
    return item


def is_standalone_pdf(att: Attachment) -> bool:
    return att.parent_key is None and att.is_pdf and att.has_file


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text or "")
    return m.group(1) if m else None


def creator_from_api(data: dict[str, Any]) -> Creator:
    """A creator in the Web API / export form: ``firstName``/``lastName`` or ``name``."""
    ctype = data.get("creatorType") or "author"
    if data.get("name"):
        return Creator(name=str(data["name"]).strip(), creator_type=ctype)
    return Creator(first=str(data.get("firstName") or "").strip(),
                   last=str(data.get("lastName") or "").strip(), creator_type=ctype)


# ---------------------------------------------------------------------------------------
# The reader interface
# ---------------------------------------------------------------------------------------


class ZoteroReader(ABC):
    """Reads one Zotero library (or export). Subclasses load; filtering lives here once."""

    @abstractmethod
    def collections(self) -> list[Collection]:
        """Every collection, sub-collections included (``parent_key`` links them)."""

    @abstractmethod
    def _load_items(self, collection_keys: set[str] | None) -> list[ZoteroItem]:
        """Regular, non-deleted items with attachments and citekeys. ``collection_keys`` is
        a hint a reader may use to fetch less; :meth:`items` filters again either way."""

    @abstractmethod
    def fetch_attachment(self, att: Attachment, dest_dir: Path) -> Path:
        """A local path to the attachment's file: where it is stored or linked, or a
        download into ``dest_dir``. Raises ``SourceNotFound`` when there is no file."""

    #: Whether :meth:`annotations` reads the library's (export files carry none: a sync
    #: through them must not take every indexed annotation for deleted).
    reads_annotations = False

    def annotations(self) -> list[Any]:
        """Every annotation and note of the library that is not in the trash
        (``zotero.annotations.Annotation``); export files have none."""
        return []

    def scope(self, collection: str | None, include_subcollections: bool = False
              ) -> set[str] | None:
        """The keys of ``collection`` (key, name or ``Parent/Child`` path) and, when asked,
        of its sub-collections; None for the whole library."""
        if collection is None:
            return None
        cols = self.collections()
        target = find_collection(cols, collection)
        keys = {target.key}
        if include_subcollections:
            keys |= descendant_keys(cols, target.key)
        return keys

    def items(
        self,
        collection: str | None = None,
        include_subcollections: bool = False,
        tags_include: Sequence[str] = (),
        tags_exclude: Sequence[str] = (),
    ) -> Iterator[ZoteroItem]:
        """Regular items, optionally only those in ``collection`` (key, name or
        ``Parent/Child`` path) and its sub-collections, carrying any of ``tags_include`` and
        none of ``tags_exclude`` (tags compare case-insensitively)."""
        keys = self.scope(collection, include_subcollections)
        for item in self._load_items(keys):
            if keys is not None and not keys.intersection(item.collection_keys):
                continue
            if tags_match(item.tags, tags_include, tags_exclude):
                yield item


def tags_match(tags: Iterable[str], include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Carries any of ``include`` (when given) and none of ``exclude``, ignoring case."""
    have = {t.casefold() for t in tags}
    wanted = {t.casefold() for t in include}
    return (not wanted or bool(wanted & have)) and not {t.casefold() for t in exclude} & have


def collection_paths(cols: Sequence[Collection]) -> dict[str, str]:
    """``key -> "Parent/Child"`` for every collection."""
    by_key = {c.key: c for c in cols}
    paths: dict[str, str] = {}
    for c in cols:
        parts, seen, cur = [], set(), c
        while cur is not None and cur.key not in seen:  # a corrupt parent loop must not hang
            seen.add(cur.key)
            parts.append(cur.name)
            cur = by_key.get(cur.parent_key) if cur.parent_key else None
        paths[c.key] = "/".join(reversed(parts))
    return paths


def find_collection(cols: Sequence[Collection], ref: str) -> Collection:
    """The collection named by key, ``Parent/Child`` path or name (exact, then ignoring case).

    Raises ``InvalidInput`` when nothing matches or a name is shared by several collections.
    """
    for c in cols:
        if c.key == ref:
            return c
    paths = collection_paths(cols)
    for matcher in (lambda c: paths[c.key] == ref,
                    lambda c: c.name == ref,
                    lambda c: paths[c.key].casefold() == ref.casefold(),
                    lambda c: c.name.casefold() == ref.casefold()):
        hits = [c for c in cols if matcher(c)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            listed = ", ".join(f"{paths[c.key]} ({c.key})" for c in hits)
            raise InvalidInput(f"collection {ref!r} is ambiguous: {listed}",
                               "name it by key or by its full Parent/Child path")
    names = ", ".join(sorted(paths.values())[:15]) or "none"
    raise InvalidInput(f"no Zotero collection {ref!r}",
                       f"use a collection key, name or Parent/Child path; known: {names}")


def descendant_keys(cols: Sequence[Collection], key: str) -> set[str]:
    children: dict[str, list[str]] = {}
    for c in cols:
        if c.parent_key:
            children.setdefault(c.parent_key, []).append(c.key)
    out: set[str] = set()
    stack = list(children.get(key, []))
    while stack:
        k = stack.pop()
        if k not in out:
            out.add(k)
            stack.extend(children.get(k, []))
    return out


# ---------------------------------------------------------------------------------------
# What the index stores
# ---------------------------------------------------------------------------------------


def item_payload(item: ZoteroItem) -> dict[str, Any]:
    """The metadata fields CiteLoom stores with every chunk of this item."""
    return {
        "citekey": item.citekey,
        "title": item.title or None,
        "authors": item.authors,
        "year": item.year,
        "doi": item.doi,
        "url": item.url,
        "tags": list(item.tags),
        "collections": list(item.collections),
        "zotero_key": item.key,
        "zotero_library": item.library_path,
        "language": item.language,
    }



DEFAULT_OCR_LANGUAGES = ["eng", "deu"]

# ISO 639-1 (and a few 639-2/B) codes to Tesseract's traineddata names.
_ISO_TO_TESSERACT = {
    "en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por",
    "nl": "nld", "da": "dan", "sv": "swe", "no": "nor", "nb": "nor", "nn": "nor",
    "fi": "fin", "is": "isl", "pl": "pol", "cs": "ces", "sk": "slk", "sl": "slv",
    "hr": "hrv", "sr": "srp", "bg": "bul", "ro": "ron", "hu": "hun", "et": "est",
    "lv": "lav", "lt": "lit", "el": "ell", "tr": "tur", "ru": "rus", "uk": "ukr",
    "ca": "cat", "eu": "eus", "gl": "glg", "ga": "gle", "cy": "cym", "la": "lat",
    "ar": "ara", "he": "heb", "fa": "fas", "hi": "hin", "ja": "jpn", "ko": "kor",
    "zh": "chi_sim", "vi": "vie", "th": "tha", "id": "ind", "ms": "msa",
    # ISO 639-2/B codes that differ from Tesseract's (639-2/T) names
    "ger": "deu", "fre": "fra", "dut": "nld", "cze": "ces", "gre": "ell", "chi": "chi_sim",
    "per": "fas", "rum": "ron", "slo": "slk", "ice": "isl", "baq": "eus", "wel": "cym",
}

# Language names as people type them into Zotero: English, native, and French/German
# exonyms (BBT's own test libraries carry "Anglais").
_NAME_TO_TESSERACT = {
    "eng": ("english", "anglais", "englisch", "inglés", "ingles", "inglese", "engels"),
    "deu": ("german", "deutsch", "allemand", "alemán", "aleman", "tedesco", "duits"),
    "fra": ("french", "français", "francais", "französisch", "franzosisch", "francés",
            "frances", "francese", "frans"),
    "spa": ("spanish", "español", "espanol", "espagnol", "spanisch", "spagnolo", "castellano"),
    "ita": ("italian", "italiano", "italien", "italienisch"),
    "por": ("portuguese", "português", "portugues", "portugais", "portugiesisch"),
    "nld": ("dutch", "nederlands", "néerlandais", "niederländisch", "flemish"),
    "dan": ("danish", "dansk", "danois", "dänisch"),
    "swe": ("swedish", "svenska", "suédois", "schwedisch"),
    "nor": ("norwegian", "norsk", "bokmål", "nynorsk", "norvégien", "norwegisch"),
    "fin": ("finnish", "suomi", "finnois", "finnisch"),
    "pol": ("polish", "polski", "polonais", "polnisch"),
    "ces": ("czech", "čeština", "cestina", "tchèque", "tschechisch"),
    "rus": ("russian", "русский", "russe", "russisch"),
    "ukr": ("ukrainian", "українська"),
    "ell": ("greek", "ελληνικά", "grec", "griechisch"),
    "tur": ("turkish", "türkçe", "turc", "türkisch"),
    "hun": ("hungarian", "magyar"),
    "ron": ("romanian", "română", "romana"),
    "cat": ("catalan", "català"),
    "lat": ("latin", "latein", "latina"),
    "ara": ("arabic", "العربية", "arabe", "arabisch"),
    "heb": ("hebrew", "עברית", "hébreu", "hebräisch"),
    "jpn": ("japanese", "日本語", "japonais", "japanisch"),
    "kor": ("korean", "한국어", "coréen", "koreanisch"),
    "chi_sim": ("chinese", "中文", "chinois", "chinesisch", "简体中文"),
    "chi_tra": ("繁體中文", "traditional chinese"),
}
_NAME_LOOKUP = {unicodedata.normalize("NFC", n): code
                for code, names in _NAME_TO_TESSERACT.items() for n in names}
_TESSERACT_CODES = set(_ISO_TO_TESSERACT.values()) | set(_NAME_TO_TESSERACT)


def ocr_languages(language: str | None) -> list[str]:
    """Tesseract language codes for Zotero's free-text ``language`` field.

    Accepts tags (``en-US``, ``de``, ``zh-Hant``), Tesseract codes (``deu``), and names in
    several languages (``German``, ``français``); several languages may be separated by
    ``,``, ``;``, ``/`` or ``+``. Anything unrecognised gives ``["eng", "deu"]``.
    """
    out: list[str] = []
    for part in re.split(r"[,;/+]|\band\b|\bund\b|\bet\b", language or ""):
        code = _one_language(part)
        if code and code not in out:
            out.append(code)
    return out or list(DEFAULT_OCR_LANGUAGES)


def _one_language(text: str) -> str | None:
    s = unicodedata.normalize("NFC", text.strip().casefold())
    if not s:
        return None
    if s in _NAME_LOOKUP:
        return _NAME_LOOKUP[s]
    if s in _TESSERACT_CODES:
        return s
    tag = re.split(r"[-_]", s)
    primary = tag[0]
    if primary == "zh" and any(t in ("hant", "tw", "hk", "mo") for t in tag[1:]):
        return "chi_tra"
    return _ISO_TO_TESSERACT.get(primary)
