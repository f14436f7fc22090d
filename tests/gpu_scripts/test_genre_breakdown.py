"""scripts/gpu/genre_breakdown.py: per-genre accuracy from traces recorded without the genre field."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "gpu"))

import genre_breakdown  # noqa: E402

from whowrote.train.data import write_rows  # noqa: E402


def _trace(pid: str, gold: str, pred: str) -> dict:
    return {"prompt_id": pid, "gold": gold, "pred": pred, "correct": gold == pred}


def test_blog_failure_shows_beside_a_healthy_debate(tmp_path: Path) -> None:
    # The session-21 pattern in small: CLAUDE blog posts called CHATGPT, debates right.
    val = write_rows(tmp_path / "val.jsonl.gz", [
        {"id": "b1", "provider": "CLAUDE", "genre": "blog"}, {"id": "b2", "provider": "CHATGPT", "genre": "blog"},
        {"id": "d1", "provider": "CLAUDE", "genre": "debate"}, {"id": "d2", "provider": "GEMINI", "genre": "debate"}])
    chat = write_rows(tmp_path / "chat.jsonl.gz", [{"id": "c1", "provider": "GEMINI", "genre": "chat"}])
    run = tmp_path / "run"
    (run / "eval_k4_val.strip_markdown").mkdir(parents=True)
    (run / "eval_k4_chat").mkdir()
    traces = [_trace("b1", "CLAUDE", "CHATGPT"), _trace("b1", "CLAUDE", "CHATGPT"), _trace("b2", "CHATGPT", "CHATGPT"),
              _trace("b2", "CHATGPT", "CHATGPT"), _trace("d1", "CLAUDE", "CLAUDE"), _trace("d1", "CLAUDE", "CLAUDE"),
              _trace("d2", "GEMINI", "GEMINI"), _trace("d2", "GEMINI", "CLAUDE")]
    (run / "eval_k4_val.strip_markdown" / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces))
    (run / "eval_k4_chat" / "traces.jsonl").write_text(json.dumps(_trace("c1", "GEMINI", "CLAUDE")) + "\n")
    (run / "eval_k4_val.strip_markdown" / "run.json").write_text('{"k": 2}')
    (run / "eval_k4_chat" / "run.json").write_text('{"k": 1}')
    out = tmp_path / "per_genre.json"
    assert genre_breakdown.main(["--split", str(val), str(chat), "--runs", str(run), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    strip = result["run/eval_k4_val.strip_markdown"]
    assert strip["blog"]["accuracy"] == 0.5 and strip["blog"]["recall"] == {"CLAUDE": 0.0, "CHATGPT": 1.0}
    assert strip["debate"]["accuracy"] == 0.75 and strip["debate"]["recall"] == {"CLAUDE": 1.0, "GEMINI": 0.5}
    assert result["run/eval_k4_chat"] == {"chat": {"n_examples": 1, "n_samples": 1, "accuracy": 0.0,
                                                   "recall": {"GEMINI": 0.0}}}
    # traces of a split that was not given: a clear error, not a silent partial breakdown
    with pytest.raises(SystemExit, match="in none of the split files"):
        genre_breakdown.main(["--split", str(val), "--runs", str(run)])
    assert genre_breakdown.main(["--split", str(tmp_path / "nope.jsonl"), "--runs", str(run)]) == 2


def test_by_model_groups_assistant_versions(tmp_path: Path) -> None:
    # --by model: one block per assistant version, so a held-out version that fails shows by name.
    split = write_rows(tmp_path / "arena_b.jsonl.gz", [
        {"id": "a1", "provider": "CLAUDE", "genre": "arena-hard", "model": "claude-3-opus"},
        {"id": "a2", "provider": "CLAUDE", "genre": "arena-hard", "model": "claude-3-haiku"},
        {"id": "a3", "provider": "GEMINI", "genre": "arena-hard", "model": "gemini-pro"}])
    run = tmp_path / "run"
    (run / "eval_k4_arena_b").mkdir(parents=True)
    traces = [_trace("a1", "CLAUDE", "CLAUDE"), _trace("a2", "CLAUDE", "CHATGPT"), _trace("a3", "GEMINI", "CHATGPT")]
    (run / "eval_k4_arena_b" / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces))
    (run / "eval_k4_arena_b" / "run.json").write_text('{"k": 1}')
    out = tmp_path / "per_model.json"
    assert genre_breakdown.main(["--split", str(split), "--runs", str(run), "--by", "model", "--out", str(out)]) == 0
    blocks = json.loads(out.read_text())["run/eval_k4_arena_b"]
    assert {m: b["accuracy"] for m, b in blocks.items()} == {"claude-3-opus": 1.0, "claude-3-haiku": 0.0,
                                                             "gemini-pro": 0.0}
    # the default still groups by genre: all three in one block
    assert genre_breakdown.main(["--split", str(split), "--runs", str(run), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["run/eval_k4_arena_b"]["arena-hard"]["accuracy"] == 0.3333


def test_by_held_out_pools_the_versions_no_training_file_holds(tmp_path: Path) -> None:
    # --by held_out: claude-3-haiku-20240307 and gpt-4o-2024-08-06 are held-out versions
    # (external_answers.HELD_OUT), claude-3-opus-20240229 is not; two of three held-out answers right.
    split = write_rows(tmp_path / "arena_b.jsonl.gz", [
        {"id": "a1", "provider": "CLAUDE", "model": "claude-3-opus-20240229"},
        {"id": "a2", "provider": "CLAUDE", "model": "claude-3-haiku-20240307"},
        {"id": "a3", "provider": "CHATGPT", "model": "gpt-4o-2024-08-06"},
        {"id": "a4", "provider": "CHATGPT", "model": "gpt-4o-2024-08-06"}])
    run = tmp_path / "run"
    (run / "eval_k4_arena_b").mkdir(parents=True)
    traces = [_trace("a1", "CLAUDE", "CHATGPT"), _trace("a2", "CLAUDE", "CLAUDE"), _trace("a3", "CHATGPT", "CHATGPT"),
              _trace("a4", "CHATGPT", "GEMINI")]
    (run / "eval_k4_arena_b" / "traces.jsonl").write_text("".join(json.dumps(t) + "\n" for t in traces))
    (run / "eval_k4_arena_b" / "run.json").write_text('{"k": 1}')
    out = tmp_path / "held_out.json"
    assert genre_breakdown.main(["--split", str(split), "--runs", str(run), "--by", "held_out", "--out", str(out)]) == 0
    blocks = json.loads(out.read_text())["run/eval_k4_arena_b"]
    assert {g: (b["n_examples"], b["accuracy"]) for g, b in blocks.items()} == {
        "held-out version": (3, 0.6667), "other version": (1, 0.0)}
    assert genre_breakdown.group_of({"model": None}, "held_out") == "other version"
