"""Zotero's Web API (api.zotero.org) and Zotero 7's local API (localhost:23119), via pyzotero.

pyzotero does the HTTP: paging (``everything()`` follows the ``Link: rel="next"``
header), and rate limits — on a 429 it records ``Retry-After``/``Backoff``, sleeps it out
and retries (3 attempts), and a ``Backoff`` header on a normal answer delays the next
request. This module turns pyzotero's records into :class:`ZoteroItem` and its errors
into ``ZoteroUnavailable`` with a next step. The API key never appears in a message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse
from urllib.request import url2pathname

import httpx2
from pyzotero import Zotero
from pyzotero import errors as ze

from citeloom.errors import ConfigError, SourceNotFound, ZoteroUnavailable
from citeloom.zotero.annotations import Annotation, annotation_from_api
from citeloom.zotero.base import (
    LINK_MODES,
    NON_REGULAR_TYPES,
    Attachment,
    Collection,
    LinkMode,
    ZoteroItem,
    ZoteroReader,
    creator_from_api,
    is_standalone_pdf,
    make_item,
    standalone_item,
)
from citeloom.zotero.bbt import BetterBibTeX, resolve_citekeys
from citeloom.zotero.sqlite import default_data_dir

log = logging.getLogger(__name__)
T = TypeVar("T")

LOCAL_API_HINT = ("enable it in Zotero 7: Settings → Advanced → \"Allow other applications "
                  "on this computer to communicate with Zotero\"")



def _library(record: dict[str, Any]) -> dict[str, Any]:
    """The record's library; a group library's API id is its public group id."""
    library = record.get("library") or {}
    kind = library.get("type", "user")
    return {"library_id": library.get("id"), "library_type": kind,
            "group_id": library.get("id") if kind == "group" else None}


def _tags(data: dict[str, Any]) -> list[str]:
    return [t["tag"] if isinstance(t, dict) else str(t) for t in data.get("tags") or []]

class _PyzoteroReader(ZoteroReader):
    """What the Web API and the local API share: same JSON, same pyzotero calls."""

    label = "Zotero"

    def __init__(self, zot: Zotero, *, data_dir: Path | None, bbt: BetterBibTeX | None,
                 secret: str | None = None) -> None:
        self._zot = zot
        self.data_dir = data_dir
        self.bbt = bbt
        self._secret = secret
        self._collections: list[Collection] | None = None

    # -- errors ----------------------------------------------------------------------

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except httpx2.TransportError as exc:
            raise ZoteroUnavailable(f"cannot reach {self.label} ({type(exc).__name__})",
                                    self._unreachable_hint()) from None
        except ze.UserNotAuthorisedError as exc:
            raise self._refused(self._redact(str(exc))) from None
        except ze.ResourceNotFoundError as exc:
            raise ZoteroUnavailable(f"{self.label}: not found ({self._status(exc)})",
                                    "check the library ID/type, or the collection/item "
                                    "key") from None
        except ze.TooManyRetriesError:
            raise ZoteroUnavailable(f"{self.label} kept rate-limiting requests (HTTP 429)",
                                    "wait a few minutes and run the command again") from None
        except ze.PyZoteroError as exc:
            raise ZoteroUnavailable(f"{self.label} request failed: {self._status(exc)}",
                                    "retry later; run with -v for details") from None

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _status(self, exc: Exception) -> str:
        # pyzotero's messages carry the URL and body; keep the first useful line only.
        lines = [ln.strip() for ln in self._redact(str(exc)).splitlines() if ln.strip()]
        return "; ".join(lines[:1] + [ln for ln in lines if ln.startswith("Response:")][:1])

    def _unreachable_hint(self) -> str:
        return "check the network connection and retry"

    def _refused(self, detail: str) -> ZoteroUnavailable:
        return ZoteroUnavailable(f"{self.label} refused access", "check your credentials")

    # -- reading ---------------------------------------------------------------------

    def collections(self) -> list[Collection]:
        if self._collections is None:
            raw = self._call(lambda: self._zot.everything(self._zot.collections()))
            self._collections = [
                Collection(key=c["data"]["key"], name=c["data"].get("name", ""),
                           parent_key=c["data"].get("parentCollection") or None,
                           library_id=(c.get("library") or {}).get("id"))
                for c in raw]
        return list(self._collections)

    def _load_items(self, collection_keys: set[str] | None) -> list[ZoteroItem]:
        zot = self._zot
        if collection_keys is None:
            raw = self._call(lambda: zot.everything(zot.top(limit=100)))
        else:
            raw, seen = [], set()
            for ck in sorted(collection_keys):
                for r in self._call(lambda ck=ck: zot.everything(
                        zot.collection_items_top(ck, limit=100))):
                    if r["key"] not in seen:
                        seen.add(r["key"])
                        raw.append(r)
        names = {c.key: c.name for c in self.collections()}
        items = []
        for r in raw:
            data = r.get("data", r)
            if data.get("deleted"):
                continue
            if data.get("itemType") == "attachment" and not data.get("parentItem"):
                att = self._attachment(r, None)
                if is_standalone_pdf(att):
                    cols = list(data.get("collections") or [])
                    items.append(standalone_item(
                        att, data, collection_keys=cols,
                        collections=[names[k] for k in cols if k in names],
                        tags=_tags(data), version=data.get("version"), **_library(r)))
                continue
            if data.get("itemType") in NON_REGULAR_TYPES:
                continue
            items.append(self._item(r, names))
        resolve_citekeys(items, bbt=self.bbt)
        return items

    reads_annotations = True

    def annotations(self) -> list[Annotation]:
        """Every annotation and note of the library: two listings (``itemType=annotation``,
        ``itemType=note``), 100 a page; the APIs leave out what is in the trash."""
        out = []
        for kind in ("annotation", "note"):
            raw = self._call(lambda kind=kind: self._zot.everything(
                self._zot.items(itemType=kind, limit=100)))
            out.extend(a for r in raw if (a := annotation_from_api(r)) is not None)
        return out

    def _item(self, record: dict[str, Any], col_names: dict[str, str]) -> ZoteroItem:
        data = record.get("data", record)
        meta = record.get("meta") or {}
        parsed = str(meta.get("parsedDate") or "")
        year = int(parsed[:4]) if parsed[:4].isdigit() and parsed[:4] != "0000" else None
        col_keys = list(data.get("collections") or [])
        attachments: list[Attachment] = []
        # Only ask for children the item has: one request per item would be the slowest
        # part of reading a large library under the Web API's rate limits.
        if meta.get("numChildren", 1):
            children = self._call(lambda: self._zot.everything(
                self._zot.children(data["key"], limit=100)))
            attachments = [self._attachment(c, data["key"]) for c in children
                           if c.get("data", c).get("itemType") == "attachment"]
        return make_item(
            data["key"], data.get("itemType", ""), data,
            creators=[creator_from_api(c) for c in data.get("creators") or []],
            tags=_tags(data), collection_keys=col_keys,
            collections=[col_names[k] for k in col_keys if k in col_names],
            attachments=attachments, version=data.get("version"), year=year,
            **_library(record))

    def _attachment(self, record: dict[str, Any], parent_key: str | None) -> Attachment:
        data = record.get("data", record)
        mode = data.get("linkMode")
        link_mode: LinkMode = mode if mode in LINK_MODES else "imported_file"
        filename = data.get("filename") or ""
        path: Path | None = None
        if link_mode == "linked_file" and data.get("path"):
            path = Path(data["path"])
            filename = filename or path.name
        elif link_mode in ("imported_file", "imported_url") and filename and self.data_dir:
            path = self.data_dir / "storage" / data["key"] / filename
        return Attachment(
            key=data["key"], parent_key=data.get("parentItem") or parent_key,
            content_type=data.get("contentType") or "", link_mode=link_mode,
            filename=filename, path=path, exists=bool(path and path.is_file()),
            md5=data.get("md5") or None, mtime=data.get("mtime"),
            title=data.get("title") or "", url=data.get("url") or None)

    def _missing(self, att: Attachment) -> SourceNotFound:
        if att.link_mode == "linked_url":
            return SourceNotFound(f"attachment {att.key} links to {att.url}, not a file",
                                  "download the page into Zotero to index it")
        return SourceNotFound(f"linked file of attachment {att.key} is not on this machine: "
                              f"{att.path}", "index it from the machine that has the file")


class WebApiReader(_PyzoteroReader):
    """api.zotero.org for a user or group library.

    ``library_id`` is the numeric userID (zotero.org/settings/keys) or group ID.
    ``data_dir``, when given, lets files that Zotero desktop already synced be used in
    place instead of downloaded. ``client`` is an ``httpx2.Client`` for pyzotero (tests).
    """

    def __init__(self, library_id: str | int, library_type: str = "user",
                 api_key: str | None = None, *, data_dir: Path | None = None,
                 bbt: BetterBibTeX | None = None, client: httpx2.Client | None = None) -> None:
        if library_type not in ("user", "group"):
            raise ConfigError(f"ZOTERO_LIBRARY_TYPE must be 'user' or 'group', not "
                              f"{library_type!r}", "set ZOTERO_LIBRARY_TYPE=user or group")
        if not str(library_id).strip():
            raise ConfigError("no Zotero library ID given",
                              "set ZOTERO_LIBRARY_ID (your numeric userID or a group ID)")
        zot = Zotero(library_id=str(library_id), library_type=library_type, api_key=api_key,
                     client=client)
        super().__init__(zot, data_dir=data_dir, bbt=bbt, secret=api_key)
        self.label = f"the Zotero Web API ({library_type} library {library_id})"

    def _refused(self, detail: str) -> ZoteroUnavailable:
        return ZoteroUnavailable(
            f"{self.label} refused access (HTTP 403/401: bad or expired API key, or no "
            "read access to this library)",
            "create a key with read access at https://www.zotero.org/settings/keys, put it "
            "in ZOTERO_API_KEY, and check ZOTERO_LIBRARY_ID/ZOTERO_LIBRARY_TYPE")

    def fetch_attachment(self, att: Attachment, dest_dir: Path) -> Path:
        """A synced local copy when there is one; else a download to ``dest_dir/KEY/``."""
        if att.path is not None and att.path.is_file():
            return att.path
        if att.link_mode not in ("imported_file", "imported_url"):
            raise self._missing(att)
        target = Path(dest_dir) / att.key
        target.mkdir(parents=True, exist_ok=True)
        filename = att.filename or f"{att.key}.bin"
        self._call(self._zot.dump, att.key, filename, target)
        for candidate in (target / filename, target / f"{filename}.zip"):  # .zip: snapshots
            if candidate.is_file():
                return candidate
        raise SourceNotFound(f"download of attachment {att.key} produced no file",
                             "check the file is synced to zotero.org storage")


class LocalApiReader(_PyzoteroReader):
    """Zotero 7's local API: read-only, no key, the running desktop's library (users/0).

    Files are on this machine already: the ``/file`` endpoint answers with a redirect to
    their ``file://`` URL, which is used in place (no copy).
    """

    def __init__(self, port: int = 23119, *, data_dir: Path | None = None,
                 bbt: BetterBibTeX | None = None, client: httpx2.Client | None = None) -> None:
        zot = Zotero(library_id=0, library_type="user", local=True, client=client)
        zot.endpoint = f"http://127.0.0.1:{port}/api"  # pyzotero fixes the port at 23119
        super().__init__(zot, data_dir=data_dir or default_data_dir(), bbt=bbt)
        self.port = port
        self.label = f"Zotero's local API on port {port}"

    def _unreachable_hint(self) -> str:
        return (f"start Zotero 7 (nothing answers on 127.0.0.1:{self.port}); "
                f"its local API must be enabled: {LOCAL_API_HINT}")

    def _refused(self, detail: str) -> ZoteroUnavailable:
        if "not enabled" in detail.lower():
            return ZoteroUnavailable("Zotero's local API is not enabled", LOCAL_API_HINT)
        return ZoteroUnavailable(f"{self.label} refused the request (HTTP 403)",
                                 LOCAL_API_HINT)

    def fetch_attachment(self, att: Attachment, dest_dir: Path) -> Path:
        if att.path is not None and att.path.is_file():
            return att.path
        if att.link_mode == "linked_url":
            raise self._missing(att)
        url = f"{self._zot.endpoint}/users/0/items/{att.key}/file"
        resp = self._call(self._zot.client.get, url, follow_redirects=False)
        location = resp.headers.get("location", "")
        if resp.status_code in (301, 302, 303, 307, 308) and location.startswith("file:"):
            path = Path(url2pathname(urlparse(location).path))
            if path.is_file():
                return path
            raise SourceNotFound(f"attachment file missing: {path}",
                                 "let Zotero sync/download the file, or relink it")
        if resp.status_code == 403:
            raise self._refused(resp.text)
        raise SourceNotFound(f"Zotero has no file for attachment {att.key} "
                             f"(HTTP {resp.status_code})",
                             "let Zotero sync/download the file, or relink it")
