"""Dense and sparse embeddings, both from provisioned local files only.

Dense: fastembed ``TextEmbedding`` over the ONNX graph that ``models.provision`` wrote
(the model's own pooling, [CLS] or mean, L2-normalised). Sparse: Qdrant/bm25 term
weights from qdrant-edge's built-in BM25; the collection's IDF modifier supplies the inverse
document frequencies at query time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from citeloom.provision import dense_dir, dense_spec, require

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

    from citeloom.embed.vectorcache import VectorCache

FASTEMBED_PREFIX = "citeloom-local/"
_register_lock = threading.Lock()
_registered: set[str] = set()


@dataclass(frozen=True)
class Sparse:
    """A sparse vector, independent of the index backend's own type."""

    indices: list[int]
    values: list[float]


def load_tokenizer(models_dir: Path, model_id: str) -> Tokenizer:
    """The dense model's own word-piece tokenizer, with truncation and padding off so that
    it counts every token the text has (the model itself reads ``window`` at most)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(dense_dir(models_dir, model_id) / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


class DenseEmbedder:
    """A provisioned dense model, loaded once per process."""

    def __init__(self, models_dir: Path, model_id: str, threads: int = 2,
                 cache_dir: Path | None = None) -> None:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        require(models_dir)
        self.model_id = model_id
        self.spec = dense_spec(model_id)
        name = FASTEMBED_PREFIX + self.spec.folder
        with _register_lock:
            if name not in _registered:
                known = {m["model"] for m in TextEmbedding.list_supported_models()}
                if name not in known:
                    TextEmbedding.add_custom_model(
                        model=name,
                        pooling=(PoolingType.CLS if self.spec.pooling == "cls"
                                 else PoolingType.MEAN),
                        normalization=True,
                        # Never fetched: specific_model_path below points at local files.
                        sources=ModelSource(hf=model_id),
                        dim=self.spec.dim,
                        model_file="model.onnx",
                    )
                _registered.add(name)
        self._model = TextEmbedding(
            model_name=name,
            specific_model_path=str(dense_dir(models_dir, model_id)),
            # fastembed makes a cache folder even when it has nothing to fetch: keep it ours.
            cache_dir=str(models_dir / ".fastembed-cache"),
            local_files_only=True,
            threads=threads,
            providers=["CPUExecutionProvider"],
        )
        self.cache: VectorCache | None = None
        if cache_dir is not None:
            from citeloom.embed.vectorcache import VectorCache

            self.cache = VectorCache(cache_dir / "vectors",
                                     dense_dir(models_dir, model_id) / "model.onnx", self.dim)

    @property
    def dim(self) -> int:
        return self.spec.dim

    def embed(self, texts: list[str], batch_size: int = 1) -> np.ndarray:
        """One text per model call by default: an int8 graph quantises its activations
        over the whole batch, padding included, so a batched text's vector would depend
        on its neighbours (cosine 0.996); alone it is the same in every run. On these
        CPUs it is also faster, no padding being computed (54 against 28-33 passages/s
        at batches of 8-32, docs/DECISIONS.md)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(list(self._model.embed(texts, batch_size=batch_size)))

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Passages' vectors, from the vector cache for text this model has read before
        (the same vectors: ``embed.vectorcache``), the others embedded and kept there."""
        if self.cache is None or not texts:
            return self.embed(texts)
        found = self.cache.get(texts)
        missing = [i for i, v in enumerate(found) if v is None]
        if missing:
            new = self.embed([texts[i] for i in missing])
            self.cache.put([texts[i] for i in missing], new)
            for i, vec in zip(missing, new, strict=True):
                found[i] = vec
        import numpy as np

        return np.stack(found)

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()

    def token_count(self, text: str) -> int:
        """Tokens the model reads of ``text`` (after its own truncation)."""
        return int(self._model.token_count(text))


class SparseEmbedder:
    """Qdrant/bm25 term weights (English stopwords removed, Snowball-stemmed)."""

    model_id = "Qdrant/bm25"

    def __init__(self) -> None:
        from qdrant_edge import Bm25, Bm25Config

        self._bm25 = Bm25(Bm25Config(language="english"))

    def embed(self, texts: list[str]) -> list[Sparse]:
        out = []
        for text in texts:
            v = self._bm25.embed_document(text)
            out.append(Sparse(list(v.indices), list(v.values)))
        return out

    def embed_query(self, text: str) -> Sparse:
        v = self._bm25.embed_query(text)
        return Sparse(list(v.indices), list(v.values))
