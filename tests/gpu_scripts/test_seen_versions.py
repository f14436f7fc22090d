"""scripts/gpu/seen_versions.py: a held-out genre's texts split by whether their model version wrote training rows."""

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
SCRIPT = REPO / "scripts" / "gpu" / "seen_versions.py"
sys.path.insert(0, str(REPO / "scripts" / "gpu"))
import lm_style_blend as blend  # noqa: E402

TEXTS = [(REPO / "examples" / "post.md").read_text(),
         "Honestly, I'd love to help! Here's a quick rundown:\n\n* **First**, check the logs.\n* **Then** restart it.",
         "Certainly. The capital of France is Paris, a city on the Seine known for its museums and cafés.",
         "The harbour was quiet that night.\n\nMara counted the lanterns twice, then a third time, and still one was missing."]


def test_parts_follow_the_training_files_models_and_the_lm_side_is_its_share_of_right_samples(tmp_path: Path) -> None:
    model = load_model()
    gold = [PROVIDERS[i] for i in blend.style_probs(model, model.features(TEXTS)).argmax(axis=1)]  # style right on all
    models = ["m-seen", "m-new", "m-seen", "m-new"]
    write_rows(tmp_path / "test.jsonl.gz", [{"id": str(i), "text": t, "provider": g, "model": m, "genre": "fiction",
                                             "topic": f"t{i}"} for i, (t, g, m) in enumerate(zip(TEXTS, gold, models, strict=True))])
    write_rows(tmp_path / "train.jsonl.gz", [{"id": "x", "text": "a training text", "provider": "CLAUDE", "model": "m-seen"}])
    wrong = [next(p for p in PROVIDERS if p != g) for g in gold]
    samples = {"0": [gold[0]] * 4, "1": [wrong[1]] * 4, "2": [gold[2]] * 2 + [wrong[2]] * 2, "3": [gold[3]] * 4}
    traces = tmp_path / "lm" / "eval_k4_fiction" / "traces.jsonl"
    traces.parent.mkdir(parents=True)
    traces.write_text("".join(json.dumps({"prompt_id": pid, "sample": j, "pred": p}) + "\n"
                              for pid, ps in samples.items() for j, p in enumerate(ps)))
    out = tmp_path / "o.json"
    r = subprocess.run([sys.executable, str(SCRIPT), "--lm", str(tmp_path / "lm"), "--style", "default", "--test",
                        str(tmp_path / "test.jsonl.gz"), "--train", str(tmp_path / "train.jsonl.gz"), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())
    assert got["genre"] == "fiction" and got["seen_models"] == ["m-seen"]
    s = got["scores"]
    assert (s["seen"]["n"], s["unseen"]["n"], s["all"]["n"]) == (2, 2, 4)
    assert s["seen"]["lm"] == pytest.approx((1 + 0.5) / 2) and s["unseen"]["lm"] == pytest.approx((0 + 1) / 2)
    assert s["seen"]["style"] == s["unseen"]["style"] == 1.0
    assert s["all"]["lm_minus_style"]["diff"] == pytest.approx(100 * (np.mean([1, 0, 0.5, 1]) - 1), abs=0.01)
    assert sum(s["seen"]["n_by_provider"].values()) == 2


def test_an_empty_test_file_or_missing_traces_is_a_one_line_error(tmp_path: Path) -> None:
    write_rows(tmp_path / "empty.jsonl.gz", [])
    write_rows(tmp_path / "one.jsonl.gz", [{"id": "0", "text": TEXTS[0], "provider": "CLAUDE", "genre": "fiction"}])
    for test, words in (("empty.jsonl.gz", "has no rows"), ("one.jsonl.gz", "no samples for 1 of the split's texts")):
        r = subprocess.run([sys.executable, str(SCRIPT), "--lm", str(tmp_path / "nolm"), "--style", "default", "--test",
                            str(tmp_path / test), "--train", str(tmp_path / "one.jsonl.gz"), "--out", str(tmp_path / "o.json")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 1 and "Traceback" not in r.stderr and words in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()
