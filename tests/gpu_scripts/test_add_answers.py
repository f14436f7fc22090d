"""scripts/gpu/add_answers.py: the LM's train split plus balanced answers from another source."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "gpu"))

import add_answers  # noqa: E402

from whowrote.train.data import read_rows, write_rows  # noqa: E402


def _answer(i: int, provider: str, topic: str) -> dict:
    return {"id": f"{provider.lower()}-m:{i}", "model": f"{provider.lower()}-m", "provider": provider,
            "topic": topic, "text": f"Answer {i} " + "x" * 50}


def test_train_rows_then_balanced_answers_none_on_a_test_prompt(tmp_path: Path) -> None:
    train = [{"id": f"t{i}", "text": "corpus text", "provider": p, "model": "m", "genre": "blog", "topic": f"c{i}"}
             for i, p in enumerate(["CLAUDE", "CHATGPT", "GEMINI"])]
    write_rows(tmp_path / "train.jsonl.gz", train)
    # 6 prompts answered by each provider and by an OTHER model; prompts q0 and q1 are the test's
    answers = [_answer(i, p, f"q{i}") for i in range(6) for p in ("CLAUDE", "CHATGPT", "GEMINI", "OTHER")]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in answers))
    write_rows(tmp_path / "test.jsonl.gz", [{**_answer(0, "CLAUDE", "q0"), "genre": "arena-hard"},
                                            {**_answer(1, "GEMINI", "q1"), "genre": "arena-hard"}])
    out = tmp_path / "mix" / "train.jsonl.gz"
    args = ["--train", str(tmp_path / "train.jsonl.gz"), "--answers", str(tmp_path / "answers.jsonl"),
            "--genre", "arena-hard", "--max-chars", "20", "--exclude", str(tmp_path / "test.jsonl.gz"),
            "--out", str(out)]
    assert add_answers.main([*args, "--n", "12"]) == 0
    rows = read_rows(out)
    assert rows[:3] == [{**t, "subgenre": None} for t in train]  # the train split first, unchanged
    added = rows[3:]
    assert Counter(r["provider"] for r in added) == {"CLAUDE": 4, "CHATGPT": 4, "GEMINI": 4}  # no OTHER
    assert not {r["topic"] for r in added} & {"q0", "q1"}  # the test's prompts stay out
    assert {r["genre"] for r in added} == {"arena-hard"} and all(len(r["text"]) == 20 for r in added)
    assert [r["provider"] for r in added[:3]] == ["CLAUDE", "CHATGPT", "GEMINI"]  # interleaved
    # more than the pool holds once the test's prompts are out: an error, and the old file kept
    assert add_answers.main([*args, "--n", "15"]) == 2
    assert len(read_rows(out)) == 15


def test_bad_answers_file_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    write_rows(tmp_path / "train.jsonl.gz", [{"id": "t", "text": "x", "provider": "CLAUDE", "genre": "blog",
                                              "topic": "c"}])
    (tmp_path / "answers.jsonl").write_text('{"id": "a", "provider": "CLAUDE"}\n{not json\n')
    code = add_answers.main(["--train", str(tmp_path / "train.jsonl.gz"), "--answers", str(tmp_path / "answers.jsonl"),
                             "--genre", "g", "--n", "3", "--out", str(tmp_path / "out.jsonl.gz")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert not (tmp_path / "out.jsonl.gz").exists()
    assert add_answers.main(["--train", str(tmp_path / "nope.jsonl"), "--answers", str(tmp_path / "answers.jsonl"),
                             "--genre", "g", "--n", "3", "--out", str(tmp_path / "out.jsonl.gz")]) == 2
