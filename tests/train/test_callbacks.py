"""Periodic eval: best-val selection, collapse early stop (new collapses only), resumed history."""

import json

from transformers import TrainerControl, TrainerState

import whowrote.train.callbacks as cb
from whowrote.train.config import InLoopEval


def summary(acc, shares, recalls=(0.5, 0.5, 0.5), trunc=0.0):
    labs = ["CLAUDE", "CHATGPT", "GEMINI"]
    return {"n": 6, "accuracy": acc, "truncation_rate": trunc,
            "pred_dist": {lab: int(s * 100) for lab, s in zip(labs, shares, strict=True)},
            "pred_share": dict(zip(labs, shares, strict=True)),
            "per_provider": {lab: {"n": 2, "recall": r} for lab, r in zip(labs, recalls, strict=True)}}


class FakeModel:
    def __init__(self):
        self.saved = []

    def save_pretrained(self, path):
        path.mkdir(parents=True, exist_ok=True)
        self.saved.append(path)


class FakeTok:
    def save_pretrained(self, path):
        pass


def run(tmp_path, monkeypatch, script, every=2):
    it = iter(script)
    monkeypatch.setattr(cb, "evaluate_policy", lambda *a, **k: (next(it), [{"x": 1}]))
    c = cb.PeriodicEvalCallback(rows=[{"text": "t", "provider": "CLAUDE"}], cfg=InLoopEval(every_steps=every),
                                labels=["CLAUDE", "CHATGPT", "GEMINI"], output_dir=tmp_path, stage="grpo",
                                tokenizer=FakeTok())
    state, control, model = TrainerState(), TrainerControl(), FakeModel()
    c.on_train_begin(None, state, control, model=model)
    for step in range(1, len(script) * every):
        state.global_step = step
        c.on_step_end(None, state, control, model=model)
        if control.should_training_stop:
            break
    return c, state, control, model


def test_best_is_kept_and_new_class_collapse_stops(tmp_path, monkeypatch):
    healthy = (0.34, 0.33, 0.33)
    script = [summary(0.30, healthy), summary(0.50, healthy), summary(0.40, (0.5, 0.3, 0.2)),
              summary(0.33, (0.9, 0.05, 0.05)), summary(0.9, healthy)]
    c, state, control, model = run(tmp_path, monkeypatch, script)
    assert control.should_training_stop and state.global_step == 6
    assert c.best["step"] == 2 and model.saved == [tmp_path / "best"]
    assert c.collapse["kinds"] == ["class"] and c.collapse["new"]
    assert json.loads((tmp_path / "best" / "eval.json").read_text())["accuracy"] == 0.5


def test_warnings_are_recorded_without_stopping(tmp_path, monkeypatch):
    script = [summary(0.30, (0.34, 0.33, 0.33)), summary(0.45, (0.30, 0.35, 0.35)), summary(0.45, (0.65, 0.2, 0.15))]
    c, state, control, _ = run(tmp_path, monkeypatch, script)
    recs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    warnings = [r for r in recs if r.get("kind") == "warning"]
    assert not control.should_training_stop and c.collapse is None
    assert [r["step"] for r in warnings] == [4] and warnings[0]["findings"][0]["severity"] == "warning"


def test_collapse_already_present_at_step0_does_not_stop(tmp_path, monkeypatch):
    collapsed = (0.9, 0.05, 0.05)
    script = [summary(0.33, collapsed), summary(0.34, collapsed), summary(0.35, collapsed)]
    c, state, control, _ = run(tmp_path, monkeypatch, script)
    assert not control.should_training_stop and c.collapse and not c.collapse["new"]


def test_resumed_callback_continues_history(tmp_path, monkeypatch):
    ok = (0.34, 0.33, 0.33)
    run(tmp_path, monkeypatch, [summary(0.3, ok), summary(0.6, ok), summary(0.4, ok), summary(0.5, ok)], every=1)
    again = cb.PeriodicEvalCallback(rows=[], cfg=InLoopEval(), labels=["CLAUDE"], output_dir=tmp_path,
                                    stage="grpo", tokenizer=FakeTok())
    assert [r["step"] for r in again.history] == [0, 1, 2, 3]
    assert again.best["step"] == 1  # the best-so-far survives the restart


def test_fresh_rerun_does_not_inherit_history_and_resume_redoes_lost_evals(tmp_path, monkeypatch):
    ok = (0.34, 0.33, 0.33)
    run(tmp_path, monkeypatch, [summary(0.3, ok), summary(0.9, ok), summary(0.4, ok)], every=1)
    # Same output dir, started again from step 0 (no checkpoint): step 0 is evaluated again and the
    # old run's 0.9 is neither "best" nor in the collapse trend.
    c, _, _, model = run(tmp_path, monkeypatch, [summary(0.2, ok), summary(0.5, ok)], every=1)
    assert [r["step"] for r in c.history] == [0, 1] and c.best["accuracy"] == 0.5
    assert model.saved == [tmp_path / "best"]
    # Resumed from a step-1 checkpoint after evals up to step 3 were written: steps 2-3 are redone.
    run(tmp_path, monkeypatch, [summary(0.2, ok), summary(0.5, ok), summary(0.6, ok), summary(0.7, ok)], every=1)
    it = iter([summary(0.8, ok), summary(0.1, ok)])
    monkeypatch.setattr(cb, "evaluate_policy", lambda *a, **k: (next(it), []))
    again = cb.PeriodicEvalCallback(rows=[{"text": "t", "provider": "CLAUDE"}], cfg=InLoopEval(every_steps=1),
                                    labels=["CLAUDE", "CHATGPT", "GEMINI"], output_dir=tmp_path, stage="grpo",
                                    tokenizer=FakeTok())
    state, control = TrainerState(global_step=1), TrainerControl()
    again.on_train_begin(None, state, control, model=FakeModel())
    for step in (2, 3):
        state.global_step = step
        again.on_step_end(None, state, control, model=FakeModel())
    assert [(r["step"], r["accuracy"]) for r in again.history] == [(0, 0.2), (1, 0.5), (2, 0.8), (3, 0.1)]
