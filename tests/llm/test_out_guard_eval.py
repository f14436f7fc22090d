"""`whowrote eval` / `whowrote train evaluate` never rewrite a folder that is not an eval's own run,
and a missing local model is refused before anything is written (audit: a user's traces.jsonl was
emptied and their run.json overwritten before the run failed on the model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from word_backend import WordTokens

from whowrote.llm.backends import Sample
from whowrote.llm.config import EvalConfig
from whowrote.llm.evaluate import run_eval
from whowrote.types import WhowroteError

USER_TRACES = b"my own notes, not traces\n{\"a\": 1}\n"
USER_RUN = b'{"mine": true}\n'


class Claude(WordTokens):
    def generate(self, prompts, params):
        return [[Sample("<answer>CLAUDE</answer>", "stop", 10, 5)] * params.k for _ in prompts]


def write_split(path: Path) -> Path:
    rows = [{"id": f"{lab}-{i}", "text": f"Synthetic {lab.lower()} sample {i}. " * 6, "provider": lab, "topic": f"t{i}"}
            for lab in ("CLAUDE", "CHATGPT", "GEMINI") for i in range(2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _user_folder(tmp_path: Path) -> Path:
    d = tmp_path / "mine"
    d.mkdir()
    (d / "traces.jsonl").write_bytes(USER_TRACES)
    (d / "run.json").write_bytes(USER_RUN)
    return d


def _unchanged(d: Path) -> None:
    assert (d / "traces.jsonl").read_bytes() == USER_TRACES and (d / "run.json").read_bytes() == USER_RUN
    assert sorted(p.name for p in d.iterdir()) == ["run.json", "traces.jsonl"]


def test_eval_refuses_a_users_folder_and_keeps_its_files(tmp_path, cli_fails):
    split, d = write_split(tmp_path / "split.jsonl"), _user_folder(tmp_path)
    err = cli_fails(["eval", "--split", str(split), "--model", str(tmp_path / "nope"), "--out", str(d)])
    assert "not empty" in err
    _unchanged(d)
    err = cli_fails(["eval", "--split", str(split), "--model", str(tmp_path / "nope"), "--out", str(d),
                          "--edit", "lower"])  # --edit writes its split into --out: refused first too
    _unchanged(d)


def test_train_evaluate_refuses_a_users_folder_and_keeps_its_files(tmp_path, cli_fails):
    split, d = write_split(tmp_path / "split.jsonl"), _user_folder(tmp_path)
    err = cli_fails(["train", "evaluate", "--model", "/nope", "--data", str(split), "--out", str(d)])
    assert "not empty" in err
    _unchanged(d)


def test_missing_model_is_refused_before_the_out_folder_is_written(tmp_path, cli_fails):
    split, out = write_split(tmp_path / "split.jsonl"), tmp_path / "fresh"
    err = cli_fails(["train", "evaluate", "--model", "/nope", "--data", str(split), "--out", str(out)])
    assert "model path not found: /nope" in err and not out.exists()


def test_an_own_run_and_the_split_inside_out_are_still_accepted(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    split = write_split(out / "split.jsonl")  # the split itself may live in --out (as --edit's does)
    cfg = EvalConfig(split=str(split), out=str(out), model="scripted", k=2, max_new_tokens=64)
    assert run_eval(cfg, backend=Claude())["n_examples"] == 6
    assert run_eval(cfg, backend=Claude())["n_samples"] == 12  # its own run: resumed
    with pytest.raises(WhowroteError, match="not empty"):
        run_eval(EvalConfig(split=str(split), out=str(tmp_path)), backend=Claude())


def test_eval_edit_writes_nothing_on_a_bad_backend_and_keeps_a_runs_split(tmp_path, cli_fails):
    split, out = write_split(tmp_path / "split.jsonl"), tmp_path / "run"
    assert "--backend" in cli_fails(["eval", "--split", str(split), "--model", str(tmp_path), "--out", str(out),
                                     "--edit", "lower", "--backend", "foo"])
    assert not out.exists()
    out.mkdir()
    made = out / "split.lower.jsonl"
    made.write_text('{"id": "x", "text": "an earlier split", "provider": "CLAUDE"}\n')  # the run's own, other source
    before = made.read_bytes()
    assert "is not this edit" in cli_fails(["eval", "--split", str(split), "--model", str(tmp_path),
                                            "--out", str(out), "--edit", "lower"])
    assert made.read_bytes() == before
