"""The SIGKILL loop, as a test the project owns (issue #16): a real ``citeloom ingest`` of
real PDFs killed at random moments (seeded) at least 10 times while its folder changes,
then a run let finish, compared with a clean run into another project: the same chunk ids,
no chunk twice, no orphan points, every catalog row's chunk count equal to the index's.
The loop itself is ``benchmarks/bench_faults.py``, which runs it at scale."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ..conftest import ROOT

# Killed at random moments within a real conversion: the cache stays in its data dir.
pytestmark = [pytest.mark.slow, pytest.mark.own_cache]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_faults",
                                                  ROOT / "benchmarks" / "bench_faults.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ten_sigkills_then_a_clean_run_match_a_clean_ingest(tmp_path: Path,
                                                            models_dir: Path) -> None:
    bench = _bench()
    pool = bench.SMALL_POOL
    assert all(p.is_file() for p in pool), pool
    result = bench.kill_loop(tmp_path, models_dir, pool, kills=10, seed=16, max_delay_s=4.0)
    assert result["kills"] >= 10
    assert result["final_exit"] == 0, result["final_stderr"]
    assert result["ref_exit"] == 0
    c = result["compare"]
    assert c["chunks"] > 0 and c["chunks"] == c["clean_chunks"], c
    assert c["ids_missing"] == c["ids_extra"] == 0, c  # the same chunk ids
    assert c["duplicates"] == 0, c
    assert c["orphan_documents"] == 0, c  # no points without a catalog row
    assert c["rows_with_wrong_count"] == 0, c
    assert c["catalog_differs"] == 0, c
    assert bench.passed(result)
