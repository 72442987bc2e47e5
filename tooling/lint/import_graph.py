"""The import graph of a few packages, read from their source, and the cycles in it.

Only module-level imports count: an import inside a function runs when it is called, not when
the module loads. Imports under `if TYPE_CHECKING:` do count: a cycle through annotations still
ties the modules together (neither can be read or moved without the other), and import-linter's
graph counts them too.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

Graph = Mapping[str, Iterable[str]]
"""Each module's name -> the names of the modules of the graph it imports."""


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Each module of `packages` (folders under `root`) by its dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Which modules of `packages` each of their modules imports at module level."""
    files = module_files(root, packages)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        home = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = {
            _known(target, files)
            for node in _module_level_imports(tree.body)
            for target in _targets(node, home, files)
        }
        graph[module] = {target for target in targets if target and target != module}
    return graph


def _module_level_imports(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            yield from _module_level_imports(node.body)
            yield from _module_level_imports(node.orelse)
        elif isinstance(node, ast.With):
            yield from _module_level_imports(node.body)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level_imports(block)
            for handler in node.handlers:
                yield from _module_level_imports(handler.body)


def _targets(node: ast.Import | ast.ImportFrom, home: str, files: Mapping[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = home.split(".")
        anchor = ".".join(parts[: len(parts) - node.level + 1])
        base = f"{anchor}.{base}" if base else anchor
    # `from a.b import c` imports the module a.b.c when there is one, else a name of a.b.
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]


def _known(name: str, files: Mapping[str, Path]) -> str:
    """`name`, or its nearest enclosing module of the graph; "" for a module outside it."""
    while name and name not in files:
        name = name.rpartition(".")[0]
    return name


def cycles(graph: Graph) -> list[list[str]]:
    """One loop per tangle of modules that import each other, as `[a, b, ..., a]`: the shortest
    from the tangle's first module (by name) back to itself. Empty when the graph has none."""
    edges = {module: sorted(set(imported) & graph.keys()) for module, imported in graph.items()}
    return [_loop(min(group), edges, group) for group in _tangles(edges)]


def _tangles(edges: Mapping[str, list[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for imported in edges[module]:
            if imported not in order:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], order[imported])
        if low[module] == order[module]:
            group: set[str] = set()
            while not group or module not in group:
                group.add(stack.pop())
            if len(group) > 1:
                found.append(group)

    for module in sorted(edges):
        if module not in order:
            visit(module)
    return sorted(found, key=min)


def _loop(start: str, edges: Mapping[str, list[str]], group: set[str]) -> list[str]:
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for imported in edges[module]:
            if imported == start:
                path = [module]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if imported in group and imported not in came_from:
                came_from[imported] = module
                queue.append(imported)
    raise AssertionError(f"{start} is in a tangle but no loop leads back to it")


def facade_importers(graph: Graph, facade: str) -> list[str]:
    """The modules other than `facade` itself that import it."""
    return sorted(name for name, imported in graph.items() if name != facade and facade in imported)
