"""A small stand-in with exactly the StyleModel interface (attribute -> [Attribution.to_dict()])."""

from __future__ import annotations

import math
import re
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
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

    def attribute(self, texts: Sequence[str], n_tells: int = 5, among: Sequence[str] | None = None) -> list[FakeAttribution]:
        if self.delay:
            time.sleep(self.delay)
        out = [self._one(t, among) for t in texts]
        for a in out:
            a.tells = a.tells[:n_tells]
        return out

    def _one(self, text: str, among: Sequence[str] | None = None) -> FakeAttribution:
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
        exp = {k: math.exp(v) if among is None or k in among else 0.0 for k, v in scores.items()}
        total = sum(exp.values())
        probs = {k: v / total for k, v in exp.items()}
        top = max(probs, key=probs.get)
        tells.sort(key=lambda t: -t["contribution"])
        warnings = ["short text: under 200 words, the attribution is unreliable"] if n < 200 else []
        return FakeAttribution(top, probs[top] < 0.5, probs, tells, n, warnings)


# Stand-ins for the worker-pool tests: picklable, so they reach the worker processes.
class SlowModel(FakeModel):
    """Sleeps ``delay`` seconds on a text containing "SLOW"; answers others at once."""

    def attribute(self, texts: Sequence[str], n_tells: int = 5) -> list[FakeAttribution]:
        if any("SLOW" in t for t in texts):
            time.sleep(self.delay)
        return FakeModel(0.0).attribute(texts, n_tells=n_tells)


class CrashModel(FakeModel):
    """Kills its own process on a text containing "CRASH" (a segfault, the OOM killer)."""

    def attribute(self, texts: Sequence[str], n_tells: int = 5) -> list[FakeAttribution]:
        if any("CRASH" in t for t in texts):
            import os

            os._exit(3)
        return super().attribute(texts, n_tells=n_tells)


class RefusingModel(FakeModel):
    """Refuses every text (a user-facing error), or fails on one containing "BUG" (a model bug)."""

    def attribute(self, texts: Sequence[str], n_tells: int = 5) -> list[FakeAttribution]:
        from whowrote.types import WhowroteError

        if any("BUG" in t for t in texts):
            return [1 / 0]
        raise WhowroteError("text is not attributable")


def _slow_spans(delay: float, text: str, features: Sequence[str]) -> list[dict[str, Any]]:
    time.sleep(delay)  # stands in for a slow pattern over a huge text
    return []


class SlowSpansModel(FakeModel):
    """Once unpickled in a worker, makes that worker's highlighting take ``spans_delay`` seconds."""

    def __init__(self, spans_delay: float = 30.0) -> None:
        super().__init__()
        self.spans_delay = spans_delay

    def __setstate__(self, state: dict[str, Any]) -> None:
        import whowrote.serve.work as work

        self.__dict__.update(state)
        work.highlight_spans = partial(_slow_spans, self.spans_delay)


class UnloadableModel(FakeModel):
    """Cannot be loaded in a worker process (its unpickling fails)."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        raise ValueError("this model cannot be loaded here")


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[Any]:
    """The app with its lifespan (the worker pool started, then closed) and an httpx client on it."""
    import httpx

    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)  # a 500 is an answer
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=120) as client:
            yield client
