"""Chunks never exceed the dense model's window, counted with the model's own tokenizer
on exactly the text that is embedded (headings included)."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument

from citeloom.embed.chunk import Chunker, token_count
from citeloom.structure.headings import section_kind
from citeloom.structure.titles import document_title

from ..conftest import CORPUS, FIXTURE_PDFS

WINDOW = 256


@pytest.fixture(scope="module")
def chunker(tokenizer) -> Chunker:
    return Chunker(tokenizer, WINDOW)


@pytest.mark.slow
@pytest.mark.parametrize("pdf", [
    FIXTURE_PDFS / "cermine__example2.pdf",
    CORPUS / "text" / "cermine__example3.pdf",  # 13 pages, two columns, long paragraphs
    CORPUS / "text" / "docling__redp5110_sampled.pdf",  # heading-rich, long heading chains
])
def test_real_papers_fit_the_window(pdf, converted, chunker: Chunker, tokenizer) -> None:
    chunks = chunker.chunk(converted(pdf))
    assert len(chunks) > 5
    counts = [token_count(tokenizer, c.embed_text) for c in chunks]
    assert max(counts) <= WINDOW, max(counts)
    # The budget is used: chunks are not needlessly tiny.
    assert max(counts) > WINDOW * 0.6
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.page_start is not None and c.page_end >= c.page_start for c in chunks)


def _synthetic(heading: str, paragraph: str) -> DoclingDocument:
    doc = DoclingDocument(name="synthetic")
    doc.add_heading(text=heading, level=1)
    doc.add_text(label=DocItemLabel.TEXT, text=paragraph)
    return doc


@pytest.mark.parametrize(("heading", "is_references"), [
    ("Quellen", True),
    ("Referencias", True),
    ("7. References", True),
    ("Bibliografía", True),
    ("[References]", True),
    ("Reference frames", False),
    ("Methods", False),
])
def test_reference_chunks_and_section_kind_agree(chunker: Chunker, heading: str,
                                                 is_references: bool) -> None:
    """One rule for a reference-list heading: the chunk's "reference" label and the
    heading's section kind come from the same definition (headings.REFERENCES_RE)."""
    chunks = chunker.chunk(_synthetic(heading, "Smith J (2020) A study of things. J Things."))
    assert chunks and all(c.heading_chain == [heading] for c in chunks)
    assert all(("reference" in c.item_labels) is is_references for c in chunks)
    assert (section_kind(heading) == "references") is is_references


def test_oversized_paragraph_and_long_heading_are_split(chunker: Chunker, tokenizer) -> None:
    heading = "A deliberately long section heading about hybrid retrieval " * 3
    paragraph = " ".join(f"Sentence {i} mentions antidisestablishmentarianism and "
                         f"pneumonoultramicroscopicsilicovolcanoconiosis." for i in range(120))
    chunks = chunker.chunk(_synthetic(heading, paragraph))
    assert len(chunks) > 3
    assert all(token_count(tokenizer, c.embed_text) <= WINDOW for c in chunks)
    # Nothing is lost: every sentence number survives in some chunk.
    joined = " ".join(c.text for c in chunks)
    assert all(f"Sentence {i} " in joined for i in range(120))


def test_configured_maximum_below_window_is_respected(tokenizer) -> None:
    small = Chunker(tokenizer, WINDOW, max_tokens=64)
    paragraph = " ".join(f"Claim {i} is supported by evidence." for i in range(80))
    chunks = small.chunk(_synthetic("Results", paragraph))
    assert all(token_count(tokenizer, c.embed_text) <= 64 for c in chunks)
    assert small.limit == 64
    assert Chunker(tokenizer, WINDOW, max_tokens=4096).limit == WINDOW


def test_title_falls_back_to_name() -> None:
    doc = DoclingDocument(name="x")
    doc.add_text(label=DocItemLabel.TEXT, text="body")
    assert document_title(doc, "fallback-name") == "fallback-name"
    doc.add_title(text="A Real Title")
    assert document_title(doc, "fallback-name") == "A Real Title"
