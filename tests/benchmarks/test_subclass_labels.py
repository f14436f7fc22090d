"""Sub-label trial (benchmarks/subclass_labels.py): rows get their assistant's generation as a class,
the classes' probabilities sum back to the assistants, and the rows weigh what they weigh in the
bundled recipe, so only the classes differ between the arms."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import subclass_labels  # noqa: E402
from subclass_labels import SummedClasses, fit_generation, sub_labels  # noqa: E402

from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.model import fit_weights  # noqa: E402
from whowrote.style.train import augmented_rows  # noqa: E402


def _toy(n_per: int = 30) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Two genres; each assistant of two generations whose feature shifts differ, and OTHER."""
    rng = np.random.default_rng(0)
    models = ["claude-2", "gpt-4", "gemini-pro", "llama", "claude-opus-4", "gpt-5", "gemini-3", "mistral"]
    providers = ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"] * 2
    frame = pd.DataFrame({"model": np.repeat(models, n_per), "provider": np.repeat(providers, n_per),
                          "genre": np.tile(["chat", "blog", "blog"], 8 * n_per // 3 + 1)[:8 * n_per]})
    frame["topic"] = [f"t{i % 25}" for i in range(len(frame))]
    n_feat = StyleModel(feature_set="full").features(["A short text."]).shape[1]
    shift = rng.random((len(models), n_feat)) * 2
    X = rng.gamma(2.0, 1.0, (len(frame), n_feat)) + shift[np.repeat(np.arange(len(models)), n_per)]
    return X, X[:, None, :] * 1.01, frame


def test_sub_labels_split_the_assistants_by_generation_and_keep_other_whole():
    _, _, frame = _toy(3)
    got = dict(zip(frame["model"], sub_labels(frame), strict=True))
    assert got["claude-2"] == "CLAUDE@2023-24" and got["claude-opus-4"] == "CLAUDE@2025-26"
    assert got["gpt-4"] == "CHATGPT@2023-24" and got["gpt-5"] == "CHATGPT@2025-26"
    assert got["gemini-pro"] == "GEMINI@2023-24" and got["gemini-3"] == "GEMINI@2025-26"
    assert got["llama"] == got["mistral"] == "OTHER"


def test_round_3_splits_only_claude_and_fits_the_rounds_it_is_given():
    X, Xa, frame = _toy()
    got = dict(zip(frame["model"], sub_labels(frame, ("CLAUDE",)), strict=True))
    assert got["claude-2"] == "CLAUDE@2023-24" and got["claude-opus-4"] == "CLAUDE@2025-26"
    assert got["gpt-4"] == got["gpt-5"] == "CHATGPT" and got["gemini-pro"] == got["gemini-3"] == "GEMINI"
    m = fit_generation(X, Xa, frame, seed=0, split=("CLAUDE",), tree_iter=12)
    assert [str(c) for c in m.model.classes_] == ["CHATGPT", "GEMINI", "OTHER", "CLAUDE@2023-24", "CLAUDE@2025-26"]
    assert m.model.tree_iter == 12 and len(m.model.trees_.roots) == 12 * 5  # one tree per class per round
    assert list(m.classes_) == ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"]
    np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)


def test_summed_classes_add_each_assistants_sub_classes():
    X, Xa, frame = _toy()
    m = fit_generation(X, Xa, frame, seed=0)
    assert isinstance(m, SummedClasses) and list(m.classes_) == ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"]
    sub = m.model.predict_proba(X)
    P = m.predict_proba(X)
    names = [str(c) for c in m.model.classes_]
    assert len(names) == 7
    for j, c in enumerate(m.classes_):
        np.testing.assert_allclose(P[:, j], sub[:, [i for i, s in enumerate(names) if s.split("@")[0] == c]].sum(axis=1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert (m.classes_[P.argmax(axis=1)] == frame["provider"].to_numpy()).mean() > 0.9  # it learned the toy


def test_the_generation_arm_weighs_rows_as_the_bundled_recipe(monkeypatch):
    X, Xa, frame = _toy()
    seen = {}

    class Capture(StyleModel):
        def fit(self, X, y, genres=None, groups=None, sample_weight=None):
            seen["y"], seen["genres"], seen["w"] = np.asarray(y, dtype=object), genres, sample_weight
            return super().fit(X, y, genres=genres, groups=groups, sample_weight=sample_weight)

    monkeypatch.setattr(subclass_labels, "StyleModel", Capture)
    fit_generation(X, Xa, frame, seed=0)
    uniq = sorted(set(seen["y"].tolist()))
    got = fit_weights(np.array([uniq.index(v) for v in seen["y"]]), seen["genres"], seen["w"], sqrt=True)
    _, y2, g2, _, w2 = augmented_rows(X, Xa, frame["provider"], frame["genre"])
    labels = sorted(set(y2.tolist()))
    want = fit_weights(np.array([labels.index(v) for v in y2]), g2, w2, sqrt=True)
    np.testing.assert_allclose(got, want)
    # and without the correction the sub-labels' cells would weigh otherwise
    plain = fit_weights(np.array([uniq.index(v) for v in seen["y"]]), seen["genres"], w2, sqrt=True)
    assert not np.allclose(plain, want)
