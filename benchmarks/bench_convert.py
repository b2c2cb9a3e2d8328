"""Conversion benchmark: text PDFs through Docling + chunking, scanned pages through OCR.

Every run is a fresh child process (so peak RSS is that of one run: Docling, the layout
model and the tokenizer loaded; Tesseract runs beside it, ~90 MB each), repeated ``--runs``
times; medians are reported. Model loading, pipeline initialisation and one warm-up
conversion (a small scanned page) are timed apart from the conversions, as in a
long-lived conversion worker.

Sets:

* ``text``: every PDF in ../shared/corpus/pdfs/text/, converted *and* chunked with the dense
  model's tokenizer (what ingest does before embedding) -> s/page and pages/s.
* ``scanned``: every image-only PDF in ../shared/corpus/pdfs/scanned/ -> s/page per file,
  and word recall on ocrmypdf__linn.pdf against its ground truth.
* ``scanned_multi``: the same five scanned pages as one 5-page PDF (pages are OCRed two
  at a time on two threads).
* ``scanned_stock`` (skip with ``--no-baseline``): the scanned set with Docling's own
  Tesseract CLI model (orientation detection on every region, PNG files), for comparison.

    .venv/bin/python benchmarks/bench_convert.py [--runs 3] [--out benchmarks/results]

Writes ``convert.json`` and prints a Markdown table (docs/CONVERSION.md keeps the figures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from citeloom.eval.scifact import machine_summary, word_recall

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs"
TEXT = CORPUS / "text"
SCANNED = CORPUS / "scanned"
LINN_TRUTH = SCANNED / "ocrmypdf__linn.groundtruth.txt"
DENSE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
WARM_UP = SCANNED / "ocrmypdf__francais.pdf"  # one small scanned page: layout + OCR
TARGETS = {"text_pages_per_s": 2.0, "scanned_s_per_page": 5.0, "peak_rss_mb": 1536}


def models_dir() -> Path:
    try:
        from citeloom.config import load_settings

        mdir = load_settings().models_dir
        if (mdir / "layout").is_dir():
            return mdir
    except Exception:  # noqa: BLE001 - fall back to the CI/test location
        pass
    return Path("/tmp/cl-data/models")


# -- child: one run of one set ----------------------------------------------------------


def child(set_name: str, mdir: Path, files: list[Path]) -> dict:
    import resource

    t0 = time.perf_counter()
    from docling.datamodel.base_models import InputFormat

    from citeloom.convert.converter import build_converter, convert_file
    from citeloom.embed.chunk import Chunker
    from citeloom.embed.encoders import load_tokenizer
    from citeloom.provision import dense_spec, layout_model_path, use_offline_runtime

    use_offline_runtime(mdir)
    converter = build_converter(ocr=True, layout_model_path=layout_model_path(mdir),
                                ocr_skip_furniture=set_name != "scanned_stock")
    converter.initialize_pipeline(InputFormat.PDF)
    chunker = None
    if set_name == "text":
        chunker = Chunker(load_tokenizer(mdir, DENSE_MODEL), dense_spec(DENSE_MODEL).window, 256)
    # Warm-up (first model runs, lazy imports), as a long-lived worker has done after
    # its first document: counted in init_s, not in the per-page figures.
    convert_file(WARM_UP, converter)
    init_s = time.perf_counter() - t0

    per_file = []
    for path in files:
        t = time.perf_counter()
        doc = convert_file(path, converter)
        t_conv = time.perf_counter() - t
        chunks = chunker.chunk(doc) if chunker else []
        row = {"file": path.name, "pages": doc.num_pages(), "convert_s": t_conv,
               "total_s": time.perf_counter() - t, "chunks": len(chunks)}
        if path.name == "ocrmypdf__linn.pdf":
            text = "\n".join(getattr(i, "text", "") for i, _ in doc.iterate_items())
            row["recall"] = word_recall(LINN_TRUTH.read_text(encoding="utf-8"), text)
        per_file.append(row)
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "init_s": init_s,
        "files": per_file,
        # This process only. RUSAGE_CHILDREN's maxrss is no use for Tesseract: a forked
        # child is charged its parent's pages until exec. Tesseract itself peaks at
        # ~90 MB (eng+deu, /usr/bin/time), two at a time at most.
        "peak_rss_mb": own.ru_maxrss / 1024,
        "cpu_s": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
    }


# -- parent ---------------------------------------------------------------------------


def combined_scan(dest: Path) -> Path:
    import pypdfium2 as pdfium

    out = pdfium.PdfDocument.new()
    for pdf in sorted(SCANNED.glob("*.pdf")):
        src = pdfium.PdfDocument(str(pdf))
        out.import_pages(src)
        src.close()
    out.save(str(dest))
    out.close()
    return dest


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_set(set_name: str, files: list[Path], mdir: Path, runs: int) -> dict:
    results = []
    load_before = load()
    for i in range(runs):
        proc = subprocess.run(
            [sys.executable, __file__, "--child", set_name, str(mdir), *map(str, files)],
            capture_output=True, text=True, check=False,
            env={**os.environ, "HF_HUB_OFFLINE": "1"})
        if proc.returncode != 0:
            raise SystemExit(f"{set_name} run {i + 1} failed:\n{proc.stderr[-3000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(f"  {set_name} run {i + 1}/{runs}: "
              f"{sum(f['total_s'] for f in results[-1]['files']):.1f} s", file=sys.stderr)
    med = statistics.median
    per_file = []
    for j, first in enumerate(results[0]["files"]):
        rows = [r["files"][j] for r in results]
        entry = {"file": first["file"], "pages": first["pages"], "chunks": first["chunks"],
                 "convert_s": round(med(r["convert_s"] for r in rows), 3),
                 "total_s": round(med(r["total_s"] for r in rows), 3)}
        entry["s_per_page"] = round(entry["total_s"] / max(entry["pages"], 1), 3)
        if "recall" in first:
            entry["recall"] = round(med(r["recall"] for r in rows), 4)
        per_file.append(entry)
    totals = [sum(f["total_s"] for f in r["files"]) for r in results]
    pages = sum(f["pages"] for f in per_file)
    total = med(totals)
    return {
        "runs": runs,
        "files": per_file,
        "pages": pages,
        "total_s": round(total, 2),
        "s_per_page": round(total / pages, 3),
        "pages_per_s": round(pages / total, 2),
        "init_s": round(med(r["init_s"] for r in results), 2),
        "peak_rss_mb": round(med(r["peak_rss_mb"] for r in results)),
        "cpu_s": round(med(r["cpu_s"] for r in results), 1),
        "all_runs_total_s": [round(t, 2) for t in totals],
        "load_before": load_before,  # 1, 5, 15 min load averages (2 cores)
        "load_after": load(),
    }


def machine() -> str:
    tess = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    tess_version = (tess.stdout or tess.stderr).splitlines()[0]
    return f"{machine_summary()}, {tess_version}"


def markdown(result: dict) -> str:
    lines = [
        f"Measured {result['date']} on {result['machine']}; load average before the run "
        f"{result['load_before']}; medians of {result['runs']} runs, each in a fresh process.",
        "",
        "| set | files | pages | s/page | pages/s | init (s) | peak RSS | load before/after "
        "| target |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    target = {"text": f"≥ {TARGETS['text_pages_per_s']} pages/s",
              "scanned": f"≤ {TARGETS['scanned_s_per_page']} s/page",
              "scanned_multi": f"≤ {TARGETS['scanned_s_per_page']} s/page",
              "scanned_stock": "(baseline)"}
    for name, s in result["sets"].items():
        lines.append(
            f"| {name} | {len(s['files'])} | {s['pages']} | {s['s_per_page']} | "
            f"{s['pages_per_s']} | {s['init_s']} | {s['peak_rss_mb']} MB | "
            f"{s['load_before'].split()[0]} / {s['load_after'].split()[0]} | "
            f"{target.get(name, '')} |")
    lines += ["", "| set | file | pages | s/page (convert + chunk) | note |",
              "|---|---|---:|---:|---|"]
    for name, s in result["sets"].items():
        if name == "text":
            continue
        for f in s["files"]:
            note = f"word recall {f['recall']}" if "recall" in f else ""
            lines.append(f"| {name} | {f['file']} | {f['pages']} | {f['s_per_page']} | {note} |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        set_name, mdir, *files = sys.argv[2:]
        print(json.dumps(child(set_name, Path(mdir), [Path(f) for f in files])))
        return

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the scanned set with Docling's stock OCR model")
    ap.add_argument("--sets", default="text,scanned,scanned_multi,scanned_stock")
    args = ap.parse_args()

    mdir = models_dir()
    wanted = [s for s in args.sets.split(",") if s]
    if args.no_baseline and "scanned_stock" in wanted:
        wanted.remove("scanned_stock")
    scans = sorted(SCANNED.glob("*.pdf"))
    tmp = Path(tempfile.mkdtemp(prefix="citeloom-bench-"))
    inputs = {
        "text": sorted(TEXT.glob("*.pdf")),
        "scanned": scans,
        "scanned_multi": [combined_scan(tmp / "five_scanned_pages.pdf")],
        "scanned_stock": scans,
    }
    result = {
        "date": datetime.now().astimezone().isoformat(timespec="minutes"),
        "machine": machine(),
        "load_before": load(),
        "runs": args.runs,
        "targets": TARGETS,
        "sets": {},
    }
    for name in wanted:
        result["sets"][name] = run_set(name, inputs[name], mdir, args.runs)
    result["load_after"] = load()
    sets = result["sets"]
    scanned = [f for name in ("scanned", "scanned_multi") for f in sets.get(name, {}).get(
        "files", [])]
    result["meets_targets"] = {  # None: not measured in this run
        "text_pages_per_s": sets["text"]["pages_per_s"] >= TARGETS["text_pages_per_s"]
        if "text" in sets else None,
        "scanned_s_per_page": all(f["s_per_page"] <= TARGETS["scanned_s_per_page"]
                                  for f in scanned) if scanned else None,
        "peak_rss_mb": all(s["peak_rss_mb"] < TARGETS["peak_rss_mb"] for s in sets.values()),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "convert.json").write_text(json.dumps(result, indent=2) + "\n")
    print(markdown(result))
    print(f"\nload average after: {result['load_after']}; targets met: "
          f"{result['meets_targets']}")


if __name__ == "__main__":
    main()
