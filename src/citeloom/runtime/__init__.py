"""What this process holds open, below every operation: the settings, the loaded models and
the conversion worker (:class:`Models`), the open projects with their locks
(:class:`Projects`), the conversion cache (:class:`ConversionCache`) and the Zotero library.

The operations (ingest, search, library, snapshots, repair) take a :class:`Runtime`; the
service's :class:`~citeloom.service.app.CiteLoom` owns one. Heavy imports (Docling,
onnxruntime) happen on first use, so a query never loads Docling."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.config import ProjectConfig, Settings
from citeloom.errors import CiteLoomError
from citeloom.provision import use_offline_runtime
from citeloom.report import IngestReport
from citeloom.runtime.cache import ConversionCache, cache_damaged, reread
from citeloom.runtime.models import Models, index_params, model_lock
from citeloom.runtime.projects import Projects

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

    from citeloom.embed.chunk import Chunker
    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder

__all__ = ["ConversionCache", "Models", "Projects", "Runtime", "index_params", "model_lock"]


class Runtime:
    """Thread-safe for the daemon's and the MCP server's use: queries run while an ingest
    writes (see :mod:`citeloom.runtime.projects` for the locks)."""

    def __init__(self, settings: Settings, *, index_wait_s: float = 0.0,
                 started_by: str = "api") -> None:
        """``index_wait_s``: how long to wait for an index another process has open (the
        CLI waits out the MCP server's ``release_idle_s``; the server does not).
        ``started_by`` names the caller in the audit log (cli, mcp, eval)."""
        self.started_by = started_by
        self.models = Models(lambda: self.settings)
        self.projects = Projects(lambda: self.settings, index_wait_s)
        self.cache = ConversionCache(lambda: self.settings)
        self._zotero: Any = None
        self.settings = settings
        use_offline_runtime(settings.models_dir)

    @property
    def settings(self) -> Settings:
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        """Settings, new or reloaded (the daemon's, when citeloom.toml changes), learn from
        the indexes which dense model a project that names none was built with."""
        value.use_index_locks(self.projects.index_lock)
        self._settings = value

    # -- what the executors use (ingest/executor.py's Resources) ---------------------------
    def dense(self, model_id: str) -> DenseEmbedder:
        return self.models.dense(model_id)

    def sparse(self) -> SparseEmbedder:
        return self.models.sparse()

    def chunker(self, project: ProjectConfig) -> Chunker:
        return self.models.chunker(project)

    def convert(self, path: Path, project: ProjectConfig, content_hash: str,
                ocr_languages: list[str] | None = None,
                warnings: list[dict[str, str]] | None = None) -> DoclingDocument:
        """The converted document, from the cache when this content was converted before. A
        damaged cache entry is converted again, and said in ``warnings`` (CACHE_DAMAGED)."""
        from docling_core.types.doc import DoclingDocument


        data = self.cache.get(content_hash, project)
        if data is not None:
            try:
                doc = DoclingDocument.model_validate_json(gzip.decompress(data))
                if not reread(doc, project) or not path.is_file():
                    return doc  # (a file gone since: its old reading is all there is)
            except Exception as exc:  # a damaged cache entry is re-made, and said
                cached = self.cache.path(content_hash, project)
                cached.unlink(missing_ok=True)
                if warnings is not None:
                    warnings.append(cache_damaged(path.name, cached.name, exc))
        # In a worker process, with a deadline that grows with the pages.
        from citeloom.convert.worker import deadline_s

        data = self.models.worker(project, ocr_languages).convert(
            path, deadline_s(path, project))
        self.cache.put(content_hash, project, data, path.name)
        return DoclingDocument.model_validate_json(gzip.decompress(data))

    # -- zotero ---------------------------------------------------------------------------
    def zotero_reader(self) -> Any:
        """The Zotero library the settings name (see docs/ZOTERO.md)."""
        if self._zotero is None:
            from citeloom.zotero import make_reader

            self._zotero = make_reader(**self.settings.zotero.kwargs())
        return self._zotero

    def reload_zotero(self) -> None:
        """Read the library anew on next use (it changed)."""
        self._zotero = None

    def zotero_matcher(self, report: IngestReport) -> Any:
        """An ItemMatcher over the configured library, or None (no Zotero configured, or
        unreachable: then a warning, and files are indexed from their own metadata)."""
        if not self.settings.zotero.configured:
            return None
        from citeloom.zotero import ItemMatcher

        try:
            return ItemMatcher(list(self.zotero_reader().items()))
        except CiteLoomError as exc:
            report.warnings.append(exc.to_dict())
            return None

    def close(self) -> None:
        self.projects.close()
        self.models.close()
