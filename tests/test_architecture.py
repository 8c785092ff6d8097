"""The shape of the house (issue 26, STYLE 14 and 15), read from the sources'
own imports, every one of them (a function's included): the wings import
one way only, no module imports one that imports it back, the publishing
side reaches nothing of the checks wing, and no wing uses another's private
names."""

from __future__ import annotations

import ast
from pathlib import Path

from .support import ROOT

PACKAGE = ROOT / "codemods"

# The wings, lowest first: a module may import its own wing and the wings
# below it. `checks` (starts the checkout's processes) and `deliver`
# (commits, branches, the PR) stand side by side and never import each
# other: the publishing side, above delivery, must not reach the checks.
RANKS = {"engine": 0, "recipes": 1, "plan": 2, "checks": 3, "deliver": 3, "publish": 4, "cli": 5}
SIBLINGS_APART = {frozenset({"checks", "deliver"})}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _source(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The module an ``import from`` statement imports from, absolute."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    """The codemods modules an ``import from`` statement loads."""
    target = _source(module, path, node)
    if not target.startswith("codemods"):
        return []
    # `from package import module` loads the module; `from package import name`
    # loads the package (or module) that defines the name
    submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    names = [a.name for a in node.names if f"{target}.{a.name}" not in MODULES]
    return submodules + ([target] if names or not submodules else [])


def imports() -> dict[str, dict[str, int]]:
    """module -> {imported module: line}, for every import anywhere in it."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                targets = _resolve(module, path, node)
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("codemods")]
            else:
                continue
            for target in targets:
                if target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def _wing(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in RANKS) else None


def _cycle(graph: dict[str, dict[str, int]]) -> list[str]:
    """One cycle of the graph (modules in order, the first again last), or []."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for target in graph.get(node, {}):
            if target not in graph:
                continue
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = 2
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def _reach(graph: dict[str, dict[str, int]], start: set[str]) -> dict[str, str]:
    """Every module reachable from ``start``, each with the module that imports it."""
    seen: dict[str, str] = {m: "" for m in start}
    todo = sorted(start)
    while todo:
        module = todo.pop()
        for target in graph.get(module, {}):
            if target in MODULES and target not in seen:
                seen[target] = module
                todo.append(target)
    return seen


def test_every_wing_is_a_package_of_the_codemods_folder() -> None:
    wings = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert wings == set(RANKS), wings
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"], f"modules outside the wings: {top}"


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = imports()
    cycle = _cycle(graph)
    where = " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:]))
    assert not cycle, f"an import cycle: {where}"


def test_the_wings_import_downward_only() -> None:
    up = []
    for module, edges in imports().items():
        mine = _wing(module)
        for target, line in edges.items():
            theirs = _wing(target)
            if mine is None or theirs is None or mine == theirs:
                continue
            if RANKS[theirs] > RANKS[mine] or frozenset({mine, theirs}) in SIBLINGS_APART:
                up.append(f"{MODULES[module].relative_to(ROOT)}:{line} ({mine}) imports {target} ({theirs})")
    assert not up, "imports against the flow:\n" + "\n".join(up)


def test_the_command_line_is_entered_from_the_entry_point_only() -> None:
    inward = [
        f"{module} imports {target}"
        for module, edges in imports().items()
        for target in edges
        if _wing(target) == "cli" and _wing(module) != "cli" and module != "codemods.__main__"
    ]
    assert not inward, inward


def test_nothing_the_publishing_side_imports_belongs_to_the_checks_wing() -> None:
    graph = imports()
    # the publish wing and its commands (`mesh-codemod publish`)
    start = {m for m in MODULES if _wing(m) == "publish"} | {"codemods.cli.github"}
    assert start, "no publishing package"
    reached = _reach(graph, start)
    crossing = []
    for module, by in reached.items():
        if _wing(module) == "checks":
            chain = [module]
            while by:
                chain.append(by)
                by = reached[by]
            crossing.append(" <- ".join(chain))
    assert not crossing, "the publishing side reaches the checks wing:\n" + "\n".join(crossing)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_across_wings() -> list[tuple[str, int, str]]:
    """Each private name (``_name``) of one wing that a module of another
    wing imports or reads as ``module._name``: (file, line, module.name)."""
    return [
        (str(path.relative_to(PACKAGE)), line, name)
        for module, path in MODULES.items()
        for line, name in _privates_used(module, path, path.read_text(encoding="utf-8"))
    ]


def _privates_used(module: str, path: Path, source: str) -> list[tuple[int, str]]:
    found = []
    mine = _wing(module)
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # local name -> the codemods module it holds
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _source(module, path, node)
            for alias in node.names:
                if f"{origin}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{origin}.{alias.name}"
                elif _private(alias.name) and origin in MODULES and _wing(origin) not in (None, mine):
                    found.append((node.lineno, f"{origin}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                elif alias.name.startswith("codemods"):
                    bound["codemods"] = "codemods"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not (isinstance(value, ast.Name) and value.id in bound):
            continue
        held = ".".join([bound[value.id], *reversed(chain)])
        if held in MODULES and _wing(held) not in (None, mine):
            found.append((node.lineno, f"{held}.{node.attr}"))
    return sorted(found)


def test_no_wing_uses_another_wings_private_names() -> None:
    """A wing reaches another only through its public names: what a wing
    keeps private (``_name``) it may change without looking outside."""
    found = [f"{file}:{line} {name}" for file, line, name in private_names_across_wings()]
    assert not found, "private names used across wings:\n" + "\n".join(found)


def test_the_checks_are_made_on_a_graph_that_has_the_known_edges() -> None:
    """The graph is read right: edges this layout is known to have are in it."""
    graph = imports()
    assert "codemods.plan.runner" in graph["codemods.deliver.build"]
    assert "codemods.engine.editor" in graph["codemods.recipes.base"]
    assert "codemods.checks.sandbox" in graph["codemods.checks.tools"]  # a function's import counts
    assert _cycle({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}}) == ["a", "b", "c", "a"]
    probe = (
        "from ..plan.formatting import _judge, judge\n"
        "from ..recipes.host import bridge_mode\n"
        "import codemods.deliver.build as build\n"
        "bridge_mode._installed(x), bridge_mode.wanted_range, build._phase, self._own, bridge_mode.__name__\n"
    )
    assert _privates_used("codemods.publish.probe", PACKAGE / "publish" / "probe.py", probe) == [
        (1, "codemods.plan.formatting._judge"),
        (4, "codemods.deliver.build._phase"),
        (4, "codemods.recipes.host.bridge_mode._installed"),
    ]
