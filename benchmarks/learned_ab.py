"""Learned ranking levers of issue #17 (session 6), cross-validated two ways on SciFact
train: plain random folds, and folds that keep every family of queries judged against the
same abstract together (``evaluate.query_folds``). SciFact's claims come in such families
(208 of the 565 relevant train abstracts are shared by queries that a random 5-fold split
puts in different folds), so a lever that learns *which documents* the training queries
liked scores well on random folds without ranking any better.

* a linear ranker over each candidate document's fusion features (the session-5 lever);
* a query-side linear adapter: the query vector q becomes q + Aq before the dense search,
  A (384 x 384) trained with a softmax loss over each training query's dense top 200 and
  its relevant chunks. It costs one small matrix product per query and no reindexing.
  Trained on all SciFact train queries, it is also applied to the PDF question dev set,
  to see what a biomedical adapter does to other papers.

    .venv/bin/python benchmarks/learned_ab.py --scifact-data /tmp/cl-scifact \\
        --pdfqa-data /tmp/pdfqa-data

Writes benchmarks/results/learned_ab.json.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from levers_ab import ROOT, Scored, Setup, arguments, dbsf_norm, fused, page_rows

from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import dedupe, load_scifact, machine_summary, ndcg_at_k, query_folds

Qrels = dict[str, dict[str, int]]
DIM = 384


def ltr_rows(st: Setup, qrels: Qrels, qids: list[str]
             ) -> dict[str, tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per query: each candidate document's features, its label, the documents."""
    rows = {}
    for qid in qids:
        d, s = st.lists[qid]
        dn, sn = dbsf_norm(d), dbsf_norm(s)
        feats: dict[str, list[float]] = defaultdict(lambda: [0.0] * 8)
        for r, (i, v) in enumerate(d):
            f = feats[st.group[i]]
            if not f[0]:
                f[0], f[2], f[4] = dn[i], v, 1 / (1 + r)
        for r, (i, v) in enumerate(s):
            f = feats[st.group[i]]
            if not f[1]:
                f[1], f[3], f[5] = sn[i], v / s[0][1], 1 / (1 + r)
        cen = dict(st.centroid_list(qid, len(st.names)))
        for g, f in feats.items():
            f[2] = f[2] or d[-1][1]
            f[6], f[7] = cen[g], f[0] + f[1]
        docs = list(feats)
        rows[qid] = (np.array([feats[g] for g in docs]),
                     np.array([1.0 if g in qrels[qid] else 0.0 for g in docs]), docs)
    return rows


def ltr_cv(rows: dict[str, tuple[np.ndarray, np.ndarray, list[str]]], qrels: Qrels,
           folds: list[list[str]]) -> dict[str, float]:
    """A class-weighted logistic model over the features, trained on the other folds."""
    base, learned = [], []
    for k, held in enumerate(folds):
        train = [q for j, f in enumerate(folds) if j != k for q in f]
        x = np.vstack([rows[q][0] for q in train])
        y = np.concatenate([rows[q][1] for q in train])
        mu, sd = x.mean(0), x.std(0) + 1e-9
        xn = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
        weight = np.where(y == 1, (len(y) - y.sum()) / max(y.sum(), 1), 1.0)
        w = np.zeros(xn.shape[1])
        for _ in range(800):
            p = 1 / (1 + np.exp(-xn @ w))
            w -= 0.5 * (xn.T @ ((p - y) * weight / weight.mean()) / len(y) + 1e-3 * w)
        for q in held:
            x_q, _, docs = rows[q]
            score = np.hstack([(x_q - mu) / sd, np.ones((len(x_q), 1))]) @ w
            learned.append(ndcg_at_k([docs[i] for i in np.argsort(-score)][:10], qrels[q], 10))
            base.append(ndcg_at_k([docs[i] for i in np.argsort(-x_q[:, 7])][:10], qrels[q], 10))
    return {"dbsf by document": round(statistics.fmean(base), 4),
            "learned linear ranker": round(statistics.fmean(learned), 4)}


class Vectors:
    """Every chunk's stored dense vector, for brute-force search with a changed query."""

    def __init__(self, st: Setup, data: Path, project: str) -> None:
        from fusion_ab import MODELS

        from citeloom.config import Settings
        from citeloom.service import CiteLoom

        app = CiteLoom(Settings(data_dir=data, models_dir=MODELS))
        index = app.runtime.projects.index(project)
        self.ids = [i for i, p in st.chunks.items()
                    if "reference" not in (p.get("item_labels") or [])]
        vecs: dict[str, list[float]] = {}
        for k in range(0, len(self.ids), 500):
            vecs.update(index.dense_vectors(self.ids[k:k + 500]))
        app.close()
        self.mat = np.asarray([vecs[i] for i in self.ids], dtype=np.float32)
        self.pos = {i: n for n, i in enumerate(self.ids)}

    def search(self, q: np.ndarray, limit: int = 100) -> Scored:
        sims = self.mat @ (q / np.linalg.norm(q))
        top = np.argpartition(-sims, limit)[:limit]
        return [(self.ids[i], float(sims[i])) for i in top[np.argsort(-sims[top])]]


class AdapterData:
    """Each query's normalised vector and its candidate chunks (dense top 200 and the
    chunks of its relevant documents), padded to one width for batched training."""

    def __init__(self, st: Setup, vec: Vectors, qrels: Qrels, qids: list[str]) -> None:
        members: dict[str, list[int]] = defaultdict(list)
        for i in vec.ids:
            members[st.group[i]].append(vec.pos[i])
        self.qids = qids
        self.q = np.stack([st.qvec[q] / np.linalg.norm(st.qvec[q]) for q in qids])
        cands, labels = [], []
        for n, qid in enumerate(qids):
            sims = vec.mat @ self.q[n]
            top = set(np.argpartition(-sims, 200)[:200].tolist())
            pos = {j for doc in qrels[qid] for j in members.get(doc, [])}
            c = sorted(top | pos)
            cands.append(c)
            labels.append([j in pos for j in c])
        width = max(map(len, cands))
        self.cand = np.zeros((len(qids), width), dtype=np.int64)
        self.valid = np.zeros((len(qids), width), dtype=bool)
        self.label = np.zeros((len(qids), width), dtype=bool)
        for n, (c, y) in enumerate(zip(cands, labels, strict=True)):
            self.cand[n, :len(c)], self.valid[n, :len(c)], self.label[n, :len(c)] = c, True, y
        self.mat = vec.mat

    def train(self, rows: np.ndarray, steps: int, lam: float, tau: float = 0.05,
              lr: float = 1e-3) -> np.ndarray:
        """A with Adam on the mean multi-positive softmax loss over ``rows`` (+ lam |A|^2)."""
        q, docs = self.q[rows], self.mat[self.cand[rows]]          # [n, d], [n, c, d]
        valid, label = self.valid[rows], self.label[rows] & self.valid[rows]
        a = np.zeros((DIM, DIM), dtype=np.float32)
        m, v = np.zeros_like(a), np.zeros_like(a)
        for t in range(1, steps + 1):
            s = np.einsum("ncd,nd->nc", docs, q + q @ a.T) / tau
            s = np.where(valid, s, -np.inf)
            p = np.exp(s - s.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            pp = np.where(label, p, 0.0)
            pp /= pp.sum(1, keepdims=True)
            g = (p - pp) / tau                                      # d loss / d score
            grad = np.einsum("nc,ncd->nd", g, docs).T @ q / len(rows) + lam * a
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad * grad
            a -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        return a


def adapted(st: Setup, vec: Vectors, a: np.ndarray | None, qid: str) -> list[str]:
    """The hybrid ranking with the adapted dense query: DBSF of its top 100 and BM25's."""
    q = st.qvec[qid] / np.linalg.norm(st.qvec[qid])
    if a is not None:
        q = q + a @ q
    return fused([vec.search(q), st.lists[qid][1]], [1, 1])


ADAPTERS = {"50 steps": (50, 0.0), "20 steps": (20, 0.0), "150 steps, l2 1.0": (150, 1.0)}


def scifact(data: Path, depth: int) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    ds = load_scifact(None, "train")
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    qids = list(queries)
    st = Setup(data, "scifact-eval", queries, depth, lambda p: p.get("doc_id"))
    vec = Vectors(st, data, "scifact-eval")
    rows = ltr_rows(st, ds.qrels, qids)
    train = AdapterData(st, vec, ds.qrels, qids)
    index = {q: n for n, q in enumerate(qids)}

    def ndcg(order: list[str], q: str) -> float:
        return ndcg_at_k(dedupe(st.group[i] for i in order)[:10], ds.qrels[q], 10)

    out: dict[str, Any] = {"no adapter (brute-force dense + BM25, DBSF)": round(
        statistics.fmean(ndcg(adapted(st, vec, None, q), q) for q in qids), 4)}
    for scheme, grouped in (("random folds", False), ("grouped folds", True)):
        folds = query_folds(ds.qrels, qids, k=5, grouped=grouped)
        res: dict[str, Any] = {"ltr": ltr_cv(rows, ds.qrels, folds)}
        for name, (steps, lam) in ADAPTERS.items():
            scores = []
            for k, held in enumerate(folds):
                rest = np.array([index[q] for j, f in enumerate(folds) if j != k for q in f])
                a = train.train(rest, steps, lam)
                scores += [ndcg(adapted(st, vec, a, q), q) for q in held]
            res[f"adapter, {name}"] = round(statistics.fmean(scores), 4)
            print(scheme, name, res[f"adapter, {name}"], flush=True)
        out[scheme] = res
    full = {name: train.train(np.arange(len(qids)), steps, lam)
            for name, (steps, lam) in ADAPTERS.items()}
    return out, full


def pdfqa(data: Path, corpus: Path, depth: int, adapters: dict[str, np.ndarray]
          ) -> dict[str, dict[str, float]]:
    questions = load_devset()
    st = Setup(data, "pdfqa-eval", {q.id: q.question for q in questions}, depth,
               lambda p: f"{p.get('doc_id')}#{p.get('page_start')}")
    vec = Vectors(st, data, "pdfqa-eval")
    runs = {"no adapter": None, **{f"SciFact adapter, {k}": a for k, a in adapters.items()}}
    out = {}
    for name, a in runs.items():
        orders = {q.id: adapted(st, vec, a, q.id) for q in questions}
        rows = page_rows(st, questions, orders, corpus)
        out[name] = {"page@1": round(statistics.fmean(r == 1 for r, _ in rows), 3),
                     "page@5": round(statistics.fmean(bool(r and r <= 5) for r, _ in rows), 3)}
    return out


def main() -> None:
    args = arguments()
    t0 = time.perf_counter()
    sf, adapters = scifact(args.scifact_data, args.depth)
    result = {"date": date.today().isoformat(), "machine": machine_summary(),
              "depth": args.depth, "scifact_train_ndcg@10": sf,
              "pdfqa_one_hit_per_page": pdfqa(args.pdfqa_data, args.corpus, args.depth,
                                              adapters)}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    out = ROOT / "benchmarks" / "results" / "learned_ab.json"
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
