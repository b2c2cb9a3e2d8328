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
    └── HybridNotSupported         HYBRID_NOT_SUPPORTED the index has no sparse vectors

The CLI prints ``code: message (hint)`` and exits non-zero; the MCP server turns the same
fields into a tool error. Nothing else in the code base invents its own error format.
"""

from __future__ import annotations


class CiteLoomError(Exception):
    """Base class: every error carries a code and a hint saying what to do next."""

    code = "CITELOOM_ERROR"

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" + (f" — {self.hint}" if self.hint else "")

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "hint": self.hint}


class ConfigError(CiteLoomError):
    """The configuration file or environment cannot be used."""

    code = "CONFIG_INVALID"


class ModelsMissing(CiteLoomError):
    """A provisioned model file is absent or does not match its checksum."""

    code = "MODELS_MISSING"


class InvalidProject(CiteLoomError):
    """The project named does not exist."""

    code = "INVALID_PROJECT"


class InvalidInput(CiteLoomError):
    """A parameter is empty or out of range."""

    code = "INVALID_INPUT"


class SourceNotFound(CiteLoomError):
    """A path given to ingest does not exist."""

    code = "SOURCE_NOT_FOUND"


class UnsupportedType(CiteLoomError):
    """The file type is not one Docling can convert."""

    code = "UNSUPPORTED_TYPE"


class ConversionFailed(CiteLoomError):
    """One document could not be converted (broken, encrypted, timed out)."""

    code = "CONVERSION_FAILED"


class EmbeddingMismatch(CiteLoomError):
    """The index was built with other models or chunk settings than the ones asked for."""

    code = "EMBEDDING_MISMATCH"


class IndexUnavailable(CiteLoomError):
    """The index cannot be opened (locked by another process, corrupt, unreachable)."""

    code = "INDEX_UNAVAILABLE"


class ZoteroUnavailable(CiteLoomError):
    """Zotero (Web API, local API, database) or Better BibTeX cannot be read."""

    code = "ZOTERO_UNAVAILABLE"


class PathNotAllowed(CiteLoomError):
    """A path outside the allowed roots was named through the MCP server."""

    code = "PATH_NOT_ALLOWED"


class Timeout(CiteLoomError):
    """A query or a conversion ran out of its time budget."""

    code = "TIMEOUT"


class HybridNotSupported(CiteLoomError):
    """Hybrid search was asked of an index without sparse vectors."""

    code = "HYBRID_NOT_SUPPORTED"
