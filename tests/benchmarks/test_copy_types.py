"""Copy-kind trial (benchmarks/copy_types.py): the OTHER AUROC it reports and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from copy_types import decide, logo_scores  # noqa: E402


class Fit:
    classes_ = np.array(["CHATGPT", "CLAUDE", "GEMINI", "OTHER"], dtype=object)


def test_logo_scores_rank_other_by_its_probability() -> None:
    y = np.array(["OTHER", "CLAUDE", "OTHER", "GEMINI"], dtype=object)
    P = np.array([[0.1, 0.1, 0.1, 0.7], [0.1, 0.6, 0.1, 0.2], [0.3, 0.1, 0.1, 0.5], [0.2, 0.1, 0.6, 0.1]])
    s = logo_scores(Fit(), P, y)
    assert s["other_auroc"] == 1.0 and s["accuracy"] == 1.0
    assert logo_scores(Fit(), P[:, [0, 1, 2, 3]][::-1], y)["other_auroc"] == pytest.approx(0.0)
    assert logo_scores(Fit(), P[1:2], y[1:2])["other_auroc"] is None  # one side only


def _inner(raw, md=0.05, worst=0.12):
    return {"edits": {"raw": {"accuracy": raw}}, "md_drop": md, "worst_drop": worst}


def _logo(four, three, blog3):
    return {"blog": {"current": {"accuracy_3way": 0.80}, **{v: {"accuracy_3way": blog3} for v in four}},
            "mean": {"current": {"accuracy": 0.50, "accuracy_3way": 0.73},
                     **{v: {"accuracy": a, "accuracy_3way": three} for v, a in four.items()}}}


def test_decision_picks_the_best_passing_variant() -> None:
    inner = {"current": _inner(0.80), "truncated": _inner(0.80), "plain_text": _inner(0.80)}
    d = decide(inner, _logo({"truncated": 0.52, "plain_text": 0.53}, 0.73, 0.80))
    assert d["truncated"]["adopt"] and d["plain_text"]["adopt"] and d["pick"] == "plain_text"


def test_decision_needs_every_check() -> None:
    inner = {"current": _inner(0.80), "truncated": _inner(0.80), "combined": _inner(0.79, worst=0.13)}
    d = decide(inner, _logo({"truncated": 0.505, "combined": 0.55}, 0.73, 0.80))
    assert not d["truncated"]["checks"]["logo_4way_up_1pt"]
    assert not d["combined"]["checks"]["raw_not_down_0.5pt"] and not d["combined"]["checks"]["worst_drop_not_up_0.5pt"]
    assert d["pick"] is None
    blog = decide({"current": _inner(0.80), "plain_text": _inner(0.80)}, _logo({"plain_text": 0.55}, 0.73, 0.77))
    assert not blog["plain_text"]["checks"]["no_logo_genre_3way_down_2pt"] and blog["pick"] is None
