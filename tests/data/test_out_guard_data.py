"""`data convert --out` / `data audit --clean-out|--json` naming one of the inputs is refused before
anything is read or written (audit: `data convert pb2.jsonl --out pb2.jsonl` cut 100 rows to 78)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from whowrote.cli import main


def _corpus(path: Path, n: int = 6) -> Path:
    rows = [{"id": f"r{i}", "text": f"Text number {i} about the weather, twice. " * 3, "model": "claude-opus-4.8",
             "topic": f"t{i}"} for i in range(n)]
    rows.append(dict(rows[0], id="dup"))  # an exact duplicate: --clean-out would drop it
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_convert_refuses_to_overwrite_its_input(tmp_path, cli_fails):
    src = _corpus(tmp_path / "pb2.jsonl")
    before = src.read_bytes()
    (tmp_path / "sub").mkdir()
    os.symlink(src, tmp_path / "link.jsonl")
    for out in (src, tmp_path / "sub" / ".." / "pb2.jsonl", tmp_path / "link.jsonl"):
        assert "is the input" in cli_fails(["data", "convert", str(src), "--out", str(out)])
    assert "is the input" in cli_fails(["data", "convert", str(tmp_path / "sub" / ".."), "--out", str(src)])
    assert src.read_bytes() == before


def test_audit_refuses_to_clean_into_its_source(tmp_path, cli_fails):
    src = _corpus(tmp_path / "good.jsonl")
    before = src.read_bytes()
    assert "--clean-out" in cli_fails(["data", "audit", str(src), "--clean-out", str(src)])
    assert "--json" in cli_fails(["data", "audit", str(src), "--json", str(src)])
    assert src.read_bytes() == before


def test_another_output_file_still_works(tmp_path):
    src = _corpus(tmp_path / "good.jsonl")
    main_ok = ["data", "audit", str(src), "--clean-out", str(tmp_path / "clean.jsonl"), "--no-near-duplicates"]
    with pytest.raises(SystemExit) as e:
        main(main_ok)
    assert e.value.code in (0, None) and (tmp_path / "clean.jsonl").is_file()
