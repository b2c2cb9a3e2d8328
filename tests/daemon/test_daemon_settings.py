"""Issue #31: a running daemon never serves a command with settings the command did not
ask for, and `validate` sees through it. Real daemon processes, real CLI processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeloom.daemon import agree
from citeloom.errors import CODES

from .test_daemon import FIXTURE_PDFS, _alive, _pid, cli, lib  # noqa: F401 - lib is a fixture

PDF = FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"  # one page


def _config(world: dict[str, Any], name: str, extra: str) -> Path:
    """A config beside the fixture's: the same data and models, plus ``extra``."""
    path = world["root"] / name
    base = Path(world["env"]["CITELOOM_CONFIG"]).read_text()
    path.write_text(base + extra)
    return path


def _error(proc: Any) -> dict[str, Any]:
    assert proc.returncode != 0, proc.stdout
    return json.loads(proc.stdout)["error"]


def test_a_command_with_other_settings_is_refused_then_applied(
        lib: dict[str, Any]) -> None:  # noqa: F811
    a = _config(lib, "a.toml", "[projects.lock]\nchunk_max_tokens = 256\n")
    b = _config(lib, "b.toml", "[projects.lock]\nchunk_max_tokens = 128\n")
    docs = lib["root"] / "docs"
    docs.mkdir()
    (docs / PDF.name).write_bytes(PDF.read_bytes())
    first = cli(lib, "--config", str(a), "ingest", str(docs), "-p", "lock", "--json")
    assert first.returncode == 0, first.stderr
    pid = _pid(lib["data"])
    assert pid and _alive(pid)

    other = lib["root"] / "other.pdf"
    other.write_bytes(PDF.read_bytes())
    refused = _error(cli(lib, "--config", str(b), "ingest", str(other), "-p", "lock", "--json"))
    assert refused["code"] == "DAEMON_SETTINGS_DIFFER" and refused["code"] in CODES
    # It names the setting, both values and the daemon's file, and says what to do.
    assert "projects.lock.chunk_max_tokens: 128 here, 256 in the daemon" in refused["message"]
    assert str(a) in refused["message"] and "daemon stop" in refused["hint"]

    # The dense model and the Zotero location: the same refusal, naming them.
    c = _config(lib, "c.toml", '[projects.lock]\nchunk_max_tokens = 256\n'
                'dense_model = "sentence-transformers/all-MiniLM-L6-v2"\n')
    dense = _error(cli(lib, "--config", str(c), "query", "table structure", "-p", "lock", "--json"))
    assert dense["code"] == "DAEMON_SETTINGS_DIFFER"
    assert "projects.lock.dense_model: 'sentence-transformers/all-MiniLM-L6-v2'" in \
        dense["message"]
    zotero_dir = lib["root"] / "Zotero"
    zotero_dir.mkdir()
    elsewhere = {**lib, "env": {**lib["env"], "ZOTERO_DATA_DIR": str(zotero_dir)}}  # its env
    zot = _error(cli(elsewhere, "--config", str(a), "query", "table structure", "-p", "lock",
                     "--json"))
    assert zot["code"] == "DAEMON_SETTINGS_DIFFER" and "zotero.data_dir:" in zot["message"]
    assert str(zotero_dir) in zot["message"]

    # The daemon's own settings still serve, and nothing was written by the refusals.
    same = cli(lib, "--config", str(a), "query", "table structure", "-p", "lock", "--json")
    assert same.returncode == 0, same.stderr
    info = json.loads(cli(lib, "--config", str(a), "inspect", "-p", "lock", "--json").stdout)
    assert info["documents"] == 1

    # The daemon's config file changes: the next request is served with the new file (no
    # restart), so b.toml's command now agrees, and the index built with 256 refuses it.
    a.write_text(b.read_text())
    applied = _error(cli(lib, "--config", str(b), "ingest", str(other), "-p", "lock", "--json"))
    assert applied["code"] == "EMBEDDING_MISMATCH", applied
    assert _pid(lib["data"]) == pid  # the same daemon


def test_validate_checks_every_index_through_a_running_daemon(
        lib: dict[str, Any]) -> None:  # noqa: F811
    docs = lib["root"] / "docs"
    docs.mkdir()
    (docs / PDF.name).write_bytes(PDF.read_bytes())
    for project in ("one", "two"):
        done = cli(lib, "ingest", str(docs), "-p", project, "--json")
        assert done.returncode == 0, done.stderr
    pid = _pid(lib["data"])
    assert pid and _alive(pid)  # it holds both indexes open
    out = cli(lib, "validate", "--json")
    checks = {c["name"]: c for c in json.loads(out.stdout)}
    for project in ("one", "two"):
        assert checks[f"index {project}"]["status"] == "pass", checks[f"index {project}"]
        assert "1 documents" in checks[f"catalog {project}"]["detail"]
        assert checks[f"model lock {project}"]["status"] == "pass"
    assert not any("open in process" in c["detail"] for c in checks.values())
    assert "daemon" in checks["index one"]["detail"]  # it says where the check ran
    assert out.returncode == 0, out.stdout
    assert _pid(lib["data"]) == pid and _alive(pid)  # checked in place, not stopped


def test_the_view_compares_only_what_a_request_touches(make_settings: Any) -> None:
    from citeloom.config import ProjectConfig

    mine = make_settings(projects={"a": ProjectConfig(name="a", chunk_max_tokens=256),
                                   "b": ProjectConfig(name="b")})
    theirs = mine.model_copy(update={"projects": {
        "a": ProjectConfig(name="a", chunk_max_tokens=256),
        "b": ProjectConfig(name="b", chunk_max_tokens=512)}, "threads": 1,
        "default_project": "b", "passage_chars": 400})
    daemon, command = agree.view(mine), agree.view(theirs)
    assert agree.differences(daemon, command, ["a"]) == []  # b is not touched
    assert agree.differences(daemon, command, ["b"]) == [
        "projects.b.chunk_max_tokens: 512 here, 256 in the daemon"]
    assert len(agree.differences(daemon, command, None)) == 1  # every project: b differs
    assert agree.differences(daemon, command, ["new"]) == []  # configured on neither side
    # Secrets are compared by digest and never sent.
    from pydantic import SecretStr

    keyed = mine.model_copy(update={"qdrant_api_key": SecretStr("s3cret")})
    assert "s3cret" not in json.dumps(agree.view(keyed))
    assert agree.differences(daemon, agree.view(keyed), ["a"])[0].startswith("qdrant_api_key")
