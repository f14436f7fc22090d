"""The tree-capacity trial (benchmarks/tree_capacity.py): its rule and its table."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from tree_capacity import decide, table  # noqa: E402


def _res(base: tuple[float, float], more: tuple[float, float]) -> dict:
    def r(in_genre: float, logo: float) -> dict:
        return {"in_genre": {"a": in_genre}, "in_genre_mean": in_genre, "logo": {"a": {"3way": logo, "4way": logo}},
                "logo_3way_mean": logo}

    return {"genres": ["a"], "rounds": {"300": r(*base), "600": r(*more)}}


def test_a_candidate_needs_an_in_genre_gain_and_no_logo_loss():
    assert decide(_res((0.900, 0.700), (0.906, 0.697)))["600"]["adopt"]  # +0.006, -0.003
    assert not decide(_res((0.900, 0.700), (0.904, 0.700)))["600"]["adopt"]  # gain under 0.005
    assert not decide(_res((0.900, 0.700), (0.920, 0.690)))["600"]["adopt"]  # LOGO falls 0.010
    assert not decide(_res((0.900, 0.700), (0.900, 0.700)))["300"]["adopt"]  # the baseline never adopts itself


def test_table_shows_every_round_and_the_decision():
    res = _res((0.900, 0.700), (0.906, 0.697))
    res["decision"] = decide(res)
    out = table(res)
    assert "| 600 | 0.906 | 0.9060 | 0.697 (0.697) | 0.6970 |" in out
    assert "600 rounds candidate (in-genre +0.0060, LOGO 3-way -0.0030)" in out
