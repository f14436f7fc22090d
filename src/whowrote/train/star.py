"""STaR self-distillation data (spec §1.9 D3) and gold-conditioned rationales (D1).

Generation samples k completions per training text from the current policy; :func:`select_star`
(a pure function, tested on canned samples) decides what is kept:

- ``mode = "star"``: the plain prompt, the gold label never shown. A text is accepted when the
  majority vote equals gold (``require_majority``) and at least ``min_correct`` samples are
  correct (default max(2, ceil(k/2)), at most k). Its rationale is the first *correct* sample whose
  ``<reason_why>`` passes cleaning (``min_words``..``max_words`` words, >= ``min_unique_frac``
  unique) and does not leak.
- ``mode = "hint"`` (round 2 in the research): the cheatsheet is appended to the system prompt, the
  gold still unseen; any correct sample with a clean, non-leaking rationale is kept.
- ``mode = "goldcond"``: the user message carries an analyst note naming the gold provider and
  asking for evidence; a text is accepted if any sample answers gold with a clean, non-leaking
  rationale. The SFT target is rendered with the *plain* prompt (no note), as in D1.

- ``mode = "tells"`` / ``"fallback"``: no sampling at all: the rationale is the style model's measured
  tells supporting gold, or the D1 fallback sentence (:mod:`whowrote.train.tells_rationales`).

A rationale *leaks* when it mentions the scaffold (note, hint, cheatsheet, "as instructed", ...)
or, with ``reject_label_in_reason``, names a provider label: then the reason would just restate
the answer instead of giving evidence. Kept rows are capped per class (balanced by default).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET
from whowrote.task.parser import parse_answer, reasoning
from whowrote.task.prompts import build_messages
from whowrote.train.config import StarRecipe
from whowrote.train.data import Row, write_rows
from whowrote.types import WhowroteError

SCAFFOLD_RE = re.compile(
    r"cheat\s*-?sheet|\bthe hints?\b|style tells?|\btell sheet\b|\bpriors?\b|\banalyst\b|"
    r"\bas (?:noted|instructed|stated|told)\b|\bthe rules?\b|\bthe note\b|\bnote says\b|ground[- ]truth|"
    r"\bgold\b|\bi was told\b",
    re.IGNORECASE,
)
PROVIDER_WORDS = {"CLAUDE": ("claude", "anthropic"), "CHATGPT": ("chatgpt", "gpt", "openai"),
                  "GEMINI": ("gemini", "google", "bard")}
# Spec §1.9 D1: a gold-conditioned rationale that fails cleaning becomes this fixed sentence.
FALLBACK_RATIONALE = "The surface style of this text matches {gold} better than the other two providers."
GOLDCOND_NOTE = ("\n\n[Analyst note: this text was written by {gold}. In <reason_why>, give 2-3 sentences "
                 "citing concrete surface-style evidence from the text for that, then give the answer. "
                 "Do not mention this note.]")


@dataclass
class Sampled:
    """One generated completion for one text (what :func:`select_star` reads)."""

    text: str
    truncated: bool = False


@dataclass
class StarStats:
    n_items: int = 0
    n_accepted: int = 0
    cap: int = 0
    final_rows: int = 0
    by_gold: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    missing_classes: list[str] = field(default_factory=list)


def clean_rationale(completion: str, cfg: StarRecipe) -> str | None:
    """The first ``<reason_why>`` body with whitespace normalised, if it passes length/diversity."""
    body = reasoning(completion)
    if not body:
        return None
    body = " ".join(body.split())
    words = body.split()
    if not cfg.min_words <= len(words) <= cfg.max_words:
        return None
    lowered = [w.lower() for w in words]
    if len(set(lowered)) / len(lowered) < cfg.min_unique_frac:
        return None
    return body


def leaks(rationale: str, cfg: StarRecipe, labels: Sequence[str]) -> bool:
    if SCAFFOLD_RE.search(rationale):
        return True
    if cfg.reject_label_in_reason:
        low = rationale.lower()
        for lab in labels:
            for word in PROVIDER_WORDS.get(lab, (lab.lower(),)):
                if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", low):
                    return True
    return False


def min_correct(cfg: StarRecipe) -> int:
    # The default never asks for more correct samples than were drawn (k = 1 would keep nothing).
    return cfg.min_correct or min(cfg.k, max(2, math.ceil(cfg.k / 2)))


def _accept(row: Row, outs: Sequence[Sampled], cfg: StarRecipe, labels: Sequence[str],
            label_field: str) -> tuple[Row | None, str]:
    """(accepted row with its rationale, or None; the rejection reason)."""
    gold = row[label_field]
    preds = [parse_answer(s.text, labels) for s in outs]
    n_ok = sum(p == gold for p in preds)
    if cfg.mode == "star":
        votes = Counter(p for p in preds if p is not None).most_common()
        plurality = votes[0][0] if votes and (len(votes) == 1 or votes[0][1] > votes[1][1]) else None
        if cfg.require_majority and plurality != gold:
            return None, "majority"
        if n_ok < min_correct(cfg):
            return None, "too_few_correct"
    elif n_ok == 0 and not (cfg.mode == "goldcond" and cfg.fallback_rationale):
        return None, "no_correct"
    reason = "no_clean_rationale"
    for s, p in zip(outs, preds, strict=True):
        # STaR keeps only verified (correct, finished) samples; gold-conditioned rationales argue
        # for the gold label whatever the sample answered, so any clean one will do there.
        if s.truncated or (p != gold and cfg.mode != "goldcond"):
            continue
        r = clean_rationale(s.text, cfg)
        if r is None:
            continue
        if leaks(r, cfg, labels):
            reason = "leak"
            continue
        return {**row, "rationale": r, "star_correct": n_ok, "star_k": len(outs), "star_mode": cfg.mode}, ""
    if cfg.mode == "goldcond" and cfg.fallback_rationale:
        return {**row, "rationale": FALLBACK_RATIONALE.format(gold=gold), "star_correct": n_ok,
                "star_k": len(outs), "star_mode": "fallback"}, ""
    return None, reason


def cap_per_class(accepted: Sequence[Row], cfg: StarRecipe, labels: Sequence[str], label_field: str,
                  stats: StarStats) -> list[Row]:
    """Cap the accepted rows per class, keeping the earliest of each (input order)."""
    by_gold = Counter(r[label_field] for r in accepted)
    stats.n_accepted = len(accepted)
    stats.by_gold = dict(sorted(by_gold.items()))
    # Balanced cap = the smallest *non-empty* class: a class with no verified text at all is
    # reported (missing_classes) rather than wiping out every other class's rows.
    present = [by_gold[lab] for lab in labels if by_gold.get(lab)]
    stats.missing_classes = [lab for lab in labels if not by_gold.get(lab)]
    cap = {-1: min(present, default=0), 0: max(present, default=0)}.get(cfg.cap_per_class, cfg.cap_per_class)
    stats.cap = cap
    kept: list[Row] = []
    taken: Counter[str] = Counter()
    for r in accepted:
        if taken[r[label_field]] < cap:
            kept.append(r)
            taken[r[label_field]] += 1
    stats.final_rows = len(kept)
    return kept


def select_star(rows: Sequence[Row], samples: Sequence[Sequence[Sampled]], cfg: StarRecipe, *,
                labels: Sequence[str], label_field: str = "provider", cap: bool = True) -> tuple[list[Row], StarStats]:
    """Keep the verified texts (with their rationale) and, with ``cap``, cap them per class."""
    stats = StarStats(n_items=len(rows))
    rejected: Counter[str] = Counter()
    accepted: list[Row] = []
    for row, outs in zip(rows, samples, strict=True):
        kept, reason = _accept(row, outs, cfg, labels, label_field)
        if kept is None:
            rejected[reason] += 1
        else:
            accepted.append(kept)
    stats.rejected = dict(sorted(rejected.items()))
    if cap:
        return cap_per_class(accepted, cfg, labels, label_field, stats), stats
    stats.n_accepted = stats.final_rows = len(accepted)
    return accepted, stats


def star_messages(row: Row, cfg: StarRecipe, labels: Sequence[str], text_field: str = "text",
                  label_field: str = "provider") -> list[dict]:
    cheatsheet = DEFAULT_CHEATSHEET if cfg.mode == "hint" else None
    msgs = build_messages(str(row[text_field]), variant=cfg.variant, labels=labels, cheatsheet=cheatsheet)
    if cfg.mode == "goldcond":
        msgs[-1] = {**msgs[-1], "content": msgs[-1]["content"] + GOLDCOND_NOTE.format(gold=row[label_field])}
    return msgs


def _sample_round(rows: Sequence[Row], cfg: StarRecipe, labels: Sequence[str],
                  text_field: str, label_field: str, seed: int, backend: Any) -> list[list[Sampled]]:
    from whowrote.llm.backends import SamplingParams

    messages = [star_messages(r, cfg, labels, text_field, label_field) for r in rows]
    outs = backend.generate(messages, SamplingParams(temperature=cfg.temperature, top_p=cfg.top_p,
                                                     max_new_tokens=cfg.max_new_tokens, k=cfg.k, seed=seed))
    return [[Sampled(s.text, s.truncated) for s in o] for o in outs]


def generate_star(model: Any, tokenizer: Any, rows: Sequence[Row], cfg: StarRecipe, *, labels: Sequence[str],
                  out_path: str | Path, text_field: str = "text", label_field: str = "provider",
                  batch_size: int = 64, seed: int = 0,
                  template_kwargs: dict | None = None) -> tuple[list[Row], StarStats]:
    """Sample, select (round 1, then the optional gold-conditioned round 2), cap, and write
    the kept rows (JSONL) plus ``<out>.stats.json``."""
    if cfg.backend == "vllm":  # the policy's saved folder on vLLM's engine (GPU)
        from whowrote.llm.vllm_backend import VLLMBackend

        path = str(getattr(model, "name_or_path", "") or "")
        if not path:
            raise WhowroteError("star.backend = 'vllm' samples from a saved folder: model.name_or_path is empty")
        backend: Any = VLLMBackend(path, tokenizer=tokenizer)
    else:
        from whowrote.llm.backends import TransformersBackend

        # batch_size counts sequences (prompts x k) per generate call, so memory does not grow with k.
        backend = TransformersBackend(model, tokenizer, batch_size=max(1, batch_size // max(1, cfg.k)),
                                      template_kwargs=template_kwargs)
    samples = _sample_round(rows, cfg, labels, text_field, label_field, seed, backend)
    accepted, stats = select_star(rows, samples, cfg, labels=labels, label_field=label_field, cap=False)
    report: dict[str, Any] = {"round1": {"mode": cfg.mode, "accepted": len(accepted), "rejected": stats.rejected}}
    truncated = [s.truncated for o in samples for s in o]
    extra = [("round2", cfg.round2, False)]
    if cfg.fallback_round:
        extra.append(("fallback", cfg.fallback_round, True))
    for name, mode, only_if_short in extra:
        if not mode:
            continue
        if mode not in ("hint", "goldcond"):
            raise ValueError(f"star round modes are 'hint' or 'goldcond', not {mode!r}")
        if only_if_short and len(cap_per_class(accepted, cfg, labels, label_field, StarStats())) >= cfg.min_rows:
            continue
        # Like the research's round 2 (spec §1.9 D3), only the texts still rejected are retried:
        # "hint" adds the cheatsheet (gold never shown), "goldcond" states the gold label (D1-style;
        # as the fallback round it also takes the D1 fallback sentence, so every text is kept).
        done = {a.get("id") or a[text_field] for a in accepted}
        retry = [r for r in rows if (r.get("id") or r[text_field]) not in done]
        cfg2 = dataclasses.replace(cfg, mode=mode, fallback_rationale=cfg.fallback_rationale or only_if_short)
        more_samples = _sample_round(retry, cfg2, labels, text_field, label_field,
                                     seed + len(report), backend)
        more, st = select_star(retry, more_samples, cfg2, labels=labels, label_field=label_field, cap=False)
        report[name] = {"mode": mode, "tried": len(retry), "accepted": len(more),
                        "fallback_sentences": sum(r["star_mode"] == "fallback" for r in more), "rejected": st.rejected}
        accepted += more
        truncated += [s.truncated for o in more_samples for s in o]
    kept = cap_per_class(accepted, cfg, labels, label_field, stats)
    out = Path(out_path)
    write_rows(out, kept)
    report = {**stats.__dict__, **report, "mode": cfg.mode, "k": cfg.k, "min_correct": min_correct(cfg),
              "tokens_per_s": round(backend.tokens_per_s, 1), "gen_seconds": round(backend.gen_seconds, 1),
              "truncation_rate": round(sum(truncated) / max(1, len(truncated)), 4),
              "kept_modes": dict(Counter(r.get("star_mode", "star") for r in kept))}
    out.with_suffix(".stats.json").write_text(json.dumps(report, indent=2))
    return kept, stats
