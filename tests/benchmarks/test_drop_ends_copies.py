"""The drop_ends copy trial (benchmarks/drop_ends_copies.py): its arms change only the training copies,
and its rule reads the drop_ends drop first."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from drop_ends_copies import ARMS, decide  # noqa: E402
from robustness import COPY_GROUPS, FEATURES_OF, RECIPES  # noqa: E402

from whowrote.style.edits import drop_ends  # noqa: E402
from whowrote.style.train import AUGMENTATIONS, edited_copies  # noqa: E402

TEXTS = [f"Sure! Here's post {i}:\n\n# Title {i}\n\nBody {'words ' * (30 * i)}.\n\nLet me know!" for i in range(1, 9)]


def test_the_arms_read_the_default_features_with_other_copies() -> None:
    assert ARMS["current"] == "default"
    for arm in ("drop_ends_group", "drop_ends_extra"):
        assert RECIPES[ARMS[arm]] == RECIPES["default"] and FEATURES_OF[ARMS[arm]] == "default"
    extra = edited_copies(TEXTS, 0, COPY_GROUPS["drop_ends_extra"])
    assert extra[0] == edited_copies(TEXTS, 0, AUGMENTATIONS)[0]  # the bundled copy, unchanged
    assert extra[1] == [drop_ends(t) for t in TEXTS] and all(c.startswith("# Title") for c in extra[1])
    group = edited_copies(TEXTS * 8, 0, COPY_GROUPS["drop_ends_group"])[0]
    assert any(c == drop_ends(t) for c, t in zip(group, TEXTS * 8, strict=True))  # one kind of copy among four


def _arm(drops: dict, raw: float, logo: float, genre: float) -> tuple[dict, dict]:
    return ({"drops": drops, "edits": {"raw": {"accuracy": raw}}}, {"accuracy_3way": logo}), genre


def test_the_rule_passes_a_smaller_cut_drop_and_fails_any_other_cost() -> None:
    base = {"drop_ends": 0.06, "first_800_chars": 0.10}
    arms = {"current": _arm(base, 0.80, 0.70, 0.70),
            "good": _arm({"drop_ends": 0.04, "first_800_chars": 0.104}, 0.797, 0.698, 0.69),
            "small_gain": _arm({"drop_ends": 0.055, "first_800_chars": 0.10}, 0.80, 0.70, 0.70),
            "costs_raw": _arm({"drop_ends": 0.02, "first_800_chars": 0.10}, 0.79, 0.70, 0.70),
            "costs_edit": _arm({"drop_ends": 0.02, "first_800_chars": 0.11}, 0.80, 0.70, 0.70),
            "costs_genre": _arm({"drop_ends": 0.02, "first_800_chars": 0.10}, 0.80, 0.70, 0.67)}
    inner = {a: v[0][0] for a, v in arms.items()}
    logo = {"mean": {a: v[0][1] for a, v in arms.items()}, "blog": {a: {"accuracy_3way": v[1]} for a, v in arms.items()}}
    got = decide(inner, logo)
    assert got["good"]["adopt"] and got["pick"] == "good"
    assert not any(got[a]["adopt"] for a in ("small_gain", "costs_raw", "costs_edit", "costs_genre"))
