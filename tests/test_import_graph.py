"""The import graph of src/whowrote (lazy imports inside functions included, read with ``ast``):
no module imports itself through others, and the packages depend on each other only in the
direction docs/architecture.md draws."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# package -> the packages it may import (the top-level modules whowrote, whowrote.types,
# whowrote.formats and whowrote.typography are shared by all); docs/architecture.md, "Rules we keep".
USERS = {"style", "task", "llm", "data"}
ALLOWED: dict[str, set[str]] = {
    "data": set(),
    "style": {"data"},
    "task": {"data"},
    "llm": {"task"},
    "study": USERS,
    "serve": USERS,
    "train": USERS,
    "traces": USERS | {"study"},
    "cli": USERS | {"serve", "study", "train", "traces"},
}
# The documented exceptions: (module, package it imports).
EXCEPTIONS = {
    ("whowrote.task.cheatsheet", "style"),  # cheatsheet tells from whowrote's own style model
    ("whowrote.task.faithfulness", "style"),  # a rationale's claims checked against measured features
    ("whowrote.train.__main__", "cli"),  # `accelerate launch -m whowrote.train` runs the CLI's commands
    ("whowrote.data.generate.clients", "llm"),  # corpus generation with local models: llm's backends
    ("whowrote.llm.evaluate", "data"),  # the output-folder guard (data.outdir) for eval's --out
}


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(f): f for f in (SRC / "whowrote").rglob("*.py")}


def _module_of(name: str) -> str:
    """The module ``name`` lives in: itself, or the package that defines it."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imports(name: str) -> set[str]:
    """The whowrote modules that module ``name`` imports, at module level or inside functions."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(_module_of(a.name) for a in node.names if a.name.split(".")[0] == "whowrote")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x / from ..y import z
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            if base.split(".")[0] == "whowrote":
                out.update(_module_of(f"{base}.{a.name}") for a in node.names)
    return out - {name}


GRAPH = {name: imports(name) for name in MODULES}


def _package(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and (SRC / "whowrote" / parts[1]).is_dir() else ""


def test_the_graph_is_read():
    assert "whowrote.style.model" in GRAPH["whowrote.style.io"]
    assert "whowrote.style.verdict" in GRAPH["whowrote.style.model"]  # a lazy import counts
    assert "whowrote.formats" in GRAPH["whowrote.cli.inputs"]


def test_no_import_circles():
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(GRAPH[node]):
            assert state.get(nxt) != 1, "import circle: " + " -> ".join([*path[path.index(nxt):], nxt])
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])


def test_packages_import_in_the_documented_direction():
    wrong = []
    for name, deps in sorted(GRAPH.items()):
        mine = _package(name)
        for dep in sorted(deps):
            theirs = _package(dep)
            if not mine or not theirs or theirs == mine:
                continue  # the shared top-level modules, or inside one package
            if mine not in ALLOWED:
                wrong.append(f"{name}: package {mine!r} has no documented place")
            elif theirs not in ALLOWED[mine] and (name, theirs) not in EXCEPTIONS:
                wrong.append(f"{name} imports {dep}")
    assert not wrong, "\n".join(wrong)


def test_shared_top_level_modules_import_no_package():
    for name in ("whowrote", "whowrote.types", "whowrote.formats", "whowrote.typography"):
        assert all(not _package(d) for d in GRAPH[name]), (name, GRAPH[name])
