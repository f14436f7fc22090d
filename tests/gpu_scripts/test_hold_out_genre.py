"""scripts/gpu/hold_out_genre.py: a train split without one genre and a balanced test of that genre."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "gpu"))

import hold_out_genre  # noqa: E402

from whowrote.train.data import read_rows, write_rows  # noqa: E402

MODELS = {"CLAUDE": "claude-opus-4-6", "CHATGPT": "gpt-5.4", "GEMINI": "gemini-3.1-pro-preview", "OTHER": "grok-4"}


def _setup(tmp_path: Path) -> tuple[list[str], list[dict]]:
    # the corpus file: 4 debates per provider (OTHER too); d-CLAUDE-0 is kept in train under another
    # genre's name (an id clash the test must avoid), d-GEMINI-1 is in the val
    corpus = [{"id": f"d-{p}-{i}", "text": f"{p} debate {i}. " + "y" * 40, "model": m, "topic": f"prop{i}"}
              for p, m in MODELS.items() for i in range(4)]
    (tmp_path / "debates.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    train = [{"id": f"t{i}", "text": "a blog", "provider": p, "model": "m", "genre": "blog", "topic": f"b{i}"}
             for i, p in enumerate(["CLAUDE", "CHATGPT", "GEMINI"])]
    train += [{"id": f"d-{p}-2", "text": "a debate", "provider": p, "model": "m", "genre": "debate", "topic": "prop2"}
              for p in ("CLAUDE", "CHATGPT", "GEMINI")]
    train.append({"id": "d-CLAUDE-0", "text": "kept", "provider": "CLAUDE", "model": "m", "genre": "fiction",
                  "topic": "f0"})
    write_rows(tmp_path / "train.jsonl.gz", train)
    write_rows(tmp_path / "val.jsonl.gz", [{"id": "d-GEMINI-1", "text": "v", "provider": "GEMINI", "genre": "debate"}])
    args = ["--train", str(tmp_path / "train.jsonl.gz"), "--genre", "debate",
            "--corpus-file", str(tmp_path / "debates.jsonl"), "--exclude", str(tmp_path / "val.jsonl.gz"),
            "--max-chars", "25", "--out-train", str(tmp_path / "out" / "train.jsonl.gz"),
            "--out-test", str(tmp_path / "out" / "debate.jsonl.gz")]
    return args, train


def test_the_genre_leaves_train_and_its_test_is_balanced_fresh_and_cut(tmp_path: Path) -> None:
    args, train = _setup(tmp_path)
    assert hold_out_genre.main([*args, "--n", "9"]) == 0
    kept = read_rows(tmp_path / "out" / "train.jsonl.gz")
    assert kept == [{**r, "subgenre": None} for r in train if r["genre"] != "debate"]  # unchanged, in order
    test = read_rows(tmp_path / "out" / "debate.jsonl.gz")
    assert Counter(r["provider"] for r in test) == {"CLAUDE": 3, "CHATGPT": 3, "GEMINI": 3}  # no OTHER
    ids = {r["id"] for r in test}
    assert "d-CLAUDE-0" not in ids and "d-GEMINI-1" not in ids  # a kept train row's id, a val id
    assert "d-CHATGPT-2" in ids  # a held-out train row's text may be drawn: nothing trains on it now
    assert all(r["genre"] == "debate" and len(r["text"]) == 25 for r in test)


def test_too_few_texts_or_an_absent_genre_is_a_one_line_error_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args, _ = _setup(tmp_path)
    assert hold_out_genre.main([*args, "--n", "12"]) == 2  # CLAUDE and GEMINI have 3 usable texts each
    err = capsys.readouterr().err.strip().splitlines()  # equal per provider: 3 of each, not 4 asked
    assert len(err) == 1 and err[0].endswith("only 9 usable debate texts for --n 12 ({'CLAUDE': 3, 'CHATGPT': 3, 'GEMINI': 3})")
    args[args.index("debate")] = "poetry"
    assert hold_out_genre.main([*args, "--n", "9"]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'train.jsonl.gz'}: no row has genre 'poetry'"
    assert not (tmp_path / "out").exists()


def test_a_missing_input_or_too_small_n_is_refused_before_anything_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args, _ = _setup(tmp_path)
    assert hold_out_genre.main([*args, "--n", "2"]) == 2
    assert capsys.readouterr().err.strip() == "error: --n must be at least 3 (one text per provider)"
    (tmp_path / "val.jsonl.gz").unlink()
    assert hold_out_genre.main([*args, "--n", "9"]) == 2
    assert capsys.readouterr().err.strip() == f"error: not found: {tmp_path / 'val.jsonl.gz'}"
    assert not (tmp_path / "out").exists()
