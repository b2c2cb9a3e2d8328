"""The README's Claude Desktop section, followed as written with a real MCP client in place
of Claude: the config block's command, args and env start the server, which lists the five
tools and answers a query."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from citeloom.service import CiteLoom

from .conftest import FIXTURE_PDFS, ROOT, shared_settings

pytestmark = pytest.mark.slow

FIVE = {"ingest_from_source", "query", "query_hybrid", "inspect", "list_projects"}


def readme_config() -> dict:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Claude Desktop", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block, "the Claude Desktop section has no JSON config block"
    return json.loads(block.group(1))["mcpServers"]["citeloom"]


def test_readme_claude_desktop_config_works(models_dir: Path, tmp_path: Path) -> None:
    server = readme_config()
    # "with the absolute path of your clone in place of /path/to/citeloom"
    fill = lambda s: s.replace("/path/to/citeloom", str(ROOT))  # noqa: E731
    command = fill(server["command"])
    assert Path(command).exists(), f"{command} missing: run make setup"
    # The repository's own citeloom.toml, with data kept in this test's folder.
    data = tmp_path / "data"
    app = CiteLoom(shared_settings(data_dir=data, models_dir=models_dir))
    papers = tmp_path / "papers"
    papers.mkdir()
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", papers)
    assert app.ingest([papers], "demo").outcome == "ok"
    app.close()
    env = {**os.environ, **{k: fill(v) for k, v in server.get("env", {}).items()},
           "CITELOOM_DATA_DIR": str(data), "CITELOOM_MODELS_DIR": str(models_dir)}
    assert Path(env["CITELOOM_CONFIG"]).is_file()

    async def scenario() -> None:
        transport = StdioTransport(command=command, args=[fill(a) for a in server["args"]],
                                   env=env, cwd=str(tmp_path))
        async with Client(transport) as c:
            tools = {t.name for t in await c.list_tools()}
            assert tools >= FIVE
            answer = (await c.call_tool("query_hybrid", {
                "project": "demo", "text": "retrievable vena cava filter migration"})).data
            assert answer["hits"] and answer["hits"][0]["page_start"] >= 1

    asyncio.run(scenario())
