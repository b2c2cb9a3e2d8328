"""A draft's citations, each with the sentence that makes the claim (``citeloom check``).

Read from LaTeX (``\\cite``, ``\\citep[p.~4]{a,b}``, ``\\parencite``, ``\\textcite`` … with
comments ignored), Pandoc Markdown (``[@key]``, ``[see @a; @b, p. 3]``, ``@key`` in
running text) and Word documents with Zotero's citation fields (the item's Zotero key).
The claim is the sentence around the citation, its citation markup taken out, so that it
reads as the sentence a reader sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from citeloom.errors import InvalidInput

# "citations": a JSON list of citations already read (a Word draft is read where the file
# is, and its citations sent on as such).
FORMATS = ("latex", "markdown", "citations")


@dataclass
class Citation:
    """One citation in a draft: the keys it cites, the claim it supports, where it is."""

    keys: list[str]
    claim: str
    line: int  # 1-based line of the citation in the draft
    locators: dict[str, str] = field(default_factory=dict)  # key -> "p. 4", as written


# -- LaTeX -------------------------------------------------------------------------------------
# \cite, \citep, \citet*, \parencite, \autocite, \textcite, \footcite, \Citet, \citeauthor …:
# any command whose name holds "cite", up to two optional arguments, then the keys.
_LATEX_CITE = re.compile(
    r"\\(?P<cmd>[A-Za-z]*cite[A-Za-z]*)\*?\s*(?P<opts>(?:\[[^\]]*\]\s*){0,2})\{(?P<keys>[^}]*)\}")
_LATEX_COMMENT = re.compile(r"(?<!\\)%.*")
_LATEX_NOT_CITES = {"nocite"}  # in the bibliography, not at a claim
# In-text forms name the authors in the sentence: the claim keeps the key in their place.
_LATEX_IN_TEXT = {"textcite", "citet", "Citet", "Textcite", "citeauthor", "Citeauthor"}


def _latex_plain(text: str) -> str:
    """A LaTeX sentence as a reader sees it, near enough to search with: commands with a
    text argument keep the argument, other commands, braces and ties go."""
    text = re.sub(r"\\(?:emph|textit|textbf|textsc|texttt|mbox|text)\s*\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\([%&$#_])", r"\1", text)
    text = re.sub(r"\\[A-Za-z]+\*?(?:\[[^\]]*\])?", " ", text)
    text = text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")
    return " ".join(text.split())


def latex_citations(text: str) -> list[Citation]:
    body = "\n".join(_LATEX_COMMENT.sub("", line) for line in text.splitlines())
    start = body.find("\\begin{document}")
    end = body.find("\\end{document}")
    offset = start + len("\\begin{document}") if start >= 0 else 0
    body_end = end if end >= 0 else len(body)
    out = []
    for m in _LATEX_CITE.finditer(body, offset, body_end):
        if m.group("cmd") in _LATEX_NOT_CITES:
            continue
        keys = [k.strip() for k in m.group("keys").split(",") if k.strip()]
        opts = re.findall(r"\[([^\]]*)\]", m.group("opts"))
        locator = _latex_plain(opts[-1]) if opts and opts[-1].strip() else ""
        sentence = _sentence(body, m.start(), m.end(), offset, body_end)
        claim = _latex_plain(_LATEX_CITE.sub(
            lambda c: c.group("keys") if c.group("cmd") in _LATEX_IN_TEXT else " ", sentence))
        out.append(Citation(keys, _tidy(claim), body.count("\n", 0, m.start()) + 1,
                            {keys[-1]: locator} if locator and keys else {}))
    return out


# -- Pandoc Markdown -------------------------------------------------------------------------
_KEY = r"[\w][\w:.#$%&\-+?<>~/]*[\w]|[\w]"
_MD_BRACKET = re.compile(r"\[(?P<inner>[^\[\]]*@(?:" + _KEY + r")[^\[\]]*)\](?!\()")
_MD_ITEM = re.compile(r"(?P<pre>[^@;]*?)-?@(?P<key>" + _KEY + r")(?P<post>[^;]*)")
_MD_INTEXT = re.compile(r"(?<![\w@\[])@(?P<key>" + _KEY + r")")


def markdown_citations(text: str) -> list[Citation]:
    def blank(m: re.Match[str]) -> str:  # code and comments out, their lines kept
        return re.sub(r"[^\n]", " ", m.group())

    text = re.sub(r"```.*?```", blank, text, flags=re.S)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    found: list[tuple[int, int, list[str], dict[str, str]]] = []
    for m in _MD_BRACKET.finditer(text):
        keys, locators = [], {}
        for part in m.group("inner").split(";"):
            item = _MD_ITEM.search(part)
            if item is None:
                continue
            key = item.group("key").rstrip(".:")
            keys.append(key)
            post = item.group("post").strip(" ,")
            if post:
                locators[key] = post
        if keys:
            found.append((m.start(), m.end(), keys, locators))
    taken = [(s, e) for s, e, _, _ in found]
    for m in _MD_INTEXT.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        if m.start() > 0 and text[m.start() - 1] not in " \t\n(":
            continue  # an e-mail address, not a citation
        found.append((m.start(), m.end(), [m.group("key").rstrip(".:")], {}))
    out = []
    for s, e, keys, locators in sorted(found):
        sentence = _sentence(text, s, e, 0, len(text))
        claim = _MD_BRACKET.sub(" ", sentence)
        claim = _MD_INTEXT.sub(lambda m: m.group("key"), claim)  # "@smith2020 shows" reads
        claim = re.sub(r"[*_`#>]+", "", claim)
        out.append(Citation(keys, _tidy(claim), text.count("\n", 0, s) + 1, locators))
    return out


# -- Word, with Zotero's citation fields --------------------------------------------------------
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
ZOTERO_KEY = "zotero:"  # a citation key read from a Word field: the Zotero item's key


def _field_keys(code: str) -> tuple[list[str], dict[str, str]]:
    """The Zotero item keys of an ``ADDIN ZOTERO_ITEM CSL_CITATION {json}`` field code, and
    their locators ("p. 4")."""
    import json

    start = code.find("{")
    try:
        data = json.loads(code[start:]) if start >= 0 else {}
    except ValueError:
        return [], {}
    keys, locators = [], {}
    for item in data.get("citationItems") or []:
        uris = item.get("uris") or item.get("uri") or []
        uri = uris[0] if isinstance(uris, list) and uris else str(uris or "")
        key = ZOTERO_KEY + uri.rstrip("/").rsplit("/", 1)[-1] if uri else ""
        if key:
            keys.append(key)
            if item.get("locator"):
                label = {"page": "p."}.get(item.get("label") or "page", item.get("label"))
                locators[key] = f"{label} {item['locator']}"
    return keys, locators


def docx_citations(path: Path) -> list[Citation]:
    """The citations Zotero's Word plugin wrote into a ``.docx``: its ``ADDIN ZOTERO_ITEM``
    fields (the field code holds CSL-JSON naming each item's Zotero URI; the field's shown
    result, "(Datta et al., 2010)", is left out of the claim). ``line`` is the paragraph."""
    import zipfile
    from xml.etree import ElementTree

    try:
        with zipfile.ZipFile(path) as z:
            root = ElementTree.fromstring(z.read("word/document.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError):
        raise InvalidInput(f"{path.name} is not a readable Word document",
                           "open and save it in Word, or export it as Markdown "
                           "(pandoc -t markdown)") from None
    out = []
    for number, para in enumerate(root.iter(f"{_W}p"), 1):
        text, code, state = "", "", None  # state: None, "code" or "result"
        found: list[tuple[int, list[str], dict[str, str]]] = []
        # a simple field's runs are its shown result: not the claim's words
        shown = {id(t) for f in para.iter(f"{_W}fldSimple") for t in f.iter(f"{_W}t")}
        for node in para.iter():
            if node.tag == f"{_W}fldChar":
                kind = node.get(f"{_W}fldCharType")
                if kind == "begin":
                    state, code = "code", ""
                elif kind == "separate":
                    state = "result"
                elif kind == "end":
                    if "ZOTERO_ITEM" in code:
                        keys, locators = _field_keys(code)
                        if keys:
                            found.append((len(text), keys, locators))
                    state = None
            elif node.tag == f"{_W}instrText" and state == "code":
                code += node.text or ""
            elif node.tag == f"{_W}fldSimple" and "ZOTERO_ITEM" in (node.get(f"{_W}instr") or ""):
                keys, locators = _field_keys(node.get(f"{_W}instr") or "")
                if keys:
                    found.append((len(text), keys, locators))
            elif node.tag == f"{_W}t" and state != "result" and id(node) not in shown:
                text += node.text or ""
        for at, keys, locators in found:
            claim = _tidy(_sentence(text, at, at, 0, len(text)))
            out.append(Citation(keys, claim, number, locators))
    return out


# -- shared ----------------------------------------------------------------------------------
# A sentence ends at . ! ? before a capital, a digit or a citation, at a blank line, or at
# a LaTeX heading, list item or environment boundary.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9@\\\[(\"])|\n\s*\n"
    r"|\\(?:part|chapter|(?:sub)*section|paragraph|item|begin|end)\b\*?(?:\{[^}]*\})?")


def _sentence(text: str, start: int, end: int, low: int, high: int) -> str:
    """The sentence of ``text`` around [start, end): from the previous sentence end (or
    blank line) to the next."""
    before = low
    for m in _SENTENCE_END.finditer(text, low, high):
        if m.end() > start:
            break
        before = m.end()
    after = _SENTENCE_END.search(text, end, high)
    return text[before: after.start() if after else high]


def _tidy(claim: str) -> str:
    claim = " ".join(claim.split())
    claim = re.sub(r"\s+([,.;:!?)])", r"\1", claim)
    claim = re.sub(r"\(\s*\)|\[\s*\]", "", claim)
    return " ".join(claim.split()).strip()


def detect_format(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix in (".tex", ".ltx", ".latex"):
        return "latex"
    if suffix in (".md", ".markdown", ".qmd", ".rmd", ".txt"):
        return "markdown"
    return "latex" if re.search(r"\\[A-Za-z]*cite[A-Za-z]*\s*[\[{]", text) else "markdown"


def citations(text: str, fmt: str) -> list[Citation]:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown draft format {fmt!r}", f"use one of {', '.join(FORMATS)}")
    if fmt == "citations":
        import json

        return [Citation(**c) for c in json.loads(text)]
    return latex_citations(text) if fmt == "latex" else markdown_citations(text)


def read_draft(path: Path) -> tuple[str, str]:
    """(text, format) of a draft file; a clear error for what cannot be read."""
    if not path.is_file():
        raise InvalidInput(f"no draft at {path}", "give the path of a .tex or .md file")
    if path.suffix.lower() == ".docx":
        import json
        from dataclasses import asdict

        return json.dumps([asdict(c) for c in docx_citations(path)]), "citations"
    if path.suffix.lower() in (".doc", ".odt", ".pdf"):
        raise InvalidInput(f"{path.name}: {path.suffix} drafts are not read",
                           "save it as .docx (Zotero's Word fields), or export it as LaTeX or "
                           "Markdown (Pandoc: pandoc -t markdown)")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path.name} is not UTF-8 text",
                           "save the draft as UTF-8 (.tex or .md)") from None
    return text, detect_format(path, text)
