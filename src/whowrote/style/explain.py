"""Attributions: the verdict for one text, with the style "tells" that drove it, in words.

A tell is one feature whose logistic-regression term pushes the verdict towards the predicted
provider, stated against the providers' typical (mean) values in the training data, e.g.
``"em-dashes: 6.1 per 1,000 characters, typical of CLAUDE (1.9) vs CHATGPT (0.1)"``.
``contribution`` is the feature's logit term for the favoured provider minus the mean term of the
other labels (standardised units: larger = stronger). Highlight spans for a UI come from
:mod:`whowrote.style.highlight` (``tell_spans(text, tell["feature"])``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from whowrote.style.features import FEATURES
from whowrote.style.textcheck import inspect_text
from whowrote.types import LABELS, OTHER

WARN_WORDS = 500  # below this a warning cites the measured accuracy at that length
UNIT_SHORT = {"fraction of characters": "of characters", "ratio": "", "words": "words", "characters": "characters"}


@dataclass
class Tell:
    feature: str
    label: str
    value: float
    unit: str
    norms: dict[str, float]
    favours: str
    contribution: float
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Attribution:
    provider: str  # CLAUDE / CHATGPT / GEMINI / OTHER (the most probable, even when uncertain)
    uncertain: bool
    probabilities: dict[str, float]  # all four labels, summing to 1
    tells: list[Tell] = field(default_factory=list)
    n_words: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        return self.probabilities[self.provider]

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "uncertain": self.uncertain, "confidence": round(self.confidence, 4),
                "probabilities": self.probabilities, "tells": [t.to_dict() for t in self.tells],
                "n_words": self.n_words, "warnings": list(self.warnings)}


def fmt(v: float) -> str:
    """A number as a person would write it: 6.1, 0.03, 1,250."""
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 1 or a == 0:
        return f"{v:.1f}"
    if a >= 0.01:
        return f"{v:.2f}"
    return f"{v:.3f}"


def _full_probs(model, p: np.ndarray) -> dict[str, float]:
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


def make_tells(model, x: np.ndarray, contrib: np.ndarray, target: int, n: int) -> list[Tell]:
    """The ``n`` features pushing hardest towards class ``target`` for one text."""
    classes = [str(c) for c in model.classes_]
    others = [k for k in range(len(classes)) if k != target]
    support = contrib[target] - contrib[others].mean(axis=0)
    names = model.feature_names_
    plain: list[Tell] = []  # the value sits nearer the favoured provider's norm: reads as stated
    other: list[Tell] = []  # a model term that a person would misread next to the norms
    for j in np.argsort(-support):
        if support[j] <= 0 or len(plain) >= n:
            break
        spec = FEATURES[names[j]]
        norms = {c: float(model.norms_[k, j]) for k, c in enumerate(classes)}
        vs_k = others[int(np.argmin(contrib[others, j]))]
        unit = UNIT_SHORT.get(spec.unit, spec.unit)
        fav, vs = classes[target], classes[vs_k]
        sentence = (f"{spec.label}: {fmt(x[j])}{' ' + unit if unit else ''}, typical of {fav} "
                    f"({fmt(norms[fav])}) vs {vs} ({fmt(norms[vs])})")
        tell = Tell(names[j], spec.label, float(x[j]), spec.unit, {k: round(v, 4) for k, v in norms.items()},
                    fav, round(float(support[j]), 4), sentence)
        (plain if abs(x[j] - norms[fav]) <= abs(x[j] - norms[vs]) else other).append(tell)
    # Tells are shown to people as "value, typical of X vs Y": lead with the ones where that
    # sentence is true, and fall back to the strongest remaining terms only to fill n.
    return (plain + other)[: max(n, 0)]


def attribute(model, texts: Sequence[str], n_tells: int = 5) -> list[Attribution]:
    if isinstance(texts, str):
        raise TypeError("attribute() takes a sequence of texts, not one string")
    checks = [inspect_text(t) for t in texts]
    X = model.features([c.text for c in checks])
    P = model.predict_proba(X)
    C = model.contributions(X)
    out = []
    for i, chk in enumerate(checks):
        if chk.skip:
            out.append(no_attribution(chk.warnings, chk.n_words))
            continue
        probs = _full_probs(model, P[i])
        provider = max(probs, key=probs.__getitem__)
        warnings = list(chk.warnings)
        uncertain = chk.force_uncertain or probs[provider] < model.abstain_below
        if chk.n_words < model.min_words:
            uncertain = True
            warnings.append(f"short text ({chk.n_words} words): {_length_note(model, chk.n_words)}; "
                            f"verdicts under {model.min_words} words are marked uncertain")
        elif chk.n_words < WARN_WORDS:
            warnings.append(f"short text ({chk.n_words} words): {_length_note(model, chk.n_words)}")
        target = list(model.classes_).index(provider)
        tells = make_tells(model, X[i], C[i], target, n_tells)
        out.append(Attribution(provider, bool(uncertain), probs, tells, chk.n_words, warnings))
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
