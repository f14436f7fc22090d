"""In-loop evaluation of the policy being trained: sample, parse, score, summarise.

Scoring uses the task's own ``reward_terms`` (the same parser and gate as the GRPO reward), so
in-loop accuracy and training reward agree. The summary has the keys of the eval harness's
``summary.json`` that training decisions read: accuracy (= pass@1), pass@k (unbiased estimator),
per-provider recall, predicted-class distribution, parse-fail and truncation rates, and
completion / reasoning lengths.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from math import comb
from typing import Any

from whowrote.llm.backends import SamplingParams, TransformersBackend
from whowrote.task.parser import parse_answer, reason_words
from whowrote.task.prompts import build_messages
from whowrote.task.rewards import reward_terms
from whowrote.train.config import EvalConfig
from whowrote.train.data import Row

NONE = "<none>"


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one example with c correct out of n samples (Chen et al. 2021)."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def evaluate_policy(model: Any, tokenizer: Any, rows: Sequence[Row], cfg: EvalConfig, *,
                    labels: Sequence[str], text_field: str = "text", label_field: str = "provider",
                    seed: int = 0) -> tuple[dict[str, Any], list[Row]]:
    """(summary, traces) for ``rows`` under ``cfg`` (variant, k, sampling, gate)."""
    variant = cfg.variant or "3way"
    messages = [build_messages(str(r[text_field]), variant=variant, labels=labels) for r in rows]
    backend = TransformersBackend(model, tokenizer, batch_size=max(1, cfg.batch_size // max(1, cfg.k)))
    samples = backend.generate(messages, SamplingParams(temperature=cfg.temperature, top_p=cfg.top_p,
                                                        max_new_tokens=cfg.max_new_tokens, k=cfg.k, seed=seed))
    traces: list[Row] = []
    for i, (row, outs) in enumerate(zip(rows, samples, strict=True)):
        gold = row[label_field]
        for j, s in enumerate(outs):
            terms = reward_terms(s.text, gold, labels=labels, require_reason=cfg.require_reason,
                                 truncated=s.truncated)
            pred = parse_answer(s.text, labels)
            traces.append({
                "idx": i, "sample": j, "id": row.get("id", i), "gold": gold, "pred": pred or "",
                "correct": bool(terms["correct_answer"] > 0), "truncated": s.truncated,
                "n_tokens": s.completion_tokens, "reason_words": len(reason_words(s.text)),
                "reason_ok": bool(terms["reason_ok"]), "completion": s.text,
            })
    summary = summarise(traces, labels=labels, k=cfg.k)
    summary["variant"] = variant
    summary["sampling"] = {"temperature": cfg.temperature, "top_p": cfg.top_p,
                           "max_new_tokens": cfg.max_new_tokens, "k": cfg.k}
    summary["tokens_per_s"] = round(backend.tokens_per_s, 1)
    summary["gen_seconds"] = round(backend.gen_seconds, 2)
    return summary, traces


def summarise(traces: Sequence[Row], *, labels: Sequence[str], k: int) -> dict[str, Any]:
    """Aggregate per-sample traces (one row per sample) into the eval summary."""
    if not traces:
        return {"n": 0, "accuracy": 0.0}
    by_idx: dict[Any, list[Row]] = {}
    for t in traces:
        by_idx.setdefault(t["idx"], []).append(t)
    n_samples = len(traces)
    correct = sum(t["correct"] for t in traces)
    pass_k = [pass_at_k(len(ts), sum(t["correct"] for t in ts), min(k, len(ts))) for ts in by_idx.values()]
    pred_dist = Counter(t["pred"] or NONE for t in traces)
    per_provider: dict[str, dict[str, float]] = {}
    for lab in labels:
        gold_rows = [t for t in traces if t["gold"] == lab]
        if gold_rows:
            per_provider[lab] = {"n": len({t["idx"] for t in gold_rows}),
                                 "recall": round(sum(t["correct"] for t in gold_rows) / len(gold_rows), 4)}
    recalls = [v["recall"] for v in per_provider.values()]
    lengths = [t["n_tokens"] for t in traces]
    rwords = [t["reason_words"] for t in traces]
    return {
        "n": len(by_idx),
        "samples": n_samples,
        "accuracy": round(correct / n_samples, 4),
        "pass@1": round(correct / n_samples, 4),
        f"pass@{k}": round(sum(pass_k) / len(pass_k), 4),
        "macro_recall": round(sum(recalls) / len(recalls), 4) if recalls else 0.0,
        "parse_fail_rate": round(pred_dist.get(NONE, 0) / n_samples, 4),
        "truncation_rate": round(sum(t["truncated"] for t in traces) / n_samples, 4),
        "reason_ok_rate": round(sum(t["reason_ok"] for t in traces) / n_samples, 4),
        "pred_dist": dict(sorted(pred_dist.items())),
        "pred_share": {lab: round(pred_dist.get(lab, 0) / n_samples, 4) for lab in labels},
        "per_provider": per_provider,
        "mean_completion_tokens": round(statistics.fmean(lengths), 1),
        "median_reason_words": statistics.median(rwords),
    }


def detect_collapse(history: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The eval harness's collapse findings for the latest summary, or None when it is healthy.

    Returns ``{"kinds": [...], "findings": [...]}`` when at least one finding has severity
    ``collapse`` (thresholds: :mod:`whowrote.llm.collapse`); warnings alone return None.
    """
    from whowrote.llm.collapse import detect_collapse as harness_detect

    findings = [f.to_dict() for f in harness_detect(list(history))]
    collapses = [f for f in findings if f["severity"] == "collapse"]
    if not collapses:
        return None
    return {"kinds": sorted({f["kind"] for f in collapses}), "findings": findings}
