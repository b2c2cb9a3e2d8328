"""Export files in (Better BibTeX JSON, CSL-JSON), citations out (BibTeX, CSL-JSON), the
index payload, OCR languages, and reader configuration."""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import pytest

from citeloom.errors import ConfigError, InvalidInput
from citeloom.zotero import (
    Creator,
    ExportFileReader,
    LocalApiReader,
    SqliteReader,
    WebApiReader,
    item_payload,
    make_reader,
    normalise_doi,
    ocr_languages,
    to_bibtex,
    to_csl_json,
)
from citeloom.zotero.base import make_item

ZOTERO = Path(__file__).resolve().parents[2].parent / "shared" / "zotero"
EXPORTS = ZOTERO / "bbt" / "exports"
PARTICLES = EXPORTS / "bbt313_particles.bbtjson.json"


def bib_keys(path: Path) -> list[str]:
    """Entry keys of a .bib file: the ``@type{key,`` lines (not @preamble/@string)."""
    return [k for t, k in re.findall(r"^@(\w+)\{([^,\s]+),", path.read_text(), re.M)
            if t.lower() not in ("preamble", "string", "comment")]


# --- c) citekey round trip ---------------------------------------------------------------


def test_bbt313_pinned_citekeys_come_out_unchanged_and_match_the_bib() -> None:
    raw = json.loads(PARTICLES.read_text())["items"]
    pinned = {i["itemID"]: i["citationKey"] for i in raw if i.get("citationKey")}
    assert len(pinned) == 50

    items = list(ExportFileReader(PARTICLES).items())
    assert len(items) == len(raw) == 53
    got = {it.item_id: it.citekey for it in items if it.citekey}
    assert got == pinned  # same keys on the same items, byte for byte
    assert {it.citekey_source for it in items if it.citekey} == {"native"}

    keys = bib_keys(EXPORTS / "bbt313_particles.biblatex.bib")
    assert len(keys) == len(set(keys)) == 53
    assert set(pinned.values()) <= set(keys)
    # The three unpinned items got generated keys in the .bib; we do not invent any.
    assert sum(1 for it in items if it.citekey is None) == 3


def test_bbt_json_fields_creators_and_extra() -> None:
    items = {it.item_id: it for it in ExportFileReader(PARTICLES).items()}
    king = items[28]
    assert king.title.startswith('"I have a dream"') and king.year == 1968
    assert king.creators == [Creator(first="Martin Luther, Jr.", last="King")]
    assert king.authors == ["King, Martin Luther, Jr."]
    with_extra = next(it for it in items.values() if it.extra)
    assert with_extra.extra == "relies on paricleParser fallback detection"  # list → text


def test_bbt_json_collections_and_subcollections() -> None:
    doc = json.loads((EXPORTS / "bbt901_collections.bbtjson.json").read_text())
    cols = doc["collections"]

    def under(key: str) -> set[int]:  # walks child lists, not the reader's parent links
        return set(cols[key]["items"]).union(*(under(c) for c in cols[key]["collections"]))

    reader = ExportFileReader(EXPORTS / "bbt901_collections.bbtjson.json")
    assert len(reader.collections()) == len(cols) == 120
    fm_all = {it.item_id for it in reader.items(collection="FM", include_subcollections=True)}
    assert fm_all == under("coll:00000") and len(fm_all) > 5
    assert {it.item_id for it in reader.items(collection="FM")} == set(cols["coll:00000"]["items"])
    nested = {it.item_id for it in reader.items(collection="Sciences conceptuelles",
                                                include_subcollections=True)}
    assert nested == under("coll:00003")
    with pytest.raises(InvalidInput, match="ambiguous"):
        list(reader.items(collection="Histoire"))
    path = "FM/Sciences factuelles/Sciences sociales/Histoire"
    assert {it.item_id for it in reader.items(collection=path)} == set(
        cols["coll:00015"]["items"])


def test_csl_json_export() -> None:
    raw = json.loads((EXPORTS / "bbt1179_csl.csl.json").read_text())
    items = list(ExportFileReader(EXPORTS / "bbt1179_csl.csl.json").items())
    assert [it.citekey for it in items] == [d["citation-key"] for d in raw]
    first = items[0]
    assert first.authors == ["Brittain, Ian"] and first.year == 2004
    assert first.item_type == "journalArticle" and first.language == "en"
    # DOI field is the short form 10/fqd6hj; the doi.org URL carries the full DOI.
    assert first.doi == "10.1177/0193723504268729"
    assert {it.year for it in items} >= {2004, 2014, 2016, 2019}
    literal = [it for it in items if any(c.name for c in it.creators)]
    assert literal, "institutional (literal) authors are kept as single names"


# --- citations out -----------------------------------------------------------------------


def test_to_bibtex_parses_back_with_keys_and_fields() -> None:
    items = [it for it in ExportFileReader(PARTICLES).items() if it.citekey]
    odd = make_item("ODDKEY01", "bookSection", {
        "title": "Sets {and} 100% of $x_1$ & #tags ~ ^", "date": "2001-03-04",
        "bookTitle": "Collected", "pages": "10-20", "DOI": "https://doi.org/10.1000/XYZ"},
        creators=[Creator(first="Ann", last="Lee"), Creator(name="ACME {Labs}"),
                  Creator(first="Ed", last="Itor", creator_type="editor")])
    odd.citekey = "lee, 2001"  # a key BibTeX could not parse must be cleaned
    text = to_bibtex([*items, odd])
    db = bibtexparser.loads(text)
    assert len(db.entries) == len(items) + 1
    assert [e["ID"] for e in db.entries[:-1]] == [it.citekey for it in items]
    entry = db.entries[-1]
    assert entry["ID"] == "lee2001" and entry["ENTRYTYPE"] == "incollection"
    assert entry["title"] == r"Sets \{and\} 100\% of \$x\_1\$ \& \#tags \textasciitilde{} " \
                             r"\textasciicircum{}"
    assert entry["author"] == r"Lee, Ann and {ACME \{Labs\}}"
    assert entry["editor"] == "Itor, Ed"
    assert entry["year"] == "2001" and entry["pages"] == "10--20"
    assert entry["booktitle"] == "Collected" and entry["doi"] == "10.1000/xyz"


def test_to_csl_json_round_trips_through_the_reader(tmp_path: Path) -> None:
    source = list(SqliteReader(ZOTERO / "sqlite" / "arreme-ProgrammingAndMathsZoteroResources")
                  .items())
    out = tmp_path / "lib.csl.json"
    out.write_text(json.dumps(to_csl_json(source)))
    back = list(ExportFileReader(out).items())
    assert len(back) == len(source) == 204
    for a, b in zip(source, back, strict=True):
        assert (b.citekey, b.title, b.year, b.doi, b.url) == (a.citekey, a.title, a.year,
                                                              a.doi, a.url)
        assert b.authors == a.authors
        assert sorted(b.tags) == sorted(a.tags)


# --- payload, OCR languages, configuration -------------------------------------------------


def test_item_payload_fields() -> None:
    it = make_item("ABCD1234", "journalArticle", {
        "title": "A Paper", "date": "March 2019", "DOI": "DOI: 10.1234/ABC.5.",
        "url": "https://example.org/p", "language": "de-DE", "citationKey": "doe2019"},
        creators=[Creator(first="Jane", last="Doe"), Creator(name="The Consortium"),
                  Creator(first="Ed", last="Itor", creator_type="editor")],
        tags=["b", "a", "a"], collections=["Thesis"], collection_keys=["COLL0001"])
    it.citekey = it.native_citekey
    assert item_payload(it) == {
        "citekey": "doe2019", "title": "A Paper", "authors": ["Doe, Jane", "The Consortium"],
        "year": 2019, "doi": "10.1234/abc.5", "url": "https://example.org/p",
        "tags": ["a", "b"], "collections": ["Thesis"], "zotero_key": "ABCD1234",
        "zotero_library": "library", "language": "de-DE"}


@pytest.mark.parametrize(("raw", "expected"), [
    ("https://doi.org/10.1186/1752-2897-4-1", "10.1186/1752-2897-4-1"),
    ("doi:10.1155/2010/157939.", "10.1155/2010/157939"),
    ("10/fqd6hj", "10/fqd6hj"),  # short DOI: kept, cannot be expanded offline
    # A closing bracket that closes one of the DOI's own stays; an unbalanced one goes.
    ("10.1002/(SICI)1097-0258(19980815/30)17:15/16<1661::AID-SIM968>3.0.CO;2-2)",
     "10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2"),
    ("(see 10.1000/abc(1))", None),
    ("  http://dx.doi.org/10.1017/S1041610213001804), ", "10.1017/s1041610213001804"),
    ("", None), ("not a doi", None),
])
def test_normalise_doi(raw: str, expected: str | None) -> None:
    assert normalise_doi(raw) == expected


@pytest.mark.parametrize(("language", "codes"), [
    ("en-US", ["eng"]), ("de", ["deu"]), ("German", ["deu"]), ("fr-FR", ["fra"]),
    ("français", ["fra"]), ("Anglais", ["eng"]), ("Deutsch; English", ["deu", "eng"]),
    ("es", ["spa"]), ("it_IT", ["ita"]), ("pt-BR", ["por"]), ("nl", ["nld"]),
    ("zh-Hant-TW", ["chi_tra"]), ("zh-CN", ["chi_sim"]), ("ger", ["deu"]), ("deu", ["deu"]),
    (None, ["eng", "deu"]), ("", ["eng", "deu"]), ("Klingon", ["eng", "deu"]),
])
def test_ocr_languages(language: str | None, codes: list[str]) -> None:
    assert ocr_languages(language) == codes


def test_zotero_settings_from_env_and_make_reader(tmp_path: Path) -> None:
    from citeloom.config import ZoteroSettings

    env_reader_config = ZoteroSettings.from_env
    secret = "EnvKeyEnvKeyEnvKey12345"
    cfg = env_reader_config({"ZOTERO_LIBRARY_ID": "475425", "ZOTERO_LIBRARY_TYPE": "Group",
                             "ZOTERO_API_KEY": secret, "BBT_PORT": "24119"})
    assert (cfg.source, cfg.library_id, cfg.library_type, cfg.bbt_port) == (
        "web", "475425", "group", 24119)
    assert secret not in repr(cfg) and secret not in str(cfg)
    reader = make_reader(**{**cfg.kwargs(), "use_bbt": False})
    assert isinstance(reader, WebApiReader) and secret not in repr(vars(reader).get("label"))

    local = env_reader_config({"ZOTERO_LOCAL": "true", "ZOTERO_LIBRARY_ID": "1"})
    assert local.source == "local" and isinstance(make_reader(**local.kwargs()), LocalApiReader)
    db = env_reader_config({"ZOTERO_DATA_DIR": str(tmp_path)})
    assert db.source == "sqlite" and db.data_dir == tmp_path
    assert make_reader(**db.kwargs()).data_dir == tmp_path  # type: ignore[attr-defined]
    assert env_reader_config({}).source == "sqlite"
    with pytest.raises(ConfigError):
        env_reader_config({"BBT_PORT": "zotero"})
    with pytest.raises(ConfigError):
        env_reader_config({"ZOTERO_LIBRARY_ID": "1", "ZOTERO_LIBRARY_TYPE": "team"})
    with pytest.raises(ConfigError):
        make_reader("web")
    with pytest.raises(ConfigError):
        make_reader("file")
    assert isinstance(make_reader("file", export_path=PARTICLES), ExportFileReader)
    assert ZoteroSettings().source == "sqlite" and not ZoteroSettings().configured
