"""Eval metrics over per-sample trace records (pure Python).

Definitions (research spec §4.2–4.3):
- ``accuracy`` = correct samples / all samples (truncated or unparsed count as wrong); with k
  samples per prompt this equals the mean per-prompt pass@1;
- ``pass@k`` uses the unbiased estimator 1 - C(n-c, k) / C(n, k) per prompt (n samples, c
  correct), averaged over prompts; with n == k it is the share of prompts with a correct sample.
  Uniform guessing over 3 classes already gives pass@4 = 0.80, so pass@1 is the skill metric;
- ``per_provider[L].recall`` = accuracy on samples whose gold is L; ``macro_recall`` = their mean;
- ``pred_dist`` counts predicted labels per sample, ``"<none>"`` for parse failures;
- ``per_genre[G]`` (only when the records carry a ``genre``): ``accuracy`` and per-gold ``recall``
  on the samples of genre G. A mixed-genre split can hide a genre that fails: session 21's LM lost
  5.5 points overall when Markdown was stripped, which was CLAUDE blog posts going 0.96 → 0.25;
- ``parse_fail_rate`` / ``truncation_rate`` are per sample; ``unparsed_finished_rate`` = the samples
  that finished (not cut off) and still gave no label: a broken answer format, not a long rationale
  (a cut-off verdict-first completion can still parse, so the two rates do not subtract);
- ``faithfulness`` = mean, over samples whose rationale makes at least one checkable style claim,
  of the share of those claims that agree with the shown text's measured features
  (:mod:`whowrote.task.faithfulness`); ``faithfulness_coverage`` = the share of samples with
  such a claim. Both are None for traces recorded without the claim fields (older runs);
- ``faithfulness_other_text`` = the same mean with each rationale's claims checked against another
  text of its batch: what a rationale that does not read its own text reaches (at 0.5B every run
  so far scored the same on both, docs/results.md "Session 23"). None without a second text;
- ``claims_per_trace`` = the mean number of checkable claims a sample's rationale makes (0 counts):
  a rationale can raise its faithfulness by saying less (session 24's grounded reward took 4 claims
  a rationale to 1.0-1.4), so the share of true claims is read next to how many there are.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from math import comb
from typing import Any

NONE = "<none>"


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one prompt with ``n`` samples of which ``c`` are correct."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if k > n:
        raise ValueError(f"k={k} exceeds the {n} samples drawn")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def _stats(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"n": 0, "mean": None, "median": None, "p90": None, "max": None}
    s = sorted(values)
    return {"n": len(s), "mean": round(statistics.fmean(s), 2), "median": statistics.median(s),
            "p90": s[min(len(s) - 1, int(0.9 * len(s)))], "max": s[-1]}


def _r(x: float) -> float:
    return round(x, 4)


def group_by_prompt(records: Iterable[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[str(r["prompt_id"])].append(r)
    return dict(groups)


def summarize(records: Sequence[dict], labels: Sequence[str], k: int | None = None) -> dict[str, Any]:
    """The summary block of ``summary.json`` for one split's trace records."""
    if not records:
        return {"n_examples": 0, "n_samples": 0}
    groups = group_by_prompt(records)
    n_min = min(len(g) for g in groups.values())
    k = k or n_min
    ks = sorted({1, *[2 ** i for i in range(1, 8) if 2 ** i <= n_min], *([k] if k <= n_min else [])})
    n_samples = len(records)
    correct = [float(r["correct"]) for r in records]

    pass_at = {f"pass@{j}": _r(statistics.fmean(
        pass_at_k(len(g), sum(bool(r["correct"]) for r in g), j) for g in groups.values())) for j in ks}

    preds = [r.get("pred") or NONE for r in records]
    pred_dist = dict(Counter(preds))
    for lab in (*labels, NONE):
        pred_dist.setdefault(lab, 0)

    per_provider: dict[str, dict[str, Any]] = {}
    confusion: dict[str, dict[str, int]] = {}
    for lab in labels:
        recs = [r for r in records if r["gold"] == lab]
        gl = {pid: g for pid, g in groups.items() if g[0]["gold"] == lab}
        entry: dict[str, Any] = {"n_examples": len(gl), "n_samples": len(recs)}
        if recs:
            entry["recall"] = _r(statistics.fmean(float(r["correct"]) for r in recs))
            if k <= n_min:
                entry[f"pass@{k}"] = _r(statistics.fmean(
                    pass_at_k(len(g), sum(bool(r["correct"]) for r in g), k) for g in gl.values()))
        per_provider[lab] = entry
        confusion[lab] = {p: sum(1 for r in recs if (r.get("pred") or NONE) == p) for p in (*labels, NONE)}
    recalls = [e["recall"] for e in per_provider.values() if "recall" in e]

    reason_words = [r["reason_words"] for r in records if r.get("reason_words") is not None]
    comp_tokens = [r["completion_tokens"] for r in records if r.get("completion_tokens") is not None]
    gen_seconds = sum(float(r.get("gen_seconds") or 0.0) for r in records)
    summary: dict[str, Any] = {
        "n_examples": len(groups),
        "n_samples": n_samples,
        "k": k,
        "accuracy": _r(statistics.fmean(correct)),
        **faithfulness(records),
        **pass_at,
        "macro_recall": _r(statistics.fmean(recalls)) if recalls else None,
        "per_provider": per_provider,
        "confusion": confusion,
        "pred_dist": pred_dist,
        "pred_share": {p: _r(c / n_samples) for p, c in pred_dist.items()},
        "parse_fail_rate": _r(pred_dist[NONE] / n_samples),
        "truncation_rate": _r(sum(bool(r.get("truncated")) for r in records) / n_samples),
        "unparsed_finished_rate": _r(sum(p == NONE and not r.get("truncated")
                                         for p, r in zip(preds, records, strict=True)) / n_samples),
        "prompt_truncation_rate": _r(sum(bool(r.get("prompt_truncated")) for r in groups_first(groups))
                                     / len(groups)),
        "reason_ok_rate": _r(statistics.fmean(float(r.get("terms", {}).get("reason_ok", 0.0)) for r in records)),
        "think_leak_rate": _r(sum(bool(r.get("think_leak")) for r in records) / n_samples),
        **per_genre(records, labels),
        "reason_words": _stats(reason_words),
        "completion_tokens": _stats(comp_tokens),
        "throughput": {
            "completion_tokens": sum(comp_tokens),
            "gen_seconds": round(gen_seconds, 2),
            "tokens_per_s": round(sum(comp_tokens) / gen_seconds, 2) if gen_seconds > 0 else None,
        },
    }
    return summary


def per_genre(records: Sequence[dict], labels: Sequence[str]) -> dict[str, Any]:
    """``{"per_genre": {genre: {n_examples, n_samples, accuracy, recall: {gold: r}}}}``, or ``{}``
    when no record names a genre (splits without that column, older traces)."""
    by_genre: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("genre"):
            by_genre[str(r["genre"])].append(r)
    if not by_genre:
        return {}
    out: dict[str, Any] = {}
    for genre, recs in sorted(by_genre.items()):
        recall = {lab: _r(statistics.fmean(float(r["correct"]) for r in recs if r["gold"] == lab))
                  for lab in labels if any(r["gold"] == lab for r in recs)}
        out[genre] = {"n_examples": len({str(r["prompt_id"]) for r in recs}), "n_samples": len(recs),
                      "accuracy": _r(statistics.fmean(float(r["correct"]) for r in recs)), "recall": recall}
    return {"per_genre": out}


def faithfulness(records: Sequence[dict]) -> dict[str, float | None]:
    """``faithfulness``, ``faithfulness_coverage``, ``faithfulness_other_text`` and ``claims_per_trace``
    (see the module docstring) over the records that carry the claim fields."""
    checked = [r for r in records if r.get("claims_checked") is not None]
    scored = [float(r["faithfulness"]) for r in checked if r.get("claims_checked") and r.get("faithfulness") is not None]
    base = [float(r["faithfulness_other_text"]) for r in checked
            if r.get("claims_checked") and r.get("faithfulness_other_text") is not None]
    return {"faithfulness": _r(statistics.fmean(scored)) if scored else None,
            "faithfulness_coverage": _r(len(scored) / len(checked)) if checked else None,
            "faithfulness_other_text": _r(statistics.fmean(base)) if base else None,
            "claims_per_trace": _r(statistics.fmean(int(r["claims_checked"]) for r in checked)) if checked else None}


def groups_first(groups: dict[str, list[dict]]) -> list[dict]:
    """One record per prompt (prompt-level fields are repeated on every sample)."""
    return [g[0] for g in groups.values()]
