"""``citeloom check``: does each paper a draft cites say what the draft says it does?

For every citation of a draft (``drafts.py``) and every key it cites, the cited paper's
best passages for the claim (a query restricted to that paper), a cross-encoder's verdict
on them (``rerank.py``: it reads claim and passage together), and where the paper is weak
or silent, up to three better sources from the same projects. The verdict thresholds are
the cross-encoder's logits chosen on SciFact train (docs/EVALUATION.md "Citation check").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citeloom.errors import InvalidInput
from citeloom.index import SearchFilter
from citeloom.payload import Passage, snippet
from citeloom.search import query as search
from citeloom.service.drafts import ZOTERO_KEY, Citation
from citeloom.service.library import list_papers

if TYPE_CHECKING:
    from citeloom.runtime import Runtime

# The cross-encoder's logit at or above which a passage addresses the claim (``found``),
# and at or above which it does so loosely (``weak``); below: ``not found``. Chosen on the
# tune half of SciFact train's first 300 claims (benchmarks/citecheck_thresholds.py):
# ``found`` where the smaller of "true citations found" and "wrong ones flagged" is
# largest, ``weak`` at the 5th percentile of the true citations' scores
# (docs/EVALUATION.md "Citation check").
FOUND = -6.75
WEAK = -7.5
PASSAGES = 2  # of the cited paper, judged
CANDIDATES = 3  # other papers judged as better sources (benchmarks/citecheck_candidates.py)
BETTER = 3  # better sources shown at most
VERDICTS = ("not in library", "not found", "weak", "found")  # worst first


@dataclass
class Source:
    """A paper's best passage for a claim, with the cross-encoder's verdict."""

    citekey: str | None
    score: float
    passage: Passage
    project: str

    def to_dict(self) -> dict[str, Any]:
        p = self.passage
        return {"citekey": self.citekey, "score": round(self.score, 3),
                "pages": p.pages, "page_start": p.page_start, "page_end": p.page_end,
                "section": p.section_path, "title": p.title, "project": self.project,
                "zotero_link": p.zotero_link, "text": p.text}


@dataclass
class Checked:
    """One cited key of one citation: the claim, the verdict, the evidence."""

    key: str
    claim: str
    line: int
    verdict: str
    locator: str = ""
    best: Source | None = None
    better: list[Source] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "claim": self.claim, "line": self.line,
                "verdict": self.verdict, "locator": self.locator,
                "pages": self.best.passage.pages if self.best else None,
                "score": round(self.best.score, 3) if self.best else None,
                "best": self.best.to_dict() if self.best else None,
                "better": [b.citekey for b in self.better],
                "better_sources": [b.to_dict() for b in self.better]}


def verdict(score: float) -> str:
    return "found" if score >= FOUND else "weak" if score >= WEAK else "not found"


def judge(rt: Runtime, project: str, claim: str, flt: SearchFilter, top_k: int
          ) -> list[Source]:
    """The best page hits of ``project`` under ``flt`` for ``claim``, each with the
    cross-encoder's verdict on its text, best first."""
    res = search.query(rt, project, claim, top_k=top_k, flt=flt, rerank=0)
    if not res.hits:
        return []
    scores = rt.models.reranker().score(claim, [h.text for h in res.hits])
    found = [Source(h.citekey, s, h, project) for h, s in zip(res.hits, scores, strict=True)]
    return sorted(found, key=lambda s: -s.score)


def better_sources(rt: Runtime, projects: list[str], claim: str, exclude: set[str],
                   floor: float) -> list[Source]:
    """Up to ``BETTER`` papers other than ``exclude`` (doc ids) whose best passage the
    cross-encoder rates at least ``WEAK`` and above ``floor`` (the cited paper's)."""
    out: list[Source] = []
    for project in projects:
        res = search.query(rt, project, claim, top_k=CANDIDATES,
                           flt=SearchFilter(exclude_doc_ids=sorted(exclude)),
                           group_by_doc=True, rerank=0)
        hits = res.hits[:CANDIDATES]
        if hits:
            scores = rt.models.reranker().score(claim, [h.text for h in hits])
            out += [Source(h.citekey, s, h, project) for h, s in zip(hits, scores, strict=True)]
    keep = [s for s in out if s.score >= max(WEAK, floor)]
    return sorted(keep, key=lambda s: -s.score)[:BETTER]


def library_keys(rt: Runtime, projects: list[str]) -> dict[str, tuple[str, str, str]]:
    """citekey, and ``zotero:`` + Zotero item key (as Word drafts cite) -> (project, doc_id,
    citekey) of every paper in ``projects`` (the first wins)."""
    out: dict[str, tuple[str, str, str]] = {}
    for project in projects:
        for paper in list_papers(rt, project):
            key = paper["citekey"] or ""
            for name in (key, ZOTERO_KEY + paper["zotero_key"] if paper["zotero_key"] else ""):
                if name:
                    out.setdefault(name, (project, paper["doc_id"], key or name))
    return out


def check(rt: Runtime, projects: list[str], cited: list[Citation]) -> list[Checked]:
    """Every (citation, key) judged, worst verdict first, then in draft order."""
    if not cited:
        raise InvalidInput("the draft has no citations",
                           "cite as \\cite{key} (LaTeX) or [@key] (Markdown), with the "
                           "citekeys of your library (citeloom papers lists them)")
    where = library_keys(rt, projects)
    out: list[Checked] = []
    for c in cited:
        for key in c.keys:
            item = Checked(key, c.claim, c.line, "not in library", c.locators.get(key, ""))
            if key in where:
                project, doc_id, item.key = where[key]
                found = judge(rt, project, c.claim, SearchFilter(doc_ids=[doc_id]), PASSAGES)
                item.best = found[0] if found else None
                item.verdict = verdict(item.best.score) if item.best else "not found"
                exclude = {doc_id}
            else:
                exclude = set()
            if item.verdict != "found":
                floor = item.best.score if item.best else WEAK
                item.better = better_sources(rt, projects, c.claim, exclude, floor)
            out.append(item)
    return sorted(out, key=lambda i: (VERDICTS.index(i.verdict), i.line))


@dataclass
class CheckReport:
    draft: str
    projects: list[str]
    citations: list[Checked]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        counts = {v: sum(c.verdict == v for c in self.citations) for v in VERDICTS}
        return {"draft": self.draft, "projects": self.projects, "counts": counts,
                "seconds": round(self.seconds, 2),
                "citations": [c.to_dict() for c in self.citations]}


def check_draft(rt: Runtime, draft: str, projects: list[str], cited: list[Citation]
                ) -> CheckReport:
    t0 = time.perf_counter()
    return CheckReport(draft, projects, check(rt, projects, cited),
                       time.perf_counter() - t0)


def markdown_report(report: dict[str, Any]) -> str:
    """The report as Markdown a person keeps beside the draft: one section per citation,
    worst first, with the passage's sentences that answer and the pages to open."""
    lines = [f"# Citation check: {report['draft']}", "",
             "Projects: " + ", ".join(report["projects"]) + ". "
             + ", ".join(f"{n} {v}" for v, n in report["counts"].items() if n), ""]
    for c in report["citations"]:
        lines += [f"## {c['key']} (line {c['line']}): {c['verdict']}", "", f"> {c['claim']}", ""]
        best = c["best"]
        if best:
            where = f"{best['pages']}" + (f", § {best['section']}" if best["section"] else "")
            lines += [f"Best passage of {c['key']} ({where}, score {best['score']}):", "",
                      f"> {snippet(best['text'], c['claim'])}", ""]
            if best.get("zotero_link"):
                lines += [f"[open in Zotero]({best['zotero_link']})", ""]
        for b in c["better_sources"]:
            lines += [f"- better: **{b['citekey'] or b['title']}** ({b['pages']}, score "
                      f"{b['score']}): {snippet(b['text'], c['claim'])}"]
        if c["better_sources"]:
            lines.append("")
    return "\n".join(lines)

