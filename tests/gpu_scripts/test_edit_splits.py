"""scripts/gpu/edit_splits.py: the edited val files and the chat split the device call scores."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))

import style_side_by_side  # noqa: E402

from whowrote.style.edits import edits  # noqa: E402

MD = "# A heading\n\nIt’s **bold** and\n\n- one item\n- two items\n\n" + "Words follow here. " * 40


def read(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_edit_splits_writes_each_edit_and_a_balanced_chat_split(tmp_path: Path) -> None:
    val = [{"id": f"v{i}", "text": MD + f" {i}", "provider": p, "model": "m", "genre": "blog", "topic": f"t{i}"}
           for i, p in enumerate(["CLAUDE", "CHATGPT", "GEMINI"])]
    with gzip.open(tmp_path / "val.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in val)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    models = {"CLAUDE": "claude-3-opus", "CHATGPT": "gpt-4o", "GEMINI": "gemini-pro", "OTHER": "llama-2-70b"}
    rows = [{"id": f"c{p}{i}", "text": f"{p} answer number {i}. " * 30, "model": m, "topic": f"q{i}"}
            for p, m in models.items() for i in range(5)]
    (corpus / "chat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "edits"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/edit_splits.py"), "--val", str(tmp_path / "val.jsonl.gz"),
                        "--corpus", str(corpus), "--out", str(out), "--n-chat", "6", "--max-chars", "200"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    table = edits(0)
    for name, edit in table.items():
        if name == "raw":
            assert not (out / "val.raw.jsonl.gz").exists()
            continue
        got = read(out / f"val.{name}.jsonl.gz")
        assert [g["id"] for g in got] == [v["id"] for v in val]  # the val's rows, in order
        assert [g["text"] for g in got] == [edit(v["text"]) for v in val]
        assert all(g["provider"] == v["provider"] for g, v in zip(got, val, strict=True))
    assert "**" not in read(out / "val.strip_markdown.jsonl.gz")[0]["text"]
    chat = read(out / "chat.jsonl.gz")
    assert sorted(c["provider"] for c in chat) == ["CHATGPT"] * 2 + ["CLAUDE"] * 2 + ["GEMINI"] * 2  # no OTHER
    assert all(len(c["text"]) <= 200 and c["genre"] == "chat" for c in chat)
    assert not (out / "tmp").exists()


def test_three_way_reads_only_the_three_providers_columns() -> None:
    # columns LABELS = CLAUDE, CHATGPT, GEMINI, OTHER: OTHER's large probability must not count
    P = np.array([[0.2, 0.1, 0.0, 0.7], [0.0, 0.3, 0.1, 0.6], [0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.1, 0.3]])
    got = style_side_by_side.three_way(P, ["CLAUDE", "CHATGPT", "CLAUDE", "GEMINI"])
    assert got["n"] == 4 and got["accuracy"] == 0.5
    assert got["recall"] == {"CLAUDE": 0.5, "CHATGPT": 1.0, "GEMINI": 0.0}


def test_lm_scores_name_each_eval_and_the_plot_is_drawn(tmp_path: Path) -> None:
    lm = tmp_path / "sft"
    for name, acc in (("eval_k4", 0.6), ("eval_k4_val.strip_markdown", 0.37), ("eval_k4_chat", 0.36)):
        (lm / name).mkdir(parents=True)
        (lm / name / "summary.json").write_text(json.dumps({"accuracy": acc, "pass@4": 0.9}))
    scores = style_side_by_side.lm_scores([lm])
    assert scores == {"raw": 0.6, "strip_markdown": 0.37, "chat": 0.36}
    style = {"edits": {"raw": {"accuracy": 1.0}, "strip_markdown": {"accuracy": 0.99}},
             "chat_logo": {"accuracy": 0.42}}
    out = tmp_path / "style.json"
    out.write_text(json.dumps(style))
    png = tmp_path / "fig.png"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out),
                        "--plot", str(png), "--lm", str(lm)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 5000
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/style_side_by_side.py"), "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--corpus is required" in r.stderr and "Traceback" not in r.stderr


def test_each_lm_flag_is_one_model_and_callb_raw_eval_counts_as_raw(tmp_path: Path) -> None:
    runs = {}
    for run, evals in (("ao", {"eval_k4": 0.99, "eval_k4_chat": 0.33}),
                       ("grpo", {"eval_k4_B": 0.82, "eval_k4_val.combined": 0.77})):
        for name, acc in evals.items():
            (tmp_path / run / name).mkdir(parents=True)
            (tmp_path / run / name / "summary.json").write_text(json.dumps({"accuracy": acc}))
        runs[run] = tmp_path / run
    assert style_side_by_side.lm_scores([runs["grpo"]]) == {"raw": 0.82, "combined": 0.77}
    out = tmp_path / "style.json"
    out.write_text(json.dumps({"edits": {"raw": {"accuracy": 1.0}, "combined": {"accuracy": 0.97}},
                               "chat_logo": {"accuracy": 0.42}}))
    script = str(REPO / "scripts/gpu/style_side_by_side.py")
    png = tmp_path / "fig.png"
    r = subprocess.run([sys.executable, script, "--out", str(out), "--plot", str(png),
                        "--lm", str(runs["ao"]), "--lm-label", "answer-only",
                        "--lm", str(runs["grpo"]), "--lm-label", "GRPO"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    # a label count that does not match the models is refused in one line
    r = subprocess.run([sys.executable, script, "--out", str(out), "--plot", str(png), "--lm", str(runs["ao"]),
                        "--lm", str(runs["grpo"]), "--lm-label", "only one"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0 and "--lm-label given 1 times for 2 --lm" in r.stderr and "Traceback" not in r.stderr


def test_losses_are_from_each_models_own_raw_and_means_need_every_edit(tmp_path: Path) -> None:
    full = {"raw": 0.96, **{e: 0.9 for e in style_side_by_side.CONTENT_EDITS}, "first_800_chars": 0.76, "chat": 0.36}
    got = style_side_by_side.lm_drops(full)
    assert abs(got["loss_points"]["first_800_chars"] - 20.0) < 1e-9 and abs(got["loss_points"]["lower"] - 6.0) < 1e-9
    assert abs(got["mean_loss_content"] - (6.0 * 6 + 20.0) / 7) < 1e-9
    assert "chat" not in got["loss_points"] and got["pass@1"]["chat"] == 0.36  # other texts, not an edit
    assert abs(got["mean_loss_unseen"] - 13.0) < 1e-9
    partial = style_side_by_side.lm_drops({"raw": 0.99, "lower": 1.0})
    assert list(partial["loss_points"]) == ["lower"] and abs(partial["loss_points"]["lower"] + 1.0) < 1e-9
    assert partial["mean_loss_content"] is None
    # through the command line: one file for two models, and a model without its raw eval refused
    runs = {}
    for run, evals in (("plain", {"eval_k4": 0.99, "eval_k4_val.lower": 0.98}),
                       ("aug", {"eval_k4": 0.95, "eval_k4_val.lower": 0.96}), ("noraw", {"eval_k4_chat": 0.3})):
        for name, acc in evals.items():
            (tmp_path / run / name).mkdir(parents=True)
            (tmp_path / run / name / "summary.json").write_text(json.dumps({"accuracy": acc}))
        runs[run] = str(tmp_path / run)
    out = tmp_path / "style.json"
    out.write_text(json.dumps({"edits": {"raw": {"accuracy": 1.0}, "lower": {"accuracy": 0.99}},
                               "chat_logo": {"accuracy": 0.42}}))
    script = str(REPO / "scripts/gpu/style_side_by_side.py")
    drops = tmp_path / "drops.json"
    base = [sys.executable, script, "--out", str(out), "--plot", str(tmp_path / "fig.png"), "--drops", str(drops)]
    r = subprocess.run([*base, "--lm", runs["plain"], "--lm-label", "plain", "--lm", runs["aug"], "--lm-label", "aug"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    d = json.loads(drops.read_text())
    assert abs(d["plain"]["loss_points"]["lower"] - 1.0) < 1e-9 and abs(d["aug"]["loss_points"]["lower"] + 1.0) < 1e-9
    r = subprocess.run([*base, "--lm", runs["noraw"]], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "no raw eval" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, script, "--out", str(out), "--drops", str(drops)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0 and "--drops goes with --plot" in r.stderr and "Traceback" not in r.stderr


def test_arena_split_holds_half_b_answers_of_the_three_assistants(tmp_path: Path) -> None:
    import hashlib

    val = [{"id": "v0", "text": MD, "provider": "CLAUDE", "model": "m", "genre": "blog", "topic": "t0"}]
    with gzip.open(tmp_path / "val.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in val)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "chat.jsonl").write_text(json.dumps({"id": "c", "text": "An answer. " * 30, "model": "gpt-4o"}) + "\n")
    answers = tmp_path / "arena-hard-v0.1" / "model_answer"
    answers.mkdir(parents=True)
    words = " ".join(["word"] * 60)
    for model in ("claude-3-opus-20240229", "gpt-4-0613", "gemini-pro", "llama-2-70b-chat"):
        rows = [{"question_id": f"q{i}", "model_id": model, "choices": [{"turns": [{"content": f"{model} {words}"}]}]}
                for i in range(16)]
        (answers / f"{model}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "edits"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/edit_splits.py"), "--val", str(tmp_path / "val.jsonl.gz"),
                        "--corpus", str(corpus), "--out", str(out), "--n-chat", "1", "--arena", str(answers),
                        "--n-arena", "6", "--max-chars", "100"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    arena = read(out / "arena_b.jsonl.gz")
    assert sorted(a["provider"] for a in arena) == ["CHATGPT"] * 2 + ["CLAUDE"] * 2 + ["GEMINI"] * 2  # no OTHER
    half_b = {f"q{i}" for i in range(16) if hashlib.sha256(f"q{i}".encode()).digest()[0] % 2 == 1}
    assert {a["topic"] for a in arena} <= half_b  # prompts the bundled model never trained on
    assert all(a["genre"] == "arena-hard" and len(a["text"]) <= 100 for a in arena)
    assert all(a["text"].startswith(a["model"]) and a["id"] == f"{a['model']}:{a['topic']}" for a in arena)
