"""Heading-aware chunking with a hard guarantee: no chunk's embedded text (headings +
passage) is longer than the dense model reads.

Docling's ``HybridChunker`` splits along document items and merges small neighbours under
the same headings. Its token counts come from the dense model's own word-piece tokenizer
(``WordPieceCounter``), so the budget is counted exactly as the model will see it. A last
check re-counts every chunk with special tokens and splits anything still too long on
token boundaries: silent truncation would lose text a researcher may need to cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from pydantic import ConfigDict

from citeloom.config import DEFAULT_CHUNKER
from citeloom.payload import SECTION_SEP
from citeloom.provision import chunk_limit, dense_spec
from citeloom.structure.headings import section_kind

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument
    from tokenizers import Tokenizer

    from citeloom.config import ProjectConfig

SPECIAL_TOKENS = 2  # [CLS] ... [SEP]

# How a project chunks is part of its model lock. v2 embeds each passage with the last
# words of the passage before it in the same document (docs/DECISIONS.md "The passage
# before"); v1, the chunker of indexes built before, embeds the passage alone.
CONTEXT_WORDS = {"docling-hybrid/v1": 0, "docling-hybrid/v2": 80, "docling-hybrid/v3": 80}
# v3 also keeps sentences whole where a paragraph is cut between two passages (the token
# limit cuts it at any word): the words after the passage's last full stop move to the
# passage that continues the sentence, when it has room (docs/DECISIONS.md).
WHOLE_SENTENCES = {"docling-hybrid/v3"}
# The end of a sentence: a full stop, question or exclamation mark after a word (a closing
# quote or bracket after it), then a space and a capital (not ". . 1" of a printed matrix).
_SENTENCE_END = re.compile(r"(?<=[^\W_])[.!?][\"”’)\]]?\s+(?=[\"“(\[]?[A-Z])")
# The last words may move only while they are a small part of the passage.
MOVE_SHARE = 0.5


class WordPieceCounter(BaseTokenizer):
    """Docling tokenizer adapter over a ``tokenizers.Tokenizer`` (no transformers needed).

    Counts exclude the special tokens; ``max_tokens`` is the window minus them, so a chunk
    that fits here fits the model with [CLS] and [SEP] added."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tokenizer: Any
    max_tokens: int

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def get_max_tokens(self) -> int:
        return self.max_tokens

    def get_tokenizer(self) -> Any:
        return self.tokenizer


@dataclass
class Chunk:
    """One citable passage of a document."""

    index: int
    text: str
    embed_text: str
    heading_chain: list[str]
    page_start: int | None
    page_end: int | None
    item_labels: list[str] = field(default_factory=list)
    # what the dense model embeds: ``embed_text`` with the end of the passage before it
    # in front of the passage (empty: ``embed_text`` itself). Never shown or BM25-indexed.
    dense_input: str = ""

    @property
    def dense_text(self) -> str:
        return self.dense_input or self.embed_text

    @property
    def section_path(self) -> str:
        return SECTION_SEP.join(self.heading_chain)


def _with_text(chunk: Chunk, text: str) -> Chunk:
    """``chunk`` with another passage: its embedded text keeps the same headings before it."""
    at = chunk.embed_text.rfind(chunk.text)
    head = chunk.embed_text[:at] if at >= 0 else ""
    return Chunk(chunk.index, text, head + text, chunk.heading_chain, chunk.page_start,
                 chunk.page_end, chunk.item_labels)


def token_count(tokenizer: Tokenizer, text: str) -> int:
    """Tokens the dense model sees for ``text``, special tokens included."""
    return len(tokenizer.encode(text, add_special_tokens=True).ids)


class Chunker:
    """Turns a DoclingDocument into chunks that fit ``min(max_tokens, window)``."""

    def __init__(self, tokenizer: Tokenizer, window: int, max_tokens: int | None = None,
                 chunker: str = DEFAULT_CHUNKER) -> None:
        self.tokenizer = tokenizer
        self.window = window
        self.context_words = CONTEXT_WORDS[chunker]
        self.whole_sentences = chunker in WHOLE_SENTENCES
        self.limit = chunk_limit(window, max_tokens)
        counter = WordPieceCounter(tokenizer=tokenizer, max_tokens=self.limit - SPECIAL_TOKENS)
        self._hybrid = HybridChunker(tokenizer=counter, merge_peers=True)

    def chunk(self, doc: DoclingDocument) -> list[Chunk]:
        chunks: list[Chunk] = []
        ends: list[tuple[str, str]] = []  # each chunk's first and last document item
        for raw in self._hybrid.chunk(dl_doc=doc):
            text = raw.text.strip()
            if not text:
                continue
            headings = [h.strip() for h in (raw.meta.headings or []) if h.strip()]
            pages = sorted({p.page_no for item in raw.meta.doc_items for p in item.prov})
            labels = {str(item.label.value) for item in raw.meta.doc_items}
            # A reference list is labelled "reference", so searches can leave bibliographies
            # out (they match every topic the paper cites).
            if any(section_kind(h) == "references" for h in headings):
                labels.add("reference")
            embed_text = self._hybrid.contextualize(chunk=raw)
            refs = [str(getattr(item, "self_ref", "")) for item in raw.meta.doc_items]
            for piece_text, piece_embed in self._fit(text, headings, embed_text):
                ends.append((refs[0], refs[-1]) if refs else ("", ""))
                chunks.append(
                    Chunk(
                        index=len(chunks),
                        text=piece_text,
                        embed_text=piece_embed,
                        heading_chain=headings,
                        page_start=pages[0] if pages else None,
                        page_end=pages[-1] if pages else None,
                        item_labels=sorted(labels),
                    )
                )
        if self.whole_sentences:
            for i in range(len(chunks) - 1):
                a, b = chunks[i], chunks[i + 1]
                if (ends[i][1] and ends[i][1] == ends[i + 1][0]) or (  # one paragraph, cut
                        b.text[:1].islower() and a.heading_chain == b.heading_chain):
                    self._finish_sentence(a, b)  # (or one cut by a page or column break)
        if self.context_words:
            for before, chunk in zip(chunks, chunks[1:], strict=False):
                self._add_context(chunk, before.text)
        return chunks

    def _finish_sentence(self, chunk: Chunk, after: Chunk) -> None:
        """Move the words after ``chunk``'s last full stop to the start of ``after``, which
        continues the same paragraph, if ``after`` has room for them: a sentence cut by the
        token limit is then whole in one passage (shown, BM25-indexed and embedded so). The
        pages of ``after`` grow to the page the moved words were on."""
        text = chunk.text
        if re.search(r"[.!?:][\"”’)\]]?$", text):
            return  # it ends a sentence already
        stops = list(_SENTENCE_END.finditer(text))
        last = stops[-1] if stops else None
        if last is None or len(text) - last.end() > MOVE_SHARE * len(text):
            return
        tail, keep = text[last.end():], text[:last.end()].rstrip()
        moved = _with_text(after, f"{tail} {after.text}")
        if token_count(self.tokenizer, moved.embed_text) > self.limit:
            return  # no room: the cut stays where the limit put it
        after.text, after.embed_text = moved.text, moved.embed_text
        kept = _with_text(chunk, keep)
        chunk.text, chunk.embed_text = kept.text, kept.embed_text
        if chunk.page_end is not None and (after.page_start is None
                                           or chunk.page_end < after.page_start):
            after.page_start = chunk.page_end

    def _add_context(self, chunk: Chunk, before: str) -> None:
        """Put the last words of the passage before in front of the passage, as much of
        them as the model's window still holds: a passage cut from its paragraph by the
        token limit, or opening a section mid-argument, is embedded with what it follows
        from ("these effects", "the assay above")."""
        room = self.window - token_count(self.tokenizer, chunk.embed_text) - 1
        words = before.split()[-self.context_words:]
        if room < 8 or not words:
            return
        context = " ".join(words)
        offsets = self.tokenizer.encode(context, add_special_tokens=False).offsets
        if len(offsets) > room:  # keep the words nearest the passage
            context = context[offsets[-room][0]:]
        at = chunk.embed_text.rfind(chunk.text)
        head, tail = (chunk.embed_text[:at], chunk.embed_text[at:]) if at >= 0 else (
            "", chunk.embed_text)
        chunk.dense_input = f"{head}{context}\n{tail}"

    def _fit(self, text: str, headings: list[str], embed_text: str) -> list[tuple[str, str]]:
        """Split on token boundaries whatever still exceeds the window (rare: the hybrid
        chunker already respects it; this is the guarantee, not the strategy)."""
        if token_count(self.tokenizer, embed_text) <= self.limit:
            return [(text, embed_text)]
        prefix = "\n".join(headings)
        prefix_tokens = token_count(self.tokenizer, prefix + "\n") if prefix else 0
        budget = max(16, self.limit - max(prefix_tokens, SPECIAL_TOKENS) - 1)
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        pieces = []
        for start in range(0, len(enc.offsets), budget):
            window = enc.offsets[start : start + budget]
            piece = text[window[0][0] : window[-1][1]].strip()
            if piece:
                embed = f"{prefix}\n{piece}" if prefix else piece
                pieces.append((piece, embed))
        return pieces


def project_chunker(models_dir: Path, project: ProjectConfig) -> Chunker:
    """The chunker of a project's settings: its dense model's tokenizer and window, its
    chunk size, its chunker version."""
    from citeloom.embed.encoders import load_tokenizer

    return Chunker(load_tokenizer(models_dir, project.dense_model),
                   dense_spec(project.dense_model).window, project.chunk_max_tokens,
                   project.chunker)
