"""benchmarks/arena_cap.py: the inner prompt split, the per-label cap and the fixed rule."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import arena_cap  # noqa: E402
from external_answers import half_a  # noqa: E402


def test_inner_split_is_a_second_hash_byte_independent_of_the_halves() -> None:
    qs = [f"question-{i}" for i in range(400)]
    a1 = [q for q in qs if arena_cap.in_a1(q)]
    assert a1 == [q for q in qs if hashlib.sha256(q.encode()).digest()[1] % 2 == 0]
    # both inner parts draw from half A (and from half B) in roughly equal shares
    in_half_a = [q for q in qs if half_a(q)]
    share = sum(arena_cap.in_a1(q) for q in in_half_a) / len(in_half_a)
    assert 0.35 < share < 0.65


def test_cap_keeps_at_most_cap_per_label_and_every_row_of_a_small_label() -> None:
    rows = pd.DataFrame({"provider": ["CHATGPT"] * 10 + ["GEMINI"] * 2 + ["OTHER"] * 7, "id": range(19)})
    got = arena_cap.capped(rows, 4, seed=0)
    assert got.provider.value_counts().to_dict() == {"CHATGPT": 4, "OTHER": 4, "GEMINI": 2}
    assert set(got.id) <= set(rows.id) and got.id.is_unique
    assert list(arena_cap.capped(rows, 4, seed=0).id) == list(got.id)  # seeded
    assert list(arena_cap.capped(rows, 4, seed=1).id) != list(got.id)


def _results(logo_cap: float, drop_cap: float, t1_cap: float, t2_cap: float, t3_cap: float) -> dict:
    def arms(key: str, a: float, c: float) -> dict:
        return {"all": {key: a}, "cap": {key: c}}
    return {"arm": "cap", "tests": {"T1": arms("mean_recall_3way", 0.80, t1_cap), "T2": arms("mean_recall_3way", 0.70, t2_cap),
                      "T3": arms("accuracy", 0.780, t3_cap)},
            "LOGO": {g: arms("accuracy_3way", 0.70, logo_cap) for g in ("blog", "chat")},
            "T3 combined drop": {"all": {"diff": 5.0}, "cap": {"diff": drop_cap}}}


def test_rule_needs_a_gain_and_no_loss_beyond_the_slacks() -> None:
    ok = arena_cap.rule(_results(logo_cap=0.711, drop_cap=5.0, t1_cap=0.785, t2_cap=0.69, t3_cap=0.776))
    assert all(ok.values())  # LOGO +1.1, T1 -1.5, T2 -1.0, T3 -0.4
    assert all(arena_cap.rule(_results(0.70, 3.9, 0.80, 0.70, 0.78)).values())  # the edit drop 1.1 smaller
    assert not arena_cap.rule(_results(0.709, 4.1, 0.80, 0.70, 0.78))["a: LOGO +1 or combined drop -1"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.779, 0.70, 0.78))["b: T1 and T2 within 2"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.80, 0.679, 0.78))["b: T1 and T2 within 2"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.80, 0.70, 0.774))["c: T3 within 0.5"]


def test_rule_reads_the_challenger_named_in_the_results() -> None:
    res = _results(0.711, 5.0, 0.785, 0.69, 0.776)
    renamed = {**res, "arm": "plain"}
    for block in ("tests", "LOGO"):
        renamed[block] = {k: {"all": v["all"], "plain": v["cap"]} for k, v in res[block].items()}
    renamed["T3 combined drop"] = {"all": res["T3 combined drop"]["all"], "plain": res["T3 combined drop"]["cap"]}
    assert arena_cap.rule(renamed) == arena_cap.rule(res)
    assert all(arena_cap.rule(renamed).values())


class _Fixed:
    """A fitted model's stand-in: the same probabilities for every row."""

    def __init__(self, classes: list[str], p: list[float]) -> None:
        self.classes_, self.p = np.array(classes, dtype=object), np.array(p)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.tile(self.p, (len(X), 1))


def test_routed_mixes_the_two_fits_by_the_detectors_chat_probability() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    # a detector on one feature: large values are chat answers
    X = np.array([[-3.0], [-2.0], [-1.0], [1.0], [2.0], [3.0]])
    kind = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, [False, False, False, True, True, True])
    labels = ["CHATGPT", "CLAUDE", "GEMINI", "OTHER"]
    routed = arena_cap.Routed(_Fixed(labels, [1.0, 0.0, 0.0, 0.0]), _Fixed(labels, [0.0, 1.0, 0.0, 0.0]), kind)
    P = routed.predict_proba(X)
    p_chat = kind.predict_proba(X)[:, 1]
    assert np.allclose(P[:, 0], p_chat) and np.allclose(P[:, 1], 1 - p_chat) and np.allclose(P.sum(axis=1), 1)
    assert P[0, 1] > 0.5 > P[0, 0] and P[-1, 0] > 0.5 > P[-1, 1]  # prose reads CLAUDE, chat CHATGPT
    assert list(routed.classes_) == labels
    with pytest.raises(AssertionError, match="labels differ"):
        arena_cap.Routed(_Fixed(labels, [1.0, 0, 0, 0]), _Fixed(labels[:3], [1.0, 0, 0]), kind)


class _Feats:
    """``Features``' stand-in: one fixed matrix, rows picked by ``row_idx``."""

    def __init__(self, M: np.ndarray) -> None:
        self.M = M

    def get(self, recipe: str, rows: np.ndarray, edit: str, seed: int = 0) -> np.ndarray:
        assert (recipe, edit) == ("default", "raw")
        return self.M[rows]


def test_kind_detector_calls_the_chat_genre_and_the_answers_chat_answers() -> None:
    # feature 0 separates chat answers (the corpus's chat genre and the added answers) from the rest
    rng = np.random.default_rng(0)
    genres = ["blog", "fiction", "chat", "arena-hard"] * 10
    M = np.column_stack([[2.0 if g in ("chat", "arena-hard") else -2.0 for g in genres], rng.normal(size=len(genres))])
    M[:, 0] += rng.normal(scale=0.3, size=len(genres))
    feats = _Feats(M)
    rows = pd.DataFrame({"genre": genres, "row_idx": range(len(genres))})
    kind = arena_cap.fit_kind(feats, rows)
    assert list(kind.classes_) == [False, True]
    assert arena_cap.kind_accuracy(kind, feats, rows) == 1.0
    # the same rows with the kinds swapped: every one wrong
    swapped = rows.assign(genre=rows.genre.map({"blog": "chat", "fiction": "arena-hard", "chat": "blog",
                                                "arena-hard": "fiction"}))
    assert arena_cap.kind_accuracy(kind, feats, swapped) == 0.0


def test_layout_profile_reads_headings_lists_and_bold() -> None:
    texts = pd.Series(["## Title\n\nProse.", "Intro:\n\n- one\n- two", "1. first\n\nA **bold** word.",
                       "Plain prose, no layout. #hashtag and * a star.", "# H\n\n* item\n\n**Note**"])
    assert arena_cap.layout_profile(texts).tolist() == [4, 2, 3, 0, 7]


def test_balance_weights_give_every_label_the_pooled_layout_profile() -> None:
    """Weighted, each label's share of answers with headings (and every other stratum) is the
    pooled share, and each label keeps its total weight (no weight clipped here)."""
    heading, plain = "## Step\n\nDo it.", "Just do it."
    rows = pd.DataFrame({"provider": ["CHATGPT"] * 6 + ["CLAUDE"] * 6,
                         "text": [heading] * 4 + [plain] * 2 + [heading] * 2 + [plain] * 4})
    w = arena_cap.balance_weights(rows)
    has = arena_cap.layout_profile(rows.text).to_numpy() >= 4
    for c in ("CHATGPT", "CLAUDE"):
        m = (rows.provider == c).to_numpy()
        assert np.average(has[m], weights=w[m]) == pytest.approx(0.5)  # pooled: 6 of 12
        assert w[m].sum() == pytest.approx(m.sum())
    skewed = pd.DataFrame({"provider": ["CHATGPT"] * 20 + ["CLAUDE"] * 20,
                           "text": [heading] * 19 + [plain] + [plain] * 20})
    assert arena_cap.balance_weights(skewed).max() == arena_cap.WEIGHT_CLIP[1]  # a rare stratum is clipped


def test_row_weight_scales_a_row_and_its_copies() -> None:
    from whowrote.style.train import augmented_rows

    X, Xa = np.zeros((3, 2)), np.zeros((3, 2, 2))
    _, _, _, _, w = augmented_rows(X, Xa, ["A", "B", "A"], ["g"] * 3, aug_weight=0.3, row_weight=np.array([1.0, 2.0, 0.5]))
    assert w.tolist() == pytest.approx([1.0, 2.0, 0.5, 0.3, 0.6, 0.15, 0.3, 0.6, 0.15])
