"""The task's rewards in TRL's reward-function signature.

TRL (``GRPOTrainer(reward_funcs=...)``) calls ``f(prompts=..., completions=..., completion_ids=...,
**dataset_columns)`` and expects one float per completion (``None`` = "not applicable").
Completions are strings for standard datasets and lists of messages for conversational ones;
both work. The gold label comes from the ``answer`` column (HF ``question/answer/info`` layout),
else ``gold`` or ``provider``.

Use :func:`make_reward_funcs` with :func:`reward_weights` so the diagnostics are logged with
weight 0 (TRL logs each function's mean under its ``__name__``)::

    funcs = make_reward_funcs(require_reason=True, stop_ids=stop_ids(tokenizer, model))
    GRPOConfig(..., reward_weights=reward_weights(funcs))

With ``faithfulness_weight > 0`` a second optimised function, ``faithful_claims``, pays the share of
a finished rationale's checkable style claims that are true of the text in the prompt
(:mod:`whowrote.task.faithfulness`, the metric ``whowrote eval`` reports), scaled by that weight in
:func:`reward_weights`. GRPO on correctness alone keeps a rationale's form and drops its truth
(faithfulness 0.22 -> 0.10 / 0.008 at 0.5B, docs/results.md "Session 22").

Unfinished completions earn no accuracy reward (:func:`whowrote.task.rewards.unfinished`).
A completion is *truncated* when the dataset has a ``truncated`` column saying so, or - given
``stop_ids`` - when TRL's ``completion_ids`` (cut after the first eos, eos included) do not end in
one of them: the same test TRL applies for ``mask_truncated_completions``. Without ``stop_ids``
an unclosed ``<reason_why>``/``<answer>`` and repetition loops are still caught from the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from whowrote.formats import GOLD_COLUMNS
from whowrote.task.parser import final_content
from whowrote.task.rewards import DIAGNOSTIC_TERMS, MIN_REASON_WORDS, reward_terms, unfinished
from whowrote.types import PROVIDERS

RewardFunc = Callable[..., list[float]]


def _golds(kwargs: dict[str, Any], n: int) -> list[Any]:
    for key in GOLD_COLUMNS:
        if kwargs.get(key) is not None:
            golds = list(kwargs[key])
            if len(golds) != n:
                raise ValueError(f"{key!r} has {len(golds)} entries for {n} completions")
            return golds
    raise KeyError(f"the dataset needs one of the columns {GOLD_COLUMNS} for the reward")


def _infos(kwargs: dict[str, Any], n: int) -> list[dict | None]:
    info = kwargs.get("info")
    return list(info) if info is not None and len(info) == n else [None] * n


def truncated_flags(kwargs: dict[str, Any], n: int, stop_ids: frozenset[int] | None) -> list[bool]:
    """Per completion: ran into the token limit (a ``truncated`` column, else TRL's ids)."""
    t = kwargs.get("truncated")
    if t is not None and len(t) == n:
        return [bool(x) for x in t]
    ids = kwargs.get("completion_ids")
    if stop_ids and ids is not None and len(ids) == n:
        return [not seq or int(seq[-1]) not in stop_ids for seq in ids]
    return [False] * n


def majority_penalties(terms: Sequence[dict[str, float]], labels: Sequence[str], penalty: float) -> list[float]:
    """Per completion: what it loses for the class this batch over-answers.

    With ``share`` the fraction of the batch's parsed answers that name a class and ``k =
    len(labels)``, a class is over-answered by ``max(0, share - 1/k) / (1 - 1/k)`` (0 while the
    answers are balanced, 1 when all name it). A finished answer that earns no reward (wrong, or
    failing the reason gate) loses ``penalty`` times its class's over-answering; a completion with
    no finished answer (unparsed, cut off, looping) loses ``penalty`` times the largest one, so not
    answering never beats a wrong answer (session 17: without that, seed 1's parsed share fell from
    1.0 to 0.81 in 18 steps). Rewarded answers lose nothing. Inside a group of one prompt, wrong
    answers then rank by how over-answered their class is, pushing the policy away from the class it
    drifts to (GRPO's advantages are per group). The batch is what TRL passes one process (a whole
    step's rollouts on one GPU).
    """
    k = len(labels)
    keys = [f"pred_{lab.lower()}" for lab in labels]
    counts = [sum(t[key] for t in terms) for key in keys]
    parsed = sum(counts)
    if penalty == 0 or parsed == 0 or k < 2:
        return [0.0] * len(terms)
    over = [max(0.0, c / parsed - 1 / k) / (1 - 1 / k) for c in counts]
    out = []
    for t in terms:
        named = next((j for j, key in enumerate(keys) if t[key]), None)
        if t["correct_answer"] > 0:
            out.append(0.0)
        elif named is not None and t["finished"]:
            out.append(penalty * over[named])
        else:
            out.append(penalty * max(over))
    return out


def _term_func(term: str, *, labels: Sequence[str], require_reason: bool, min_reason_words: int,
               truncation_penalty: float, score_unfinished: bool, stop_ids: frozenset[int] | None,
               name: str, majority_penalty: float = 0.0) -> RewardFunc:
    def reward(completions: list[Any], **kwargs: Any) -> list[float]:
        n = len(completions)
        golds, infos = _golds(kwargs, n), _infos(kwargs, n)
        truncs = truncated_flags(kwargs, n, stop_ids)
        terms = [
            reward_terms(c, g, labels=labels, require_reason=require_reason,
                         min_reason_words=min_reason_words, truncated=t,
                         truncation_penalty=truncation_penalty, info=i,
                         score_unfinished=score_unfinished)
            for c, g, i, t in zip(completions, golds, infos, truncs, strict=True)
        ]
        values = [t[term] for t in terms]
        if term == "reward" and majority_penalty:
            values = [v - p for v, p in zip(values, majority_penalties(terms, labels, majority_penalty), strict=True)]
        return values

    reward.__name__ = name
    reward.__qualname__ = name
    return reward


def _shown_text(prompt: Any) -> str:
    """The text a prompt shows the model: its last user message (the form the eval measures)."""
    if isinstance(prompt, str):
        return prompt
    user = [m for m in prompt or () if isinstance(m, dict) and m.get("role") == "user"]
    return str(user[-1].get("content") or "") if user else ""


def faithfulness_func(*, stop_ids: frozenset[int] | None = None, grounded: bool = False) -> RewardFunc:
    """``faithful_claims``: per completion, the share of its rationale's checkable claims that are true
    of the text in its prompt; 0.0 for an unfinished completion or one without a checkable claim (so
    saying nothing checkable never beats saying something true).

    ``grounded_claims`` (``grounded=True``): that share minus the share of the same rationale's claims
    true of another text of the batch (the next distinct prompt text, in order of first appearance,
    wrapping round). Claims true of any text (a typical value) then earn nothing; only claims read from
    the prompted text do. At 0.5B the plain share was the same against another text (docs/results.md,
    "Session 23"). A batch with one distinct text has nothing to contrast: the plain share."""
    from whowrote.task.cues import reason_text
    from whowrote.task.faithfulness import measured, next_distinct, rationale_faithfulness

    def share(reason: str, text: str, feats: dict[str, dict[str, float]]) -> float | None:
        if text not in feats:  # one measurement per text of this batch (G rollouts share it)
            feats[text] = measured(text)
        return rationale_faithfulness(reason, text, features=feats[text])

    def faithful_claims(completions: list[Any], prompts: Sequence[Any] | None = None, **kwargs: Any) -> list[float]:
        n = len(completions)
        if prompts is None or len(prompts) != n:
            raise ValueError(f"{name} needs the prompts (TRL passes them) to measure the texts")
        truncs = truncated_flags(kwargs, n, stop_ids)
        texts = [_shown_text(p) for p in prompts]
        other = next_distinct(texts)
        feats: dict[str, dict[str, float]] = {}
        out = []
        for text, completion, cut in zip(texts, completions, truncs, strict=True):
            if unfinished(completion, truncated=cut):
                out.append(0.0)
                continue
            reason = reason_text(final_content(completion))
            own = share(reason, text, feats)
            if own is None:
                out.append(0.0)
                continue
            base = share(reason, other[text], feats) if grounded and other[text] != text else None
            out.append(own - (base or 0.0))
        return out

    name = "grounded_claims" if grounded else "faithful_claims"
    faithful_claims.__name__ = faithful_claims.__qualname__ = name
    return faithful_claims


def correct_answer_reward(completions: list[Any], answer: Sequence[Any] | None = None,
                          **kwargs: Any) -> list[float]:
    """Plain TRL reward: 1.0 for a correct, finished 3-way answer (trio: n/3), else 0.0; no gate."""
    if answer is not None:
        kwargs["answer"] = answer
    return _term_func("correct_answer", labels=PROVIDERS, require_reason=False,
                      min_reason_words=MIN_REASON_WORDS, truncation_penalty=0.0, score_unfinished=False,
                      stop_ids=None, name="correct_answer")(completions, **kwargs)


def make_reward_funcs(*, labels: Sequence[str] = PROVIDERS, require_reason: bool = False,
                      min_reason_words: int = MIN_REASON_WORDS, truncation_penalty: float = 0.0,
                      score_unfinished: bool = False, stop_ids: Iterable[int] | None = None,
                      diagnostics: bool = True, majority_penalty: float = 0.0,
                      faithfulness_weight: float = 0.0, faithfulness_grounded: bool = False) -> list[RewardFunc]:
    """``[reward, (faithful_claims | grounded_claims), parsed_ok, reason_ok, finished, pred_<label>...]``.

    The first function returns ``reward``: gated correctness of *finished* completions (all
    completions with ``score_unfinished``) minus ``truncation_penalty`` on truncated ones and minus
    :func:`majority_penalties` on wrong answers of over-answered classes. With
    ``faithfulness_weight > 0``, :func:`faithfulness_func` follows it, optimised at that weight
    (``faithfulness_grounded``: its grounded form, claims true of the text and not of another); the
    rest are weight-0 diagnostics. ``stop_ids``: the model's end-of-turn ids, to read truncation
    off TRL's ``completion_ids``. :func:`reward_weights` reads each function's ``reward_weight``.
    """
    opts = dict(labels=tuple(labels), require_reason=require_reason, min_reason_words=min_reason_words,
                truncation_penalty=truncation_penalty, score_unfinished=score_unfinished,
                stop_ids=frozenset(int(i) for i in stop_ids) if stop_ids else None)
    funcs = [_term_func("reward", name="correct_answer", majority_penalty=majority_penalty, **opts)]  # type: ignore[arg-type]
    funcs[0].reward_weight = 1.0  # type: ignore[attr-defined]
    if faithfulness_weight:
        funcs.append(faithfulness_func(stop_ids=opts["stop_ids"], grounded=faithfulness_grounded))  # type: ignore[arg-type]
        funcs[-1].reward_weight = float(faithfulness_weight)  # type: ignore[attr-defined]
    if diagnostics:
        terms = [*DIAGNOSTIC_TERMS, *[f"pred_{lab.lower()}" for lab in labels]]
        funcs += [_term_func(t, name=t, **opts) for t in terms]  # type: ignore[arg-type]
    return funcs


def reward_weights(funcs: Sequence[RewardFunc]) -> list[float]:
    """TRL's ``reward_weights``: 1.0 for correctness, ``faithfulness_weight`` for ``faithful_claims``,
    0.0 for every diagnostic (logged, not optimised)."""
    return [float(getattr(f, "reward_weight", 0.0)) for f in funcs]
