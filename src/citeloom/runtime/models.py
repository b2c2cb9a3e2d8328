"""The models this process has loaded (each on first use) and the conversion worker: the
dense encoders, BM25, the cross-encoder, the chunkers, and one Docling worker process."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from citeloom.config import ProjectConfig, Settings
from citeloom.index import IndexParams, ModelLock
from citeloom.provision import chunk_limit, dense_spec

if TYPE_CHECKING:
    from citeloom.convert.worker import ConversionWorker
    from citeloom.embed.chunk import Chunker
    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder
    from citeloom.embed.rerank import CrossEncoder


def model_lock(project: ProjectConfig) -> ModelLock:
    """What the project's index is bound to; the chunk size is capped by the window."""
    spec = dense_spec(project.dense_model)
    return ModelLock(project.dense_model, spec.dim, project.sparse_model,
                     chunk_limit(spec.window, project.chunk_max_tokens), project.chunker)


def index_params(project: ProjectConfig) -> IndexParams:
    return IndexParams(project.hnsw_m, project.hnsw_ef_construct, project.quantization,
                       project.shards, project.replicas, project.on_disk,
                       project.defer_indexing)


class Models:
    """Loaded on first use, kept for the process; thread-safe."""

    model_lock = staticmethod(model_lock)
    index_params = staticmethod(index_params)

    def __init__(self, settings: Callable[[], Settings]) -> None:
        self._settings = settings  # the runtime's current settings (a daemon reloads them)
        self._dense: dict[str, DenseEmbedder] = {}
        self._sparse: SparseEmbedder | None = None
        self._reranker: CrossEncoder | None = None
        self._chunkers: dict[tuple[str, int, str], Chunker] = {}
        self._workers: dict[Any, ConversionWorker] = {}
        self.lock = threading.Lock()

    def dense(self, model_id: str) -> DenseEmbedder:
        with self.lock:
            if model_id not in self._dense:
                from citeloom.embed.encoders import DenseEmbedder

                s = self._settings()
                self._dense[model_id] = DenseEmbedder(s.models_dir, model_id, threads=s.threads,
                                                      cache_dir=s.cache_root)
            return self._dense[model_id]

    def reranker(self) -> CrossEncoder:  # the second stage (embed/rerank.py)
        with self.lock:
            if self._reranker is None:
                from citeloom.embed.rerank import CrossEncoder
                from citeloom.provision import require, reranker_dir

                s = self._settings()
                require(s.models_dir)
                self._reranker = CrossEncoder(reranker_dir(s.models_dir), threads=s.threads)
            return self._reranker

    def sparse(self) -> SparseEmbedder:
        with self.lock:
            if self._sparse is None:
                from citeloom.embed.encoders import SparseEmbedder

                self._sparse = SparseEmbedder()
            return self._sparse

    def chunker(self, project: ProjectConfig) -> Chunker:
        key = (project.dense_model, project.chunk_max_tokens, project.chunker)
        with self.lock:
            if key not in self._chunkers:
                from citeloom.embed.chunk import project_chunker

                self._chunkers[key] = project_chunker(self._settings().models_dir, project)
            return self._chunkers[key]

    def worker(self, project: ProjectConfig,
               ocr_languages: list[str] | None = None) -> ConversionWorker:
        """The conversion worker process for these settings (started on first use; one
        alive at a time, since each holds Docling and the layout model in memory)."""
        from citeloom.convert.worker import ConversionWorker, ConvertOptions
        from citeloom.provision import layout_model_path

        s = self._settings()
        opts = ConvertOptions(
            ocr=project.ocr, ocr_languages=tuple(ocr_languages or project.ocr_languages),
            layout_model_path=str(layout_model_path(s.models_dir)), threads=s.threads,
            pdf_password=project.pdf_password_text, text_repair=project.text_repair)
        with self.lock:
            worker = self._workers.get(opts)
            if worker is None:
                for other in self._workers.values():
                    other.stop()
                self._workers.clear()
                worker = self._workers[opts] = ConversionWorker(opts, project.conversion_timeout_s)
            worker.timeout_s = project.conversion_timeout_s
            worker.max_documents, worker.max_rss_mb = s.worker_max_documents, s.worker_max_rss_mb
            return worker

    @property
    def running_workers(self) -> list[ConversionWorker]:
        """The conversion workers started (at most one)."""
        return list(self._workers.values())

    def close(self) -> None:
        """Stop the conversion worker (the models go with the process)."""
        for worker in self._workers.values():
            worker.stop()
        self._workers.clear()
