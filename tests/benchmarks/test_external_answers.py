"""The out-of-corpus answer set and the training file cut from it (benchmarks/external_*.py)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from external_answers import MIN_WORDS, read_answers  # noqa: E402
from external_training import write_train  # noqa: E402

from whowrote.data.corpus import load_corpus  # noqa: E402

LONG = " ".join(["word"] * MIN_WORDS)


def make_folder(root: Path) -> Path:
    folder = root / "arena-hard-v0.1" / "model_answer"
    folder.mkdir(parents=True)
    models = ("claude-3-opus-20240229", "claude-3-5-sonnet-20241022", "gpt-4-0613", "qwen2-72b-instruct",
              "krikri-8b-checkpoint")
    for model in models:
        rows = [{"question_id": f"q{i}", "model_id": model,
                 "choices": [{"turns": [{"content": LONG if i else "too short"}]}]} for i in range(12)]
        (folder / f"{model}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_read_answers_filters_and_marks_halves(tmp_path: Path) -> None:
    frame = read_answers(make_folder(tmp_path))
    assert "krikri-8b-checkpoint" not in set(frame.model)  # a fork's own checkpoint
    assert "q0" not in set(frame.question)  # under MIN_WORDS
    assert len(frame) == 4 * 11
    for q, a in zip(frame.question, frame.half_a, strict=True):
        assert a == (hashlib.sha256(q.encode()).digest()[0] % 2 == 0)
    held = dict(zip(frame.model, frame.held_out, strict=True))
    assert held == {"claude-3-opus-20240229": False, "claude-3-5-sonnet-20241022": True, "gpt-4-0613": False,
                    "qwen2-72b-instruct": True}
    assert dict(zip(frame.model, frame.provider, strict=True))["gpt-4-0613"] == "CHATGPT"


def test_write_train_keeps_half_a_of_trained_versions_only(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    out = tmp_path / "arena-hard.jsonl"
    write_train(folder, out)
    corpus = load_corpus([out])
    frame = read_answers(folder)
    want = frame[frame.half_a & ~frame.held_out]
    assert 0 < len(corpus) == len(want) < len(frame)
    assert set(corpus.model) == {"claude-3-opus-20240229", "gpt-4-0613"}
    assert set(corpus.topic) == set(want.question) and not set(corpus.topic) & set(frame[~frame.half_a].question)
    assert set(corpus.genre) == {"arena-hard"}  # the genre the reader gives the whole folder
