"""What Claude sees of the MCP server: its instructions, the tools' parameter types and
filter models, and how an answer is fitted to the token budget. The tools themselves, and
the plumbing behind them, are in ``mcp_server``."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from citeloom.index import SearchFilter
from citeloom.payload import normalize_color, window

INSTRUCTIONS = """CiteLoom searches the user's own research library (papers from Zotero and
folders) and returns citable passages: citekey, title, authors, year, page span, section path
and the passage text. Call list_projects first to see which projects exist. To search, use
query_hybrid: it matches meaning and exact terms (names, acronyms, numbers) together and
ranks best in our evaluations; use query (meaning only) just to compare. Cite passages
with their citekey and pages; the cite tool gives BibTeX or CSL-JSON for citekeys.
list_papers lists what a project holds (citekeys, titles, authors, years). find_similar
follows up a good hit with more passages like it. The user's own Zotero highlights, comments
and notes are hits too (kind "annotation" or "note"; filter with kinds and colors);
list_annotations gives one item's in page order. Ingesting is a job: ingest_from_source
returns a job id; follow it with ingest_status. The search models read English best: when
the question and the papers are in different languages, pass a translation in also (into
English, or into the papers' language); it finds far more of the right pages."""
INSTRUCTIONS += """ An answer without hits says why in "reason" (the project is empty, the
filters left everything out, or nothing matched); "excluded" counts papers a filter could
not match because they lack its field (no known year, say): do not conclude the library
has no such papers. Hits carry "byline" (author · year) and "metadata_source" (where each
of title, authors, year and DOI came from: zotero, or the PDF itself); "score" says what
the scores mean in this mode."""


class Filters(BaseModel):
    """Optional restrictions on a search; every field given must hold."""

    model_config = {"extra": "forbid"}

    citekeys: list[str] = Field(default_factory=list, description="only these citekeys")
    doc_ids: list[str] = Field(default_factory=list, description="only these documents")
    year_from: int | None = Field(None, description="published in or after this year, "
                                  "e.g. 2010; papers without a known year are left out "
                                  "(the answer's excluded counts them)")
    year_to: int | None = Field(None, description="published in or before this year, e.g. "
                                "2020 (not before year_from: that is INVALID_INPUT)")
    tags_any: list[str] = Field(default_factory=list, description="has any of these tags")
    tags_all: list[str] = Field(default_factory=list, description="has all of these tags")
    authors: list[str] = Field(default_factory=list, description="any of these authors, "
                               "by family name, any case: ['datta'], ['Datta, Indraneel'] "
                               "and ['Indraneel Datta'] find the same paper")
    collections: list[str] = Field(default_factory=list,
                                   description="in any of these Zotero collections (names)")
    section_prefix: str | None = Field(None, description="passages under a heading, by its "
                                       "words, any case, numbers optional: 'methods' finds "
                                       "'2 Methods' and '2 Methods > 2.1 Data'; 'Methods > "
                                       "Data' a sub-section")
    exclude_labels: list[str] = Field(
        default_factory=list, description="leave out chunks with these item labels "
        "(table, formula, picture, list_item, caption)")
    kinds: list[Literal["passage", "annotation", "note"]] = Field(
        default_factory=list, description="only these: passages of papers, the user's Zotero "
        "annotations (highlights and their comments), Zotero notes")
    colors: list[str] = Field(default_factory=list,
                              description="only annotations of these colours ('#ffd400', "
                              "or yellow, red, green, blue, purple, magenta, orange, gray)")
    include_references: bool = Field(False, description="also search reference lists")
    one_per_document: bool = Field(False, description="best passage per paper only: top_k "
                                   "papers whenever the project has that many")
    one_per_page: bool = Field(True, description="one hit per page, showing that page's "
                               "best-matching passages together (the default); false: one "
                               "hit per chunk, several may come from one page")

    def to_search(self) -> SearchFilter:
        return SearchFilter(
            doc_ids=self.doc_ids, citekeys=self.citekeys, year_from=self.year_from,
            year_to=self.year_to, tags_any=self.tags_any, tags_all=self.tags_all,
            authors=self.authors, collections=self.collections,
            section_prefix=self.section_prefix,
            exclude_labels=self.exclude_labels, kinds=list(self.kinds),
            colors=[normalize_color(c) for c in self.colors])


class IngestOptions(BaseModel):
    """How an ingest runs."""

    model_config = {"extra": "forbid"}

    prune: bool = Field(False, description="remove indexed documents whose files are gone")
    wait_seconds: float = Field(1.5, ge=0, le=60,
                                description="answer with the result if done by then, "
                                "else with a job id")


TopK = Annotated[int, Field(description="number of passages, 1-50",
                            json_schema_extra={"minimum": 1, "maximum": 50})]
ProjectName = Annotated[str, Field(description="project name, from list_projects")]
SomeProject = Annotated[str | None, Field(
    description="project name, from list_projects (or give projects)")]
Projects = Annotated[list[str] | None, Field(
    description="search these projects together, beside project (['*']: every project); "
    "hits carry their project, and projects that cannot answer are listed in skipped")]
QueryText = Annotated[str, Field(description="the question or keywords; a \"quoted phrase\" "
                                              "must appear in each passage as written")]
Also = Annotated[list[str] | None, Field(
    description="the same question in other words or another language, searched too and "
    "fused with text (at most 4): give an English translation when the user asks in another "
    "language (the meaning model reads English best), and the question in the papers' "
    "language when they are not in the user's (French, Spanish, German…)")]
SearchFilters = Annotated[Filters | None, Field(
    description="optional restrictions: citekeys, years, tags, authors, collections, "
    "section, kinds, colours, one passage per paper, one hit per page (the default) or "
    "per chunk")]


def answer_tokens(answer: dict[str, Any]) -> int:
    import tiktoken

    return len(tiktoken.get_encoding("cl100k_base").encode(
        json.dumps(answer, ensure_ascii=False)))


# Hits an answer keeps whole before any is shortened: the top five, where the answer is
# measured and nearly always found (docs/EVALUATION.md).
KEEP_WHOLE = 5


def fit_budget(answer: dict[str, Any], budget: int) -> dict[str, Any]:
    """Trim an answer to ``budget`` tokens (cl100k): drop the lowest-ranked hits down to
    ``KEEP_WHOLE``, then shorten passages (each to its query window), then drop more; mark
    it ``truncated`` when anything was cut."""
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")

    def size() -> int:
        return len(enc.encode(json.dumps(answer, ensure_ascii=False)))

    answer["truncated"] = False
    hits = answer["hits"]
    while len(hits) > KEEP_WHOLE and size() > budget:
        answer["truncated"] = True
        hits.pop()
    chars = max((len(h["text"]) for h in hits), default=0)
    while hits and size() > budget:
        answer["truncated"] = True
        if chars > 300:
            chars = int(chars * 0.75)
            for h in hits:  # keep the part that answers the query, not the head
                if len(h["text"]) > chars:
                    h["text"] = window(h["text"], chars, answer.get("query"))
        else:
            hits.pop()
    answer["tokens"] = size()
    return answer
