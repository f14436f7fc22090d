"""The three-assistants head trial (benchmarks/three_way_logo.py): its scoring and decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from three_way_logo import decide, score, three_probs  # noqa: E402


def test_three_probs_drops_other_and_renormalises():
    P = np.array([[0.2, 0.1, 0.1, 0.6], [0.0, 0.0, 0.0, 1.0]])
    Q = three_probs(P)
    assert np.allclose(Q[0], [0.5, 0.25, 0.25])
    assert np.all(np.isfinite(Q[1]))  # a text the model calls OTHER for sure has no NaN


def test_score_counts_recall_and_confusion_per_provider():
    Q = np.array([[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]])
    y = np.array([0, 1, 2, 2])  # the third text: GEMINI called CHATGPT
    r = score(Q, y)
    assert r["accuracy_3way"] == 0.75
    assert r["recall"] == {"CLAUDE": 1.0, "CHATGPT": 1.0, "GEMINI": 0.5}
    assert r["confusion"]["GEMINI"] == {"CLAUDE": 0, "CHATGPT": 1, "GEMINI": 1}
    assert score(Q[:2], y[:2])["recall"]["GEMINI"] is None  # no GEMINI text: no recall


def _fold(four: float, three: float, blend: float) -> dict:
    return {h: {"accuracy_3way": a} for h, a in (("four", four), ("three", three), ("blend", blend))}


def test_decide_needs_the_gain_no_lost_genre_and_the_topic_hold_out():
    topic = _fold(0.90, 0.90, 0.90)
    good = {"a": _fold(0.70, 0.75, 0.70), "b": _fold(0.70, 0.74, 0.71)}
    d = decide(good, topic)
    assert d["three"]["adopt"] and not d["blend"]["adopt"]  # blend gains 0.5 points, not 3
    one_genre_lost = {"a": _fold(0.70, 0.85, 0.70), "b": _fold(0.70, 0.67, 0.71)}
    assert not decide(one_genre_lost, topic)["three"]["adopt"]  # +6.0 mean, but b loses 3 points
    assert not decide(good, _fold(0.90, 0.88, 0.90))["three"]["adopt"]  # in-genre loses 2 points


def test_bad_inputs_exit_with_one_line(tmp_path):
    import subprocess

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "three_way_logo.py"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for argv in (["--table", str(bad)], ["--table", str(tmp_path / "missing.json")],
                 ["--corpus", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "out")]):
        r = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, timeout=120)
        assert r.returncode == 1, argv
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
