"""scripts/gpu/style_side_by_side.py --score: saved style models scored 3-way on a split's texts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from whowrote.style.io import load_model
from whowrote.train.data import write_rows
from whowrote.types import PROVIDERS

REPO = Path(__file__).resolve().parents[2]
TEXTS = [(REPO / "examples" / "post.md").read_text(),
         "Honestly, I'd love to help! Here's a quick rundown:\n\n* **First**, check the logs.\n* **Then** restart it.",
         "Certainly. The capital of France is Paris, a city on the Seine known for its museums and cafés."]


def _gold_with_the_second_wrong() -> list[str]:
    """Gold labels for ``TEXTS``: the bundled model's own 3-way verdict on the first and third, another
    provider on the second (so the model is right on exactly two)."""
    model = load_model()
    P = model.predict_proba(TEXTS)
    cols = [list(model.classes_).index(p) for p in PROVIDERS]
    verdicts = [PROVIDERS[i] for i in np.asarray(P)[:, cols].argmax(axis=1)]
    return [verdicts[0], next(p for p in PROVIDERS if p != verdicts[1]), verdicts[2]]


def test_score_counts_three_way_argmax_against_gold(tmp_path: Path) -> None:
    # gold is each text's own 3-way verdict under the public predict_proba, except the second text's,
    # which is set to another provider: so the script must report 2 of 3 right and that recall
    model = load_model()
    P = model.predict_proba(TEXTS)
    cols = [list(model.classes_).index(p) for p in PROVIDERS]
    verdicts = [PROVIDERS[i] for i in np.asarray(P)[:, cols].argmax(axis=1)]
    wrong = next(p for p in PROVIDERS if p != verdicts[1])
    gold = [verdicts[0], wrong, verdicts[2]]
    write_rows(tmp_path / "split.jsonl.gz", [{"id": str(i), "text": t, "provider": g}
                                             for i, (t, g) in enumerate(zip(TEXTS, gold, strict=True))])
    out = tmp_path / "scores.json"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out),
                        "--split", str(tmp_path / "split.jsonl.gz"), "--score", "default"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())["models"]["default"]
    assert got["n"] == 3 and abs(got["accuracy"] - 2 / 3) < 1e-9
    want_recall = {p: float(np.mean([v == p for v, g in zip(verdicts, gold, strict=True) if g == p]))
                   for p in PROVIDERS if p in gold}
    assert got["recall"] == want_recall and want_recall[wrong] < 1.0
    assert r.stdout.startswith("default: 3-way 0.667")
    # with --plot: a figure of the same scores, and labels must match the models one to one
    png = tmp_path / "scores.png"
    base = [sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out),
            "--split", str(tmp_path / "split.jsonl.gz"), "--score", "default", "--plot", str(png)]
    r = subprocess.run([*base, "--score-label", "bundled"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run([*base, "--score-label", "a", "--score-label", "b"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "--score-label given 2 times for 1 models" in r.stderr


def test_score_without_a_split_is_a_one_line_error(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(tmp_path / "s.json"),
                        "--score", "default"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and r.stderr.strip().splitlines() == [
        "--score needs --split FILE (an existing JSONL of rows with text and provider)"]
    assert not (tmp_path / "s.json").exists()


def test_score_with_a_bad_model_folder_or_row_is_a_one_line_error(tmp_path: Path) -> None:
    write_rows(tmp_path / "split.jsonl.gz", [{"id": "0", "text": TEXTS[0], "provider": "CLAUDE"}])
    script = [sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(tmp_path / "s.json")]
    r = subprocess.run([*script, "--split", str(tmp_path / "split.jsonl.gz"), "--score", str(tmp_path / "nope")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error:")
    write_rows(tmp_path / "bad.jsonl.gz", [{"id": "0", "provider": "CLAUDE"}])
    r = subprocess.run([*script, "--split", str(tmp_path / "bad.jsonl.gz"), "--score", "default"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and r.stderr.strip() == f"error: {tmp_path / 'bad.jsonl.gz'}: a row without 'text'"
    assert not (tmp_path / "s.json").exists()


def test_score_by_held_out_splits_the_same_verdicts_into_groups(tmp_path: Path) -> None:
    # the three texts again, gold = each one's own verdict except the second's; the second and third are
    # answers by held-out versions: so the held-out group holds 1 of 2 right, the other group 1 of 1
    gold = _gold_with_the_second_wrong()
    models = ["claude-3-opus-20240229", "claude-3-haiku-20240307", "gpt-4o-2024-08-06"]
    write_rows(tmp_path / "split.jsonl.gz", [{"id": str(i), "text": t, "provider": g, "model": m}
                                             for i, (t, g, m) in enumerate(zip(TEXTS, gold, models, strict=True))])
    out = tmp_path / "scores.json"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out),
                        "--split", str(tmp_path / "split.jsonl.gz"), "--score", "default", "--by", "held_out"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())["models"]["default"]
    assert abs(got["accuracy"] - 2 / 3) < 1e-9
    assert {g: (b["n"], b["accuracy"]) for g, b in got["by"].items()} == {"held-out version": (2, 0.5),
                                                                           "other version": (1, 1.0)}


def test_lm_drops_leave_texts_that_are_not_val_edits_out_of_the_losses() -> None:
    sys.path.insert(0, str(REPO / "scripts" / "gpu"))
    import style_side_by_side

    scores = {"raw": 0.96, "arena_b": 0.84, "chat": 0.61, "first_800_chars": 0.62, "lower": 0.97}
    d = style_side_by_side.lm_drops(scores)
    assert set(d["loss_points"]) == {"first_800_chars", "lower"}
    assert abs(d["loss_points"]["first_800_chars"] - 34.0) < 1e-9 and abs(d["loss_points"]["lower"] + 1.0) < 1e-9
    assert d["pass@1"] == scores and d["mean_loss_content"] is None  # five content edits missing


def test_lm_traces_compare_the_lm_with_each_model_text_by_text(tmp_path: Path) -> None:
    # style right on texts 0 and 2 (gold = its verdict except text 1's); the LM right on 4 of 4 samples of
    # text 0, 2 of 4 of text 1, 0 of 4 of text 2: LM 0.5, style 2/3, so the LM is 16.67 points under
    gold = _gold_with_the_second_wrong()
    write_rows(tmp_path / "split.jsonl.gz", [{"id": str(i), "text": t, "provider": g, "topic": f"q{i}"}
                                             for i, (t, g) in enumerate(zip(TEXTS, gold, strict=True))])
    ev = tmp_path / "run" / "eval_k4_split"
    ev.mkdir(parents=True)
    right = {"0": [True] * 4, "1": [True, True, False, False], "2": [False] * 4}
    (ev / "traces.jsonl").write_text("".join(
        json.dumps({"prompt_id": i, "gold": "X", "pred": "X", "correct": c}) + "\n" for i, cs in right.items() for c in cs))
    out = tmp_path / "scores.json"
    cmd = [sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out),
           "--split", str(tmp_path / "split.jsonl.gz"), "--score", "default", "--lm-traces", str(ev / "traces.jsonl")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    vs = json.loads(out.read_text())["models"]["default"]["lm_minus_style"]
    assert vs["lm_pass@1"] == 0.5 and vs["diff"] == -16.67 and vs["lo"] <= vs["diff"] <= vs["hi"]
    assert "LM 0.500, LM minus it -16.7" in r.stdout
    # an eval of other texts: a one-line error, nothing written
    out.unlink()
    (ev / "traces.jsonl").write_text(json.dumps({"prompt_id": "9", "gold": "X", "pred": "X", "correct": True}) + "\n")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "no samples for 3" in r.stderr
    assert not out.exists()


def test_style_scores_folder_maps_split_files_to_test_names_and_plots(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "scripts" / "gpu"))
    import style_side_by_side

    folder = tmp_path / "style"
    folder.mkdir()
    for split, (a, b) in {"val": (1.0, 0.99), "val.first_800_chars": (0.76, 0.75), "arena_b": (0.44, 0.79)}.items():
        (folder / f"{split}.json").write_text(json.dumps({"models": {"/m/a": {"accuracy": a}, "/m/b": {"accuracy": b}}}))
    assert style_side_by_side.score_folder(folder) == {"/m/a": {"raw": 1.0, "first_800_chars": 0.76, "arena_b": 0.44},
                                                       "/m/b": {"raw": 0.99, "first_800_chars": 0.75, "arena_b": 0.79}}
    lm = tmp_path / "lm"
    for name, acc in (("eval_k4", 0.96), ("eval_k4_arena_b", 0.84)):
        (lm / name).mkdir(parents=True)
        (lm / name / "summary.json").write_text(json.dumps({"accuracy": acc}))
    png = tmp_path / "f.png"
    cmd = [sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(tmp_path / "none.json"),
           "--plot", str(png), "--lm", str(lm), "--style-scores", str(folder)]
    r = subprocess.run([*cmd, "--style-label", "a", "--style-label", "b"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = subprocess.run([*cmd, "--style-label", "a"], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "--style-label given 1 times for 2 models" in r.stderr
    r = subprocess.run([*cmd[:-1], str(tmp_path / "empty")], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "no --score output" in r.stderr
