"""Snapshots: one archive that restores a project, here or on another machine.

    NAME.tar or NAME.tar.gz (gzip when the name ends in .gz or .tgz)
      manifest.json       format, CiteLoom version, project, backend, generation, model lock,
                          counts (chunks, documents), directories, and every file with its
                          size, the bytes stored and their sha256
      manifest.sha256     the manifest's own sha256: a changed byte anywhere is caught
      catalog.sqlite      the project's catalog (one file, no WAL)
      index/...           the generation: Edge's ``shard/`` and ``model_lock.json``, or a
                          server's ``collection.snapshot`` (Qdrant's snapshot API)

Consistent: the store's copy of the generation and the catalog's backup are made while the
service's ``_swap`` lock is held, and every write step (a batch of points with its catalog
rows and the documents it replaces, a prune, an optimize, a promote) holds it too; so a
snapshot taken during an ingest shows the project between two steps, index and catalog
from the same moment. Checksums and the archive are written after the lock is let go,
from a staging folder beside the indexes; the archive appears under its name only when
complete (written beside it, then renamed).

Preallocated files (Edge's WAL and mmap chunks: 32 MB each, a few kB written) are stored up
to the end of their data; the manifest keeps their size, and a restore extends them again
with a hole.

Restore: every member's checksum is verified (and the member list compared with the
manifest) before the index folder is touched; then the archive is unpacked into a
temporary folder beside the indexes, checked again as it is written, moved into place as a
new generation in one rename, and made current as a reindex's generation is (``promote``),
the catalog swapped in with it. A refused archive leaves nothing behind.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
import zlib
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Any

from citeloom import __version__
from citeloom.errors import (
    CiteLoomError,
    InternalError,
    InvalidInput,
    InvalidProject,
    SnapshotInvalid,
    SourceNotFound,
)
from citeloom.index import ModelLock
from citeloom.index.base import data_end
from citeloom.system import pid_alive

if TYPE_CHECKING:
    from citeloom.runtime import Runtime

FORMAT = "citeloom-snapshot/1"
MANIFEST, MANIFEST_SUM, CATALOG, INDEX = ("manifest.json", "manifest.sha256",
                                          "catalog.sqlite", "index")
_MAX_MANIFEST = 64 << 20
_BUF = 1 << 20
_SHA = re.compile(r"^[0-9a-f]{64}$")


# -- taking a snapshot --------------------------------------------------------------------------
def take(rt: Runtime, project_name: str | None, out: Path) -> dict[str, Any]:
    """Write the archive of a project to ``out``; returns what it holds."""
    started = time.perf_counter()
    project = rt.settings.project(project_name, create=True)
    store = rt.projects.store(project)
    if store.current_generation(project.name) is None:
        raise InvalidProject(f"project {project.name!r} has no index to snapshot",
                             "list projects with `citeloom projects`")
    out = out.expanduser().absolute()
    if out.is_dir():
        raise InvalidInput(f"{out} is a folder", "give the archive's file name, e.g. "
                           f"{project.name}.tar.gz")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = _staging(rt.settings.index_dir, "snapshot", project.name)
    try:
        # Opened first (waiting, if need be, for another process to let go of it), so that
        # no query of this process waits for that behind the lock.
        rt.projects.index(project.name).count()
        with rt.projects.swap:  # no write step meanwhile: the index and the catalog of one moment
            index = rt.projects.index(project.name)
            lock = index.lock()
            if lock is None:
                raise InvalidProject(f"project {project.name!r} has no index to snapshot",
                                     f"ingest into it first: `citeloom ingest PATH -p "
                                     f"{project.name}`")
            chunks = index.count()
            store.snapshot(project.name, staging / INDEX)
            catalog = rt.projects.catalog(project.name)
            catalog.backup(staging / CATALOG)
            documents = len(catalog)
        manifest = {
            "format": FORMAT, "citeloom_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "project": project.name, "backend": project.backend,
            "generation": index.generation, "model_lock": lock.to_dict(),
            "counts": {"chunks": chunks, "documents": documents},
            "dirs": sorted(p.relative_to(staging).as_posix()
                           for p in staging.rglob("*") if p.is_dir()),
            "files": [_describe(staging, p) for p in sorted(staging.rglob("*"))
                      if p.is_file()],
        }
        _write_archive(out, staging, manifest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return {"project": project.name, "archive": str(out), "bytes": out.stat().st_size,
            "generation": manifest["generation"], "chunks": chunks, "documents": documents,
            "files": len(manifest["files"]), "model_lock": manifest["model_lock"],
            "citeloom_version": __version__,
            "seconds": round(time.perf_counter() - started, 3)}


_STAGING = re.compile(r"^\.(?:snapshot|restore)-(\d+)-")


def _staging(index_dir: Path, kind: str, name: str) -> Path:
    """A new staging folder beside the indexes (hidden: no project is listed from it). Those
    left by a process that died mid-snapshot or mid-restore are removed first."""
    index_dir.mkdir(parents=True, exist_ok=True)
    for old in index_dir.iterdir():
        m = _STAGING.match(old.name)
        if m and int(m.group(1)) != os.getpid() and not pid_alive(int(m.group(1))):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f".{kind}-{os.getpid()}-{name}-", dir=index_dir))


def _describe(root: Path, path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        stored = data_end(f.fileno(), size)
        digest = hashlib.sha256()
        left = stored
        while left > 0:
            chunk = f.read(min(_BUF, left))
            if not chunk:
                raise InternalError(f"{path} shrank while it was read")
            digest.update(chunk)
            left -= len(chunk)
    return {"path": path.relative_to(root).as_posix(), "size": size, "stored": stored,
            "sha256": digest.hexdigest()}


def _write_archive(out: Path, staging: Path, manifest: dict[str, Any]) -> None:
    data = json.dumps(manifest, indent=2, sort_keys=True).encode()
    now = int(time.time())

    def info(name: str, size: int) -> tarfile.TarInfo:
        ti = tarfile.TarInfo(name)
        ti.size, ti.mode, ti.mtime = size, 0o600, now
        return ti

    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    mode = "w:gz" if out.name.endswith((".gz", ".tgz")) else "w"
    try:
        with open(tmp, "wb") as raw:
            with tarfile.open(fileobj=raw, mode=mode, format=tarfile.PAX_FORMAT) as tar:
                for name, blob in ((MANIFEST, data),
                                   (MANIFEST_SUM, hashlib.sha256(data).hexdigest().encode())):
                    tar.addfile(info(name, len(blob)), _BytesReader(blob))
                for f in manifest["files"]:
                    with open(staging / f["path"], "rb") as fh:  # its first ``stored`` bytes
                        tar.addfile(info(f["path"], f["stored"]), fh)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class _BytesReader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def read(self, n: int = -1) -> bytes:
        end = len(self.data) if n < 0 else self.pos + n
        chunk, self.pos = self.data[self.pos:end], min(end, len(self.data))
        return chunk


# -- reading and checking an archive ------------------------------------------------------------
def verify(archive: Path) -> dict[str, Any]:
    """The archive's manifest, once every member has been read and matched its checksum
    and the members are exactly the manifest's files. Writes nothing anywhere."""
    return _read(archive, None)


def _read(archive: Path, target: Path | None) -> dict[str, Any]:
    """Stream through the archive, checking it; with ``target``, also write each file there
    (as it is checked: a bad one raises before the caller uses any of them)."""
    if not archive.is_file():
        raise SourceNotFound(f"{archive} does not exist", "check the archive's path")
    try:
        with tarfile.open(archive, "r:*") as tar:
            return _members(tar, target)
    except CiteLoomError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, ValueError, TypeError,
            KeyError) as exc:  # not OSError at large: a full disk is no damaged archive
        raise SnapshotInvalid(f"{archive.name} is not a readable CiteLoom snapshot: "
                              f"{type(exc).__name__}: {exc}") from None


def _bad(archive_part: str) -> SnapshotInvalid:
    return SnapshotInvalid(f"the snapshot is damaged or incomplete: {archive_part}")


def _small(tar: tarfile.TarFile, member: tarfile.TarInfo | None, name: str) -> bytes:
    if member is None or member.name != name or not member.isfile():
        raise _bad(f"it does not start with {name}")
    if member.size > _MAX_MANIFEST:
        raise _bad(f"{name} is {member.size} bytes")
    f = tar.extractfile(member)
    assert f is not None
    return f.read()


def _members(tar: tarfile.TarFile, target: Path | None) -> dict[str, Any]:
    members = iter(tar)
    raw = _small(tar, next(members, None), MANIFEST)
    if _small(tar, next(members, None), MANIFEST_SUM).decode().strip() != \
            hashlib.sha256(raw).hexdigest():
        raise _bad("manifest.json does not match its checksum")
    manifest = json.loads(raw)
    expected = _check_manifest(manifest)
    if target is not None:
        for d in manifest["dirs"]:
            (target / d).mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for member in members:
        entry = expected.get(member.name)
        if entry is None or member.name in seen:
            raise _bad(f"unexpected member {member.name!r}")
        if not member.isfile() or member.size != entry["stored"]:
            raise _bad(f"{member.name} is not the file the manifest lists")
        src = tar.extractfile(member)
        assert src is not None
        _copy_checked(src, entry, None if target is None else target / member.name)
        seen.add(member.name)
    missing = sorted(set(expected) - seen)
    if missing:
        raise _bad(f"{len(missing)} file(s) missing (cut short?), e.g. {missing[0]}")
    fileobj = tar.fileobj
    assert fileobj is not None
    while fileobj.read(_BUF):  # to the end: gzip checks its CRC and length there
        pass
    return manifest


def _copy_checked(src: IO[bytes], entry: dict[str, Any], dest: Path | None) -> None:
    digest = hashlib.sha256()
    out = None
    if dest is not None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        out = open(dest, "wb")  # noqa: SIM115 - closed below, after the size is set
    try:
        left = entry["stored"]
        while left > 0:
            chunk = src.read(min(_BUF, left))
            if not chunk:
                raise _bad(f"{entry['path']} ends early")
            digest.update(chunk)
            if out is not None:
                out.write(chunk)
            left -= len(chunk)
        if out is not None:
            out.truncate(entry["size"])  # the preallocated rest, as a hole
    finally:
        if out is not None:
            out.close()
    if digest.hexdigest() != entry["sha256"]:
        raise _bad(f"{entry['path']} does not match its checksum")


def _safe(path: Any) -> bool:
    if not isinstance(path, str) or not path or "\\" in path:
        return False
    p = PurePosixPath(path)
    return (not p.is_absolute() and ".." not in p.parts and p.as_posix() == path
            and (path == CATALOG or (p.parts[0] == INDEX and len(p.parts) > 1)))


def _check_manifest(m: Any) -> dict[str, dict[str, Any]]:
    """The manifest's files by path, once its shape is what this version writes."""
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        fmt = m.get("format") if isinstance(m, dict) else None
        raise SnapshotInvalid(f"not a CiteLoom snapshot of format {FORMAT} ({fmt!r})",
                              "restore it with the CiteLoom version that made it")
    try:
        ModelLock(**m["model_lock"])
        counts = m["counts"]
        ok = (isinstance(m["project"], str) and isinstance(m["backend"], str)
              and all(isinstance(counts[k], int) for k in ("chunks", "documents"))
              and all(isinstance(d, str) and (d == INDEX or _safe(d)) for d in m["dirs"]))
    except (KeyError, TypeError):
        ok = False
    if not ok:
        raise _bad("manifest.json lacks fields or has wrong ones")
    files: dict[str, dict[str, Any]] = {}
    for f in m["files"]:
        if not (isinstance(f, dict) and _safe(f.get("path")) and f["path"] not in files
                and isinstance(f.get("size"), int) and isinstance(f.get("stored"), int)
                and 0 <= f["stored"] <= f["size"] and _SHA.match(str(f.get("sha256")))):
            raise _bad(f"manifest.json lists a bad file entry {f!r:.120}")
        files[f["path"]] = f
    if CATALOG not in files:
        raise _bad("manifest.json lists no catalog")
    return files


# -- restoring ---------------------------------------------------------------------------------
def restore(rt: Runtime, archive: Path, project_name: str | None, *,
            force: bool = False) -> dict[str, Any]:
    """Restore ``archive`` as a project; see the module's docstring for the order of
    things. ``force`` replaces an existing project (its old generation is dropped once the
    new one is current)."""
    started = time.perf_counter()
    archive = archive.expanduser().absolute()
    project = rt.settings.project(project_name, create=True)
    store = rt.projects.store(project)
    _refuse_existing(store, project.name, force)
    manifest = verify(archive)  # before anything is written
    if manifest["backend"] != project.backend:
        raise InvalidInput(f"the snapshot is of a {manifest['backend']} index; project "
                           f"{project.name!r} uses the {project.backend} backend",
                           "restore it under a name configured for that backend")
    lock = ModelLock(**manifest["model_lock"])
    root = rt.settings.index_dir / project.name
    with rt.projects.writer(project.name):  # no ingest or reindex of the project meanwhile
        existed = _refuse_existing(store, project.name, force)
        had_folder = root.exists()
        staging = _staging(rt.settings.index_dir, "restore", project.name)
        new = None
        try:
            if _read(archive, staging) != manifest:
                raise SnapshotInvalid(f"{archive.name} changed while it was restored",
                                      "restore it again once nothing writes to it")
            new = store.restore(project.name, staging / INDEX)
            if new.lock() != lock or new.count() != manifest["counts"]["chunks"]:
                raise _bad("the restored index does not hold what the manifest says")
            _swap_in(rt, store, project.name, new, staging / CATALOG)
        except BaseException:
            if new is not None and store.current_generation(project.name) != new.generation:
                store.drop(project.name, new)
            if not existed and not had_folder:
                shutil.rmtree(root, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return {"project": project.name, "from_project": manifest["project"],
            "archive": str(archive), "replaced": existed, "generation": new.generation,
            "chunks": manifest["counts"]["chunks"],
            "documents": manifest["counts"]["documents"], "model_lock": lock.to_dict(),
            "config_matches_lock": lock == rt.models.model_lock(project),
            "snapshot_version": manifest["citeloom_version"], "created": manifest["created"],
            "seconds": round(time.perf_counter() - started, 3)}


def _refuse_existing(store: Any, name: str, force: bool) -> bool:
    exists = store.current_generation(name) is not None
    if exists and not force:
        raise InvalidInput(f"project {name!r} already exists",
                           "restore under a new name (-p NEW), or pass --force to replace "
                           "it (the swap is atomic; its current index is dropped)")
    return exists


def _swap_in(rt: Runtime, store: Any, name: str, new: Any, catalog: Path) -> None:
    """Make the restored generation current, then put its catalog in place of the old one
    (closed first; its WAL and shared-memory files go, or SQLite would replay them onto the
    new one): the order a reindex keeps (index, then catalog), all under ``_swap``."""
    root = rt.settings.index_dir / name
    with rt.projects.swap:
        old = rt.projects.open_indexes.pop(name, None)
        cat = rt.projects.open_catalogs.pop(name, None)
        if cat is not None:
            cat.close()
        store.promote(name, new)
        rt.projects.open_indexes[name] = new
        if old is not None and old is not new:
            old.close()
        root.mkdir(parents=True, exist_ok=True)
        for suffix in ("-wal", "-shm"):
            (root / (CATALOG + suffix)).unlink(missing_ok=True)
        os.replace(catalog, root / CATALOG)
