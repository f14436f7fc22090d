"""pass@k estimator and the summary metrics."""

from __future__ import annotations

import itertools

import pytest

from whowrote.llm.metrics import pass_at_k, summarize


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_pass_at_k_matches_brute_force(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(n, c, k))


def test_pass_at_k_edges():
    assert pass_at_k(4, 1, 1) == 0.25
    assert pass_at_k(4, 0, 4) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)


def rec(pid, gold, pred, truncated=False, tokens=10, reason=20):
    return {"prompt_id": pid, "gold": gold, "pred": pred, "correct": pred == gold, "truncated": truncated,
            "completion_tokens": tokens, "reason_words": reason, "gen_seconds": 0.5,
            "terms": {"reason_ok": 1.0}, "prompt_truncated": pid == "a"}


def test_summarize_counts():
    L = ("CLAUDE", "CHATGPT", "GEMINI")
    records = [
        rec("a", "CLAUDE", "CLAUDE"), rec("a", "CLAUDE", "GEMINI"),
        rec("b", "CHATGPT", None, truncated=True), rec("b", "CHATGPT", None),
        rec("c", "GEMINI", "GEMINI"), rec("c", "GEMINI", "GEMINI"),
    ]
    s = summarize(records, L, k=2)
    assert s["n_examples"] == 3 and s["n_samples"] == 6
    assert s["accuracy"] == 0.5 and s["pass@1"] == 0.5
    assert s["pass@2"] == pytest.approx(round(2 / 3, 4))
    assert s["per_provider"]["CLAUDE"]["recall"] == 0.5 and s["per_provider"]["CHATGPT"]["recall"] == 0.0
    assert s["macro_recall"] == 0.5
    assert s["confusion"]["CLAUDE"] == {"CLAUDE": 1, "CHATGPT": 0, "GEMINI": 1, "<none>": 0}
    assert s["pred_dist"] == {"CLAUDE": 1, "GEMINI": 3, "<none>": 2, "CHATGPT": 0}
    assert s["parse_fail_rate"] == pytest.approx(round(2 / 6, 4))
    assert s["truncation_rate"] == pytest.approx(round(1 / 6, 4))
    assert s["prompt_truncation_rate"] == pytest.approx(round(1 / 3, 4))
    assert s["throughput"]["tokens_per_s"] == 20.0  # 60 tokens / 3 s
    assert s["reason_words"]["median"] == 20
