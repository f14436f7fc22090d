"""benchmarks/arena_cap.py: the inner prompt split, the per-label cap and the fixed rule."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import arena_cap  # noqa: E402
from external_answers import half_a  # noqa: E402


def test_inner_split_is_a_second_hash_byte_independent_of_the_halves() -> None:
    qs = [f"question-{i}" for i in range(400)]
    a1 = [q for q in qs if arena_cap.in_a1(q)]
    assert a1 == [q for q in qs if hashlib.sha256(q.encode()).digest()[1] % 2 == 0]
    # both inner parts draw from half A (and from half B) in roughly equal shares
    in_half_a = [q for q in qs if half_a(q)]
    share = sum(arena_cap.in_a1(q) for q in in_half_a) / len(in_half_a)
    assert 0.35 < share < 0.65


def test_cap_keeps_at_most_cap_per_label_and_every_row_of_a_small_label() -> None:
    rows = pd.DataFrame({"provider": ["CHATGPT"] * 10 + ["GEMINI"] * 2 + ["OTHER"] * 7, "id": range(19)})
    got = arena_cap.capped(rows, 4, seed=0)
    assert got.provider.value_counts().to_dict() == {"CHATGPT": 4, "OTHER": 4, "GEMINI": 2}
    assert set(got.id) <= set(rows.id) and got.id.is_unique
    assert list(arena_cap.capped(rows, 4, seed=0).id) == list(got.id)  # seeded
    assert list(arena_cap.capped(rows, 4, seed=1).id) != list(got.id)


def _results(logo_cap: float, drop_cap: float, t1_cap: float, t2_cap: float, t3_cap: float) -> dict:
    def arms(key: str, a: float, c: float) -> dict:
        return {"all": {key: a}, "cap": {key: c}}
    return {"arm": "cap", "tests": {"T1": arms("mean_recall_3way", 0.80, t1_cap), "T2": arms("mean_recall_3way", 0.70, t2_cap),
                      "T3": arms("accuracy", 0.780, t3_cap)},
            "LOGO": {g: arms("accuracy_3way", 0.70, logo_cap) for g in ("blog", "chat")},
            "T3 combined drop": {"all": {"diff": 5.0}, "cap": {"diff": drop_cap}}}


def test_rule_needs_a_gain_and_no_loss_beyond_the_slacks() -> None:
    ok = arena_cap.rule(_results(logo_cap=0.711, drop_cap=5.0, t1_cap=0.785, t2_cap=0.69, t3_cap=0.776))
    assert all(ok.values())  # LOGO +1.1, T1 -1.5, T2 -1.0, T3 -0.4
    assert all(arena_cap.rule(_results(0.70, 3.9, 0.80, 0.70, 0.78)).values())  # the edit drop 1.1 smaller
    assert not arena_cap.rule(_results(0.709, 4.1, 0.80, 0.70, 0.78))["a: LOGO +1 or combined drop -1"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.779, 0.70, 0.78))["b: T1 and T2 within 2"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.80, 0.679, 0.78))["b: T1 and T2 within 2"]
    assert not arena_cap.rule(_results(0.75, 5.0, 0.80, 0.70, 0.774))["c: T3 within 0.5"]


def test_rule_reads_the_challenger_named_in_the_results() -> None:
    res = _results(0.711, 5.0, 0.785, 0.69, 0.776)
    renamed = {**res, "arm": "plain"}
    for block in ("tests", "LOGO"):
        renamed[block] = {k: {"all": v["all"], "plain": v["cap"]} for k, v in res[block].items()}
    renamed["T3 combined drop"] = {"all": res["T3 combined drop"]["all"], "plain": res["T3 combined drop"]["cap"]}
    assert arena_cap.rule(renamed) == arena_cap.rule(res)
    assert all(arena_cap.rule(renamed).values())
