"""Retrieval evaluation on SciFact (train split): nDCG@10, Recall@100 and MRR@10 for dense,
sparse, hybrid-RRF and hybrid-DBSF, through the same service code a user's query runs.

    citeloom eval scifact [--rebuild] [--limit-queries N] [--rrf-k K] [--prefetch N]
    python -m citeloom.eval.scifact scifact ...          (same, settings from the environment)
    citeloom eval pdfqa [--corpus-dir DIR] [--limit-pdfs N]    (the PDF dev set: eval_pdfqa.py)

The corpus (5,183 abstracts) is indexed once with ``CiteLoom.index_texts`` into a project
(default ``scifact-eval``) with payload ``doc_id`` = the SciFact ``_id``; a marker file
records what was built, so later runs with the same settings reuse it.

SciFact is CC BY-NC: it is read from where it lies (``--data-dir``, ``$CITELOOM_SCIFACT_DIR``,
else a ``shared/eval/scifact`` folder beside the config file's or the working directory's
folder) and never copied.

How a query is scored. A document may have several chunks, so documents are ranked by their
best chunk (first occurrence after deduplication by ``doc_id``):

* nDCG@10 and MRR@10 come from ``CiteLoom.query(top_k=10, group_by_doc=True)``, exactly the
  product's query (50 chunks fetched, hybrid prefetch = the project's ``prefetch``).
* Recall@100 needs 100 documents, more than ``query`` returns (top_k <= 50); it comes from
  the project's index searched directly for ``--depth`` chunks (default 200) with the same
  embeddings, fusion, ``rrf_k`` and filter; Edge widens the hybrid prefetch to the limit.

Metrics follow BEIR (pytrec_eval / trec_eval): nDCG with linear gain, DCG = sum rel_i /
log2(i + 1) over ranks i = 1..10, ideal DCG from the judged relevance grades; Recall@100 =
relevant documents in the top 100 / relevant documents; MRR@10 = 1 / rank of the first
relevant document in the top 10 (0 if none). Only queries with judgements are scored.
SciFact's grades are all 1, so linear and exponential (2^rel - 1) gain give the same figures.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import hashlib
import json
import math
import os
import platform
import random
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.service.api import QueryRequest

if TYPE_CHECKING:
    from citeloom.config import Settings
    from citeloom.service import CiteLoom

# pdfqa: the PDF question dev sets (eval_pdfqa.py); citecheck: the citation check on
# SciFact's claims (eval_citecheck.py)
DATASETS = ("scifact", "pdfqa", "citecheck")
DEFAULT_PROJECT = "scifact-eval"
PROJECTS = {"scifact": DEFAULT_PROJECT, "pdfqa": "pdfqa-eval", "citecheck": DEFAULT_PROJECT}
MARKER_VERSION = 1
# (label, mode, fusion): the four runs of an evaluation, in table order.
RUNS: tuple[tuple[str, str, str], ...] = (
    ("dense", "dense", "rrf"),
    ("sparse", "sparse", "rrf"),
    ("hybrid-rrf", "hybrid", "rrf"),
    ("hybrid-dbsf", "hybrid", "dbsf"),
)
METRICS = ("ndcg@10", "recall@100", "mrr@10")

Qrels = dict[str, dict[str, int]]


# -- metrics (pure functions) ---------------------------------------------------------------
def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain with linear gain: sum of g_i / log2(i + 1), i from 1."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, 1))


def ndcg_at_k(ranked: Sequence[str], rels: dict[str, int], k: int = 10) -> float:
    """nDCG@k as pytrec_eval's ``ndcg_cut_k`` computes it (linear gain). Documents judged
    0 or not judged add nothing; the ideal ranking is the judged grades, highest first."""
    ideal = dcg(sorted((r for r in rels.values() if r > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg(max(rels.get(d, 0), 0) for d in ranked[:k]) / ideal


def recall_at_k(ranked: Sequence[str], rels: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], rels: dict[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k], 1):
        if rels.get(d, 0) > 0:
            return 1.0 / i
    return 0.0


def dedupe(doc_ids: Iterable[str]) -> list[str]:
    """Documents in order of their first (best) chunk."""
    seen: set[str] = set()
    return [d for d in doc_ids if not (d in seen or seen.add(d))]


def score_run(top10: dict[str, list[str]], deep: dict[str, list[str]],
              qrels: Qrels) -> dict[str, float]:
    """Mean nDCG@10 / MRR@10 over ``top10`` rankings and Recall@100 over ``deep`` ones, for
    the queries that have judgements."""
    qids = [q for q in top10 if q in qrels]
    if not qids:
        return dict.fromkeys(METRICS, 0.0)
    return {
        "ndcg@10": statistics.fmean(ndcg_at_k(top10[q], qrels[q], 10) for q in qids),
        "recall@100": statistics.fmean(recall_at_k(deep.get(q, top10[q]), qrels[q], 100)
                                       for q in qids),
        "mrr@10": statistics.fmean(mrr_at_k(top10[q], qrels[q], 10) for q in qids),
    }


def query_folds(qrels: Qrels, qids: Sequence[str], k: int = 5, seed: int = 0,
                grouped: bool = True) -> list[list[str]]:
    """``qids`` split into ``k`` folds for cross-validating a learned ranking lever.

    SciFact's claims come in families that cite the same abstracts (a claim and its
    negation, several claims from one citing sentence). With ``grouped`` (the default),
    queries that share a relevant document always land in the same fold, so a model cannot
    score well on held-out queries by remembering which documents its training queries
    were judged against. ``grouped=False`` is the plain random split, for comparison.
    """
    parent = {q: q for q in qids}

    def root(q: str) -> str:
        while parent[q] != q:
            parent[q] = parent[parent[q]]
            q = parent[q]
        return q

    first: dict[str, str] = {}
    for q in qids:
        for doc, rel in qrels.get(q, {}).items():
            if grouped and rel > 0:
                parent[root(q)] = root(first.setdefault(doc, q))
    families: dict[str, list[str]] = {}
    for q in qids:
        families.setdefault(root(q), []).append(q)
    rng = random.Random(seed)
    order = list(families.values())
    rng.shuffle(order)
    order.sort(key=len, reverse=True)  # big families first, then fill the smallest fold
    folds: list[list[str]] = [[] for _ in range(k)]
    for family in order:
        min(folds, key=len).extend(family)
    return folds


# -- fusion, for tuning experiments on cached candidate lists --------------------------------
def rrf(lists: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None,
        depth: int | None = None) -> list[str]:
    """Reciprocal rank fusion as Qdrant (qdrant-edge 0.9) computes it: the item at 1-based
    rank r of a list with weight w gets 1 / (k - 1 + r / w), so unweighted 1 / (k + r - 1)
    (the first item scores 1/k) and a weight stretches ranks rather than scaling scores.
    ``depth`` truncates each list first (the prefetch limit). Ties keep first-seen order."""
    scores: dict[str, float] = {}
    for n, items in enumerate(lists):
        w = 1.0 if weights is None else weights[n]
        for r, item in enumerate(items[:depth] if depth else items, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k - 1 + r / w)
    return sorted(scores, key=lambda item: -scores[item])


def dbsf(lists: Sequence[Sequence[tuple[str, float]]], weights: Sequence[float] | None = None,
         depth: int | None = None) -> list[str]:
    """Distribution-based score fusion as Qdrant computes it: each list's scores are mapped
    by (s - (mean - 3 sd)) / (6 sd) (population sd), then summed."""
    scores: dict[str, float] = {}
    for n, items in enumerate(lists):
        items = list(items[:depth] if depth else items)
        if not items:
            continue
        w = 1.0 if weights is None else weights[n]
        vals = [s for _, s in items]
        mean = statistics.fmean(vals)
        sd = statistics.pstdev(vals) if len(vals) > 1 else 0.0
        low, high = mean - 3 * sd, mean + 3 * sd
        for item, s in items:
            norm = (s - low) / (high - low) if high > low else 0.5
            scores[item] = scores.get(item, 0.0) + w * norm
    return sorted(scores, key=lambda item: -scores[item])


# -- data ---------------------------------------------------------------------------------
def default_data_dir(settings: Settings | None = None, dataset: str = "scifact") -> Path:
    """``settings.scifact_dir`` (``$CITELOOM_SCIFACT_DIR``), else the first
    ``shared/eval/<dataset>`` found in or beside the config file's folder or the working
    directory (a checkout with ``../shared`` beside it)."""
    if settings is not None and settings.scifact_dir:
        return settings.scifact_dir
    return shared_dir(settings, f"eval/{dataset}")


def shared_dir(settings: Settings | None, rel: str) -> Path:
    """The first ``shared/<rel>`` in or beside the config file's folder or the working
    directory (the first candidate when none exists)."""
    bases = [Path.cwd()]
    if settings is not None and settings.config_path:
        bases.insert(0, settings.config_path.resolve().parent)
    candidates = [b / up / rel for b in bases for up in ("shared", "../shared")]
    return next((c.resolve() for c in candidates if c.is_dir()), candidates[0])


@dataclass
class Dataset:
    name: str
    split: str
    corpus: list[dict[str, str]]
    queries: dict[str, str]
    qrels: Qrels
    corpus_sha256: str


def _corpus_path(data_dir: Path) -> Path:
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (data_dir / name).is_file():
            return data_dir / name
    raise FileNotFoundError(f"no corpus.jsonl(.gz) in {data_dir}")


def load_qrels(path: Path) -> Qrels:
    """BEIR qrels: tab-separated query-id, corpus-id, score, with or without a header."""
    qrels: Qrels = {}
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or (n == 0 and not parts[2].strip().lstrip("-").isdigit()):
                continue  # header or blank line
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def load_scifact(data_dir: Path | None = None, split: str = "train") -> Dataset:
    data_dir = Path(data_dir) if data_dir else default_data_dir()
    if not data_dir.is_dir():
        raise FileNotFoundError(
            f"SciFact not found at {data_dir}; pass --data-dir (or set CITELOOM_SCIFACT_DIR)")
    cpath = _corpus_path(data_dir)
    raw = cpath.read_bytes()
    text = gzip.decompress(raw).decode("utf-8") if cpath.suffix == ".gz" else raw.decode()
    corpus = []
    for line in text.splitlines():
        if line.strip():
            d = json.loads(line)
            corpus.append({"_id": str(d["_id"]), "title": d.get("title") or "",
                           "text": d.get("text") or ""})
    queries = {}
    with (data_dir / f"queries_{split}.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                queries[str(d["_id"])] = d["text"]
    qrels = load_qrels(data_dir / f"qrels_{split}.tsv")
    return Dataset("scifact", split, corpus, queries, qrels, hashlib.sha256(raw).hexdigest())


# -- building the project -----------------------------------------------------------------
def embed_title_text(title: str, text: str) -> tuple[str, str]:
    """(title, text) as indexed: the title becomes the one heading, which the chunker puts
    in front of every chunk's embedded text (dense and BM25 alike)."""
    return title, text


def _marker_path(settings: Settings, project: str) -> Path:
    return settings.data_dir / "eval" / f"{project}.json"


def _wanted_marker(app: CiteLoom, project: str, ds: Dataset) -> dict[str, Any]:
    cfg = app.settings.project(project, create=True)
    return {"version": MARKER_VERSION, "dataset": ds.name, "corpus_sha256": ds.corpus_sha256,
            "documents": len(ds.corpus), "model_lock": app.runtime.models.model_lock(cfg).to_dict(),
            "text": "title (heading) + abstract"}


def built_chunks(app: CiteLoom, project: str, ds: Dataset) -> int | None:
    """The project's chunk count if it holds this corpus built with these settings."""
    from citeloom.errors import CiteLoomError

    path = _marker_path(app.settings, project)
    if not path.is_file():
        return None
    marker = json.loads(path.read_text())
    wanted = _wanted_marker(app, project, ds)
    if any(marker.get(k) != v for k, v in wanted.items()):
        return None
    try:
        count = app.runtime.projects.index(project).count()
    except CiteLoomError:
        return None
    return count if count == marker.get("chunks") else None


def build_project(app: CiteLoom, project: str, ds: Dataset,
                  log: Callable[[str], None] = print) -> tuple[int, float]:
    """(Re)build the project from the corpus; returns (chunks, seconds)."""
    from citeloom.service import TextDoc

    app.runtime.projects.remove_project(project)
    _marker_path(app.settings, project).unlink(missing_ok=True)
    docs = []
    for d in ds.corpus:
        title, text = embed_title_text(d["title"], d["text"])
        docs.append(TextDoc(doc_id=d["_id"], title=title, text=text, source=f"scifact:{d['_id']}",
                            payload={"doc_id": d["_id"]}))
    t0 = time.perf_counter()
    last = [t0]

    done = [0]

    def progress(event: str, result: Any) -> None:
        if result is None:
            return
        done[0] += 1
        n, now = done[0], time.perf_counter()
        if now - last[0] >= 30 or n == len(docs):
            last[0] = now
            rate = n / (now - t0)
            log(f"  indexed {n}/{len(docs)} documents ({rate:.1f}/s, "
                f"~{(len(docs) - n) / rate / 60:.1f} min left)")

    report = app.index_texts(project, docs, progress=progress)
    failed = [f for f in report.files if f.status == "failed"]
    if failed:
        raise RuntimeError(f"{len(failed)} SciFact documents failed to index: {failed[0]}")
    chunks = sum(f.chunks for f in report.files)
    seconds = time.perf_counter() - t0
    marker = {**_wanted_marker(app, project, ds), "chunks": chunks,
              "build_seconds": round(seconds, 1),
              "built_at": datetime.now(UTC).isoformat(timespec="seconds")}
    path = _marker_path(app.settings, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(marker, indent=2))
    return chunks, seconds


# -- running the queries ----------------------------------------------------------------------
def deep_search(app: CiteLoom, project: str, dense: list[float] | None, sparse: Any, mode: str,
                fusion: str, depth: int) -> list[str]:
    """Documents ranked by their best chunk among the top ``depth`` chunks, searched with
    the project's settings and the query's default filter (no reference-list chunks)."""
    from citeloom.index import SearchFilter

    cfg = app.settings.project(project, create=True)
    hits = app.runtime.projects.index(project).search(
        dense=dense, sparse=sparse, mode=mode, limit=depth,  # type: ignore[arg-type]
        flt=SearchFilter(exclude_labels=["reference"]), fusion=fusion,  # type: ignore[arg-type]
        rrf_k=cfg.rrf_k, prefetch=cfg.prefetch,
        dense_weight=app.runtime.projects.index(project).lock().dense_weight)
    return dedupe(h.payload.get("doc_id", h.id) for h in hits)


def run_queries(app: CiteLoom, project: str, queries: dict[str, str], depth: int = 200,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every query in every run: top-10 documents from ``CiteLoom.query`` and the deep
    ranking for Recall@100; plus per-run query latency."""
    cfg = app.settings.project(project, create=True)
    lock = app.runtime.projects.index(project).lock() or app.runtime.models.model_lock(cfg)
    dense_model = app.runtime.dense(lock.dense_model)
    sparse_model = app.runtime.sparse()
    top10: dict[str, dict[str, list[str]]] = {label: {} for label, _, _ in RUNS}
    deep: dict[str, dict[str, list[str]]] = {label: {} for label, _, _ in RUNS}
    latency: dict[str, list[float]] = {label: [] for label, _, _ in RUNS}
    for n, (qid, text) in enumerate(queries.items(), 1):
        for label, mode, fusion in RUNS:
            res = app.query(
                QueryRequest(project, text, mode=mode, top_k=10, fusion=fusion, group_by_doc=True)
            )  # type: ignore[arg-type]
            top10[label][qid] = [h.doc_id for h in res.hits]
            latency[label].append(res.timings_ms["total"])
        dvec = dense_model.embed_query(text)
        svec = sparse_model.embed_query(text)
        for label, mode, fusion in RUNS:
            deep[label][qid] = deep_search(app, project, dvec if mode != "sparse" else None,
                                           svec if mode != "dense" else None, mode, fusion,
                                           depth)
        if n % 200 == 0:
            log(f"  {n}/{len(queries)} queries")
    return {"top10": top10, "deep": deep, "latency_ms": latency}


# -- the whole evaluation ---------------------------------------------------------------------
def words(text: str) -> list[str]:
    """Lowercased (NFKC) tokens; every character that is not a letter or digit splits."""
    text = unicodedata.normalize("NFKC", text).lower()
    return "".join(c if c.isalnum() else " " for c in text).split()


def word_recall(truth: str, output: str) -> float:
    """Share of ground-truth tokens found in ``output``, counting multiplicity (the
    conversion benchmark's and tests' text-recall measure)."""
    want, got = collections.Counter(words(truth)), collections.Counter(words(output))
    return sum(min(n, got[w]) for w, n in want.items()) / sum(want.values())


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        mem_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    return {"machine": platform.machine(), "cpu": cpu, "cores": os.cpu_count(),
            "memory_gb": mem_gb, "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def machine_summary() -> str:
    """``machine_info`` on one line, for benchmark tables."""
    m = machine_info()
    return (f"{m['cpu'] or m['machine']}, {m['cores']} cores, {m['memory_gb']} GiB, "
            f"Python {m['python']}")


def with_overrides(settings: Settings, project: str, **updates: Any) -> Settings:
    """Settings whose project ``project`` has ``updates`` (None values ignored) applied."""
    updates = {k: v for k, v in updates.items() if v is not None}
    if not updates:
        return settings
    cfg = settings.project(project, create=True).model_copy(update=updates)
    return settings.model_copy(update={"projects": {**settings.projects, project: cfg}})


def evaluate(settings: Settings, *, dataset: str = "scifact", data_dir: Path | None = None,
             project: str = DEFAULT_PROJECT, rebuild: bool = False,
             limit_queries: int | None = None, depth: int = 200,
             log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build (or reuse) the project, run every query in every mode, return the report."""
    from citeloom.service import CiteLoom

    if dataset != "scifact":  # pdfqa has its own module, eval_pdfqa.py
        raise ValueError(f"evaluate() runs scifact, not {dataset!r}")
    t_start = time.perf_counter()
    ds = load_scifact(data_dir or default_data_dir(settings))
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    if limit_queries:
        queries = dict(list(queries.items())[:limit_queries])
    app = CiteLoom(settings, started_by="eval")
    try:
        chunks = None if rebuild else built_chunks(app, project, ds)
        built, build_s = False, None
        if chunks is None:
            log(f"building project {project!r} from {len(ds.corpus)} SciFact abstracts "
                f"into {settings.index_dir}")
            chunks, build_s = build_project(app, project, ds, log)
            built = True
        else:
            log(f"reusing project {project!r} ({chunks} chunks)")
        marker = json.loads(_marker_path(settings, project).read_text())
        cfg = app.settings.project(project, create=True)
        # Warm up: load both models and open the index before timing queries.
        app.query(QueryRequest(project, "warm up", mode="hybrid", top_k=1))
        log(f"running {len(queries)} {ds.split} queries x {len(RUNS)} runs")
        t0 = time.perf_counter()
        runs = run_queries(app, project, queries, depth, log)
        query_s = time.perf_counter() - t0
    finally:
        app.close()
    results = {}
    for label, _, _ in RUNS:
        scores = score_run(runs["top10"][label], runs["deep"][label], ds.qrels)
        lat = runs["latency_ms"][label]
        results[label] = {**{k: round(v, 4) for k, v in scores.items()},
                          "query_ms_p50": round(statistics.median(lat), 2),
                          "query_ms_p95": round(_percentile(lat, 95), 2)}
    return {
        "dataset": ds.name,
        "split": ds.split,
        "queries": len(queries),
        "corpus": {"documents": len(ds.corpus), "chunks": chunks,
                   "sha256": ds.corpus_sha256, "built_now": built,
                   "build_seconds": round(build_s, 1) if build_s is not None
                   else marker.get("build_seconds")},
        "settings": {
            "project": project,
            "model_lock": marker["model_lock"],
            "text": marker["text"],
            "rrf_k": cfg.rrf_k,
            "prefetch": cfg.prefetch,
            "top10_from": "CiteLoom.query(top_k=10, group_by_doc=True)",
            "recall_depth_chunks": depth,
            "ndcg_gain": "linear: rel / log2(rank + 1) (pytrec_eval/BEIR); all SciFact "
                         "grades are 1, so exponential gain gives the same",
        },
        "results": results,
        "timings_s": {"build": round(build_s, 1) if build_s is not None else None,
                      "queries": round(query_s, 1),
                      "total": round(time.perf_counter() - t_start, 1)},
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        # Latency figures are only as quiet as the machine was: 1/5/15-minute load.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def _percentile(values: Sequence[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def format_table(report: dict[str, Any]) -> str:
    rows = [f"{'run':<12} {'nDCG@10':>8} {'R@100':>8} {'MRR@10':>8} {'p50 ms':>8}"]
    for label, r in report["results"].items():
        rows.append(f"{label:<12} {r['ndcg@10']:>8.4f} {r['recall@100']:>8.4f} "
                    f"{r['mrr@10']:>8.4f} {r['query_ms_p50']:>8.1f}")
    s = report["settings"]
    head = (f"{report['dataset']} {report['split']}: {report['queries']} queries, "
            f"{report['corpus']['documents']} documents / {report['corpus']['chunks']} chunks, "
            f"rrf_k={s['rrf_k']} prefetch={s['prefetch']}")
    return "\n".join([head, *rows])


# -- command line ---------------------------------------------------------------------------
def add_eval_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "eval", help="retrieval evaluation on a benchmark (scifact) or the PDF dev set (pdfqa)",
        description="Index a benchmark corpus into a project (once) and score dense, sparse, "
                    "hybrid-RRF and hybrid-DBSF retrieval: SciFact's train queries "
                    "(nDCG@10, Recall@100, MRR@10), or the PDF question dev set (page and "
                    "evidence hits, MRR@10, against a page-BM25 baseline).")
    p.add_argument("dataset", choices=list(DATASETS),
                   help="scifact (BEIR SciFact train queries), pdfqa (the PDF question dev "
                        "sets) or citecheck (the citation check on SciFact's claims)")
    p.add_argument("--project", "-p", default=None,
                   help="project to build or reuse (default scifact-eval / pdfqa-eval)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="the dataset folder (default $CITELOOM_SCIFACT_DIR, else "
                        "shared/eval/scifact in or beside the config's or working folder)")
    p.add_argument("--out", type=Path, default=None,
                   help="results JSON (default <data dir>/eval/<dataset>_train.json)")
    p.add_argument("--rebuild", action="store_true", help="rebuild the project even if built")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N",
                   help="only the first N queries (quick runs)")
    p.add_argument("--rrf-k", type=int, default=None, help="override the project's rrf_k")
    p.add_argument("--prefetch", type=int, default=None,
                   help="override the project's hybrid prefetch depth")
    p.add_argument("--depth", type=int, default=200,
                   help="chunks fetched for Recall@100 (default 200)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--corpus-dir", type=Path, default=None,
                   help="pdfqa: the folder the set's PDF paths start from (default: "
                        "shared/corpus/pdfs, for dev2 shared/, in or beside the config's "
                        "or working folder)")
    p.add_argument("--limit-pdfs", type=int, default=None, metavar="N",
                   help="pdfqa: only the N smallest PDFs and their questions (quick runs)")
    p.add_argument("--questions", default=None, metavar="SET",
                   help="pdfqa: the question set, dev (the default) or dev2 (each with a "
                        "tune and a check half), holdout (written blind, never tuned on), "
                        "or a JSONL file in their format")


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    args.project = args.project or PROJECTS[args.dataset]
    if args.dataset == "pdfqa" and args.project == PROJECTS["pdfqa"] and getattr(
            args, "questions", None) not in (None, "dev"):  # one project per question set
        from citeloom.eval.pdfqa_set import set_name

        args.project = f"{args.project}-{set_name(args.questions)}"
    settings = with_overrides(settings, args.project, rrf_k=getattr(args, "rrf_k", None),
                              prefetch=getattr(args, "prefetch", None))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    table = format_table
    if args.dataset == "pdfqa":
        from citeloom.eval import pdfqa as eval_pdfqa
        from citeloom.eval.pdfqa_set import SETS

        report = eval_pdfqa.evaluate_pdfqa(
            settings, corpus_dir=args.corpus_dir or shared_dir(
                settings, SETS.get(args.questions or "dev", "corpus/pdfs")),
            runs=eval_pdfqa.PDFQA_RUNS, project=args.project, limit_pdfs=args.limit_pdfs,
            rebuild=args.rebuild, devset=args.questions, log=log)
        report.update(date=datetime.now(UTC).isoformat(timespec="seconds"),
                      machine=machine_info(), load_average=[round(x, 2)
                                                            for x in os.getloadavg()])
        table = eval_pdfqa.format_table
    elif args.dataset == "citecheck":
        from citeloom.eval import citecheck as eval_citecheck

        ds = load_scifact(args.data_dir or default_data_dir(settings))

        def ensure_built(app: CiteLoom) -> None:
            if args.rebuild or built_chunks(app, args.project, ds) is None:
                log(f"building project {args.project!r} from {len(ds.corpus)} abstracts")
                build_project(app, args.project, ds, log)

        report = eval_citecheck.evaluate_citecheck(
            settings, ds, project=args.project, ensure_built=ensure_built,
            limit_queries=args.limit_queries, log=log)
        report.update(date=datetime.now(UTC).isoformat(timespec="seconds"),
                      machine=machine_info(), load_average=[round(x, 2)
                                                            for x in os.getloadavg()])
        table = eval_citecheck.format_table
    else:
        report = evaluate(settings, dataset=args.dataset, data_dir=args.data_dir,
                          project=args.project, rebuild=args.rebuild,
                          limit_queries=args.limit_queries, depth=getattr(args, "depth", 200),
                          log=log)
    prog = "citeloom" if Path(sys.argv[0]).name == "citeloom" else "python -m citeloom.eval.scifact"
    report["command"] = " ".join([prog, *sys.argv[1:]])
    if args.out is None:
        args.out = settings.data_dir / "eval" / f"{args.dataset}_{report['split']}.json"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    if getattr(args, "json", False):
        print(json.dumps(report, indent=2))
    else:
        print(table(report))
        if args.out:
            print(f"written to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from citeloom.config import load_settings

    parser = argparse.ArgumentParser(prog="python -m citeloom.eval.scifact")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["eval"]:
        argv = ["eval", *argv]
    args = parser.parse_args(argv)
    return cmd_eval(args, load_settings())


if __name__ == "__main__":
    sys.exit(main())
