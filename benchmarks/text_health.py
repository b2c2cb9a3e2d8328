"""Text-health benchmark: what the repair ladder (src/citeloom/ocr.py ``_repair``) costs and
what it buys, per PDF and at library scale.

Two modes:

``corpus PATH...`` — every PDF (files, or folders searched recursively) is converted twice in
one process, interleaved per file — before (``build_converter(text_repair=False)``: the
parser's text as it is) then after (``text_repair=True``, the default) — so that a change in
the machine's load touches both alike. Per file: pages, seconds and pages/s before and
after; the pages by class before and after; and a check of the ladder's promise.

* *before* classes: the before-conversion's text per page, scored by
  :func:`citeloom.convert.texthealth.health` under the ledger's own rule (its ledger is dropped and
  :func:`citeloom.convert.health.ledger_of` scores the pages: below ``UNREADABLE`` (0.6) a page is
  ``unreadable``); ``poor`` also counts the pages below ``OK`` (0.9).
* *after* classes: the ledger the conversion wrote (ok / repaired / ocr / unreadable), and
  ``poor``: pages whose final text scores below 0.9.
* *violations*: pages whose PDFium text layer (pypdfium2 ``get_text_range()``) reads as words
  (at least 40 characters, score ≥ 0.9) but which are not indexed as words after: the
  after-page text scores below 0.9 and its class is not ok / repaired / ocr. ``strict``
  (JSON only) also counts such pages whose after text is below 0.9 or nearly empty, whatever
  their class.
* *slowdown on fine PDFs*: pages/s after ÷ pages/s before, over the files whose before-text
  had no page below 0.9 (nothing for the ladder to do: its cost is only the scoring).
  Target: ≥ 0.90 (at most 10 % slower).
* peak RSS of this process (``getrusage``; Tesseract children apart).

``ingest DIR --n N --seed S`` — the library-scale run: N PDFs under DIR picked
deterministically (sorted paths, ``random.Random(seed).sample``), ingested by one
``citeloom ingest FILE... -p PROJECT --json`` subprocess into a fresh temporary data dir
(``CITELOOM_DATA_DIR``, ``CITELOOM_DAEMON=off``, an empty ``citeloom.toml`` in its working
directory so no configuration applies) under a hard wall-clock ``--timeout``; the process
tree's RSS is sampled every 2 s (psutil if installed, else /proc). Records the exit code,
files indexed / failed (by error code), pages, seconds, pages/s, the report's ``health``
block, crashes (exit code not 0 or 3), hangs (timeout) and peak RSS.

    .venv/bin/python benchmarks/text_health.py corpus ../shared/corpus2/pdfs/*.pdf \\
        --out benchmarks/results/text_health_corpus2.json
    .venv/bin/python benchmarks/text_health.py ingest /work/texlive-sample/root --n 200 \\
        --seed 0 --out benchmarks/results/text_health_texlive.json

Both write a JSON of results to ``--out`` (default benchmarks/results/text_health.json;
corpus mode rewrites it after every file, so a long run can be watched or stopped) and print
a Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "text_health.json"
FINE_SLOWDOWN_TARGET = 0.90  # pages/s after / before on fine PDFs: at most 10 % slower
CLASS_OF = {"parser": "ok", "text-layer": "repaired", "ocr": "ocr", "unreadable": "unreadable"}


def _quiet() -> None:
    """Docling and its models warn a lot; the tables are what this prints."""
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    os.environ.setdefault("TQDM_DISABLE", "1")


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="minutes")


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _machine() -> str:
    try:
        from citeloom.eval.scifact import machine_summary

        return machine_summary()
    except Exception:  # noqa: BLE001 - only a label
        return f"{os.cpu_count()} cores"


def _pdfs(paths: list[Path]) -> list[Path]:
    """PDF files named, and those under folders named (recursively), sorted, no repeats."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found += sorted(q for q in p.rglob("*") if q.suffix.lower() == ".pdf" and q.is_file())
        elif p.is_file():
            found.append(p)
        else:
            raise SystemExit(f"{p}: no such file or folder")
    seen: set[Path] = set()
    return [p for p in found if not (p.resolve() in seen or seen.add(p.resolve()))]


def _write(out: Path, result: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    tmp.replace(out)


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


# -- corpus mode --------------------------------------------------------------------------


def pdfium_pages(path: Path) -> dict[int, Any]:
    """PDFium's text of each page (1-based, as Docling counts), scored."""
    import pypdfium2 as pdfium

    from citeloom.convert.texthealth import health

    result: dict[int, Any] = {}
    pdf = pdfium.PdfDocument(str(path))
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            try:
                textpage = page.get_textpage()
                try:
                    result[i + 1] = health(textpage.get_text_range())
                finally:
                    textpage.close()
            finally:
                page.close()
    finally:
        pdf.close()
    return result


def before_classes(doc: Any) -> dict[str, Any]:
    """A ``text_repair=False`` conversion's pages by class, from their text by score: its
    ledger (which, without the ladder, calls every page ``parser``) is dropped, so that
    :func:`ledger_of` scores the text itself (below UNREADABLE: unreadable)."""
    from citeloom.convert.health import META_FIELD, ledger_of, page_entries, page_texts
    from citeloom.convert.texthealth import OK, health

    parser_scores = {p: e.get("score") for p, e in (page_entries(doc) or {}).items()}
    meta = getattr(doc.body, "meta", None)
    if meta is not None and getattr(meta, META_FIELD, None) is not None:
        setattr(meta, META_FIELD, None)
    ledger = ledger_of(doc)
    scores = {p: health(t).score for p, t in page_texts(doc).items()}
    poor = sorted(p for p, s in scores.items() if s < OK)
    return {"pages": ledger.pages, "ok": ledger.ok, "unreadable": ledger.unreadable,
            "poor": len(poor), "poor_pages": poor, "unreadable_pages": ledger.unreadable_pages,
            "min_score": round(ledger.score, 3),
            # The ladder's own view: its ledger's score of the parser's cells per page.
            "parser_scores": {str(p): s for p, s in sorted(parser_scores.items())}}


def after_classes(doc: Any) -> tuple[dict[str, Any], dict[int, str], dict[int, Any]]:
    """A ``text_repair=True`` conversion's pages by class (its ledger), the class of each
    page and each page's final text health."""
    from citeloom.convert.health import ledger_of, page_entries, page_texts
    from citeloom.convert.texthealth import OK, health

    ledger = ledger_of(doc)
    classes = {p: CLASS_OF.get(e.get("method", "parser"), "ok")
               for p, e in (page_entries(doc) or {}).items()}
    final = {p: health(t) for p, t in page_texts(doc).items()}
    poor = sorted(p for p, h in final.items() if h.score < OK)
    counts = {"pages": ledger.pages, "ok": ledger.ok, "repaired": ledger.repaired,
              "ocr": ledger.ocr, "unreadable": ledger.unreadable, "poor": len(poor),
              "poor_pages": poor, "unreadable_pages": ledger.unreadable_pages,
              "min_score": round(ledger.score, 3), "ledger": ledger.ledger}
    return counts, classes, final


def check_words(pdfium: dict[int, Any], classes: dict[int, str],
                final: dict[int, Any]) -> dict[str, Any]:
    """Pages whose PDFium text reads as words, and those of them not indexed as words."""
    from citeloom.convert.texthealth import MIN_CHARS, OK, Health

    empty = Health(1.0, 0.0, None, 0, 0)
    good = sorted(p for p, h in pdfium.items() if h.judged and h.score >= OK)
    violations, strict = [], []
    for p in good:
        after = final.get(p, empty)
        cls = classes.get(p, "ok")
        if after.score < OK and cls not in ("ok", "repaired", "ocr"):
            violations.append(p)
        if after.score < OK or cls == "unreadable" or after.chars < MIN_CHARS:
            strict.append(p)
    return {"pdfium_word_pages": len(good), "violations": len(violations),
            "violation_pages": violations, "strict": len(strict), "strict_pages": strict}


def _rss_mb() -> dict[str, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"peak_rss_mb": round(own), "peak_child_rss_mb": round(kids)}


def _convert(path: Path, converter: Any) -> tuple[Any, float, str | None]:
    from citeloom.convert.converter import convert_file

    t0 = time.perf_counter()
    try:
        doc = convert_file(path, converter)
    except Exception as exc:  # noqa: BLE001 - a failed file is a result too
        return None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"[:300]
    return doc, time.perf_counter() - t0, None


def corpus_file(path: Path, converters: dict[str, Any], order: tuple[str, str]) -> dict:
    row: dict[str, Any] = {"file": str(path), "name": path.name, "order": list(order)}
    try:
        pdfium = pdfium_pages(path)
        row["pdfium_pages"] = len(pdfium)
    except Exception as exc:  # noqa: BLE001 - e.g. encrypted: the check is skipped
        pdfium, row["pdfium_error"] = {}, f"{type(exc).__name__}: {exc}"[:300]
    docs: dict[str, Any] = {}
    for side in order:
        doc, seconds, error = _convert(path, converters[side])
        row[f"{side}_s"] = round(seconds, 3)
        if error:
            row[f"{side}_error"] = error
        docs[side] = doc
    if docs["before"] is not None:
        row["before"] = before_classes(docs["before"])
    if docs["after"] is not None:
        row["after"], classes, final = after_classes(docs["after"])
        row["words_check"] = check_words(pdfium, classes, final)
    pages = (row.get("after") or row.get("before") or {}).get("pages") or len(pdfium)
    row["pages"] = pages
    for side in ("before", "after"):
        row[f"{side}_pages_per_s"] = (round(pages / row[f"{side}_s"], 3)
                                      if row.get(f"{side}_s") else None)
    row["fine_before"] = "before" in row and row["before"]["poor"] == 0
    return row


def corpus_totals(files: list[dict]) -> dict[str, Any]:
    both = [f for f in files if "before" in f and "after" in f]
    tot: dict[str, Any] = {"files": len(files), "converted_both": len(both),
                           "failed_before": sum(1 for f in files if "before_error" in f),
                           "failed_after": sum(1 for f in files if "after_error" in f)}
    tot["pages"] = sum(f["pages"] for f in both)
    for side in ("before", "after"):
        tot[f"{side}_s"] = round(sum(f[f"{side}_s"] for f in both), 3)
        tot[f"{side}_pages_per_s"] = _ratio(tot["pages"], tot[f"{side}_s"])
    for key in ("ok", "unreadable", "poor"):
        tot[f"before_{key}"] = sum(f["before"][key] for f in both)
    for key in ("ok", "repaired", "ocr", "unreadable", "poor"):
        tot[f"after_{key}"] = sum(f["after"][key] for f in both)
    for key in ("pdfium_word_pages", "violations", "strict"):
        tot[key] = sum(f["words_check"][key] for f in both)
    fine = [f for f in both if f["fine_before"]]
    fine_pages = sum(f["pages"] for f in fine)
    fine_before = _ratio(fine_pages, sum(f["before_s"] for f in fine))
    fine_after = _ratio(fine_pages, sum(f["after_s"] for f in fine))
    ratio = _ratio(fine_after or 0, fine_before or 0) if fine_before else None
    per_file = sorted(f["before_s"] / f["after_s"] for f in fine if f["after_s"])
    tot["fine"] = {
        "files": len(fine), "pages": fine_pages, "before_pages_per_s": fine_before,
        "after_pages_per_s": fine_after,
        "ratio_after_over_before": ratio,  # pages/s after / before (1.0: same speed)
        "median_file_ratio": round(per_file[len(per_file) // 2], 3) if per_file else None,
        "target": FINE_SLOWDOWN_TARGET,
        "meets_target": None if ratio is None else ratio >= FINE_SLOWDOWN_TARGET,
    }
    return tot


def corpus_markdown(result: dict[str, Any]) -> str:
    t = result["totals"]
    lines = [
        f"Text health, corpus mode: {t['files']} PDF(s), measured {result['date']} on "
        f"{result['machine']}; load average {result['load_before']} before, "
        f"{result.get('load_after', '?')} after; peak RSS {result.get('peak_rss_mb', '?')} MB "
        f"(Tesseract children: {result.get('peak_child_rss_mb', '?')} MB).",
        "",
        "Before: `text_repair=False`, classes by text score (ok / poor < 0.9 / unreadable "
        "< 0.6). After: the ladder's ledger (ok / repaired / ocr / unreadable; poor: final "
        "text < 0.9). Violations: pages whose PDFium text reads as words, not indexed as words "
        "after.",
        "",
        "| file | pages | s before | s after | pages/s before | pages/s after | before "
        "ok/poor/unread. | after ok/rep./ocr/unread. (poor) | PDFium-word pages | violations |",
        "|---|---:|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for f in result["files"]:
        if "before" not in f or "after" not in f:
            err = f.get("before_error") or f.get("after_error") or "?"
            lines.append(f"| {f['name']} | {f['pages']} | {f.get('before_s', '')} | "
                         f"{f.get('after_s', '')} | | | failed: {err[:60]} | | | |")
            continue
        b, a, w = f["before"], f["after"], f["words_check"]
        lines.append(
            f"| {f['name']} | {f['pages']} | {f['before_s']:.2f} | {f['after_s']:.2f} | "
            f"{f['before_pages_per_s']} | {f['after_pages_per_s']} | "
            f"{b['ok']}/{b['poor']}/{b['unreadable']} | "
            f"{a['ok']}/{a['repaired']}/{a['ocr']}/{a['unreadable']} ({a['poor']}) | "
            f"{w['pdfium_word_pages']} | {w['violations']} |")
    lines.append(
        f"| **total** ({t['converted_both']} converted both ways) | {t['pages']} | "
        f"{t['before_s']:.2f} | {t['after_s']:.2f} | {t['before_pages_per_s']} | "
        f"{t['after_pages_per_s']} | {t['before_ok']}/{t['before_poor']}/"
        f"{t['before_unreadable']} | {t['after_ok']}/{t['after_repaired']}/{t['after_ocr']}/"
        f"{t['after_unreadable']} ({t['after_poor']}) | {t['pdfium_word_pages']} | "
        f"{t['violations']} |")
    fine = t["fine"]
    verdict = {True: "meets", False: "misses", None: "not measured:"}[fine["meets_target"]]
    lines += ["", f"Slowdown on fine PDFs ({fine['files']} file(s), {fine['pages']} pages, no "
              f"page below 0.9 before): pages/s after / before = "
              f"{fine['ratio_after_over_before']} ({fine['before_pages_per_s']} → "
              f"{fine['after_pages_per_s']} pages/s; median per file "
              f"{fine['median_file_ratio']}); {verdict} the target ≥ {fine['target']} "
              f"(at most 10 % slower)."]
    if t["failed_before"] or t["failed_after"]:
        lines.append(f"Failed conversions: {t['failed_before']} before, "
                     f"{t['failed_after']} after.")
    return "\n".join(lines)


def run_corpus(args: argparse.Namespace) -> dict[str, Any]:
    _quiet()
    from docling.datamodel.base_models import InputFormat

    from citeloom.convert.converter import build_converter
    from citeloom.provision import layout_model_path

    pdfs = _pdfs(args.paths)
    if args.limit:
        pdfs = pdfs[: args.limit]
    if not pdfs:
        raise SystemExit("no PDF found")
    result: dict[str, Any] = {"mode": "corpus", "date": _now(), "machine": _machine(),
                              "load_before": _load(), "threads": args.threads,
                              "document_timeout": args.timeout, "files": []}
    converters = {}
    t0 = time.perf_counter()
    for side, repair in (("before", False), ("after", True)):
        converters[side] = build_converter(
            ocr=True, layout_model_path=layout_model_path(args.models_dir),
            num_threads=args.threads, document_timeout=args.timeout, text_repair=repair)
        converters[side].initialize_pipeline(InputFormat.PDF)  # models loaded untimed
    result["init_s"] = round(time.perf_counter() - t0, 2)
    for i, path in enumerate(pdfs):
        order = ("after", "before") if args.alternate and i % 2 else ("before", "after")
        row = corpus_file(path, converters, order)
        result["files"].append(row)
        print(f"[{i + 1}/{len(pdfs)}] {path.name}: {row['pages']} pages, "
              f"{row.get('before_s')} s before, {row.get('after_s')} s after", file=sys.stderr)
        result["totals"] = corpus_totals(result["files"])
        result.update(_rss_mb())
        _write(args.out, result)
    result["load_after"] = _load()
    return result


# -- ingest mode --------------------------------------------------------------------------


def pick(folder: Path, n: int, seed: int) -> list[Path]:
    pdfs = _pdfs([folder])
    if n >= len(pdfs):
        return pdfs
    return sorted(random.Random(seed).sample(pdfs, n))


def tree_rss_mb(pid: int) -> tuple[float, float, int, float]:
    """RSS of a process and all its descendants: total MB, largest one's MB, processes, and
    the root process's own MB (the ingest's parent)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0.0, 0.0, 0, 0.0
        sizes = []
        for p in procs:
            with contextlib.suppress(psutil.Error):
                sizes.append(p.memory_info().rss / 2**20)
    else:
        from citeloom.system import process_tree, rss_mb

        sizes = [rss_mb(p) for p in process_tree(pid)]
    return sum(sizes), max(sizes, default=0.0), len(sizes), (sizes[0] if sizes else 0.0)


class Sampler(threading.Thread):
    """Samples a process tree's RSS every ``interval`` seconds until stopped."""

    def __init__(self, pid: int, interval: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_total = self.peak_one = 0.0
        self.peak_procs = self.samples = 0
        self.series: list[tuple[float, int, int]] = []  # (s since start, tree MB, parent MB)
        self.stop = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        while not self.stop.is_set():
            total, one, procs, parent = tree_rss_mb(self.pid)
            self.peak_total, self.peak_one = max(self.peak_total, total), max(self.peak_one, one)
            self.peak_procs = max(self.peak_procs, procs)
            self.samples += 1
            self.series.append((round(time.monotonic() - started, 1), round(total), round(parent)))
            self.stop.wait(self.interval)

    def halves(self) -> tuple[int, int]:
        """The peak tree RSS of the first and of the second half of the run (MB): flat
        memory has the second no higher than the first."""
        mid = len(self.series) // 2
        first = max((row[1] for row in self.series[:mid]), default=0)
        return first, max((row[1] for row in self.series[mid:]), default=0)


def ingest_summary(report: dict[str, Any]) -> dict[str, Any]:
    files = report.get("files", [])
    errors = Counter((f.get("error") or {}).get("code", "?") for f in files
                     if f.get("status") == "failed")
    statuses = Counter(f.get("status") for f in files)
    seconds = report.get("seconds") or 0.0
    pages = report.get("pages", 0)
    return {"outcome": report.get("outcome"), "indexed": report.get("indexed", 0),
            "failed": report.get("failed", 0), "skipped": report.get("skipped", 0),
            "statuses": dict(statuses), "failed_by_code": dict(errors.most_common()),
            "pages": pages, "chunks": report.get("chunks", 0), "seconds": seconds,
            "pages_per_s": _ratio(pages, seconds), "executor": report.get("executor"),
            "health": report.get("health"),
            "partial_files": [{"path": f["path"], "health": f.get("health")} for f in files
                              if (f.get("health") or {}).get("unreadable")],
            "failures": [{"path": f["path"], "error": f.get("error")} for f in files
                         if f.get("status") == "failed"],
            # The documents whose worker held the most (its peak while on that document,
            # by step; the report gives it for pool and Ray workers).
            "worker_peaks": sorted(({"path": f["path"], "pages": f.get("pages", 0),
                                     **f["worker_mb"]} for f in files if f.get("worker_mb")),
                                   key=lambda r: -max(r["convert"], r["prepare"]))[:15]}


def run_ingest(args: argparse.Namespace) -> dict[str, Any]:
    files = [f.resolve() for f in pick(args.folder, args.n, args.seed)]  # cwd: a temp dir
    if not files:
        raise SystemExit(f"no PDF under {args.folder}")
    if args.work_dir:  # a kept run's folder: its conversion cache serves this run
        work = args.work_dir.resolve()
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="citeloom-text-health-"))
    (work / "citeloom.toml").write_text("")  # found first: no configuration applies
    env = {**os.environ, "CITELOOM_DATA_DIR": str(work / "data"),
           "CITELOOM_MODELS_DIR": str(args.models_dir), "CITELOOM_CONFIG": "",
           "CITELOOM_DAEMON": "off"}
    for var in ("CITELOOM_PROJECT", "RUST_BACKTRACE"):
        env.pop(var, None)
    cmd = [sys.executable, "-m", "citeloom.cli", "ingest", *map(str, files),
           "-p", args.project, "--json"]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    result: dict[str, Any] = {
        "mode": "ingest", "date": _now(), "machine": _machine(), "load_before": _load(),
        "folder": str(args.folder.resolve()), "n": args.n, "seed": args.seed, "picked": len(files),
        "timeout_s": args.timeout, "workers": args.workers,
        "files": [str(f) for f in files],
        "command": "citeloom ingest <files> -p " + args.project + " --json"
        + (f" --workers {args.workers}" if args.workers else ""),
        "data_dir": str(work / "data")}
    stdout, stderr = work / "stdout.json", work / "stderr.txt"
    t0 = time.perf_counter()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        proc = subprocess.Popen(cmd, env=env, cwd=work, stdout=out, stderr=err,
                                start_new_session=True)
        sampler = Sampler(proc.pid, args.sample_s)
        sampler.start()
        hung = False
        try:
            rc = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            hung = True
            os.killpg(proc.pid, signal.SIGKILL)  # the ingest we started, and its workers
            rc = proc.wait()
        sampler.stop.set()
        sampler.join()
    wall = time.perf_counter() - t0
    result.update({"exit_code": rc, "wall_s": round(wall, 1), "hang": hung,
                   "crash": not hung and rc not in (0, 3),
                   "peak_rss_tree_mb": round(sampler.peak_total),
                   "peak_rss_process_mb": round(sampler.peak_one),
                   "peak_rss_parent_mb": max((row[2] for row in sampler.series), default=0),
                   "peak_processes": sampler.peak_procs, "rss_samples": sampler.samples,
                   "peak_rss_tree_mb_halves": sampler.halves(), "rss_series": sampler.series,
                   "load_after": _load()})
    text = stdout.read_text(errors="replace")
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        report = None
    if isinstance(report, dict) and "files" in report:
        result.update(ingest_summary(report))
        result["report"] = report
    else:
        result["report_missing"] = True
        result["error"] = report.get("error") if isinstance(report, dict) else None
        result["stdout_tail"] = text[-2000:]
    result["stderr_tail"] = stderr.read_text(errors="replace")[-3000:]
    if args.keep or args.work_dir:
        result["work_dir"] = str(work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return result


def ingest_markdown(r: dict[str, Any]) -> str:
    health = r.get("health") or {}
    pages, papers = health.get("pages", {}), health.get("papers", {})
    codes = ", ".join(f"{k} {v}" for k, v in (r.get("failed_by_code") or {}).items()) or "–"
    return "\n".join([
        f"Text health, ingest mode: {r['picked']} PDF(s) from {r['folder']} (seed {r['seed']}), "
        f"measured {r['date']} on {r['machine']}; load average {r['load_before']} before, "
        f"{r.get('load_after', '?')} after.",
        "",
        "| files | indexed | failed (by code) | pages | s (ingest) | wall s | pages/s | pages ok "
        "/ repaired / ocr / unreadable | papers repaired / ocr / unreadable | exit | crash | "
        "hang | peak RSS tree / process |",
        "|---:|---:|---|---:|---:|---:|---:|---|---|---:|---|---|---|",
        f"| {r['picked']} | {r.get('indexed', '–')} | {r.get('failed', '–')} ({codes}) | "
        f"{r.get('pages', '–')} | {r.get('seconds', '–')} | {r['wall_s']} | "
        f"{r.get('pages_per_s', '–')} | {pages.get('ok', '–')} / {pages.get('repaired', '–')} / "
        f"{pages.get('ocr', '–')} / {pages.get('unreadable', '–')} | "
        f"{papers.get('repaired', '–')} / {papers.get('ocr', '–')} / "
        f"{papers.get('unreadable', '–')} | {r['exit_code']} | {'yes' if r['crash'] else 'no'} | "
        f"{'yes' if r['hang'] else 'no'} | {r['peak_rss_tree_mb']} / "
        f"{r['peak_rss_process_mb']} MB |",
    ])


# -- main ---------------------------------------------------------------------------------


def _default_models_dir() -> Path:
    from citeloom.config import default_models_dir

    return default_models_dir()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    co = sub.add_parser("corpus", help="convert each PDF before and after the repair ladder")
    co.add_argument("paths", nargs="+", type=Path, help="PDF files or folders (recursive)")
    co.add_argument("--limit", type=int, help="only the first N PDFs (sorted per folder)")
    co.add_argument("--threads", type=int, default=2, help="layout model threads (default 2)")
    co.add_argument("--timeout", type=float, default=None,
                    help="Docling document_timeout in seconds (default none)")
    co.add_argument("--alternate", action="store_true",
                    help="after-then-before on every second file (default: always before "
                    "then after)")
    in_ = sub.add_parser("ingest", help="one `citeloom ingest` of N PDFs picked under DIR")
    in_.add_argument("folder", type=Path, help="folder searched recursively for PDFs")
    in_.add_argument("--n", type=int, default=200, help="PDFs to pick (default 200)")
    in_.add_argument("--seed", type=int, default=0)
    in_.add_argument("--project", default="texthealth")
    in_.add_argument("--timeout", type=float, default=3 * 3600,
                     help="hard wall-clock limit in seconds (default 3 h): then a hang")
    in_.add_argument("--workers", type=int, help="passed as ingest --workers (default: its own)")
    in_.add_argument("--sample-s", type=float, default=2.0, help="RSS sampling interval")
    in_.add_argument("--keep", action="store_true", help="keep the temporary data dir")
    in_.add_argument("--work-dir", type=Path,
                     help="use (and keep) this folder for the data dir, e.g. a kept run's, "
                          "whose conversion cache then serves the run; pick a new --project")
    for p in (co, in_):
        p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON of results")
        p.add_argument("--models-dir", type=Path, default=None,
                       help="CiteLoom models folder (default: the provisioned one)")
    args = ap.parse_args(argv)
    if args.models_dir is None:
        args.models_dir = _default_models_dir()
    if args.mode == "corpus":
        result = run_corpus(args)
        table = corpus_markdown(result)
    else:
        result = run_ingest(args)
        table = ingest_markdown(result)
    _write(args.out, result)
    print(table)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
