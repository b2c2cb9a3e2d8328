"""``citeloom validate``: each part checked offline, each failure with its fix."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from citeloom.config import Settings
from citeloom.errors import CiteLoomError

if TYPE_CHECKING:
    from citeloom.service.app import CiteLoom

Status = Literal["pass", "fail", "skip"]


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""


#: Runs the project checks where the indexes are open; None: nobody there, check here.
Elsewhere = Callable[[Settings, "str | None"], "list[Check] | None"]


def config_check(config: str | None) -> Check | None:
    """None when the configuration loads; else the failing check."""
    from citeloom.config import load_settings

    try:
        load_settings(config)
    except CiteLoomError as exc:
        return Check("config", "fail", f"{exc.code}: {exc.message}", exc.hint)
    return None


def _models(settings: Settings) -> list[Check]:
    from citeloom import provision as models

    checks: list[Check] = []
    rows = models.verify(settings.models_dir)
    if not rows:
        return [Check("models", "fail", f"nothing provisioned under {settings.models_dir}",
                      "run `citeloom models provision` (make setup does it)")]
    bad = [f"{a.name}: {s}" for a, s in rows if s != "ok"]
    if bad:
        return [Check("models", "fail", "; ".join(bad), "run `citeloom models provision --force`")]
    checks.append(Check("models", "pass", f"{len(rows)} files, checksums match, in "
                        f"{settings.models_dir}"))
    models.use_offline_runtime(settings.models_dir)
    try:
        from citeloom.embed.encoders import DenseEmbedder, load_tokenizer

        model_ids = {p.dense_model for p in settings.projects.values()} or set(models.DENSE_MODELS)
        for model_id in sorted(model_ids):
            spec = models.dense_spec(model_id)
            emb = DenseEmbedder(settings.models_dir, model_id, threads=1)
            vec = emb.embed_query("offline check")
            assert len(vec) == spec.dim
            checks.append(Check(f"dense model {model_id}", "pass",
                                f"loads offline, {spec.dim} dims"))
            tok = load_tokenizer(settings.models_dir, model_id)
            import json

            vocab = json.loads((models.dense_dir(settings.models_dir, model_id)
                                / "config.json").read_text())["vocab_size"]
            long_text = "token " * (spec.window * 2)
            seen = emb.token_count(long_text)
            if tok.get_vocab_size() != vocab or seen != spec.window:
                checks.append(Check("tokenizer alignment", "fail",
                                    f"tokenizer vocab {tok.get_vocab_size()} vs model {vocab}; "
                                    f"model reads {seen} tokens, window is {spec.window}",
                                    "run `citeloom models provision --force`"))
            else:
                checks.append(Check("tokenizer alignment", "pass",
                                    f"vocab {vocab}; chunks counted with the model's own "
                                    f"tokenizer; window {spec.window} tokens"))
        import onnxruntime as ort

        ort.InferenceSession(str(models.layout_model_path(settings.models_dir)),
                             providers=["CPUExecutionProvider"])
        checks.append(Check("layout model", "pass", "ONNX loads"))
        import tiktoken

        tiktoken.get_encoding("cl100k_base")
        checks.append(Check("tiktoken", "pass", "cl100k_base loads offline"))
    except CiteLoomError as exc:
        checks.append(Check("models load", "fail", exc.message, exc.hint))
    except Exception as exc:
        checks.append(Check("models load", "fail", f"{type(exc).__name__}: {exc}",
                            "run `citeloom models provision --force`"))
    return checks


def _tesseract(settings: Settings) -> Check:
    """Tesseract and the language data of every project that OCRs, mapped as the converter
    maps them (``iso:fr`` is ``fra``)."""
    from citeloom.convert.ocr import check_ocr_languages, tesseract_code
    from citeloom.errors import OcrUnavailable

    wanted = sorted({lang for p in settings.projects.values() if p.ocr
                     for lang in p.ocr_languages} or {"eng", "deu"})
    try:
        check_ocr_languages(wanted)
    except OcrUnavailable as exc:
        return Check("tesseract", "fail", exc.message, exc.hint)
    codes = sorted({tesseract_code(lang) for lang in wanted})
    return Check("tesseract", "pass", f"{shutil.which('tesseract')}, languages "
                 f"{', '.join(codes)}")


_DAMAGE = ("INDEX_DAMAGED", "CATALOG_DAMAGED", "DISK_FULL")


def _failed(name: str, exc: BaseException, only: str | None) -> Check:
    """A check that raised: a CiteLoom error as it reads (an index another process holds
    is skipped unless that project was asked for), anything else as a bug — never a crash."""
    if isinstance(exc, CiteLoomError):
        status: Status = "fail" if only or exc.code in _DAMAGE else "skip"
        return Check(name, status, f"{exc.code}: {exc.message}", exc.hint)
    return Check(name, "fail", f"INTERNAL_ERROR: {type(exc).__name__}: {exc}",
                 "a bug in the check: please report it with this line")


def _index_checks(app: CiteLoom, settings: Settings, name: str, only: str | None) -> list[Check]:
    from citeloom.index import KEYWORD_FIELDS

    project = settings.project(name, create=True)
    try:
        index = app.runtime.projects.index(name)
        lock = index.lock()
        count = index.count()  # loads the shard: a damaged one says so here
    except Exception as exc:  # noqa: BLE001 - reported, never raised
        return [_failed(f"index {name}", exc, only)]
    checks = [Check(f"index {name}", "pass", f"{project.backend}, {count} chunks, "
                    f"generation {index.generation}")]
    wanted = app.runtime.models.model_lock(project)
    if lock != wanted:
        checks.append(Check(
            f"model lock {name}", "fail",
            f"index: {lock.describe() if lock else 'none'}; config: {wanted.describe()}",
            f"run `citeloom reindex --project {name}`, or restore the settings"))
    else:
        checks.append(Check(f"model lock {name}", "pass", lock.describe()))
    try:
        have = index.payload_indexes()
    except Exception as exc:  # noqa: BLE001
        return [*checks, _failed(f"payload indexes {name}", exc, only)]
    missing = [f for f in KEYWORD_FIELDS if f not in have]
    if not have:  # qdrant-client's local mode keeps none
        checks.append(Check(f"payload indexes {name}", "skip",
                            "this backend reports no payload indexes"))
    elif missing:
        checks.append(Check(f"payload indexes {name}", "fail", f"missing: {', '.join(missing)}",
                            f"run `citeloom reindex --project {name}`"))
    else:
        checks.append(Check(f"payload indexes {name}", "pass", f"{len(have)} fields indexed"))
    return checks


def _catalog_checks(app: CiteLoom, settings: Settings, name: str, only: str | None
                    ) -> list[Check]:
    """The catalog reads and passes SQLite's check; the project's cached conversions
    decompress."""
    from citeloom.errors import repair_hint

    try:
        catalog = app.runtime.projects.catalog(name)
        verdict = catalog.check()
        rows = catalog.all()
    except Exception as exc:  # noqa: BLE001
        return [_failed(f"catalog {name}", exc, only)]
    if verdict != "ok":
        return [Check(f"catalog {name}", "fail", f"CATALOG_DAMAGED: {verdict}",
                      repair_hint(name))]
    checks = [Check(f"catalog {name}", "pass", f"{len(rows)} documents"
                    + (" (opened read-only: the disk is full)" if catalog.readonly else ""))]
    try:
        bad = app.runtime.cache.damaged(settings.project(name, create=True),
                                        [r.content_hash for r in rows])
    except Exception as exc:  # noqa: BLE001
        return [*checks, _failed(f"conversion cache {name}", exc, only)]
    if bad:
        checks.append(Check(f"conversion cache {name}", "fail",
                            f"{len(bad)} unreadable entr{'y' if len(bad) == 1 else 'ies'}: "
                            + ", ".join(p.name for p in bad[:3]),
                            repair_hint(name) + " (it drops them; an ingest would re-make "
                            "them from the files)"))
    return checks


def project_checks(app: CiteLoom, settings: Settings, only: str | None, where: str = ""
                   ) -> list[Check]:
    """Every project's index and catalog (or ``only`` that one), read through ``app``; run
    where the indexes are open (the daemon, when one runs). ``where`` ends the index line."""
    from citeloom.index import make_store

    checks: list[Check] = []
    try:
        names = [only] if only else [p["project"] for p in app.list_projects()]
    except Exception as exc:  # noqa: BLE001
        return [_failed("projects", exc, only)]
    for name in names:
        found = _index_checks(app, settings, name, only)
        if where and found[0].status == "pass":
            found[0].detail += where
        checks += found + _catalog_checks(app, settings, name, only)
    if settings.qdrant_url and not settings.qdrant_url.startswith("file://"):
        try:
            key = settings.qdrant_api_key
            make_store("server", settings.index_dir, settings.qdrant_url,
                       key.get_secret_value() if key else None).projects()
            checks.append(Check("qdrant server", "pass", "reachable"))
        except CiteLoomError as exc:
            checks.append(Check("qdrant server", "fail", exc.message, exc.hint))
    return checks


def _projects(settings: Settings, only: str | None, elsewhere: Elsewhere | None
              ) -> list[Check]:
    """The projects checked ``elsewhere`` (the running daemon, which holds their indexes
    open), or here when that gives None."""
    from citeloom.service import CiteLoom

    checked = elsewhere(settings, only) if elsewhere is not None else None
    if checked is not None:
        return checked
    app = CiteLoom(settings)
    try:
        return project_checks(app, settings, only)
    finally:
        with contextlib.suppress(Exception):  # closing a damaged index must not crash it
            app.close()


def _zotero(settings: Settings) -> list[Check]:
    import httpx

    checks = []
    port = settings.zotero.bbt_port
    try:
        r = httpx.get(f"http://127.0.0.1:{port}/better-bibtex/cayw?probe=true", timeout=1.0)
        ok = r.status_code == 200 and "ready" in r.text
        checks.append(Check("better bibtex", "pass" if ok else "skip",
                            "JSON-RPC answers" if ok else f"HTTP {r.status_code}: not ready"))
    except httpx.HTTPError:
        checks.append(Check("better bibtex", "skip", "not running: citekeys will come from "
                            "the Zotero database or exports", "start Zotero with Better "
                            "BibTeX for live citekeys"))
    data_dir = settings.zotero.data_dir
    if data_dir:
        db = data_dir / "zotero.sqlite"
        checks.append(Check("zotero database", "pass" if db.is_file() else "fail",
                            str(db), "" if db.is_file() else "set ZOTERO_DATA_DIR to the "
                            "folder holding zotero.sqlite"))
    return checks


def _disk(settings: Settings) -> Check:
    """Room to ingest: below the margin an ingest stops with DISK_FULL (queries work)."""
    from citeloom import system as space

    where, free = space.existing(settings.data_dir), space.free_bytes(settings.data_dir)
    if free < space.WRITE_MARGIN:
        return Check("disk space", "fail", f"{where}: {space.human(free)} free; an ingest "
                     f"keeps {space.human(space.WRITE_MARGIN)} free and stops with DISK_FULL "
                     "below that (queries keep working)",
                     "free space on that filesystem, or move the data dir (CITELOOM_DATA_DIR)")
    return Check("disk space", "pass", f"{where}: {space.human(free)} free")


def _executor(settings: Settings) -> Check:
    """Where an ingest converts: Ray (installed?) or how many local workers, and why."""
    if settings.cluster.address:
        try:
            import ray
        except ImportError:
            return Check("ingest executor", "fail", f"[cluster] address = "
                         f"{settings.cluster.address!r}, but Ray is not installed",
                         "pip install 'citeloom[ray]' (make setup installs it), or remove "
                         "[cluster] address")
        return Check("ingest executor", "pass", f"Ray {ray.__version__} at "
                     f"{settings.cluster.address!r} (not contacted here; `ray status` "
                     "shows the cluster)")
    from citeloom.ingest.pool import available_cores, available_memory_mb, default_workers

    if settings.workers:
        return Check("ingest executor", "pass", f"{settings.workers} worker(s), "
                     "[defaults] workers")
    cores, memory = available_cores(), available_memory_mb()
    n = default_workers(cores, memory)
    return Check("ingest executor", "pass", f"{n} worker(s): one per two of {cores} cores, "
                 f"as {memory} MB available allow" + (" (in process)" if n == 1 else ""))


def run_checks(settings: Settings, project: str | None = None,
               elsewhere: Elsewhere | None = None) -> list[Check]:
    """Every check; the projects' through ``elsewhere`` when it answers (see _projects)."""
    where = settings.config_path or "defaults (no citeloom.toml found)"
    checks = [Check("config", "pass", f"{where}; data in {settings.data_dir}"),
              _disk(settings)]
    checks += _models(settings)
    checks.append(_tesseract(settings))
    checks.append(_executor(settings))
    if all(c.status != "fail" for c in checks if c.name != "disk space"):
        checks += _projects(settings, project, elsewhere)
    checks += _zotero(settings)
    return checks
