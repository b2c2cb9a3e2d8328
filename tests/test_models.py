"""Model provisioning is offline, idempotent, and its listing detects damage."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citeloom import provision as models
from citeloom.errors import ModelsMissing


def test_second_provision_writes_nothing(models_dir: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in models_dir.rglob("*") if p.is_file()}
    t0 = time.perf_counter()
    arts, wrote = models.provision(models_dir)
    assert not wrote
    assert time.perf_counter() - t0 < 10
    after = {p: p.stat().st_mtime_ns for p in models_dir.rglob("*") if p.is_file()}
    assert after == before
    kinds = {a.kind for a in arts}
    assert kinds == {"dense", "layout", "tiktoken", "rerank"}
    assert all(len(a.sha256) == 64 and a.bytes > 0 for a in arts)


def test_verify_detects_a_damaged_file(tmp_path: Path, models_dir: Path) -> None:
    import shutil

    copy = tmp_path / "m"
    shutil.copytree(models_dir, copy)
    # The manifest names absolute paths: rewrite them for the copy.
    manifest = copy / models.MANIFEST
    manifest.write_text(manifest.read_text().replace(str(models_dir), str(copy)))
    assert all(s == "ok" for _, s in models.verify(copy))
    layout = models.layout_model_path(copy)
    layout.write_bytes(layout.read_bytes()[:-10] + b"0123456789")
    status = {a.kind: s for a, s in models.verify(copy) if a.kind == "layout"}
    assert status["layout"] == "checksum mismatch"
    layout.unlink()
    with pytest.raises(ModelsMissing, match="citeloom models provision"):
        models.require(copy)
    # Provisioning again repairs it.
    _, wrote = models.provision(copy)
    assert wrote and all(s == "ok" for _, s in models.verify(copy))


def test_empty_models_dir_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ModelsMissing, match="no models provisioned"):
        models.require(tmp_path)


def test_tiktoken_loads_from_the_provisioned_cache(models_dir: Path) -> None:
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")  # would need the network if not provisioned
    assert enc.decode(enc.encode("citable passages")) == "citable passages"


def test_unknown_dense_model_is_refused() -> None:
    with pytest.raises(ModelsMissing, match="cannot be provisioned offline"):
        models.dense_spec("BAAI/unknown-model")


def test_no_torch_in_the_environment() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    assert out.returncode != 0


def test_network_is_refused_in_tests() -> None:
    import socket

    with pytest.raises(RuntimeError, match="test tried to"):
        socket.create_connection(("93.184.216.34", 80), timeout=2)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with pytest.raises(RuntimeError, match="reach the network"):
        s.connect(("93.184.216.34", 80))
    s.close()
