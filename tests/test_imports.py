"""The arrows between simcore's parts run one way (the design's layout by role: cli -> studies -> engine/agents
-> games -> core), read from the source: every import of every module, those inside functions too."""

import ast
from pathlib import Path

import simcore

PACKAGE = Path(simcore.__file__).parent


def _modules():
    """Module name -> its file, for every module of the simcore package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("simcore", *path.relative_to(PACKAGE).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name, path, known):
    """The simcore modules module ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    return {module for module in found if module in known and module != name}


def graph():
    """Module -> the simcore modules it imports, without the package's front door: ``simcore/__init__.py``
    loads ``simcore.simulate`` and ``simcore.load_game`` on first use, above everything."""
    known = _modules()
    return {name: set() if name == "simcore" else _imports(name, path, known) for name, path in known.items()}


def circles(edges):
    """The import circles of ``edges``: each strongly connected set of two or more modules (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = set()
            while not members or w != v:
                w = stack.pop()
                on.discard(w)
                members.add(w)
            if len(members) > 1:
                found.append(members)

    for v in edges:
        if v not in index:
            visit(v)
    return found


LAYERS = ("simcore.params", "simcore.agents", "simcore.engine", "simcore.games", "simcore.io.config")


def test_the_core_the_agents_the_engine_and_the_registry_import_in_no_circle():
    """Issue 39: the circles agents <-> games (Param) and agents.core <-> engine (the game loop) are gone."""
    stuck = [sorted(c) for c in circles(graph()) if any(m.startswith(LAYERS) for m in c)]
    assert stuck == []


def test_the_arrows_run_one_way():
    edges = graph()
    assert edges["simcore.params"] == set()
    agents = {m: edges[m] for m in edges if m.startswith("simcore.agents")}
    assert all(not d.startswith(("simcore.games", "simcore.io")) and d not in (
        "simcore.engine", "simcore.engine.loop", "simcore.engine.binding") for deps in agents.values() for d in deps)
    registry = edges["simcore.games"] | edges["simcore.games.defaults"]
    assert not any(d.startswith(("simcore.agents", "simcore.engine.loop", "simcore.engine.binding", "simcore.studies"))
                   for d in registry)
    assert "simcore.agents.core" in edges["simcore.engine.loop"]      # the game loop asks the agents, not the reverse


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
