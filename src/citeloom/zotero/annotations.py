"""Annotations (highlights, underlines, sticky notes, text boxes, image and ink areas) and
notes (child and standalone), read the same way from Zotero's database and its APIs.

    database:  itemAnnotations (type 1-6, text, comment, color, pageLabel, sortIndex,
               position JSON with pageIndex), itemNotes (HTML), deletedItems (the trash)
    APIs:      items with itemType "annotation" (annotationType, annotationText, …,
               annotationPosition as a JSON string) or "note" (note: HTML)

Every reader returns :class:`Annotation` records, so the source that indexes them does not
care where they came from. A note's HTML becomes plain text with its headings kept as
Markdown ``#`` lines (:func:`note_text`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, Literal

# itemAnnotations.type, as Zotero numbers them (Zotero.Annotations.ANNOTATION_TYPE_*).
ANNOTATION_TYPES = {1: "highlight", 2: "note", 3: "image", 4: "ink", 5: "underline",
                    6: "text"}
# Types whose own text is the highlighted passage; the others speak only through a comment.
TEXT_TYPES = frozenset({"highlight", "underline"})


@dataclass
class Annotation:
    """One annotation on an attachment, or one note (child of an item, or standalone)."""

    key: str
    kind: Literal["annotation", "note"]
    parent_key: str | None  # annotation: its attachment; note: its item (None: standalone)
    version: int | None = None
    type: str = "note"  # highlight, underline, note, text, image, ink; "note" for notes
    text: str = ""  # the highlighted text, or the note as text (headings as '#' lines)
    comment: str = ""
    color: str | None = None
    page_label: str | None = None
    page_index: int | None = None  # 0-based, from position.pageIndex
    sort_index: str = ""
    author: str | None = None  # who made it (group libraries, imported annotations)
    tags: list[str] = field(default_factory=list)
    collection_keys: list[str] = field(default_factory=list)  # standalone notes
    library: str = "library"  # "library" (My Library) or "groups/<id>", as in zotero:// links

    @property
    def page(self) -> int | None:
        """The physical page, 1-based (``pageIndex + 1``)."""
        return self.page_index + 1 if self.page_index is not None else None

    @property
    def indexable(self) -> bool:
        """Whether there is text to index: image and ink areas only through a comment."""
        if self.kind == "note":
            return bool(self.text.strip())
        if self.type in TEXT_TYPES:
            return bool(self.text.strip() or self.comment.strip())
        return bool(self.comment.strip())

    @property
    def title(self) -> str:
        """A note's title as Zotero makes it: its first line (at most 80 characters)."""
        first = next((ln.lstrip("#").strip() for ln in self.text.splitlines() if ln.strip()), "")
        return first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0] + " …"


# ---------------------------------------------------------------------------------------
# Note HTML to text
# ---------------------------------------------------------------------------------------
_BLOCKS = {"p", "div", "blockquote", "pre", "table", "tr", "ul", "ol", "li", "dl", "dt", "dd",
           "section", "article", "header", "footer", "figure", "figcaption", "hr"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}


class _NoteParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.line: list[str] = []
        self.heading = 0
        self.skip = 0  # inside <style>/<script>

    def _end_line(self) -> None:
        text = re.sub(r"[ \t\r\f\v\u00a0]+", " ", "".join(self.line)).strip()
        self.line = []
        if text:
            self.blocks.append(("#" * self.heading + " " + text) if self.heading else text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self.skip += 1
        elif tag in _HEADINGS:
            self._end_line()
            self.heading = _HEADINGS[tag]
        elif tag == "br":
            self.line.append("\n")
        elif tag in _BLOCKS:
            self._end_line()
            if tag == "li":
                self.line.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self.skip = max(0, self.skip - 1)
        elif tag in _HEADINGS:
            self._end_line()
            self.heading = 0
        elif tag in _BLOCKS:
            self._end_line()

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.line.append(data.replace("\n", " "))


def note_text(html: str) -> str:
    """A note's HTML as plain text: one paragraph per block, separated by blank lines;
    headings on their own line as ``#``-prefixed Markdown (``<h2>`` → ``## …``), list items
    as ``- …``, line breaks kept. Plain text (older notes) passes through."""
    parser = _NoteParser()
    parser.feed(html or "")
    parser.close()
    parser._end_line()
    out = []
    for block in parser.blocks:
        lines = [ln.strip() for ln in block.split("\n") if ln.strip()]
        if lines:
            out.append("\n".join(lines))
    return "\n\n".join(out)


def _position(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _page_index(raw: Any) -> int | None:
    page = _position(raw).get("pageIndex")
    return page if isinstance(page, int) and page >= 0 else None


# ---------------------------------------------------------------------------------------
# The database
# ---------------------------------------------------------------------------------------
def read_annotations(conn: sqlite3.Connection, *, include_feeds: bool = False
                     ) -> list[Annotation]:
    """Every annotation and note of the database that is not in the trash: neither it, its
    parent (attachment or item), nor the attachment's parent item is in ``deletedItems``."""
    from citeloom.zotero.dbfile import table

    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "itemNotes" not in have:
        return []
    deleted = {r[0] for r in conn.execute("SELECT itemID FROM deletedItems")}
    libraries = dict(conn.execute("SELECT libraryID, type FROM libraries"))
    group_ids = (dict(conn.execute("SELECT libraryID, groupID FROM groups"))
                 if table(conn, "groups") else {})

    def library(lib_id: int) -> str:
        if libraries.get(lib_id) == "group":
            return f"groups/{group_ids.get(lib_id, lib_id)}"
        return "library"

    skip_libs = set() if include_feeds else {k for k, v in libraries.items() if v == "feed"}
    items = {r[0]: r[1:] for r in conn.execute(
        "SELECT itemID, key, libraryID, version FROM items")}
    parents: dict[int, int | None] = dict(conn.execute(
        "SELECT itemID, parentItemID FROM itemAttachments"))
    tags: dict[int, list[str]] = defaultdict(list)
    for item_id, name in conn.execute(
            "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID"):
        tags[item_id].append(name)
    in_cols: dict[int, list[str]] = defaultdict(list)
    for item_id, col_key in conn.execute(
            "SELECT ci.itemID, c.key FROM collectionItems ci "
            "JOIN collections c ON c.collectionID = ci.collectionID ORDER BY ci.orderIndex"):
        in_cols[item_id].append(col_key)
    creators: dict[int, str] = {}
    if table(conn, "groupItems") and table(conn, "users"):
        creators = dict(conn.execute(
            "SELECT g.itemID, u.name FROM groupItems g JOIN users u "
            "ON u.userID = g.createdByUserID"))

    def live(item_id: int) -> bool:
        return (item_id in items and item_id not in deleted
                and items[item_id][1] not in skip_libs)

    out: list[Annotation] = []
    if "itemAnnotations" in have:
        for (item_id, parent_id, kind, author, text, comment, color, label, sort_index,
             position) in conn.execute(
                "SELECT itemID, parentItemID, type, authorName, text, comment, color, "
                "pageLabel, sortIndex, position FROM itemAnnotations"):
            grandparent = parents.get(parent_id)
            if not live(item_id) or not live(parent_id) or (
                    grandparent is not None and not live(grandparent)):
                continue
            key, lib_id, version = items[item_id]
            out.append(Annotation(
                key=key, kind="annotation", parent_key=items[parent_id][0], version=version,
                type=ANNOTATION_TYPES.get(kind, "highlight"), text=(text or "").strip(),
                comment=(comment or "").strip(), color=(color or "").lower() or None,
                page_label=label or None, page_index=_page_index(position),
                sort_index=sort_index or "", author=author or creators.get(item_id),
                tags=sorted(tags.get(item_id, [])), library=library(lib_id)))
    for item_id, parent_id, html in conn.execute(
            "SELECT itemID, parentItemID, note FROM itemNotes"):
        if not live(item_id) or (parent_id is not None and not live(parent_id)):
            continue
        # Attachments keep their own notes in itemNotes too: not a note item.
        if item_id in parents:
            continue
        key, lib_id, version = items[item_id]
        out.append(Annotation(
            key=key, kind="note", parent_key=items[parent_id][0] if parent_id else None,
            version=version, text=note_text(html or ""), author=creators.get(item_id),
            tags=sorted(tags.get(item_id, [])),
            collection_keys=in_cols.get(item_id, []) if parent_id is None else [],
            library=library(lib_id)))
    return out


# ---------------------------------------------------------------------------------------
# The Web API and the local API
# ---------------------------------------------------------------------------------------
def annotation_from_api(record: dict[str, Any]) -> Annotation | None:
    """An ``annotation`` or ``note`` item record as the APIs return it; None for anything
    else, and for an item in the trash (``deleted``)."""
    data = record.get("data", record)
    kind = data.get("itemType")
    if kind not in ("annotation", "note") or data.get("deleted"):
        return None
    library = record.get("library") or {}
    lib = (f"groups/{library['id']}" if library.get("type") == "group" and library.get("id")
           else "library")
    creator = (record.get("meta") or {}).get("createdByUser") or {}
    author = (data.get("annotationAuthorName") or creator.get("name")
              or creator.get("username") or None)
    tags = sorted(t["tag"] if isinstance(t, dict) else str(t) for t in data.get("tags") or [])
    if kind == "note":
        return Annotation(
            key=data["key"], kind="note", parent_key=data.get("parentItem") or None,
            version=data.get("version"), text=note_text(data.get("note") or ""),
            author=author if library.get("type") == "group" else None, tags=tags,
            collection_keys=list(data.get("collections") or [])
            if not data.get("parentItem") else [], library=lib)
    return Annotation(
        key=data["key"], kind="annotation", parent_key=data.get("parentItem") or None,
        version=data.get("version"), type=data.get("annotationType") or "highlight",
        text=(data.get("annotationText") or "").strip(),
        comment=(data.get("annotationComment") or "").strip(),
        color=(data.get("annotationColor") or "").lower() or None,
        page_label=data.get("annotationPageLabel") or None,
        page_index=_page_index(data.get("annotationPosition")),
        sort_index=data.get("annotationSortIndex") or "", author=author, tags=tags,
        library=lib)
