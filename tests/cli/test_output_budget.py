"""The default output of five hits fits a terminal (issue #28, item 4: at most 2,500
characters), however long the bylines, titles and sections around the snippets are: the
snippets share what the other lines leave, the first two and a half shares, each at most
its shares of ``payload.SNIPPET_CHARS``."""

from __future__ import annotations

import io
import re

from rich.console import Console

from citeloom.cli.output import FIRST_SHARE, MIN_SNIPPET, TERMINAL_CHARS, print_hits
from citeloom.payload import SNIPPET_CHARS, Passage

SENTENCES = " ".join(
    f"Sentence {i} reports that cloth masks washed at {50 + i} degrees kept their filtration "
    f"efficiency after {i + 3} cycles in the laboratory." for i in range(30))


def _hit(rank: int, *, long: bool) -> Passage:
    word = "Interdisciplinary" if long else "Masks"
    return Passage(
        rank=rank, score=0.5, citekey=("vanderwesthuizenhendricks" * (2 if long else 0)
                                       + f"mask{rank}2014"),
        title=f"{word} " * 12, authors=[], year=2014, page_start=rank, page_end=rank + 1,
        section_path=f"{word} and methods " * 4, text=SENTENCES, doc_id=f"d{rank}",
        chunk_id=f"c{rank}", source_path=f"/papers/{rank}.pdf",
        byline=("Van der Westhuizen-Hendricks, Agyeman-Duah et al. · 2014" if long
                else "Chughtai et al. · 2014"))


def _printed(hits: list[Passage]) -> str:
    out = io.StringIO()
    console = Console(file=out, markup=False, emoji=False, highlight=False, soft_wrap=True,
                      color_system=None)
    answer = {"query": "how hot must the wash water be for cloth masks",
              "score": "DBSF: dense and sparse scores normalised and summed; higher is better",
              "excluded": {"year": 3}}
    print_hits("query · hybrid (dbsf) · 5 hits · 120 ms", hits, answer=answer,
               console=console)
    return out.getvalue()


def _snippets(text: str) -> list[str]:
    return [b.splitlines()[-1].strip() for b in text.split("\n\n")[1:]]


def test_five_hits_with_ordinary_headers_show_whole_snippets() -> None:
    text = _printed([_hit(r, long=False) for r in range(1, 6)])
    assert len(text) <= TERMINAL_CHARS
    shown = _snippets(text)
    assert len(shown) == 5
    # the first hit, which holds the answer most often, shows the most
    assert len(shown[0]) > 2 * max(len(s) for s in shown[1:])
    assert len(shown[0]) <= FIRST_SHARE * SNIPPET_CHARS
    assert all(MIN_SNIPPET < len(s) <= SNIPPET_CHARS for s in shown[1:])


def test_long_headers_shorten_the_snippets_to_fit() -> None:
    text = _printed([_hit(r, long=True) for r in range(1, 6)])
    assert len(text) <= TERMINAL_CHARS, len(text)
    shown = _snippets(text)
    assert len(shown) == 5 and all(MIN_SNIPPET // 2 < len(s) < SNIPPET_CHARS - 40
                                   for s in shown[1:])
    assert len(shown[1]) < len(shown[0]) < FIRST_SHARE * (SNIPPET_CHARS - 40)
    assert all(re.search(r"\bmasks?\b", s) for s in shown)  # still the answering words


def test_more_hits_get_more_room() -> None:
    text = _printed([_hit(r, long=False) for r in range(1, 11)])
    assert len(_snippets(text)) == 10
    assert len(text) <= TERMINAL_CHARS * 2
