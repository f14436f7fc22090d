"""The seed trial (benchmarks/seed_trial.py): two recipes compared over several seeds each, the
yardsticks of a difference, its rule, and one-line bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from refit_noise import TESTS  # noqa: E402
from robustness import COPY_GROUPS, COPY_WEIGHTS  # noqa: E402
from seed_trial import beyond, compare, copies3_rule, fit_se, unit_interval  # noqa: E402

from whowrote.style.train import AUG_WEIGHT, AUGMENTATIONS, edited_copies  # noqa: E402


def test_the_fit_noise_se_adds_both_arms_variances_of_the_mean() -> None:
    a, b = [40.0, 44.0, 42.0], [45.0, 45.0, 45.0]  # a: sd 2, b: sd 0
    assert fit_se(a, b) == pytest.approx(2 / np.sqrt(3))
    row = compare(a, b)
    assert row["a"] == {"values": [40.0, 44.0, 42.0], "mean": 42.0, "sd": 2.0}
    assert row["diff"] == 3.0 and row["se"] == pytest.approx(1.15, abs=0.01)


def test_the_unit_interval_reads_each_texts_seed_average() -> None:
    units = np.repeat(np.arange(20), 5)
    right_a = np.zeros((3, 100), dtype=int)
    right_b = np.zeros((3, 100), dtype=int)
    right_b[:, :50] = 1  # b right on half the texts in every seed: +50 points wherever units fall
    lo, hi = unit_interval(right_a, right_b, units)
    assert 20 < lo < 50 < hi < 80  # whole units redrawn: 10 of 20 all right
    right_b[1:] = 0  # right in one seed of three only: a third of the gain
    lo, hi = unit_interval(right_a, right_b, units)
    assert 5 < lo < 50 / 3 < hi < 28 and hi - lo < 25


@pytest.mark.parametrize(("diff", "se", "interval", "expected"),
                         [(3.0, 1.0, [0.5, 5.0], 1), (3.0, 2.0, [0.5, 5.0], 0), (3.0, 1.0, [-0.5, 5.0], 0),
                          (-3.0, 1.0, [-5.0, -0.5], -1), (-3.0, 1.0, [-5.0, 0.5], 0)])
def test_a_difference_counts_only_beyond_two_se_and_its_interval(diff, se, interval, expected) -> None:
    assert beyond({"diff": diff, "se": se, "interval": interval}) == expected


def summary_of(diff: dict[str, float], sd_b: float = 2.0, logo_diff: float = 0.0, combined: float = 0.0) -> dict:
    row = lambda d, sd: {"a": {"sd": 2.0}, "b": {"sd": sd}, "diff": d, "se": 1.0,  # noqa: E731
                         "interval": [d - 1.5, d + 1.5]}
    return {"tests": {t: row(diff.get(t, 0.0), sd_b) for t in TESTS}, "logo": {"mean": row(logo_diff, sd_b)},
            "drops": {"combined": {"diff": combined, "se": 0.5}}}


def test_the_rule_adopts_a_steadier_recipe_that_loses_nothing() -> None:
    assert all(copies3_rule(summary_of({}, sd_b=1.0)).values())  # summed sd 5 against 10
    out = copies3_rule(summary_of({}, sd_b=1.5))  # 7.5 against 10: not steadier enough, and no gain
    assert not out[next(k for k in out if k.startswith("(d)"))]
    assert all(copies3_rule(summary_of({"M": 3.0}, sd_b=2.0)).values())  # a gain beyond 2 se instead


def test_the_rule_rejects_a_loss_on_any_test_the_logo_mean_or_the_combined_drop() -> None:
    keys = list(copies3_rule(summary_of({}, sd_b=1.0)))
    assert not copies3_rule(summary_of({"A": -3.0}, sd_b=1.0))[keys[0]]
    assert not copies3_rule(summary_of({}, sd_b=1.0, logo_diff=-2.5))[keys[1]]
    assert not copies3_rule(summary_of({}, sd_b=1.0, combined=1.5))[keys[2]]
    no_logo = summary_of({}, sd_b=1.0)
    del no_logo["logo"]
    assert not copies3_rule(no_logo)[keys[1]]  # not measured is not passed


def test_copies3_draws_three_copies_the_first_being_the_bundled_recipes() -> None:
    texts = [f"Paragraph one of text {i}.\n\nParagraph two, with **bold** words and more of them." for i in range(30)]
    three = edited_copies(texts, 4, COPY_GROUPS["copies3"])
    assert len(three) == 3 and three[0] == edited_copies(texts, 4, AUGMENTATIONS)[0]
    assert three[1] != three[0]  # further draws, not the same copy thrice
    assert COPY_WEIGHTS["copies3"] * len(COPY_GROUPS["copies3"]) == pytest.approx(AUG_WEIGHT)


def test_bad_arms_stop_in_one_line(tmp_path: Path, trial_folders: list[str]) -> None:
    script = str(REPO / "benchmarks" / "seed_trial.py")
    for extra, message in ((["--recipes", "default", "default"], "two different recipes"),
                           (["--seeds", "0", "--recipes", "default", "copies3"], "at least two seeds"),
                           (["--seeds", "0", "1", "--logo", "3"], "--logo between 0")):
        done = subprocess.run([sys.executable, script, *trial_folders, "--corpus", "c", "--out", str(tmp_path / "out"), *extra],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_the_figure_is_drawn_from_results_alone(tmp_path: Path, figure_only) -> None:
    row = {"a": {"values": [40.0, 42.0]}, "b": {"values": [41.0, 41.5]}}
    results = {"arms": ["default", "copies3"], "n": dict.fromkeys(TESTS, 10), "tests": dict.fromkeys(TESTS, row),
               "logo": {"mean": row}}
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = figure_only("seed_trial.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "seed_trial.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_copies0_keeps_seed_0s_copies_and_varies_only_the_fit(monkeypatch) -> None:
    import pandas as pd
    import robustness

    asked, fitted = [], []

    class Feats:
        def get(self, recipe: str, rows: np.ndarray, edit: str, seed: int = 0) -> np.ndarray:
            asked.append((edit, seed))
            return np.zeros((len(rows), 3))

    monkeypatch.setattr(robustness, "fit_augmented", lambda *a, **kw: fitted.append(kw["seed"]))
    train = pd.DataFrame({"row_idx": [0, 1], "provider": ["CLAUDE", "GEMINI"], "genre": ["blog"] * 2,
                          "topic": ["a", "b"], "model": ["m", "n"]})
    for recipe in ("default", "default_copies0"):
        robustness.fit_recipe(Feats(), recipe, train, 3)
    assert [s for e, s in asked if e == "train_copy"] == [3, 0] and fitted == [3, 3]


def test_the_blend_rule_needs_a_logo_gain_beyond_two_se_and_no_loss() -> None:
    from seed_trial import RULES, blend_rule

    assert RULES["blend300"] is blend_rule and RULES["copies3"] is copies3_rule
    assert not all(blend_rule(summary_of({}, logo_diff=1.5)).values())  # within 2 se: not a gain
    assert all(blend_rule(summary_of({}, logo_diff=2.5)).values())
    assert not all(blend_rule(summary_of({"S": -3.0}, logo_diff=2.5)).values())
    assert not all(blend_rule(summary_of({}, logo_diff=2.5, combined=1.5)).values())


def test_a_recipes_cache_key_changes_with_its_definition(monkeypatch) -> None:
    import robustness

    keys = {r: robustness.recipe_key(r) for r in ("default", "copies3", "default_copies0", "blend300", "legacy")}
    assert len(set(keys.values())) == len(keys)  # every definition its own key, stable within a run
    assert robustness.recipe_key("copies3") == keys["copies3"]
    monkeypatch.setitem(robustness.COPY_WEIGHTS, "copies3", 0.5)  # a changed weight is another fit
    assert robustness.recipe_key("copies3") != keys["copies3"]


def test_no_distilled_leaves_those_models_out_and_keeps_the_others_copies(monkeypatch) -> None:
    import pandas as pd
    import robustness

    copies = np.arange(12, dtype=float).reshape(4, 3) + 100  # the table's copies, one row per text
    raw = np.arange(12, dtype=float).reshape(4, 3)

    class Feats:
        def get(self, recipe: str, rows: np.ndarray, edit: str, seed: int = 0) -> np.ndarray:
            return (copies if edit == "train_copy" else raw)[rows]

    seen = {}

    def fit(X, Xa, y, genres, groups, **kw):
        seen.update(X=X, Xa=Xa, y=list(y), weight=kw["row_weight"])

    monkeypatch.setattr(robustness, "fit_augmented", fit)
    train = pd.DataFrame({"row_idx": [0, 1, 2, 3], "provider": ["CHATGPT", "OTHER", "OTHER", "CLAUDE"],
                          "genre": ["chat"] * 4, "topic": list("abcd"),
                          "model": ["gpt4", "vicuna-13b-v1.5", "Meta-Llama-3-70B-Instruct", "claude-2"]})
    robustness.fit_recipe(Feats(), "no_distilled", train, 0, row_weight=np.array([1.0, 2.0, 3.0, 4.0]))
    assert seen["y"] == ["CHATGPT", "OTHER", "CLAUDE"]  # Vicuna (ShareGPT) out, Llama 3 kept
    assert (seen["X"] == raw[[0, 2, 3]]).all() and (seen["Xa"] == copies[[0, 2, 3]]).all()
    assert list(seen["weight"]) == [1.0, 3.0, 4.0]
    robustness.fit_recipe(Feats(), "default", train, 0)
    assert len(seen["y"]) == 4
    assert robustness.recipe_key("no_distilled") != robustness.recipe_key("default")


def test_the_recall_summary_reads_each_label_per_seed() -> None:
    from seed_trial import recalls

    y = np.array(["CHATGPT", "CHATGPT", "CLAUDE", "OTHER"])
    run = lambda right: {"tests": {"M": {"right": right}}}  # noqa: E731
    runs = {"default": {0: run([0, 0, 1, 1]), 1: run([1, 0, 1, 1])},
            "no_distilled": {0: run([1, 1, 1, 0]), 1: run([1, 1, 0, 0])}}
    out = recalls(runs, y, "M")
    assert set(out) == {"CLAUDE", "CHATGPT", "OTHER", "assistants"}  # no GEMINI text: no GEMINI recall
    assert out["CHATGPT"]["a"]["values"] == [0.0, 50.0] and out["CHATGPT"]["b"]["values"] == [100.0, 100.0]
    assert out["CHATGPT"]["diff"] == 75.0
    assert out["assistants"]["a"]["values"] == [50.0, 75.0]  # the mean of CLAUDE's and CHATGPT's recall
    assert out["OTHER"]["diff"] == -100.0


def test_the_distilled_rule_needs_the_assistants_recall_up_on_a_and_m_and_no_loss() -> None:
    from seed_trial import RULES, distilled_rule

    def with_recall(s: dict, gain: dict[str, float]) -> dict:
        row = lambda d: {"a": {"sd": 1.0}, "b": {"sd": 1.0}, "diff": d, "se": 1.0}  # noqa: E731
        s["recall"] = {t: {"CHATGPT": row(gain.get(t, 0.0)), "assistants": row(gain.get(t, 0.0))} for t in TESTS}
        return s

    assert RULES["no_distilled"] is distilled_rule
    clauses = lambda out: {k: v for k, v in out.items() if not k.startswith("(H)")}  # noqa: E731
    out = distilled_rule(with_recall(summary_of({}), {"A": 3.0, "M": 3.0}))
    assert all(out.values())
    out = distilled_rule(with_recall(summary_of({}), {"A": 3.0, "M": 1.5}))  # M within 2 se
    assert not any(v for k, v in out.items() if k.startswith(("(H)", "(d)")))
    out = distilled_rule(with_recall(summary_of({"M": -3.0}), {"A": 3.0, "M": 3.0}))  # recall up, accuracy down
    assert out[next(k for k in out if k.startswith("(H)"))] and not all(clauses(out).values())


def test_per_model_accuracy_is_each_models_seed_averaged_share_right() -> None:
    import pandas as pd
    from seed_trial import per_model

    frame = pd.DataFrame({"model": ["gpt-4", "gpt-4", "vicuna", "vicuna"], "provider": ["CHATGPT"] * 2 + ["OTHER"] * 2})
    run = lambda right: {"tests": {"M": {"right": right}}}  # noqa: E731
    runs = {"default": {0: run([0, 0, 1, 1]), 1: run([1, 0, 1, 1])},
            "no_distilled": {0: run([1, 1, 0, 1]), 1: run([1, 0, 0, 1])}}
    rows = per_model(runs, frame, "M")
    assert [r["model"] for r in rows] == ["vicuna", "gpt-4"]  # the largest loss first
    assert rows[0] == {"model": "vicuna", "provider": "OTHER", "n": 2, "a": 100.0, "b": 50.0, "diff": -50.0}
    assert rows[1]["a"] == 25.0 and rows[1]["b"] == 75.0
