"""The README's Python block as it should read (``result.tells[0].sentence``: a Tell is a
dataclass, not a dict), and the same lines in docs/serve.md, run as written."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "serve.md"


def test_attribute_snippet_in_docs_runs(tmp_path, monkeypatch, capsys):
    block = re.search(r"```python\n(from whowrote.style import load_model\n.*?)```", DOC.read_text(), re.S)
    assert block, "docs/serve.md lost its Python snippet"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "post.md").write_text("A plain sentence about gardens and the weather in spring. " * 40)
    exec(compile(block.group(1), str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert (" typical" in out or " than " in out) and any(p in out for p in ("CLAUDE", "CHATGPT", "GEMINI", "OTHER"))
