"""A typo must not make a project (issue #18, item 4): `-p dmeo` suggests `demo`, a failed
first ingest leaves no project, and `citeloom remove` takes a document or a whole project —
through the real CLI in a subprocess, on a real Edge shard."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..clirun import run_cli
from ..conftest import FIXTURE_PDFS

pytestmark = pytest.mark.slow

PDF = "docling__2305.03393v1-pg9.pdf"  # one page: converts in seconds


class Cli:
    def __init__(self, root: Path, models: Path, daemon: str = "off") -> None:
        self.root, self.data = root, root / "data"
        self.env = {**os.environ, "CITELOOM_DATA_DIR": str(self.data),
                    "CITELOOM_MODELS_DIR": str(models), "CITELOOM_CONFIG": "",
                    "CITELOOM_DAEMON": daemon, "COLUMNS": "300"}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        if self.env["CITELOOM_DAEMON"] != "off":  # the daemon's client: a process of its own
            return subprocess.run([sys.executable, "-m", "citeloom.cli", *args], env=self.env,
                                  cwd=self.root, capture_output=True, text=True, timeout=600)
        return run_cli(list(args), self.env, self.root)

    def json(self, *args: str, rc: int = 0) -> Any:
        done = self(*args, "--json")
        assert done.returncode == rc, done.stderr
        return json.loads(done.stdout)

    def projects(self) -> set[str]:
        return {p["project"] for p in self.json("projects")}


@pytest.fixture(params=["off"])
def cli(request: pytest.FixtureRequest, tmp_path: Path, models_dir: Path) -> Iterator[Cli]:
    papers = tmp_path / "papers"
    papers.mkdir()
    shutil.copy(FIXTURE_PDFS / PDF, papers / "table.pdf")
    shutil.copy(FIXTURE_PDFS / PDF, papers / "copy.pdf")
    (papers / "copy.pdf").write_bytes((papers / "copy.pdf").read_bytes() + b"\n%extra\n")
    (tmp_path / "broken.pdf").write_text("not a pdf at all")
    c = Cli(tmp_path, models_dir, request.param)
    done = c("ingest", str(papers), "-p", "demo")
    assert done.returncode == 0, done.stderr
    yield c
    if request.param == "on":
        c("daemon", "stop")


def test_typo_suggests_and_leaves_nothing(cli: Cli) -> None:
    done = cli("query", "table structure", "-p", "dmeo")
    assert done.returncode == 1
    assert "unknown project 'dmeo'" in done.stderr and "did you mean 'demo'" in done.stderr
    assert "ingest" not in done.stderr.split("did you mean")[0]  # not "ingest into dmeo"
    assert "did you mean 'demo'" in cli("inspect", "-p", "dmeo").stderr

    # A failed first ingest: no project left, and the report says why, with the guess.
    done = cli("ingest", str(cli.root / "broken.pdf"), "-p", "dem")
    assert done.returncode == 4
    assert "was not created" in done.stderr and "did you mean 'demo'" in done.stderr
    assert cli.projects() == {"demo"}
    assert not (cli.data / "indexes" / "dem").exists()
    # The same through --json: the warning is in the report.
    report = cli.json("ingest", str(cli.root / "nowhere.pdf"), "-p", "scrtach", rc=4)
    assert report["failed"] == 1 and "was not created" in report["warnings"][-1]["message"]
    assert cli.projects() == {"demo"}


@pytest.mark.parametrize("cli", ["off", "on"], indirect=True)  # in process, and the daemon's
def test_remove_documents_then_the_project(cli: Cli) -> None:
    papers = cli.json("papers", "-p", "demo")["papers"]
    assert len(papers) == 2 and all(p["chunks"] > 0 and p["title"] for p in papers)
    by_name = {Path(p["source_path"]).name: p for p in papers}

    # Nothing matched: nothing removed, and a coded error.
    done = cli("remove", "-p", "demo", "copy.pdf", "nosuch.pdf")
    assert done.returncode == 1 and "INVALID_INPUT" in done.stderr
    assert "nothing was removed" in done.stderr
    assert len(cli.json("papers", "-p", "demo")["papers"]) == 2

    # By file name, then by doc id prefix.
    gone = cli.json("remove", "-p", "demo", "copy.pdf")
    assert [r["doc_id"] for r in gone["removed"]] == [by_name["copy.pdf"]["doc_id"]]
    assert gone["chunks"] == by_name["copy.pdf"]["chunks"]
    left = cli.json("papers", "-p", "demo")["papers"]
    assert [p["doc_id"] for p in left] == [by_name["table.pdf"]["doc_id"]]
    info = cli.json("inspect", "-p", "demo")
    assert info["documents"] == 1 and info["chunks"] == by_name["table.pdf"]["chunks"]
    hits = cli.json("query", "table structure recognition", "-p", "demo")["hits"]
    assert hits and {h["doc_id"] for h in hits} == {by_name["table.pdf"]["doc_id"]}
    # Re-ingesting the folder brings the removed file back (it is still there).
    done = cli("ingest", str(cli.root / "papers"), "-p", "demo")
    assert done.returncode == 0 and len(cli.json("papers", "-p", "demo")["papers"]) == 2
    gone = cli.json("remove", "-p", "demo", by_name["table.pdf"]["doc_id"][:8])
    assert gone["removed"][0]["source_path"].endswith("table.pdf")

    # The whole project: refused off a terminal without --yes, then gone.
    done = cli("remove", "-p", "demo")
    assert done.returncode == 1 and "--yes" in done.stderr
    assert cli.projects() == {"demo"}
    done = cli("remove", "-p", "demo", "--yes")
    assert done.returncode == 0 and "removed project 'demo'" in done.stdout
    assert cli.projects() == set() and not (cli.data / "indexes" / "demo").exists()
    done = cli("remove", "-p", "demo", "--yes")
    assert done.returncode == 1 and "unknown project 'demo'" in done.stderr
