"""Where an ingest's CPU goes, by stage, from a py-spy profile of the whole process tree.

py-spy is not a CiteLoom dependency; install it beside the project and record an ingest
with it, then read the record here:

    python -m venv /tmp/spy && /tmp/spy/bin/pip install py-spy
    /tmp/spy/bin/py-spy record -r 25 --subprocesses --format raw -o ingest.txt -- \\
        .venv/bin/python benchmarks/text_health.py ingest /work/texlive-sample/root \\
        --n 20 --seed 7 --workers 2 --out ingest.json
    .venv/bin/python benchmarks/profile_stages.py ingest.txt --rate 25 [--pages 305] \
        [--out benchmarks/results/profile_texlive20.json]

Each sample is one thread's stack at one moment. A sample whose innermost frame waits
(a queue, a condition, a pipe, a child process) is idle and not counted; the others are
put in the first stage whose marker occurs in their stack, in the order of ``STAGES``.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

# (stage, a marker of its frames); the first match wins, so the narrower come first.
STAGES = [
    ("layout model (ONNX)", "CiteloomLayoutModel._detect"),
    ("layout pre/post-processing", "citeloom/convert/layout.py"),
    ("dense embedding (ONNX + tokenizer)", "citeloom/embed/encoders.py"),
    ("OCR and the repair ladder", "citeloom/convert/ocr.py"),
    ("PDF parsing (docling-parse)", "docling_parse"),
    ("chunking", "citeloom/embed/chunk.py"),
    ("structure pass", "citeloom/structure"),
    ("Docling's assembly", "_assemble_document"),
    ("Docling's layout post-processing", "postprocess"),
    ("imports", "<module>"),
    ("index writes", "citeloom/index"),
]
IDLE = ("Condition.wait", "_worker (concurrent", "Event.wait", "Queue.get", "select",
        "poll", "sleep", "_wait_for_tstate_lock", "recv", "Popen.communicate", "Popen.wait")


def role(processes: list[str]) -> str | None:
    """The CiteLoom process a stack belongs to (py-spy names each process by its command)."""
    last = processes[-1]
    if "spawn_main" in last:
        return "worker"
    if "citeloom.cli" in last:
        return "parent"
    return None  # the benchmark's own driver, Ray's daemons


def stages(path: Path) -> tuple[collections.Counter[tuple[str, str]], int]:
    active: collections.Counter[tuple[str, str]] = collections.Counter()
    idle = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        processes = [f for f in frames if f.startswith("process ")]
        who = role(processes) if processes else None
        if who is None:
            continue
        leaf = frames[-1]
        if any(leaf.startswith(i) or f" {i}" in leaf or f".{i}" in leaf for i in IDLE):
            idle += int(count)
            continue
        body = ";".join(frames[len(processes):])
        stage = next((name for name, marker in STAGES if marker in body), "other")
        active[(who, stage)] += int(count)
    return active, idle


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("record", type=Path, help="py-spy's --format raw output")
    ap.add_argument("--rate", type=float, default=25, help="py-spy's -r (samples/s)")
    ap.add_argument("--pages", type=int, help="pages ingested, for core-seconds a page")
    ap.add_argument("--out", type=Path, help="also write the figures here (JSON)")
    args = ap.parse_args()
    active, idle = stages(args.record)
    total = sum(active.values())
    print(f"active {total / args.rate:.1f} core-s, idle threads {idle / args.rate:.1f} s")
    print("| process | stage | core-s | share |" + (" core-s a page |" if args.pages else ""))
    print("|---|---|---:|---:|" + ("---:|" if args.pages else ""))
    for (who, stage), n in active.most_common():
        s = n / args.rate
        row = f"| {who} | {stage} | {s:.1f} | {100 * n / total:.1f} % |"
        print(row + (f" {s / args.pages:.3f} |" if args.pages else ""))
    if args.out:
        args.out.write_text(json.dumps({
            "record": str(args.record), "rate": args.rate, "pages": args.pages,
            "active_core_s": round(total / args.rate, 1), "idle_s": round(idle / args.rate, 1),
            "stages": [{"process": who, "stage": stage, "core_s": round(n / args.rate, 1),
                        "share": round(n / total, 4)} for (who, stage), n in active.most_common()],
        }, indent=1) + "\n")


if __name__ == "__main__":
    main()
