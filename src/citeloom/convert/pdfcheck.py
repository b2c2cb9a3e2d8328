"""Why a PDF cannot be converted, in words a researcher can act on: cheap checks on the
file's bytes before Docling sees it (:func:`pdf_problem`), and PDFium's reason after
Docling failed on it (:func:`pdf_open_problem`)."""

from __future__ import annotations

from pathlib import Path

from citeloom.system import open_pdf

#: Bytes read from each end of a PDF to check its header and end-of-file marker.
_PDF_PROBE_BYTES = 1024


def pdf_problem(path: Path) -> tuple[str, str] | None:
    """``(reason, hint)`` when a ``.pdf`` file is visibly unusable, else ``None``.

    Cheap checks on the bytes, before Docling sees the file: empty, not a PDF
    at all (no ``%PDF-`` header; an HTML page saved as .pdf is named as such),
    or truncated (no ``%%EOF`` marker in its last 1 KiB, where readers expect
    it). Docling's parser repairs many truncated files and would index the
    pages it finds, silently missing the rest; a researcher is better served by
    being told to fetch the file again.
    """
    size = path.stat().st_size
    if size == 0:
        return ("the file is empty (0 bytes)",
                "download or copy it again; an interrupted download leaves empty files")
    with path.open("rb") as f:
        head = f.read(_PDF_PROBE_BYTES)
        f.seek(max(0, size - _PDF_PROBE_BYTES))
        tail = f.read()
    if b"%PDF-" not in head:
        low = head.lstrip().lower()
        if low.startswith((b"<!doctype html", b"<html")) or b"<html" in low[:200]:
            what = "an HTML page saved under a .pdf name (often a publisher's login page)"
        elif low.startswith(b"pk\x03\x04"):
            what = "a ZIP archive (maybe an Office document) with a .pdf name"
        else:
            what = "not a valid PDF: it does not start with %PDF-"
        return f"the file is {what}", "open it to see what it is, and download the real PDF"
    if b"%%EOF" not in tail:
        return (f"the PDF is truncated: it ends without the %%EOF marker, so part of it is "
                f"missing (only {size:,} bytes are here)",
                "download or copy it again")
    return None


def pdf_open_problem(path: Path, password: str | None) -> tuple[str, str] | None:
    """Why PDFium cannot open ``path`` (after Docling failed on it), if it can tell."""
    import pypdfium2 as pdfium

    try:
        with open_pdf(path, password):
            pass
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            if password:
                return ("the PDF is encrypted and the project's pdf_password does not open it",
                        "set the right pdf_password for the project, or save an unprotected "
                        "copy of the file")
            return ("the PDF is encrypted (password-protected)",
                    "set pdf_password for the project, or save an unprotected copy of the file")
        return (f"the PDF is damaged ({exc})",
                "open it in a PDF reader to check; download or copy it again")
    except Exception:  # noqa: BLE001 - diagnosis only; Docling's own error is reported
        return None
    return None
