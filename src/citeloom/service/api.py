"""The service's face, one spelling for every shell: the request types a query and a
"more like these" search travel in (from the CLI, the MCP server, the daemon's wire), and
the :class:`Library` protocol that the in-process service
(:class:`citeloom.service.app.CiteLoom`) and the library daemon's client
(:class:`citeloom.daemon.client.RemoteCiteLoom`) both satisfy (``tests`` check it)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from citeloom.index import DEFAULT_FUSION, Fusion, Mode, SearchFilter
from citeloom.payload import PASSAGE_CHARS, Passage

if TYPE_CHECKING:
    from citeloom.report import IngestReport
    from citeloom.search.query import QueryResult, SimilarResult


def _names(projects: Sequence[str] | None) -> tuple[str, ...] | None:
    return None if projects is None else tuple(projects)


class _Request:
    """What both request types share: where they go (one project, or several merged) and
    their JSON form for the daemon's wire."""

    #: Sequence fields kept as tuples (the request is frozen and hashable).
    _TUPLES: tuple[str, ...] = ()
    projects: tuple[str, ...] | None
    all_projects: bool

    def __post_init__(self) -> None:
        for name in self._TUPLES:
            object.__setattr__(self, name, tuple(getattr(self, name) or ()))
        object.__setattr__(self, "projects", _names(self.projects))

    @property
    def across(self) -> bool:
        return self.all_projects or self.projects is not None

    @property
    def names(self) -> list[str] | None:
        """The projects of a merged search; None: every project with an index."""
        return None if self.all_projects else list(self.projects or ())

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in dataclasses.asdict(self).items()}  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        args = {k: v for k, v in d.items() if k in known}
        if args.get("flt"):
            args["flt"] = SearchFilter(**args["flt"])
        return cls(**args)


@dataclass(frozen=True)
class QueryRequest(_Request):
    """A question to one project, or (``across``) to several whose rankings are merged:
    ``projects`` names them, ``all_projects`` asks every project with an index."""

    _TUPLES = ("also",)

    project: str | None
    text: str
    mode: Mode = "hybrid"
    top_k: int = 10
    fusion: Fusion = DEFAULT_FUSION
    flt: SearchFilter | None = None
    group_by_doc: bool = False
    include_references: bool = False
    max_chars: int = PASSAGE_CHARS
    per_page: bool = True
    also: tuple[str, ...] = ()
    rerank: int | None = None
    projects: tuple[str, ...] | None = None
    all_projects: bool = False

    @classmethod
    def across_projects(cls, projects: Sequence[str] | None, text: str,
                        **options: Any) -> QueryRequest:
        """The question to ``projects`` (None: every project with an index), merged."""
        return cls(None, text, projects=_names(projects) or (),
                   all_projects=projects is None, **options)


@dataclass(frozen=True)
class SimilarRequest(_Request):
    """Passages like ``chunk_ids`` (and unlike ``negative_ids``), in one project or across
    several, as :class:`QueryRequest`."""

    _TUPLES = ("chunk_ids", "negative_ids")

    project: str | None
    chunk_ids: tuple[str, ...]
    negative_ids: tuple[str, ...] = ()
    top_k: int = 10
    flt: SearchFilter | None = None
    max_chars: int = PASSAGE_CHARS
    projects: tuple[str, ...] | None = None
    all_projects: bool = False

    @classmethod
    def across_projects(cls, projects: Sequence[str] | None, chunk_ids: Sequence[str],
                        *args: Any, **options: Any) -> SimilarRequest:
        return cls(None, tuple(chunk_ids), *args, projects=_names(projects) or (),
                   all_projects=projects is None, **options)


class Library(Protocol):
    """What the CLI and the MCP server call, in process or through the library daemon."""

    def query(self, request: QueryRequest) -> QueryResult: ...

    def similar(self, request: SimilarRequest) -> SimilarResult: ...

    def ingest(self, paths: list[Path], project_name: str | None, progress: Any = None,
               prune: bool = False, optimize: bool = True, workers: int | None = None,
               ray: str | None = None) -> IngestReport: ...

    def ingest_zotero(self, project_name: str | None, collection: str | None, *,
                      include_subcollections: bool = False,
                      tags_include: list[str] | None = None,
                      tags_exclude: list[str] | None = None, annotations: bool = True,
                      progress: Any = None, optimize: bool = True, workers: int | None = None,
                      ray: str | None = None) -> IngestReport: ...

    def reindex(self, project_name: str | None, progress: Any = None,
                workers: int | None = None, ray: str | None = None,
                dense_model: str | None = None) -> IngestReport: ...

    def optimize(self, project_name: str | None) -> float: ...

    def snapshot(self, project_name: str | None, out: Path) -> dict[str, Any]: ...

    def restore(self, archive: Path, project_name: str | None, *,
                force: bool = False) -> dict[str, Any]: ...

    def list_projects(self) -> list[dict[str, Any]]: ...

    def inspect(self, project_name: str | None, sample: int = 3) -> dict[str, Any]: ...

    def health(self, project_name: str | None, worst: int | None = None
               ) -> dict[str, Any]: ...

    def check(self, text: str, fmt: str, projects: list[str] | None = None,
              draft: str = "draft") -> dict[str, Any]: ...

    def cite(self, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
             project_name: str | None = None) -> str: ...

    def list_papers(self, project_name: str | None) -> list[dict[str, Any]]: ...

    def list_annotations(self, project_name: str | None, citekey: str,
                         kinds: list[str] | None = None, max_chars: int = PASSAGE_CHARS
                         ) -> list[Passage]: ...

    def remove_documents(self, project_name: str | None, refs: list[str]
                         ) -> dict[str, Any]: ...

    def delete_project(self, name: str) -> dict[str, Any]: ...

    def repair(self, project_name: str | None) -> dict[str, Any]: ...

    def check_writable(self, project_name: str) -> None: ...

    def close(self) -> None: ...
