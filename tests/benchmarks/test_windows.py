"""Windowed-features trial (benchmarks/windows.py): the windows, their picks and weights, the
aggregation of their probabilities and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from windows import (  # noqa: E402
    FIRST,
    K,
    M,
    aggregate,
    decide,
    predict_pick,
    predict_windows,
    spread,
    train_pick,
    train_picks,
    window_weights,
    windowed,
    windows,
)

from whowrote.style.model import balanced_weights  # noqa: E402

SENTENCES = " ".join("Start a b c d e end." for _ in range(143))  # 1,001 words, a sentence every 7


def test_windows_keep_every_word_in_order_and_start_at_sentences() -> None:
    ws = windows(SENTENCES, 150)
    assert len(ws) == 6  # 1,001 // 150; the tail joins the last window
    assert " ".join(ws).split() == SENTENCES.split()
    assert all(w.startswith("Start ") for w in ws)  # snapped back to a sentence start
    assert all(140 <= len(w.split()) <= 160 for w in ws[:-1])


def test_windows_without_boundaries_cut_at_the_word_count_and_snap_to_lines() -> None:
    words = " ".join(f"w{i}" for i in range(400))
    assert [len(w.split()) for w in windows(words, 150)] == [150, 250]
    assert windows(words, 150)[1].split()[0] == "w150"
    bullets = "\n".join("- " + " ".join(f"x{i}_{j}" for j in range(9)) for i in range(40))  # 10 words a line
    ws = windows(bullets, 25)
    assert len(ws) == 16 and all(w.startswith("- x") for w in ws)


def test_a_text_shorter_than_two_windows_is_one_window_itself() -> None:
    short = "# Title\n\n" + " ".join(["word"] * 290) + "\n"
    assert windows(short, 150) == [short]
    assert windows("one two three", 150) == ["one two three"]
    assert windows("", 150) == [""]


def test_picks_are_seeded_per_text_and_capped() -> None:
    assert train_picks(20, 4, 7) == train_picks(20, 4, 7) == sorted(train_picks(20, 4, 7))
    assert len(set(train_picks(20, 4, 7))) == 4 and train_picks(20, 4, 7) != train_picks(20, 4, 8)
    assert train_picks(3, 4, 7) == [0, 1, 2]
    assert spread(20, 8)[0] == 0 and spread(20, 8)[-1] == 19 and len(set(spread(20, 8))) == 8
    assert spread(5, 8) == [0, 1, 2, 3, 4]
    texts = [SENTENCES, "short text", SENTENCES.replace("Start", "Begin")]
    a, oa = windowed(texts, 100, train_pick(0))
    b, ob = windowed(texts, 100, train_pick(0))
    assert a == b and oa.tolist() == ob.tolist() == [0] * K + [1] + [2] * K
    assert windowed(texts, 100, train_pick(1))[0] != a  # another seed, other windows
    p, op = windowed(texts, 100, predict_pick)
    assert np.bincount(op).tolist() == [M, 1, M] and p[M] == "short text"


def test_aggregate_averages_each_texts_windows() -> None:
    P = np.array([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]])
    owner = np.array([0, 1, 0])
    assert aggregate(P, owner, 2, "prob") == pytest.approx(np.array([[0.7, 0.3], [0.3, 0.7]]))
    # geometric means sqrt(0.45) : sqrt(0.05) = 3 : 1, renormalised
    assert aggregate(P, owner, 2, "log") == pytest.approx(np.array([[0.75, 0.25], [0.3, 0.7]]))
    with pytest.raises(ValueError, match="without windows"):
        aggregate(P, owner, 3, "log")
    with pytest.raises(ValueError, match="unknown aggregation"):
        aggregate(P, owner, 2, "max")


class OneHot:
    """A fitted model's stand-in: the class in each row's first column."""

    classes_ = np.array(["CHATGPT", "CLAUDE"], dtype=object)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.eye(2)[X[:, 0].astype(int)]


def test_predict_windows_reads_only_the_asked_texts_windows() -> None:
    Xw = np.array([[0.0], [1.0], [1.0], [0.0], [1.0]])
    owner = np.array([5, 2, 5, 7, 5])  # outer rows
    P = predict_windows(OneHot(), Xw, owner, np.array([5, 2]), 8)
    assert P["prob"] == pytest.approx(np.array([[1 / 3, 2 / 3], [0.0, 1.0]]))


@pytest.mark.parametrize("weighting, gemini", [("sqrt", np.sqrt(2)), ("cell", 2.0)])
def test_window_weights_give_each_text_its_recipe_weight(weighting: str, gemini: float) -> None:
    y = np.array(["CLAUDE", "CLAUDE", "GEMINI"], dtype=object)
    g = np.array(["blog"] * 3, dtype=object)
    pos = np.array([0, 0, 1, 0, 2])  # text 0: three windows; texts 1 and 2: one each
    sw = window_weights(pos, y, g, aug_weight=0.5, weighting=weighting)
    # what StyleModel.fit multiplies in, by the model's weighting
    final = sw * balanced_weights(np.r_[y[pos], y], np.r_[g[pos], g], sqrt=weighting == "sqrt")
    unit = final[2]  # text 1 (a CLAUDE text of one window)
    # sqrt: CLAUDE texts weigh 1 / sqrt(3 * 2), the GEMINI text 1 / sqrt(3 * 1); cell: 1 / 2 against 1
    expected = np.array([1 / 3, 1 / 3, 1, 1 / 3, gemini, 0.5, 0.5, 0.5 * gemini])
    assert final / unit == pytest.approx(expected)


def test_several_passing_variants_pick_the_smallest_first_800_drop() -> None:
    inner = {"current": _inner(0.800, 0.115), "w150-log": _inner(0.798, 0.080), "w300-log": _inner(0.799, 0.070)}
    logo = {"blog": {"current": {"accuracy_3way": 0.81}, "w150-log": {"accuracy_3way": 0.81},
                     "w300-log": {"accuracy_3way": 0.81}},
            "mean": {v: {"accuracy_3way": 0.726} for v in ("current", "w150-log", "w300-log")}}
    d = decide(inner, logo)
    assert d["w150-log"]["adopt"] and d["w300-log"]["adopt"] and d["pick"] == "w300-log"


def _inner(raw: float, first: float, other: float = 0.04) -> dict:
    drops = {"strip_markdown": other, FIRST: first, "first_300_words": 0.04}
    return {"edits": {"raw": {"accuracy": raw}}, "drops": drops}


def _logo(v: str, mean3: float, blog3: float) -> dict:
    return {"blog": {"current": {"accuracy_3way": 0.81}, v: {"accuracy_3way": blog3}},
            "mean": {"current": {"accuracy_3way": 0.726}, v: {"accuracy_3way": mean3}}}


def test_decision_adopts_only_when_every_check_holds() -> None:
    ok = decide({"current": _inner(0.800, 0.115), "w150-log": _inner(0.796, 0.080)}, _logo("w150-log", 0.722, 0.80))
    assert ok["w150-log"]["adopt"] and ok["pick"] == "w150-log"
    small = decide({"current": _inner(0.800, 0.115), "w150-log": _inner(0.800, 0.090)}, _logo("w150-log", 0.73, 0.81))
    assert not small["w150-log"]["checks"]["first_800_drop_shrinks_3pt"] and small["pick"] is None
    worse = decide({"current": _inner(0.800, 0.115), "w300-prob": _inner(0.790, 0.050, other=0.05)},
                   _logo("w300-prob", 0.71, 0.78))
    c = worse["w300-prob"]["checks"]
    assert c["first_800_drop_shrinks_3pt"] and not c["no_other_drop_up_0.5pt"] and not c["raw_not_down_0.5pt"]
    assert not c["logo_3way_not_down_0.5pt"] and not c["no_logo_genre_3way_down_2pt"] and worse["pick"] is None
