"""The few-shot genre trial (benchmarks/few_shot_genre.py): how it lends texts and scores them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from few_shot_genre import OTHER_I, draw, scores  # noqa: E402


def test_draw_lends_equal_numbers_per_label_and_fills_up_from_the_others():
    y = np.array([0] * 10 + [1] * 10 + [2] * 2 + [3] * 10)
    pool = np.arange(len(y))
    got = draw(pool, y, 12, seed=0)
    assert len(got) == len(set(got)) == 12 and set(got) <= set(pool)
    # label 2 has only 2 texts: the others fill in, one more each in label order until 12 are lent
    assert np.bincount(y[got], minlength=4).tolist() == [4, 3, 2, 3]
    assert np.bincount(y[draw(pool, y, 8, seed=0)], minlength=4).tolist() == [2, 2, 2, 2]
    assert np.array_equal(draw(pool, y, 8, seed=1), draw(pool, y, 8, seed=1))  # seeded
    assert len(draw(pool, y, 100, seed=0)) == len(pool)  # never more than the pool
    sub = pool[::2]  # only the rows of the pool are lent
    assert set(draw(sub, y, 6, seed=0)) <= set(sub)


def test_scores_read_four_way_three_way_and_other_auroc():
    P = np.array([[0.7, 0.1, 0.1, 0.1],   # CLAUDE, right
                  [0.1, 0.3, 0.2, 0.4],   # CHATGPT: 4-way says OTHER, 3-way says CHATGPT
                  [0.1, 0.1, 0.2, 0.6],   # OTHER, right
                  [0.5, 0.2, 0.1, 0.2]])  # GEMINI called CLAUDE
    y = np.array([0, 1, OTHER_I, 2])
    r = scores(P, y)
    assert r["n"] == 4 and r["accuracy"] == 0.5
    assert r["accuracy_3way"] == 2 / 3
    assert r["other_auroc"] == 1.0  # the OTHER text has the highest P(OTHER)
    assert scores(P[:2], y[:2])["other_auroc"] is None  # no OTHER text: no AUROC


def test_table_marks_a_pool_smaller_than_n_and_averages_every_genre():
    from few_shot_genre import table

    def r(a3: float, a4: float, **kw) -> dict:
        return {"n": 10, "accuracy": a4, "accuracy_3way": a3, "other_auroc": None, **kw}

    shots = {"0": r(0.5, 0.4), "25": r(0.9, 0.8), "100": r(1.0, 1.0, capped_at_pool=True),
             "400": r(1.0, 1.0, capped_at_pool=True), "all": r(1.0, 1.0)}
    other = {k: r(0.7, 0.6) for k in ("0", "25", "100", "400", "all")}
    res = {"outer": {"small": {"pool": 30, "test": 40, "shots": shots},
                     "big": {"pool": 900, "test": 800, "shots": other}}}
    out = table(res)
    assert "| small (30 / 40) | 0.500 (0.400) | 0.900 (0.800) | 1.000 (1.000) ¹ |" in out
    assert "| mean 3-way | 0.600 (2) | 0.800 (2) | 0.850 (2) | 0.850 (2) | 0.850 (2) |" in out
