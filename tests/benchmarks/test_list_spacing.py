"""The list-spacing trial (benchmarks/list_spacing.py): its arm reads lists tight with features of
its own, and its rule reads the Word round trip's drop first."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from list_spacing import ARMS, decide  # noqa: E402
from robustness import FEATURES_OF, RECIPES  # noqa: E402

from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.edits import markdown_docx_file  # noqa: E402

LOOSE = "Here is a plan:\n\n1. **First**, gather the facts.\n\n2. **Then** decide.\n\nThat is all."


def test_the_arm_reads_lists_tight_with_its_own_features() -> None:
    assert ARMS == {"current": "default", "tight_lists": "tight_lists"}
    assert RECIPES["tight_lists"] == {"canonical": True, "canonical_list_spacing": True}
    assert "tight_lists" not in FEATURES_OF  # its features are its own, not the default's
    default, tight = StyleModel(**RECIPES["default"]), StyleModel(**RECIPES["tight_lists"])
    docx = markdown_docx_file(LOOSE)
    assert not np.array_equal(default.features([LOOSE]), default.features([docx]))
    np.testing.assert_array_equal(tight.features([LOOSE]), tight.features([docx]))


def test_the_rule_is_aimed_at_the_word_round_trip() -> None:
    def arm(docx: float, other: float, raw: float, logo: float) -> tuple[dict, dict]:
        return {"drops": {"docx_file": docx, "first_800_chars": other}, "edits": {"raw": {"accuracy": raw}}}, \
            {"accuracy_3way": logo}

    arms = {"current": arm(0.04, 0.10, 0.80, 0.70), "tight_lists": arm(0.01, 0.10, 0.797, 0.70),
            "costs_raw": arm(0.0, 0.10, 0.79, 0.70), "small": arm(0.035, 0.10, 0.80, 0.70)}
    inner = {a: v[0] for a, v in arms.items()}
    logo = {"mean": {a: v[1] for a, v in arms.items()}, "chat": {a: v[1] for a, v in arms.items()}}
    got = decide(inner, logo)
    assert got["tight_lists"]["adopt"] and got["pick"] == "tight_lists"
    assert "docx_file_drop_down_1pt_or_logo_up_1pt" in got["tight_lists"]["checks"]
    assert not got["costs_raw"]["adopt"] and not got["small"]["adopt"]
