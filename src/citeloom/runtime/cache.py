"""The conversion cache: each converted document kept as gzipped DoclingDocument JSON under
``<cache>/conversions`` (``Settings.cache_root``), keyed by its content and the settings that
decide what text a conversion can find at all, so a reindex or a second project converts
nothing again."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom import system
from citeloom.config import ProjectConfig, Settings
from citeloom.errors import as_error

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument


class ConversionCache:
    def __init__(self, settings: Callable[[], Settings]) -> None:
        self._settings = settings

    def path(self, content_hash: str, project: ProjectConfig) -> Path:
        """Where a conversion of this content under this project's settings is kept. Keyed
        by content, plus the settings that decide what text a conversion can find at all:
        OCR off (a scan converted without OCR must not serve a project that OCRs) and the
        PDF password (an encrypted PDF's text must not reach a project without it). OCR
        languages are not in the key, so a reindex after a language change converts
        nothing (delete the cache folder to reconvert, as docs/DECISIONS.md says)."""
        key = content_hash
        if not project.ocr:
            key += "-noocr"
        if not project.text_repair:
            key += "-norepair"
        if project.pdf_password:
            secret = project.pdf_password.get_secret_value().encode()
            key += "-pw" + hashlib.sha256(b"citeloom-pdf-password\0" + secret).hexdigest()[:16]
        return self._settings().cache_root / "conversions" / f"{key}.json.gz"

    def damaged(self, project: ProjectConfig, hashes: Iterable[str]) -> list[Path]:
        """The cached conversions of these contents that do not decompress as JSON."""
        bad = []
        for h in hashes:
            path = self.path(h, project)
            if not path.is_file():
                continue
            try:
                json.loads(gzip.decompress(path.read_bytes()))
            except (OSError, ValueError, EOFError):
                bad.append(path)
        return bad

    def get(self, content_hash: str, project: ProjectConfig) -> bytes | None:
        """The cached conversion of this content (gzipped DoclingDocument JSON), if any."""
        try:
            return self.path(content_hash, project).read_bytes()
        except OSError:
            return None

    def put(self, content_hash: str, project: ProjectConfig, data: bytes, name: str) -> None:
        """Keep a conversion in the cache (written beside, then renamed into place)."""
        cached = self.path(content_hash, project)
        tmp = cached.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            system.require(cached.parent, len(data), f"caching the conversion of {name}")
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, cached)
        except OSError as exc:  # ENOSPC: DISK_FULL, which stops the run
            tmp.unlink(missing_ok=True)
            raise as_error(exc, cached.parent) from None

    def document(self, content_hash: str, project: ProjectConfig) -> Any:
        """The cached conversion of this content as a document, or None."""
        from docling_core.types.doc import DoclingDocument

        data = self.get(content_hash, project)
        if data is None:
            return None
        try:
            return DoclingDocument.model_validate_json(gzip.decompress(data))
        except Exception:  # noqa: BLE001 - damaged: inspect says so on its own
            return None


def reread(doc: DoclingDocument, project: ProjectConfig) -> bool:
    """Whether a cached conversion should be made again: it predates the health ledger and
    has pages whose text does not read as language, which today's repair ladder re-reads
    (a reindex or re-ingest after an upgrade fixes them; healthy conversions are kept)."""
    from citeloom.convert.health import stale

    return project.text_repair and bool(stale(doc))


def cache_damaged(name: str, entry: str, exc: BaseException) -> dict[str, str]:
    """The warning for a cached conversion that did not read back (converted again)."""
    from citeloom.errors import CacheDamaged

    return CacheDamaged(f"{name}: its cached conversion {entry} was unreadable "
                        f"({type(exc).__name__}); converted again").to_dict()
