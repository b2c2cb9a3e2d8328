"""Batch robustness: one bad file never stops a batch, and every failure says why and what to do.

Everything here runs for real: the conversion worker process (src/citeloom/worker.py), Docling,
the embedding models and the Edge index, through ``CiteLoom.ingest`` and the CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citeloom.config import ProjectConfig
from citeloom.service import CiteLoom, FileResult, IngestReport

from ..clirun import run_cli
from ..conftest import CORPUS

pytestmark = pytest.mark.slow

TEXT = CORPUS / "text"
EDGE = CORPUS / "edge"
ONE_PAGE = TEXT / "docling__2305.03393v1-pg9.pdf"  # arXiv 2305.03393, p. 9 (TableFormer)
FOUR_PAGES = TEXT / "cermine__test1.pdf"  # Datta et al. 2010, DVT prophylaxis
ENCRYPTED = EDGE / "docling__2206.01062_pg3_password.pdf"  # open password 1234
NOT_A_PDF = EDGE / "not_a_pdf.pdf"  # 21 bytes of text
LINN = CORPUS / "scanned" / "ocrmypdf__linn.pdf"  # dense scan, ~4 s of OCR

ALL_DONE = 600  # seconds: a batch that takes longer than this is hung


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """``fn()``, failing the test (not hanging it) when it does not return in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"did not finish within {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def by_name(files: list[FileResult] | list[dict]) -> dict[str, Any]:
    def path(f: Any) -> str:
        return f["path"] if isinstance(f, dict) else f.path

    return {Path(path(f)).name: f for f in files}


@pytest.fixture
def batch(tmp_path: Path) -> list[Path]:
    """Two good PDFs and every kind of bad file, side by side in one folder."""
    d = tmp_path / "batch"
    d.mkdir()
    shutil.copy(ONE_PAGE, d / "good_one_page.pdf")
    shutil.copy(FOUR_PAGES, d / "good_four_pages.pdf")
    shutil.copy(ENCRYPTED, d / "encrypted.pdf")
    shutil.copy(NOT_A_PDF, d / "not_a_pdf.pdf")
    (d / "empty.pdf").write_bytes(b"")
    data = FOUR_PAGES.read_bytes()
    (d / "truncated.pdf").write_bytes(data[: len(data) // 2])
    (d / "notes.xyz").write_text("not a document type CiteLoom reads\n")
    return sorted(d.iterdir())


def check_bad_files(files: dict[str, Any]) -> None:
    """Each bad file: failed, with the right code, a message naming the file and saying why,
    and (in the message or the hint) what to do about it."""

    def err(name: str) -> tuple[str, str, str]:
        f = files[name]
        status = f["status"] if isinstance(f, dict) else f.status
        error = f["error"] if isinstance(f, dict) else f.error
        assert status == "failed", (name, f)
        assert error["message"].startswith(name), error  # names the file
        assert error["hint"], error  # always says what to do next
        return error["code"], error["message"], error["message"] + " " + error["hint"]

    code, why, said = err("encrypted.pdf")
    assert code == "CONVERSION_FAILED"
    assert "encrypted" in why and "set pdf_password for the project" in said
    code, why, said = err("not_a_pdf.pdf")
    assert code == "CONVERSION_FAILED"
    assert "not a valid PDF" in why and "download the real PDF" in said
    code, why, said = err("empty.pdf")
    assert code == "CONVERSION_FAILED"
    assert "empty (0 bytes)" in why and "download or copy it again" in said
    code, why, said = err("truncated.pdf")
    assert code == "CONVERSION_FAILED"
    assert "truncated" in why and "download or copy it again" in said
    code, why, said = err("notes.xyz")
    assert code == "UNSUPPORTED_TYPE"
    assert ".xyz is not supported" in why and ".pdf" in said


def test_batch_indexes_the_good_files_and_explains_each_bad_one(make_settings,
                                                                 batch: list[Path]) -> None:
    app = CiteLoom(make_settings())
    events: list[str] = []
    try:
        report: IngestReport = within(
            ALL_DONE, lambda: app.ingest(batch, "batch", progress=lambda e, r: events.append(e)))
        files = by_name(report.files)
        assert set(files) == {p.name for p in batch}
        for name, pages in [("good_one_page.pdf", 1), ("good_four_pages.pdf", 4)]:
            assert files[name].status == "indexed", files[name]
            assert files[name].pages == pages and files[name].chunks > 0
        check_bad_files(files)
        assert report.outcome == "partial"
        assert report.count("indexed") == 2 and report.count("failed") == 5
        index = app.runtime.projects.index("batch")
        assert index.count() == sum(f.chunks for f in report.files)
        # Every file is reported, those refused before conversion too, and the total
        # announced first counts them all (a job's files_done reaches files_total), with
        # the pages PDFium counts in the PDFs (the two good ones, 1 + 4, among them).
        files_total, pages_total = map(int, events[0].removeprefix("start:").split(":"))
        assert files_total == len(batch) and pages_total >= 5
        assert sum(e.startswith("file:") for e in events) == len(batch)
        assert "file:4" in events  # good_four_pages.pdf
    finally:
        app.close()


def _cli(args: list[str], data_dir: Path, models_dir: Path, cwd: Path
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CITELOOM_CONFIG"}
    env.update(CITELOOM_DATA_DIR=str(data_dir), CITELOOM_MODELS_DIR=str(models_dir),
               COLUMNS="1000")  # rich wraps stderr at 80 columns otherwise
    return within(ALL_DONE, lambda: run_cli(args, env, cwd))


def test_cli_batch_exits_partial_with_a_reason_per_file(models_dir: Path, tmp_path: Path,
                                                         batch: list[Path]) -> None:
    out = _cli(["ingest", *map(str, batch), "-p", "batch", "--json"], tmp_path / "data",
               models_dir, cwd=tmp_path)
    assert out.returncode == 3, out.stderr  # partial
    summary = json.loads(out.stdout)
    assert summary["outcome"] == "partial"
    assert summary["indexed"] == 2 and summary["failed"] == 5 and summary["pages"] == 5
    files = by_name(summary["files"])
    assert files["good_one_page.pdf"]["status"] == files["good_four_pages.pdf"]["status"] \
        == "indexed"
    check_bad_files(files)

    # The same batch without --json: each failure on one line with its code and its hint.
    human = _cli(["ingest", *map(str, batch), "-p", "batch"], tmp_path / "data", models_dir,
                 cwd=tmp_path)
    assert human.returncode == 3
    for name in ("encrypted.pdf", "not_a_pdf.pdf", "empty.pdf", "truncated.pdf", "notes.xyz"):
        line = next(ln for ln in human.stderr.splitlines() if name in ln and ": " in ln
                    and ("CONVERSION_FAILED" in ln or "UNSUPPORTED_TYPE" in ln))
        assert " — " in line  # message — hint

    optimized = _cli(["optimize", "-p", "batch"], tmp_path / "data", models_dir, cwd=tmp_path)
    assert optimized.returncode == 0, optimized.stderr
    assert optimized.stdout.startswith("batch: optimized in ")
    assert f"({sum(f['chunks'] for f in summary['files'])} chunks)" in optimized.stdout


def test_only_bad_files_exit_4(models_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "empty.pdf"
    bad.write_bytes(b"")
    out = _cli(["ingest", str(bad), "-p", "bad", "--json"], tmp_path / "data", models_dir,
               cwd=tmp_path)
    assert out.returncode == 4, out.stderr
    assert json.loads(out.stdout)["outcome"] == "failed"


def test_encrypted_pdf_opens_with_the_project_password(make_settings, tmp_path: Path) -> None:
    app = CiteLoom(make_settings(projects={
        "locked": ProjectConfig(name="locked", pdf_password="1234")}))
    try:
        report = within(ALL_DONE, lambda: app.ingest([ENCRYPTED], "locked"))
        (result,) = report.files
        assert result.status == "indexed", result.error
        assert result.pages == 1 and result.chunks > 0
        text = " ".join(h.payload["chunk_text"]
                        for h in app.runtime.projects.index("locked").scroll())
        assert "DocLayNet" in text  # arXiv 2206.01062, p. 3
    finally:
        app.close()

    # Same data dir, so the first project's conversion is in the cache: a wrong password and
    # no password are still refused (and told apart), because the cache is keyed by the
    # password too, and the right one in another project reuses it.
    app = CiteLoom(make_settings(projects={
        "wrong": ProjectConfig(name="wrong", pdf_password="4321"),
        "none": ProjectConfig(name="none"),
        "again": ProjectConfig(name="again", pdf_password="1234")}))
    try:
        (wrong,) = within(ALL_DONE, lambda: app.ingest([ENCRYPTED], "wrong")).files
        assert wrong.status == "failed" and wrong.error["code"] == "CONVERSION_FAILED"
        assert "pdf_password does not open it" in wrong.error["message"]
        assert "set the right pdf_password" in wrong.error["message"] + wrong.error["hint"]
        (none,) = within(ALL_DONE, lambda: app.ingest([ENCRYPTED], "none")).files
        assert none.status == "failed" and "encrypted" in none.error["message"]
        def no_conversion(*_a: object, **_k: object) -> None:
            raise AssertionError("converted again")

        app.runtime.models.worker = no_conversion  # type: ignore[method-assign]
        (again,) = app.ingest([ENCRYPTED], "again").files
        assert again.status == "indexed" and again.chunks == result.chunks
        # OCR off is its own entry too; default settings keep the plain content key.
        plain, no_ocr = (app.runtime.cache.path("h", ProjectConfig(name="x", ocr=ocr)).name
                         for ocr in (True, False))
        assert plain == "h.json.gz" and no_ocr == "h-noocr.json.gz"
    finally:
        app.close()


def test_unsupported_extension_fails_without_starting_a_worker(make_settings,
                                                               tmp_path: Path) -> None:
    odd = tmp_path / "data.xyz"
    odd.write_text("1,2,3\n")
    app = CiteLoom(make_settings())
    try:
        report = within(60, lambda: app.ingest([odd], "odd"))
        (result,) = report.files
        assert result.error["code"] == "UNSUPPORTED_TYPE"
        assert report.outcome == "failed"
        assert not app.runtime.models.running_workers  # rejected before any conversion
    finally:
        app.close()


@pytest.fixture(scope="module")
def long_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six dense scanned pages: about 25 s of Tesseract, 12 s or more on two cores."""
    import pypdfium2 as pdfium

    path = tmp_path_factory.mktemp("scan") / "long_scan.pdf"
    out = pdfium.PdfDocument.new()
    with pdfium.PdfDocument(str(LINN)) as src:
        for _ in range(6):
            out.import_pages(src)
    out.save(str(path))
    out.close()
    return path


def _small_batch(tmp_path: Path, long_scan: Path) -> list[Path]:
    notes = tmp_path / "first.md"
    notes.write_text("# Notes\n\nThe worker converts this first.\n")
    last = tmp_path / "last.pdf"
    shutil.copy(ONE_PAGE, last)
    return [notes, long_scan, last]


def test_a_document_may_take_longer_for_each_page(long_scan: Path, tmp_path: Path) -> None:
    """The deadline is conversion_timeout_s plus conversion_page_s a page of a PDF; other
    files, and a PDF PDFium cannot open, get the base alone."""
    from citeloom.convert.worker import deadline_s

    project = ProjectConfig(name="p", conversion_timeout_s=6, conversion_page_s=10)
    assert deadline_s(long_scan, project) == 6 + 10 * 6
    assert deadline_s(ONE_PAGE, project) == 6 + 10
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really\n%%EOF\n")
    assert deadline_s(notes, project) == deadline_s(broken, project) == 6
    assert deadline_s(long_scan, project.model_copy(update={"conversion_page_s": 0})) == 6


@pytest.mark.own_cache  # the conversion itself is what is timed
def test_a_long_document_gets_time_for_its_pages(make_settings, long_scan: Path) -> None:
    """The scan that a 6 s deadline kills (the test below) converts when each page adds
    10 s: a long document is not a hung one. (TeX Live's 177-page toptesi-it.pdf failed at
    the old flat 300 s under --workers 2.)"""
    settings = make_settings(projects={
        "long": ProjectConfig(name="long", conversion_timeout_s=6, conversion_page_s=10)})
    app = CiteLoom(settings)
    try:
        report = within(ALL_DONE, lambda: app.ingest([long_scan], "long"))
    finally:
        app.close()
    [result] = report.files
    assert result.status == "indexed", result.error
    assert result.seconds > 6  # it did need more than the base


@pytest.mark.own_cache  # the conversion itself is what is timed out or killed
def test_hard_timeout_kills_a_long_conversion_and_the_batch_goes_on(
        make_settings, tmp_path: Path, long_scan: Path) -> None:
    timeout = 6.0
    settings = make_settings(projects={
        "slow": ProjectConfig(name="slow", conversion_timeout_s=timeout, conversion_page_s=0)})
    app = CiteLoom(settings)
    pids: set[int] = set()

    def watch(event: str, result: FileResult | None) -> None:
        pids.update(w._proc.pid for w in app.runtime.models.running_workers if w._proc is not None)

    try:
        report = within(ALL_DONE, lambda: app.ingest(_small_batch(tmp_path, long_scan), "slow",
                                                      progress=watch))
        files = by_name(report.files)
        killed = files["long_scan.pdf"]
        assert killed.status == "failed" and killed.error["code"] == "CONVERSION_FAILED"
        assert f"longer than {timeout:.0f} s" in killed.error["message"]
        assert "conversion_timeout_s" in killed.error["hint"]
        # Stopped at the deadline (the worker was warm), not when the scan was done.
        assert timeout <= killed.seconds < timeout + 6  # + 2 s for a graceful stop
        assert files["first.md"].status == files["last.pdf"].status == "indexed"
        assert report.outcome == "partial"
        assert len(pids) == 2  # the killed worker and its replacement
    finally:
        app.close()


@pytest.mark.own_cache  # the conversion itself is what is timed out or killed
def test_worker_crash_fails_that_file_only(make_settings, tmp_path: Path,
                                           long_scan: Path) -> None:
    app = CiteLoom(make_settings())
    killed: list[int] = []

    def kill_soon() -> None:
        time.sleep(2.0)  # the long scan is being converted now
        (worker,) = app.runtime.models.running_workers
        killed.append(worker._proc.pid)
        os.kill(worker._proc.pid, signal.SIGKILL)

    def progress(event: str, result: FileResult | None) -> None:
        if result is not None and Path(result.path).name == "first.md":
            threading.Thread(target=kill_soon, daemon=True).start()

    try:
        report = within(ALL_DONE, lambda: app.ingest(_small_batch(tmp_path, long_scan), "crash",
                                                      progress=progress))
        files = by_name(report.files)
        assert killed, "the worker was never killed"
        crashed = files["long_scan.pdf"]
        assert crashed.status == "failed" and crashed.error["code"] == "CONVERSION_FAILED"
        assert crashed.error["message"].startswith("long_scan.pdf: ")
        assert crashed.error["hint"]
        assert crashed.seconds < 60  # reported at once, not after the 300 s timeout
        assert files["first.md"].status == files["last.pdf"].status == "indexed"
        assert files["last.pdf"].chunks > 0
        assert report.outcome == "partial"
        # The page images the killed worker left for Tesseract were swept by its successor.
        from citeloom.convert.ocr import OCR_TMP_ROOT

        assert not (OCR_TMP_ROOT / str(killed[0])).exists()
    finally:
        app.close()
