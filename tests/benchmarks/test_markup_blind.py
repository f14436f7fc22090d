"""Markup-blind trial (benchmarks/markup_blind.py): the view and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from markup_blind import MARKUP, blind, decide  # noqa: E402

from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.features import feature_names  # noqa: E402

MD = "## Why it matters\n\n- **First**, a point.\n- Second, with `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" + "Plain words. " * 30


def test_blind_zeroes_exactly_the_markup_columns_of_rows_and_copies() -> None:
    feat = StyleModel(feature_set="full").features
    X = feat([MD, MD.replace("**", "").replace("## ", "").replace("- ", "")])
    names = feature_names("full")
    Xb = blind(X)
    changed = {names[j] for j in np.flatnonzero((Xb != X).any(axis=0))}
    assert {"md_h2_h3", "md_bullet", "md_bold", "inline_code"} <= changed  # markers this text has
    assert not (set(names) - set(MARKUP)) & changed  # nothing else moves
    copies = np.stack([X, X], axis=1)
    assert np.array_equal(blind(copies)[:, 1], Xb) and not np.shares_memory(Xb, X)


def test_decision_needs_every_check() -> None:
    def inner(raw, md, worst):
        return {"edits": {"raw": {"accuracy": raw}}, "md_drop": md, "worst_drop": worst}
    logo = {"mean_3way": {"current": 0.70, "blind": 0.70}}
    ok = decide({"current": inner(0.80, 0.05, 0.12), "blind": inner(0.80, 0.02, 0.12)}, logo)
    assert ok["adopt"]
    bad = decide({"current": inner(0.80, 0.05, 0.12), "blind": inner(0.777, 0.018, 0.173)}, logo)
    assert not bad["adopt"] and bad["checks"]["md_drop_within_3pt"]
    assert not bad["checks"]["raw_not_down_0.5pt"] and not bad["checks"]["worst_drop_not_up_0.5pt"]
