"""The runtime package's import graph has no cycle: counting every import of one of its modules,
those under `if TYPE_CHECKING:` and inside functions too (a cycle hidden from the interpreter is
still one for a reader and for the next change). What one attempt's connectors share is in
`flowc_runtime/attempt.py`, which `run.py`, `attempts.py` and `connectors/*` import; `run.py`
drives the connectors, and no connector imports `run.py` back."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "templates" / "python" / "flowc_runtime"


def module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path) -> dict[str, Path]:
    return {module_name(package, p): p for p in sorted(package.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` (at `path`) imports, wherever the import stands."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                here = name.split(".") if is_package else name.split(".")[:-1]
                up = here[: len(here) - (node.level - 1)]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    found.add(sub)  # `from . import attempts`: the module itself
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def graph(package: Path) -> dict[str, set[str]]:
    mods = modules(package)
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(groups)


def test_the_runtime_package_has_no_import_cycle() -> None:
    edges = graph(PACKAGE)
    assert "flowc_runtime.run" in edges and "flowc_runtime.connectors.base" in edges
    assert cycles(edges) == []


def test_no_connector_imports_the_protocol_driver() -> None:
    edges = graph(PACKAGE)
    for name, targets in edges.items():
        if name.startswith("flowc_runtime.connectors"):
            assert "flowc_runtime.run" not in targets, name


def test_the_check_finds_a_cycle_hidden_under_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "flowc_runtime"
    (package / "connectors").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "run.py").write_text("from .connectors import base\n")
    (package / "connectors" / "__init__.py").write_text("")
    (package / "connectors" / "base.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..run import Attempt\n"
    )
    assert cycles(graph(package)) == [["flowc_runtime.connectors.base", "flowc_runtime.run"]]
