"""Free space: what a write needs, checked before writing, and a way to read on a full disk.

An Edge shard writes through memory-mapped files. A page the OS cannot back with a disk
block is not an error Python sees: the process gets SIGBUS and dies (exit 135, no message;
issue #16). So CiteLoom checks free space *before* each write, against a measured estimate:

* ``BYTES_PER_CHUNK``: shard + catalog bytes on disk per chunk. Measured on a real project
  (the 12 text PDFs of the shared corpus, 99 pages, 405 chunks, ext4): 3.97 MB allocated =
  9.8 KB a chunk, of which ~1 MB is the fixed cost of an empty generation and ~4 KB a chunk
  the write-ahead log's copy. ``benchmarks/bench_faults.py`` measures it again.
* ``CACHE_BYTES_PER_PAGE``: a gzipped conversion, 2.5 KB a page on the same corpus;
  ``CHUNKS_PER_PAGE`` (4.1 there) turns pages into chunks before a document is converted.
* ``WRITE_MARGIN``: kept free on top, for what Edge allocates in steps (a new segment, the
  next 32 MB write-ahead-log file, an optimize that rewrites segments) and for the rest of
  the system.

Reads need no free space on the data dir's filesystem: loading a shard applies its
journals in place (a few KB), so when less than ``READ_MARGIN`` is free the shard is opened
from a sparse copy on another filesystem (the temp dir), read-only (``scratch_copy``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from citeloom.errors import DiskFull

MB = 1024 * 1024
BYTES_PER_CHUNK = 10 * 1024  # measured: 9.8 KB (see above)
CACHE_BYTES_PER_PAGE = 4 * 1024  # measured: 2.5 KB; scanned pages run larger
CHUNKS_PER_PAGE = 6  # measured: 4.1
WRITE_MARGIN = 64 * MB
READ_MARGIN = 32 * MB


def human(n: float) -> str:
    """Bytes for people: "12.3 MB"."""
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"  # pragma: no cover


def existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (a data dir not made yet)."""
    path = Path(path)
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on ``path``'s filesystem."""
    st = os.statvfs(existing(path))
    return st.f_bavail * st.f_frsize


def allocated_bytes(path: Path) -> int:
    """Disk blocks used by a file or a folder tree (sparse files count what they hold)."""
    path = Path(path)
    if path.is_file():
        return path.stat().st_blocks * 512
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def document_need(pages: int = 0, chunks: int = 0, cached: bool = False) -> int:
    """Bytes one document adds: its chunks (counted, or estimated from its pages) and, if
    it is converted now, its cache entry."""
    chunks = chunks or pages * CHUNKS_PER_PAGE
    return chunks * BYTES_PER_CHUNK + (0 if cached else pages * CACHE_BYTES_PER_PAGE)


def require(path: Path, need: int, what: str, margin: int = WRITE_MARGIN) -> None:
    """Raise DISK_FULL unless ``path``'s filesystem has ``need`` + ``margin`` bytes free."""
    free = free_bytes(path)
    if free < need + margin:
        raise DiskFull(
            f"{existing(path)}: {human(free)} free, {what} needs {human(need + margin)} "
            f"({human(need)} to write + {human(margin)} kept free)")


def pdf_pages(path: Path) -> int:
    """Pages of a PDF without converting it (an estimate for other files, and for a PDF
    PDFium cannot open: 1 per 100 KB)."""
    if path.suffix.lower() == ".pdf" and (pages := counted_pages(path)):
        return pages
    try:
        return max(1, path.stat().st_size // (100 * 1024))
    except OSError:
        return 1


def counted_pages(path: Path, password: str | None = None) -> int:
    """The number of pages PDFium finds in ``path`` (opened with ``password`` if it is
    encrypted); 0 when it cannot open the file (the conversion then says why)."""
    try:
        with open_pdf(path, password) as pdf:
            return len(pdf)
    except Exception:  # noqa: BLE001 - damaged, locked or no PDFium: not this one's to tell
        return 0


@contextlib.contextmanager
def open_pdf(path: Path, password: str | None = None) -> Any:
    """PDFium's document for ``path``, held under Docling's ``pypdfium2_lock`` for the
    block and closed after it. PDFium is not thread-safe: a second thread of the process
    (Docling's parse, a daemon's other job) must not be inside it at the same time. Not
    reentrant: nothing inside the block may open another PDF this way."""
    import pypdfium2 as pdfium
    from docling.utils.locks import pypdfium2_lock

    with pypdfium2_lock:
        pdf = pdfium.PdfDocument(str(path), password=password)
        try:
            yield pdf
        finally:
            pdf.close()


def pdf_info(path: Path | None, password: str | None = None) -> dict[str, str]:
    """A PDF's document-info dictionary (Title, Author, Subject, Keywords, CreationDate…),
    each value stripped; empty for another file type or a PDF PDFium cannot open (the
    conversion says why)."""
    if path is None or path.suffix.lower() != ".pdf" or not path.is_file():
        return {}
    try:
        with open_pdf(path, password) as pdf:
            return {k: (v or "").strip() for k, v in pdf.get_metadata_dict().items()
                    if v is None or isinstance(v, str)}
    except Exception:  # noqa: BLE001 - metadata is a nicety
        return {}


# -- reading on a full disk -------------------------------------------------------------------
def apparent_bytes(path: Path) -> int:
    """The sizes of the files under ``path``, holes included."""
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def in_ram(path: Path) -> bool:
    """Whether ``path`` is on tmpfs/ramfs, where even *reading* a hole of a shared mapping
    takes a page (so a shard there needs its holes' worth of space to be read)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    real, best, kind = os.path.realpath(existing(path)), "", ""
    for line in mounts:
        parts = line.split()
        if len(parts) < 3:
            continue
        point = parts[1].replace("\\040", " ")
        if (real == point or real.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, parts[2]
    return kind in ("tmpfs", "ramfs")


def read_need(folder: Path) -> int:
    """Free bytes that opening the index in ``folder`` in place may take."""
    if in_ram(folder):
        return apparent_bytes(folder) - allocated_bytes(folder) + READ_MARGIN
    return READ_MARGIN


def scratch_copy(src: Path, prefix: str) -> Path:
    """A sparse copy of folder ``src`` in a new temp folder on a filesystem with room for it
    (``src``'s own, being full, has none), for reading when ``src``'s filesystem is full.
    ``CITELOOM_SCRATCH_DIR`` is tried first. The caller removes it (``shutil.rmtree``)."""
    held, whole = allocated_bytes(src), apparent_bytes(src)
    candidates = [Path(tempfile.gettempdir()), Path.home() / ".cache", Path("/dev/shm")]
    if os.environ.get("CITELOOM_SCRATCH_DIR"):
        candidates.insert(0, Path(os.environ["CITELOOM_SCRATCH_DIR"]))
    for base in candidates:
        try:
            if not base.is_dir():
                continue
            need = (whole if in_ram(base) else held) + READ_MARGIN
            if free_bytes(base) < need:
                continue
            dst = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
        except OSError:
            continue
        try:
            copy_sparse_tree(src, dst / src.name)
        except OSError:
            shutil.rmtree(dst, ignore_errors=True)
            continue
        return dst / src.name
    raise DiskFull(f"{existing(src)}: the filesystem is full, and no other filesystem has "
                   f"{human(held + READ_MARGIN)} free to read the index from a copy",
                   f"free at least {human(READ_MARGIN)} on that filesystem")


def copy_sparse_tree(src: Path, dst: Path) -> None:
    """Copy a folder, keeping files sparse: only the data extents are read and written (the
    shard's files are mostly holes; a plain copy would fill them with zeros)."""
    for root, dirs, files in os.walk(src):
        rel = Path(root).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            _copy_sparse(Path(root) / name, dst / rel / name)
        dirs.sort()


def _copy_sparse(src: Path, dst: Path) -> None:
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        size = os.fstat(fin.fileno()).st_size
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fin.fileno(), offset, os.SEEK_DATA)
            except OSError:  # no data after offset (ENXIO)
                break
            end = os.lseek(fin.fileno(), start, os.SEEK_HOLE)
            fin.seek(start)
            fout.seek(start)
            remaining = end - start
            while remaining > 0:
                block = fin.read(min(remaining, 4 * MB))
                if not block:
                    break
                fout.write(block)
                remaining -= len(block)
            offset = end
        fout.truncate(size)


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- memory of processes ------------------------------------------------------------------------
def _status_mb(pid: int | str, field: str) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory now (``VmRSS``), in MB; 0 where /proc cannot say."""
    return _status_mb(pid, "VmRSS:")


def peak_rss_mb(pid: int | str = "self") -> float:
    """A process's peak resident memory (``VmHWM``), in MB; 0 where /proc cannot say."""
    return _status_mb(pid, "VmHWM:")


def reset_peak_rss() -> None:
    """Start this process's ``VmHWM`` again from what it holds now (Linux ``clear_refs``), so
    the next :func:`peak_rss_mb` is the peak of what follows: a worker's peak per document
    and per step. Without it (another system, an old kernel) the peak stays the lifetime's,
    which is an upper bound."""
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w",
                                            encoding="ascii") as f:
        f.write("5")


def process_tree(pid: int | str = "self") -> list[str]:
    """A process and all its descendants (pids, the process first)."""
    out, todo = [], [str(os.getpid() if pid == "self" else pid)]
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(f.read().split())
        except OSError:
            pass
    return out


def tree_rss_mb(pid: int | str = "self") -> float:
    """The resident memory now of a process and all its descendants, in MB."""
    return sum(rss_mb(p) for p in process_tree(pid))


def worn(pid: int, documents: int, max_documents: int, max_rss_mb: float) -> bool:
    """Whether a worker process that has done ``documents`` should be let go: it has done
    its share, or holds more memory than the limit (``[defaults] worker_max_*``)."""
    return documents >= max_documents or rss_mb(pid) > max_rss_mb


#: A document of this many pages or more is converted by a worker that has converted nothing
#: yet: a 194-page manual peaks at 0.9 GB in a fresh worker, while the largest process of a
#: 300-PDF run, whose grown workers took such documents, held 1.9 GB (docs/DECISIONS.md
#: "Bounded memory, part two").
LONG_DOCUMENT_PAGES = 100


def long_document(path: Path | None, password: str | None = None) -> bool:
    """Whether a file is a PDF of :data:`LONG_DOCUMENT_PAGES` pages or more, as counted
    (an encrypted one opened with the project's ``password``). One that cannot be counted
    is not called long: its size says little, and a fresh worker would cost for nothing."""
    if path is None or path.suffix.lower() != ".pdf":
        return False
    return counted_pages(path, password) >= LONG_DOCUMENT_PAGES


def trim_heap() -> None:
    """Give the heap's free pages back to the system (glibc ``malloc_trim``): what a long
    document or an index optimize allocated and freed stays resident otherwise. A no-op
    where there is no glibc."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            import ctypes

            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None


# glibc gives each thread that allocates its own heap ("arena", up to 8 per core); Docling's
# and ONNX Runtime's threads each leave theirs fragmented after a long document. Two arenas:
# a conversion worker over 40 TeX Live PDFs peaked at 1,010 MB instead of 1,495 MB, at the
# same speed or better (docs/DECISIONS.md "Two malloc arenas a worker").
WORKER_ARENAS = "2"


def worker_context() -> Any:
    """The multiprocessing context a worker process is started from: spawn (never fork: the
    parent holds threads and open shards), with two malloc arenas in the environment the
    worker inherits, unless the user has set ``MALLOC_ARENA_MAX`` already."""
    import multiprocessing as mp

    os.environ.setdefault("MALLOC_ARENA_MAX", WORKER_ARENAS)
    return mp.get_context("spawn")
