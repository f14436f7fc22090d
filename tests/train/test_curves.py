import json

from whowrote.train.curves import write_curves


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
