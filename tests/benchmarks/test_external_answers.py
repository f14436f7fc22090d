"""The out-of-corpus answer set and the training file cut from it (benchmarks/external_*.py)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

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


def test_versions_rule_reads_each_clause() -> None:
    from external_training import versions_rule

    def row(a: float, b: float, key: str = "mean_recall_3way", lo: float = 0.01) -> dict:
        return {"arena": {key: a}, "versions": {key: b}, "diff_intervals": {key: [lo, 0.1]}}

    def results(t2: float = 0.80, t2_lo: float = 0.01, t1: float = 0.80, t3: float = 0.78, logo: float = 0.70,
                combined: float = 5.0) -> dict:
        return {"tests": {"T1 new prompts, trained versions": row(0.80, t1),
                          "T2 new prompts, held-out versions": row(0.76, t2, lo=t2_lo),
                          "T3 corpus topic hold-out": row(0.78, t3, "accuracy")},
                "LOGO": {g: row(0.70, logo, "accuracy_3way") for g in ("blog", "chat")},
                "T3 edits": {"arena": {"combined": {"diff": 5.0}}, "versions": {"combined": {"diff": combined}}}}

    assert all(versions_rule(results()).values())
    assert versions_rule(results(t2=0.77))["(a) T2 gain"] is False  # +1 point < 2
    assert versions_rule(results(t2_lo=-0.001))["(a) T2 gain"] is False
    assert versions_rule(results(t1=0.794))["(b) T1 no loss"] is False
    assert versions_rule(results(t3=0.774))["(c) T3 no loss"] is False
    assert versions_rule(results(logo=0.694))["(d) LOGO no loss"] is False
    assert versions_rule(results(combined=5.6))["(e) combined drop"] is False
    assert versions_rule(results(combined=5.4))["(e) combined drop"] is True


@pytest.mark.parametrize(("arm", "models"), [
    ("versions", {"claude-3-opus-20240229", "claude-3-5-sonnet-20241022", "gpt-4-0613", "qwen2-72b-instruct"}),
    ("assistants", {"claude-3-opus-20240229", "claude-3-5-sonnet-20241022", "gpt-4-0613"}),
    ("others", {"claude-3-opus-20240229", "gpt-4-0613", "qwen2-72b-instruct"}),
])
def test_write_train_arms_add_their_held_out_versions_on_half_a_only(tmp_path: Path, arm: str, models: set) -> None:
    folder = make_folder(tmp_path)
    out = tmp_path / "runs" / "arena" / "arena-hard.jsonl"  # a folder not made yet
    write_train(folder, out, arm)
    corpus = load_corpus([out])
    frame = read_answers(folder)
    assert set(corpus.model) == models
    assert len(corpus) == int((frame.half_a & frame.model.isin(models)).sum())
    assert not set(corpus.topic) & set(frame[~frame.half_a].question)  # half B stays a test


def test_versions_rule_others_reads_four_way_and_other_auroc() -> None:
    from external_training import versions_rule

    def row(a: dict, b: dict, lo: float = 0.01) -> dict:
        return {"arena": a, "others": b, "diff_intervals": {k: [lo, 0.1] for k in a}}

    def results(t2: float = 0.60, t1_4: float = 0.66, auroc: float = 0.60) -> dict:
        return {"tests": {"T1 new prompts, trained versions": row({"mean_recall_3way": 0.8, "accuracy": 0.66},
                                                                   {"mean_recall_3way": 0.8, "accuracy": t1_4}),
                          "T2 new prompts, held-out versions": row({"mean_recall_3way": 0.77, "accuracy": 0.55},
                                                                    {"mean_recall_3way": 0.77, "accuracy": t2}),
                          "T3 corpus topic hold-out": row({"accuracy": 0.78}, {"accuracy": 0.78})},
                "LOGO": {"blog": row({"accuracy_3way": 0.6}, {"accuracy_3way": 0.6}),
                         "chat": row({"accuracy_3way": 0.7, "other_auroc": 0.60},
                                     {"accuracy_3way": 0.7, "other_auroc": auroc})},
                "T3 edits": {"arena": {"combined": {"diff": 5.0}}, "others": {"combined": {"diff": 5.0}}}}

    assert all(versions_rule(results(), "others").values())  # T2 4-way +5 with 3-way recall level
    assert versions_rule(results(t2=0.56), "others")["(a) T2 gain"] is False
    assert versions_rule(results(t1_4=0.65), "others")["(b) T1 no loss"] is False
    assert versions_rule(results(auroc=0.59), "others")["(d) LOGO no loss"] is False


def test_arms_figure_rows_are_arm_minus_bundled_in_points(tmp_path: Path) -> None:
    from external_arms_figure import arm_rows, draw

    def row(a: float, b: float, keys: tuple[str, ...]) -> dict:
        return {"arena": {k: a for k in keys}, "others": {k: b for k in keys},
                "diff_intervals": {k: [b - a - 0.01, b - a + 0.01] for k in keys}}

    tests = ("mean_recall_3way", "accuracy")
    results = {"arm": "others", "adopt": False,
               "tests": {"T1 new prompts, trained versions": row(0.80, 0.81, tests),
                         "T2 new prompts, held-out versions": row(0.55, 0.60, tests),
                         "T3 corpus topic hold-out": row(0.78, 0.77, tests)},
               "LOGO": {"blog": row(0.63, 0.66, ("accuracy_3way",))}}
    rows = {label: (d, lo, hi) for label, d, lo, hi in arm_rows(results)}
    assert abs(rows["T2 4-way"][0] - 5.0) < 1e-9 and abs(rows["T3 4-way (corpus)"][0] + 1.0) < 1e-9
    assert abs(rows["LOGO blog 3-way"][0] - 3.0) < 1e-9 and rows["LOGO blog 3-way"][1] < 3.0 < rows["LOGO blog 3-way"][2]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    draw([path], tmp_path / "fig" / "arms.png")
    assert (tmp_path / "fig" / "arms.png").stat().st_size > 1000


def test_per_version_scores_each_assistant_version_apart() -> None:
    import numpy as np
    from external_training import per_version

    classes = np.array(["CHATGPT", "CLAUDE", "GEMINI", "OTHER"])
    y = np.array(["CLAUDE", "CLAUDE", "CHATGPT", "OTHER"])
    models = np.array(["claude-a", "claude-a", "gpt-b", "qwen"])
    right, wrong = [0.1, 0.7, 0.1, 0.1], [0.7, 0.1, 0.1, 0.1]  # columns in ``classes`` order
    P = {"arena": np.array([right, wrong, right, right]), "assistants": np.array([right, right, wrong, right])}
    out = per_version(P, y, models, classes)
    assert set(out) == {"claude-a", "gpt-b"}  # OTHER answers have no 3-way score
    assert out["claude-a"] == {"n": 2, "arena": 0.5, "assistants": 1.0}
    assert out["gpt-b"] == {"n": 1, "arena": 0.0, "assistants": 1.0}
