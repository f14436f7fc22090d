"""scripts/gpu/lm_style_blend.py: the LM's votes and the style model's probabilities averaged at one half."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from whowrote.style.io import load_model
from whowrote.train.data import write_rows
from whowrote.types import PROVIDERS

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))
import lm_style_blend as blend  # noqa: E402
from style_side_by_side import CONTENT_EDITS  # noqa: E402

TEXTS = [(REPO / "examples" / "post.md").read_text(),
         "Honestly, I'd love to help! Here's a quick rundown:\n\n* **First**, check the logs.\n* **Then** restart it.",
         "Certainly. The capital of France is Paris, a city on the Seine known for its museums and cafés."]


def _traces(path: Path, preds: dict[str, list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        for pid, ps in preds.items():
            for j, p in enumerate(ps):
                f.write(json.dumps({"prompt_id": pid, "sample": j, "pred": p, "correct": False}) + "\n")
    return path


def test_votes_are_shares_of_samples_and_a_sample_naming_none_counts_for_none(tmp_path: Path) -> None:
    t = _traces(tmp_path / "t.jsonl", {"a": ["CLAUDE"] * 4, "b": ["GEMINI", "GEMINI", "CHATGPT", "OTHER"],
                                       "x": ["CLAUDE"] * 4})
    V = blend.lm_votes(t, ["b", "a"])  # in the ids' order; "x" is not asked for
    assert V.tolist() == [[0.0, 0.25, 0.5], [1.0, 0.0, 0.0]]
    assert list(PROVIDERS) == ["CLAUDE", "CHATGPT", "GEMINI"]  # the columns above
    with pytest.raises(Exception, match="no samples for 1 of the split's texts"):
        blend.lm_votes(t, ["a", "missing"])


def test_blend_is_the_argmax_of_half_style_half_votes(tmp_path: Path) -> None:
    model = load_model()
    S = blend.style_probs(model, model.features(TEXTS))
    assert np.allclose(S.sum(axis=1), 1.0)
    style_pick = [PROVIDERS[i] for i in S.argmax(axis=1)]
    # gold: the style model's own pick on every text. The LM: unanimous for another provider on text 0
    # (so the blend follows the LM there unless the style model is sure beyond 1.0, impossible), split
    # 2-2 between gold and another on text 1, unanimous for gold on text 2.
    other = [next(p for p in PROVIDERS if p != g) for g in style_pick]
    preds = {"0": [other[0]] * 4, "1": [style_pick[1]] * 2 + [other[1]] * 2, "2": [style_pick[2]] * 4}
    write_rows(tmp_path / "s.jsonl.gz", [{"id": str(i), "text": t, "provider": g, "topic": f"t{i}"}
                                         for i, (t, g) in enumerate(zip(TEXTS, style_pick, strict=True))])
    got = blend.score_file(model, tmp_path / "s.jsonl.gz", _traces(tmp_path / "t.jsonl", preds))
    V = blend.lm_votes(tmp_path / "t.jsonl", ["0", "1", "2"])
    want = [PROVIDERS[i] for i in (0.5 * S + 0.5 * V).argmax(axis=1)]
    assert got["n"] == 3 and got["style"] == 1.0
    assert got["lm"] == pytest.approx((0 + 0.5 + 1) / 3)
    assert got["blend"] == pytest.approx(np.mean([w == g for w, g in zip(want, style_pick, strict=True)]))
    assert want[0] == other[0] and want[2] == style_pick[2]  # a unanimous LM outvotes any style probability < 1
    assert got["blend_minus_style"]["diff"] == pytest.approx(100 * (got["blend"] - 1.0), abs=0.01)
    # gated: the style verdict (right on all three here) where the abstain rule does not fire, the blend's where it does
    X = model.features(TEXTS)
    unsure = model.uncertain(model.predict_proba(X), X)
    blend_right = np.array([w == g for w, g in zip(want, style_pick, strict=True)])
    assert got["style_uncertain"] == pytest.approx(unsure.mean())
    assert got["gated"] == pytest.approx(np.where(unsure, blend_right, True).mean())
    # with the rule firing only on text 1, gated keeps the style model's right verdict on text 0, where
    # the unanimous LM drags the blend to the wrong provider
    model.uncertain = lambda P, X, distance=None: np.array([False, True, False])
    got = blend.score_file(model, tmp_path / "s.jsonl.gz", tmp_path / "t.jsonl")
    assert got["style_uncertain"] == pytest.approx(1 / 3)
    assert got["gated"] == pytest.approx((1 + blend_right[1] + 1) / 3) and got["gated"] > got["blend"]


def _scores(raw: dict, edited: dict, arena: dict) -> dict:
    out = {"raw": raw, "arena_b": arena, "chat": arena}
    out.update({e: edited for e in CONTENT_EDITS})
    return out


def test_rule_keeps_both_only_when_all_three_hold() -> None:
    ok = blend.verdict(_scores({"lm": 0.96, "style": 1.0, "blend": 0.99}, {"lm": 0.86, "style": 0.95, "blend": 0.94},
                               {"lm": 0.84, "style": 0.79, "blend": 0.835}))
    assert ok["keeps_both"] and ok["fails"] == []
    assert ok["mean_content_loss"]["style"] == pytest.approx(5.0) and ok["mean_content_loss"]["blend"] == pytest.approx(5.0)
    bad = blend.verdict(_scores({"lm": 0.96, "style": 1.0, "blend": 0.97}, {"lm": 0.86, "style": 0.95, "blend": 0.90},
                                {"lm": 0.84, "style": 0.79, "blend": 0.82}))
    assert not bad["keeps_both"] and bad["fails"] == ["arena_b", "edits", "raw"]


def test_missing_traces_are_a_one_line_error_and_nothing_is_written(tmp_path: Path) -> None:
    write_rows(tmp_path / "val.jsonl.gz", [{"id": "0", "text": TEXTS[0], "provider": "CLAUDE"}])
    out = tmp_path / "o.json"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/lm_style_blend.py"), "--lm", str(tmp_path / "nolm"),
                        "--val", str(tmp_path / "val.jsonl.gz"), "--edits", str(tmp_path), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and r.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nolm' / 'eval_k4' / 'traces.jsonl'}: no samples for 1 of the split's texts (e.g. 0)"]
    assert not out.exists()


def test_the_command_scores_every_file_and_writes_the_rules_and_a_figure(tmp_path: Path) -> None:
    # one text per file; gold is the bundled model's own verdict and the LM votes for it unanimously, so
    # both sides and both combinations are right on all ten files, which the output must name in order
    model = load_model()
    S = blend.style_probs(model, model.features(TEXTS[:1]))
    gold = PROVIDERS[int(S.argmax())]
    edits, lm = tmp_path / "edits", tmp_path / "lm"
    files = {"eval_k4": tmp_path / "val.jsonl.gz"}
    files.update({f"eval_k4_val.{e}": edits / f"val.{e}.jsonl.gz" for e in CONTENT_EDITS})
    files.update({f"eval_k4_{o}": edits / f"{o}.jsonl.gz" for o in ("chat", "arena_b")})
    edits.mkdir()
    for folder, split in files.items():
        write_rows(split, [{"id": "0", "text": TEXTS[0], "provider": gold}])
        _traces(lm / folder / "traces.jsonl", {"0": [gold] * 4})
    out, png = tmp_path / "o.json", tmp_path / "o.png"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/lm_style_blend.py"), "--lm", str(lm), "--val",
                        str(tmp_path / "val.jsonl.gz"), "--edits", str(edits), "--out", str(out), "--plot", str(png),
                        "--lm-label", "tiny"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())
    assert list(got["scores"]) == ["raw", *CONTENT_EDITS, "chat", "arena_b"]
    assert all(s["lm"] == s["style"] == s["blend"] == s["gated"] == 1.0 for s in got["scores"].values())
    assert got["rule"]["keeps_both"] and got["rule_gated"]["keeps_both"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_logo_rule_needs_two_points_and_an_interval_above_zero() -> None:
    def scores(lm: dict, gated: dict) -> dict:
        return {"debate": {"lm_minus_style": lm, "gated_minus_style": gated}}

    got = blend.logo_verdict(scores({"diff": 2.0, "lo": 0.1, "hi": 4.0}, {"diff": 1.9, "lo": 0.2, "hi": 3.6}), "debate")
    assert (got["lm"], got["gated"]) == ("improves", "level")  # 1.9 points is under the margin
    got = blend.logo_verdict(scores({"diff": 6.0, "lo": 0.0, "hi": 12.0}, {"diff": -3.0, "lo": -6.0, "hi": -0.1}), "debate")
    assert (got["lm"], got["gated"]) == ("level", "worse")  # an interval touching 0 is not above it
    assert got["held_out"] == "debate" and got["gated_minus_style"]["diff"] == -3.0


def test_held_out_file_is_scored_and_ruled_and_must_be_one_of_other(tmp_path: Path) -> None:
    model = load_model()
    gold = PROVIDERS[int(blend.style_probs(model, model.features(TEXTS[:1])).argmax())]
    wrong = next(p for p in PROVIDERS if p != gold)
    edits, lm = tmp_path / "edits", tmp_path / "lm"
    files = {"eval_k4": tmp_path / "val.jsonl.gz"}
    files.update({f"eval_k4_val.{e}": edits / f"val.{e}.jsonl.gz" for e in CONTENT_EDITS})
    files.update({f"eval_k4_{o}": edits / f"{o}.jsonl.gz" for o in ("arena_b", "debate")})  # no chat file
    edits.mkdir()
    for folder, split in files.items():
        write_rows(split, [{"id": "0", "text": TEXTS[0], "provider": gold}])
        # on the held-out file the LM is wrong on every sample: its difference from the style model is -100
        _traces(lm / folder / "traces.jsonl", {"0": [wrong if folder.endswith("debate") else gold] * 4})
    cmd = [sys.executable, str(REPO / "scripts/gpu/lm_style_blend.py"), "--lm", str(lm), "--val",
           str(tmp_path / "val.jsonl.gz"), "--edits", str(edits), "--out", str(tmp_path / "o.json"),
           "--other", "arena_b", "debate"]
    r = subprocess.run([*cmd, "--held-out", "chat"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and r.stderr.strip() == "error: --held-out chat is not one of --other (arena_b debate)"
    assert not (tmp_path / "o.json").exists()
    r = subprocess.run([*cmd, "--held-out", "debate"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads((tmp_path / "o.json").read_text())
    assert list(got["scores"]) == ["raw", *CONTENT_EDITS, "arena_b", "debate"]
    assert got["scores"]["debate"]["lm"] == 0.0 and got["scores"]["debate"]["lm_minus_style"]["diff"] == -100.0
    assert got["rule_logo"]["held_out"] == "debate" and got["rule_logo"]["lm"] == "worse"
    assert got["rule"]["keeps_both"]  # arena_b is scored, so session 40's rule is read too
    # without arena_b, session 40's rule cannot be read and is left out; the held-out rule still is
    cmd[cmd.index("arena_b")] = "debate"
    r = subprocess.run([*cmd[:-1], "--held-out", "debate"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads((tmp_path / "o.json").read_text())
    assert list(got["scores"]) == ["raw", *CONTENT_EDITS, "debate"] and "rule" not in got
    assert got["rule_logo"]["lm"] == "worse" and json.loads(r.stdout[r.stdout.index("{"):])["logo"]["lm"] == "worse"
