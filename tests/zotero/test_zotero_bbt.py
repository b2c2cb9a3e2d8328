"""Better BibTeX JSON-RPC (served by an httpx mock shaped as json-rpc.methods.md documents)
and the citekey order: JSON-RPC, native field, better-bibtex.sqlite, ``extra``."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from citeloom.errors import ZoteroUnavailable
from citeloom.zotero import (
    BetterBibTeX,
    BetterBibTeXError,
    SqliteReader,
    extra_citekey,
    resolve_citekeys,
)
from citeloom.zotero.base import make_item

ZOTERO = Path(__file__).resolve().parents[2].parent / "shared" / "zotero"
ARREME = ZOTERO / "sqlite" / "arreme-ProgrammingAndMathsZoteroResources"


class FakeBBT:
    """``POST /better-bibtex/json-rpc`` answering from a table of citekeys."""

    def __init__(self, keys: dict[str, str] | None = None, status: int = 200) -> None:
        self.keys = keys or {}
        self.status = status
        self.bodies: list[dict] = []
        self.error: dict | None = None

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and request.url.path == "/better-bibtex/json-rpc"
        body = json.loads(request.content)
        self.bodies.append(body)
        if self.status == 404:
            return httpx.Response(404, text="No endpoint found")
        reply: dict = {"jsonrpc": "2.0", "id": body["id"]}
        if self.error is not None:
            reply["error"] = self.error  # errors come back with HTTP 200
        elif body["method"] == "item.citationkey":
            (refs,) = body["params"]
            reply["result"] = {r: self.keys.get(r) for r in refs}
        elif body["method"] == "item.export":
            citekeys, translator = body["params"][:2]
            reply["result"] = "".join(f"@article{{{k},\n  title = {{{translator}}}\n}}\n"
                                      for k in citekeys)
        elif body["method"] == "api.ready":
            reply["result"] = {"betterbibtex": "7.0.5", "zotero": "7.0.15"}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        return httpx.Response(self.status, json=reply)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def item(key: str, citation_key: str = "", extra: str = "", library_id: int = 1):
    fields = {"title": f"Title {key}", "citationKey": citation_key, "extra": extra}
    return make_item(key, "journalArticle", fields, library_id=library_id)


def test_citation_keys_request_and_answer_shapes() -> None:
    fake = FakeBBT({"AAAA1111": "smith2020", "2:BBBB2222": "groupKey"})
    bbt = BetterBibTeX(transport=fake.transport())
    assert bbt.url == "http://127.0.0.1:23119/better-bibtex/json-rpc"
    got = bbt.citation_keys(["AAAA1111", "2:BBBB2222", "CCCC3333"])
    assert got == {"AAAA1111": "smith2020", "2:BBBB2222": "groupKey"}  # null left out
    (body,) = fake.bodies
    assert body["jsonrpc"] == "2.0" and body["method"] == "item.citationkey"
    assert body["params"] == [["AAAA1111", "2:BBBB2222", "CCCC3333"]]
    assert bbt.ready()


def test_order_rpc_then_native_then_database_then_extra() -> None:
    from citeloom.zotero import BbtKeys

    items = [item("AAAA1111", citation_key="nativeA"),
             item("BBBB2222", citation_key="nativeB"),
             item("CCCC3333"),
             item("DDDD4444", extra="Citation Key: pinnedD\ntex.x: y"),
             item("EEEE5555", extra="nothing here")]
    fake = FakeBBT({"AAAA1111": "liveA"})
    stored = BbtKeys(by_key={(1, "BBBB2222"): "dbB", (1, "CCCC3333"): "dbC"})
    resolve_citekeys(items, bbt=BetterBibTeX(transport=fake.transport()), bbt_db=stored)
    assert [(it.citekey, it.citekey_source) for it in items] == [
        ("liveA", "bbt"), ("nativeB", "native"), ("dbC", "bbt-db"),
        ("pinnedD", "extra"), (None, None)]


def test_error_object_with_http_200_falls_back_to_next_source() -> None:
    fake = FakeBBT({"AAAA1111": "liveA"})
    fake.error = {"code": -32602, "message": "duplicate keys"}
    bbt = BetterBibTeX(transport=fake.transport())
    with pytest.raises(BetterBibTeXError) as err:
        bbt.citation_keys(["AAAA1111"])
    assert err.value.rpc_code == -32602 and "duplicate keys" in err.value.message
    assert err.value.code == "ZOTERO_UNAVAILABLE"

    items = resolve_citekeys([item("AAAA1111", citation_key="nativeA")], bbt=bbt)
    assert (items[0].citekey, items[0].citekey_source) == ("nativeA", "native")


def test_not_answering_falls_back_and_is_not_asked_again_at_once() -> None:
    port = free_port()
    bbt = BetterBibTeX(port=port)
    with pytest.raises(ZoteroUnavailable) as err:
        bbt.citation_keys(["AAAA1111"])
    assert f"127.0.0.1:{port}" in err.value.message and "Better BibTeX" in err.value.hint
    assert not bbt.ready()

    items = resolve_citekeys([item("AAAA1111", extra="Citation Key: fromExtra")], bbt=bbt)
    assert (items[0].citekey, items[0].citekey_source) == ("fromExtra", "extra")

    attempts: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts.append(request)
        raise httpx.ConnectError("connection refused", request=request)

    quiet = BetterBibTeX(transport=httpx.MockTransport(refuse))
    for _ in range(3):
        resolve_citekeys([item("AAAA1111")], bbt=quiet)
    assert len(attempts) == 1  # one refused connection, then silence for a minute


def test_zotero_without_better_bibtex_404() -> None:
    bbt = BetterBibTeX(transport=FakeBBT(status=404).transport())
    with pytest.raises(ZoteroUnavailable) as err:
        bbt.call("api.ready", [])
    assert "no Better BibTeX endpoint" in err.value.message
    assert "install the Better BibTeX" in err.value.hint


def test_export_via_json_rpc_and_the_old_double_wrapped_answer() -> None:
    fake = FakeBBT()
    bbt = BetterBibTeX(transport=fake.transport())
    text = bbt.export(["a2020", "b2021"], "Better BibLaTeX")
    assert text.count("@article{") == 2 and "{Better BibLaTeX}" in text
    assert fake.bodies[-1]["params"] == [["a2020", "b2021"], "Better BibLaTeX"]

    def legacy(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"],
                                         "result": [200, "text/plain", "@book{x,\n}\n"]})

    assert BetterBibTeX(transport=httpx.MockTransport(legacy)).export(["x"]) == "@book{x,\n}\n"
    fake.error = {"code": -32602, "message": "citekeys not found: zz"}
    with pytest.raises(BetterBibTeXError, match="not found"):
        bbt.export(["zz"])


def test_sqlite_reader_takes_live_keys_first() -> None:
    live = {"5J5FXIK9": "liveStroustrup"}
    reader = SqliteReader(ARREME, bbt=BetterBibTeX(transport=FakeBBT(live).transport()))
    items = {it.key: it for it in reader.items()}
    assert (items["5J5FXIK9"].citekey, items["5J5FXIK9"].citekey_source) == (
        "liveStroustrup", "bbt")
    others = [it for k, it in items.items() if k != "5J5FXIK9"]
    assert len(others) == 203 and all(it.citekey_source == "bbt-db" for it in others)


def test_extra_citekey_forms() -> None:
    assert extra_citekey("Citation Key: smith2020") == "smith2020"
    assert extra_citekey("PMID: 1\ncitation key:  lower_case \n") == "lower_case"
    assert extra_citekey("bibtex: legacyPinned") == "legacyPinned"
    assert extra_citekey("tex.citation key: no") is None
    assert extra_citekey("") is None and extra_citekey(None) is None


def test_group_items_are_named_by_local_library_id() -> None:
    from_db = make_item("GGGG1111", "book", {}, library_id=2, library_type="group", item_id=7)
    from_web = make_item("GGGG1111", "book", {}, library_id=169947, library_type="group")
    mine = make_item("MMMM1111", "book", {}, library_id=1, library_type="user", item_id=8)
    assert (from_db.bbt_ref, from_web.bbt_ref, mine.bbt_ref) == (
        "2:GGGG1111", "GGGG1111", "MMMM1111")
    fake = FakeBBT({"2:GGGG1111": "groupKey"})
    resolve_citekeys([from_db], bbt=BetterBibTeX(transport=fake.transport()))
    assert from_db.citekey == "groupKey" and fake.bodies[0]["params"] == [["2:GGGG1111"]]
