"""Route by length: short texts to a short-text specialist (issue 17: the first 800 characters).

The bundled model loses 10.8 points on a text's first 800 characters (~130 words), the largest
drop of the edit suite. It sees short texts only as one of three kinds of training copy (a third
of the training texts get a first-60-600-words copy). The *short-text specialist* is the same
recipe (``fit_augmented``, the current copies) fitted on every training text cut to its first
``k`` words, ``k`` drawn uniformly from 60-400 per text (texts shorter than ``k`` stay whole). A text
is routed by its word count ``n`` (whitespace-separated; observable, not a guess at an edit):

- ``hard``: ``n < 250`` -> the specialist, otherwise the general model;
- ``soft``: ``P = w P_general + (1 - w) P_specialist`` with ``w = clip((n - 150) / 250, 0, 1)``
  (all specialist up to 150 words, all general from 400).

Both cut-offs were fixed before the first run. Measured like ``benchmarks/plain_route.py``: on an
inner topic split of the topic hold-out's train part, raw and under every edit (all inner val
texts); with ``--logo`` leave-one-genre-out on the outer train part (raw and first 800 characters,
3-way).

Decision rule, written here before the first run. Adopt a routing only if, against ``current``
(the general model alone) on the inner split:
  (a) the first-800-characters drop (raw minus edit) shrinks by >= 2 points;
  (b) the worst drop over the other edits does not grow by more than 0.5 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) with ``--logo``: the mean inner LOGO 3-way accuracy (raw) falls by <= 0.5 points.

    OMP_NUM_THREADS=1 nice -n 19 python benchmarks/length_route.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/length_route --logo
"""

from __future__ import annotations

import json
import random

import numpy as np
from plain_route import SLACK, blended_proba, edit_scores, route_decision, route_start, scores

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out
from whowrote.style.edits import edits, first_chars, first_words
from whowrote.style.train import copy_features

CROP_WORDS = (60, 400)
HARD_WORDS = 250
SOFT_WORDS = (150, 400)
ROUTINGS = ("current", "hard", "soft")


def crops(texts: list[str], seed: int) -> list[str]:
    """Each text cut to its first k words, k uniform in :data:`CROP_WORDS` (seeded)."""
    rng = random.Random(1000 + seed)
    return [first_words(t, rng.randint(*CROP_WORDS)) for t in texts]


def general_weight(n_words: np.ndarray, how: str) -> np.ndarray:
    """The general model's share of the vote for texts of ``n_words`` words."""
    n = np.asarray(n_words, dtype=float)
    if how == "current":
        return np.ones(len(n))
    if how == "hard":
        return (n >= HARD_WORDS).astype(float)
    if how == "soft":
        lo, hi = SOFT_WORDS
        return np.clip((n - lo) / (hi - lo), 0.0, 1.0)
    raise ValueError(f"unknown routing {how!r}")


def routed_proba(general, special, X: np.ndarray, n_words: np.ndarray, how: str) -> np.ndarray:
    return blended_proba(general, special, X, general_weight(n_words, how))


def words(texts: list[str]) -> np.ndarray:
    return np.array([len(t.split()) for t in texts])


def decide(results: dict) -> dict:
    def others(c: dict) -> float:  # the worst drop over the edits other than the first 800 characters
        return max(d for e, d in c["drops"].items() if e != "first_800_chars")

    return route_decision(results, lambda c, base: {
        "first_800_drop_shrinks_2pt": c["drops"]["first_800_chars"] <= base["drops"]["first_800_chars"] - 0.02,
        "other_worst_drop_not_up_0.5pt": others(c) <= others(base) + SLACK})


def main() -> None:
    args, log, inn = route_start(__doc__)
    outer, tr, va, feat, cache, X, Xa, fit = inn.outer, inn.train, inn.val, inn.feat, inn.cache, inn.X, inn.Xa, inn.fit
    texts = outer["text"].tolist()
    short = crops(texts, args.seed)
    Xs = cache.get("crops", short, feat)
    Xsa = cache.get("crop-copies", short, lambda t: copy_features(feat, t, args.seed))
    edited = inn.edited
    vt = va["text"].tolist()
    n_words = {name: words([fn(s) for s in vt]) for name, fn in edits(args.seed).items()}
    r, yv = tr["row"].to_numpy(), va["provider"].to_numpy(object)

    general = fit(X[r], Xa[r], tr)
    log("general model fitted")
    special = fit(Xs[r], Xsa[r], tr)
    log("short-text specialist fitted")
    results: dict = {"crop_words": CROP_WORDS, "hard_words": HARD_WORDS, "soft_words": SOFT_WORDS,
                     "n_train": len(tr), "n_val": len(va), "inner": {}}
    for how in ROUTINGS:
        ed = {e: scores(general, routed_proba(general, special, Xe, n_words[e], how), yv) for e, Xe in edited.items()}
        share = {e: float((1 - general_weight(n_words[e], how)).mean()) for e in edited}
        results["inner"][how] = {**edit_scores(ed), "specialist_share": share}
        log(f"{how}: raw {ed['raw']['accuracy']:.3f} / 3-way {ed['raw']['accuracy_3way']:.3f}; drops "
            + ", ".join(f"{e} {d * 100:+.1f}" for e, d in results["inner"][how]["drops"].items()))
    if args.logo:
        f800 = [first_chars(t) for t in texts]
        X800 = cache.get("first800", texts, lambda _: feat(f800))  # keyed by the texts, made from their prefixes
        results["logo"] = logo(outer, X, Xa, Xs, Xsa, X800, words(texts), words(f800), fit, log)
    results["decision"] = decide(results)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / ("length_route" + ("_logo" if args.logo else "") + ".json"), json.dumps(results, indent=1) + "\n")
    log(f"decision: {results['decision']}")


def logo(outer, X, Xa, Xs, Xsa, X800, n_raw, n_800, fit, log) -> dict:
    """Leave-one-genre-out on the outer train part: 3-way accuracy raw and on the first 800 characters."""
    out: dict = {}
    for genre, tr, te in leave_one_genre_out(outer):
        r, t = tr["row"].to_numpy(), te["row"].to_numpy()
        g, s = fit(X[r], Xa[r], tr), fit(Xs[r], Xsa[r], tr)
        y = te["provider"].to_numpy(object)
        out[str(genre)] = {how: {"raw": scores(g, routed_proba(g, s, X[t], n_raw[t], how), y),
                                 "first_800_chars": scores(g, routed_proba(g, s, X800[t], n_800[t], how), y)}
                           for how in ROUTINGS}
        log(f"logo {genre}: " + ", ".join(f"{h} {v['raw']['accuracy_3way']:.3f}/{v['first_800_chars']['accuracy_3way']:.3f}"
                                           for h, v in out[str(genre)].items()))
    out["mean_3way"] = {how: float(np.mean([v[how]["raw"]["accuracy_3way"] for k, v in out.items() if k != "mean_3way"]))
                        for how in ROUTINGS}
    return out


if __name__ == "__main__":
    main()
