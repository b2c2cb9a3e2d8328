"""The service's one face: the in-process service and the library daemon's client both
satisfy :class:`citeloom.service.api.Library` (same methods, same parameters and defaults),
and the request types cross the daemon's wire (JSON) unchanged."""

from __future__ import annotations

import inspect
import json

import pytest

from citeloom.daemon.client import RemoteCiteLoom
from citeloom.index import SearchFilter
from citeloom.service import CiteLoom
from citeloom.service.api import Library, QueryRequest, SimilarRequest


def _methods(cls: type) -> list[str]:
    return sorted(n for n, v in vars(cls).items() if callable(v) and not n.startswith("_"))


def _conforms(protocol_fn: object, impl_fn: object) -> list[str]:
    """Where ``impl_fn`` differs from the protocol: every parameter the protocol names is
    there, in the same order, of the same kind and default; any other has a default."""
    want = list(inspect.signature(protocol_fn).parameters.values())  # type: ignore[arg-type]
    have = inspect.signature(impl_fn).parameters  # type: ignore[arg-type]
    problems = [f"missing {p.name}" for p in want if p.name not in have]
    problems += [f"{p.name}: {have[p.name].kind.name}/{have[p.name].default!r}, "
                 f"not {p.kind.name}/{p.default!r}" for p in want
                 if p.name in have and (have[p.name].kind, have[p.name].default)
                 != (p.kind, p.default)]
    order = [n for n in have if n in {p.name for p in want}]
    if order != [p.name for p in want if p.name in have]:
        problems.append(f"order {order}")
    problems += [f"{n} has no default" for n, p in have.items()
                 if n not in {q.name for q in want} and p.default is inspect.Parameter.empty
                 and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    return problems


@pytest.mark.parametrize("impl", [CiteLoom, RemoteCiteLoom], ids=["local", "daemon"])
def test_both_services_satisfy_the_library_protocol(impl: type) -> None:
    wrong = {name: problems for name in _methods(Library)
             if (problems := (["not defined"] if not hasattr(impl, name)
                              else _conforms(getattr(Library, name), getattr(impl, name))))}
    assert not wrong, f"{impl.__name__} differs from Library: {wrong}"


def test_the_checker_sees_a_difference() -> None:
    class Other:
        def query(self, req, top_k=3) -> None: ...  # type: ignore[no-untyped-def]

        def similar(self, request, *, extra) -> None: ...  # type: ignore[no-untyped-def]

    assert _conforms(Library.query, Other.query) == ["missing request", "req has no default"]
    assert _conforms(Library.similar, Other.similar) == ["extra has no default"]


def test_requests_cross_the_wire_unchanged() -> None:
    one = QueryRequest("lib", "heparin", mode="sparse", top_k=3,
                       flt=SearchFilter(year_from=2001, tags_any=["x"]), also=["Heparin"])
    many = QueryRequest.across_projects(["a", "b"], "filters", per_page=False, rerank=20)
    every = QueryRequest.across_projects(None, "filters")
    for req in (one, many, every):
        assert QueryRequest.from_dict(json.loads(json.dumps(req.to_dict()))) == req
    assert (one.across, many.across, every.across) == (False, True, True)
    assert (many.names, every.names) == (["a", "b"], None)
    like = SimilarRequest.across_projects(["a"], ["c1"], ["c2"], top_k=4)
    assert SimilarRequest.from_dict(json.loads(json.dumps(like.to_dict()))) == like
    assert like.negative_ids == ("c2",) and like.names == ["a"]
