"""The layers import one way only, and nothing of ours imports in a circle.

Every module of ``engine/``, ``renderer/`` and ``bot/`` is parsed with
:mod:`ast` (nothing is imported or run), and every import statement counts:
at module level, inside functions, and under ``if TYPE_CHECKING:``, since an
import dodged into a function or a type-checking block is still a tie.

The layers, lowest first (docs/architecture.md, "The layers"):

- ``engine``: the rules; imports nothing of ours but itself.
- ``i18n``: the translation catalogues; imports nothing of ours, and any layer
  above the engine may word its messages with it.
- ``renderer``: pictures; imports the engine.
- ``bot.store``: persistence, the only place that knows SQL.
- ``bot.ai``: the neural-net adapter.
- ``bot.core``: the application, with no Discord types and no pictures.
- ``bot.ops``: running it as a service (stops, health, metrics, logs, alerts);
  no Discord types: what it watches is handed in.
- ``bot.discord``: the Discord layer; never the store or the AI directly.
- ``bot.__main__``: the composition root, which may wire anything.

A package's longest chain of imports inside it stays within :data:`DEEPEST_CHAIN`
(``pytest -s tests/test_layers.py -k shallow`` prints it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "i18n", "renderer", "bot")

LAYERS: dict[str, set[str]] = {
    # layer: the layers of ours it may import (besides itself)
    "engine": set(),
    "i18n": set(),
    "renderer": {"engine", "i18n"},
    "bot.store": {"i18n", "engine"},
    "bot.ai": {"i18n", "engine"},
    "bot.config": {"i18n", "bot.store"},
    "bot.core": {"i18n", "engine", "bot.store", "bot.ai", "bot.config"},
    "bot.ops": {"i18n", "bot.store", "bot.config"},
    "bot.discord": {"i18n", "engine", "renderer", "bot.core", "bot.config", "bot.ops"},
    "bot.__main__": {
        "i18n",
        "engine",
        "renderer",
        "bot.store",
        "bot.ai",
        "bot.config",
        "bot.core",
        "bot.discord",
        "bot.ops",
    },
    "bot": set(),  # bot/__init__.py
}

LIBRARIES: dict[str, set[str]] = {
    # a third-party or standard library: the only layers that may import it
    "discord": {"bot.discord", "bot.__main__"},
    "sqlite3": {"bot.store"},
    "aiosqlite": {"bot.store"},
    "asyncpg": {"bot.store"},
    "PIL": {"renderer"},
    "matplotlib": {"renderer"},
    "gnubg_nn": {"bot.ai"},
    "bgsage": {"bot.ai"},
    "networkx": {"bot.core"},
    "prometheus_client": {"bot.ops"},
    "babel": {"i18n"},  # Swiss pairings (bot/core/tournaments/pairing.py)
}

UNPLACED: set[str] = set()
"""Modules of bot/ in no layer yet (none: every module has its layer)."""

KNOWN_CYCLES: list[set[str]] = []
"""Import cycles tolerated for now (none)."""

DEEPEST_CHAIN = {"bot.discord": 12}
"""The longest chain of imports inside a package, in modules, that it may reach: a
reader follows a request through at most this many files of the Discord layer."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """(imported name, line) for every import statement in the module: the
    module for ``import a.b``, and ``a.b.c`` for ``from a.b import c`` (which
    :func:`ours` resolves to the module ``a.b.c`` if there is one, else ``a.b``)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                yield f"{target}.{alias.name}", node.lineno


def ours(target: str, known: dict[str, Path]) -> str | None:
    """The module of ours an import names (the longest known prefix), or None."""
    parts = target.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def layer_of(name: str) -> str | None:
    best = None
    for layer in LAYERS:
        if (name == layer or name.startswith(layer + ".")) and (best is None or len(layer) > len(best)):
            best = layer
    return best


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target, _ in imports(name, path):
            module = ours(target, known)
            if module is not None and module != name:
                edges[name].add(module)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def longest_chain(edges: dict[str, set[str]], package: str) -> tuple[str, ...]:
    """The longest chain of imports among the modules of ``package`` (the graph has no cycles)."""
    inside = {name for name in edges if name == package or name.startswith(package + ".")}
    found: dict[str, tuple[str, ...]] = {}

    def chain(name: str) -> tuple[str, ...]:
        if name not in found:
            below = [chain(module) for module in edges[name] if module in inside]
            found[name] = (name, *max(below, key=len, default=()))
        return found[name]

    return max((chain(name) for name in sorted(inside)), key=len, default=())


def test_every_module_is_parsed() -> None:
    known = modules()
    assert {"engine.position", "renderer.board", "bot.__main__"} <= set(known)


def test_each_layer_imports_only_the_layers_below() -> None:
    known = modules()
    broken = []
    for name, path in known.items():
        layer = layer_of(name)
        if name in UNPLACED or layer is None:
            continue
        allowed = LAYERS[layer] | {layer}
        for target, line in imports(name, path):
            module = ours(target, known)
            if module is None or module in UNPLACED:
                continue
            target_layer = layer_of(module)
            problem = f"{path.relative_to(ROOT)}:{line}: {layer} imports {module} ({target_layer})"
            if target_layer not in allowed and problem not in broken:
                broken.append(problem)
    assert not broken, "imports that break the layer rules:\n" + "\n".join(broken)


def test_libraries_stay_in_their_layer() -> None:
    broken = []
    for name, path in modules().items():
        layer = layer_of(name) or name
        for target, line in imports(name, path):
            library = target.split(".")[0]
            if library in LIBRARIES and layer not in LIBRARIES[library] and name not in UNPLACED:
                broken.append(f"{path.relative_to(ROOT)}:{line}: {layer} imports {library}")
    assert not broken, "libraries outside their layer:\n" + "\n".join(broken)


def test_no_import_cycles() -> None:
    found = cycles(graph())
    unexpected = [c for c in found if not any(c <= known for known in KNOWN_CYCLES)]
    assert not unexpected, "import cycles:\n" + "\n".join(" <-> ".join(sorted(c)) for c in unexpected)


def test_the_layers_stay_shallow() -> None:
    edges = graph()
    for package, bound in DEEPEST_CHAIN.items():
        chain = longest_chain(edges, package)
        print(f"{package}: {len(chain)} levels: " + " -> ".join(chain))
        assert len(chain) <= bound, f"{package} imports {len(chain)} levels deep: " + " -> ".join(chain)


def test_the_checker_measures_the_longest_chain_inside_a_package() -> None:
    edges = {"p.a": {"p.b", "q.x"}, "p.b": {"p.c"}, "p.c": set(), "q.x": {"q.y"}, "q.y": set(), "p.d": {"p.c"}}
    assert longest_chain(edges, "p") == ("p.a", "p.b", "p.c")  # q's modules are not counted


def test_the_checker_sees_a_cycle_and_a_dodged_import(tmp_path: Path) -> None:
    """The rules above can fail: a function-level import closing a circle is found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [{"a", "b", "c"}]
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from bot.app import BackgammonBot\n"
        "def f():\n    from bot.storage import Store\n"
        "from . import sibling\n"
    )
    found = {t for t, _ in imports("bot.discord.m", module)}
    assert {"bot.app.BackgammonBot", "bot.storage.Store", "bot.discord.sibling"} <= found
    known = {"bot": module, "bot.app": module, "bot.discord": module, "bot.discord.sibling": module}
    assert ours("bot.app.BackgammonBot", known) == "bot.app"  # a name from a module
    assert ours("bot.discord.sibling", known) == "bot.discord.sibling"  # a module from a package
