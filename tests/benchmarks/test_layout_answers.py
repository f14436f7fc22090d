"""Layout trial in today's recipe (benchmarks/layout_answers.py): its arms differ only by the training
copies they add, the bundled copy first and unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from layout_answers import ARMS, FOLD_SEEDS  # noqa: E402
from robustness import COPY_GROUPS, FEATURES_OF, RECIPES  # noqa: E402

from whowrote.style.edits import single_newlines  # noqa: E402
from whowrote.style.train import AUG_LENGTHS, AUGMENTATIONS, edited_copies  # noqa: E402

TEXTS = [f"# Title {i}\n\nFirst paragraph, with **bold** words {'and more ' * (40 * i)}.\n\n- a point\n- another\n\n"
         f"Last paragraph {i}: " + "long words here " * (30 * i) for i in range(1, 9)]


def test_the_arms_add_copies_to_the_bundled_one_and_read_the_same_features() -> None:
    assert ARMS["current"] == "default" and FOLD_SEEDS == {1: None, 2: 1}
    bundled = edited_copies(TEXTS, 0, AUGMENTATIONS)
    for arm in ("layout_extra", "layout_extra_chars"):
        recipe = ARMS[arm]
        assert RECIPES[recipe] == RECIPES["default"] and FEATURES_OF[recipe] == "default"
        copies = edited_copies(TEXTS, 0, COPY_GROUPS[recipe])
        assert copies[0] == bundled[0]  # the same draws: the bundled copy of every text, unchanged
        assert copies[1] == [single_newlines(t) for t in TEXTS] and copies[1] != TEXTS
    crops = edited_copies(TEXTS, 0, COPY_GROUPS["layout_extra_chars"])[2]
    assert len(COPY_GROUPS["layout_extra_chars"]) == 3
    for text, crop in zip(TEXTS, crops, strict=True):  # the text's first 300-3,000 characters
        assert text.startswith(crop) and len(crop) in {min(len(text), 5 * n) for n in AUG_LENGTHS}
    assert any(len(c) < len(t) for t, c in zip(TEXTS, crops, strict=True))
