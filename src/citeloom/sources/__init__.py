"""Sources of documents for the ingest pipeline: files and folders, a Zotero library, plain
texts (the retrieval evaluation), and a project's own catalog (reindex). Each is one module
with one :class:`~citeloom.sources.base.Source` subclass."""

from .base import Context, Source, Unit
from .catalog import CatalogSource
from .files import SUPPORTED_SUFFIXES, FileSource, expand_sources
from .texts import TextDoc, TextSource
from .zotero import ZoteroSource

__all__ = ["SUPPORTED_SUFFIXES", "CatalogSource", "Context", "FileSource", "Source",
           "TextDoc", "TextSource", "Unit", "ZoteroSource", "expand_sources"]
