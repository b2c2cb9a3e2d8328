"""The PDF question sets as the A/B scripts take them: ``--sets dev,dev2,...``, each set's
eval project (``citeloom eval pdfqa`` made them; ``--project SET=NAME`` for another), its
questions (packaged, or ``--questions SET=FILE`` for one that is not: dev3, dev4) and the
folder its PDFs are under (``../shared`` by default, ``--corpus SET=DIR`` for a fetched
set)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from citeloom.eval.pdfqa_set import SETS as CORPORA
from citeloom.eval.pdfqa_set import Question, load_devset

SHARED = Path(__file__).resolve().parents[2] / "shared"
PROJECTS = {"dev": "pdfqa-eval-v3", "dev2": "pdfqa-eval-dev2-v3", "dev3": "pdfqa-eval-dev3",
            "dev4": "pdfqa-eval-dev4"}


@dataclass(frozen=True)
class Source:
    name: str
    project: str
    questions_file: str | None = None
    corpus: Path | None = None

    def load(self) -> tuple[list[Question], Path]:
        """The set's questions and the folder their ``pdf`` paths start from."""
        return (load_devset(self.questions_file or self.name),
                self.corpus or SHARED / CORPORA[self.name])


def add_options(ap: argparse.ArgumentParser, sets: str = "dev,dev2,dev3") -> None:
    ap.add_argument("--sets", default=sets)
    ap.add_argument("--project", action="append", default=[], help="SET=PROJECT")
    ap.add_argument("--questions", action="append", default=[],
                    help="SET=FILE: a set that is not packaged (dev3, dev4: benchmarks/data)")
    ap.add_argument("--corpus", action="append", default=[], help="SET=DIR its PDFs are under")


def chosen(args: argparse.Namespace) -> list[Source]:
    """The sets ``args`` name, in order."""
    projects = PROJECTS | dict(x.split("=", 1) for x in args.project)
    files = dict(x.split("=", 1) for x in args.questions)
    corpora = {k: Path(v) for k, v in (x.split("=", 1) for x in args.corpus)}
    return [Source(s, projects[s], files.get(s), corpora.get(s))
            for s in args.sets.split(",")]
