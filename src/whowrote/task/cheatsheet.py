"""Cheatsheets: per-provider style tells appended to the system prompt (research spec §1.10).

A cheatsheet is built from :class:`Tell` rows (feature name, words for it, the provider's mean
and the other providers' mean). :func:`cheatsheet_from_style_model` takes them from whowrote's
own style classifier, so the tells say what *our* model found rather than hand-written lore;
:data:`DEFAULT_CHEATSHEET` is the fallback, written from the rates and lifts the reference
derivation reported (spec §1.10), in our own words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from whowrote.types import PROVIDERS

HEADING = (
    "## STYLE TELLS (priors from training data)\n"
    "These tendencies were measured on the training texts. Use them as priors, not rules: "
    "still judge the writing as a whole."
)

DEFAULT_CHEATSHEET = HEADING + """
- CLAUDE: conversational and sincere. Sincerity adverbs such as "genuinely" (far more common than in
  the others), "precisely", "honestly"; phrases like "the honest truth" and "worth"; much "you" and
  "I"; an essay-like, argumentative, warm voice.
- CHATGPT: hedged and enumerating. "can also", "not only ... but", "for example", "depends on",
  "such as", "may"; qualified claims; numbered or bulleted structure; an even, careful register.
- GEMINI: grand and formal, with notation. ASCII or box-drawing diagrams, "we must", "paradigm",
  intensifiers ("highly", "massive"), "profound", "fundamental(ly)"; numbered sections; confident
  declarations; mathematical or technical framing."""


@dataclass(frozen=True)
class Tell:
    """One style feature that sets a provider apart."""

    name: str  # the feature's identifier in the style model
    label: str  # the feature in words, e.g. 'uses "genuinely"'
    provider_mean: float  # mean value (or rate) on the provider's texts
    others_mean: float  # mean value on the other providers' texts

    @property
    def lift(self) -> float:
        return self.provider_mean / (self.others_mean + 1e-6)


def _fmt_tell(t: Tell) -> str:
    if t.others_mean > 0 and t.provider_mean > t.others_mean:
        return f"{t.label} (about {t.lift:.1f}x the others)"
    if t.provider_mean < t.others_mean:
        return f"rarely {t.label}"
    return t.label


def format_cheatsheet(tells: Mapping[str, Sequence[Tell]], per_provider: int = 6,
                      heading: str = HEADING) -> str:
    """The cheatsheet text: a heading, then one line of tells per provider (in label order)."""
    lines = [heading]
    for prov in [p for p in PROVIDERS if p in tells] + [p for p in tells if p not in PROVIDERS]:
        items = [_fmt_tell(t) for t in list(tells[prov])[:per_provider]]
        if items:
            lines.append(f"- {prov}: " + "; ".join(items) + ".")
    return "\n".join(lines)


def tells_from_coefficients(coef: Any, classes: Sequence[str], feature_names: Sequence[str],
                            feature_labels: Mapping[str, str] | None = None,
                            class_means: Mapping[str, Sequence[float]] | None = None,
                            top: int = 6) -> dict[str, list[Tell]]:
    """Top positive-weight features per class of a linear model (``coef`` is classes x features).

    ``class_means[c][j]`` gives feature j's mean on class c; without it the means are left at 0
    and only the words are shown.
    """
    feature_labels = feature_labels or {}
    out: dict[str, list[Tell]] = {}
    for ci, cls in enumerate(classes):
        row = [float(v) for v in coef[ci]]
        order = sorted(range(len(row)), key=lambda j: -row[j])
        chosen = [j for j in order if row[j] > 0][:top]
        tells = []
        for j in chosen:
            name = feature_names[j]
            pm = om = 0.0
            if class_means is not None and cls in class_means:
                pm = float(class_means[cls][j])
                others = [float(class_means[c][j]) for c in classes if c != cls and c in class_means]
                om = sum(others) / len(others) if others else 0.0
            tells.append(Tell(name, feature_labels.get(name, name), pm, om))
        out[str(cls)] = tells
    return out


def cheatsheet_from_style_model(model: Any = None, top: int = 6) -> str:
    """Cheatsheet from whowrote's style model (``whowrote.style.load_model()`` by default).

    The model may offer ``top_tells(top) -> {provider: [Tell|(name, label, pm, om)]}``; otherwise
    it must expose a linear ``coef_`` with ``classes_`` and feature names (``feature_names_`` or
    ``feature_names``), optionally ``feature_labels`` and ``class_means_``.
    Falls back to :data:`DEFAULT_CHEATSHEET` only when no style model is installed.
    """
    if model is None:
        try:
            from whowrote.style import load_model  # type: ignore[attr-defined]
        except ImportError:
            return DEFAULT_CHEATSHEET
        model = load_model()
    if hasattr(model, "top_tells"):
        raw = model.top_tells(top)
        tells = {p: [t if isinstance(t, Tell) else Tell(*t) for t in ts] for p, ts in raw.items()}
        return format_cheatsheet(tells, per_provider=top)
    names = getattr(model, "feature_names_", None)
    if names is None:
        names = getattr(model, "feature_names", None)
    if names is None or not hasattr(model, "coef_"):
        raise TypeError("style model exposes neither top_tells() nor coef_ with feature names")
    classes = [str(c) for c in model.classes_]
    tells = tells_from_coefficients(
        model.coef_, classes, list(names), feature_labels=_feature_labels(model),
        class_means=_class_means(model, classes), top=top)
    return format_cheatsheet({p: t for p, t in tells.items() if p in PROVIDERS} or tells, per_provider=top)


def _feature_labels(model: Any) -> Mapping[str, str] | None:
    """``feature_labels``, else the words of whowrote's feature specs for the model's feature set."""
    labels = getattr(model, "feature_labels", None)
    if labels is None and isinstance(getattr(model, "feature_set", None), str):
        from whowrote.style import feature_specs

        labels = {spec.name: spec.label for spec in feature_specs(model.feature_set)}
    return labels


def _class_means(model: Any, classes: Sequence[str]) -> Mapping[str, Sequence[float]] | None:
    """``class_means_``, else whowrote's ``norms_`` (per-class feature means, rows in class order)."""
    means = getattr(model, "class_means_", None)
    norms = getattr(model, "norms_", None)
    if means is None and norms is not None and len(norms) == len(classes):
        means = {c: [float(v) for v in row] for c, row in zip(classes, norms, strict=True)}
    return means
