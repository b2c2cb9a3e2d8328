"""Line numbers a draft prints down its margin, out of the text (issue #27, session 28).

A manuscript under review, a JOSS draft or a preprint set with LaTeX's ``lineno`` numbers
every line in the margin. Docling reads those numbers into the paragraphs they stand
beside ("… defined on geometric 34 images - images where every pixel is a tensor"), so a
chunk's text, its BM25 terms and a quoted phrase all carry them, and a heading reads as
numbered ("24 Key Features").

Two readings must agree before a number goes:

- **the PDF** (:func:`margin_numbers`): pieces of the page's text layer that begin with a
  number, stacked in one column (their left edges within a few points), counting up by
  one from top to bottom (or by 2, 5 or 10, where only every so many lines are numbered),
  at least :data:`MIN_RUN` of them, about one per line of text (or per step) beside
  them (a reference list numbered "1 Smith …" has one number per entry of several
  lines), nothing else starting where they start (the row numbers of a data frame R
  prints are in line with the paragraphs around it), and hardly a line of the page
  running across their column (a table's row numbers have the page's paragraphs above
  and below them, wider than the table). Each number comes with the first and last word
  of its line.
- **the text** (:func:`spans`): a stand-alone number of the page's items goes when its
  neighbours are a neighbour line's in the PDF (the next words are its line's first, or the
  words before are its line's last: Docling puts a small number before or after its
  line's words), and more of them agree than for any other number of its value on the
  page ("5 Center for Cosmology" is line 5's start, the affiliation "5 Center for
  Computational" agrees on two words only); or when it stands with two more in a row
  ("19 20 21": lines whose text Docling read elsewhere). A number nothing confirms stays,
  wherever it stands ("if l = 2" in a formula's text, "Figure 12").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from citeloom.convert.textlayer import Line as Piece  # text, (left, top, right, bottom)

MIN_RUN = 5  # numbered lines in a column, one after the other
MIN_DENSITY = 0.6  # numbers per line of text beside them (times the step)
STEPS = (1, 2, 5, 10)  # every line numbered, or every 2nd, 5th, 10th (lineno's modulo)
OWN_COLUMN = 0.8  # the numbers' share of all pieces that start where they start
MAX_ACROSS = 0.2  # lines running across the numbers' column, per number, beyond three
# (a draft's footer, its DRAFT watermark)
_ALIGN = 6.0  # points: how far the left edges of two numbers in a row may differ
_LEAD = re.compile(r"^([1-9]\d{0,3})(?=\s|$)")
_TOKEN = re.compile(r"(?<!\S)([1-9]\d{0,3})(?!\S)")

Mark = tuple[float, float, int, int]  # top, left, value, index of its piece
Line = tuple[tuple[str, ...], tuple[str, ...]]  # a numbered line's first and last words
_NONE: Line = ((), ())
WORDS = 3  # words of a line's start and end compared with a number's neighbours


def numbered_column(pieces: Sequence[Piece]) -> dict[int, Line]:
    """The numbers a page's pieces print down a margin (see the module notes), each with
    its line's first and last word; empty when there is no such column."""
    marks: list[Mark] = sorted((box[1], box[0], int(m.group(1)), k)
                               for k, (text, box) in enumerate(pieces)
                               if (m := _LEAD.match(text.strip())))
    runs: list[tuple[int, list[Mark]]] = []
    for step in STEPS:
        while len(run := _column_run(marks, step)) >= MIN_RUN:
            values = [marks[j][2] for j in run]  # the step most of the run takes
            gaps = Counter(b - a for a, b in zip(values, values[1:], strict=False))
            runs.append((gaps.most_common(1)[0][0], [marks[j] for j in run]))
            taken = set(run)
            marks = [m for j, m in enumerate(marks) if j not in taken]
    in_runs = {m[3] for _, run in runs for m in run}
    found: dict[int, Line] = {}
    for step, run in runs:
        top, bottom = run[0][0], run[-1][0]
        left, right = min(m[1] for m in run), max(m[1] for m in run)
        starting = [k for k, (_, box) in enumerate(pieces) if left - 2 <= box[0] <= right + 2]
        own = sum(k in in_runs for k in starting)
        across = sum(box[0] < left - 2 and box[2] > right + 10 for _, box in pieces)
        if (step * len(run) >= MIN_DENSITY * _text_rows(pieces, top, bottom, left)
                and own >= OWN_COLUMN * len(starting)
                and across <= 3 + MAX_ACROSS * len(run)):
            for value in range(run[0][2], run[-1][2] + 1, step):  # one the layer ran into
                found[value] = _NONE  # its line's text ("44 … adopted 45 …" in one piece)
            for mark in run:
                found[mark[2]] = _line_words(pieces, mark[3], in_runs)
    return found


def _column_run(marks: Sequence[Mark], step: int) -> list[int]:
    """The longest chain of marks, top to bottom, each ``step`` or twice ``step`` more
    than the last (a number the layer ran into its line's text is skipped) and its left
    edge within :data:`_ALIGN` of the last's (right-aligned numbers move left as they gain
    a digit): the chain's indexes in ``marks``."""
    chains: list[list[int]] = []
    for j, (top, left, value, _) in enumerate(marks):
        best: list[int] = []
        for k in range(j):
            t, x, v, _ = marks[k]
            if value - v in (step, 2 * step) and t < top and abs(x - left) <= _ALIGN \
                    and len(chains[k]) > len(best):
                best = chains[k]
        chains.append([*best, j])
    return max(chains, key=len, default=[])


def _text_rows(pieces: Iterable[Piece], top: float, bottom: float, left: float) -> int:
    """Lines of text between ``top`` and ``bottom`` that start at or right of ``left``
    (the column's own bare numbers not counted; a side column to its left not either)."""
    tops = sorted(box[1] for text, box in pieces
                  if top - 1 <= box[1] <= bottom + 1 and box[0] >= left - 1
                  and not text.strip().isdigit())
    rows, last = 0, None
    for t in tops:
        if last is None or t - last > 3:
            rows += 1
        last = t
    return rows


def _line_words(pieces: Sequence[Piece], k: int, numbers: set[int]) -> Line:
    """The first and last :data:`WORDS` words of the line numbered by piece ``k``: the
    rest of that piece and the pieces beside it on its row (on the side away from the
    margin), folded by :func:`_key`."""
    text, (left, top, _, bottom) = pieces[k]
    words = text.split()[1:]
    beside = [(box[0], t) for j, (t, box) in enumerate(pieces) if j != k and j not in numbers
              and min(bottom, box[3]) - max(top, box[1]) > 0.5 * min(bottom - top,
                                                                    box[3] - box[1])]
    right = sorted(p for p in beside if p[0] > left)
    row = words + [w for _, t in (right or sorted(beside)) for w in t.split()]
    keys = [_key(w) for w in row]
    return tuple(keys[:WORDS]), tuple(reversed(keys[-WORDS:]))


def margin_numbers(path: Path, page_no: int, password: str | None = None) -> dict[int, Line]:
    """:func:`numbered_column` of page ``page_no`` of the PDF at ``path``."""
    from citeloom.convert.textlayer import page_lines

    try:
        return numbered_column(page_lines(path, page_no, password=password))
    except Exception:  # noqa: BLE001 - an unreadable layer: nothing is taken out
        return {}


def candidate(texts: Iterable[str]) -> bool:
    """Whether a page's texts hold :data:`MIN_RUN` stand-alone numbers in a row (1, 2, …;
    or 2, 4, …, one of :data:`STEPS` apart): the cheap test that decides whether the PDF
    is read at all."""
    values = {int(m.group(1)) for text in texts for m in _TOKEN.finditer(text)}
    return any(all(v + d * step in values for d in range(1, MIN_RUN))
               for step in STEPS for v in values if v - step not in values)


def _key(word: str) -> str:
    word = unicodedata.normalize("NFKC", word).casefold()
    return "".join(c for c in word if c.isalnum())[:6]


def spans(texts: Sequence[str], lines: dict[int, Line]) -> list[list[tuple[int, int]]]:
    """Where the line numbers of ``lines`` stand in ``texts`` (one page's items, in
    reading order; see the module notes): for each text, the (start, end) spans to cut,
    each number with the space after it (or before it, at the end of a text)."""
    found: dict[int, list[tuple[int, int, int, int]]] = {}
    for i, text in enumerate(texts):
        marks = [m for m in _TOKEN.finditer(text) if int(m.group(1)) in lines]
        bunched = _bunched(text, marks)
        for k, m in enumerate(marks):
            value = int(m.group(1))
            after = tuple(_key(w) for w in text[m.end():].split()[:WORDS])
            before = tuple(_key(w) for w in reversed(text[:m.start()].split()[-WORDS:]))
            strength = WORDS + 1 if k in bunched else max(
                _agree(after, lines[value][0]), _agree(after, lines.get(value + 1, _NONE)[0]),
                _agree(before, lines[value][1]), _agree(before, lines.get(value - 1, _NONE)[1]))
            found.setdefault(value, []).append((i, m.start(), m.end(), strength))
    out: list[list[tuple[int, int]]] = [[] for _ in texts]
    for places in found.values():
        best = max(p[3] for p in places)
        sure = [p for p in places if p[3] == best]
        if best == 0 or len(sure) != 1:
            continue
        i, start, end = sure[0][:3]
        text = texts[i]
        if end < len(text) and text[end].isspace():
            end += 1
        elif start > 0 and text[start - 1].isspace():
            start -= 1
        out[i].append((start, end))
    return [_merged(where) for where in out]


def _agree(words: Sequence[str], line: Sequence[str]) -> int:
    """How many words, from the first, ``words`` and ``line`` share (0 when either has none)."""
    n = 0
    for a, b in zip(words, line, strict=False):
        if not a or a != b:
            break
        n += 1
    return n


def _merged(where: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted, those that touch one span (two numbers may claim one space)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(where):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _bunched(text: str, marks: Sequence[re.Match[str]]) -> set[int]:
    """Indexes of ``marks`` that stand three or more in a row, counting up by one with
    nothing but spaces between ("… (CC BY 4.0). 19 20 21 22": the numbers of lines whose
    text Docling read elsewhere)."""
    out: set[int] = set()
    run = [0] if marks else []
    for k in range(1, len(marks) + 1):
        if k < len(marks) and int(marks[k].group(1)) == int(marks[k - 1].group(1)) + 1 \
                and not text[marks[k - 1].end():marks[k].start()].strip():
            run.append(k)
            continue
        if len(run) >= 3:
            out.update(run)
        run = [k]
    return out


def cut(text: str, where: Sequence[tuple[int, int]]) -> str:
    """``text`` without the spans ``where`` (sorted, apart)."""
    for start, end in reversed(where):
        text = text[:start] + text[end:]
    return text


def moved(pos: int, where: Sequence[tuple[int, int]]) -> int:
    """Where position ``pos`` of a text lands once ``where`` is cut out of it."""
    return pos - sum(min(end, pos) - start for start, end in where if start < pos)
