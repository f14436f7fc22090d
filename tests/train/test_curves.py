import json

from whowrote.train.curves import load_metrics, write_curves


def test_curves_from_metrics(tmp_path):
    m = tmp_path / "metrics.jsonl"
    recs = [{"stage": "grpo", "kind": "train", "step": s, "reward": s / 10, "loss": 1 - s / 10,
             "completions/clipped_ratio": 0.1, "completions/mean_length": 50 + s} for s in range(1, 5)]
    recs += [{"stage": "grpo", "kind": "eval", "step": s, "accuracy": 0.3 + s / 20, "truncation_rate": 0.0,
              "completion_tokens": {"mean": 40, "median": 38}, "per_provider": {"CLAUDE": {"n": 2, "recall": 0.5}}} for s in (0, 2, 4)]
    m.write_text("\n".join(json.dumps(r) for r in recs))
    written = {p.name for p in write_curves(m, tmp_path)}
    assert {"train.csv", "eval.csv", "curves.png"} <= written
    header = (tmp_path / "eval.csv").read_text().splitlines()[0]
    assert "recall_CLAUDE" in header and "accuracy" in header and "completion_tokens_mean" in header
    assert (tmp_path / "curves.png").stat().st_size > 1000


def _rows(path):
    import csv

    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_resumed_run_draws_only_the_latest_attempt(tmp_path):
    """Hand-written metrics.jsonl: an abandoned fresh attempt, then a run that crashed after step 6
    with its last checkpoint at step 4 and was resumed from there (logging steps 5-6 again)."""
    def train(step, loss, stage="grpo"):
        return {"stage": stage, "kind": "train", "step": step, "loss": loss, "reward": 1 - loss}

    def ev(step, acc, stage="grpo"):
        return {"stage": stage, "kind": "eval", "step": step, "accuracy": acc}

    recs = [
        {"stage": "sft", "kind": "start", "step": 0}, train(1, 0.5, "sft"), train(2, 0.4, "sft"),
        # attempt 1: started fresh, died without a checkpoint
        {"stage": "grpo", "kind": "start", "step": 0}, ev(0, 0.10), train(1, 9.0), train(2, 9.0),
        # attempt 2: a fresh start again (redoes everything of this stage, step-0 eval included)
        {"stage": "grpo", "kind": "start", "step": 0}, ev(0, 0.30), train(1, 0.9), train(2, 0.8),
        train(3, 0.7), train(4, 0.6), ev(4, 0.50), train(5, 7.0), train(6, 7.0), ev(6, 0.99),
        {"kind": "abort", "step": 6, "reason": "a record without a stage is kept"},
        # attempt 3: resumed from checkpoint-4; steps 5 and 6 are logged again, then the run goes on
        {"stage": "grpo", "kind": "start", "step": 4}, train(5, 0.5), train(6, 0.4), ev(6, 0.60),
        train(7, 0.3), train(8, 0.2), ev(8, 0.70),
    ]
    m = tmp_path / "metrics.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in recs))
    write_curves(m, tmp_path)
    grpo = [r for r in _rows(tmp_path / "train.csv") if r["stage"] == "grpo"]
    assert [(int(r["step"]), float(r["loss"])) for r in grpo] == [
        (1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5), (6, 0.4), (7, 0.3), (8, 0.2)]
    evals = [(int(r["step"]), float(r["accuracy"])) for r in _rows(tmp_path / "eval.csv")]
    assert evals == [(0, 0.30), (4, 0.50), (6, 0.60), (8, 0.70)]  # steps <= 4 kept from attempt 2
    assert [int(r["step"]) for r in _rows(tmp_path / "train.csv") if r["stage"] == "sft"] == [1, 2]


def test_latest_attempts_keeps_a_file_without_start_records():
    from whowrote.train.curves import latest_attempts

    recs = [{"stage": "sft", "kind": "train", "step": s} for s in (1, 2, 3)]
    assert latest_attempts(recs) == recs


def test_every_attempt_is_marked_and_eval_history_follows_the_marks(tmp_path, monkeypatch):
    """MetricsFileCallback opens each attempt (fresh or resumed) with one kind=start record at its
    step; the eval callback reads its history back through the same rule, without the lost evals."""
    from transformers import TrainerControl, TrainerState

    import whowrote.train.callbacks as cb
    from whowrote.train.config import InLoopEval

    m = tmp_path / "metrics.jsonl"
    scores = iter([0.1, 0.2, 0.3, 0.4, 0.9, 0.5, 0.6])
    monkeypatch.setattr(cb, "evaluate_policy", lambda *a, **k: ({"accuracy": next(scores)}, []))

    def attempt(start, last):
        metrics = cb.MetricsFileCallback(tmp_path, "sft")
        evals = cb.PeriodicEvalCallback(rows=[{"text": "t", "provider": "CLAUDE"}], cfg=InLoopEval(every_steps=1),
                                        labels=["CLAUDE", "CHATGPT"], output_dir=tmp_path, stage="sft",
                                        tokenizer=None)
        state, control = TrainerState(global_step=start), TrainerControl()
        for c in (metrics, evals):  # the order runner.callbacks() gives them
            c.on_train_begin(None, state, control, model=None)
        for step in range(start + 1, last + 1):
            state.global_step = step
            metrics.on_log(None, state, control, logs={"loss": 1.0 / step})
            evals.on_step_end(None, state, control, model=None)
        return evals

    monkeypatch.setattr(cb.PeriodicEvalCallback, "_after_eval", lambda self, rec, model, control: None)
    attempt(0, 4)  # evals 0..4 (0.1 .. 0.9 at step 4), "crashes" after step 4
    again = attempt(2, 4)  # resumed from checkpoint-2: steps 3 and 4 redone
    marks = [(r["step"]) for r in load_metrics(m) if r["kind"] == "start"]
    assert marks == [0, 2]  # one record per attempt, though both callbacks mark it
    assert [(r["step"], r["accuracy"]) for r in again.history] == [(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.5), (4, 0.6)]
    later = cb.PeriodicEvalCallback(rows=[], cfg=InLoopEval(), labels=["CLAUDE"], output_dir=tmp_path,
                                    stage="sft", tokenizer=None)
    assert [(r["step"], r["accuracy"]) for r in later.history] == [(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.5), (4, 0.6)]
