"""What a running daemon takes from each command's settings, and what must agree.

A command resolves its settings (``--config``, environment, ``.env``) in its own process;
the daemon was started with the settings of whichever command started it. Each request
carries the command's *library view* (:func:`view`): the settings that decide what an
operation reads or writes. The daemon compares it with its own for the projects the request
touches and refuses a request whose view differs (:class:`DaemonSettingsDiffer`), naming
the settings, both values and the daemon's config file. Everything else is either the
command's own (applied where the command runs: project names, MCP limits, the log file,
workers of a job) or the daemon process's own (threads, idle timers), which changes no
result. The table is in the README's daemon section and docs/DECISIONS.md.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from citeloom.errors import DaemonSettingsDiffer

if TYPE_CHECKING:
    from citeloom.config import Settings

#: Library-wide settings a command and the daemon must share (besides each project's).
SHARED = ("models_dir", "qdrant_url", "qdrant_api_key", "zotero", "cluster")
KEY = "_settings"  # the request field that carries the command's view


def _plain(value: Any) -> Any:
    """JSON for comparing: secrets as digests (never sent), paths as strings."""
    from pydantic import BaseModel, SecretStr

    if isinstance(value, SecretStr):
        return "sha256:" + hashlib.sha256(value.get_secret_value().encode()).hexdigest()[:16]
    if isinstance(value, BaseModel):
        return {k: _plain(getattr(value, k)) for k in type(value).model_fields}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def view(settings: Settings) -> dict[str, Any]:
    """The settings of ``settings`` that a daemon must share with a command."""
    return {"config": str(settings.config_path or ""),
            **{name: _plain(getattr(settings, name)) for name in SHARED},
            "projects": {name: _plain(cfg) for name, cfg in settings.projects.items()}}


def differences(daemon: dict[str, Any], command: dict[str, Any],
                projects: list[str] | None) -> list[str]:
    """Each setting that differs, as ``name: the command's value ≠ the daemon's``; for the
    projects named (None: every project either side configures)."""
    out = [line for name in SHARED
           for line in _differ(name, command.get(name), daemon.get(name))]
    mine, theirs = daemon.get("projects", {}), command.get("projects", {})
    names = sorted(set(mine) | set(theirs)) if projects is None else projects
    for name in names:
        a, b = theirs.get(name), mine.get(name)
        if a is not None and b is not None:
            out += _differ(f"projects.{name}", a, b)
        elif a != b:
            where = "the daemon's config" if a is None else "this command's"
            out.append(f"project {name!r} is configured only in {where}")
    return out


def _differ(name: str, command: Any, daemon: Any) -> list[str]:
    """Each leaf setting under ``name`` whose values differ."""
    if command == daemon:
        return []
    if isinstance(command, dict) and isinstance(daemon, dict):
        return [line for k in sorted(set(command) | set(daemon))
                for line in _differ(f"{name}.{k}", command.get(k), daemon.get(k))]
    return [f"{name}: {_short(command)} here, {_short(daemon)} in the daemon"]


def _short(value: Any) -> str:
    """The value as written; only a very long one is cut (a path, the thing a person must
    see to fix it, stays whole)."""
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def check(daemon: dict[str, Any], command: dict[str, Any] | None,
          projects: list[str] | None) -> None:
    """Raise :class:`DaemonSettingsDiffer` when ``command``'s view differs from the
    daemon's for these projects. A request without a view (an older client, a test
    calling the socket) is served as before."""
    if command is None:
        return
    found = differences(daemon, command, projects)
    if found:
        where = daemon.get("config") or "no config file (defaults and its environment)"
        raise DaemonSettingsDiffer(
            f"the running daemon serves with other settings than this command's "
            f"(the daemon: {where}; this command: "
            f"{command.get('config') or 'no config file'}): " + "; ".join(found[:6])
            + (f"; and {len(found) - 6} more" if len(found) > 6 else ""))


def touched(args: dict[str, Any]) -> list[str] | None:
    """The projects a request names (None: it reads every project)."""
    if args.get("project"):
        return [str(args["project"])]
    if args.get("projects"):
        return [str(p) for p in args["projects"]]
    return None
