"""Better BibTeX: its JSON-RPC endpoint, and the order in which citekeys are taken.

Citekey order (first that has one wins):

1. Better BibTeX JSON-RPC ``item.citationkey`` — the live key, when Zotero + BBT answer;
2. Zotero 8's native ``citationKey`` field (or the key an export file carries);
3. ``better-bibtex.sqlite`` in the Zotero data directory (what BBT last stored);
4. a ``Citation Key: …`` (or legacy ``bibtex: …``) line in the item's ``extra`` field.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from citeloom.errors import ZoteroUnavailable
from citeloom.zotero.base import ZoteroItem
from citeloom.zotero.dbfile import read_database, table

log = logging.getLogger(__name__)

ZOTERO_PORT = 23119
JURIS_M_PORT = 24119

_EXTRA_KEY = re.compile(r"^\s*(?:citation key|bibtex)\s*:\s*(\S+)\s*$",
                        re.IGNORECASE | re.MULTILINE)


class BetterBibTeXError(ZoteroUnavailable):
    """Better BibTeX answered with a JSON-RPC error object (HTTP 200 + ``error``)."""

    def __init__(self, message: str, hint: str = "", rpc_code: int | None = None) -> None:
        super().__init__(message, hint)
        self.rpc_code = rpc_code


class BetterBibTeX:
    """Client for ``POST http://127.0.0.1:<port>/better-bibtex/json-rpc``.

    The timeout is short because Zotero on localhost answers in milliseconds or not at all;
    after one failure the client stays quiet for ``retry_after`` seconds so a closed Zotero
    costs one refused connection per ingest, not one per item batch.
    """

    def __init__(
        self,
        port: int = ZOTERO_PORT,
        host: str = "127.0.0.1",
        timeout: float = 1.0,
        transport: httpx.BaseTransport | None = None,
        retry_after: float = 60.0,
    ) -> None:
        self.port = port
        self.host = host
        # trust_env=False: a proxy from the environment must never see localhost calls.
        self._client = httpx.Client(timeout=timeout, transport=transport, trust_env=False)
        self._retry_after = retry_after
        self._down_until = 0.0
        self._down_error: ZoteroUnavailable | None = None
        self._next_id = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/better-bibtex/json-rpc"

    def close(self) -> None:
        self._client.close()

    def call(self, method: str, params: Sequence[Any] | dict[str, Any]) -> Any:
        """One JSON-RPC call; its ``result``. Raises ``ZoteroUnavailable`` when nothing
        answers, and ``BetterBibTeXError`` for an ``error`` object."""
        if self._down_error is not None and time.monotonic() < self._down_until:
            raise self._down_error
        self._next_id += 1
        payload = {"jsonrpc": "2.0", "method": method, "params": params, "id": self._next_id}
        try:
            resp = self._client.post(self.url, json=payload,
                                     headers={"Accept": "application/json"})
        except httpx.TransportError as exc:
            raise self._down(ZoteroUnavailable(
                f"Better BibTeX is not answering on {self.host}:{self.port} "
                f"({type(exc).__name__})",
                "start Zotero with the Better BibTeX add-on (Juris-M listens on port "
                f"{JURIS_M_PORT}: set BBT_PORT); citekeys fall back to the Zotero database",
            )) from None
        if resp.status_code == 404:
            raise self._down(ZoteroUnavailable(
                f"Zotero answers on port {self.port} but has no Better BibTeX endpoint",
                "install the Better BibTeX add-on (retorque.re/zotero-better-bibtex) "
                "and restart Zotero",
            ))
        if resp.status_code != 200:
            raise ZoteroUnavailable(
                f"Better BibTeX {method} failed with HTTP {resp.status_code}",
                "check Zotero is running and not showing a dialog; retry",
            )
        try:
            body = resp.json()
        except ValueError:
            raise ZoteroUnavailable(f"Better BibTeX {method} did not return JSON",
                                    "update Better BibTeX; retry") from None
        if isinstance(body, dict) and body.get("error") is not None:
            err = body["error"] if isinstance(body["error"], dict) else {"message": body["error"]}
            raise BetterBibTeXError(
                f"Better BibTeX {method} refused: {err.get('message', 'unknown error')}"
                f" (JSON-RPC code {err.get('code')})",
                "check the citekeys / item keys exist in that Zotero library",
                rpc_code=err.get("code"),
            )
        self._down_error = None
        return body.get("result") if isinstance(body, dict) else body

    def _down(self, err: ZoteroUnavailable) -> ZoteroUnavailable:
        self._down_error = err
        self._down_until = time.monotonic() + self._retry_after
        return err

    def ready(self) -> bool:
        """True when Better BibTeX answers ``api.ready``."""
        try:
            self.call("api.ready", [])
        except ZoteroUnavailable:
            return False
        return True

    def citation_keys(self, item_refs: Sequence[str], batch: int = 500) -> dict[str, str]:
        """``item.citationkey``: ``{ref: citekey}`` for refs ``KEY`` or ``libraryID:KEY``;
        refs BBT does not know are left out."""
        out: dict[str, str] = {}
        for start in range(0, len(item_refs), batch):
            chunk = list(item_refs[start:start + batch])
            result = self.call("item.citationkey", [chunk])
            if not isinstance(result, dict):
                raise ZoteroUnavailable("Better BibTeX item.citationkey returned "
                                        f"{type(result).__name__}, not an object",
                                        "update Better BibTeX")
            out.update({k: v for k, v in result.items() if isinstance(v, str) and v})
        return out

    def export(self, citekeys: Sequence[str], translator: str = "Better BibTeX",
               library_id: int | str | None = None) -> str:
        """``item.export``: the citekeys' entries in ``translator``'s format (a name such as
        "Better BibTeX", "Better BibLaTeX", "Better CSL JSON", or a translator GUID)."""
        params: list[Any] = [list(citekeys), translator]
        if library_id is not None:
            params.append(library_id)
        result = self.call("item.export", params)
        # Before BBT 6.7.143 the result came double-wrapped as [status, type, text].
        if isinstance(result, list) and len(result) == 3 and isinstance(result[2], str):
            result = result[2]
        if not isinstance(result, str):
            raise ZoteroUnavailable("Better BibTeX item.export returned no text",
                                    "update Better BibTeX")
        return result


# ---------------------------------------------------------------------------------------
# Citekeys from better-bibtex.sqlite and from `extra`
# ---------------------------------------------------------------------------------------


@dataclass
class BbtKeys:
    """Citekeys Better BibTeX stored in its own database."""

    by_key: dict[tuple[Any, str], str] = field(default_factory=dict)  # (libraryID, itemKey)
    by_id: dict[int, str] = field(default_factory=dict)  # zotero.sqlite itemID

    def lookup(self, item: ZoteroItem) -> str | None:
        if isinstance(item.library_id, int):
            hit = self.by_key.get((item.library_id, item.key))
            if hit:
                return hit
        elif item.key:
            # Web/local API items have no local libraryID: accept a key BBT knows once only.
            hits = {v for (_, k), v in self.by_key.items() if k == item.key}
            if len(hits) == 1:
                return hits.pop()
        if item.item_id is not None:  # itemIDs are unique across a database's libraries
            return self.by_id.get(item.item_id)
        return None

    def __len__(self) -> int:
        return len(self.by_key) + len(self.by_id)


def extra_citekey(extra: str | None) -> str | None:
    """A pinned key written into ``extra`` as ``Citation Key: x`` (or BBT's older ``bibtex: x``)."""
    m = _EXTRA_KEY.search(extra or "")
    return m.group(1) if m else None


def resolve_citekeys(
    items: Iterable[ZoteroItem],
    bbt: BetterBibTeX | None = None,
    bbt_db: Path | BbtKeys | None = None,
) -> list[ZoteroItem]:
    """Set ``citekey``/``citekey_source`` on every item, in the module's order.

    Nothing here raises for a missing source: a Better BibTeX that does not answer, or
    answers with an error, or a ``better-bibtex.sqlite`` that cannot be read, just hands
    over to the next source (logged at INFO, so ``-v`` shows why keys look different).
    """
    everything = list(items)
    # Standalone PDFs (item type "attachment") have no citekey; asking Better BibTeX about
    # them could fail the whole batch.
    items = [it for it in everything if it.item_type != "attachment"]
    live: dict[str, str] = {}
    if bbt is not None and items:
        try:
            live = bbt.citation_keys([it.bbt_ref for it in items])
        except ZoteroUnavailable as exc:
            log.info("citekeys: %s; using stored keys", exc.message)
    stored = bbt_db if isinstance(bbt_db, BbtKeys) else None
    if isinstance(bbt_db, Path):
        try:
            stored = read_bbt_citekeys(bbt_db)
        except ZoteroUnavailable as exc:
            log.info("citekeys: %s", exc.message)
    for it in items:
        for source, key in (("bbt", live.get(it.bbt_ref)),
                            ("native", it.native_citekey),
                            ("bbt-db", stored.lookup(it) if stored else None),
                            ("extra", extra_citekey(it.extra))):
            if key:
                it.citekey, it.citekey_source = key, source
                break
        else:
            it.citekey, it.citekey_source = None, None
    return everything


def read_bbt_citekeys(db: Path) -> BbtKeys:
    """Citekeys from ``better-bibtex.sqlite``: table ``citationkey`` (BBT 6+), or the older
    ``"better-bibtex"`` table whose ``better-bibtex.citekey`` row holds LokiJS JSON."""

    def read(conn: sqlite3.Connection) -> BbtKeys:
        keys = BbtKeys()
        if table(conn, "citationkey"):
            for item_id, item_key, lib_id, citekey in conn.execute(
                    "SELECT itemID, itemKey, libraryID, citationKey FROM citationkey"):
                if citekey:
                    keys.by_key[(lib_id, item_key)] = citekey
                    keys.by_id[item_id] = citekey
        elif table(conn, "better-bibtex"):
            row = conn.execute("SELECT data FROM \"better-bibtex\" "
                               "WHERE name = 'better-bibtex.citekey'").fetchone()
            for rec in _loki_records(row[0] if row else None):
                citekey = rec.get("citekey") or rec.get("citationKey")
                if not citekey:
                    continue
                if rec.get("itemKey"):
                    keys.by_key[(rec.get("libraryID"), rec["itemKey"])] = citekey
                if isinstance(rec.get("itemID"), int):
                    keys.by_id[rec["itemID"]] = citekey
        return keys

    return read_database(db, read)


def _loki_records(data: Any) -> list[dict[str, Any]]:
    """The documents of a LokiJS collection dump (``{"data": [...]}``)."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return []
    if isinstance(data, dict):
        data = data.get("data", [])
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []
