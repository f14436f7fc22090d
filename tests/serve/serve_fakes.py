"""A small stand-in with exactly the StyleModel interface (attribute -> [Attribution.to_dict()])."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

LABELS = ("CLAUDE", "CHATGPT", "GEMINI", "OTHER")
# feature (real names: the highlighter reads their specs' patterns), label, pattern, per-provider norms (per 1k words), provider it favours when high
FEATURES = (
    ("punc_emdash", "em-dashes", r"—", {"CLAUDE": 6.0, "CHATGPT": 2.0, "GEMINI": 3.0}, "CLAUDE"),
    ("md_h1", "top-level headings", r"(?m)^# .*$", {"CLAUDE": 1.0, "CHATGPT": 4.0, "GEMINI": 5.0}, "GEMINI"),
    ("md_bold", "bold markers (**)", r"\*\*", {"CLAUDE": 0.5, "CHATGPT": 3.0, "GEMINI": 6.0}, "GEMINI"),
    ("lex_hedges", "hedging words", r"(?i)\b(?:perhaps|might|arguably|likely)\b", {"CLAUDE": 4.0, "CHATGPT": 2.0, "GEMINI": 1.5}, "CLAUDE"),
    ("lex_intensifiers", "intensifiers", r"(?i)\b(?:very|truly|deeply|really)\b", {"CLAUDE": 1.0, "CHATGPT": 3.0, "GEMINI": 2.0}, "CHATGPT"),
    ("avg_sent_len_words", "average sentence length", None, {"CLAUDE": 21.0, "CHATGPT": 18.0, "GEMINI": 17.0}, "CLAUDE"),
)


@dataclass
class FakeAttribution:
    provider: str
    uncertain: bool
    probabilities: dict[str, float]
    tells: list[dict[str, Any]]
    n_words: int
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "uncertain": self.uncertain, "probabilities": dict(self.probabilities),
                "tells": [dict(t) for t in self.tells], "n_words": self.n_words, "warnings": list(self.warnings)}


class FakeModel:
    version = "fake-0.1"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def card(self) -> dict[str, Any]:
        return {"name": "fake-style", "version": self.version, "classes": list(LABELS),
                "training_data": {"rows": 0, "genres": []}, "metrics": {"macro_f1": 0.0}}

    def attribute(self, texts: Sequence[str], n_tells: int = 5) -> list[FakeAttribution]:
        if self.delay:
            time.sleep(self.delay)
        out = [self._one(t) for t in texts]
        for a in out:
            a.tells = a.tells[:n_tells]
        return out

    def _one(self, text: str) -> FakeAttribution:
        n = max(1, len(text.split()))
        scores = dict.fromkeys(LABELS, 0.0)
        tells = []
        for feature, label, pattern, norms, favours in FEATURES:
            if pattern is None:
                sentences = [s for s in re.split(r"[.!?]+\s", text) if s.strip()]
                value = n / max(1, len(sentences))
            else:
                value = 1000.0 * len(re.findall(pattern, text)) / n
            lean = 10 * math.tanh((value - sum(norms.values()) / 3) / 10)
            scores[favours] += lean / 10
            tells.append({"feature": feature, "label": label, "value": round(value, 3), "unit": "per 1k words",
                          "norms": norms, "favours": favours if lean > 0 else None,
                          "contribution": round(abs(lean) / 10, 4), "sentence": None})
        exp = {k: math.exp(v) for k, v in scores.items()}
        total = sum(exp.values())
        probs = {k: v / total for k, v in exp.items()}
        top = max(probs, key=probs.get)
        tells.sort(key=lambda t: -t["contribution"])
        warnings = ["short text: under 200 words, the attribution is unreliable"] if n < 200 else []
        return FakeAttribution(top, probs[top] < 0.5, probs, tells, n, warnings)
