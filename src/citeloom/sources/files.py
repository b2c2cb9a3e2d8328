"""Files and folders: every supported file under the given paths (folders walked in name
order). With ``prune``, indexed documents whose file under those paths is gone are removed.
A file that matches a Zotero item (when a library is configured) gets the item's metadata."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from citeloom.errors import SourceNotFound, UnsupportedType
from citeloom.report import FileResult, IngestReport
from citeloom.sources.base import Context, Source, Unit

# What Docling converts here without models beyond ours (see convert.available_formats).
SUPPORTED_SUFFIXES = {".pdf", ".png", ".tif", ".tiff", ".jpg", ".jpeg", ".bmp", ".webp",
                      ".docx", ".pptx", ".html", ".htm", ".xhtml", ".md", ".tex", ".nxml",
                      ".xml", ".adoc", ".asciidoc"}


def expand_sources(paths: Iterable[Path]) -> tuple[list[Path], list[FileResult]]:
    """Files to ingest (folders walked in name order) and results for paths that fail now."""
    files: list[Path] = []
    bad: list[FileResult] = []
    for p in paths:
        p = Path(p).expanduser()
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*")
                                if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES))
        elif p.is_file():
            if p.suffix.lower() in SUPPORTED_SUFFIXES:
                files.append(p)
            else:
                err = UnsupportedType(f"{p.name}: {p.suffix or 'no extension'} is not supported",
                                      f"supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}")
                bad.append(FileResult(str(p), "failed", error=err.to_dict()))
        else:
            err = SourceNotFound(f"{p} does not exist", "check the path")
            bad.append(FileResult(str(p), "failed", error=err.to_dict()))
    seen: set[Path] = set()
    unique = [f for f in files if not (f.resolve() in seen or seen.add(f.resolve()))]
    return unique, bad


class FileSource(Source):
    """``paths`` (files and folders). ``matcher_for`` gives a Zotero item matcher for the
    run (or None: no library configured, or unreachable — it notes that in the report)."""

    name = "files"

    def __init__(self, paths: list[Path], *, prune: bool = False,
                 matcher_for: Callable[[IngestReport], Any] | None = None) -> None:
        self.paths = [Path(p) for p in paths]
        self.prune = prune
        self.matcher_for = matcher_for
        self.matcher: Any = None
        self._files: list[Path] = []
        self._bad: list[FileResult] = []

    def plan(self, ctx: Context) -> int:
        self._files, self._bad = expand_sources(self.paths)
        if self._files and self.matcher_for is not None:
            self.matcher = self.matcher_for(ctx.report)
        return len(self._files) + len(self._bad)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        yield from self._bad
        for path in self._files:
            yield Unit(label=str(path.resolve()), path=path)

    def pages(self) -> dict[str, int]:
        """Each file's pages, as PDFium counts them without converting (a few ms a file)."""
        from citeloom.system import pdf_pages

        return {str(path.resolve()): pdf_pages(path) for path in self._files}

    def metadata(self, unit: Unit, first_pages: str, result: FileResult
                 ) -> dict[str, Any] | None:
        if unit.meta is not None or self.matcher is None:
            return unit.meta
        from citeloom.zotero import item_payload

        assert unit.path is not None
        item, how = self.matcher.match(unit.path, first_pages)
        if item is None:
            result.note = ("MetadataMissing: no Zotero item matched this file (attachment, "
                           "DOI or title); indexed with the file's own metadata")
            return None
        result.note = f"matched Zotero item {item.key} by {how}"
        return item_payload(item)

    def finish(self, ctx: Context) -> Iterator[FileResult]:
        """With ``prune``: remove documents whose file, under one of the paths, is gone."""
        if not self.prune:
            return
        roots = [str(p.expanduser().resolve()) for p in self.paths]
        for rec in ctx.catalog.all():
            under = any(rec.source_path == r or rec.source_path.startswith(r.rstrip("/") + "/")
                        for r in roots)
            if under and not Path(rec.source_path).exists():
                ctx.index.delete_doc(rec.doc_id)
                ctx.catalog.delete(rec.doc_id)
                yield FileResult(rec.source_path, "removed", doc_id=rec.doc_id,
                                 chunks=rec.chunks)
