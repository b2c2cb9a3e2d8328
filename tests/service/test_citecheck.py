"""``citeloom check`` (issue #29): citations read from LaTeX and Markdown drafts with the
sentence that makes each claim; each cited paper judged by the cross-encoder (found / weak /
not found / not in library) with better sources. Real models and a real Edge index for the
judging; the CLI in a real subprocess."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from citeloom.errors import InvalidInput
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.citecheck import FOUND, WEAK, check, markdown_report, verdict
from citeloom.service.drafts import Citation, citations, detect_format, read_draft

from ..clirun import run_cli
from ..conftest import shared_settings

TEX = r"""\documentclass{article}
\usepackage{natbib}
% An old draft said \cite{commented} here.
\begin{document}
\section{Background}
Retrievable vena cava filters migrate in a few per cent of patients~\citep[p.~4]{datta2010}.
As \citet{lee2019} showed, heparin raises the risk of bleeding.
Tablets were not taken in the dry season \parencite{adherence2021, datta2010}. 50\% is a
number \autocite{unknown2000}.
\nocite{everything}
\end{document}
"""

MD = """# Background

Retrievable vena cava filters migrate in a few per cent of patients [see @datta2010, p. 4].
Write to me at someone@example.org. @lee2019 showed that heparin raises the risk of bleeding.

```
[@incode] is not a citation
```

Tablets were not taken in the dry season [@adherence2021; @datta2010]. Unknown [@unknown2000].
"""


def test_latex_citations_with_their_claims() -> None:
    got = citations(TEX, "latex")
    assert [c.keys for c in got] == [["datta2010"], ["lee2019"],
                                     ["adherence2021", "datta2010"], ["unknown2000"]]
    assert got[0].claim == ("Retrievable vena cava filters migrate in a few per cent of "
                            "patients.")
    assert got[0].locators == {"datta2010": "p. 4"} and got[0].line == 6
    assert got[1].claim == "As lee2019 showed, heparin raises the risk of bleeding."
    assert got[2].claim == "Tablets were not taken in the dry season."
    assert got[3].claim.startswith("50% is a number")  # \% read as a reader sees it


def test_markdown_citations_with_their_claims() -> None:
    got = citations(MD, "markdown")
    assert [c.keys for c in got] == [["datta2010"], ["lee2019"],
                                     ["adherence2021", "datta2010"], ["unknown2000"]]
    assert got[0].claim == ("Retrievable vena cava filters migrate in a few per cent of "
                            "patients.")
    assert got[0].locators == {"datta2010": "p. 4"}
    assert got[1].claim == "lee2019 showed that heparin raises the risk of bleeding."
    assert got[2].line == 10 and got[2].claim == "Tablets were not taken in the dry season."


def test_formats_and_bad_drafts(tmp_path: Path) -> None:
    assert detect_format(Path("a.tex"), "") == "latex"
    assert detect_format(Path("a.md"), "") == "markdown"
    assert detect_format(Path("draft"), "see \\citep{x}") == "latex"
    with pytest.raises(InvalidInput, match="no draft at"):
        read_draft(tmp_path / "missing.tex")
    docx = tmp_path / "thesis.docx"
    docx.write_bytes(b"PK\x03\x04")
    with pytest.raises(InvalidInput, match="not a readable Word document") as err:
        read_draft(docx)
    assert "pandoc" in err.value.hint
    odt = tmp_path / "x.odt"
    odt.write_text("x")
    with pytest.raises(InvalidInput, match="drafts are not read"):
        read_draft(odt)
    latin = tmp_path / "old.tex"
    latin.write_bytes("caf\xe9 \\cite{x}".encode("latin-1"))
    with pytest.raises(InvalidInput, match="not UTF-8"):
        read_draft(latin)
    with pytest.raises(InvalidInput, match="unknown draft format"):
        citations("x", "docx")


def _word_draft(tmp: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures" / "make"))
    import zotero_docx

    return zotero_docx.write(tmp / "chapter.docx", zotero_docx.EXAMPLE)


def test_word_citations_from_zotero_fields(tmp_path: Path) -> None:
    text, fmt = read_draft(_word_draft(tmp_path))
    got = citations(text, fmt)
    assert fmt == "citations"
    assert [c.keys for c in got] == [["zotero:DATTA201"], ["zotero:LEE2019X"],
                                     ["zotero:ADHER021", "zotero:DATTA201"],
                                     ["zotero:NOPE0000"]]
    # the claim is the sentence without the field's shown "(Datta et al., 2010, p. 4)"
    assert got[0].claim == ("Retrievable vena cava filters migrate in a few per cent of "
                            "patients.")
    assert got[0].locators == {"zotero:DATTA201": "p. 4"} and got[0].line == 1
    assert got[2].claim == "Tablets were not taken in the dry season." and got[2].line == 2
    assert len(got) == 4  # the bibliography field is not a citation


def test_verdict_thresholds() -> None:
    assert verdict(FOUND) == "found" and verdict(FOUND + 3) == "found"
    assert verdict(WEAK) == "weak" and verdict((FOUND + WEAK) / 2) == "weak"
    assert verdict(WEAK - 0.01) == "not found"


FILTERS = ("Retrievable inferior vena cava filters were placed in 120 trauma patients. "
           "Filter migration occurred in 3% to 8% of patients, and occlusion of the inferior "
           "vena cava in 4% to 15%. Most filters were never retrieved.")
HEPARIN = ("Low molecular weight heparin was given to 400 patients after surgery. Major "
           "bleeding occurred in 3.9% of them and heparin-induced thrombocytopenia in 0.7%.")
ADHERENCE = ("In the rural clinics, adherence to the tablets fell to 41% in the dry season, "
             "because the clinic was far away and the roads were closed.")
OTHERS = [
    "The crystal structure of the enzyme was solved at 1.8 angstrom resolution.",
    "Open access monographs were downloaded in 173 countries within the first year.",
    "Participants preferred the hospital to their general practice for rehabilitation.",
]


@pytest.fixture(scope="module")
def app(models_dir, tmp_path_factory):  # type: ignore[no-untyped-def]

    root = tmp_path_factory.mktemp("check")
    service = CiteLoom(shared_settings(data_dir=root / "data", models_dir=models_dir))
    papers = [("datta2010", "Complications of thromboprophylaxis", FILTERS, "DATTA201"),
              ("lee2019", "Heparin after surgery", HEPARIN, "LEE2019X"),
              ("adherence2021", "Adherence in rural clinics", ADHERENCE, "ADHER021"),
              *((f"other{i}", f"Paper {i}", t, None) for i, t in enumerate(OTHERS))]
    service.index_texts("lib", [TextDoc(doc_id=key, title=title, text=text,
                                        payload={"citekey": key, "zotero_key": item})
                                for key, title, text, item in papers])
    yield service
    service.close()


def test_check_judges_each_cited_paper(app: CiteLoom) -> None:
    got = check(app.runtime, ["lib"], citations(MD, "markdown"))
    by = {(c.key, c.claim.split()[0]): c for c in got}
    filters = by[("datta2010", "Retrievable")]
    assert filters.verdict == "found" and filters.best is not None
    assert filters.best.citekey == "datta2010" and filters.locator == "p. 4"
    assert filters.best.score >= FOUND and not filters.better
    assert by[("lee2019", "lee2019")].verdict == "found"
    # the dry-season claim cites the adherence paper (right) and datta2010 (wrong)
    assert by[("adherence2021", "Tablets")].verdict == "found"
    wrong = by[("datta2010", "Tablets")]
    assert wrong.verdict in ("weak", "not found")
    assert [b.citekey for b in wrong.better][:1] == ["adherence2021"]  # the right source
    unknown = by[("unknown2000", "Unknown.")]
    assert unknown.verdict == "not in library" and unknown.best is None
    # worst first
    order = ["not in library", "not found", "weak", "found"]
    assert [order.index(c.verdict) for c in got] == sorted(order.index(c.verdict) for c in got)
    with pytest.raises(InvalidInput, match="no citations"):
        check(app.runtime, ["lib"], [])
    # a Word draft cites Zotero items: the same verdicts, under the papers' citekeys
    text, fmt = read_draft(_word_draft(tmp_path_factory_dir(app)))
    word = app.check(text, fmt, ["lib"], draft="chapter.docx")
    verdicts = {(c["key"], c["claim"].split()[0]): c["verdict"] for c in word["citations"]}
    assert verdicts[("datta2010", "Retrievable")] == "found"
    assert verdicts[("adherence2021", "Tablets")] == "found"
    assert verdicts[("datta2010", "Tablets")] in ("weak", "not found")
    assert verdicts[("zotero:NOPE0000", "Nobody")] == "not in library"
    report = app.check(MD, "markdown", ["lib"], draft="draft.md")
    assert report["counts"]["found"] == 3 and report["counts"]["not in library"] == 1
    first = report["citations"][0]
    assert {"key", "claim", "verdict", "pages", "better"} <= set(first)
    md = markdown_report(report)
    assert "## unknown2000 (line 10): not in library" in md
    assert "better: **adherence2021**" in md


def test_cli_check_prints_json_and_a_report(app: CiteLoom, models_dir: Path,
                                            tmp_path: Path) -> None:
    data = app.settings.data_dir
    draft = tmp_path / "draft.md"
    draft.write_text(MD)
    env = {**os.environ, "CITELOOM_DATA_DIR": str(data), "CITELOOM_MODELS_DIR": str(models_dir),
           "CITELOOM_DAEMON": "off"}
    env.pop("CITELOOM_CONFIG", None)
    app.close()  # let the CLI's process open the index
    report = tmp_path / "check.md"
    out = run_cli(["check", str(draft), "-p", "lib", "--json", "--report", str(report)], env,
                  os.getcwd())
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert [c["verdict"] for c in got["citations"]][0] == "not in library"
    assert report.read_text().startswith("# Citation check: draft.md")
    plain = run_cli(["check", str(draft), "-p", "lib"], env, os.getcwd())
    assert plain.returncode == 0, plain.stderr
    assert "NOT IN LIBRARY  unknown2000, line 10" in plain.stdout
    assert "better: adherence2021" in plain.stdout
    empty = tmp_path / "empty.md"
    empty.write_text("No citations here.")
    none = run_cli(["check", str(empty), "-p", "lib"], env, os.getcwd())
    assert none.returncode != 0 and "no citations" in none.stderr
    assert "Traceback" not in none.stderr

    # The MCP tool: a pasted paragraph, the same verdicts and pages.
    import asyncio

    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    async def ask(args: dict) -> tuple[bool, str]:
        transport = StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                   env=env, cwd=str(tmp_path))
        async with Client(transport) as c:
            result = await c.call_tool("check_citations", args, raise_on_error=False)
            return result.is_error, result.content[0].text

    error, text = asyncio.run(ask({"text": MD, "projects": ["lib"]}))
    assert not error, text
    answer = json.loads(text)
    assert answer["counts"]["found"] == 3 and answer["counts"]["not in library"] == 1
    assert {c["key"]: c["pages"] for c in answer["citations"]}["lee2019"] is not None
    error, text = asyncio.run(ask({"projects": ["lib"]}))
    assert error and "INVALID_INPUT" in text


def tmp_path_factory_dir(app: CiteLoom) -> Path:
    out = app.settings.data_dir.parent / "drafts"
    out.mkdir(exist_ok=True)
    return out


def test_citation_dataclass_defaults() -> None:
    c = Citation(["a"], "claim", 1)
    assert c.locators == {}
