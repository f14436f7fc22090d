"""Per-genre normalisation trial (benchmarks/genre_normalise.py): the transforms and batches the rule rests on."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_normalise import BATCH, NATURAL, REPS, SKEW, draws, normalise, stats  # noqa: E402

from whowrote.style.trees import log_transform  # noqa: E402
from whowrote.types import LABELS  # noqa: E402


def test_each_part_is_standardised_in_the_space_the_model_reads() -> None:
    rng = np.random.default_rng(0)
    X = np.vstack([rng.gamma(2.0, 3.0, (50, 4)), rng.gamma(2.0, 30.0, (60, 4))])  # two "genres", other scales
    Xa = X * 1.1  # copies: standardised with their genre's unedited statistics
    parts = [np.arange(50), np.arange(50, 110)]
    y = np.zeros(110, dtype=int)
    Xn, Xan, clipped = normalise(X, Xa, parts, "zscore", y)
    Z = log_transform(Xn)  # what StyleModel computes from the matrix it is given
    for r in parts:
        assert np.allclose(Z[r].mean(axis=0), 0, atol=1e-9) and np.allclose(Z[r].std(axis=0), 1, atol=1e-9)
    loc, scale = stats(log_transform(X)[parts[1]], "zscore")
    assert np.allclose(log_transform(Xan)[parts[1]], (log_transform(Xa)[parts[1]] - loc) / scale)
    assert clipped == 0.0
    same, same_a, _ = normalise(X, Xa, parts, "none", y)
    assert same is X and same_a is Xa


def test_balanced_stats_weigh_each_label_equally_and_robust_falls_back_to_std() -> None:
    Z = np.array([[0.0], [0.0], [0.0], [4.0]])
    y = np.array([0, 0, 0, 1])
    loc, _ = stats(Z, "balanced", y)
    assert np.allclose(loc, [2.0])  # not the row mean 1.0
    loc, scale = stats(np.array([[0.0], [0.0], [0.0], [0.0], [5.0]]), "robust")  # IQR 0: a sparse feature
    assert loc[0] == 0.0 and np.isclose(scale[0], np.std([0, 0, 0, 0, 5.0]))


def test_skewed_batches_are_80_percent_one_provider() -> None:
    y = np.repeat([LABELS.index("CLAUDE"), LABELS.index("CHATGPT"), LABELS.index("GEMINI"), LABELS.index("OTHER")],
                  [300, 300, 100, 300])
    got = draws(y, seed=0, g_index=0)
    claude = got["skew CLAUDE"]
    assert len(claude) == REPS and all(len(b) == BATCH and len(set(b)) == BATCH for b in claude)
    assert all(np.mean(y[b] == LABELS.index("CLAUDE")) == SKEW for b in claude)
    gem = got["skew GEMINI"][0]  # 100 GEMINI texts: the batch shrinks to stay 80 %
    assert len(gem) == int(100 / SKEW) and np.mean(y[gem] == LABELS.index("GEMINI")) == SKEW
    assert [len(got[f"natural {n}"][0]) for n in NATURAL] == list(NATURAL)
