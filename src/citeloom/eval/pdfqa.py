"""Retrieval evaluation on the PDF question dev set (issue #17, docs/PDFQA.md): does a query
find the page that answers, and does the passage CiteLoom shows contain the answer?

    citeloom eval pdfqa [--corpus-dir DIR] [--limit-pdfs N] [--rebuild] [--out FILE]

The dev set's PDFs are ingested into a project (default ``pdfqa-eval``) through the normal
service (``CiteLoom.ingest``: unchanged files are skipped on later runs, conversions are
cached). Every question is then asked of the whole project, as a user would, in each run
(dense, sparse, hybrid-RRF, hybrid-DBSF) with the product's query: ``CiteLoom.query(top_k=10,
max_chars=settings.passage_chars)``.

Per question and run, from the ranked hits:

* **page rank**: the first hit from the question's PDF whose page span [page_start,
  page_end] overlaps the question's pages; page-hit@1, page-hit@5 and MRR@10 follow from it;
* **evidence rank**: the first hit whose *shown* text (``hit.text``, what a user reads)
  contains the evidence phrase after :func:`citeloom.eval.pdfqa_set.normalise`; evidence-hit@5.
  The same is measured on the whole chunk (``chunk_text`` read back from the index: the
  ceiling any choice of shown text can reach) and on the chunk's first ``max_chars``
  characters (``payload.shorten``: the head cut passages used to be), so one run compares
  the shown text against both.

The baseline is page-level BM25 over the PDFs' text layers (pypdfium2, one document per
physical page, k1 = 1.2, b = 0.75, lowercase alphanumeric tokens); a page "shows" its
whole text.

This module does not import :mod:`citeloom.eval.scifact` (which dispatches here): the runs
and the shared-folder lookup come in as arguments, the machine and date are added there.
"""

from __future__ import annotations

import math
import statistics
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.errors import InvalidInput
from citeloom.eval.pdfqa_set import KINDS, Question, load_devset, normalise, page_texts, set_name
from citeloom.payload import shorten
from citeloom.service.api import QueryRequest

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.service.app import CiteLoom

DEFAULT_PROJECT = "pdfqa-eval"
TOP_K = 10
BASELINE = "page-bm25"
# rank fields of a question's record -> the metrics they give
METRICS = ("page@1", "page@5", "mrr@10", "evidence@5", "evidence@5_head", "evidence@5_chunk")


# -- metrics (pure functions) ---------------------------------------------------------------
def pages_overlap(page_start: int | None, page_end: int | None, pages: Iterable[int]) -> bool:
    """Whether the span [page_start, page_end] (page_end None = one page) holds any of
    ``pages``. A hit without a page never counts."""
    if page_start is None:
        return False
    end = page_start if page_end is None else page_end
    return any(page_start <= p <= end for p in pages)


def evidence_in(evidence: str, text: str) -> bool:
    """Whether the evidence phrase is in ``text``, both compared after ``normalise``."""
    needle = normalise(evidence)
    return bool(needle) and needle in normalise(text)


def first_rank(flags: Iterable[bool]) -> int | None:
    """1-based rank of the first true flag, or None."""
    return next((i for i, ok in enumerate(flags, 1) if ok), None)


def hit_at(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None, k: int = TOP_K) -> float:
    """1 / rank when the first relevant item is within the top ``k``, else 0 (MRR@k)."""
    return 1.0 / rank if rank is not None and rank <= k else 0.0


def summarise(ranks: Sequence[dict[str, int | None]]) -> dict[str, float]:
    """Mean metrics over questions, each given as its ranks: ``page`` (first page hit),
    ``evidence`` (first shown text holding the evidence) and, when measured, ``head`` and
    ``chunk`` (the same on the head cut and on the whole chunk)."""
    if not ranks:
        return {}
    out = {
        "page@1": statistics.fmean(hit_at(r["page"], 1) for r in ranks),
        "page@5": statistics.fmean(hit_at(r["page"], 5) for r in ranks),
        "mrr@10": statistics.fmean(reciprocal_rank(r["page"]) for r in ranks),
        "evidence@5": statistics.fmean(hit_at(r["evidence"], 5) for r in ranks),
    }
    for key in ("head", "chunk", "snippet"):
        if all(key in r for r in ranks):
            out[f"evidence@5_{key}"] = statistics.fmean(hit_at(r[key], 5) for r in ranks)
    return {k: round(v, 4) for k, v in out.items()}


# -- the baseline: page-level BM25 over the text layer ---------------------------------------
def tokens(text: str) -> list[str]:
    """Lowercased (NFKC) alphanumeric tokens: every other character splits."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(c if c.isalnum() else " " for c in text).split()


class BM25:
    """Okapi BM25 over a fixed list of documents (token lists): for each distinct query
    term, idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)), with
    idf = ln(1 + (N - df + 0.5) / (df + 0.5)) (never negative, as in Lucene)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avglen = statistics.fmean(self.lengths) if docs and any(self.lengths) else 1.0
        self.df = Counter(t for tf in self.tf for t in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in self.df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        terms = [t for t in dict.fromkeys(query) if t in self.idf]
        out = []
        for tf, length in zip(self.tf, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.avglen)
            out.append(sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm)
                           for t in terms if t in tf))
        return out

    def rank(self, query: Sequence[str], k: int = TOP_K) -> list[int]:
        """Indexes of the ``k`` best documents with a score above 0; ties in list order."""
        scores = self.scores(query)
        best = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [i for i in best[:k] if scores[i] > 0]


def baseline_ranks(questions: Sequence[Question], texts: dict[str, list[str]]
                   ) -> dict[str, dict[str, int | None]]:
    """Each question's page and evidence ranks under page-level BM25 over all the PDFs."""
    pages = [(pdf, n, text) for pdf, pts in texts.items() for n, text in enumerate(pts, 1)]
    bm25 = BM25([tokens(t) for _, _, t in pages])
    out: dict[str, dict[str, int | None]] = {}
    for q in questions:
        top = [pages[i] for i in bm25.rank(tokens(q.question))]
        out[q.id] = {
            "page": first_rank(pdf == q.pdf and n in q.pages for pdf, n, _ in top),
            "evidence": first_rank(evidence_in(q.evidence, t) for _, _, t in top),
        }
    return out


# -- the set, the project, the queries ---------------------------------------------------------
def select(questions: list[Question], corpus: Path, limit_pdfs: int | None
           ) -> tuple[list[str], list[Question]]:
    """The set's PDFs (in set order) and questions; with ``limit_pdfs``, only the N
    smallest PDFs (by file size, then name) and their questions, for quick runs."""
    pdfs = list(dict.fromkeys(q.pdf for q in questions))
    missing = [p for p in pdfs if not (corpus / p).is_file()]
    if missing:
        raise InvalidInput(f"{len(missing)} PDFs of the dev set are not in {corpus}: "
                           f"{', '.join(missing[:3])}", "pass --corpus-dir (the folder "
                           "holding text/…pdf, usually shared/corpus/pdfs)")
    if limit_pdfs:
        keep = set(sorted(pdfs, key=lambda p: ((corpus / p).stat().st_size, p))[:limit_pdfs])
        pdfs = [p for p in pdfs if p in keep]
    return pdfs, [q for q in questions if q.pdf in pdfs]


def ingest(app: CiteLoom, project: str, corpus: Path, pdfs: list[str],
           log: Callable[[str], None]) -> dict[str, Any]:
    """Ingest the PDFs (skipping unchanged ones); refuse a project holding other documents."""
    paths = [corpus / p for p in pdfs]
    t0 = time.perf_counter()

    def progress(event: str, result: Any) -> None:
        if result is not None:
            log(f"  {Path(result.path).name}: {result.status}, {result.pages} pages, "
                f"{result.chunks} chunks, {result.seconds:.0f} s")

    report = app.ingest(paths, project, progress=progress)
    wanted = {str(p.resolve()) for p in paths}
    records = app.runtime.projects.catalog(project).all()
    extra = [r.source_path for r in records if r.source_path not in wanted]
    if extra:
        raise InvalidInput(f"project {project!r} holds {len(extra)} documents outside the "
                           f"dev set (e.g. {extra[0]}), so scores would not be comparable",
                           "pass --rebuild, or another --project")
    failed = [f for f in report.files if f.status == "failed"]
    for f in failed:
        log(f"  FAILED {f.path}: {(f.error or {}).get('message', '')}")
    records = app.runtime.projects.catalog(project).all()
    return {"pdfs": len(pdfs), "pages": sum(r.pages for r in records),
            "chunks": sum(r.chunks for r in records),
            "converted_now": report.count("indexed") + report.count("replaced"),
            "skipped": report.count("skipped"), "failed": [f.path for f in failed],
            "ingest_seconds": round(time.perf_counter() - t0, 1)}


# (label, mode, fusion) of each run, in table order: the product's four query modes (one hit
# per page), the default hybrid query one hit per chunk, as before pages, and the default
# query itself. Every run but the default is the first stage alone (no cross-encoder):
# "hybrid-dbsf" is the fast mode (`--rerank 0`), DEFAULT_RUN adds the project's second
# stage (rerank_depth).
PER_CHUNK = "-chunks"
DEFAULT_RUN = "default"
PDFQA_RUNS: tuple[tuple[str, str, str], ...] = (
    ("dense", "dense", "rrf"),
    ("sparse", "sparse", "rrf"),
    ("hybrid-rrf", "hybrid", "rrf"),
    ("hybrid-dbsf" + PER_CHUNK, "hybrid", "dbsf"),
    ("hybrid-dbsf", "hybrid", "dbsf"),  # the fast mode
    (DEFAULT_RUN, "hybrid", "dbsf"),  # the default query
)


def run_queries(app: CiteLoom, project: str, questions: Sequence[Question], corpus: Path,
                runs: Sequence[tuple[str, str, str]], max_chars: int,
                log: Callable[[str], None]) -> dict[str, dict[str, dict[str, Any]]]:
    """{question id: {run label: ranks + latency}} for every question in every run."""
    chunk_text = {h.id: h.payload.get("chunk_text", "")
                  for h in app.runtime.projects.index(project).scroll(fields=["chunk_text"])}
    app.query(
        QueryRequest(project, "warm up", mode="hybrid", top_k=1)
    )  # load the models, open the index
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for n, q in enumerate(questions, 1):
        source = str((corpus / q.pdf).resolve())
        out[q.id] = {}
        for label, mode, fusion in runs:
            res = app.query(
                QueryRequest(
                    project,
                    q.question,
                    mode=mode,
                    fusion=fusion,
                    top_k=TOP_K,
                    max_chars=max_chars,
                    per_page=PER_CHUNK not in label,
                    rerank=None if label == DEFAULT_RUN else 0,
                )
            )
            hits = res.hits
            # each hit's chunks, whole, in reading order (a page hit's parts, joined as its
            # text joins them): what any choice of shown text could show at most
            full = [[chunk_text.get(x["chunk_id"], "") for x in h.parts]
                    or [chunk_text.get(h.chunk_id, "")] for h in hits]
            chars, printed = terminal_view(res)  # the snippets of the top 5, as printed
            out[q.id][label] = {
                "page": first_rank(h.source_path == source
                                   and pages_overlap(h.page_start, h.page_end, q.pages)
                                   for h in hits),
                "evidence": first_rank(evidence_in(q.evidence, h.text) for h in hits),
                "head": first_rank(evidence_in(q.evidence, "\n\n".join(
                    shorten(t, max_chars) for t in ts)) for ts in full),
                "chunk": first_rank(evidence_in(q.evidence, "\n\n".join(ts)) for ts in full),
                "snippet": first_rank(evidence_in(q.evidence, s) for s in printed),
                "terminal_chars": chars,
                "ms": res.timings_ms["total"],
            }
        if n % 20 == 0:
            log(f"  {n}/{len(questions)} questions")
    return out


# -- intervals -------------------------------------------------------------------------------
BOOTSTRAP = 2000  # resamples of the questions


def per_question(ranks: Sequence[dict[str, int | None]], metric: str) -> list[float]:
    """One metric's value for each question (1/0 hits, or the reciprocal rank)."""
    if metric == "mrr@10":
        return [reciprocal_rank(r["page"]) for r in ranks]
    key, k = {"page@1": ("page", 1), "page@5": ("page", 5),
              "evidence@5": ("evidence", 5)}[metric]
    return [hit_at(r[key], k) for r in ranks]


def bootstrap(values: Sequence[float], other: Sequence[float] | None = None,
              resamples: int = BOOTSTRAP, seed: int = 28) -> tuple[float, float, float]:
    """The mean of ``values`` (or of ``values - other``, paired by question) and its 95 %
    percentile-bootstrap interval over the questions, seeded: the same run, the same
    interval."""
    import random

    diffs = (list(values) if other is None
             else [a - b for a, b in zip(values, other, strict=True)])
    if not diffs:
        return 0.0, 0.0, 0.0
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs)))
                   for _ in range(resamples))
    return (round(statistics.fmean(diffs), 4), round(means[int(0.025 * resamples)], 4),
            round(means[int(0.975 * resamples) - 1], 4))


def halves(questions: Sequence[Question]) -> dict[str, list[Question]]:
    """The set's tune and check halves (docs/EVALUATION.md), then all of it; a set without
    halves is reported whole."""
    out = {h: [q for q in questions if q.half == h] for h in ("tune", "check")}
    return {**{h: qs for h, qs in out.items() if qs}, "all": list(questions)}


def intervals(records: dict[str, dict[str, dict[str, Any]]], questions: Sequence[Question],
              label: str, against: str = BASELINE) -> dict[str, Any]:
    """page@1 and page@5 of one run with their 95 % intervals, and its paired difference
    with ``against`` (the page-BM25 row) on each: [mean, low, high]."""
    ranks = [records[q.id][label] for q in questions]
    base = [records[q.id][against] for q in questions]
    out: dict[str, Any] = {}
    for metric in ("page@1", "page@5", "mrr@10"):
        mine = per_question(ranks, metric)
        out[metric] = list(bootstrap(mine))
        if label != against:
            out[f"{metric} - {against}"] = list(bootstrap(mine, per_question(base, metric)))
    return out


def terminal_view(result: Any, top: int = 5) -> tuple[int, list[str]]:
    """What ``citeloom query`` prints for the top ``top`` hits of ``result`` by default:
    how many characters, header included, and each hit's snippet as printed."""
    import io

    from rich.console import Console

    from citeloom.cli.output import print_hits

    out = io.StringIO()
    console = Console(file=out, markup=False, emoji=False, highlight=False, soft_wrap=True,
                      color_system=None)
    snippets = print_hits("header", result.hits[:top], answer=result.to_dict(),
                          console=console)
    return len(out.getvalue()), snippets


def terminal_chars(result: Any, top: int = 5) -> int:
    """How many characters ``citeloom query`` prints for the top ``top`` hits by default."""
    return terminal_view(result, top)[0]


def score(records: dict[str, dict[str, dict[str, Any]]], questions: Sequence[Question],
          label: str) -> dict[str, Any]:
    """Overall and per-kind metrics of one run (or the baseline) over the records."""
    by_kind: dict[str, Any] = {}
    for kind in KINDS:
        ranks = [records[q.id][label] for q in questions if q.kind == kind]
        if ranks:
            by_kind[kind] = {"n": len(ranks), **summarise(ranks)}
    ranks = [records[q.id][label] for q in questions]
    out: dict[str, Any] = {"n": len(ranks), **summarise(ranks), "by_kind": by_kind}
    if all("ms" in r for r in ranks):
        out["query_ms_p50"] = round(statistics.median(r["ms"] for r in ranks), 2)
    if all("terminal_chars" in r for r in ranks):
        chars = sorted(r["terminal_chars"] for r in ranks)
        out["terminal_chars_p50"] = statistics.median(chars)
        out["terminal_chars_max"] = chars[-1]
    return out


def evaluate_pdfqa(settings: Settings, *, corpus_dir: Path,
                   runs: Sequence[tuple[str, str, str]], project: str = DEFAULT_PROJECT,
                   limit_pdfs: int | None = None, rebuild: bool = False,
                   devset: str | Path | None = None,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    """Ingest (or reuse) the dev set's PDFs, ask every question in every run and of the
    page-BM25 baseline; return the report (machine and date are the caller's to add)."""
    from citeloom.service import CiteLoom

    t_start = time.perf_counter()
    corpus = Path(corpus_dir)
    pdfs, questions = select(load_devset(devset), corpus, limit_pdfs)
    max_chars = settings.passage_chars
    app = CiteLoom(settings, started_by="eval")
    try:
        if rebuild:
            app.runtime.projects.remove_project(project)
        log(f"ingesting {len(pdfs)} PDFs into project {project!r} ({settings.index_dir})")
        built = ingest(app, project, corpus, pdfs, log)
        cfg = app.settings.project(project, create=True)
        lock = app.runtime.projects.index(project).lock() or app.runtime.models.model_lock(cfg)
        log(f"asking {len(questions)} questions x {len(runs)} runs")
        t0 = time.perf_counter()
        records = run_queries(app, project, questions, corpus, runs, max_chars, log)
        query_s = time.perf_counter() - t0
    finally:
        app.close()
    texts = {p: page_texts(corpus / p) for p in pdfs}
    base = baseline_ranks(questions, texts)
    for q in questions:
        records[q.id][BASELINE] = base[q.id]
    labels = [label for label, _, _ in runs]
    return {
        "dataset": "pdfqa",
        "split": set_name(devset),
        "questions": len(questions),
        "corpus": {"dir": str(corpus), **built,
                   "text_layer_pages": sum(len(t) for t in texts.values())},
        "settings": {
            "project": project, "model_lock": lock.to_dict(), "rrf_k": cfg.rrf_k,
            "prefetch": cfg.prefetch, "top_k": TOP_K, "passage_chars": max_chars,
            "query": "CiteLoom.query(question, mode, fusion, top_k=10, "
                     "max_chars=passage_chars) over the whole project: one hit per page "
                     "(the default), or per chunk for runs labelled -chunks; the run "
                     f"{DEFAULT_RUN!r} with the project's rerank_depth "
                     f"({cfg.rerank_depth}), every other without the cross-encoder",
            "baseline": "BM25 k1=1.2 b=0.75 over pypdfium2 page texts, one document per page",
        },
        "results": {label: score(records, questions, label) for label in labels},
        "baseline": {BASELINE: score(records, questions, BASELINE)},
        "halves": {half: {"n": len(qs), **{
            label: {**score(records, qs, label), "ci95": intervals(records, qs, label)}
            for label in [*labels, BASELINE]}} for half, qs in halves(questions).items()},
        "per_question": [{"id": q.id, "kind": q.kind, "pdf": q.pdf, "pages": list(q.pages),
                          **{label: records[q.id][label] for label in [*labels, BASELINE]}}
                         for q in questions],
        "timings_s": {"ingest": built["ingest_seconds"], "queries": round(query_s, 1),
                      "total": round(time.perf_counter() - t_start, 1)},
    }


def format_table(report: dict[str, Any]) -> str:
    c, s = report["corpus"], report["settings"]
    head = (f"pdfqa {report.get('split', 'dev')}: {report['questions']} questions, "
            f"{c['pdfs']} PDFs / {c['pages']} pages / {c['chunks']} chunks, "
            f"passage_chars={s['passage_chars']}, rrf_k={s['rrf_k']} prefetch={s['prefetch']}")
    rows = [f"{'run':<18} {'page@1':>7} {'page@5':>7} {'MRR@10':>7} {'ev@5':>7} "
            f"{'ev@5 head':>9} {'ev@5 chunk':>10} {'ev@5 snip':>9} {'chars':>6} "
            f"{'p50 ms':>7}"]
    everything = {**report["results"], **report["baseline"]}
    def cell(r: dict[str, Any], key: str, width: int, fmt: str = ".3f") -> str:
        return f"{r[key]:>{width}{fmt}}" if key in r else f"{'-':>{width}}"

    for label, r in everything.items():
        rows.append(f"{label:<18} {cell(r, 'page@1', 7)} {cell(r, 'page@5', 7)} "
                    f"{cell(r, 'mrr@10', 7)} {cell(r, 'evidence@5', 7)} "
                    f"{cell(r, 'evidence@5_head', 9)} {cell(r, 'evidence@5_chunk', 10)} "
                    f"{cell(r, 'evidence@5_snippet', 9)} {cell(r, 'terminal_chars_p50', 6, '.0f')} "
                    f"{cell(r, 'query_ms_p50', 7, '.1f')}")
    kinds = [k for k in KINDS if any(k in r["by_kind"] for r in everything.values())]
    width = max(13, *(len(label) + 2 for label in everything))
    rows += ["", "per kind, page@5 / evidence@5 (shown text):",
             f"{'kind':<16}" + "".join(f"{label:>{width}}" for label in everything)]
    for kind in kinds:
        cells = []
        for r in everything.values():
            k = r["by_kind"].get(kind)
            cells.append(f"{k['page@5']:.2f} / {k['evidence@5']:.2f}" if k else "-")
        n = next(r["by_kind"][kind]["n"] for r in everything.values() if kind in r["by_kind"])
        rows.append(f"{f'{kind} ({n})':<16}" + "".join(f"{cell:>{width}}" for cell in cells))
    return "\n".join([head, *rows, *format_halves(report)])


def _ci(v: list[float], signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{v[0]:{sign}.3f} [{v[1]:{sign}.2f}, {v[2]:{sign}.2f}]"


def format_halves(report: dict[str, Any]) -> list[str]:
    """Per half: page@1 and page@5 with 95 % intervals, and each run's paired difference
    with page BM25 (an interval above 0 is a win that is not noise)."""
    rows: list[str] = []
    for half, runs in report.get("halves", {}).items():
        name = "all" if half == "all" else f"{half} half"
        rows += ["", f"{name} ({runs['n']} questions): 95 % bootstrap intervals; "
                 f"differences paired with {BASELINE}",
                 f"{'run':<18} {'page@1':>20} {'page@5':>20} {'page@1 - bm25':>22} "
                 f"{'page@5 - bm25':>22}"]
        for label, r in runs.items():
            if label == "n":
                continue
            ci = r["ci95"]
            diff = [_ci(ci[f"{m} - {BASELINE}"], True) if f"{m} - {BASELINE}" in ci else "-"
                    for m in ("page@1", "page@5")]
            rows.append(f"{label:<18} {_ci(ci['page@1']):>20} {_ci(ci['page@5']):>20} "
                        f"{diff[0]:>22} {diff[1]:>22}")
    return rows
