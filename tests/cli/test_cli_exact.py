"""The CLI quotes exactly (issue #18, item 1): a document's title and text are printed as
they are — brackets, ``[sic]``, rich- and Markdown-looking text, emoji codes — each passage
on one line (the terminal wraps it, so a copied quote is the document's text), the page
and author · year first, and what the score means. The real CLI (run in process), a real
Docling conversion, a real Edge shard."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from ..clirun import run_cli

pytestmark = pytest.mark.slow

TITLE = "Patient adherence [a pilot study] in rural clinics"
QUOTE = ('One patient said she "was [sic] not taking the tablets" because the clinic was '
         'far away; adherence fell to 41% [see Table 2] in the dry season.')
TITLE_OF_TEST1 = "Complications related to deep venous"
MARKUP = ("Notes written as [bold]x[/bold] and **y** and :smile: and "
          "[link=https://example.org]z[/link] and [red]w[/] stay as typed.")


def cli(tmp: Path, models: Path, *args: str, columns: int = 40
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELOOM_DATA_DIR": str(tmp / "data"),
           "CITELOOM_MODELS_DIR": str(models), "CITELOOM_DAEMON": "off",
           "COLUMNS": str(columns)}  # narrow: a passage must still come out on one line
    env.pop("CITELOOM_CONFIG", None)
    return run_cli(list(args), env, tmp)


def test_cli_prints_titles_and_passages_exactly(tmp_path: Path, models_dir: Path) -> None:
    paper = tmp_path / "papers" / "adherence [draft].html"
    paper.parent.mkdir()
    paper.write_text(f"<html><head><title>{TITLE}</title></head><body><h1>{TITLE}</h1>"
                     f"<h2>Results [interim]</h2><p>{QUOTE}</p><p>{MARKUP}</p></body></html>")
    done = cli(tmp_path, models_dir, "ingest", str(paper.parent), "-p", "q")
    assert done.returncode == 0, done.stderr
    assert "adherence [draft].html" in done.stderr  # file names are not markup either

    out = cli(tmp_path, models_dir, "query", "tablets adherence dry season", "-p", "q",
              "-k", "1", "--full")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert f"   {TITLE}" in lines
    assert "   § " + f"{TITLE} > Results [interim]" in lines
    passage = next(line for line in lines if "tablets" in line)
    assert passage == f"   {QUOTE} {MARKUP}"  # one line, exactly the document's text
    assert not any(line != line.rstrip() for line in lines)  # no trailing spaces
    assert "\x1b[" not in out.stdout  # not a terminal: no colour codes in the text
    hit = next(line for line in lines if line.startswith("1. "))
    # no page, no author or year known: the key made from the title's first two words
    assert hit.startswith("1. patientadherence · score "), hit
    assert any(line.startswith("score: fusion of meaning") for line in lines)  # its meaning

    # By default a hit is compact: title and section on one line (clipped), then the
    # sentences that answer (here the whole passage: it is short), exactly as written.
    compact = cli(tmp_path, models_dir, "query", "tablets adherence dry season", "-p", "q",
                  "-k", "1").stdout.splitlines()
    assert f"   {TITLE} § {TITLE[:29]}…" in compact  # the section clipped at 30
    assert f"   {QUOTE} {MARKUP}" in compact
    assert not any(line.startswith("   chunk ") for line in compact)

    # --json has the same text: what the plain output shows is the stored passage.
    data = json.loads(cli(tmp_path, models_dir, "query", "tablets adherence dry season",
                          "-p", "q", "-k", "1", "--json").stdout)
    assert data["hits"][0]["title"] == TITLE
    assert re.sub(r"\s*\n\s*", " ", data["hits"][0]["text"]) == f"{QUOTE} {MARKUP}"


def test_cli_puts_page_and_author_year_first(tmp_path: Path, models_dir: Path) -> None:
    from ..conftest import FIXTURE_PDFS

    done = cli(tmp_path, models_dir, "ingest", str(FIXTURE_PDFS / "cermine__test1.pdf"),
               "-p", "d")
    assert done.returncode == 0, done.stderr
    out = cli(tmp_path, models_dir, "query", "vena cava filters migrate", "-p", "d", "-k",
              "2", "--mode", "dense", "--full")
    assert out.returncode == 0, out.stderr
    hits = [line for line in out.stdout.splitlines() if line[:1].isdigit()]
    assert len(hits) == 2
    for line in hits:  # "1. p. 3 · Datta et al. · 2010 · datta2010complications · score 0.6"
        rank, rest = line.split(". ", 1)
        page, byline, year, key, score = rest.split(" · ")
        assert page.startswith("p") and byline == "Datta et al." and year == "2010"
        assert key == "datta2010complications"  # made Better BibTeX's way: no Zotero here
        assert score.startswith("score 0.")
    assert "score: cosine similarity" in out.stdout
    # A page hit names its best chunk and the page's other chunks it shows, as --json has
    # them; --per-chunk prints one chunk per hit.
    data = json.loads(cli(tmp_path, models_dir, "query", "vena cava filters migrate", "-p",
                          "d", "-k", "2", "--mode", "dense", "--json").stdout)
    chunk_lines = [line.strip() for line in out.stdout.splitlines()
                   if line.startswith("   chunk ")]
    for h, line in zip(data["hits"], chunk_lines, strict=True):
        others = [x["chunk_id"] for x in h["parts"] if x["chunk_id"] != h["chunk_id"]]
        assert line == (f"chunk {h['chunk_id']}" + (f" (best) + {', '.join(others)}"
                                                    if others else ""))
    assert any(h["parts"] for h in data["hits"])  # page 1 has several matching chunks
    single = cli(tmp_path, models_dir, "query", "vena cava filters migrate", "-p", "d", "-k",
                 "2", "--mode", "dense", "--per-chunk", "--full")
    assert sum(line.startswith("   chunk ") and "(best)" not in line
               for line in single.stdout.splitlines()) == 2
    # The default output of five hits fits a terminal: each hit's page, byline and key
    # first, then the answering sentences (at most payload.SNIPPET_CHARS, the first hit's
    # two and a half times that), words of the query highlighted on a terminal only.
    from citeloom.cli.output import FIRST_SHARE
    from citeloom.payload import SNIPPET_CHARS

    five = cli(tmp_path, models_dir, "query", "vena cava filters migrate", "-p", "d", "-k",
               "5")
    assert five.returncode == 0, five.stderr
    assert len(five.stdout) <= 2500, len(five.stdout)
    blocks = [b.splitlines() for b in five.stdout.split("\n\n")[1:]]  # one per hit
    assert len(blocks) == 5 and all(b[0][:1].isdigit() for b in blocks)
    assert sum(TITLE_OF_TEST1 in line for b in blocks for line in b) == 1  # once a paper
    full = json.loads(cli(tmp_path, models_dir, "query", "vena cava filters migrate", "-p",
                          "d", "-k", "5", "--json").stdout)["hits"]
    for n, (block, h) in enumerate(zip(blocks, full, strict=True)):
        shown = block[-1].strip()
        assert len(shown) <= SNIPPET_CHARS * (FIRST_SHARE if n == 0 else 1)
        one_line = re.sub(r"\s*\n\s*", " ", h["text"])
        assert shown.strip("… ") in one_line  # the passage's own words, cut at sentences
    assert any(re.search(r"\b(filters?|cava|migrat\w*)\b", b[-1], re.I) for b in blocks)
    # --also: the question again in the paper's language, named in the header
    also = cli(tmp_path, models_dir, "query", "filtres cave migration", "-p", "d", "-k", "2",
               "--also", "vena cava filters migrate")
    assert also.returncode == 0, also.stderr
    assert " · hybrid (dbsf) + 1 other phrasing · 2 hits · " in also.stdout
    none = cli(tmp_path, models_dir, "query", "vena cava", "-p", "d", "--year-from", "2020")
    assert none.returncode == 0 and "no hits: no passage matches the filters" in none.stdout
    bad = cli(tmp_path, models_dir, "query", "vena cava", "-p", "d", "--year-from", "2030",
              "--year-to", "2000")
    assert bad.returncode == 1 and "INVALID_INPUT" in bad.stderr
