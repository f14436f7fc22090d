"""Robustness: accuracy of the fitted probes after label-preserving edits, which tells survive
which edit, and accuracy against text length (prefixes of 50 -> 3,000 words).

A *scorer* is ``texts -> predicted labels`` (a probe fitted on the raw training texts, wrapped
with its featuriser); every scorer is evaluated on the same held-out texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from whowrote.style.edits import edits as perturbations
from whowrote.style.edits import first_words

Scorer = Callable[[list[str]], np.ndarray]
_WORD = re.compile(r"\S+")


def n_words(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text))


LENGTHS: tuple[int, ...] = (50, 100, 200, 400, 800, 1500, 3000)


def _acc(gold: np.ndarray, pred: np.ndarray) -> float:
    return round(float(np.mean(np.asarray(pred, dtype=object) == gold)), 4) if len(gold) else 0.0


def _sizes(n_texts: int, scorers: dict[str, Scorer], caps: dict[str, int] | None) -> dict[str, int]:
    """How many of the texts each scorer sees (always the first ones)."""
    caps = caps or {}
    return {s: min(n_texts, caps.get(s, n_texts)) for s in scorers}


def _score(texts: list[str], y: np.ndarray, scorers: dict[str, Scorer], sizes: dict[str, int],
           tick: Callable[[], None] | None) -> dict[str, float]:
    """``{scorer: accuracy}`` on the first ``sizes[scorer]`` texts."""
    out = {}
    for sname, scorer in scorers.items():
        n = sizes[sname]
        out[sname] = _acc(y[:n], scorer(texts[:n]))
        if tick:
            tick()
    return out


def robustness_table(
    texts: Sequence[str],
    y: np.ndarray,
    scorers: dict[str, Scorer],
    seed: int = 0,
    caps: dict[str, int] | None = None,
    tick: Callable[[], None] | None = None,
) -> dict:
    """``{perturbation: {scorer: accuracy}}`` plus ``n`` per scorer (``caps`` limits how many of
    the texts a slow scorer sees; always the first ones, so every row uses the same texts)."""
    sizes = _sizes(len(texts), scorers, caps)
    table = {name: _score([edit(t) for t in texts], y, scorers, sizes, tick)
             for name, edit in perturbations(seed).items()}
    return {"accuracy": table, "n": sizes}


def tell_survival(
    texts: Sequence[str],
    y: np.ndarray,
    tells: Sequence[tuple[str, str]],
    featurise: Callable[[list[str]], np.ndarray],
    names: Sequence[str],
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """For each tell ``(provider, feature)``: the share of the provider's raw mean that is left
    after each edit, ``{"PROVIDER:feature": {perturbation: retained}}`` (1.0 = untouched,
    0.0 = erased, None = the provider's held-out texts lack the tell; prefix edits keep per-1k
    rates, so they stay near 1.0 for a tell spread evenly and exceed it for one near the start)."""
    names = list(names)
    out: dict[str, dict[str, float]] = {f"{p}:{f}": {} for p, f in tells}
    raw = None
    for name, edit in perturbations(seed).items():
        X = featurise([edit(t) for t in texts])
        if raw is None:
            raw = X
        for p, f in tells:
            j, mask = names.index(f), (y == p)
            base = float(raw[mask, j].mean()) if mask.any() else 0.0
            now = float(X[mask, j].mean()) if mask.any() else 0.0
            out[f"{p}:{f}"][name] = round(now / base, 3) if base > 0 else None
    return out


def length_curve(
    texts: Sequence[str],
    y: np.ndarray,
    scorers: dict[str, Scorer],
    lengths: Sequence[int] = LENGTHS,
    caps: dict[str, int] | None = None,
    tick: Callable[[], None] | None = None,
) -> dict:
    """Accuracy of each scorer on the first N words of each held-out text, N in ``lengths``.

    Also reports how many texts were actually cut at each N (shorter texts are kept whole)."""
    sizes = _sizes(len(texts), scorers, caps)
    words = np.array([n_words(t) for t in texts])
    acc: dict[str, dict[str, float]] = {s: {} for s in scorers}
    cut: dict[str, float] = {}
    for n in lengths:
        cut[str(n)] = round(float(np.mean(words > n)), 3) if len(words) else 0.0
        for sname, a in _score([first_words(t, n) for t in texts], y, scorers, sizes, tick).items():
            acc[sname][str(n)] = a
    return {"lengths": list(lengths), "accuracy": acc, "share_cut": cut,
            "median_words": int(np.median(words)) if len(words) else 0}
