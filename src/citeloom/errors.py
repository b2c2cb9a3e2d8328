"""Errors CiteLoom raises, each with a stable code and a next step for the user.

    CiteLoomError                  code            what it means
    ├── ConfigError                CONFIG_INVALID  citeloom.toml / environment cannot be used
    ├── ModelsMissing              MODELS_MISSING  provisioned models are absent or corrupt
    ├── InvalidProject             INVALID_PROJECT unknown project name
    ├── InvalidInput               INVALID_INPUT   a parameter is out of range or empty
    ├── SourceNotFound             SOURCE_NOT_FOUND a path to ingest does not exist
    ├── UnsupportedType            UNSUPPORTED_TYPE a file type Docling cannot read
    ├── ConversionFailed           CONVERSION_FAILED one document could not be converted
    ├── EmbeddingMismatch          EMBEDDING_MISMATCH index was built with other models/settings
    ├── IndexUnavailable           INDEX_UNAVAILABLE the index cannot be opened
    ├── ZoteroUnavailable          ZOTERO_UNAVAILABLE Zotero / Better BibTeX cannot be read
    ├── PathNotAllowed             PATH_NOT_ALLOWED an MCP call named a path outside the roots
    ├── Timeout                    TIMEOUT         a query or conversion ran out of time
    ├── HybridNotSupported         HYBRID_NOT_SUPPORTED the index has no sparse vectors
    ├── SnapshotInvalid            SNAPSHOT_INVALID a snapshot archive is damaged or incomplete
    ├── IndexDamaged               INDEX_DAMAGED   a file of the index is unreadable
    ├── CatalogDamaged             CATALOG_DAMAGED the project's catalog.sqlite is unreadable
    ├── CacheDamaged               CACHE_DAMAGED   a cached conversion is unreadable (a warning)
    ├── DiskFull                   DISK_FULL       not enough free space to write
    ├── DaemonSettingsDiffer       DAEMON_SETTINGS_DIFFER the running daemon serves other settings
    └── InternalError              INTERNAL_ERROR  a bug: anything else that went wrong

    ConfigError    └── OcrUnavailable      Tesseract or an OCR language is not installed
    ConversionFailed └── UnreadableInput   the file is visibly unusable (empty, not a PDF…)

Every class carries a default ``hint`` (what to do next) that a raise may make more precise.
:data:`CODES` maps every code a user can see to its default hint. The CLI prints
``code: message (hint)`` and exits non-zero; the MCP server turns the same fields into a tool
error; an ingest report stores ``to_dict()`` per file. Nothing else in the code base invents
its own error format: an unexpected exception is wrapped with :func:`as_error`.
"""

from __future__ import annotations

from collections.abc import Iterable


class CiteLoomError(Exception):
    """Base class: every error carries a code and a hint saying what to do next."""

    code = "CITELOOM_ERROR"
    hint = ""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint or type(self).hint

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" — {self.hint}" if self.hint else "")

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "hint": self.hint}


class ConfigError(CiteLoomError):
    """The configuration file or environment cannot be used."""

    code = "CONFIG_INVALID"
    hint = ("see citeloom.toml in the repository for a documented example; "
            "`citeloom validate` checks it")


class ModelsMissing(CiteLoomError):
    """A provisioned model file is absent or does not match its checksum."""

    code = "MODELS_MISSING"
    hint = 'run `citeloom models provision` (scripts/setup.sh does)'


class InvalidProject(CiteLoomError):
    """The project named does not exist."""

    code = "INVALID_PROJECT"
    hint = 'list projects with `citeloom projects`, or ingest into a new one'


class InvalidInput(CiteLoomError):
    """A parameter is empty or out of range."""

    code = "INVALID_INPUT"
    hint = "check the value against the command's --help or the tool's schema"


class SourceNotFound(CiteLoomError):
    """A path given to ingest does not exist."""

    code = "SOURCE_NOT_FOUND"
    hint = 'check the path'


class UnsupportedType(CiteLoomError):
    """The file type is not one Docling can convert."""

    code = "UNSUPPORTED_TYPE"
    hint = 'convert the file to PDF, or leave it out'


class ConversionFailed(CiteLoomError):
    """One document could not be converted (broken, encrypted, timed out)."""

    code = "CONVERSION_FAILED"
    hint = 'the file may be damaged; open it in a PDF reader to check'


class EmbeddingMismatch(CiteLoomError):
    """The index was built with other models or chunk settings than the ones asked for."""

    code = "EMBEDDING_MISMATCH"
    hint = 'run `citeloom reindex --project NAME` to migrate the project'


class IndexUnavailable(CiteLoomError):
    """The index cannot be opened (locked by another process, corrupt, unreachable)."""

    code = "INDEX_UNAVAILABLE"
    hint = 'another CiteLoom process may hold the index; retry in a minute'


class ZoteroUnavailable(CiteLoomError):
    """Zotero (Web API, local API, database) or Better BibTeX cannot be read."""

    code = "ZOTERO_UNAVAILABLE"
    hint = 'start Zotero, or check the ZOTERO_* settings (`citeloom validate`)'


class PathNotAllowed(CiteLoomError):
    """A path outside the allowed roots was named through the MCP server."""

    code = "PATH_NOT_ALLOWED"
    hint = "add the folder to [mcp] allowed_roots or to the project's sources"


class Timeout(CiteLoomError):
    """A query or a conversion ran out of its time budget."""

    code = "TIMEOUT"
    hint = 'retry with a smaller top_k, or later'


class HybridNotSupported(CiteLoomError):
    """Hybrid search was asked of an index without sparse vectors."""

    code = "HYBRID_NOT_SUPPORTED"
    hint = 'use dense search, or reindex the project with sparse_model = "Qdrant/bm25"'


class SnapshotInvalid(CiteLoomError):
    """A snapshot archive fails its checks (a checksum, a missing or extra file, a cut-off
    end, a manifest that does not parse); nothing of it was restored."""

    code = "SNAPSHOT_INVALID"
    hint = ("the archive is damaged or incomplete (cut short, or changed in transit): copy "
            "it again or take a new snapshot with `citeloom snapshot`; nothing was restored")


REPAIR_HINT = "run `citeloom repair -p {project}`: it rebuilds what it can and says what it did"


def repair_hint(project: str | None) -> str:
    """The next step for a damaged file of ``project``."""
    return REPAIR_HINT.format(project=project or "NAME")


class IndexDamaged(CiteLoomError):
    """A file of a project's index (CURRENT, model lock, shard) cannot be read as written."""

    code = "INDEX_DAMAGED"
    hint = repair_hint(None)


class CatalogDamaged(CiteLoomError):
    """A project's catalog (catalog.sqlite) is not a readable SQLite database."""

    code = "CATALOG_DAMAGED"
    hint = repair_hint(None) + " (the catalog is rebuilt from the index)"


class CacheDamaged(CiteLoomError):
    """A conversion-cache entry does not decompress. Never fatal: the file is converted
    again (ingest, reindex), so it is reported as a warning with this code."""

    code = "CACHE_DAMAGED"
    hint = ("nothing is lost (the file was converted again); `citeloom repair -p NAME` "
            "drops any other damaged entries")


class DiskFull(CiteLoomError):
    """The data dir's filesystem has less free space than a write needs. Checked before
    writing (an index write that runs out of space mid-way cannot be caught: it is a
    memory-mapped write the OS answers with SIGBUS) and reported when a write hits ENOSPC."""

    code = "DISK_FULL"
    hint = ("free space on that filesystem (or move the data dir: CITELOOM_DATA_DIR), then "
            "re-run the same command: what was indexed is kept and skipped")


class DaemonSettingsDiffer(CiteLoomError):
    """A command's settings differ from those the running daemon serves with
    (``daemon/agree.py``): the message names each setting, both values and the files."""

    code = "DAEMON_SETTINGS_DIFFER"
    hint = ("run `citeloom daemon stop` (the next command starts a daemon with your "
            "settings), or run this command with the daemon's configuration")


class InternalError(CiteLoomError):
    """Something CiteLoom did not expect: a bug. The message names the exception."""

    code = "INTERNAL_ERROR"
    hint = "see the log (CITELOOM_LOG_FILE or stderr); re-running is safe"


class OcrUnavailable(ConfigError):
    """Tesseract or one of the configured OCR languages is not installed."""

    hint = "install tesseract-ocr (scripts/setup.sh does), or set ocr = false for the project"


class UnreadableInput(ConversionFailed):
    """The file cannot be converted as it is: ``reason`` says why, ``hint`` what to do."""

    def __init__(self, path: object, reason: str, hint: str = "") -> None:
        from pathlib import Path

        self.path, self.reason = Path(str(path)), reason
        super().__init__(f"{self.path.name}: {reason}", hint)


def _declared(cls: type[CiteLoomError]) -> dict[str, str]:
    out = {cls.code: cls.hint} if cls is not CiteLoomError else {}
    for sub in cls.__subclasses__():
        for code, hint in _declared(sub).items():
            out.setdefault(code, hint)
    return out


#: Every error code a user can see, with its default hint.
CODES: dict[str, str] = _declared(CiteLoomError)


def did_you_mean(word: str, choices: Iterable[object]) -> str | None:
    """The choice closest to ``word`` (a typo of it), or None."""
    import difflib

    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1, cutoff=0.6)
    return close[0] if close else None


def from_dict(data: dict[str, str]) -> CiteLoomError:
    """The error another process reported (``to_dict()``), as the class of its code."""
    def classes(cls: type[CiteLoomError]) -> list[type[CiteLoomError]]:
        return [cls, *(c for sub in cls.__subclasses__() for c in classes(sub))]

    code = data.get("code", "")
    cls = next((c for c in classes(CiteLoomError) if c.code == code
                and c not in (OcrUnavailable, UnreadableInput)), InternalError)
    return cls(data.get("message", code), data.get("hint", ""))


def out_of_space(exc: BaseException) -> bool:
    """Whether ``exc`` says a write found no space left: ENOSPC (or EDQUOT, a quota) from
    Python, SQLite's SQLITE_FULL, or the same words from the index's Rust side."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
        return True
    return "No space left on device" in str(exc)


def as_error(exc: BaseException, where: object = None) -> CiteLoomError:
    """``exc`` as a CiteLoom error: itself if it is one, :class:`DiskFull` for a write that
    found no space (``where``: the path written), else an :class:`InternalError`."""
    if isinstance(exc, CiteLoomError):
        return exc
    if out_of_space(exc):
        path = where or getattr(exc, "filename", None) or "the data dir"
        return DiskFull(f"no space left on the filesystem of {path} ({exc})")
    return InternalError(f"{type(exc).__name__}: {exc}")
