"""What Claude reads of CiteLoom (issue #18, item 8), through the real server spawned as
`citeloom serve` and a real MCP client (fastmcp.Client over stdio): every tool and every
parameter — nested filter fields included — has a description; the descriptions and the
server's instructions lead to query_hybrid; list_papers and cite answer from a project
built from a real Zotero database; cite with a library that cannot be read says so."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from citeloom.service import CiteLoom

from ..zotero.test_zotero_ingest import library  # noqa: F401 - the fixture: a real zotero.sqlite

pytestmark = pytest.mark.slow


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Parameters (and fields of nested models) without a description."""
    missing = [name for name, prop in schema.get("properties", {}).items()
               if not prop.get("description")]
    for model, body in schema.get("$defs", {}).items():
        missing += [f"{model}.{name}" for name, prop in body.get("properties", {}).items()
                    if not prop.get("description")]
    return missing


def serve(tmp_path: Path, models_dir: Path, **env: str) -> Client:
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{tmp_path / "data"}"\n'
                      f'models_dir = "{models_dir}"\n')
    full = {**os.environ, "CITELOOM_CONFIG": str(config), "CITELOOM_DAEMON": "off", **env}
    full.pop("CITELOOM_DATA_DIR", None)
    return Client(StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                 env=full, cwd=str(tmp_path)))


def test_every_tool_and_parameter_is_described_and_query_hybrid_is_preferred(
        make_settings, library: dict, tmp_path: Path, models_dir: Path) -> None:  # noqa: F811
    app = CiteLoom(make_settings())
    assert app.ingest_zotero("z", "Thesis", annotations=False).outcome == "ok"
    app.close()

    async def scenario() -> None:
        async with serve(tmp_path, models_dir, ZOTERO_DATA_DIR=str(library["dir"]),
                         BBT_PORT="9") as c:
            tools = {t.name: t for t in await c.list_tools()}
            assert {"list_papers", "cite", "query", "query_hybrid"} <= set(tools)
            for name, tool in tools.items():
                assert tool.description and len(tool.description) > 30, name
                assert not undescribed(tool.input_schema), (name, undescribed(tool.input_schema))
            # Which query tool to use is said where Claude looks: both descriptions and
            # the server's instructions.
            assert "Prefer query_hybrid" in tools["query"].description
            assert "to use" in tools["query_hybrid"].description
            instructions = c.instructions or ""
            assert "use query_hybrid" in instructions.replace("\n", " ")
            assert "PDFs" not in tools["ingest_from_source"].description
            assert "DOCX" in tools["ingest_from_source"].description

            papers = (await c.call_tool("list_papers", {"project": "z"})).data
            assert papers["total"] == 2 and papers["next_offset"] is None
            keys = [p["citekey"] for p in papers["papers"]]
            assert all(keys) and keys == sorted(keys, key=str.lower)
            assert all(p["title"] and p["authors"] and p["year"] and p["chunks"] > 0
                       for p in papers["papers"])
            first = (await c.call_tool("list_papers", {"project": "z", "limit": 1})).data
            assert len(first["papers"]) == 1 and first["next_offset"] == 1

            bib = (await c.call_tool("cite", {"citekeys": keys[:1]})).data
            assert bib["citation"].lstrip().startswith("@") and f"{{{keys[0]}," in bib["citation"]
            csl = (await c.call_tool("cite", {"citekeys": keys, "format": "csl-json"})).data
            assert {e["id"] for e in json.loads(csl["citation"])} == set(keys)
            bad = await c.call_tool("cite", {"citekeys": ["nosuchkey2099"]},
                                    raise_on_error=False)
            assert bad.is_error
            assert json.loads(bad.content[0].text)["code"] == "INVALID_INPUT"

        # The library moved away: cite says the library cannot be read (not "unknown
        # citekey"); with the project named, the stored metadata answers.
        async with serve(tmp_path, models_dir, ZOTERO_DATA_DIR=str(tmp_path / "gone"),
                         BBT_PORT="9") as c:
            bad = await c.call_tool("cite", {"citekeys": keys[:1]}, raise_on_error=False)
            err = json.loads(bad.content[0].text)
            assert err["code"] == "ZOTERO_UNAVAILABLE" and "zotero.sqlite" in err["message"]
            ok = (await c.call_tool("cite", {"citekeys": keys[:1], "project": "z"})).data
            assert f"{{{keys[0]}," in ok["citation"]

    asyncio.run(scenario())
