"""The CLI's rough edges (issue #18, item 9): help text and defaults on every option (the
parser walked), --config after the command, JSON errors under --json, one JSON shape for
hits, --similar-to without a question, config errors that name the table and the nearest
key, one line per file in an ingest, and a Zotero collection as a project's source."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest

from citeloom.cli.main import _parser, main
from citeloom.config import load_settings
from citeloom.errors import ConfigError
from citeloom.service import CiteLoom, TextDoc

from ..clirun import run_cli
from ..conftest import CORPUS
from ..zotero.test_zotero_ingest import library  # noqa: F401 - the fixture: a real zotero.sqlite


def commands(parser: argparse.ArgumentParser, path: str = "citeloom"
             ) -> list[tuple[str, argparse.ArgumentParser]]:
    out = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += commands(sub, f"{path} {name}")
    return out


def test_every_option_has_help_and_its_default() -> None:
    walked = commands(_parser())
    assert len(walked) >= 19 and any(p == "citeloom remove" for p, _ in walked)
    for path, parser in walked:
        shown = " ".join(parser.format_help().split())
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            assert action.help, f"{path} {action.option_strings or action.dest} has no help"
            default = action.default
            if default not in (None, False, [], argparse.SUPPRESS):
                assert f"default: {default}" in shown or "default" in action.help, (
                    path, action.dest)
        if path != "citeloom":  # --config after the command, on every command
            assert "--config" in parser.format_help(), path
    query = " ".join(dict(walked)["citeloom query"].format_help().split())
    for promised in ("(default: hybrid)", "(default: dbsf)", "(default: 5)"):
        assert promised in query


@pytest.fixture
def env(models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    config = tmp_path / "conf.toml"
    config.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models_dir}"\n'
                      '[projects.thesis]\n')
    for var in ("CITELOOM_CONFIG", "CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR",
                "CITELOOM_PROJECT", "CITELOOM_THREADS", "ZOTERO_DATA_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("BBT_PORT", "9")
    monkeypatch.chdir(tmp_path)
    app = CiteLoom(load_settings(config))
    assert app.index_texts("thesis", [
        TextDoc("a", "Filters", "Vena cava filters migrated in three to eight percent."),
        TextDoc("b", "Filter retrieval", "Retrieval of vena cava filters failed in some.")
    ]).outcome == "ok"
    app.close()
    return config


def test_config_anywhere_json_errors_and_similar_without_a_query(
        env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --config after the command works as before it.
    assert main(["projects", "--json", "--config", str(env)]) == 0
    assert [p["project"] for p in json.loads(capsys.readouterr().out)] == ["thesis"]
    assert main(["--config", str(env), "projects", "--json"]) == 0
    assert "thesis" in capsys.readouterr().out

    # Errors under --json are JSON on stdout (a script reads one place), codes intact.
    assert main(["query", "filters", "-p", "thesys", "--json", "--config", str(env)]) == 1
    err = json.loads(capsys.readouterr().out)["error"]
    assert err["code"] == "INVALID_PROJECT" and "did you mean 'thesis'" in err["hint"]
    assert main(["query", "filters", "--top-k", "many", "--json"]) == 2
    err = json.loads(capsys.readouterr().out)["error"]
    assert err["code"] == "INVALID_INPUT" and "--top-k" in err["message"]
    assert main(["query", "filters", "--top-k", "many"]) == 2  # without --json: usage
    assert "usage:" in capsys.readouterr().err

    # One shape for hits: a query, find-similar and annotations all answer {..., hits}.
    assert main(["query", "filters migrated", "-p", "thesis", "--json", "--config",
                 str(env)]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    seed = hits[0]["chunk_id"]
    # --similar-to needs no question.
    assert main(["query", "--similar-to", seed, "-p", "thesis", "--json", "--config",
                 str(env)]) == 0
    similar = json.loads(capsys.readouterr().out)
    assert similar["mode"] == "recommend" and similar["project"] == "thesis"
    assert similar["hits"] and seed not in {h["chunk_id"] for h in similar["hits"]}
    assert set(similar["hits"][0]) == set(hits[0])
    assert main(["annotations", "nokey", "-p", "thesis", "--json", "--config", str(env)]) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == []
    # Neither a question nor --similar-to: a coded error, not a usage dump.
    assert main(["query", "-p", "thesis", "--config", str(env)]) == 1
    assert "INVALID_INPUT: no question given" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "env_vars", "wanted", "not_wanted"), [
    ("[projects.a]\nchunk_max_token = 100\n", {},
     ["[projects.a] has no setting 'chunk_max_token'", "did you mean 'chunk_max_tokens'",
      "takes: ", "backend"], ["Extra inputs"]),
    ("[mcp]\npassage_char = 500\n", {},
     ["[mcp] has no setting 'passage_char'", "did you mean 'passage_chars'"], []),
    ("[deamon]\nenabled = false\n", {}, ["unknown section [deamon]", "did you mean [daemon]"],
     []),
    ("[defaults]\nthreads = \"many\"\n", {}, ["threads = 'many' is not a whole number"],
     ["CITELOOM_THREADS"]),
    ("", {"CITELOOM_THREADS": "two"}, ["CITELOOM_THREADS='two'"], []),
    ("[mcp]\npassage_chars = 5\n", {}, ["[mcp] passage_chars:", "greater than"], []),
    ("[defaults]\nthreads = 500\n", {}, ["[defaults] threads:"], ["CITELOOM_THREADS"]),
    ('[projects.a]\nsources = ["zotero:shelf/x"]\n', {},
     ["[projects.a] zotero_sources", "zotero:collection/NAME_OR_KEY"], []),
])
def test_config_errors_name_table_and_nearest_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, env_vars: dict[str, str],
        wanted: list[str], not_wanted: list[str]) -> None:
    monkeypatch.delenv("CITELOOM_THREADS", raising=False)
    for k, v in env_vars.items():
        monkeypatch.setenv(k, v)
    path = tmp_path / "citeloom.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    said = str(caught.value)
    for w in wanted:
        assert w in said, said
    for w in not_wanted:
        assert w not in said, said


def test_zotero_source_in_config(tmp_path: Path) -> None:
    path = tmp_path / "citeloom.toml"
    path.write_text('[projects.t]\nsources = ["papers", "zotero:collection/Thesis?subcollections",'
                    ' "zotero:library"]\n')
    project = load_settings(path).projects["t"]
    assert project.sources == [tmp_path / "papers"]
    assert project.zotero_sources == ["zotero:collection/Thesis?subcollections",
                                      "zotero:library"]
    # A watching daemon re-syncs them (as ingest_zotero arguments).
    assert project.zotero_syncs() == [
        {"collection": "Thesis", "include_subcollections": True, "annotations": True},
        {"collection": None, "include_subcollections": True, "annotations": True}]


@pytest.mark.slow
def test_ingest_project_sources_with_a_zotero_collection_one_line_per_file(
        library: dict, models_dir: Path, tmp_path: Path) -> None:  # noqa: F811
    papers = tmp_path / "papers"
    papers.mkdir()
    shutil.copy(CORPUS / "text" / "docling__code_and_formula.pdf", papers / "table.pdf")
    (papers / "broken.pdf").write_text("not a pdf")
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'models_dir = "{models_dir}"\n[projects.thesis]\n'
                      'sources = ["papers", "zotero:collection/Thesis?noannotations"]\n')
    env = {**os.environ, "CITELOOM_CONFIG": str(config), "CITELOOM_DAEMON": "off",
           "COLUMNS": "300", "ZOTERO_DATA_DIR": str(library["dir"]), "BBT_PORT": "9"}
    env.pop("CITELOOM_DATA_DIR", None)
    done = run_cli(["ingest", "-p", "thesis"], env, tmp_path)
    assert done.returncode == 3, done.stderr  # partial: broken.pdf
    lines = done.stderr.splitlines()
    # One report per file: each named once, a failure with its code and hint.
    assert sum("table.pdf" in ln for ln in lines) == 1
    broken = [ln for ln in lines if "broken.pdf" in ln]
    assert len(broken) == 1 and "CONVERSION_FAILED" in broken[0] and " — " in broken[0]
    assert sum("paper.pdf: indexed" in ln for ln in lines) == 2  # the collection's two PDFs
    assert "thesis: 3 indexed" in done.stderr
    settings = load_settings(config)
    app = CiteLoom(settings)
    papers_listed = app.list_papers("thesis")
    app.close()
    # The folder's PDF has a key made from its metadata; the Zotero items keep theirs.
    assert all(p["citekey"] for p in papers_listed) and len(papers_listed) == 3


def test_readme_commands_table_and_zotero_section() -> None:
    from ..conftest import ROOT
    from ..test_readme_claude import readme_config

    readme = (ROOT / "README.md").read_text()
    table = readme.split("More commands:", 1)[1].split("\n\n", 2)[1]
    names = [path.split()[1] for path, _ in commands(_parser()) if path.count(" ") == 1]
    missing = [n for n in names if f"`citeloom {n}" not in table]
    assert not missing, f"README's commands table lacks {missing}"
    for option in ("--zotero-collection", "--prune", "--similar-to", "--format"):
        assert option in table, option
    zotero = readme.split("\n## Zotero\n", 1)[1].split("\n## ", 1)[0]
    for promised in ("ZOTERO_DATA_DIR", "ZOTERO_LOCAL", "ZOTERO_LIBRARY_ID", "Better BibTeX",
                     "citeloom cite", "zotero:collection/", "[projects.", "list_papers"):
        assert promised in zotero, promised
    assert any(k.startswith("ZOTERO_") for k in readme_config()["env"])
