"""benchmarks/among_three.py: the among-three verdict against the four-way one."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from among_three import compare  # noqa: E402


def test_assuming_an_assistant_only_mends_verdicts_of_other(corpus) -> None:
    """On the assistants' texts, conditioning on the three keeps every verdict that named one of
    them (renormalising keeps the order) and can only mend those that said OTHER; every OTHER text
    is given one of the three."""
    from whowrote.style import load_model

    rows = corpus.groupby("provider").head(6)
    mine = rows[rows.provider != "OTHER"]
    out = compare(load_model(), mine.text.tolist(), mine.provider.to_numpy(dtype=object),
                  mine.topic.astype(str).to_numpy(), rows[rows.provider == "OTHER"].text.tolist())
    four, three = out["four_way"], out["among_three"]
    assert four["n"] == three["n"] == len(mine)
    assert three["accuracy"] >= four["accuracy"] and out["accuracy_difference"][0] >= 0
    assert np.isclose(out["accuracy_difference"][0], 100 * (three["accuracy"] - four["accuracy"]), atol=0.01)
    assert sum(out["other_texts_called"].values()) == (rows.provider == "OTHER").sum()
