"""Configuration: ``citeloom.toml`` + environment + ``.env``.

Where the file comes from, first found wins: ``--config``, ``$CITELOOM_CONFIG``,
``./citeloom.toml``, then ``<user config dir>/citeloom/citeloom.toml``. No file at all is fine:
every setting has a default, and a project named on the command line is created with them.

``.env`` (in the working directory) is loaded with python-dotenv without overriding: a
variable already in the real environment always wins over ``.env``, and the environment wins
over the file for the settings it names.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, Field, PrivateAttr, SecretStr, ValidationError, field_validator

from citeloom.errors import ConfigError, InvalidInput, InvalidProject, did_you_mean
from citeloom.payload import PASSAGE_CHARS

# The dense model of a new project. A project whose configuration names none keeps the
# model its index was built with (Settings.project), until `citeloom reindex --dense-model`.
DEFAULT_DENSE_MODEL = "BAAI/bge-small-en-v1.5"
DEFAULT_SPARSE_MODEL = "Qdrant/bm25"
# How passages are cut and what is embedded with them (chunk.py); v2 embeds a passage with
# the end of the one before it, v3 also keeps a sentence cut between two passages whole.
# Part of the model lock.
DEFAULT_CHUNKER = "docling-hybrid/v3"
WORKER_MAX_DOCUMENTS, WORKER_MAX_RSS_MB = 20, 1200  # measured: docs/DECISIONS.md
PROJECT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

# Every environment variable CiteLoom reads; .env.example documents each one.
ENV_VARS = (
    "CITELOOM_CONFIG",
    "CITELOOM_DATA_DIR",
    "CITELOOM_MODELS_DIR",
    "CITELOOM_CACHE_DIR",
    "CITELOOM_PROJECT",
    "CITELOOM_THREADS",
    "CITELOOM_ALLOWED_ROOTS",
    "CITELOOM_LOG_FILE",
    "CITELOOM_DAEMON",
    "CITELOOM_MCP_TOKEN",
    "CITELOOM_DAEMON_IDLE_S",
    "CITELOOM_MCP_PREFORK",
    "QDRANT_URL",
    "QDRANT_API_KEY",
    "ZOTERO_DATA_DIR",
    "ZOTERO_LIBRARY_ID",
    "ZOTERO_LIBRARY_TYPE",
    "ZOTERO_API_KEY",
    "ZOTERO_LOCAL",
    "BBT_PORT",
    "CITELOOM_SCIFACT_DIR",
)


ZOTERO_PORT, JURIS_M_PORT = 23119, 24119  # where Zotero (and Better BibTeX) listen


class ZoteroSettings(BaseModel):
    """Which Zotero library CiteLoom reads, from ``ZOTERO_LOCAL``, ``ZOTERO_LIBRARY_ID``,
    ``ZOTERO_LIBRARY_TYPE``, ``ZOTERO_API_KEY``, ``ZOTERO_DATA_DIR`` and ``BBT_PORT``:
    ``ZOTERO_LOCAL=true`` → Zotero 7's local API; else ``ZOTERO_LIBRARY_ID`` → the Web API;
    else the database in ``ZOTERO_DATA_DIR`` (default ``~/Zotero``). Read and validated
    here once; nothing else reads these variables. ``repr`` hides the API key."""

    model_config = {"extra": "forbid"}

    source: Literal["sqlite", "web", "local"] = "sqlite"
    data_dir: Path | None = None
    library_id: str | None = None
    library_type: Literal["user", "group"] = "user"
    api_key: SecretStr | None = None
    local: bool = False
    bbt_port: int = ZOTERO_PORT
    local_port: int = ZOTERO_PORT

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ZoteroSettings:
        env = os.environ if environ is None else environ
        port_text = env.get("BBT_PORT", "").strip() or str(ZOTERO_PORT)
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ConfigError(f"BBT_PORT must be a port number, not {port_text!r}",
                              f"use {ZOTERO_PORT} (Zotero) or {JURIS_M_PORT} (Juris-M)")
        library_type = (env.get("ZOTERO_LIBRARY_TYPE", "").strip() or "user").lower()
        if library_type not in ("user", "group"):
            raise ConfigError(f"ZOTERO_LIBRARY_TYPE must be 'user' or 'group', not "
                              f"{library_type!r}", "set ZOTERO_LIBRARY_TYPE=user or group")
        data_dir = env.get("ZOTERO_DATA_DIR", "").strip()
        library_id = env.get("ZOTERO_LIBRARY_ID", "").strip() or None
        local = env.get("ZOTERO_LOCAL", "").strip().lower() in ("1", "true", "yes", "on")
        return cls(source="local" if local else "web" if library_id else "sqlite",
                   data_dir=Path(data_dir).expanduser() if data_dir else None,
                   library_id=library_id, library_type=library_type,  # type: ignore[arg-type]
                   api_key=env.get("ZOTERO_API_KEY", "").strip() or None, local=local,
                   bbt_port=int(port_text))

    @property
    def configured(self) -> bool:
        """Whether a library was named at all (else files keep their own metadata)."""
        return bool(self.data_dir or self.library_id or self.local)

    @property
    def storage_dir(self) -> Path | None:
        """Zotero's attachment folder, which MCP ingests may read."""
        return self.data_dir / "storage" if self.data_dir else None

    def kwargs(self) -> dict[str, Any]:
        """``zotero.make_reader``'s arguments."""
        return {"source": self.source, "data_dir": self.data_dir,
                "library_id": self.library_id, "library_type": self.library_type,
                "api_key": self.api_key.get_secret_value() if self.api_key else None,
                "bbt_port": self.bbt_port, "local_port": self.local_port}


class ClusterSettings(BaseModel):
    """``[cluster]``: ingest on a Ray cluster (``docs/CLUSTER.md``). With ``address`` set,
    every ingest runs there unless ``--workers`` or ``--ray`` says otherwise."""

    model_config = {"extra": "forbid"}

    # A Ray address: "local" (a Ray instance started for the ingest, sized to this
    # machine), "auto" (the cluster this machine belongs to), "ray://head:10001" or
    # "head:6379".
    address: str | None = None
    cpus_per_actor: int = Field(1, ge=1, le=64)  # each actor converts with this many threads
    max_actors: int = Field(0, ge=0)  # 0: as many as the cluster's CPUs allow
    # The memory Ray reserves per actor (its peak while converting, docs/BENCHMARKS.md),
    # so that a node is never packed with more actors than it can hold.
    actor_memory_mb: int = Field(1536, ge=256)


class ProjectConfig(BaseModel):
    """One project: its sources, models and chunking. Models and chunking are locked
    into the index at its first write."""

    model_config = {"extra": "forbid"}

    name: str
    sources: list[Path] = Field(default_factory=list)
    dense_model: str = DEFAULT_DENSE_MODEL
    sparse_model: Literal["Qdrant/bm25", "none"] = DEFAULT_SPARSE_MODEL
    chunk_max_tokens: int = Field(256, ge=32, le=8192)
    chunker: Literal["docling-hybrid/v1", "docling-hybrid/v2", "docling-hybrid/v3"] = \
        DEFAULT_CHUNKER
    ocr: bool = True
    ocr_languages: list[str] = Field(default_factory=lambda: ["eng", "deu"])
    # Read again the pages whose text does not read as language (docs/DECISIONS.md "Text
    # health"): PDFium's text layer, then OCR; off keeps the parser's text as it is.
    text_repair: bool = True
    backend: Literal["edge", "server"] = "edge"
    rrf_k: int = Field(60, ge=1, le=1000)
    prefetch: int = Field(100, ge=10, le=1000)
    # How many first-stage hits a query has the cross-encoder re-read (0: none, the fast
    # mode); a hit moves up only where the model is sure (search.ranking.reranked).
    # Two: measured on three question sets and SciFact (docs/EVALUATION.md "A confident
    # judge on the first two pages").
    rerank_depth: int = Field(2, ge=0, le=50)
    hnsw_m: int = Field(16, ge=4, le=128)
    hnsw_ef_construct: int = Field(100, ge=10, le=1000)
    quantization: Literal["none", "int8"] = "none"
    # A Qdrant server collection for a large library (docs/CLUSTER.md); Edge ignores them.
    shards: int = Field(1, ge=1, le=1024)
    replicas: int = Field(1, ge=1, le=16)
    on_disk: bool = False
    defer_indexing: bool = False
    # How long one document may take to convert, before its worker is killed as hung:
    # conversion_timeout_s, plus conversion_page_s for each page of a PDF (a 300-page thesis
    # is long, not hung; docs/DECISIONS.md "A deadline that grows with the pages").
    conversion_timeout_s: float = Field(300, gt=0)
    conversion_page_s: float = Field(5, ge=0)
    pdf_password: SecretStr | None = None
    # While the daemon runs: ingest files added or changed under `sources`, remove deleted
    # ones, and re-sync these Zotero collections (names, paths or keys) when the library
    # changes.
    watch: bool = False
    zotero_collections: list[str] = Field(default_factory=list)
    # Zotero sources of `citeloom ingest -p NAME` with no PATH: the "zotero:collection/NAME"
    # and "zotero:library" entries of `sources` (the same form MCP's ingest_from_source takes).
    zotero_sources: list[str] = Field(default_factory=list)

    @property
    def pdf_password_text(self) -> str | None:
        """The project's PDF password as plain text, or None: what PDFium and Docling take."""
        return self.pdf_password.get_secret_value() if self.pdf_password else None

    def zotero_syncs(self) -> list[dict[str, Any]]:
        """What a watching daemon re-syncs when the library changes: ``zotero_collections``
        and the Zotero sources, as ``ingest_zotero`` arguments (collection None: the
        whole library)."""
        return [*({"collection": c} for c in self.zotero_collections),
                *map(parse_zotero_source, self.zotero_sources)]

    @field_validator("zotero_sources")
    @classmethod
    def _valid_zotero(cls, value: list[str]) -> list[str]:
        for spec in value:
            try:
                parse_zotero_source(spec)
            except InvalidInput as exc:
                raise ValueError(f"{exc.message}: {exc.hint}") from None
        return value

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        if not PROJECT_NAME.match(value):
            raise ValueError(
                f"project name {value!r} must be 1-64 letters, digits, '_', '-' or '.', "
                "starting with a letter or digit"
            )
        return value


class Settings(BaseModel):
    """Everything CiteLoom needs to run, resolved from file, environment and defaults."""

    model_config = {"extra": "forbid"}

    config_path: Path | None = None
    data_dir: Path
    models_dir: Path
    # What can be made again (conversions, passage vectors, Zotero downloads); None:
    # ``<data_dir>/cache``. Content-addressed, so data dirs may share one.
    cache_dir: Path | None = None
    default_project: str | None = None
    threads: int = Field(2, ge=1, le=64)
    # Conversion worker processes of an ingest; None: the machine's rule
    # (service.executor_pool.default_workers, docs/DECISIONS.md).
    workers: int | None = Field(None, ge=1, le=256)
    # A conversion worker is replaced by a fresh one after this many documents, or as soon
    # as its resident memory passes this many MB after a document (Docling's memory grows
    # with what a process has read: docs/DECISIONS.md "Bounded memory").
    worker_max_documents: int = Field(WORKER_MAX_DOCUMENTS, ge=1, le=100_000)
    worker_max_rss_mb: int = Field(WORKER_MAX_RSS_MB, ge=100, le=1_000_000)
    cluster: ClusterSettings = Field(default_factory=ClusterSettings)
    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None
    projects: dict[str, ProjectConfig] = Field(default_factory=dict)
    # MCP server: where ingest_from_source may read (besides each project's sources),
    # the size of an answer, and how long a query may take.
    allowed_roots: list[Path] = Field(default_factory=list)
    answer_token_budget: int = Field(8000, ge=500, le=100_000)
    passage_chars: int = Field(PASSAGE_CHARS, ge=100, le=10_000)
    query_timeout_s: float = Field(15, gt=0, le=300)
    # Seconds without queries after which the server lets go of an Edge index (so a CLI
    # ingest can open it); 0 keeps indexes open.
    release_idle_s: float = Field(30, ge=0, le=86_400)
    log_file: Path | None = None
    zotero: ZoteroSettings = Field(default_factory=ZoteroSettings.from_env)
    # The library daemon: one process owns the indexes of this data dir; the CLI and MCP
    # servers are its clients. It stops after `daemon_idle_s` without clients or jobs.
    # Bearer token for `serve --transport http` (required beyond loopback).
    mcp_token: SecretStr | None = None
    daemon: bool = True
    daemon_idle_s: float = Field(600, ge=1, le=7 * 86_400)
    # The daemon keeps the MCP server pre-imported, so `citeloom serve` starts in a fraction
    # of a second (daemon/prefork.py); off: every server imports its own.
    mcp_prefork: bool = True
    # SciFact for `citeloom eval scifact` (BEIR layout); looked for beside the config when unset.
    scifact_dir: Path | None = None
    # The model lock of a project's current index (set by the service, which can read the
    # indexes): see project().
    _index_lock: Callable[[ProjectConfig], Any] | None = PrivateAttr(None)

    def use_index_locks(self, resolver: Callable[[ProjectConfig], Any]) -> None:
        self._index_lock = resolver

    def pins(self, name: str, setting: str) -> bool:
        """Whether the configuration names this project's ``setting`` (not a default)."""
        cfg = self.projects.get(name)
        return cfg is not None and setting in cfg.model_fields_set

    def _keep_index_lock(self, cfg: ProjectConfig) -> ProjectConfig:
        """A project whose configuration names no dense model (no chunker) answers with,
        and keeps writing with, the model (chunker) its index was built with: a new
        default applies to new projects, and an existing one moves to it only by
        `citeloom reindex` (its model lock respected, nothing re-embedded behind its
        back)."""
        lock = self._index_lock(cfg) if self._index_lock is not None else None
        if lock is None:
            return cfg
        update = {setting: getattr(lock, setting) for setting in ("dense_model", "chunker")
                  if not self.pins(cfg.name, setting)
                  and getattr(lock, setting) != getattr(cfg, setting)}
        return cfg.model_copy(update=update) if update else cfg

    def project(self, name: str | None, *, create: bool = False) -> ProjectConfig:
        """The configured project, or (with ``create``) a new one with default settings."""
        name = name or self.default_project
        if not name:
            raise InvalidProject(
                "no project given",
                "pass --project NAME, or set CITELOOM_PROJECT or [defaults] project "
                "in citeloom.toml",
            )
        if name in self.projects:
            return self._keep_index_lock(self.projects[name])
        if create:
            try:
                return self._keep_index_lock(ProjectConfig(name=name))
            except ValidationError as exc:
                raise InvalidProject(str(exc.errors()[0]["msg"])) from None
        known = ", ".join(sorted(self.projects)) or "none configured"
        raise InvalidProject(
            f"unknown project {name!r} (known: {known})",
            "ingest into it first, or add it under [projects] in citeloom.toml",
        )

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "indexes"

    @property
    def cache_root(self) -> Path:
        return self.cache_dir or self.data_dir / "cache"


def parse_zotero_source(source: str) -> dict[str, Any]:
    """``zotero:collection/Name[?subcollections]`` or ``zotero:library``; with
    ``?noannotations`` (or ``&noannotations``) the items' annotations and notes are left
    out."""
    rest = source.removeprefix("zotero:")
    rest, _, query = rest.partition("?")
    annotations = "noannotations" not in query
    if rest == "library":
        return {"collection": None, "include_subcollections": True,
                "annotations": annotations}
    if rest.startswith("collection/") and rest.removeprefix("collection/").strip():
        return {"collection": rest.removeprefix("collection/").strip(),
                "include_subcollections": "subcollections" in query,
                "annotations": annotations}
    raise InvalidInput(f"cannot read Zotero source {source!r}",
                       "use 'zotero:collection/NAME_OR_KEY' or 'zotero:library'")


def default_models_dir() -> Path:
    """Where ``citeloom models provision`` puts the models when no setting names a folder:
    the user data dir's ``models``, which does not move with ``CITELOOM_DATA_DIR``."""
    return Path(platformdirs.user_data_dir("citeloom")) / "models"


def provisioned_models_dir(data_dir: Path) -> Path:
    """The models folder when neither ``CITELOOM_MODELS_DIR`` nor ``[paths] models_dir``
    names one: ``<data_dir>/models`` if models were provisioned there (a self-contained data
    dir, or one set before provisioning), else the default location — so that pointing
    ``CITELOOM_DATA_DIR`` elsewhere after setup never loses the models."""
    from citeloom.provision import MANIFEST

    own = data_dir / "models"
    return own if (own / MANIFEST).is_file() else default_models_dir()


def _flag(text: str | None, default: bool) -> bool:
    if text is None or not text.strip():
        return default
    if text.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if text.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{text!r} is not on or off", "use on or off (1/0, true/false)")


def find_config_file(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    candidates: list[Path] = []
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist", "check the --config path")
        return path
    if os.environ.get("CITELOOM_CONFIG"):
        path = Path(os.environ["CITELOOM_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"CITELOOM_CONFIG points to {path}, which does not exist",
                "fix or unset CITELOOM_CONFIG",
            )
        return path
    candidates.append(Path.cwd() / "citeloom.toml")
    candidates.append(Path(platformdirs.user_config_dir("citeloom")) / "citeloom.toml")
    return next((c for c in candidates if c.is_file()), None)


def load_dotenv_file() -> None:
    """Load ``./.env`` without overriding variables already set in the environment."""
    from dotenv import load_dotenv

    env_file = Path.cwd() / ".env"
    if env_file.is_file():
        load_dotenv(env_file, override=False)


def load_settings(config: str | os.PathLike[str] | None = None) -> Settings:
    """Resolve settings: defaults < citeloom.toml < environment (which includes ``.env``)."""
    load_dotenv_file()
    path = find_config_file(config)
    raw: dict = {}
    if path is not None:
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}", "fix the file's syntax") from None
    base = path.parent.resolve() if path else Path.cwd()

    _check_keys(raw, path)
    paths = raw.get("paths", {})
    defaults = raw.get("defaults", {})
    qdrant = raw.get("qdrant", {})
    mcp = dict(raw.get("mcp", {}))
    daemon = raw.get("daemon", {})
    try:
        cluster = ClusterSettings(**raw.get("cluster", {}))
    except ValidationError as exc:
        raise _config_error(exc, path, "cluster", ClusterSettings) from None

    def resolve(value: str | None, fallback: Path) -> Path:
        if not value:
            return fallback
        p = Path(os.path.expandvars(value)).expanduser()
        return p if p.is_absolute() else (base / p)

    env = os.environ
    data_dir = resolve(env.get("CITELOOM_DATA_DIR") or paths.get("data_dir"),
                       Path(platformdirs.user_data_dir("citeloom")))
    models_dir = resolve(env.get("CITELOOM_MODELS_DIR") or paths.get("models_dir"),
                         provisioned_models_dir(data_dir))

    projects: dict[str, ProjectConfig] = {}
    for name, body in (raw.get("projects") or {}).items():
        body = dict(body)
        sources = [str(s) for s in body.get("sources", [])]
        body["sources"] = [resolve(s, base) for s in sources if not s.startswith("zotero:")]
        body["zotero_sources"] = [*body.get("zotero_sources", []),
                                  *(s for s in sources if s.startswith("zotero:"))]
        try:
            projects[name] = ProjectConfig(name=name, **body)
        except ValidationError as exc:
            raise _config_error(exc, path, f"projects.{name}", ProjectConfig) from None
    try:
        return Settings(
            config_path=path,
            data_dir=data_dir,
            models_dir=models_dir,
            cache_dir=resolve(env.get("CITELOOM_CACHE_DIR") or paths.get("cache_dir"),
                              data_dir / "cache"),
            default_project=env.get("CITELOOM_PROJECT") or defaults.get("project"),
            threads=_number(int, "CITELOOM_THREADS", defaults, "threads", 2),
            workers=None if defaults.get("workers", "auto") == "auto"
            else defaults["workers"],
            worker_max_documents=defaults.get("worker_max_documents", WORKER_MAX_DOCUMENTS),
            worker_max_rss_mb=defaults.get("worker_max_rss_mb", WORKER_MAX_RSS_MB),
            cluster=cluster,
            qdrant_url=env.get("QDRANT_URL") or qdrant.get("url"),
            qdrant_api_key=env.get("QDRANT_API_KEY") or qdrant.get("api_key"),
            projects=projects,
            allowed_roots=[resolve(r, base) for r in
                           (env["CITELOOM_ALLOWED_ROOTS"].split(os.pathsep)
                            if env.get("CITELOOM_ALLOWED_ROOTS")
                            else mcp.pop("allowed_roots", []))],
            log_file=resolve(env.get("CITELOOM_LOG_FILE") or paths.get("log_file"), Path())
            if (env.get("CITELOOM_LOG_FILE") or paths.get("log_file")) else None,
            zotero=ZoteroSettings.from_env(env),
            mcp_token=env.get("CITELOOM_MCP_TOKEN", "").strip() or None,
            daemon=_flag(env.get("CITELOOM_DAEMON"), daemon.get("enabled", True)),
            daemon_idle_s=_number(float, "CITELOOM_DAEMON_IDLE_S", daemon, "idle_exit_s", 600),
            mcp_prefork=_flag(env.get("CITELOOM_MCP_PREFORK"), daemon.get("mcp_prefork", True)),
            scifact_dir=Path(env["CITELOOM_SCIFACT_DIR"]).expanduser()
            if env.get("CITELOOM_SCIFACT_DIR") else None,
            **{k: mcp[k] for k in ("answer_token_budget", "passage_chars", "query_timeout_s",
                                       "release_idle_s")
               if k in mcp},
        )
    except ValidationError as exc:
        raise _config_error(exc, path, None, Settings) from None


# Where each table's settings go, and the environment variable that overrides it.
TABLES: dict[str, dict[str, str | None]] = {
    "paths": {"data_dir": "CITELOOM_DATA_DIR", "models_dir": "CITELOOM_MODELS_DIR",
              "cache_dir": "CITELOOM_CACHE_DIR", "log_file": "CITELOOM_LOG_FILE"},
    "defaults": {"project": "CITELOOM_PROJECT", "threads": "CITELOOM_THREADS", "workers": None,
                 "worker_max_documents": None, "worker_max_rss_mb": None},
    "qdrant": {"url": "QDRANT_URL", "api_key": "QDRANT_API_KEY"},
    "mcp": {"allowed_roots": "CITELOOM_ALLOWED_ROOTS", "answer_token_budget": None,
            "passage_chars": None, "query_timeout_s": None, "release_idle_s": None},
    "daemon": {"enabled": "CITELOOM_DAEMON", "idle_exit_s": "CITELOOM_DAEMON_IDLE_S",
               "mcp_prefork": "CITELOOM_MCP_PREFORK"},
    "cluster": {"address": None, "cpus_per_actor": None, "max_actors": None,
                "actor_memory_mb": None},
}
SETTING_SOURCE = {"threads": ("defaults", "threads"), "daemon_idle_s": ("daemon", "idle_exit_s"),
                  "daemon": ("daemon", "enabled"), "mcp_prefork": ("daemon", "mcp_prefork"),
                  "default_project": ("defaults", "project"), "workers": ("defaults", "workers"),
                  **{k: ("defaults", k) for k in ("worker_max_documents", "worker_max_rss_mb")},
                  "qdrant_url": ("qdrant", "url"), **{k: ("mcp", k) for k in TABLES["mcp"]}}


def _unknown(what: str, key: str, known: object, where: Path | None) -> ConfigError:
    known = sorted(str(k) for k in known)  # type: ignore[attr-defined]
    guess = did_you_mean(key, known)
    return ConfigError(f"{where or 'settings'}: {what} has no setting {key!r}"
                       + (f" — did you mean {guess!r}?" if guess else ""),
                       f"{what} takes: {', '.join(known)} (citeloom.toml in the repository "
                       "documents each)")


def _check_keys(raw: dict[str, Any], path: Path | None) -> None:
    """Every table and key of the file is one CiteLoom reads (a typo is named, with the
    nearest known name), so that nothing is silently ignored."""
    for section, body in raw.items():
        if section == "projects":
            continue
        if section not in TABLES:
            guess = did_you_mean(section, [*TABLES, "projects"])
            raise ConfigError(f"{path}: unknown section [{section}]"
                              + (f" — did you mean [{guess}]?" if guess else ""),
                              "tables: [paths], [defaults], [qdrant], [mcp], [daemon], "
                              "[cluster], [projects.NAME]")
        if not isinstance(body, dict):
            raise ConfigError(f"{path}: [{section}] must be a table", f"write it as [{section}]")
        for key in body:
            if key not in TABLES[section]:
                raise _unknown(f"[{section}]", key, TABLES[section], path)


def _number(kind: type, env_var: str, table: dict[str, Any], key: str, default: float) -> Any:
    """A number from the environment (when set) or the table, naming whichever it came
    from when it is not one."""
    text = os.environ.get(env_var)
    value = text if text else table.get(key, default)
    try:
        return kind(value)
    except (TypeError, ValueError):
        where = f"{env_var}={text!r}" if text else f"{key} = {value!r}"
        raise ConfigError(f"{where} is not a {'whole ' if kind is int else ''}number",
                          f"set {env_var if text else key} to a number") from None


def _config_error(exc: ValidationError, path: Path | None, table: str | None,
                  model: type[BaseModel]) -> ConfigError:
    """The first problem pydantic found, named by its table and key in citeloom.toml (or
    by the environment variable that set it), with the nearest known key for a typo."""
    first = exc.errors()[0]
    key = str(first["loc"][0]) if first["loc"] else ""
    if table is None:
        section, key = SETTING_SOURCE.get(key, ("", key))
        env = TABLES.get(section, {}).get(key)
        what = (f"{env} (environment)" if env and os.environ.get(env)
                else f"[{section}] {key}" if section else key)
    else:
        what = f"[{table}] {key}"
        if first["type"] == "extra_forbidden":
            return _unknown(f"[{table}]", key, set(model.model_fields) - {"name"}, path)
    return ConfigError(f"{path or 'settings'}: {what}: {first['msg']}",
                       "citeloom.toml in the repository documents every setting")
