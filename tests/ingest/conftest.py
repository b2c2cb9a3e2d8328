"""Fixtures of the ingest tests."""

from __future__ import annotations

import pytest

from citeloom.ingest.pool import Pool
from citeloom.service import CiteLoom


@pytest.fixture
def started_pools(monkeypatch: pytest.MonkeyPatch) -> list[Pool]:
    """Each pool of worker processes the service builds during the test, in order."""
    started: list[Pool] = []
    real = CiteLoom.executor

    def spy(self, workers=None, ray=None):  # type: ignore[no-untyped-def]
        ex = real(self, workers, ray)
        if isinstance(ex, Pool):
            started.append(ex)
        return ex

    monkeypatch.setattr(CiteLoom, "executor", spy)
    return started
