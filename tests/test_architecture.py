"""The shape of the package, checked: modules stay small, imports flow one way (no cycle,
deferred and type-only imports included) along a table of which package may import which,
the root holds only what everything uses, no module reads another's private names, and
every error code a user can see is declared in errors.py."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "citeloom"
MAX_LINES = 700


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = ["citeloom", *path.relative_to(SRC).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every citeloom module ``name`` imports, wherever the import statement is (module
    level, inside a function, or only for type checkers: a type is a dependency too)."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in modules else target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
    return {m for m in found if m in modules and m not in own}


def test_no_module_is_over_700_lines() -> None:
    big = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"split these modules: {big}"


def test_no_import_cycle_deferred_imports_included() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph["citeloom.service.app"] >= {"citeloom.ingest.pipeline", "citeloom.sources"}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                dfs(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            dfs(name)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_cycle_check_sees_deferred_imports(tmp_path: Path) -> None:
    """The checker itself: a function-level import counts, and a TYPE_CHECKING one too."""
    mod = tmp_path / "m.py"
    mod.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from citeloom import cli\n"
                   "def f():\n    from .index import base\n    import citeloom.errors\n")
    modules = {"citeloom.x.m": mod, "citeloom.x.index.base": mod, "citeloom.errors": mod,
               "citeloom.cli": mod}
    assert _imports("citeloom.x.m", mod, modules) == {"citeloom.x.index.base",
                                                      "citeloom.errors", "citeloom.cli"}


# What each room may import: the foundations (the root's modules) always; the rest by role,
# downwards (docs/ARCHITECTURE.md draws it). A new arrow is a design decision: add it here
# with its reason, or move the code.
FOUNDATIONS = {"errors", "config", "logs", "payload", "provision", "report", "system", "text",
               "_bert_onnx"}
ALLOWED: dict[str, set[str]] = {
    "zotero": set(),
    "convert": set(),
    "structure": {"convert", "zotero"},  # the health ledger; DOIs found as Zotero does
    "embed": {"structure"},  # chunks know heading kinds
    "index": {"embed"},  # the Sparse vector type
    "sources": {"index", "zotero"},  # the catalog; Zotero items
    "runtime": {"convert", "embed", "index", "zotero"},  # what the process holds open
    "ingest": {"runtime", "sources", "convert", "structure", "embed", "index", "zotero"},
    "search": {"runtime", "embed", "index"},
    "service": {"runtime", "ingest", "search", "sources", "convert", "structure", "embed",
                "index", "zotero"},
    "daemon": {"service", "search", "index"},  # both ends of the wire; result types
    "mcp": {"service", "daemon", "index"},
    "cli": {"service", "daemon", "mcp", "eval", "index"},  # launches mcp/daemon/eval
    "eval": {"service", "index", "cli"},  # measures the CLI's printed answer (cli.output)
}
ROOT_LIMIT = 10


def _room(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "citeloom"
    return parts[1]


def test_packages_import_only_what_the_table_allows() -> None:
    modules = _modules()
    rooms = {_room(m) for m in modules} - {"citeloom"}
    assert rooms - FOUNDATIONS == set(ALLOWED), "every package has a row in ALLOWED"
    wrong = []
    for name, path in modules.items():
        room = _room(name)
        for dep in _imports(name, path, modules):
            other = _room(dep)
            if other in (room, "citeloom") or other in FOUNDATIONS and room not in FOUNDATIONS:
                continue
            if room in FOUNDATIONS:
                if other not in FOUNDATIONS:
                    wrong.append(f"{name} -> {dep} (the root imports nothing above it)")
            elif other not in ALLOWED[room]:
                wrong.append(f"{name} -> {dep}")
    assert not wrong, "imports the table does not allow:\n" + "\n".join(sorted(wrong))


def test_the_root_keeps_only_what_everything_uses() -> None:
    root = sorted(p.name for p in SRC.glob("*.py"))
    assert len(root) <= ROOT_LIMIT, root
    assert {p.removesuffix(".py") for p in root} - {"__init__"} <= FOUNDATIONS


def test_no_module_reads_another_modules_private_names() -> None:
    """``from citeloom.x import _name`` and ``module._name`` of a citeloom module are
    private reads; a module's own names and other libraries' are not checked here."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("citeloom"):
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in modules:
                        aliases[a.asname or a.name] = full
                    elif a.name.startswith("_") and not a.name.startswith("__"):
                        found.append(f"{name}: from {node.module} import {a.name}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                found.append(f"{name}: {node.value.id}.{node.attr}")
    assert not found, "private reads across modules:\n" + "\n".join(sorted(found))
