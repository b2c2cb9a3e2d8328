"""A retrieval dev set of questions over real PDFs, with page-level evidence.

Each question in ``data/pdfqa_dev.jsonl`` names a PDF (relative to the corpus folder, e.g.
``text/cermine__test1.pdf``), the 1-based physical pages where its answer is, and an
``evidence`` phrase of 5-15 words copied from that page's text layer. The set is for tuning
(a dev set); see docs/PDFQA.md.

Evidence is matched after :func:`normalise`: NFKC (which also undoes ligatures such as "ﬁ"),
case-fold, then keep only alphanumeric characters. Spaces, punctuation, line breaks and the
hyphens a PDF puts at line ends all disappear, so a phrase survives line wrapping; it does
not survive two-column interleaving or a running header landing inside it, which is why the
phrases were chosen within one run of text.

    python -m citeloom.eval.pdfqa_set CORPUS_DIR      # check the packaged set against the PDFs
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from citeloom.text import fold_alnum

KINDS = (
    "number",
    "definition",
    "method",
    "keyword",
    "paraphrase",
    "topic",
    "non-English",
)
MIN_WORDS, MAX_WORDS = 5, 15


@dataclass(frozen=True)
class Question:
    id: str
    pdf: str  # relative to the corpus folder, e.g. "text/cermine__test1.pdf"
    pages: tuple[int, ...]  # 1-based physical page numbers where the answer is
    evidence: str  # verbatim phrase from (at least one of) those pages
    question: str
    kind: str
    answer: str = ""  # short reference answer, for people reading the set
    half: str = ""  # "tune" (levers are chosen on it) or "check" (read only to confirm)


normalise = fold_alnum  # NFKC, case-fold, keep only alphanumerics


def word_count(text: str) -> int:
    """Whitespace-separated tokens that contain at least one alphanumeric character."""
    return sum(1 for tok in text.split() if any(ch.isalnum() for ch in tok))


def page_texts(pdf_path: str | Path) -> list[str]:
    """The PDF's text layer (pypdfium2), one string per page; "" for a page without text."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        out: list[str] = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            try:
                out.append(textpage.get_text_range())
            finally:
                textpage.close()
                page.close()
        return out
    finally:
        pdf.close()


def _question(obj: dict) -> Question:
    return Question(
        id=str(obj["id"]),
        pdf=str(obj["pdf"]),
        pages=tuple(int(p) for p in obj["pages"]),
        evidence=str(obj["evidence"]),
        question=str(obj["question"]),
        kind=str(obj["kind"]),
        answer=str(obj.get("answer", "")),
        half=str(obj.get("half", "")),
    )


# The packaged sets (citeloom/data/pdfqa_<name>.jsonl), each with the folder under shared/
# its ``pdf`` paths are relative to: dev and holdout over corpus/ (docs/PDFQA.md), dev2
# over corpus2/ (docs/PDFQA_DEV2.md).
SETS = {"dev": "corpus/pdfs", "dev2": ".", "holdout": "corpus/pdfs"}
HALVES = ("tune", "check")


def load_devset(path: str | Path | None = None) -> list[Question]:
    """Read a JSONL question set: a file, or the name of a packaged one (``SETS``); by
    default the dev set, ``citeloom/data/pdfqa_dev.jsonl``."""
    name = "dev" if path is None else str(path)
    if name in SETS:
        text = resources.files("citeloom.eval").joinpath(f"data/pdfqa_{name}.jsonl").read_text(
            "utf-8")
    else:
        text = Path(name).read_text("utf-8")
    return [_question(json.loads(line)) for line in text.splitlines() if line.strip()]


def set_name(path: str | Path | None) -> str:
    """What a report calls the question set: ``dev``, ``holdout``, or the file's stem."""
    name = "dev" if path is None else str(path)
    return name if name in SETS else Path(name).stem.removeprefix("pdfqa_")


def check_devset(questions: list[Question], corpus_dir: str | Path) -> list[str]:
    """Problems found, one string each (empty list = the set is sound).

    Checks: ids unique, kind known, evidence 5-15 words, the PDF exists, pages are in range,
    and the normalised evidence occurs in the normalised text of at least one listed page.
    """
    corpus = Path(corpus_dir)
    problems: list[str] = []
    seen: set[str] = set()
    texts: dict[str, list[str]] = {}
    for q in questions:
        where = f"{q.id} ({q.pdf})"
        if q.id in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(q.id)
        if q.kind not in KINDS:
            problems.append(f"{where}: unknown kind {q.kind!r}")
        n = word_count(q.evidence)
        if not MIN_WORDS <= n <= MAX_WORDS:
            problems.append(f"{where}: evidence has {n} words, want {MIN_WORDS}-{MAX_WORDS}")
        if not q.pages:
            problems.append(f"{where}: no pages listed")
            continue
        if q.pdf not in texts:
            pdf_path = corpus / q.pdf
            if not pdf_path.is_file():
                problems.append(f"{where}: PDF not found at {pdf_path}")
                texts[q.pdf] = []
                continue
            texts[q.pdf] = [normalise(t) for t in page_texts(pdf_path)]
        pages = texts[q.pdf]
        if not pages:
            continue  # missing PDF, already reported
        bad = [p for p in q.pages if not 1 <= p <= len(pages)]
        if bad:
            problems.append(f"{where}: pages {bad} outside 1..{len(pages)}")
        needle = normalise(q.evidence)
        if not needle:
            problems.append(f"{where}: evidence is empty after normalising")
        elif not any(needle in pages[p - 1] for p in q.pages if 1 <= p <= len(pages)):
            problems.append(f"{where}: evidence not found on pages {list(q.pages)}: {q.evidence!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m citeloom.eval.pdfqa_set CORPUS_DIR", file=sys.stderr)
        return 2
    questions = load_devset()
    problems = check_devset(questions, args[0])
    for problem in problems:
        print(problem)
    print(f"{len(questions)} questions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
