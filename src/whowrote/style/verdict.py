"""The verdict for each text: probabilities over the labels, the abstain flag, the tells and the
warnings (:class:`Attribution`, what ``whowrote predict`` prints and ``serve`` answers).

:func:`attribute` runs the whole path for a batch: the checks on each input
(:mod:`whowrote.style.textcheck`), the features, the calibrated probabilities and the distance to
the training data, the abstain rule, and the tells of the decision
(:mod:`whowrote.style.explain`). ``among`` conditions the probabilities on the user's assumption
that the text is by one of the given labels (``P(c | x, c in among)``, the calibrated probabilities
renormalised over them), e.g. ``("CLAUDE", "CHATGPT", "GEMINI")`` when it is known to be by one of
the three assistants; the abstain rule and the tells then read those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from whowrote.style.calibration import conditioned
from whowrote.style.decision import decision_support
from whowrote.style.explain import Tell, tells_of_rows, typography_tells
from whowrote.style.textcheck import inspect_text
from whowrote.types import LABELS, OTHER, WhowroteError

WARN_WORDS = 500  # below this a warning cites the measured accuracy at that length


@dataclass
class Attribution:
    provider: str  # CLAUDE / CHATGPT / GEMINI / OTHER (the most probable, even when uncertain)
    uncertain: bool
    probabilities: dict[str, float]  # all four labels, summing to 1
    tells: list[Tell] = field(default_factory=list)
    n_words: int = 0
    warnings: list[str] = field(default_factory=list)
    distance: float = 0.0  # to the nearest training (genre, label) cell; see whowrote.style.ood

    @property
    def confidence(self) -> float:
        return self.probabilities[self.provider]

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "uncertain": self.uncertain, "confidence": round(self.confidence, 4),
                "probabilities": self.probabilities, "tells": [t.to_dict() for t in self.tells],
                "n_words": self.n_words, "warnings": list(self.warnings), "distance": round(self.distance, 4)}


def _full_probs(model, p: Sequence[float]) -> dict[str, float]:
    """Probabilities over all four labels (labels the model never saw get 0), summing to 1."""
    out = dict.fromkeys(LABELS, 0.0)
    for c, v in zip(model.classes_, p, strict=True):
        out[str(c)] = float(v)
    total = sum(out.values())
    rounded = {k: round(v / total, 6) for k, v in out.items()}
    top = max(rounded, key=rounded.__getitem__)  # absorb rounding so the four sum to exactly 1
    rounded[top] = 0.0
    rounded[top] = round(1.0 - sum(rounded.values()), 6)
    return rounded


def among_labels(among: Sequence[str] | str, classes: Sequence[str]) -> tuple[tuple[str, ...], list[str]]:
    """``among`` (labels, or one comma-separated string; any case) as the ``classes`` it names, in
    their order, and the names it gives that are not classes."""
    asked = [str(a).strip().upper() for a in (among.split(",") if isinstance(among, str) else among)]
    return tuple(c for c in classes if c in asked), [a for a in asked if a and a not in classes]


def check_among(model, among: Sequence[str] | str) -> tuple[str, ...]:
    """:func:`among_labels` of the model's classes; a one-line error unless ``among`` names at least
    two of them and nothing else."""
    classes = [str(c) for c in model.classes_]
    labels, unknown = among_labels(among, classes)
    if unknown or len(labels) < 2:
        raise WhowroteError(f"among: give two or more of {', '.join(classes)}"
                            + (f" (not {', '.join(unknown)})" if unknown else ""))
    return labels


def attribute(model, texts: Sequence[str], n_tells: int = 5, among: Sequence[str] | None = None) -> list[Attribution]:
    """One :class:`Attribution` per text; ``among``: the labels the text is assumed to be by (see
    the module doc; None: all of them)."""
    if isinstance(texts, str):
        raise TypeError("attribute() takes a sequence of texts, not one string")
    assumed = check_among(model, among) if among is not None else None
    checks = [inspect_text(t) for t in texts]
    X = model.features([c.text for c in checks])
    P, far, leaves = model.proba_distance(X, leaves=n_tells > 0)  # the tells' credits read the same leaves
    if assumed is not None:  # conditioned on the assumption: the other labels get 0
        free = P  # the unconditioned reading, quoted when the assumption overrules it
        P = conditioned(P, model.classes_, assumed)
    uncertain = model.uncertain(P, X, far)
    order = np.argsort(-P, axis=1)
    S = T = None
    if n_tells > 0:
        S = decision_support(model, X, order[:, 0], order[:, 1], leaves)
        T = tells_of_rows(model, X, S, order[:, 0], order[:, 1], n_tells, [c.text for c in checks])
    out = []
    # per text, Python numbers (the same values and formatting as the arrays' scalars, cheaper)
    rows, dist, unsure_rows, top2 = P.tolist(), far.tolist(), uncertain.tolist(), order[:, :2].tolist()
    for i, chk in enumerate(checks):
        if chk.skip:
            out.append(no_attribution(chk.warnings, chk.n_words))
            continue
        probs = _full_probs(model, rows[i])
        provider = max(probs, key=probs.__getitem__)
        warnings = list(chk.warnings)
        if assumed is not None:
            warnings.append(f"assumed to be by one of {', '.join(assumed)} (among): a text by any other "
                            "model, or by a person, is still given one of them")
            k = int(np.argmax(free[i]))
            if str(model.classes_[k]) not in assumed:  # e.g. a person's text: most of them read as OTHER
                warnings.append(f"without that assumption it reads as {model.classes_[k]} ({free[i][k]:.2f})")
        unsure = bool(chk.force_uncertain or unsure_rows[i])
        if dist[i] > model.ood_threshold_:
            warnings.append(f"unlike the training texts (distance {dist[i]:.2f} > {model.ood_threshold_:.2f}): "
                            "the verdict is marked uncertain")
        if chk.n_words < model.min_words:
            unsure = True
            warnings.append(f"short text ({chk.n_words} words): {_length_note(model, chk.n_words)}; "
                            f"verdicts under {model.min_words} words are marked uncertain")
        elif chk.n_words < WARN_WORDS:
            warnings.append(f"short text ({chk.n_words} words): {_length_note(model, chk.n_words)}")
        tells: list[Tell] = []
        if S is not None:
            target, versus = top2[i]
            tells = T[i]
            if model.canonical:
                tells += typography_tells(model, chk.text, target, versus, chk)[: max(n_tells - len(tells), 0)]
        out.append(Attribution(provider, unsure, probs, tells, chk.n_words, warnings, dist[i]))
    return out


def _length_note(model, n_words: int) -> str:
    """The measured accuracy at about this length (from train-probe's check), in words."""
    falloff = model.metrics_.get("length_falloff") or {}
    full = (model.metrics_.get("topic_holdout_val") or {}).get("accuracy")
    if not falloff:
        return "accuracy falls off on short texts"
    lengths = sorted(int(k) for k in falloff)
    at = max([n for n in lengths if n <= n_words] or lengths[:1])
    tail = f" vs {full:.2f} on full texts" if full else ""
    return f"held-out accuracy on {at}-word texts was {falloff[str(at)]:.2f}{tail}"


def no_attribution(warnings: Sequence[str], n_words: int = 0) -> Attribution:
    """The explicit "cannot tell" result: uniform probabilities, OTHER, uncertain, no tells."""
    return Attribution(OTHER, True, dict.fromkeys(LABELS, 1 / len(LABELS)), [], n_words, list(warnings))
