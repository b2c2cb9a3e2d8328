"""The CLI's error paths, walked: each ends in a code declared in errors.py (with a hint),
never a traceback. (The MCP server's are walked in test_mcp_server.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeloom.cli import main
from citeloom.config import ProjectConfig
from citeloom.errors import CODES, CiteLoomError, InternalError, as_error
from citeloom.service import CiteLoom, TextDoc

from .conftest import shared_settings


def test_every_code_has_a_hint_and_unexpected_errors_are_internal() -> None:
    assert CODES and all(hint for hint in CODES.values())
    assert as_error(KeyError("x")).code == "INTERNAL_ERROR" == InternalError.code
    err = CiteLoomError("m")
    assert as_error(err) is err


@pytest.fixture
def cli_env(models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models_dir}"\n'
                      '[projects.d]\nsparse_model = "none"\n[projects.m]\nchunk_max_tokens = 128\n')
    for var in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_PROJECT",
                "ZOTERO_DATA_DIR", "ZOTERO_LIBRARY_ID", "ZOTERO_LOCAL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CITELOOM_CONFIG", str(config))
    monkeypatch.setenv("BBT_PORT", "9")  # nothing listens
    monkeypatch.chdir(tmp_path)
    settings = shared_settings(data_dir=data, models_dir=models_dir, projects={
        "d": ProjectConfig(name="d", sparse_model="none")})
    app = CiteLoom(settings)
    doc = [TextDoc("a", "Filters", "Vena cava filters migrated in three to eight percent.")]
    for name in ("t", "d", "m"):
        assert app.index_texts(name, doc).outcome == "ok"
    app.close()
    return tmp_path


CASES = [
    (["query", "x", "-p", "nope"], "INVALID_PROJECT"),
    (["query", " ", "-p", "t"], "INVALID_INPUT"),
    (["query", "x", "-p", "t", "-k", "99"], "INVALID_INPUT"),
    (["query", "x", "-p", "t", "--similar-to", "not-a-chunk"], "INVALID_INPUT"),
    (["query", "x", "-p", "d"], "HYBRID_NOT_SUPPORTED"),
    (["ingest", "-p", "t"], "INVALID_INPUT"),
    (["ingest", "missing.pdf", "-p", "m"], "EMBEDDING_MISMATCH"),
    (["cite", "nobody2020"], "INVALID_INPUT"),
    (["--config", "nothing.toml", "projects"], "CONFIG_INVALID"),
]


def test_cli_errors_are_declared_codes(cli_env: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for argv, code in CASES:
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err, err
        seen = re.search(r"error: ([A-Z_]+): ", err)
        assert seen and seen.group(1) == code, (argv, err)
        assert seen.group(1) in CODES and " — " in err  # the hint follows
    monkeypatch.setenv("BBT_PORT", "zotero")
    assert main(["projects"]) == 1
    assert "error: CONFIG_INVALID: BBT_PORT" in capsys.readouterr().err


def test_cli_per_file_errors_are_declared_codes(cli_env: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (cli_env / "notes.xyz").write_text("not a document")
    assert main(["ingest", "missing.pdf", "notes.xyz", "-p", "t", "--json"]) == 4
    report = json.loads(capsys.readouterr().out)
    codes = {f["error"]["code"] for f in report["files"]}
    assert codes == {"SOURCE_NOT_FOUND", "UNSUPPORTED_TYPE"} and codes <= set(CODES)
    assert all(f["error"]["hint"] for f in report["files"])


def test_bare_call_shows_help_and_version_is_printed(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    from citeloom import __version__

    assert main([]) == 0
    assert "usage: citeloom" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"citeloom {__version__}"
