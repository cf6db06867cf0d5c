"""The house order, read from the code's own imports: every import points down a floor or stays on its
floor, and no two modules of the project import each other, however indirectly.

Floors (docs/architecture.md): engine, vision, firmware and drawing on the ground; datasets above them;
referee_app on top. bench/, tests/ and scripts/ stand outside and may import anything. Packages on
one floor may import each other one way only. Every import
counts, also those inside functions or under `if TYPE_CHECKING:`: a lazy import hides a dependency from
the interpreter, not from a reader.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {"engine": 0, "vision": 0, "firmware": 0, "drawing": 0, "datasets": 1, "referee_app": 2}


@cache
def module_files(root: Path) -> dict[str, Path]:
    """Every module of the floored packages, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for top in FLOORS:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(path: Path, name: str) -> list[tuple[str, int]]:
    """The dotted names a module imports (relative imports resolved), with the line of each."""
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package else name.split(".")[:-1]
    names: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # `from a import b` names the module a.b when there is one, else a name inside a
            names.extend((f"{stem}.{alias.name}", node.lineno) for alias in node.names)
    return names


@cache
def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """module -> {imported project module: line}, each import resolved to the deepest module it names
    (a package's __init__ that runs on the way is not counted: it is its own module with its own edges)."""
    modules = module_files(root)
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for target, line in imported_names(path, name):
            parts = target.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            resolved = ".".join(parts)
            if resolved and resolved != name:
                edges.setdefault(resolved, line)
        graph[name] = edges
    return graph


def upward_imports(root: Path) -> list[str]:
    graph = import_graph(root)
    modules = module_files(root)
    faults = []
    for name, edges in graph.items():
        for target, line in edges.items():
            if FLOORS[target.split(".")[0]] > FLOORS[name.split(".")[0]]:
                rel = modules[name].relative_to(root)
                faults.append(f"{rel}:{line} imports {target} (a higher floor)")
    return faults


def package_graph(root: Path) -> dict[str, dict[str, int]]:
    """Top-level package -> {package it imports: how many module imports}."""
    graph: dict[str, dict[str, int]] = {top: {} for top in FLOORS}
    for name, edges in import_graph(root).items():
        for target in edges:
            a, b = name.split(".")[0], target.split(".")[0]
            if a != b:
                graph[a][b] = graph[a].get(b, 0) + 1
    return graph


def import_cycles(root: Path) -> list[list[str]]:
    return cycles(import_graph(root))


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(groups)


def test_every_import_points_down_or_stays_on_its_floor() -> None:
    assert upward_imports(ROOT) == []


def test_no_import_cycle_between_project_modules() -> None:
    assert import_cycles(ROOT) == []


def test_no_two_packages_lean_on_each_other() -> None:
    # the floors allow imports across one floor (drawing -> vision); this keeps them one-way
    assert cycles(package_graph(ROOT)) == []


def test_the_reader_sees_lazy_relative_and_upward_imports(tmp_path: Path) -> None:
    # a miniature tree with one fault of each kind, so the checks above can be trusted to fail
    for folder in ("engine/game", "datasets", "referee_app"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "engine/game/a.py").write_text("from . import b\n")
    (tmp_path / "engine/game/b.py").write_text("def f():\n    from engine.game.a import x\n")
    (tmp_path / "datasets/gen.py").write_text("def g():\n    import referee_app.app\n")
    (tmp_path / "referee_app/app.py").write_text("from datasets import gen\n")
    assert upward_imports(tmp_path) == ["datasets/gen.py:2 imports referee_app.app (a higher floor)"]
    assert import_cycles(tmp_path) == [["datasets.gen", "referee_app.app"], ["engine.game.a", "engine.game.b"]]
    assert cycles(package_graph(tmp_path)) == [["datasets", "referee_app"]]
