"""Rewards for the task (research spec §2.4): exact-match correctness plus weight-0 diagnostics.

The rubric is one weighted term, ``correct_answer`` (weight 1.0); ``parsed_ok``, ``reason_ok``
and ``pred_<label>`` are logged with weight 0. No additive format reward, cost matrix, per-class
scaling or general length penalty: under GRPO group normalisation each of those either rewards
wrong-but-parsed answers in all-wrong groups or cancels out (spec §2.4, "rejected designs").

The reasoning gate is *multiplicative*: a correct answer without a closed ``<reason_why>`` of at
least ``min_reason_words`` distinct words scores 0; a wrong answer scores 0 whatever its reasoning.

An *unfinished* completion earns no accuracy reward by default (``score_unfinished=False``): one cut
off at the token limit (``truncated``), one that loops (a word 8-gram repeated more than 3 times),
or one that opened ``<reason_why>``/``<answer>`` and never closed it. Without this the parser's
400-character fallback paid 1.0 for an unfinished ``<reason_why>The voice resembles CLAUDE's...``,
which teaches GRPO to ramble into the cap.

Completions may be plain strings or lists of chat messages (dicts or objects).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from whowrote.task.parser import (
    completion_text,
    decode_slot_gold,
    final_content,
    parse_answer,
    parse_slots,
    reason_words,
    task_type,
)
from whowrote.types import PROVIDERS

MIN_REASON_WORDS = 12
TRUNCATION_ADVANTAGE_PENALTY = 0.5  # what the reference runs subtracted from truncated rollouts
LOOP_NGRAM = 8  # a word 8-gram seen more than LOOP_MAX_REPEATS times is a repetition loop
LOOP_MAX_REPEATS = 3
_TOKEN_RE = re.compile(r"\w+|[^\w\s]")  # words and single punctuation marks ("!!!!" loops too)
_TAGS = ("reason_why", "answer")


def loops(text: str, n: int = LOOP_NGRAM, max_repeats: int = LOOP_MAX_REPEATS) -> bool:
    """True when some ``n``-token window occurs more than ``max_repeats`` times (one pass, stops
    at the first loop).

    A 2-4 sentence rationale plus an answer never repeats an 8-token run four times; a
    degenerate completion ("the style the style the style ...") does within a few dozen tokens.
    """
    window: deque[str] = deque(maxlen=n)
    counts: Counter[tuple[str, ...]] = Counter()
    for m in _TOKEN_RE.finditer(text.lower()):
        window.append(m.group())
        if len(window) == n:
            gram = tuple(window)
            counts[gram] += 1
            if counts[gram] > max_repeats:
                return True
    return False


def unclosed_tag(text: str) -> bool:
    """True when ``<reason_why>`` or ``<answer>`` is opened and no closing tag follows it."""
    low = text.lower()
    for tag in _TAGS:
        start = low.find(f"<{tag}>")
        if start >= 0 and low.find(f"</{tag}>", start) < 0:
            return True
    return False


def unfinished(completion: Any, *, truncated: bool = False) -> str | None:
    """Why a completion is unfinished (``"truncated"``, ``"loop"``, ``"unclosed"``), or None."""
    if truncated:
        return "truncated"
    text = completion_text(completion)
    if loops(text):
        return "loop"
    if unclosed_tag(text):
        return "unclosed"
    return None


DIAGNOSTIC_TERMS = ("parsed_ok", "reason_ok", "finished")


def has_substantive_reason(completion: Any, min_words: int = MIN_REASON_WORDS) -> bool:
    """The gate: the first *closed* ``<reason_why>`` holds at least ``min_words`` distinct words."""
    return len(set(reason_words(completion_text(completion)))) >= min_words


def _gold_label(gold: Any) -> str:
    return str(gold or "").strip().upper()


def correct_answer(completion: Any, gold: Any, *, labels: Sequence[str] = PROVIDERS,
                   require_reason: bool = False, min_reason_words: int = MIN_REASON_WORDS,
                   info: dict | None = None, truncated: bool = False, score_unfinished: bool = False) -> float:
    """1.0 for a correct, finished answer (gated if ``require_reason``), else 0.0; trio gives n/3.

    - single: the strictly parsed label equals ``gold``;
    - pair (gold ``A=..;B=..``): both slots parse and both match;
    - trio (gold ``A=..;B=..;C=..``): the fraction of slots that match (per-slot credit).
    """
    return reward_terms(completion, gold, labels=labels, require_reason=require_reason,
                        min_reason_words=min_reason_words, truncated=truncated, info=info,
                        score_unfinished=score_unfinished)["correct_answer"]


def _judge(single: str, full: str, gold: str, kind: str, labels: tuple[str, ...]) -> tuple[float, bool, str | None]:
    """``(ungated score, parsed, predicted label)`` of one completion; the label is single-text only."""
    if kind == "single":
        pred = parse_answer(single, labels)
        return float(pred == _gold_label(gold)), pred is not None, pred
    slots = ("A", "B", "C") if kind == "trio" else ("A", "B")
    got = parse_slots(full, slots, labels)
    want = decode_slot_gold(gold)
    hits = sum(1 for s in slots if got[s] is not None and got[s] == want.get(s))
    score = hits / 3.0 if kind == "trio" else float(hits == 2)
    return score, all(v is not None for v in got.values()), None


def _single_text(completion: Any) -> str:
    # The single-label path reads the final assistant content (what verifiers' Parser sees);
    # a reasoning channel must not be able to supply the answer.
    return final_content(completion) if not isinstance(completion, str) else completion


def reward_terms(completion: Any, gold: Any, *, labels: Sequence[str] = PROVIDERS,
                 require_reason: bool = False, min_reason_words: int = MIN_REASON_WORDS,
                 truncated: bool = False, truncation_penalty: float = 0.0,
                 info: dict | None = None, score_unfinished: bool = False) -> dict[str, float]:
    """Every term for one completion: ``reward`` (what to optimise) plus diagnostics.

    ``correct_answer`` is 0 for an :func:`unfinished` completion unless ``score_unfinished``;
    ``correct_ungated`` is the bare parse-and-compare result (no gate, no finish check).

    ``truncation_penalty`` > 0 subtracts that amount from ``reward`` when ``truncated``. That is a
    reward-level approximation; the reference runs applied the penalty to the *advantage* with no
    re-centring (:func:`truncation_penalized_advantages`), which never pushes a wrong rollout up.
    """
    text = completion_text(completion)
    return dict(_terms(_single_text(completion), text, str(gold or ""), task_type(str(gold), info), tuple(labels),
                       require_reason, min_reason_words, bool(truncated), truncation_penalty, score_unfinished))


@lru_cache(maxsize=8192)
def _terms(single: str, full: str, gold: str, kind: str, labels: tuple[str, ...], require_reason: bool,
           min_reason_words: int, truncated: bool, truncation_penalty: float,
           score_unfinished: bool) -> dict[str, float]:
    # Cached: TRL calls one reward function per term (and verifiers a reward plus a metric) on the
    # same completions, so each completion is parsed and loop-checked once per batch.
    correct, parsed, pred = _judge(single, full, gold, kind, labels)
    reason_ok = len(set(reason_words(full))) >= min_reason_words
    finished = unfinished(full, truncated=truncated) is None
    gated = correct if (not require_reason or reason_ok) and (finished or score_unfinished) else 0.0
    terms: dict[str, float] = {
        "reward": gated - (truncation_penalty if truncated else 0.0),
        "correct_answer": gated,
        "correct_ungated": correct,
        "parsed_ok": float(parsed),
        "reason_ok": float(reason_ok),
        "finished": float(finished),
        "truncated": float(truncated),
    }
    for lab in labels:
        terms[f"pred_{lab.lower()}"] = float(pred == lab)
    return terms


def diagnostics(completion: Any, gold: Any, **kwargs: Any) -> dict[str, float]:
    """The weight-0 terms only (``parsed_ok``, ``reason_ok``, ``finished``, ``pred_*``)."""
    terms = reward_terms(completion, gold, **kwargs)
    return {k: v for k, v in terms.items() if k in DIAGNOSTIC_TERMS or k.startswith("pred_")}


def truncation_penalized_advantages(rewards: Sequence[float], truncated: Sequence[bool],
                                    penalty: float = TRUNCATION_ADVANTAGE_PENALTY) -> list[float]:
    """Group advantages ``r_i - mean(r)``, then ``-penalty`` on truncated rollouts only.

    No re-centring afterwards: in an all-wrong group only truncated rollouts go negative, so no
    wrong rollout is pushed up (spec §3, ``truncation_penalty_advantage``).
    """
    if len(rewards) != len(truncated):
        raise ValueError("rewards and truncated differ in length")
    if not rewards:
        return []
    mean = sum(rewards) / len(rewards)
    return [r - mean - (penalty if t else 0.0) for r, t in zip(rewards, truncated, strict=True)]
