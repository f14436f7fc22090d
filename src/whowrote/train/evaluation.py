"""In-loop evaluation of the policy being trained: sample, parse, score, summarise.

Scoring uses the task's own ``reward_terms`` (the same parser and gate as the GRPO reward), so
in-loop accuracy and training reward agree. Sampling and the summary are the eval harness's own
(``llm.backends.TransformersBackend``, ``llm.metrics.summarize``), so an in-loop summary has the
same keys as a ``whowrote eval`` ``summary.json`` and the collapse detector reads both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whowrote.llm.backends import SamplingParams, TransformersBackend
from whowrote.llm.evaluate import score_sample
from whowrote.llm.metrics import summarize
from whowrote.task.prompts import build_messages
from whowrote.train.config import EvalConfig
from whowrote.train.data import Row


def evaluate_policy(model: Any, tokenizer: Any, rows: Sequence[Row], cfg: EvalConfig, *,
                    labels: Sequence[str], text_field: str = "text", label_field: str = "provider",
                    seed: int = 0, template_kwargs: dict | None = None) -> tuple[dict[str, Any], list[Row]]:
    """(summary, traces) for ``rows`` under ``cfg`` (variant, k, sampling, gate)."""
    variant = cfg.variant or "3way"
    messages = [build_messages(str(r[text_field]), variant=variant, labels=labels) for r in rows]
    backend = TransformersBackend(model, tokenizer, batch_size=max(1, cfg.batch_size // max(1, cfg.k)),
                                  template_kwargs=template_kwargs)
    samples = backend.generate(messages, SamplingParams(temperature=cfg.temperature, top_p=cfg.top_p,
                                                        max_new_tokens=cfg.max_new_tokens, k=cfg.k, seed=seed))
    traces: list[Row] = []
    for i, (row, outs) in enumerate(zip(rows, samples, strict=True)):
        gold = row[label_field]
        for j, s in enumerate(outs):
            sc = score_sample(s.text, gold, labels, require_reason=cfg.require_reason, truncated=s.truncated)
            traces.append({
                "prompt_id": i, "sample": j, "id": row.get("id", i), "gold": gold, "pred": sc["pred"] or "",
                "correct": sc["correct"], "truncated": s.truncated, "completion_tokens": s.completion_tokens,
                "reason_words": sc["reason_words"], "terms": sc["terms"], "completion": s.text,
            })
    summary = summarize(traces, labels, k=cfg.k)
    summary["variant"] = variant
    summary["sampling"] = {"temperature": cfg.temperature, "top_p": cfg.top_p,
                           "max_new_tokens": cfg.max_new_tokens, "k": cfg.k}
    summary["tokens_per_s"] = round(backend.tokens_per_s, 1)
    summary["gen_seconds"] = round(backend.gen_seconds, 2)
    return summary, traces


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
