"""A benchmark given a corpus file that does not exist says so in one line and exits non-zero, before
writing anything."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


@pytest.mark.parametrize("script", ["list_markers", "fragile_cues"])
def test_a_missing_corpus_is_one_line_and_exit_1(script, tmp_path, monkeypatch):
    main = importlib.import_module(script).main
    monkeypatch.setattr(sys, "argv", [f"{script}.py", "--corpus", str(tmp_path / "nope.jsonl"),
                                      "--out", str(tmp_path / "out.json")])
    with pytest.raises(SystemExit, match=r"^error: .*nope\.jsonl: no such file") as e:
        main()
    assert "\n" not in str(e.value) and not (tmp_path / "out.json").exists()
