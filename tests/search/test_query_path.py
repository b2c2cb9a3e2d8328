"""The query path (CLI query, MCP server) never imports Docling: starting and answering
must stay fast, and a broken conversion stack must not take search down."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.service import CiteLoom

from ..conftest import CORPUS, shared_settings

CHILD = """
import json, sys
from pathlib import Path
import citeloom.mcp.server  # the server module, as `citeloom serve` loads it
from citeloom.config import Settings
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest
app = CiteLoom(Settings(data_dir=Path(sys.argv[1]), models_dir=Path(sys.argv[2])))
for mode in ("hybrid", "dense", "sparse"):
    hits = app.query(QueryRequest("q", "table structure recognition", mode=mode, top_k=3)).hits
    assert hits, mode
app.inspect("q"); app.list_projects()
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


@pytest.mark.slow
def test_query_path_does_not_import_docling(models_dir: Path, tmp_path: Path) -> None:
    app = CiteLoom(shared_settings(data_dir=tmp_path, models_dir=models_dir))
    assert app.ingest([CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"], "q").outcome == "ok"
    app.close()
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), str(models_dir)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "fastembed" in loaded and "qdrant_edge" in loaded  # it did search
    assert "docling" not in loaded and "torch" not in loaded
