"""Probe metrics, signatures and cross-genre numbers on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from whowrote.study.probes import Probe, metrics, ordered_labels
from whowrote.study.robustness import length_curve, robustness_table
from whowrote.study.signatures import genre_effects, genre_signatures, ratio_sentences, top_coefficients


def test_metrics_by_hand():
    gold = ["CLAUDE", "CLAUDE", "CHATGPT", "GEMINI"]
    pred = ["CLAUDE", "CHATGPT", "CHATGPT", "CLAUDE"]
    m = metrics(gold, pred)
    assert m["labels"] == ["CLAUDE", "CHATGPT", "GEMINI"]  # LABELS order, not alphabetical
    assert m["accuracy"] == 0.5
    assert m["confusion"] == [[1, 1, 0], [0, 1, 0], [1, 0, 0]]  # rows gold, columns predicted
    assert m["recall"] == {"CLAUDE": 0.5, "CHATGPT": 1.0, "GEMINI": 0.0}
    # F1: CLAUDE 0.5, CHATGPT 2/3, GEMINI 0
    assert m["macro_f1"] == pytest.approx((0.5 + 2 / 3 + 0) / 3, abs=1e-4)
    assert m["chance"] == pytest.approx(1 / 3, abs=1e-4)
    assert ordered_labels(["OTHER", "GEMINI", "zz"]) == ["GEMINI", "OTHER", "zz"]


def _synthetic(n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.array(["CLAUDE", "CHATGPT", "GEMINI"] * n, dtype=object)
    X = rng.normal(1.0, 0.1, size=(len(y), 3)).clip(0)
    X[y == "CLAUDE", 0] *= 19  # "em-dashes": CLAUDE ~19x the others
    X[y == "GEMINI", 1] = rng.normal(5.0, 0.2, size=(y == "GEMINI").sum())
    X[y != "GEMINI", 1] = 0.0  # only GEMINI uses feature 1
    return X, y, ["punc_emdash", "w_furthermore", "noise"]


def test_top_coefficients_find_planted_features():
    X, y, names = _synthetic()
    top = top_coefficients(Probe().fit(X, y), names, k=2)
    assert list(top) == ["CLAUDE", "CHATGPT", "GEMINI"]
    assert top["CLAUDE"][0][0] == "punc_emdash"
    assert top["GEMINI"][0][0] == "w_furthermore"
    assert all(v > 0 for items in top.values() for _, v in items)


def test_ratio_sentences_say_the_planted_ratio():
    X, y, names = _synthetic()
    s = ratio_sentences(X, y, names, k=2)
    first = s["CLAUDE"][0]
    assert first["feature"] == "punc_emdash"
    assert 15 < first["ratio"] < 23
    assert first["sentence"].startswith("CLAUDE uses 19× the em-dashes of ") or first["sentence"].startswith(
        f"CLAUDE uses {first['ratio']:.0f}× the em-dashes of ")
    g = s["GEMINI"][0]
    assert g["feature"] == "w_furthermore" and g["ratio"] is None and "almost never" in g["sentence"]


def test_genre_signatures_transfer_and_flip():
    rng = np.random.default_rng(1)
    rows, ys, gs = [], [], []
    for genre, flip in (("blog", 1), ("debate", 1), ("fiction", -1)):
        for p in ("CLAUDE", "CHATGPT"):
            base = np.zeros(2)
            base[0] = 2.0 if p == "CLAUDE" else 0.0  # transfers: CLAUDE high everywhere
            base[1] = (1.5 if p == "CLAUDE" else 0.0) * flip  # flips in fiction
            rows.append(rng.normal(base, 0.5, size=(40, 2)))
            ys += [p] * 40
            gs += [genre] * 40
    X, y, g = np.vstack(rows), np.array(ys, dtype=object), np.array(gs, dtype=object)
    sig = genre_signatures(X, y, g, ["stable", "flipper"], k=2)
    assert set(sig["per_genre"]) == {"blog", "debate", "fiction"}
    names = [t["feature"] for t in sig["transfer"]["CLAUDE"]]
    assert names == ["stable"]  # the flipping feature does not transfer
    eff = genre_effects(X, y, g, ["stable", "flipper"], ["stable", "flipper"])
    assert eff["fiction"]["CLAUDE"]["flipper"] < 0 < eff["blog"]["CLAUDE"]["flipper"]
    assert all(eff[k]["CLAUDE"]["stable"] > 0.5 for k in eff)


def test_robustness_and_length_with_a_fake_scorer():
    texts = ["CLAUDE wrote this \u2014 truly. " * 30, "plain text here. " * 30]
    y = np.array(["CLAUDE", "CHATGPT"], dtype=object)

    def scorer(ts):  # "em-dash tell": survives lower-casing, not punctuation normalisation
        return np.array(["CLAUDE" if "\u2014" in t else "CHATGPT" for t in ts], dtype=object)

    r = robustness_table(texts, y, {"dash": scorer})
    acc = r["accuracy"]
    assert acc["raw"]["dash"] == 1.0 and acc["lower"]["dash"] == 1.0
    assert acc["to_ascii"]["dash"] == 0.5 and acc["combined"]["dash"] == 0.5
    lc = length_curve(texts, y, {"dash": scorer}, lengths=(2, 5, 1000))
    assert lc["accuracy"]["dash"] == {"2": 0.5, "5": 1.0, "1000": 1.0}
    assert lc["share_cut"]["1000"] == 0.0 and lc["share_cut"]["2"] == 1.0
