"""Document conversion in a worker process with a hard timeout.

Docling's own timeout is checked between pages and misses hangs inside a parser, and a
damaged file can crash a native library or exhaust memory. So each document is converted
by a separate process (started once, reused across documents): when a conversion runs past
its deadline the process is killed, when it dies the death is reported, and in both cases
that one document fails with a clear reason while the batch goes on with a fresh worker.
A worker is also let go after a number of documents or past a memory limit, so that a
long batch's memory stays flat.
"""

from __future__ import annotations

import contextlib
import gzip
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from citeloom.config import WORKER_MAX_DOCUMENTS, WORKER_MAX_RSS_MB, ProjectConfig
from citeloom.errors import CiteLoomError, ConfigError, ConversionFailed, UnreadableInput
from citeloom.system import (
    counted_pages,
    long_document,
    peak_rss_mb,
    trim_heap,
    worker_context,
    worn,
)


@dataclass(frozen=True)
class ConvertOptions:
    ocr: bool
    ocr_languages: tuple[str, ...]
    layout_model_path: str
    threads: int
    pdf_password: str | None = None
    text_repair: bool = True


def _serve(conn: Connection, options: ConvertOptions) -> None:
    """Worker loop: convert paths sent by the parent, answer with gzipped JSON."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    from citeloom.convert.converter import build_converter, convert_file

    try:
        converter = build_converter(ocr=options.ocr, ocr_langs=list(options.ocr_languages),
                                    layout_model_path=Path(options.layout_model_path),
                                    num_threads=options.threads,
                                    pdf_password=options.pdf_password,
                                    text_repair=options.text_repair)
    except CiteLoomError as exc:  # e.g. an OCR language without Tesseract data
        conn.send(("fatal", (exc.message, exc.hint)))
        return
    except Exception as exc:  # no file can work with this converter
        conn.send(("fatal", (f"{type(exc).__name__}: {exc}", "")))
        return
    conn.send(("ready", None))
    while True:
        try:
            path = conn.recv()
        except EOFError:
            return
        if path is None:
            return
        try:
            doc = convert_file(Path(path), converter)
            conn.send(("ok", gzip.compress(doc.model_dump_json().encode(), compresslevel=3)))
        except UnreadableInput as exc:  # why, and what to do
            conn.send(("error", (exc.reason, exc.hint)))
        except Exception as exc:  # reported for this document; the worker lives on
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
        doc = None
        trim_heap()  # what the document left allocated and freed goes back


class ConversionWorker:
    """A reusable worker process; ``convert`` kills and replaces it on timeout or crash, and
    lets it go after ``max_documents`` documents or once its memory passes ``max_rss_mb``
    after one (the next document starts a fresh process)."""

    def __init__(self, options: ConvertOptions, timeout_s: float = 300,
                 start_timeout_s: float = 120, max_documents: int = WORKER_MAX_DOCUMENTS,
                 max_rss_mb: float = WORKER_MAX_RSS_MB) -> None:
        self.options = options
        self.timeout_s = timeout_s
        self.start_timeout_s = start_timeout_s
        self.max_documents, self.max_rss_mb = max_documents, max_rss_mb
        self.documents = 0  # converted by the process now running
        self.replaced = 0  # processes let go for their age or memory, or before a long document
        self.peak_rss_mb = 0.0  # the largest any of its processes reached
        self._proc: Any = None
        self._conn: Connection | None = None

    def _start(self) -> None:
        ctx = worker_context()
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, self.options),
                                 name="citeloom-convert", daemon=True)
        self._proc.start()
        child.close()
        self._conn = parent
        if not parent.poll(self.start_timeout_s):
            self.stop()
            raise ConversionFailed("the conversion worker did not start",
                                   "run `citeloom validate` to check the installation")
        try:
            status, payload = parent.recv()
        except EOFError:
            self.stop()
            raise ConversionFailed("the conversion worker died while starting",
                                   "run `citeloom validate` to check the installation") from None
        if status == "fatal":
            self.stop()
            message, hint = payload
            raise ConfigError(message, hint or "run `citeloom validate` to check the installation")

    def stop(self) -> None:
        if self._proc is not None:
            if self._proc.is_alive():
                try:
                    assert self._conn is not None
                    self._conn.send(None)
                    self._proc.join(2)
                except (OSError, EOFError, AssertionError):
                    pass
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(5)
        self._proc, self._conn, self.documents = None, None, 0

    def _retire_if_worn(self) -> None:
        """After a document: let the process go when it has done its share or grown past
        the memory limit."""
        if self._proc is None:
            return
        self.documents += 1
        self.peak_rss_mb = max(self.peak_rss_mb, peak_rss_mb(self._proc.pid))
        if worn(self._proc.pid, self.documents, self.max_documents, self.max_rss_mb):
            self.stop()
            self.replaced += 1

    def convert(self, path: Path, timeout_s: float | None = None) -> bytes:
        """The converted document as gzipped DoclingDocument JSON; killed after ``timeout_s``
        (default: the worker's ``timeout_s``)."""
        timeout_s = self.timeout_s if timeout_s is None else timeout_s
        if self._proc is not None and self.documents and long_document(
                path, self.options.pdf_password):
            self.stop()  # a long document starts on a fresh worker
            self.replaced += 1
        if self._proc is None or not self._proc.is_alive():
            self._start()
        assert self._conn is not None
        try:
            self._conn.send(str(path))
        except OSError:  # the worker died since the last file (BrokenPipeError)
            self.stop()
            self._start()
            assert self._conn is not None
            self._conn.send(str(path))
        deadline = time.monotonic() + timeout_s
        while not self._conn.poll(0.2):
            if not self._proc.is_alive():
                code = self._proc.exitcode
                self.stop()
                raise crashed(path.name, code)
            if time.monotonic() > deadline:
                self.stop()
                raise timed_out(path.name, timeout_s)
        try:
            status, payload = self._conn.recv()
        except EOFError:
            self.stop()
            raise ConversionFailed(f"{path.name}: the converter died",
                                   "the file may be damaged") from None
        self._retire_if_worn()
        if status == "error":
            if isinstance(payload, tuple):
                reason, hint = payload
                raise ConversionFailed(f"{path.name}: {reason}", hint)
            raise ConversionFailed(f"{path.name}: {payload}", failure_hint(payload))
        return payload

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()


def crashed(name: str, exitcode: int | None) -> ConversionFailed:
    """The error of a document whose conversion process died."""
    why = ("the converter was killed (SIGKILL: out of memory, or stopped from outside)"
           if exitcode == -signal.SIGKILL else f"the converter crashed (exit code {exitcode})")
    return ConversionFailed(f"{name}: {why}", "ingest the file again on its own; if it fails "
                            "again, it may be damaged or too large for the memory here")


def deadline_s(path: Path | None, project: ProjectConfig) -> float:
    """Seconds one document may take before its worker is killed as hung: the project's
    ``conversion_timeout_s``, and ``conversion_page_s`` more for each page of a PDF."""
    base = project.conversion_timeout_s
    if path is None or not project.conversion_page_s or path.suffix.lower() != ".pdf":
        return base
    password = project.pdf_password_text
    return base + project.conversion_page_s * counted_pages(path, password)


def timed_out(name: str, timeout_s: float) -> ConversionFailed:
    """The error of a document whose conversion ran past its deadline."""
    return ConversionFailed(f"{name}: conversion took longer than {timeout_s:.0f} s",
                            "raise conversion_timeout_s (or conversion_page_s, the seconds "
                            "added for each page) for the project if the file is just long")


def failure_hint(message: str) -> str:
    low = message.lower()
    if "password" in low or "encrypt" in low:
        return "the PDF is encrypted: set pdf_password for the project, or remove the password"
    if "not valid" in low or "format" in low or "unsupported" in low:
        return "the file is not a readable document of a supported type"
    return "the file may be damaged; open it in a reader to check"
