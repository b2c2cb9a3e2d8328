"""``citeloom validate``: each part checked offline, each failure with its fix."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Literal

from .config import Settings
from .errors import CiteLoomError

Status = Literal["pass", "fail", "skip"]


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""


def config_check(config: str | None) -> Check | None:
    """None when the configuration loads; else the failing check."""
    from .config import load_settings

    try:
        load_settings(config)
    except CiteLoomError as exc:
        return Check("config", "fail", exc.message, exc.hint)
    return None


def _models(settings: Settings) -> list[Check]:
    from . import models

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
        from .embed import DenseEmbedder, load_tokenizer

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
    from .errors import OcrUnavailable
    from .ocr import _tesseract_code, check_ocr_languages

    wanted = sorted({lang for p in settings.projects.values() if p.ocr
                     for lang in p.ocr_languages} or {"eng", "deu"})
    try:
        check_ocr_languages(wanted)
    except OcrUnavailable as exc:
        return Check("tesseract", "fail", exc.message, exc.hint)
    codes = sorted({_tesseract_code(lang) for lang in wanted})
    return Check("tesseract", "pass", f"{shutil.which('tesseract')}, languages "
                 f"{', '.join(codes)}")


def _projects(settings: Settings, only: str | None) -> list[Check]:
    from .index import KEYWORD_FIELDS, make_store
    from .service import CiteLoom

    checks: list[Check] = []
    app = CiteLoom(settings)
    try:
        names = [only] if only else [p["project"] for p in app.list_projects()]
        for name in names:
            project = settings.project(name, create=True)
            try:
                index = app.index(name)
                lock = index.lock()
            except CiteLoomError as exc:
                checks.append(Check(f"index {name}", "fail" if only else "skip", exc.message,
                                    exc.hint))
                continue
            checks.append(Check(f"index {name}", "pass",
                                f"{project.backend}, {index.count()} chunks, generation "
                                f"{index.generation}"))
            wanted = app.model_lock(project)
            if lock != wanted:
                checks.append(Check(
                    f"model lock {name}", "fail",
                    f"index: {lock.describe() if lock else 'none'}; config: {wanted.describe()}",
                    f"run `citeloom reindex --project {name}`, or restore the settings"))
            else:
                checks.append(Check(f"model lock {name}", "pass", lock.describe()))
            have = index.payload_indexes()
            missing = [f for f in KEYWORD_FIELDS if f not in have]
            if not have:  # qdrant-client's local mode keeps none
                checks.append(Check(f"payload indexes {name}", "skip",
                                    "this backend reports no payload indexes"))
            elif missing:
                checks.append(Check(f"payload indexes {name}", "fail",
                                    f"missing: {', '.join(missing)}",
                                    f"run `citeloom reindex --project {name}`"))
            else:
                checks.append(Check(f"payload indexes {name}", "pass",
                                    f"{len(have)} fields indexed"))
        if settings.qdrant_url and not settings.qdrant_url.startswith("file://"):
            try:
                key = settings.qdrant_api_key
                make_store("server", settings.index_dir, settings.qdrant_url,
                           key.get_secret_value() if key else None).projects()
                checks.append(Check("qdrant server", "pass", "reachable"))
            except CiteLoomError as exc:
                checks.append(Check("qdrant server", "fail", exc.message, exc.hint))
    finally:
        app.close()
    return checks


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


def run_checks(settings: Settings, project: str | None = None) -> list[Check]:
    where = settings.config_path or "defaults (no citeloom.toml found)"
    checks = [Check("config", "pass", f"{where}; data in {settings.data_dir}")]
    checks += _models(settings)
    checks.append(_tesseract(settings))
    if all(c.status != "fail" for c in checks):
        checks += _projects(settings, project)
    checks += _zotero(settings)
    return checks
