"""The snippets of docs/research-recipes.md run as written (the CPU-runnable ones)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from whowrote.cli import main

DOC = Path(__file__).parents[2] / "docs" / "research-recipes.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_python_snippet_prints_what_it_says(monkeypatch):
    monkeypatch.chdir(DOC.parents[1])
    (snippet,) = _blocks("python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet, str(DOC), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["1.0", "0.0"]  # the values the comments in the snippet promise
    assert [line.split()[:2] for line in lines[2:]] == [["headers", "scarce"], ["em_dash", "abundant"],
                                                     ["value:punc_semicolon", "value"]]


def test_packaging_commands_run(tmp_path):
    block = _blocks("bash")[0]
    for line in block.splitlines():
        args = shlex.split(line.split("#")[0])
        assert args[0] == "whowrote"
        with pytest.raises(SystemExit) as e:
            main([a.replace("/tmp/", f"{tmp_path}/") for a in args[1:]])
        assert e.value.code in (0, None)
    assert (tmp_path / "tiny-pkg" / "model.safetensors").is_file()
