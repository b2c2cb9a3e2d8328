"""Does each question's answer phrase sit in one chunk on the right page? (issue #27, item 3)

For a PDF question set (``src/citeloom/data/pdfqa_*.jsonl``: a PDF, its answer pages, a
verbatim evidence phrase), the PDFs are ingested into a fresh project, and a question counts
when one chunk whose page span overlaps its pages holds the evidence phrase (both compared
after ``pdfqa.normalise``, as `citeloom eval pdfqa` compares them). With ``--before``, a
second project is built with ``text_repair = false`` in the same run, which is how the index
looked before the repair ladder. With ``--chunkers``, one project per chunker version.

    .venv/bin/python benchmarks/evidence_indexed.py src/citeloom/data/pdfqa_dev2.jsonl \\
        --corpus ../shared --before --out benchmarks/results/evidence_indexed_dev2.json
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from citeloom.config import ProjectConfig, Settings
from citeloom.eval.pdfqa import evidence_in, pages_overlap
from citeloom.eval.pdfqa_set import load_devset
from citeloom.service import CiteLoom


def chunks_by_pdf(app: CiteLoom, project: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for hit in app.runtime.projects.index(project).scroll(
            fields=["source_path", "page_start", "page_end", "chunk_text"]):
        out[Path(hit.payload["source_path"]).name].append(hit.payload)
    return out


def measure(app: CiteLoom, project: str, questions: list, paths: list[Path]) -> dict:
    t0 = time.perf_counter()
    report = app.ingest(paths, project)
    seconds = time.perf_counter() - t0
    chunks = chunks_by_pdf(app, project)
    per_q, by_kind, by_pdf = {}, defaultdict(list), defaultdict(list)
    for q in questions:
        name = Path(q.pdf).name
        found = any(pages_overlap(c.get("page_start"), c.get("page_end"), q.pages)
                    and evidence_in(q.evidence, c.get("chunk_text", ""))
                    for c in chunks.get(name, []))
        per_q[q.id] = found
        by_kind[q.kind].append(found)
        by_pdf[name].append(found)
    n = len(per_q)
    return {"project": project, "questions": n, "in_one_chunk": sum(per_q.values()),
            "share": round(sum(per_q.values()) / n, 4) if n else None,
            "by_kind": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_kind.items())},
            "by_pdf": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_pdf.items())},
            "missed": sorted(k for k, v in per_q.items() if not v),
            "ingest_seconds": round(seconds, 1), "outcome": report.outcome,
            "health": report.health()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("--corpus", type=Path, required=True,
                    help="the folder the questions' pdf paths are relative to")
    ap.add_argument("--before", action="store_true",
                    help="also build a text_repair=false project (the index before the ladder)")
    ap.add_argument("--models-dir", type=Path,
                    default=Path(os.environ.get("CITELOOM_MODELS_DIR", "")) if os.environ.get(
                        "CITELOOM_MODELS_DIR") else Path.home() / ".local/share/citeloom/models")
    ap.add_argument("--chunkers", default="",
                    help="comma-separated chunker versions to build one project each with "
                         "(docling-hybrid/v2,docling-hybrid/v3), instead of the default's")
    ap.add_argument("--data-dir", type=Path,
                    help="a data dir to build in (its conversion cache is reused); "
                         "default: a temporary one")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/evidence_indexed.json"))
    args = ap.parse_args()
    questions = load_devset(args.questions)
    paths = [args.corpus / p for p in dict.fromkeys(q.pdf for q in questions)]
    chunkers = [c for c in args.chunkers.split(",") if c]
    projects = {name: ProjectConfig(name=name, chunker=c) for c in chunkers
                for name in ["evidence-" + c.rsplit("/", 1)[-1]]}
    if not chunkers:
        projects["after"] = ProjectConfig(name="after")
        if args.before:
            projects["before"] = ProjectConfig(name="before", text_repair=False)
    with tempfile.TemporaryDirectory(prefix="citeloom-evidence-") as tmp:
        settings = Settings(data_dir=args.data_dir or Path(tmp), models_dir=args.models_dir,
                            projects=projects)
        app = CiteLoom(settings)
        try:
            runs = []
            for name in sorted(projects, key=lambda n: n != "before"):
                # built afresh, from the cached conversions
                app.runtime.projects.remove_project(name)
                runs.append(measure(app, name, questions, paths))
        finally:
            app.close()
    result = {"questions_file": str(args.questions), "measured": time.strftime("%Y-%m-%d %H:%M"),
              "load": os.getloadavg(), "runs": runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print("| index | questions | answer phrase in one chunk on its page | share |")
    print("|---|---:|---:|---:|")
    for r in runs:
        print(f"| {r['project']} | {r['questions']} | {r['in_one_chunk']} | {r['share']:.3f} |")
    for r in runs:
        print(f"{r['project']}: missed {', '.join(r['missed']) or 'none'}")
        print(f"  by kind: {r['by_kind']}")


if __name__ == "__main__":
    main()
