"""The import layers: every module of ``reasoner`` and ``client`` imports only from its own
layer or the layers below it, and no packages or modules import each other in a circle.

The layers, from the bottom up, are :data:`LAYERS`; each names its parts (a part is one or
more packages or modules, by dotted prefix). The check reads every module's import
statements with :mod:`ast` (at any depth: an import inside a function, or under
``TYPE_CHECKING``, is a dependency too) and runs nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP_PACKAGES = ("reasoner", "client")


@dataclass(frozen=True)
class Layer:
    """One layer: what it holds, in words, and its parts by name, each part one or more
    dotted prefixes (a prefix is a module, or a package and everything in it; ``X.__init__``
    is the package's own ``__init__.py`` alone)."""

    name: str
    holds: str
    parts: Mapping[str, tuple[str, ...]]


# From the bottom up. A module may import from its own layer and the layers below it; the
# parts of one layer may import each other, but never in a circle.
LAYERS: tuple[Layer, ...] = (
    Layer("foundation", "the error hierarchy and its codes, the wire's generated code and its "
          "request batches, child processes that die with their owner", {
              "errors": ("reasoner.errors", "reasoner.error_codes", "reasoner.arguments"),
              "wire": ("reasoner.v1", "reasoner.session_batches"),
              "children": ("reasoner.children",),
          }),
    Layer("gdl", "reading, checking and rewriting game descriptions", {
        "gdl": ("reasoner.gdl",),
    }),
    # Above gdl: a move written by a person is looked up as its parsed term.
    Layer("core", "states, moves, joint moves, state infos, simulations, evaluations, the "
          "walk, the state cache, the game view that Game and RemoteGame share, and match "
          "outcomes", {
              "core": ("reasoner.core",),
          }),
    Layer("backends", "the state machines and the reference solver", {
        "reference": ("reasoner.reference",),
        "asp": ("reasoner.asp",),
        "propnet": ("reasoner.propnet",),
        "topdown": ("reasoner.topdown",),
        "compiled": ("reasoner.compiled",),
    }),
    Layer("engine", "Game over its backends, and the load's limits", {
        "engine": ("reasoner.engine",),
    }),
    # The package's face wires the heuristics in as what a Game evaluates with.
    Layer("tools", "what works over a loaded game: heuristics, grounding-only runs, "
          "cross-checks, corpus runs; the package's face", {
              "heuristics": ("reasoner.heuristics",),
              "instantiate": ("reasoner.instantiate",),
              "crosscheck": ("reasoner.crosscheck",),
              "corpus": ("reasoner.corpus",),
              "face": ("reasoner.__init__",),
          }),
    Layer("server", "the gRPC service", {
        "server": ("reasoner.server",),
    }),
    Layer("client", "the client library, its players and matches", {
        "client": ("client",),
    }),
    Layer("console", "what every command shares: the error contract, the options' domains, "
          "progress lines, the client adapter", {
              "console": ("reasoner.console",),
          }),
    Layer("web", "the web page: the game library, boards, played, watched and replayed "
          "matches, a position's inspection", {
              "web": ("reasoner.web",),
          }),
    Layer("workshop", "the benchmarks, stress, fuzzing and sweeps, and their commands", {
        "workshop": ("reasoner.workshop",),
    }),
    Layer("commands", "the user commands and the parser that holds every command", {
        "commands": ("reasoner.cli",),
    }),
)


# -- reading the modules -------------------------------------------------------------------


def _module_name(path: Path) -> str:
    """``reasoner/engine/game.py`` -> ``reasoner.engine.game``; a package's ``__init__.py``
    keeps ``__init__`` (``reasoner.heuristics.__init__``)."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _modules() -> dict[str, Path]:
    """Every Python module of the top packages, by name."""
    found: dict[str, Path] = {}
    for package in TOP_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" not in path.parts:
                found[_module_name(path)] = path
    return found


def _resolve(name: str, known: set[str]) -> str | None:
    """The module that the dotted ``name`` imports: itself, or its package's
    ``__init__``; None outside the top packages or for what has no ``.py`` (a compiled
    extension)."""
    if name in known:
        return name
    if f"{name}.__init__" in known:
        return f"{name}.__init__"
    return None


def _imports(module: str, tree: ast.AST, known: set[str]) -> set[str]:
    """The modules of the top packages that ``tree`` (module ``module``) imports."""
    package = module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` imports the module; `from module import name`
            # the module.
            targets = [f"{base}.{alias.name}" if _resolve(f"{base}.{alias.name}", known)
                       else base for alias in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != module:
                found.add(resolved)
    return found


def import_graph() -> dict[str, set[str]]:
    """Every module of the top packages with the modules of the top packages it imports."""
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, ast.parse(path.read_text(encoding="utf-8"), str(path)), known)
            for name, path in modules.items()}


# -- the checks ---------------------------------------------------------------------------


def part_of(module: str, layers: tuple[Layer, ...] = LAYERS) -> tuple[int, str] | None:
    """The layer (its index, from the bottom) and the part that ``module`` is on: the
    part with the longest prefix that names it or a package above it; None if none does."""
    best: tuple[int, int, str] | None = None
    for index, layer in enumerate(layers):
        for part, prefixes in layer.parts.items():
            for prefix in prefixes:
                named = module == prefix or module.startswith(prefix + ".")
                if named and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), index, part)
    return None if best is None else (best[1], best[2])


def imports_from_above(graph: Mapping[str, set[str]],
                       layers: tuple[Layer, ...] = LAYERS) -> list[str]:
    """Every import of a module from a layer above its own, as ``importer -> imported``
    with both layers."""
    found = []
    for module, imported in sorted(graph.items()):
        own = part_of(module, layers)
        for target in sorted(imported):
            theirs = part_of(target, layers)
            if own is not None and theirs is not None and theirs[0] > own[0]:
                found.append(f"{module} ({layers[own[0]].name}) -> {target} "
                             f"({layers[theirs[0]].name})")
    return found


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The circles of ``graph``: its strongly connected components of more than one node
    (Tarjan's algorithm), each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, ()):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def part_graph(graph: Mapping[str, set[str]],
               layers: tuple[Layer, ...] = LAYERS) -> dict[str, set[str]]:
    """The parts that each part imports (its modules' imports, other parts only)."""
    parts: dict[str, set[str]] = {}
    for module, imported in graph.items():
        own = part_of(module, layers)
        if own is None:
            continue
        targets = parts.setdefault(own[1], set())
        for target in imported:
            theirs = part_of(target, layers)
            if theirs is not None and theirs[1] != own[1]:
                targets.add(theirs[1])
    return parts


# -- the tests ----------------------------------------------------------------------------


def test_every_module_is_on_a_layer() -> None:
    """Every module of reasoner and client is on exactly one part of one layer (a new
    package needs a place in LAYERS before it can be checked)."""
    graph = import_graph()
    assert len(graph) > 100
    assert [module for module in graph if part_of(module) is None] == []


def test_the_part_names_are_unique() -> None:
    """No two layers name a part alike (the circle check between parts goes by name)."""
    names = [part for layer in LAYERS for part in layer.parts]
    assert len(names) == len(set(names))


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    """Every import points to the module's own layer or one below it: the backends do
    not import the engine, the engine does not import the heuristics, and so on."""
    found = imports_from_above(import_graph())
    assert not found, "\n".join(found)


def test_no_parts_import_each_other_in_a_circle() -> None:
    """The parts (packages) import each other without a circle, in a layer too: between
    the backends, asp is under propnet, never both ways."""
    found = circles(part_graph(import_graph()))
    assert not found, "\n".join(" <-> ".join(circle) for circle in found)


def test_no_modules_import_each_other_in_a_circle() -> None:
    """No modules import each other in a circle, not even two of one package (as the
    heuristics' registry and its per-game evaluation once did)."""
    found = circles(import_graph())
    assert not found, "\n".join(" <-> ".join(circle) for circle in found)


def test_the_check_sees_an_import_from_above() -> None:
    """A backend module that imported the engine would be reported, with both layers."""
    graph = {"reasoner.asp.machine": {"reasoner.engine.game", "reasoner.core.values"}}
    assert imports_from_above(graph) == [
        "reasoner.asp.machine (backends) -> reasoner.engine.game (engine)"]


def test_the_check_sees_a_circle() -> None:
    """Three modules that import each other in a ring make one circle; a module that
    imports one of them without a way back is not on it."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_check_reads_lazy_and_type_checking_imports() -> None:
    """An import inside a function or under TYPE_CHECKING counts as much as one at the top:
    the heuristics' registry names the goal distances under TYPE_CHECKING and imports
    mobility inside its builders."""
    imported = import_graph()["reasoner.heuristics.table"]
    assert {"reasoner.heuristics.distances", "reasoner.heuristics.mobility"} <= imported
