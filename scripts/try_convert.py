"""Convert one document with CiteLoom's offline Docling setup and print stats.

Usage: PYTHONPATH=src HF_HUB_OFFLINE=1 .venv/bin/python scripts/try_convert.py FILE [--no-ocr]
       [--force-ocr] [--langs eng,deu] [--threads 2] [--md-pages 2] [--md-chars 4000]
"""

from __future__ import annotations

import argparse
import collections
import resource
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file", type=Path)
    ap.add_argument("--no-ocr", action="store_true")
    ap.add_argument("--force-ocr", action="store_true")
    ap.add_argument(
        "--stock-ocr-regions",
        action="store_true",
        help="Docling's own OCR region policy (also OCR figures/headers on text pages)",
    )
    ap.add_argument("--langs", default="eng,deu")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--md-pages", type=int, default=2, help="markdown export of pages 1..N")
    ap.add_argument("--md-chars", type=int, default=4000, help="truncate the markdown print")
    args = ap.parse_args()

    from citeloom.convert.converter import build_converter, convert_file

    t0 = time.perf_counter()
    converter = build_converter(
        ocr=not args.no_ocr,
        ocr_langs=args.langs.split(","),
        force_ocr=args.force_ocr,
        num_threads=args.threads,
        ocr_skip_furniture=not args.stock_ocr_regions,
    )
    t_init = time.perf_counter()
    if args.file.suffix.lower() == ".pdf":
        from docling.datamodel.base_models import InputFormat

        converter.initialize_pipeline(InputFormat.PDF)  # load models outside the timing

    def cpu_seconds() -> float:  # this process + finished children (tesseract)
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    c1 = cpu_seconds()
    t1 = time.perf_counter()
    doc = convert_file(args.file, converter)
    t2 = time.perf_counter()
    cpu = cpu_seconds() - c1

    pages = doc.num_pages()
    secs = t2 - t1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"file:            {args.file}")
    print(f"build converter: {t_init - t0:.2f} s")
    print(f"init pipeline:   {t1 - t_init:.2f} s")
    print(f"convert:         {secs:.2f} s")
    print(f"cpu (incl. OCR): {cpu:.2f} s")
    print(f"pages:           {pages}")
    if pages:
        print(f"s/page:          {secs / pages:.3f}")
    print(f"peak RSS:        {peak_mb:.0f} MB")

    labels: collections.Counter[str] = collections.Counter()
    headers: list[str] = []
    missing_prov = 0
    n_chars = 0
    for item, _level in doc.iterate_items():
        label = str(getattr(item, "label", type(item).__name__))
        labels[label] += 1
        text = getattr(item, "text", None)
        if text is not None:
            n_chars += len(text)
            if not getattr(item, "prov", None) or any(p.page_no < 1 for p in item.prov):
                missing_prov += 1
        if label in ("section_header", "title") and len(headers) < 15:
            page = item.prov[0].page_no if getattr(item, "prov", None) else "?"
            headers.append(f"p{page}: {text}")
    print("items per label:")
    for label, n in labels.most_common():
        print(f"  {label:16s} {n}")
    print(f"text chars:      {n_chars}")
    print(f"text items without page provenance: {missing_prov}")
    print("first section headers:")
    for h in headers:
        print(f"  {h}")

    if args.md_pages > 0 and pages:
        md = "\n\n".join(
            doc.export_to_markdown(page_no=p) for p in range(1, min(args.md_pages, pages) + 1)
        )
        print(f"----- markdown, pages 1-{min(args.md_pages, pages)} -----")
        print(md[: args.md_chars] + ("\n[...]" if len(md) > args.md_chars else ""))
        print("-----")

    assert "torch" not in sys.modules, "torch was imported"
    print("torch imported:  no")
    return 0


if __name__ == "__main__":
    sys.exit(main())
