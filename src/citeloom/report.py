"""What an ingest did: one :class:`FileResult` per document, an :class:`IngestReport` per
run, and the audit log (one JSON line per document, under ``<data>/audit/``) that every
ingest writes, whoever started it (CLI, MCP job, evaluation)."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["indexed", "replaced", "skipped", "failed", "removed"]
PLANNED = "planned_pages"  # beside each result a job's follower streams (Tally's file:PAGES)


@dataclass
class FileResult:
    path: str
    status: Status
    doc_id: str | None = None
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    error: dict[str, str] | None = None
    note: str = ""
    health: dict[str, Any] | None = None  # health.DocHealth of a converted file
    worker_mb: dict[str, int] | None = None  # executor.Prepared.worker_mb

    @property
    def unreadable(self) -> int:
        """Pages indexed without text: no reading of them scored as language."""
        return int((self.health or {}).get("unreadable", 0))


@dataclass
class Tally:
    """Where a run stands, for a person planning around it: files and pages done and left,
    pages per second and an estimate of the time left. Fed the run's progress events:
    ``start:FILES:PAGES`` (the plan; PAGES counts the PDFs' pages, 0 when the source cannot
    tell) and ``file:PAGES`` with each document's result (the pages the plan counted for it).
    A file skipped as unchanged, or failed, leaves the pages left without adding to the
    pages done; the rate is pages prepared per second of the run so far."""

    files_total: int | None = None
    pages_total: int = 0
    files_done: int = 0
    pages_done: int = 0
    pages_settled: int = 0
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None  # when the last planned file was done: the rate stops there

    def event(self, event: str, result: FileResult | None) -> None:
        kind, _, rest = event.partition(":")
        numbers = [int(n) for n in rest.split(":") if n.isdigit()]
        if kind == "start":
            self.files_total = numbers[0] if numbers else None
            self.pages_total = numbers[1] if len(numbers) > 1 else 0
            self.started = time.monotonic()
        elif result is not None:
            planned = numbers[0] if numbers else 0
            self.files_done += 1
            prepared = result.pages if result.status in ("indexed", "replaced") else 0
            self.pages_done += prepared
            self.pages_settled += max(planned, prepared)
            if self.files_total is not None and self.files_done >= self.files_total:
                self.ended = time.monotonic()

    @property
    def pages_left(self) -> int:
        return max(0, self.pages_total - self.pages_settled)

    def pages_per_s(self, now: float | None = None) -> float | None:
        end = self.ended if self.ended is not None else now
        elapsed = (time.monotonic() if end is None else end) - self.started
        return self.pages_done / elapsed if self.pages_done and elapsed > 0 else None

    def eta_s(self, now: float | None = None) -> float | None:
        """Seconds left at the rate so far: by pages when the plan counted them, else by
        files; None before the first document is done."""
        elapsed = (time.monotonic() if now is None else now) - self.started
        if self.files_total is not None and self.files_done >= self.files_total:
            return 0.0
        rate = self.pages_per_s(now)
        if self.pages_total and rate:
            return self.pages_left / rate
        if self.files_total is not None and self.files_done and elapsed > 0:
            return (self.files_total - self.files_done) * elapsed / self.files_done
        return None

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        rate, eta = self.pages_per_s(now), self.eta_s(now)
        return {"pages_done": self.pages_done, "pages_total": self.pages_total or None,
                "pages_left": self.pages_left if self.pages_total else None,
                "pages_per_s": round(rate, 2) if rate is not None else None,
                "eta_s": round(eta) if eta is not None else None}

    def line(self, now: float | None = None) -> str:
        """``12.3 pages/s · 140 pages left · about 11 min left``: what is known so far."""
        return tally_line(self.to_dict(now))


def tally_line(tally: dict[str, Any]) -> str:
    """A :meth:`Tally.to_dict` (a job's state, say) as a person reads it."""
    parts = []
    if tally.get("pages_per_s") is not None:
        parts.append(f"{tally['pages_per_s']:.1f} pages/s")
    if tally.get("pages_left") is not None:
        parts.append(f"{tally['pages_left']} pages left")
    if tally.get("eta_s"):
        parts.append(f"about {duration(tally['eta_s'])} left")
    return " · ".join(parts)


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2 h 05 min``: a time a person reads at a glance."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{round(s / 60)} min"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


@dataclass
class IngestReport:
    project: str
    source: str = ""
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[dict[str, str]] = field(default_factory=list)
    items_without_pdf: list[dict[str, Any]] = field(default_factory=list)
    audit_log: str | None = None
    executor: str = ""  # where documents were prepared: in process, N workers, Ray
    # The most memory this process and its workers held together (resident, in MB), sampled
    # after each document: what the machine needs for this run.
    peak_rss_mb: float = 0.0

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def outcome(self) -> Literal["ok", "partial", "failed"]:
        """``partial`` also when a document was indexed with unreadable pages: part of it
        cannot be found, and the run says so rather than "indexed"."""
        failed = self.count("failed")
        if failed and failed == len(self.files):
            return "failed"
        if failed or any(f.unreadable for f in self.files if f.status != "failed"):
            return "partial"
        return "ok"

    def health(self) -> dict[str, Any]:
        """Pages of this run's converted documents by class, and the documents not whole."""
        totals = {"ok": 0, "repaired": 0, "ocr": 0, "unreadable": 0}
        papers = {"repaired": 0, "ocr": 0, "unreadable": 0}
        for f in self.files:
            if f.health and f.status in ("indexed", "replaced"):
                for k in totals:
                    totals[k] += int(f.health.get(k, 0))
                for k in papers:
                    papers[k] += int(bool(f.health.get(k, 0)))
        return {"pages": totals, "papers": papers}

    def health_line(self) -> str:
        """What the terminal says of health after a run ("" when every page read fine)."""
        h = self.health()
        pages, papers = h["pages"], h["papers"]
        parts = []
        if pages["repaired"]:
            parts.append(f"{papers['repaired']} paper(s) had text without a Unicode map on "
                         f"{pages['repaired']} page(s): re-read from the PDF's text layer")
        if pages["ocr"]:
            parts.append(f"{papers['ocr']} paper(s) had {pages['ocr']} page(s) read by OCR")
        if pages["unreadable"]:
            parts.append(f"{papers['unreadable']} paper(s) have {pages['unreadable']} "
                         "unreadable page(s), indexed without text (exit 3)")
        return "; ".join(parts)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IngestReport:
        """A report another process made (``to_dict()``)."""
        return cls(project=data["project"], source=data.get("source", ""),
                   files=[FileResult(**f) for f in data.get("files", [])],
                   seconds=data.get("seconds", 0.0), warnings=data.get("warnings", []),
                   items_without_pdf=data.get("items_without_pdf", []),
                   audit_log=data.get("audit_log"), executor=data.get("executor", ""),
                   peak_rss_mb=data.get("peak_rss_mb", 0.0))

    @classmethod
    def merged(cls, reports: list[IngestReport]) -> IngestReport:
        """Several runs into one project (its configured folders, then each Zotero source)
        as one report; the audit log named is the last run's (each run wrote its own)."""
        first = reports[0]
        return cls(project=first.project, source=", ".join(r.source for r in reports),
                   files=[f for r in reports for f in r.files],
                   seconds=sum(r.seconds for r in reports),
                   warnings=[w for r in reports for w in r.warnings],
                   items_without_pdf=[i for r in reports for i in r.items_without_pdf],
                   audit_log=reports[-1].audit_log, executor=first.executor,
                   peak_rss_mb=max(r.peak_rss_mb for r in reports))

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "source": self.source,
            "outcome": self.outcome,
            "indexed": self.count("indexed") + self.count("replaced"),
            "replaced": self.count("replaced"),
            "removed": self.count("removed"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "chunks": sum(f.chunks for f in self.files),
            "pages": sum(f.pages for f in self.files),
            "seconds": round(self.seconds, 3),
            "files": [asdict(f) for f in self.files],
            "warnings": self.warnings,
            "items_without_pdf": self.items_without_pdf,
            "audit_log": self.audit_log,
            "executor": self.executor,
            "peak_rss_mb": round(self.peak_rss_mb),
            "health": self.health(),
        }


def write_audit(data_dir: Path, report: IngestReport, started_by: str) -> Path:
    """One JSON line per document of this run: what was done to it, its id, chunks, time,
    error and notes; then the run's warnings. Kept under ``<data>/audit/`` so a researcher
    can see what every run did."""
    audit_dir = data_dir / "audit"
    audit_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = audit_dir / f"{report.project}-{stamp}-{time.time_ns() % 1_000_000:06d}.jsonl"
    with path.open("a", encoding="utf-8") as f:
        for r in report.files:
            f.write(json.dumps({"file": r.path, "status": r.status, "doc_id": r.doc_id,
                                "chunks": r.chunks, "pages": r.pages, "seconds": r.seconds,
                                "error": r.error, "warnings": [r.note] if r.note else [],
                                "health": r.health,
                                "source": report.source, "started_by": started_by},
                               ensure_ascii=False) + "\n")
        for w in report.warnings:
            f.write(json.dumps({"warning": w}, ensure_ascii=False) + "\n")
    report.audit_log = str(path)
    return path
