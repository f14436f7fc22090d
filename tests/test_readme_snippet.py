"""The README's Python block runs as written (from a folder whose ../shared is the corpus)."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("WHOWROTE_SHARED", REPO.parent / "shared"))


def test_readme_python_block_runs(tmp_path, monkeypatch, capsys):
    block = re.search(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    assert block and "load_model" in block.group(1)
    (tmp_path / "shared").symlink_to(SHARED)
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").mkdir()
    (work / "examples" / "post.md").write_text((REPO / "examples" / "post.md").read_text())
    monkeypatch.chdir(work)
    scope: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), scope)
    out = capsys.readouterr().out
    assert any(p in out for p in ("CLAUDE", "CHATGPT", "GEMINI", "OTHER"))
    assert set(scope["splits"]) >= {"train", "val"} and len(scope["corpus"]) == 181
    assert Path("examples/post.md").exists()
