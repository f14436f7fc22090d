"""Held-out scoring: 3-way accuracy, the LOGO report's calibration fitted on the other genres only,
the model card's YAML header and numeric ordering, and model generations."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from whowrote.data.generations import NEW, OLD, generation
from whowrote.style import StyleModel
from whowrote.style.heldout import logo_report, three_way


class _Fitted:
    classes_ = np.array(["CLAUDE", "CHATGPT", "GEMINI", "OTHER"], dtype=object)
    ood_quantile, target_accuracy = 0.9, 0.9


def test_three_way_ignores_other():
    P = np.array([[0.1, 0.2, 0.05, 0.65], [0.5, 0.1, 0.1, 0.3]])
    assert list(three_way(_Fitted(), P)) == ["CHATGPT", "CLAUDE"]


def _fold(genre, rng, n, sharp, acc):
    y = rng.choice(_Fitted.classes_, size=n)
    yi = np.array([list(_Fitted.classes_).index(v) for v in y])
    pred = np.where(rng.random(n) < acc, yi, (yi + 1) % 4)
    logits = np.full((n, 4), 0.0)
    logits[np.arange(n), pred] = sharp
    return genre, _Fitted(), logits, y, rng.random(n)


def test_logo_report_fits_each_genres_calibration_on_the_others_only():
    from whowrote.style.calibration import expected_calibration_error, fit_temperature, softmax

    rng = np.random.default_rng(0)
    folds = [_fold("a", rng, 400, 2.0, 0.8), _fold("b", rng, 400, 8.0, 0.5), _fold("c", rng, 400, 2.0, 0.8)]
    rep = logo_report(folds)
    idx = {c: i for i, c in enumerate(_Fitted.classes_)}
    yi = {g: np.array([idx[v] for v in y]) for g, _, _, y, _ in folds}
    T_b = fit_temperature(np.vstack([folds[0][2], folds[2][2]]), np.r_[yi["a"], yi["c"]])
    assert rep["b"]["temperature"] == pytest.approx(T_b)
    own = fit_temperature(folds[1][2], yi["b"])  # what a leak (fitting on the genre itself) would give
    assert rep["b"]["ece"] > expected_calibration_error(softmax(folds[1][2], own), yi["b"]) + 0.1
    for g in "abc":
        assert 0 <= rep[g]["coverage"] <= 1 and 0.3 <= rep[g]["abstain_below"] <= 0.95
    assert rep["mean_accuracy"] == pytest.approx(np.mean([rep[g]["accuracy"] for g in "abc"]))
    c = rep["curve"]
    assert c["coverage"][0] >= c["coverage"][-1] and len(c["coverage"]) == len(c["thresholds"])
    # --among the three, on the assistants' rows: the fold's calibrated P renormalised over them, the same rule
    from whowrote.style.calibration import scaled_softmax, temperatures

    _, _, logits, y, dist = folds[1]
    P = scaled_softmax(logits, temperatures(dist, rep["b"]["temperature"], rep["b"]["temperature_slope"]))
    three = y != "OTHER"
    P3 = P[three][:, :3] / P[three][:, :3].sum(axis=1, keepdims=True)
    assert rep["b"]["among3_ece"] == pytest.approx(expected_calibration_error(P3, yi["b"][three]))
    assert 0 <= rep["b"]["among3_coverage"] <= 1
    assert rep["mean_among3_ece"] == pytest.approx(np.mean([rep[g]["among3_ece"] for g in "abc"]))


def test_generations_of_the_corpus_models():
    assert generation("claude-3-opus-20240229", "CLAUDE", "chat") == OLD
    assert generation("claude-3-7-sonnet-20250219", "CLAUDE", "fiction") == NEW
    assert generation("claude-opus-4.8", "CLAUDE", "blog") == NEW
    assert generation("gpt4_1106_preview", "CHATGPT", "chat") == OLD
    assert generation("gpt-4.1-mini", "CHATGPT", "longform") == NEW
    assert generation("o3", "CHATGPT", "longform") == NEW
    assert generation("o4-mini", "CHATGPT", "longform") == NEW
    assert generation("o1-mini-2024-09-12", "CHATGPT", "arena-hard") == OLD  # released September 2024
    assert generation("o1-preview-2024-09-12", "CHATGPT", "arena-hard") == OLD
    assert generation("chatgpt-4o-latest-2025-01-29", "CHATGPT", "fiction") == NEW
    assert generation("gemini-pro", "GEMINI", "chat") == OLD
    assert generation("gemini-2.5-pro-preview-03-25", "GEMINI", "longform") == NEW
    assert generation("Mixtral-8x7B-Instruct-v0.1", "OTHER", "chat") == OLD
    assert generation("glm-5", "OTHER", "debate") == NEW
    assert generation("qwen2-72b-instruct", "OTHER", "arena-hard") == OLD  # Arena-Hard v0.1: 2024 models


def test_every_corpus_assistant_model_gets_a_rule(corpus):
    import re

    from whowrote.data.generations import RULES

    named = corpus[corpus["provider"] != "OTHER"]["model"].unique()
    unmatched = [m for m in named if not any(re.search(p, m.lower()) for p, _ in RULES)]
    assert unmatched == []


def test_model_card_header_is_yaml_and_tables_sort_numerically():
    from whowrote.style.model_card import model_card

    m = StyleModel()
    m.classes_ = _Fitted.classes_
    m.temperature_, m.abstain_below_, m.ood_threshold_ = 1.2, 0.55, 3.0
    m.training_ = {"n_texts": 10, "seed": 0, "counts": {"blog/CLAUDE": 5}, "files": []}
    m.metrics_ = {"topic_holdout_val": {"accuracy": 0.9, "macro_f1": 0.8, "ece": 0.05, "per_genre": {}},
                  "length_falloff": {"1000": 0.9, "50": 0.5, "250": 0.8},
                  "leave_one_genre_out": {"blog": {"n": 3, "accuracy": 0.5}, "mean_accuracy": 0.5}}
    card = model_card(m)
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["library_name"] == "whowrote" and header["license"] == "apache-2.0"
    assert header["model-index"][0]["results"][0]["metrics"][0]["value"] == 0.9
    assert card.index("| 50 | 0.500 |") < card.index("| 250 | 0.800 |") < card.index("| 1000 | 0.900 |")


def test_logo_report_joins_only_the_other_genres_in_genre_rows_to_the_fit():
    from whowrote.style.calibration import fit_shift_temperature

    rng = np.random.default_rng(1)
    folds = [_fold(g, rng, 300, 4.0, 0.6) for g in "abc"]
    ins = [_fold(g, rng, 200, 4.0, 0.95) for g in "abc"]  # in-genre: sharp and mostly right
    in_genre = (np.vstack([f[2] for f in ins]), np.concatenate([f[4] for f in ins]) * 0.2,
                np.concatenate([f[3] for f in ins]), np.repeat(np.array(list("abc"), dtype=object), 200))
    rep = logo_report(folds, in_genre)
    idx = {c: i for i, c in enumerate(_Fitted.classes_)}
    yy = lambda f: np.array([idx[v] for v in f[3]])  # noqa: E731
    want = fit_shift_temperature(np.vstack([folds[0][2], folds[2][2]]), np.r_[folds[0][4], folds[2][4]],
                                 np.r_[yy(folds[0]), yy(folds[2])], np.vstack([ins[0][2], ins[2][2]]),
                                 np.r_[ins[0][4], ins[2][4]] * 0.2, np.r_[yy(ins[0]), yy(ins[2])])
    assert (rep["b"]["temperature"], rep["b"]["temperature_slope"]) == pytest.approx(want)
    assert rep["b"]["temperature_slope"] > 0  # far rows are wrong more often than near ones
    without = logo_report(folds)
    assert without["b"]["temperature_slope"] == 0.0
