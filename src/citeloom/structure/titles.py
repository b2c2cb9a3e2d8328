"""A paper's title when Docling found no title item: a plausible PDF metadata title, else
the first plausible heading on page 1, else the file name; and what is not a title (a
journal's boilerplate above it, a generator's placeholder)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument


# Words journals print above a title ("RESEARCH ARTICLE Open Access"), often letter-spaced.
BOILERPLATE_WORDS = ("openaccess", "researcharticle", "originalarticle", "originalresearch",
                     "shortcommunication", "review", "research", "article", "letter",
                     "editorial", "abstract", "background", "methodology")


def is_boilerplate_heading(text: str) -> bool:
    squashed = re.sub(r"[^a-z]", "", text.lower())
    for word in BOILERPLATE_WORDS:
        squashed = squashed.replace(word, "")
    return len(squashed) < 3


def plausible_title(text: str | None) -> bool:
    """A metadata or heading string that reads like a paper title, not a file name,
    a journal's running header or a generator's placeholder."""
    if not text:
        return False
    text = text.strip()
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 3 or len(text) > 400:
        return False
    if re.search(r"\.(docx?|pdf|tex|dvi)\b|microsoft word|untitled", text, re.IGNORECASE):
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters / max(1, len(text.replace(" ", ""))) > 0.7


def pdf_metadata_title(path: Path) -> str | None:
    """The Title field of a PDF's info dictionary, if it is there and plausible."""
    if path.suffix.lower() != ".pdf":
        return None
    try:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(str(path))
        try:
            title = (pdf.get_metadata_dict().get("Title") or "").strip()
        finally:
            pdf.close()
    except Exception:  # metadata is a nicety; a broken file fails later, in conversion
        return None
    return title if plausible_title(title) else None


#: How much larger than the page's usual text a title is set (LaTeX's \\maketitle: 17.3 pt
#: over 10-12 pt; a journal's 10 pt capitals over 8 pt).
TITLE_SIZE = 1.15
_HEAD_END = re.compile(r"^(?:abstract|summary|contents|keywords|(?:1\.?\s+)?introduction)\b",
                       re.IGNORECASE)


def layer_title(path: Path, password: str | None = None) -> str | None:
    """The title as page 1's text layer sets it, for a document whose title Docling did not
    mark: the first run of rows in the largest font above the abstract (or contents, or
    introduction), at least :data:`TITLE_SIZE` times the page's usual size, and plausible
    (:func:`plausible_title`). None when no row stands out so (a title in the body's size,
    a file whose font sizes PDFium cannot tell)."""
    if path.suffix.lower() != ".pdf" or not path.is_file():
        return None
    from statistics import median

    from citeloom.convert.textlayer import sized_rows

    rows = sized_rows(path, 1, password)
    if len(rows) < 3:
        return None
    usual = median(size for _, size, _ in rows)
    head = []
    for text, size, _ in rows[:12]:
        if _HEAD_END.match(text):
            break
        head.append((text, size))
    if not head or usual <= 1.0:
        return None
    top = max(size for _, size in head)
    if top < TITLE_SIZE * usual:
        return None
    first = next(i for i, (_, size) in enumerate(head) if size == top)
    run = [text for text, size in head[first:] if size == top]
    end = first + len(run)
    if any(size == top for _, size in head[end:]):  # the largest size, apart: not one title
        run = [text for text, size in head[first:end] if size == top]
    title = " ".join(" ".join(run).split())
    if "arxiv" in title.lower() or is_boilerplate_heading(title) or not plausible_title(title):
        return None
    return title if len(title.split()) <= 30 else None


def document_title(doc: DoclingDocument, fallback: str, metadata_title: str | None = None) -> str:
    """The document's title item, else a plausible PDF metadata title, else the first
    plausible heading on page 1, else ``fallback`` (the file name)."""
    from docling_core.types.doc import DocItemLabel

    first_heading = None
    for item, _level in doc.iterate_items():
        label = getattr(item, "label", None)
        text = " ".join(getattr(item, "text", "").split())
        if not text:
            continue
        if label == DocItemLabel.TITLE:
            return text
        on_first_page = any(p.page_no == 1 for p in getattr(item, "prov", []))
        if (label == DocItemLabel.SECTION_HEADER and on_first_page and first_heading is None
                and not is_boilerplate_heading(text) and plausible_title(text)):
            first_heading = text
    return metadata_title or first_heading or fallback


def title_of(doc: DoclingDocument, path: Path, password: str | None = None) -> str:
    """A converted file's title: the title item (on any layer), else
    :func:`document_title`'s choice, else the largest type on page 1 (:func:`layer_title`),
    else the file's name."""
    from citeloom.structure.headings import find_title

    pdf = path.suffix.lower() == ".pdf" and path.is_file()
    title = find_title(doc) or document_title(
        doc, path.stem, pdf_metadata_title(path) if pdf else None)
    if title == path.stem and pdf:
        title = layer_title(path, password) or title
    return title
