"""Choose the citation check's ``found`` threshold on the tune half of an ``eval citecheck``
report, and read the check half at that threshold (issue #29).

The threshold is the cross-encoder logit that maximises the smaller of the two shares on
the tune half — true citations judged found, wrong citations flagged — so that neither
is bought with the other; ``weak`` is then set at the tune half's 5th percentile of true
citations' scores, so that almost every true citation is at least ``weak``.

    .venv/bin/python benchmarks/citecheck_thresholds.py benchmarks/results/citecheck_train.json
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def shares(rows: list[dict], t: float) -> tuple[float, float]:
    return (statistics.fmean(r["true"] >= t for r in rows),
            statistics.fmean(r["wrong"] < t for r in rows))


def main() -> None:
    report = json.loads(Path(sys.argv[1]).read_text())
    rows = report["per_claim"]
    tune = [r for r in rows if r["half"] == "tune"]
    check = [r for r in rows if r["half"] == "check"]
    grid = [x / 4 for x in range(-48, 33)]  # -12 .. 8 by 0.25
    best = max(grid, key=lambda t: (min(shares(tune, t)), -abs(t)))
    trues = sorted(r["true"] for r in tune)
    weak = trues[int(0.05 * len(trues))]
    out = {"found": best, "weak": round(min(weak, best - 0.5), 2),
           "tune": dict(zip(("found_true", "flagged_wrong"), shares(tune, best), strict=True)),
           "check": dict(zip(("found_true", "flagged_wrong"), shares(check, best),
                             strict=True)),
           "tune_n": len(tune), "check_n": len(check)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
