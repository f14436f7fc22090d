"""The list-marker flip count (benchmarks/list_markers.py) on a handful of real corpus texts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import pandas as pd  # noqa: E402
from list_markers import flips  # noqa: E402

from whowrote.style import StyleModel, load_model  # noqa: E402


def test_flips_counts_bulleted_texts_per_genre_and_direction(corpus):
    longform = corpus[corpus["genre"] == "longform"]
    dashed = longform[longform["text"].str.contains(r"(?m)^- \S")].head(30)
    plain = longform[~longform["text"].str.contains(r"(?m)^[ \t]*[-+*][ \t]")].head(5)
    got = flips(load_model(), pd.concat([dashed, plain]))
    # only texts with "- " bullets are scored, and only in the direction that rewrites them
    assert set(got) == {"longform dash_to_star"} and got["longform dash_to_star"]["n"] == len(dashed)
    assert 0 <= got["longform dash_to_star"]["flips"] <= len(dashed)
    # a model that reads every marker alike cannot flip
    same = StyleModel(tree_iter=5, calibrate=False, canonical_lists=True).fit(
        corpus["text"].tolist(), corpus["provider"].to_numpy())
    assert flips(same, dashed)["longform dash_to_star"]["flips"] == 0
