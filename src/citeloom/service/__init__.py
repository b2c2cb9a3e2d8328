"""The service layer: the one place where the pipeline is put together.

    ingest:  source ─► units ─► executor (convert ─► chunk ─► embed) ─► index + catalog
    query:   text ─► embed ─► search (dense | sparse | hybrid RRF/DBSF) ─► citable hits

The CLI and the MCP server call only :class:`CiteLoom`. ``app.py`` holds the resources,
``pipeline.py`` the one ingest loop, ``executor.py`` where the heavy work runs,
``search.py`` the queries, ``library.py`` projects, inspection and citations.
"""

from citeloom.ingest.pipeline import ProgressFn
from citeloom.payload import Passage
from citeloom.report import FileResult, IngestReport
from citeloom.search.query import QueryResult
from citeloom.service.app import CiteLoom
from citeloom.sources import TextDoc

__all__ = ["CiteLoom", "FileResult", "IngestReport", "Passage", "ProgressFn", "QueryResult",
           "TextDoc"]
