"""Tree-settings trial (benchmarks/tree_settings.py): the setting reaches the style model's
trees, is undone after the fit, and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import sklearn.ensemble as ens

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from tree_settings import decide, routed, with_tree_settings  # noqa: E402

from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.train import fit_augmented  # noqa: E402


def test_subsampled_fit_sets_max_features_for_the_fit_only() -> None:
    def fit() -> float:
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=3).max_features

    original = ens.HistGradientBoostingClassifier
    assert with_tree_settings(fit, max_features=0.25)() == 0.25
    assert ens.HistGradientBoostingClassifier is original and fit() == 1.0


def test_subsampled_fit_changes_the_style_models_trees() -> None:
    rng = np.random.default_rng(0)
    n_feat = StyleModel(feature_set="full").features(["A short text of a few words."]).shape[1]
    y = np.array(["CLAUDE", "CHATGPT", "GEMINI", "OTHER"] * 30, dtype=object)
    X = rng.gamma(2.0, 1.0, (len(y), n_feat)) + (y == "CLAUDE")[:, None] * rng.random(n_feat) * 2
    genres = np.array(["blog", "debate"] * 60, dtype=object)

    def fit(mf: float) -> np.ndarray:
        m = with_tree_settings(fit_augmented, max_features=mf)(X, X * 1.01, y, genres, seed=0, feature_set="full", calibrate=False,
                                               tree_iter=20)
        return m.predict_proba(X)

    full, again, sub = fit(1.0), fit(1.0), fit(0.25)
    assert np.allclose(full, again)  # deterministic at a fixed seed
    assert not np.allclose(full, sub)  # so the difference is the subsampling


def _res(raw: float, drops: dict[str, float], logo: dict[str, float]) -> tuple[dict, dict]:
    inner = {"edits": {"raw": {"accuracy": raw}}, "drops": drops, "worst_drop": max(drops.values())}
    return inner, {g: {"accuracy_3way": a} for g, a in logo.items()}


def test_decide_needs_a_gain_and_no_loss() -> None:
    base_i, base_l = _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.50, "debate": 0.70})
    cases = {
        "gain": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.53, "debate": 0.70}),
        "robust": _res(0.896, {"strip_markdown": 0.043, "first_800_chars": 0.085}, {"chat": 0.50, "debate": 0.70}),
        "no_gain": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.095}, {"chat": 0.505, "debate": 0.70}),
        "genre_loss": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.58, "debate": 0.67}),
        "edit_loss": _res(0.90, {"strip_markdown": 0.05, "first_800_chars": 0.08}, {"chat": 0.50, "debate": 0.70}),
        "raw_loss": _res(0.89, {"strip_markdown": 0.04, "first_800_chars": 0.08}, {"chat": 0.52, "debate": 0.70}),
    }
    inner = {"current": base_i, **{v: c[0] for v, c in cases.items()}}
    logo = {g: {"current": base_l[g], **{v: c[1][g] for v, c in cases.items()}} for g in base_l}
    logo["mean"] = {v: {"accuracy_3way": float(np.mean([logo[g][v]["accuracy_3way"] for g in base_l]))}
                    for v in inner}
    d = decide(inner, logo)
    assert {v for v in cases if d[v]["adopt"]} == {"gain", "robust"}
    assert not d["no_gain"]["checks"]["logo_up_1pt_or_worst_drop_down_1pt"]
    assert not d["genre_loss"]["checks"]["no_logo_genre_3way_down_2pt"]
    assert not d["edit_loss"]["checks"]["no_drop_up_0.5pt"]
    assert not d["raw_loss"]["checks"]["raw_not_down_0.5pt"]
    assert d["pick"] == "gain"  # the higher LOGO mean of the two passing


def test_routed_takes_the_long_models_rows_where_long() -> None:
    short = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]])
    long = np.array([[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]])
    out = routed(short, long, np.array([True, False, True]))
    assert out.tolist() == [[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]
