"""An ingest job as plain data, for executors whose workers live in other processes (a local
pool, Ray actors): what a worker is sent (:class:`Task`), what it does with it
(:class:`WorkerSide`, :func:`run_task`) and what comes back (:class:`Done`).

    driver (the pipeline's process)                worker (a process, or a Ray actor)
    job ─► to_task: the cached conversion, if any ─► run_task: convert (unless cached),
                                                      restructure, chunk, embed — the same
    outcome ◄─ finish: cache a new conversion     ◄── ``executor.prepare`` as in process
               (same key as in process)

The conversion cache stays the driver's: a worker gets the cached conversion with the task
and returns a new one with its result, so the cache keys are those of an in-process ingest
and a cluster's nodes need no shared disk. A new conversion is reparsed from its JSON before
chunking, exactly as an in-process ingest reads it back from its conversion worker, so every
executor chunks the same document and yields the same chunk ids and payloads.
"""

from __future__ import annotations

import gzip
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.errors import CiteLoomError, ConversionFailed, UnreadableInput, as_error, from_dict
from citeloom.ingest.executor import Job, Prepared, prepare
from citeloom.sources import Unit
from citeloom.system import peak_rss_mb, reset_peak_rss

if TYPE_CHECKING:
    from citeloom.config import ProjectConfig
    from citeloom.embed.chunk import Chunker
    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder
    from citeloom.runtime import Runtime


@dataclass
class Task:
    """One job, with everything a worker needs (picklable, no open handles)."""

    key: int  # the driver's handle on the job
    doc_id: str
    content_hash: str
    label: str
    path: str | None = None  # a file the worker can read (a local pool)
    name: str = ""  # the file's name (kept: a title may fall back on it)
    data: bytes | None = None  # the file itself, when the worker may not see the path (Ray)
    text: str | None = None
    title: str = ""
    headings: bool = False
    ocr_languages: list[str] | None = None
    cached: bytes | None = None  # the cached conversion (gzipped DoclingDocument JSON)
    cache_name: str = ""  # its file name in the driver's cache (for a warning)


@dataclass
class Done:
    """What a worker sends back: the prepared document, or the error (as a dict, since
    errors travel as data), and a conversion made for this task, for the driver's cache."""

    key: int
    prepared: Prepared | None = None
    error: dict[str, str] | None = None
    conversion: bytes | None = None
    pid: int = 0
    convert_s: float = 0.0  # converting (0 when the cache had it)
    prepare_s: float = 0.0  # the whole task: conversion, restructuring, chunks, vectors
    convert_cpu_s: float = 0.0  # the same two in CPU seconds (all the worker's threads)
    prepare_cpu_s: float = 0.0
    convert_mb: float = 0.0  # the worker's peak resident memory converting (0: cached)
    prepare_mb: float = 0.0  # ... and over the rest: restructuring, chunks, vectors


def to_task(key: int, job: Job, rt: Runtime, project: ProjectConfig, *, ship: bool) -> Task:
    """The task for ``job``; ``ship`` sends the file's bytes instead of its path."""
    unit = job.unit
    task = Task(key, job.doc_id, job.content_hash, unit.label, text=unit.text,
                title=unit.title, headings=unit.headings, ocr_languages=unit.ocr_languages)
    if unit.path is not None:
        task.name = unit.path.name
        task.cached = rt.cache.get(job.content_hash, project)
        task.cache_name = rt.cache.path(job.content_hash, project).name
        if ship:
            task.data = unit.path.read_bytes()
        else:
            task.path = str(unit.path)
    return task


def finish(done: Done, job: Job, rt: Runtime, project: ProjectConfig,
           seconds: dict[str, float] | None = None) -> Prepared | CiteLoomError:
    """The outcome of a task on the driver: a new conversion goes into the cache first.
    ``seconds`` adds up the workers' time converting and preparing (for the benchmark)."""
    if seconds is not None:
        for name in ("convert_s", "prepare_s", "convert_cpu_s", "prepare_cpu_s"):
            seconds[name] = seconds.get(name, 0.0) + getattr(done, name)
    if done.conversion is not None:
        try:
            rt.cache.put(job.content_hash, project, done.conversion,
                                 job.unit.path.name if job.unit.path else job.unit.label)
        except CiteLoomError as exc:  # DISK_FULL: the pipeline stops the run
            return exc
    if done.error is not None:
        return from_dict(done.error)
    assert done.prepared is not None
    return done.prepared


class WorkerSide:
    """The resources ``executor.prepare`` needs, inside a worker: the converter runs in
    this very process (the process itself is what the driver times out and kills), the
    models load once, on first use, and stay for the worker's life. A worker on this
    machine shares the driver's vector cache (``cache_dir``); one elsewhere has none."""

    def __init__(self, models_dir: str | Path, threads: int,
                 cache_dir: str | Path | None = None) -> None:
        from citeloom.provision import use_offline_runtime

        self.models_dir = Path(models_dir)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.threads = threads
        use_offline_runtime(self.models_dir)
        self._converters: dict[Any, Any] = {}
        self._chunkers: dict[tuple[str, int], Chunker] = {}
        self._dense: dict[str, DenseEmbedder] = {}
        self._sparse: SparseEmbedder | None = None
        self.task: Task | None = None
        self.conversion: bytes | None = None
        self.convert_s = self.convert_cpu_s = self.convert_mb = 0.0

    def chunker(self, project: ProjectConfig) -> Chunker:
        key = (project.dense_model, project.chunk_max_tokens, project.chunker)
        if key not in self._chunkers:
            from citeloom.embed.chunk import project_chunker

            self._chunkers[key] = project_chunker(self.models_dir, project)
        return self._chunkers[key]

    def dense(self, model_id: str) -> DenseEmbedder:
        if model_id not in self._dense:
            from citeloom.embed.encoders import DenseEmbedder

            self._dense[model_id] = DenseEmbedder(self.models_dir, model_id,
                                                  cache_dir=self.cache_dir,
                                                  threads=self.threads)
        return self._dense[model_id]

    def sparse(self) -> SparseEmbedder:
        if self._sparse is None:
            from citeloom.embed.encoders import SparseEmbedder

            self._sparse = SparseEmbedder()
        return self._sparse

    def _converter(self, project: ProjectConfig, ocr_languages: list[str] | None) -> Any:
        from citeloom.convert.converter import build_converter
        from citeloom.provision import layout_model_path

        password = project.pdf_password_text
        langs = tuple(ocr_languages or project.ocr_languages)
        key = (project.ocr, langs, password, project.text_repair)
        if key not in self._converters:
            self._converters.clear()  # one at a time: each holds Docling's models
            self._converters[key] = build_converter(
                ocr=project.ocr, ocr_langs=list(langs),
                layout_model_path=layout_model_path(self.models_dir),
                num_threads=self.threads, pdf_password=password,
                text_repair=project.text_repair)
        return self._converters[key]

    def convert(self, path: Path, project: ProjectConfig, content_hash: str,
                ocr_languages: list[str] | None = None,
                warnings: list[dict[str, str]] | None = None) -> Any:
        """The task's cached conversion, else a new one (kept for the driver's cache). A
        damaged cache entry is converted again (the driver replaces it), and said in
        ``warnings`` (CACHE_DAMAGED), as in process."""
        from docling_core.types.doc import DoclingDocument

        from citeloom.convert.converter import convert_file
        from citeloom.convert.worker import failure_hint
        from citeloom.runtime.cache import cache_damaged, reread

        assert self.task is not None
        if self.task.cached is not None:
            try:
                doc = DoclingDocument.model_validate_json(gzip.decompress(self.task.cached))
                if not reread(doc, project) or not path.is_file():
                    return doc  # (a file gone since: its old reading is all there is)
            except Exception as exc:
                if warnings is not None:
                    warnings.append(cache_damaged(path.name, self.task.cache_name, exc))
        started, cpu = time.perf_counter(), time.process_time()
        try:
            doc = convert_file(path, self._converter(project, ocr_languages))
        except UnreadableInput as exc:
            raise ConversionFailed(f"{path.name}: {exc.reason}", exc.hint) from None
        except CiteLoomError:
            raise
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            raise ConversionFailed(f"{path.name}: {message}", failure_hint(message)) from None
        data = gzip.compress(doc.model_dump_json().encode(), compresslevel=3)
        self.conversion, self.convert_s = data, time.perf_counter() - started
        self.convert_cpu_s = time.process_time() - cpu
        self.convert_mb = peak_rss_mb()
        reset_peak_rss()  # what follows is measured apart
        # Read back as an in-process ingest reads its worker's answer: the same document.
        return DoclingDocument.model_validate_json(gzip.decompress(data))


def run_task(task: Task, project: ProjectConfig, side: WorkerSide) -> Done:
    """Prepare one task in a worker; every failure comes back as data."""
    side.task, side.conversion = task, None
    side.convert_s = side.convert_cpu_s = side.convert_mb = 0.0
    done = Done(task.key, pid=os.getpid())
    reset_peak_rss()
    started, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="citeloom-task-") as tmp:
        path: Path | None = None
        if task.data is not None:  # the file was shipped: the same name, in a folder here
            path = Path(tmp) / task.name
            path.write_bytes(task.data)
        elif task.path is not None:
            path = Path(task.path)
        unit = Unit(task.label, path=path, text=task.text, title=task.title,
                    doc_id=task.doc_id, content_hash=task.content_hash,
                    ocr_languages=task.ocr_languages, headings=task.headings)
        try:
            done.prepared = prepare(Job(unit, task.doc_id, task.content_hash), project, side)
        except CiteLoomError as exc:
            done.error = exc.to_dict()
        except Exception as exc:  # one bad file must never stop the batch
            name = task.name or task.label
            done.error = ConversionFailed(f"{name}: {type(exc).__name__}: {exc}").to_dict()
        except BaseException as exc:  # a Rust panic from a native library, say
            done.error = as_error(exc).to_dict()
    done.conversion, side.task, side.conversion = side.conversion, None, None
    done.convert_s, done.prepare_s = side.convert_s, time.perf_counter() - started
    done.convert_cpu_s, done.prepare_cpu_s = side.convert_cpu_s, time.process_time() - cpu
    done.convert_mb, done.prepare_mb = side.convert_mb, peak_rss_mb()
    if done.prepared is not None:  # in the report: which document needed how much, where
        done.prepared.worker_mb = {"convert": round(done.convert_mb),
                                   "prepare": round(done.prepare_mb)}
    return done
