"""No import cycle anywhere in src/tapete, hidden ones included.

Every module's imports are read statically (``ast``): at the top, inside functions and under
``if TYPE_CHECKING``, absolute and relative, ``import a.b`` and ``from a.b import c`` (an edge
to ``a.b.c`` when that is a module, else to ``a.b``, a package meaning its ``__init__``). The
graph of tapete modules must have no cycle; the test names every one it finds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import tapete

SRC = Path(tapete.__file__).resolve().parent

#: Cycles tolerated: none (the last one, bots/mariage_rules <-> bots/mariage_search, went when
#: the Mariage exact solver moved to tapete/solver/mariage.py).
ALLOWED: set[frozenset[str]] = set()


def module_names() -> dict[str, Path]:
    """Every tapete module (a package by its own name) -> its file; compiled extensions
    (``solver/_core``) too, as modules that import nothing of tapete."""
    names = {}
    # the sources first: a module compiled with mypyc keeps its .py beside the .so
    for path in [
        *sorted(SRC.rglob("*.py")),
        *sorted(SRC.rglob("*.so")),
        *sorted(SRC.rglob("*.pyd")),
    ]:
        stem = path.name.split(".")[0]
        parts = ("tapete", *path.relative_to(SRC).parent.parts, stem)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.setdefault(".".join(parts), path)
    return names


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The tapete modules that module ``name`` imports, anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    yield sub
                elif target in known:
                    yield target


def import_graph() -> dict[str, set[str]]:
    names = module_names()
    known = set(names)
    return {
        name: {t for t in imports_of(name, path, known) if t != name}
        if path.suffix == ".py"
        else set()
        for name, path in names.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one
    cycle through all of its modules when there is one, else its modules in order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, for the message."""
    start = component[0]
    inside = set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v] & inside):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    return component  # pragma: no cover - a component always has a cycle


def test_the_graph_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    pkg = tmp_path / "tapete"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from tapete.sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import g\n")
    (pkg / "sub" / "b.py").write_text("import tapete.a\nfrom .. import a\n")
    known = {"tapete", "tapete.a", "tapete.sub", "tapete.sub.b"}
    assert set(imports_of("tapete.a", pkg / "a.py", known)) == {"tapete.sub.b"}
    assert set(imports_of("tapete.sub", pkg / "sub" / "__init__.py", known)) == {"tapete.sub.b"}
    assert set(imports_of("tapete.sub.b", pkg / "sub" / "b.py", known)) == {"tapete.a"}
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert shortest_cycle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]


def test_the_graph_knows_the_real_imports() -> None:
    graph = import_graph()
    assert "tapete.mil.record" in graph["tapete.mil.kind"]
    assert "tapete.reader" in graph["tapete.mil.record"]
    assert "tapete.replay" in graph["tapete.solver.command"]  # imported inside a function


def test_no_import_cycle_in_tapete() -> None:
    graph = import_graph()
    found = [c for c in cycles(graph) if frozenset(c) not in ALLOWED]
    message = "; ".join(
        " -> ".join(shortest_cycle(graph, c)) + f" (modules in the cycle: {', '.join(c)})"
        for c in found
    )
    assert not found, f"{len(found)} import cycle(s): {message}"


def test_the_record_format_module_imports_no_engine() -> None:
    graph = import_graph()
    assert graph["tapete.records"] == {"tapete.errors"}
