"""Sources of documents for the ingest pipeline: files and folders, a Zotero library and its
annotations and notes, plain texts (the retrieval evaluation), and a project's own catalog
(reindex). Each is one module with one :class:`~citeloom.sources.base.Source` subclass."""

from citeloom.sources.annotations import AnnotationSource
from citeloom.sources.base import ChainSource, Context, Source, Unit
from citeloom.sources.catalog import CatalogSource
from citeloom.sources.files import SUPPORTED_SUFFIXES, FileSource, expand_sources
from citeloom.sources.texts import IndexedTextSource, TextDoc, TextSource, is_text_document
from citeloom.sources.zotero import ZoteroSource

__all__ = ["SUPPORTED_SUFFIXES", "AnnotationSource", "CatalogSource", "ChainSource", "Context",
           "FileSource", "IndexedTextSource", "Source", "TextDoc", "TextSource", "Unit",
           "ZoteroSource", "expand_sources", "is_text_document"]
