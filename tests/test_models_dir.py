"""Models stay where setup provisioned them (issue #18, item 5): setting CITELOOM_DATA_DIR
afterwards, as .env.example invites, must not move the models folder with it; and without
models an ingest stops once with MODELS_MISSING instead of failing every PDF. Real
`citeloom models provision`, ingest and query in subprocesses, with the user data dir
(XDG_DATA_HOME) in the test's folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.config import load_settings

from .conftest import FIXTURE_PDFS

pytestmark = pytest.mark.slow


def run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citeloom.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_data_dir_moved_after_setup_keeps_the_models(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_CONFIG")}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), CITELOOM_DAEMON="off", COLUMNS="300")
    default = tmp_path / "xdg" / "citeloom" / "models"

    # Setup, as scripts/setup.sh does it: no data dir set.
    done = run(env, tmp_path, "models", "provision", "--json")
    assert done.returncode == 0, done.stderr
    assert (default / "manifest.json").is_file()

    # Then the data dir is moved: models are still found where they were provisioned.
    env["CITELOOM_DATA_DIR"] = str(tmp_path / "elsewhere")
    done = run(env, tmp_path, "ingest", str(FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"),
               "-p", "moved", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["indexed"] == 1
    done = run(env, tmp_path, "query", "table structure recognition", "-p", "moved", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hits"]
    assert (tmp_path / "elsewhere" / "indexes" / "moved").is_dir()
    assert not (tmp_path / "elsewhere" / "models").exists()

    # No models anywhere: one clear stop, before any PDF is tried, and no project left.
    env["XDG_DATA_HOME"] = str(tmp_path / "empty")
    done = run(env, tmp_path, "ingest", str(FIXTURE_PDFS), "-p", "nomodels")
    assert done.returncode == 1
    assert done.stderr.count("MODELS_MISSING") == 1, done.stderr
    assert "CONVERSION_FAILED" not in done.stderr and "no models provisioned under" in done.stderr
    assert not (tmp_path / "elsewhere" / "indexes" / "nomodels").exists()


def test_models_dir_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit settings win; else a data dir with its own models keeps them; else the
    default location, whatever the data dir."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CITELOOM_MODELS_DIR", raising=False)
    monkeypatch.delenv("CITELOOM_CONFIG", raising=False)
    monkeypatch.setenv("CITELOOM_DATA_DIR", str(tmp_path / "data"))
    default = tmp_path / "xdg" / "citeloom" / "models"
    assert load_settings().models_dir == default
    own = tmp_path / "data" / "models"
    own.mkdir(parents=True)
    (own / "manifest.json").write_text('{"artifacts": []}')
    assert load_settings().models_dir == own
    monkeypatch.setenv("CITELOOM_MODELS_DIR", str(tmp_path / "m"))
    assert load_settings().models_dir == tmp_path / "m"
