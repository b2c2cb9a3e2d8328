"""WebApiReader and LocalApiReader through pyzotero, against recorded Web API responses.

pyzotero talks httpx2 (not httpx); its ``Zotero(client=...)`` takes an ``httpx2.Client``,
so the fake server is an ``httpx2.MockTransport`` serving ../shared/zotero/web_api_responses
with the headers the real API sends (Total-Results, Link, Retry-After, Backoff).
"""

from __future__ import annotations

import copy
import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import httpx2
import pytest

from citeloom.errors import SourceNotFound, ZoteroUnavailable
from citeloom.zotero import LocalApiReader, WebApiReader

RESPONSES = Path(__file__).resolve().parents[2].parent / "shared" / "zotero" / "web_api_responses"
ITEMS = json.loads((RESPONSES / "items_doc.json").read_text())
COLLECTIONS = json.loads((RESPONSES / "collections_doc.json").read_text())
ATTACHMENT = json.loads((RESPONSES / "attachments_doc.json").read_text())
USER = "475425"
GOOD_KEY = "s3cretKEYs3cretKEY123456"
PDF_BYTES = b"%PDF-1.4\n% a small stand-in for a stored paper\n"


class FakeZotero:
    """Just enough of api.zotero.org (or the local API) to read a library."""

    def __init__(self, prefix: str = f"/users/{USER}", page_size: int = 7,
                 api_key: str | None = GOOD_KEY, paginate: bool = True) -> None:
        self.prefix = prefix
        self.page_size = page_size
        self.api_key = api_key
        self.paginate = paginate
        self.requests: list[httpx2.Request] = []
        self.before: Callable[[httpx2.Request], httpx2.Response | None] | None = None
        # The recorded attachment, re-parented to an item of this library (it was recorded
        # from another user's), plus a child note that must not become an attachment.
        att = copy.deepcopy(ATTACHMENT)
        att["data"]["parentItem"] = "PQKBRC33"
        att["data"]["linkMode"] = "imported_file"
        att["data"]["contentType"] = "application/pdf"
        att["data"]["filename"] = "paper.pdf"
        note = {"key": "NOTE0001", "data": {"key": "NOTE0001", "itemType": "note",
                                            "parentItem": "PQKBRC33", "note": "<p>x</p>"}}
        self.children = {"PQKBRC33": [att, note]}
        self.top_extra: list[dict] = []  # more top-level records, after the recorded items
        self.file_location: str | None = None

    def client(self) -> httpx2.Client:
        return httpx2.Client(transport=httpx2.MockTransport(self.handle))

    def calls(self, suffix: str) -> list[httpx2.Request]:
        """Requests to ``prefix + suffix`` (suffix may start mid-path: "/children")."""
        return [r for r in self.requests if r.url.path.endswith(suffix)]

    def top_pages(self) -> list[httpx2.Request]:
        return [r for r in self.requests
                if r.url.path.removeprefix("/api") == f"{self.prefix}/items/top"]

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        if self.before is not None:
            early = self.before(request)
            if early is not None:
                return early
        if self.api_key and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return httpx2.Response(403, text="Invalid key",
                                   headers={"Content-Type": "text/plain"})
        path = request.url.path.removeprefix("/api")
        assert path.startswith(self.prefix), path
        rest = path[len(self.prefix):]
        params = parse_qs(request.url.query.decode())
        if rest == "/items/top":
            return self.page(request, ITEMS + self.top_extra, params)
        if rest == "/collections":
            return self.page(request, COLLECTIONS, params)
        if rest.startswith("/collections/") and rest.endswith("/items/top"):
            key = rest.split("/")[2]
            return self.page(request, [i for i in ITEMS + self.top_extra
                                       if key in i["data"]["collections"]], params)
        if rest.startswith("/items/") and rest.endswith("/children"):
            return self.page(request, self.children.get(rest.split("/")[2], []), params)
        if rest.startswith("/items/") and rest.endswith("/file"):
            if self.file_location:
                return httpx2.Response(302, headers={"Location": self.file_location})
            return httpx2.Response(200, content=PDF_BYTES,
                                   headers={"Content-Type": "application/pdf"})
        return httpx2.Response(404, text="Not found", headers={"Content-Type": "text/plain"})

    def page(self, request: httpx2.Request, records: list, params: dict) -> httpx2.Response:
        headers = {"Content-Type": "application/json", "Total-Results": str(len(records)),
                   "Last-Modified-Version": "1234"}
        if not self.paginate:
            return httpx2.Response(200, json=records, headers=headers)
        start = int(params.get("start", ["0"])[0])
        limit = min(int(params.get("limit", ["25"])[0]), self.page_size)  # server's cap
        links = []
        base = str(request.url.copy_with(query=None))
        if start + limit < len(records):
            links.append(f'<{base}?{urlencode({"start": start + limit, "limit": limit})}>; '
                         'rel="next"')
            last = (len(records) - 1) // limit * limit
            links.append(f'<{base}?{urlencode({"start": last, "limit": limit})}>; rel="last"')
        if links:
            headers["Link"] = ", ".join(links)
        return httpx2.Response(200, json=records[start:start + limit], headers=headers)


@pytest.fixture
def server() -> FakeZotero:
    return FakeZotero()


class FakeClock:
    """Stands in for the ``time`` module inside pyzotero's client: sleeping records the
    wait and moves the clock on, so a backoff expires exactly as it would for real."""

    def __init__(self) -> None:
        self.now = time.time()
        self.waits: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait pyzotero makes, in seconds (nothing really sleeps)."""
    import pyzotero._client

    clock = FakeClock()
    monkeypatch.setattr(pyzotero._client, "time", clock)
    return clock.waits


def web_reader(server: FakeZotero, key: str = GOOD_KEY, **kw: object) -> WebApiReader:
    return WebApiReader(USER, "user", key, client=server.client(), **kw)


# --- b) paging, creators, children, rate limits ---------------------------------------


def test_paging_follows_link_headers_across_pages(server: FakeZotero) -> None:
    items = list(web_reader(server).items())
    assert [it.key for it in items] == [r["key"] for r in ITEMS]
    pages = server.top_pages()
    assert len(pages) == 3  # 20 items at the server's 7 per page
    starts = [parse_qs(r.url.query.decode()).get("start", ["0"])[0] for r in pages]
    assert starts == ["0", "7", "14"]
    assert all(r.headers["authorization"] == f"Bearer {GOOD_KEY}" for r in server.requests)


def test_creators_in_both_forms_and_item_fields(server: FakeZotero) -> None:
    items = {it.key: it for it in web_reader(server).items()}
    book = items["X42A7DEE"]
    assert book.creators[0].name == "Institute of Physics (Great Britain)"
    assert (book.creators[1].first, book.creators[1].last) == ("A. J", "Craven")
    assert book.creators[1].creator_type == "contributor"
    assert book.authors == ["Institute of Physics (Great Britain)"]  # contributors aren't
    assert book.year == 1993 and book.tags == sorted(
        ["Analysis", "Congresses", "Electron microscopy", "Materials", "Microscopy"])
    assert sorted(book.collections) == ["Sciences (miscellaneous)", "Sherlock Holmes"]
    article = items["PQKBRC33"]
    assert article.doi == "10.2307/2321200" and article.year == 1980
    assert article.authors == [c.display for c in article.creators] != []
    assert items["33TK9NH9"].doi == "10.1126/science.1195912"
    assert items["33TK9NH9"].year == 2011  # from meta.parsedDate; the date is "January 07 , 2011"


def test_child_attachments_only_asked_for_items_with_children(server: FakeZotero) -> None:
    items = {it.key: it for it in web_reader(server).items()}
    with_children = {r["key"] for r in ITEMS if r["meta"].get("numChildren")}
    asked = {r.url.path.split("/")[-2] for r in server.calls("/children")}
    assert asked == with_children and len(asked) < len(ITEMS)
    (att,) = items["PQKBRC33"].attachments  # the child note is not an attachment
    assert att.key == "TM8QRS36" and att.parent_key == "PQKBRC33"
    assert att.md5 == "80893b449d89a94722a04190d4330008" and att.mtime == 1326311686000
    assert att.filename == "paper.pdf" and att.is_pdf and att.exists is False
    assert items["X42A7DEE"].attachments == []


def test_standalone_pdf_is_an_item_of_its_own(server: FakeZotero, tmp_path: Path) -> None:
    """A PDF added without a parent: the recorded attachment, un-parented, in a collection;
    a standalone web snapshot beside it is not an item (nothing to index)."""
    pdf = copy.deepcopy(ATTACHMENT)
    del pdf["data"]["parentItem"]
    pdf["links"].pop("up")
    pdf["data"].update(linkMode="imported_file", contentType="application/pdf",
                       filename="Smith 2020.pdf", title="Smith 2020.pdf",
                       collections=["N7W92H48"], tags=[{"tag": "unread"}])
    snapshot = copy.deepcopy(pdf)
    snapshot["key"] = snapshot["data"]["key"] = "HTMLSNAP"
    snapshot["data"].update(contentType="text/html", filename="page.html")
    server.top_extra = [pdf, snapshot]
    items = {it.key: it for it in web_reader(server, data_dir=tmp_path).items()}
    assert "HTMLSNAP" not in items
    loose = items["TM8QRS36"]
    assert loose.item_type == "attachment" and loose.citekey is None
    assert loose.title == ""  # the file name is no title; the PDF's own is used
    assert loose.collections == ["LoC"] and loose.tags == ["unread"]
    assert loose.library_path == "library"
    (att,) = loose.attachments
    assert att.key == "TM8QRS36" and att.parent_key is None and att.is_pdf
    assert att.path == tmp_path / "storage" / "TM8QRS36" / "Smith 2020.pdf"
    assert not server.calls("/items/TM8QRS36/children")
    in_loc = web_reader(server).items(collection="LoC")
    assert "TM8QRS36" in {it.key for it in in_loc}


def test_fetch_attachment_downloads_through_pyzotero(server: FakeZotero, tmp_path: Path) -> None:
    reader = web_reader(server)
    att = next(it for it in reader.items() if it.key == "PQKBRC33").attachments[0]
    path = reader.fetch_attachment(att, tmp_path)
    assert path == tmp_path / "TM8QRS36" / "paper.pdf"
    assert path.read_bytes() == PDF_BYTES
    assert server.calls("/items/TM8QRS36/file")


def test_fetch_attachment_prefers_a_synced_local_copy(server: FakeZotero, tmp_path: Path) -> None:
    stored = tmp_path / "Zotero" / "storage" / "TM8QRS36" / "paper.pdf"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"%PDF local")
    reader = web_reader(server, data_dir=tmp_path / "Zotero")
    att = next(it for it in reader.items() if it.key == "PQKBRC33").attachments[0]
    assert att.exists and reader.fetch_attachment(att, tmp_path / "dl") == stored
    assert not server.calls("/file")


def test_429_retry_after_is_waited_out(server: FakeZotero, sleeps: list[float]) -> None:
    refused: list[str] = []

    def first_request_throttled(request: httpx2.Request) -> httpx2.Response | None:
        if not refused and request.url.path.endswith("/items/top"):
            refused.append(str(request.url))
            return httpx2.Response(429, text="Too many requests",
                                   headers={"Retry-After": "3", "Content-Type": "text/plain"})
        return None

    server.before = first_request_throttled
    items = list(web_reader(server).items())
    assert len(items) == 20 and len(refused) == 1
    assert sleeps == [3.0]  # the server's Retry-After, waited once
    assert len(server.top_pages()) == 4  # the refused page was asked again


def test_backoff_header_delays_the_next_request(server: FakeZotero, sleeps: list[float]) -> None:
    def backoff_on_collections(request: httpx2.Request) -> httpx2.Response | None:
        if request.url.path.endswith("/collections"):
            return httpx2.Response(200, json=COLLECTIONS,
                                   headers={"Content-Type": "application/json", "Backoff": "5"})
        return None

    server.before = backoff_on_collections
    reader = web_reader(server)
    reader.collections()
    assert sleeps == []
    list(reader.items())
    assert sleeps == [5.0]


def test_persistent_429_becomes_zotero_unavailable(server: FakeZotero,
                                                   sleeps: list[float]) -> None:
    server.before = lambda r: httpx2.Response(429, text="slow down",
                                              headers={"Retry-After": "2"})
    with pytest.raises(ZoteroUnavailable) as err:
        list(web_reader(server).items())
    assert "429" in err.value.message and "wait" in err.value.hint
    assert sleeps == [2.0, 2.0]  # pyzotero's three attempts, two waits between them


def test_collection_filter_uses_collection_endpoint(server: FakeZotero) -> None:
    reader = web_reader(server)
    sciences = {it.key for it in reader.items(collection="Sciences (miscellaneous)")}
    assert sciences == {r["key"] for r in ITEMS if "BX9965IJ" in r["data"]["collections"]}
    assert len(sciences) == 12 and not server.top_pages()
    nested = {it.key for it in reader.items(collection="Non-English items",
                                            include_subcollections=True)}
    expected = {r["key"] for r in ITEMS
                if {"QM6T3KHX", "TVPC4XK4"} & set(r["data"]["collections"])}
    assert nested == expected and nested
    assert server.calls("/collections/TVPC4XK4/items/top")


# --- d) refusals and unreachable servers -------------------------------------------------


def test_bad_api_key_gives_zotero_unavailable_without_the_key(server: FakeZotero) -> None:
    wrong = "WRONGkeyWRONGkeyWRONG123"
    with pytest.raises(ZoteroUnavailable) as err:
        list(web_reader(server, key=wrong).items())
    e = err.value
    assert e.code == "ZOTERO_UNAVAILABLE"
    assert "refused" in e.message and "zotero.org/settings/keys" in e.hint
    assert wrong not in str(e) and wrong not in repr(e.to_dict())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_local_api_unreachable_gives_zotero_unavailable() -> None:
    port = free_port()  # bound then released: nothing listens there
    with pytest.raises(ZoteroUnavailable) as err:
        list(LocalApiReader(port).items())
    assert f"port {port}" in err.value.message
    assert "start Zotero" in err.value.hint


def test_local_api_disabled_403_gives_the_settings_hint() -> None:
    fake = FakeZotero(prefix="/users/0", api_key=None)
    fake.before = lambda r: httpx2.Response(403, text="Local API is not enabled",
                                            headers={"Content-Type": "text/plain"})
    with pytest.raises(ZoteroUnavailable) as err:
        LocalApiReader(client=fake.client()).collections()
    assert "not enabled" in err.value.message
    assert "Allow other applications on this computer to communicate with Zotero" in \
        err.value.hint
    assert str(fake.requests[0].url).startswith("http://127.0.0.1:23119/api/users/0/")


def test_local_api_reads_unpaginated_and_uses_files_in_place(tmp_path: Path) -> None:
    fake = FakeZotero(prefix="/users/0", api_key=None, paginate=False)
    stored = tmp_path / "storage" / "TM8QRS36" / "paper one.pdf"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(PDF_BYTES)
    fake.file_location = stored.as_uri()  # Zotero answers /file with a file:// redirect
    reader = LocalApiReader(client=fake.client(), data_dir=tmp_path / "elsewhere")
    items = {it.key: it for it in reader.items()}
    assert len(items) == 20 and len(fake.top_pages()) == 1
    att = items["PQKBRC33"].attachments[0]
    assert not att.exists  # not under this data_dir: the local API must say where it is
    assert reader.fetch_attachment(att, tmp_path / "dl") == stored
    assert not (tmp_path / "dl").exists()  # used in place, never copied

    fake.file_location = (tmp_path / "missing.pdf").as_uri()
    with pytest.raises(SourceNotFound):
        reader.fetch_attachment(att, tmp_path / "dl")
