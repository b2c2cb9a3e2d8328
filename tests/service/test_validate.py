"""`citeloom validate`: passes on a fresh setup; fails, naming the fix, without models, with
a bad citeloom.toml, and with an index written with other settings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.config import ProjectConfig, Settings
from citeloom.service import CiteLoom

from ..conftest import CORPUS, shared_settings

pytestmark = pytest.mark.slow


def validate(config: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELOOM_CONFIG": str(config)}
    env.pop("CITELOOM_DATA_DIR", None)
    env.pop("CITELOOM_MODELS_DIR", None)
    return subprocess.run([sys.executable, "-m", "citeloom.cli", "validate"], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=180)


def write_config(path: Path, data: Path, models: Path, extra: str = "") -> Path:
    path.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models}"\n'
                    f'[projects.p]\nchunk_max_tokens = 256\n{extra}')
    return path


def test_fresh_setup_passes_then_each_breakage_fails(models_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    models = tmp_path / "models"
    shutil.copytree(models_dir, models)
    manifest = models / "manifest.json"
    manifest.write_text(manifest.read_text().replace(str(models_dir), str(models)))
    config = write_config(tmp_path / "citeloom.toml", data, models)

    ok = validate(config, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "FAIL" not in ok.stdout and "PASS  tokenizer alignment" in ok.stdout

    # An index written with other chunk settings than the config now asks for.
    app = CiteLoom(shared_settings(data_dir=data, models_dir=models,
                            projects={"p": ProjectConfig(name="p", chunk_max_tokens=128)}))
    assert app.ingest([CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"], "p").outcome == "ok"
    app.close()
    mismatch = validate(config, tmp_path)
    assert mismatch.returncode == 1
    assert "FAIL  model lock p" in mismatch.stdout
    assert "citeloom reindex --project p" in mismatch.stdout

    # A bad citeloom.toml.
    bad = tmp_path / "bad.toml"
    bad.write_text("[projects.p]\nchunk_max_tokens = 'many'\n")
    broken = validate(bad, tmp_path)
    assert broken.returncode == 1
    assert "FAIL  config" in broken.stdout and "chunk_max_tokens" in broken.stdout
    assert "fix:" in broken.stdout

    # The models folder removed.
    shutil.rmtree(models)
    gone = validate(config, tmp_path)
    assert gone.returncode == 1
    assert "FAIL  models" in gone.stdout and "citeloom models provision" in gone.stdout


def test_tesseract_check_maps_iso_languages_and_names_the_package(models_dir: Path,
                                                                 tmp_path: Path) -> None:
    from citeloom.service.validate import _tesseract

    def settings(*langs: str) -> Settings:
        return shared_settings(data_dir=tmp_path, models_dir=models_dir, projects={
            "p": ProjectConfig(name="p", ocr_languages=list(langs)),
            "no_ocr": ProjectConfig(name="no_ocr", ocr=False, ocr_languages=["kor"])})

    ok = _tesseract(settings("iso:fr", "eng"))  # setup.sh installs fra; kor is not OCRed
    assert ok.status == "pass" and "fra" in ok.detail, ok
    missing = _tesseract(settings("iso:ja"))
    assert missing.status == "fail" and "tesseract-ocr-jpn" in missing.fix, missing
