"""benchmarks/multi_turn.py: MT-Bench conversations read as predict reads a chat log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from multi_turn import paired, read_conversations, view_texts  # noqa: E402

ANSWER = ("Gardens change with the seasons, and a careful gardener plans for each of them; in spring the "
          "soil is turned and the first seeds go in. ") * 3


def make_mt_bench(root: Path, corpus_sample=None) -> tuple[Path, Path]:
    answers, questions = root / "model_answer", root / "question.jsonl"
    answers.mkdir(parents=True)
    questions.write_text("".join(json.dumps({"question_id": q, "category": "writing" if q % 2 else "coding",
                                             "turns": [f"Question {q}?", "Now shorter."]}) + "\n"
                                 for q in range(1, 7)), encoding="utf-8")
    for model in ("claude-v1", "gpt-4", "vicuna-13b-v1.3"):
        rows = [{"question_id": q, "model_id": model,
                 "choices": [{"index": 0, "turns": [ANSWER if q != 6 else "Too short.", f"{model} says: {ANSWER[:80]}"]}]}
                for q in range(1, 7)]
        rows.append({"question_id": 5, "model_id": model, "choices": [{"turns": ["", ANSWER]}]})  # an empty turn
        (answers / f"{model}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return answers, questions


def test_conversations_are_read_labelled_and_filtered(tmp_path: Path) -> None:
    convs = read_conversations(*make_mt_bench(tmp_path))
    assert len(convs) == 3 * 5  # question 6 is under 50 words, the empty-turn rows are dropped
    assert {c["provider"] for c in convs} == {"CLAUDE", "CHATGPT", "OTHER"}
    views = view_texts(convs[0])
    assert views["record"] == convs[0]["answers"][0].strip() + "\n\n" + convs[0]["answers"][1].strip()
    assert views["turn2"] == convs[0]["answers"][1] and "Question 1?" in views["with_user_turns"]
    assert "Question" not in views["record"] and json.loads(views["json_log"])[0]["role"] == "user"


def test_the_pasted_views_read_as_the_record(tmp_path: Path) -> None:
    """The transcript and the JSON log are read exactly as the record: the check the run reports."""
    from whowrote.style import load_model

    convs = read_conversations(*make_mt_bench(tmp_path))
    model = load_model()
    texts = [view_texts(c) for c in convs]
    got = {v: [a.probabilities for a in model.attribute([t[v] for t in texts])]
           for v in ("record", "transcript", "json_log", "with_user_turns")}
    assert got["transcript"] == got["record"] == got["json_log"]
    assert got["with_user_turns"] != got["record"]


def test_paired_differences_and_their_intervals() -> None:
    y = np.array(["CLAUDE", "CHATGPT", "OTHER", "CLAUDE"], dtype=object)
    right = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7], [0.7, 0.1, 0.1, 0.1]])
    wrong = right[:, [1, 0, 2, 3]]  # CLAUDE and CHATGPT swapped: the assistants wrong, OTHER right
    weights = np.ones((5, 4))
    out = paired(right, wrong, y, weights)
    assert out["accuracy"] == [75.0, 75.0, 75.0] and out["accuracy_3way"] == [100.0, 100.0, 100.0]
    assert out["other_auroc"] == [0.0, 0.0, 0.0]


def test_a_folder_that_is_not_mt_bench_is_one_line(tmp_path: Path) -> None:
    answers, questions = make_mt_bench(tmp_path)
    questions.write_text(json.dumps({"question_id": 1}) + "\n", encoding="utf-8")  # no turns, other ids
    done = subprocess.run([sys.executable, str(BENCH / "multi_turn.py"), "--answers", str(answers), "--questions",
                           str(questions), "--corpus", str(questions), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert done.returncode != 0 and done.stderr.startswith("error: not an MT-Bench")
    assert "Traceback" not in done.stderr and not (tmp_path / "o").exists()
