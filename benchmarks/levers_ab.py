"""Ranking and display levers of issue #17 (session 5) as an A/B in one run, each variant
computed from the same scored candidate lists (``fusion_ab.candidates``: dense and sparse,
``--depth`` chunks each, the product's filter), on the PDF question dev set (one hit per
page, as the product now answers) and SciFact train (nDCG@10 by document).

* granularity: BM25 over whole pages (SciFact: whole documents) as a third list beside the
  chunk lists, and the dense centroid of a page's (document's) chunks;
* BM25 parameters (k1, b, average length) of the chunk-level sparse list, recomputed here
  with qdrant-edge's own ``Bm25`` and the collection's IDF;
* query-dependent weights: sparse left out for a question not in English, doubled for a
  question with an identifier or acronym (DBSF with a prefetch listed twice);
* what a page hit shows: its best 1-4 chunks, whole or windowed, or a window over the
  page's whole text;

The learned levers (a linear ranker, a query adapter) are in ``learned_ab.py``.

    .venv/bin/python benchmarks/levers_ab.py --scifact-data /tmp/cl-scifact \
        --pdfqa-data /tmp/pdfqa-data

Writes benchmarks/results/levers_ab.json.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from fusion_ab import MODELS, candidates, dbsf_scores

from citeloom.config import Settings
from citeloom.eval.pdfqa import evidence_in, first_rank, pages_overlap
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import dedupe, load_scifact, machine_summary, ndcg_at_k
from citeloom.payload import window
from citeloom.service import CiteLoom

ROOT = Path(__file__).resolve().parents[1]
Scored = list[tuple[str, float]]
_EN = ("a an and are as at be by can could did do does for from had has have how i if in "
         "into is it its of on or our that the their there these this those to was we were "
         "what when where which who why will with would")
EN = set(_EN.split())
_OTHER = ("au aux avec ce ces comment dans de des du elle en est et il la le les leur mais "
            "ne ou par pas pour quand que quel quelle quels qui sa se son sont sur un une al "
            "como con cual cuales cuando cuanto del el es esta este las lo los para por qué "
            "se su sus una y das dem den der des die ein eine einer und ist im mit von wie "
            "welche welcher wurde zu")
OTHER = set(_OTHER.split())
IDENT = re.compile(r"\b(?:[A-Z][A-Z0-9_-]{1,}|\w*\d\w*|[a-z]+[A-Z]\w*|\w+_\w+)\b")


def non_english(text: str) -> bool:
    words = re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).lower())
    non_latin = sum(1 for ch in text if ch.isalpha() and ord(ch) > 0x24F)
    return sum(w in OTHER for w in words) > sum(w in EN for w in words) or \
        non_latin > len(text) / 4


def bm25_search(texts: dict[str, str], **cfg: float) -> Callable[[str], Scored]:
    """BM25 over ``texts`` as Qdrant scores it: qdrant-edge's term weights, IDF over them."""
    import qdrant_edge as q

    model = q.Bm25(q.Bm25Config(language="english", **cfg))
    post: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for key, text in texts.items():
        v = model.embed_document(text)
        for t, w in zip(v.indices, v.values, strict=True):
            post[t].append((key, w))
    n = len(texts)
    idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in post.items()}

    def search(query: str, limit: int = 100) -> Scored:
        scores: dict[str, float] = defaultdict(float)
        for t in set(model.embed_query(query).indices):
            for key, w in post.get(t, ()):
                scores[key] += idf[t] * w
        return sorted(scores.items(), key=lambda x: -x[1])[:limit]

    return search


def dbsf_norm(items: Scored) -> dict[str, float]:
    return dbsf_scores([items], [1.0])


def fused(lists: list[Scored], weights: list[float]) -> list[str]:
    scores = dbsf_scores(lists, weights)
    return sorted(scores, key=lambda i: -scores[i])


def on_chunks(group_list: Scored, group: dict[str, str], ids: set[str]) -> Scored:
    """A list of groups (pages, documents) as a list of the candidate chunks in them."""
    score = dict(group_list)
    return sorted(((i, score[group[i]]) for i in ids if group[i] in score),
                  key=lambda x: -x[1])


def centroids(app: CiteLoom, project: str, group: dict[str, str]
              ) -> tuple[list[str], np.ndarray]:
    index = app.runtime.projects.index(project)
    ids = list(group)
    vecs: dict[str, list[float]] = {}
    for k in range(0, len(ids), 500):
        vecs.update(index.dense_vectors(ids[k:k + 500]))
    members: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        members[group[i]].append(i)
    names = list(members)
    c = np.stack([np.mean([vecs[i] for i in members[g]], axis=0) for g in names])
    return names, c / np.linalg.norm(c, axis=1, keepdims=True)


class Setup:
    """A project's chunks, groups (page or document), group texts and candidate lists."""

    def __init__(self, data: Path, project: str, queries: dict[str, str], depth: int,
                 key: Callable[[dict[str, Any]], str]) -> None:
        self.app = CiteLoom(Settings(data_dir=data, models_dir=MODELS))
        self.chunks = {h.id: h.payload for h in self.app.runtime.projects.index(project).scroll()}
        self.group = {i: key(p) for i, p in self.chunks.items()}
        order = sorted(self.chunks, key=lambda i: self.chunks[i].get("chunk_index") or 0)
        members: dict[str, list[str]] = defaultdict(list)
        for i in order:
            members[self.group[i]].append(i)
        self.members = members
        self.group_text = {g: "\n".join(self.chunks[i]["chunk_text"] for i in m)
                           for g, m in members.items()}
        self.lists: dict[str, tuple[Scored, Scored]] = {}
        self.qvec: dict[str, np.ndarray] = {}
        cfg = self.app.settings.project(project, create=True)
        dense = self.app.runtime.dense((self.app.runtime.projects.index(project).lock()
                                or self.app.runtime.models.model_lock(cfg)).dense_model)
        for qid, text in queries.items():
            d, s = candidates(self.app, project, text, depth)
            self.lists[qid] = ([(h.id, h.score) for h in d], [(h.id, h.score) for h in s])
            self.qvec[qid] = np.asarray(dense.embed_query(text), dtype=np.float32)
        self.names, self.cent = centroids(self.app, project, self.group)
        self.app.close()

    def centroid_list(self, qid: str, limit: int = 100) -> Scored:
        sims = self.cent @ self.qvec[qid]
        return [(self.names[k], float(sims[k])) for k in np.argsort(-sims)[:limit]]


def ranking_variants(st: Setup, queries: dict[str, str], chunk_text: dict[str, str]
                     ) -> dict[str, dict[str, list[str]]]:
    """{variant: {query id: chunk ids, best first}}."""
    group_bm25 = bm25_search(st.group_text, avg_len=400)
    configs = {"recomputed, k1=1.2 b=0.75 avg_len=256": {}, "k1=0.9": {"k": 0.9},
               "k1=1.5": {"k": 1.5}, "k1=2.0": {"k": 2.0},
               "b=0.5": {"b": 0.5}, "b=0.9": {"b": 0.9}, "avg_len=100": {"avg_len": 100},
               "avg_len=150": {"avg_len": 150}}
    chunk_bm25 = {name: bm25_search(chunk_text, **cfg) for name, cfg in configs.items()}
    out: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for qid, text in queries.items():
        d, s = st.lists[qid]
        ids = {i for i, _ in d} | {i for i, _ in s}
        grp = on_chunks(group_bm25(text), st.group, ids)
        cen = on_chunks(st.centroid_list(qid), st.group, ids)
        out["dbsf (the default)"][qid] = fused([d, s], [1, 1])
        for w in (0.5, 1.0):
            out[f"dbsf + page/doc BM25 x{w}"][qid] = fused([d, s, grp], [1, 1, w])
            out[f"dbsf + page/doc centroid x{w}"][qid] = fused([d, s, cen], [1, 1, w])
        out["sparse + page/doc centroid"][qid] = fused([s, cen], [1, 1])
        for name, search in chunk_bm25.items():
            out[f"dbsf, BM25 {name}"][qid] = fused([d, [
                (i, v) for i, v in search(text)
                if "reference" not in (st.chunks[i].get("item_labels") or [])]], [1, 1])
        ne, ident = non_english(text), bool(IDENT.search(text))
        out["dbsf, no sparse for non-English"][qid] = (
            [i for i, _ in d] if ne else fused([d, s], [1, 1]))
        out["dbsf, sparse x2 with an identifier"][qid] = fused([d, s], [1, 2 if ident else 1])
    return out


def top_pages(st: Setup, order: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The first ten pages of a chunk ranking, and the top five's chunks, best first."""
    pages = list(dict.fromkeys(st.group[i] for i in order))[:10]
    return pages, {g: [i for i in order if st.group[i] == g] for g in pages[:5]}


def page_rows(st: Setup, questions: list[Any], orders: dict[str, list[str]], corpus: Path
              ) -> list[tuple[int | None, bool]]:
    """Per question: the rank of its first right page (a page counted by its best chunk's
    own span), and whether the evidence is in the best three chunks of a top-5 page."""
    rows = []
    for q in questions:
        order = orders[q.id]
        pages, best = top_pages(st, order)
        source = str((corpus / q.pdf).resolve())
        rank = first_rank(any(st.chunks[i]["source_path"] == source and pages_overlap(
            st.chunks[i]["page_start"], st.chunks[i]["page_end"], q.pages)
            for i in best.get(g, [next(i for i in order if st.group[i] == g)])[:1])
            for g in pages)
        rows.append((rank, any(evidence_in(q.evidence, "\n\n".join(
            st.chunks[i]["chunk_text"] for i in m[:3])) for m in best.values())))
    return rows


def pdfqa(data: Path, corpus: Path, depth: int) -> dict[str, Any]:
    questions = load_devset()
    queries = {q.id: q.question for q in questions}
    st = Setup(data, "pdfqa-eval", queries, depth,
               lambda p: f"{p.get('doc_id')}#{p.get('page_start')}")
    # what is BM25-indexed: the headings above the passage, and the passage
    texts = {i: "\n".join([*(p.get("heading_chain") or []), p["chunk_text"]])
             for i, p in st.chunks.items()}
    variants = ranking_variants(st, queries, texts)
    ranking: dict[str, dict[str, float]] = {}
    display: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        _, best = top_pages(st, variants["dbsf (the default)"][q.id])
        for m in (1, 2, 3, 4):
            for budget in (None, 400, 600, 800):
                display[f"best {m} chunk(s), {budget or 'whole'}"].append(any(
                    evidence_in(q.evidence, "\n\n".join(
                        st.chunks[i]["chunk_text"] if budget is None else window(
                            st.chunks[i]["chunk_text"], budget, q.question)
                        for i in chunks[:m])) for chunks in best.values()))
        for budget in (800, 1600, 2400):
            display[f"window over the whole page, {budget}"].append(any(
                evidence_in(q.evidence, window(st.group_text[g], budget, q.question))
                for g in best))
    for name, orders in variants.items():
        rows = page_rows(st, questions, orders, corpus)
        ranking[name] = {
            "page@1": round(statistics.fmean(r == 1 for r, _ in rows), 3),
            "page@5": round(statistics.fmean(bool(r and r <= 5) for r, _ in rows), 3),
            "evidence@5 (3 chunks whole)": round(statistics.fmean(e for _, e in rows), 3)}
    return {"ranking": ranking,
            "display_evidence@5": {k: round(statistics.fmean(v), 3) for k, v in display.items()}}


def scifact(data: Path, depth: int) -> dict[str, Any]:
    ds = load_scifact(None, "train")
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    st = Setup(data, "scifact-eval", queries, depth, lambda p: p.get("doc_id"))
    # what is BM25-indexed: the title (heading) and the passage, as the product embeds it
    texts = {i: f"{p.get('section_path') or p.get('title') or ''}\n{p['chunk_text']}"
             for i, p in st.chunks.items()}
    st.group_text = {g: f"{st.chunks[m[0]].get('title') or ''}\n" + st.group_text[g]
                     for g, m in st.members.items()}
    variants = ranking_variants(st, queries, texts)
    out = {name: round(statistics.fmean(ndcg_at_k(
        dedupe(st.group[i] for i in orders[q])[:10], ds.qrels[q], 10) for q in queries), 4)
        for name, orders in variants.items()}
    return {"ndcg@10": out}


def arguments() -> argparse.Namespace:
    """Where the two evaluation projects and the PDFs are, and the candidate depth."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--scifact-data", type=Path, default=Path("/tmp/cl-scifact"))
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-data"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--depth", type=int, default=100)
    return ap.parse_args()


def main() -> None:
    args = arguments()
    t0 = time.perf_counter()
    result = {"date": date.today().isoformat(), "machine": machine_summary(),
              "depth": args.depth, "pdfqa": pdfqa(args.pdfqa_data, args.corpus, args.depth),
              "scifact_train": scifact(args.scifact_data, args.depth)}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    out = ROOT / "benchmarks" / "results" / "levers_ab.json"
    out.write_text(json.dumps(result, indent=2))
    p, s = result["pdfqa"], result["scifact_train"]
    print(f"{'variant':40} {'page@1':>7} {'page@5':>7} {'ev@5':>7} {'SciFact':>8}")
    for name, r in p["ranking"].items():
        print(f"{name:40} {r['page@1']:7.3f} {r['page@5']:7.3f} "
              f"{r['evidence@5 (3 chunks whole)']:7.3f} {s['ndcg@10'][name]:8.4f}")
    for name, v in p["display_evidence@5"].items():
        print(f"display: {name:40} {v:.3f}")


if __name__ == "__main__":
    main()
