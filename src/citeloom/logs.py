"""Logs as JSON lines, one object per record, on stderr or in a file: the MCP server's
stdout belongs to the protocol, and the daemon's log is read by tools as much as by people.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path


class JsonFormatter(logging.Formatter):
    FIELDS = ("cid", "code", "detail", "project", "mode", "hits", "ms", "job")

    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": round(record.created, 3), "level": record.levelname,
               "logger": record.name, "pid": record.process, "msg": record.getMessage()}
        out.update({k: getattr(record, k) for k in self.FIELDS if hasattr(record, k)})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup_logging(log_file: Path | None = None, level: str = "INFO") -> None:
    """JSON log lines to stderr (or a file): stdout belongs to the MCP protocol."""
    handler: logging.Handler = (logging.FileHandler(log_file) if log_file
                                else logging.StreamHandler(sys.stderr))
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("citeloom")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
