"""The surfaces' outputs, recorded: a fixed set of CLI commands and MCP tool calls over a
fixed project, each compared byte for byte with what it printed or answered when the set was
recorded (tests/golden/). A refactoring that changes what a researcher sees fails here.

Only what differs between two runs of the same code is masked: the temporary folder, times,
process ids, correlation ids and scores (ONNX on another CPU may differ in the 4th decimal;
the order of the hits is still compared). Record again on purpose with
``CITELOOM_GOLDEN_RECORD=1 pytest tests/test_golden.py`` and read the diff."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from .clirun import run_cli
from .conftest import FIXTURE_PDFS

pytestmark = pytest.mark.slow

GOLDEN = Path(__file__).resolve().parent / "golden"
RECORD = os.environ.get("CITELOOM_GOLDEN_RECORD") == "1"
QUESTION = "How often do retrievable vena cava filters migrate?"

DRAFT = r"""Retrievable vena cava filters rarely migrate \cite{datta2010complications}.
Table structure is recognised with a transformer \citep[p.~9]{nosuchkey2020}.
"""

CLI_COMMANDS: list[tuple[str, list[str]]] = [
    ("query", ["query", QUESTION, "-p", "g"]),
    ("query_json", ["query", QUESTION, "-p", "g", "--json"]),
    ("query_full", ["query", "table structure recognition", "-p", "g", "-k", "2", "--full"]),
    ("query_sparse", ["query", "heparin", "-p", "g", "--mode", "sparse", "-k", "3"]),
    ("query_dense_perdoc", ["query", "deep venous thrombosis", "-p", "g", "--mode", "dense",
                            "--per-doc", "--json"]),
    ("query_filtered", ["query", "heparin", "-p", "g", "--year-from", "2030", "--json"]),
    ("query_two_projects", ["query", "filters", "-p", "g", "-p", "t", "-k", "3"]),
    ("query_unknown_project", ["query", "x", "-p", "nope"]),
    ("query_unknown_project_json", ["query", "x", "-p", "nope", "--json"]),
    ("papers", ["papers", "-p", "g"]),
    ("papers_json", ["papers", "-p", "g", "--json"]),
    ("health", ["health", "-p", "g"]),
    ("health_json", ["health", "-p", "g", "--json"]),
    ("projects_json", ["projects", "--json"]),
    ("check", ["check", "DRAFT", "-p", "g"]),
    ("check_json", ["check", "DRAFT", "-p", "g", "--json"]),
    ("cite_unknown", ["cite", "nosuchkey2020", "-p", "g"]),
    ("similar", ["query", "--similar-to", "CHUNK", "-p", "g", "-k", "3"]),
    ("similar_json", ["query", "--similar-to", "CHUNK", "-p", "g", "-k", "2", "--json"]),
    ("similar_two_projects", ["query", "--similar-to", "CHUNK", "-p", "g", "-p", "t", "-k", "3",
                              "--json"]),
    ("similar_unknown_chunk", ["query", "--similar-to", "nosuchchunk", "-p", "g"]),
]

MCP_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("list_projects", "list_projects", {}),
    ("query_hybrid", "query_hybrid", {"project": "g", "top_k": 3, "text": QUESTION}),
    ("query", "query", {"project": "g", "text": "heparin", "top_k": 2}),
    ("query_filtered", "query_hybrid", {"project": "g", "text": "heparin",
                                        "filters": {"year_from": 2030}}),
    ("query_projects", "query_hybrid", {"projects": ["g", "t"], "text": "filters",
                                        "top_k": 3}),
    ("list_papers", "list_papers", {"project": "g"}),
    ("library_health", "library_health", {"project": "g"}),
    ("check_citations", "check_citations", {"projects": ["g"], "text": DRAFT}),
    ("check_citations_path", "check_citations", {"projects": ["g"], "path": "DRAFT"}),
    ("unknown_project", "query_hybrid", {"project": "nope", "text": "x"}),
    ("bad_top_k", "query_hybrid", {"project": "g", "text": "x", "top_k": 0}),
    ("find_similar", "find_similar", {"project": "g", "chunk_ids": ["CHUNK"], "top_k": 2}),
    ("find_similar_projects", "find_similar", {"projects": ["g", "t"], "chunk_ids": ["CHUNK"],
                                               "top_k": 3}),
]


def _masker(root: Path, models: Path):  # type: ignore[no-untyped-def]
    subs = [
        (re.escape(str(models)), "<MODELS>"),
        (re.escape(str(root)), "<ROOT>"),
        (r'("?(?:score|scores|best|rerank_score|dense|sparse|fused)"?[:=]?\s*)-?\d+\.\d+',
         r"\1<S>"),
        (r"\bscore -?\d+\.\d+", "score <S>"),
        (r'("timings_ms":\s*)\{[^{}]*\}', r"\1{}"),
        (r'("(?:correlation_id|cid|elapsed_s|seconds|took_s|s_per_claim|tokens)":\s*)"?[^,"}\]]+"?',
         r"\1<V>"),
        (r"\b\d+(?:\.\d+)? ?(?:ms|s)\b", "<T>"),
        (r"\bprocess \d+", "process <PID>"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?", "<WHEN>"),
    ]

    def mask(text: str) -> str:
        for pattern, repl in subs:
            text = re.sub(pattern, repl, text)
        return text

    return mask


@pytest.fixture(scope="module")
def world(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("golden")
    papers, notes = root / "papers", root / "notes"
    papers.mkdir()
    notes.mkdir()
    for pdf in sorted(FIXTURE_PDFS.glob("*.pdf")):
        shutil.copy(pdf, papers)
    (notes / "filters.md").write_text(
        "# Filters in practice\n\nRetrievable filters were left in place for months; "
        "none of them migrated.\n\n## Removal\n\nRemoval succeeded in nine of ten cases.\n")
    (root / "DRAFT").write_text(DRAFT)
    config = root / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{root / "data"}"\nmodels_dir = "{models_dir}"\n'
                      f'[mcp]\nallowed_roots = ["{root}"]\n'
                      f'[projects.g]\nsources = ["{papers}"]\n'
                      f'[projects.t]\nsources = ["{notes}"]\n')
    env = {**os.environ, "CITELOOM_CONFIG": str(config), "CITELOOM_DAEMON": "off",
           "COLUMNS": "100", "PYTHONUNBUFFERED": "1"}
    for key in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR"):
        env.pop(key, None)
    world = {"root": root, "env": env, "mask": _masker(root, models_dir)}
    for project in ("g", "t"):
        done = _cli(world, ["ingest", "-p", project])
        assert done.returncode == 0, done.stderr
    done = _cli(world, ["query", QUESTION, "-p", "g", "-k", "1", "--json"])
    world["chunk"] = json.loads(done.stdout)["hits"][0]["chunk_id"]  # the same in every run
    return world


def _cli(world: dict[str, Any], args: list[str]) -> subprocess.CompletedProcess[str]:
    named = {"DRAFT": str(world["root"] / "DRAFT"), "CHUNK": world.get("chunk", "CHUNK")}
    args = [named.get(a, a) for a in args]
    return run_cli(args, world["env"], world["root"])


def _compare(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if RECORD:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no recorded output {path.name}: record with CITELOOM_GOLDEN_RECORD=1"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from {path}"


@pytest.mark.parametrize("name,args", CLI_COMMANDS, ids=[n for n, _ in CLI_COMMANDS])
def test_cli_output_is_as_recorded(world: dict[str, Any], name: str, args: list[str]) -> None:
    done = _cli(world, args)
    mask = world["mask"]
    _compare(f"cli_{name}", f"exit {done.returncode}\n--- stdout\n{mask(done.stdout)}"
                            f"--- stderr\n{mask(done.stderr)}")


def test_mcp_answers_are_as_recorded(world: dict[str, Any]) -> None:
    answers: dict[str, str] = {}

    async def scenario() -> None:
        transport = StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                   env=world["env"], cwd=str(world["root"]))
        async with Client(transport) as c:
            tools = sorted((t.name, json.dumps(t.input_schema, sort_keys=True))
                           for t in await c.list_tools())
            answers["tools"] = "\n".join(f"{n} {s}" for n, s in tools) + "\n"
            for name, tool, args in MCP_CALLS:
                if args.get("path") == "DRAFT":
                    args = {**args, "path": str(world["root"] / "DRAFT")}
                if args.get("chunk_ids") == ["CHUNK"]:
                    args = {**args, "chunk_ids": [world["chunk"]]}
                result = await c.call_tool(tool, args, raise_on_error=False)
                body = "\n".join(getattr(part, "text", "") for part in result.content)
                with contextlib.suppress(ValueError):
                    body = json.dumps(json.loads(body), indent=1, sort_keys=True)
                answers[name] = f"error {result.is_error}\n{body}\n"

    asyncio.run(scenario())
    mask = world["mask"]
    for name, text in answers.items():
        _compare(f"mcp_{name}", mask(text))
