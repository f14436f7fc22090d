"""whowrote.llm, task and train import each other one way only (no circles, lazy imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "whowrote"


def imports(path: Path) -> set[str]:
    """Every whowrote module ``path`` imports, at module level or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("whowrote."):
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("whowrote."))
    return out


def graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    g = {}
    for pkg in packages:
        for f in (SRC / pkg).glob("*.py"):
            name = f"whowrote.{pkg}" if f.stem == "__init__" else f"whowrote.{pkg}.{f.stem}"
            g[name] = {m for m in imports(f) if m.split(".")[1] in packages and m != name}
    return g


def test_no_import_circles_in_llm_task_train():
    g = graph(("llm", "task", "train"))
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(g.get(node, ())):
            if nxt.rsplit(".", 1)[0] == node:  # a package importing its own submodule is not a circle
                continue
            assert state.get(nxt) != 1, " -> ".join([*path, nxt])
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for n in sorted(g):
        if n not in state:
            visit(n, [n])


def test_documented_direction_task_never_imports_llm_or_train():
    for name, deps in graph(("llm", "task", "train")).items():
        if name.startswith("whowrote.task"):
            assert not {d for d in deps if d.startswith(("whowrote.llm", "whowrote.train"))}, name
        if name.startswith("whowrote.llm"):
            assert not {d for d in deps if d.startswith("whowrote.train")}, name
