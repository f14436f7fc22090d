"""Which edited training copy does what (issue 17): the recipe with one kind of copy at a time.

The bundled recipe gives every training text one edited copy, its edit drawn from three
(``AUGMENTATIONS``: its first 60-600 words, the text as plain text, all content-keeping edits at
once). Against a fit without copies, the copies carry the three providers' signal into debates
(LOGO 3-way 0.508 -> 0.714 on the inner split of ``distance_gate.py``) and halve the drops under the
edits, but they cost 4-way LOGO accuracy on every genre (mean 0.544 -> 0.496; blog 3-way 0.930 ->
0.809). This trial asks which of the three kinds buys what: each variant gives every text one copy
of a single kind (``truncated``, ``plain_text`` or ``combined``), beside ``current`` (the drawn
mix) and ``none``.

Same inner split and feature cache as ``plain_route.py`` (``topic_holdout_split(outer train,
seed=100)``: inner train 8,094 texts, inner val 1,469), raw and under every edit, and leave-one-genre-out
on the outer train part (3-way and 4-way accuracy, OTHER AUROC where a genre has OTHER texts).

Decision rule, written here before the first run. A single-kind variant goes on to a full retrain
and the outer targets only if, against ``current``:
  (a) the mean LOGO 4-way accuracy rises by >= 1 point;
  (b) the mean LOGO 3-way accuracy falls by <= 0.5 points and no genre's by more than 2 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) neither the worst drop over the edits nor the worse Markdown drop grows by more than 0.5 points.
Several passing: the highest mean LOGO 4-way accuracy.

Round 2 (``--variants current truncated+plain_text``; added after round 1, its rule written before
running it): round 1 showed the plain-text copy alone buying the most across genres and on the
Markdown edits, and the truncated copy alone the length edits. ``truncated+plain_text`` gives every
text both, at 0.25 each (the same total copy weight as ``current``), and gets the same four checks;
its results go to ``copy_types_round2.json``.

    OMP_NUM_THREADS=2 python benchmarks/copy_types.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/copy_types
    OMP_NUM_THREADS=2 python benchmarks/copy_types.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/copy_types --variants truncated+plain_text
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from distance_gate import no_copies
from plain_route import SLACK, edit_scores, inner_setup, scores
from robustness import corpus_args, timed_log
from sklearn.metrics import roc_auc_score

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out
from whowrote.style.train import AUG_WEIGHT, copy_features

KINDS = ("truncated", "plain_text", "combined")
PAIR = "truncated+plain_text"
VARIANTS = ("current", "none", *KINDS, PAIR)
GAIN, GENRE_SLACK = 0.01, 0.02


def logo_scores(model, P: np.ndarray, y: np.ndarray) -> dict:
    """``scores`` plus the OTHER-vs-three AUROC of P(OTHER) (None without both sides)."""
    s = scores(model, P, y)
    other = y == "OTHER"
    col = list(model.classes_).index("OTHER") if "OTHER" in model.classes_ else None
    s["other_auroc"] = (float(roc_auc_score(other, P[:, col])) if col is not None and 0 < other.sum() < len(y)
                        else None)
    return s


def logo_means(logo: dict, variants) -> dict:
    """Per variant, the 4-way and 3-way accuracy averaged over the LOGO genres of ``logo``."""
    genres = [g for g in logo if g != "mean"]
    return {v: {k: float(np.mean([logo[g][v][k] for g in genres])) for k in ("accuracy", "accuracy_3way")}
            for v in variants}


def guard_checks(inner: dict, logo: dict, v: str) -> dict[str, bool]:
    """The checks that every inner-split trial's rule shares, for variant ``v`` against ``current``:
    the LOGO 3-way mean down by at most 0.5 points, no LOGO genre's 3-way down by more than 2, raw
    inner 4-way accuracy down by at most 0.5."""
    mean, genres = logo["mean"], [g for g in logo if g != "mean"]
    return {
        "logo_3way_not_down_0.5pt": mean[v]["accuracy_3way"] >= mean["current"]["accuracy_3way"] - SLACK,
        "no_logo_genre_3way_down_2pt": all(logo[g][v]["accuracy_3way"] >= logo[g]["current"]["accuracy_3way"] - GENRE_SLACK
                                           for g in genres),
        "raw_not_down_0.5pt": inner[v]["edits"]["raw"]["accuracy"] >= inner["current"]["edits"]["raw"]["accuracy"] - SLACK,
    }


def verdicts(checks: dict[str, dict[str, bool]], best) -> dict:
    """Each variant's checks and whether it passes them all, and ``pick``: ``best`` of the passing
    variants' names (None if none passes)."""
    out: dict = {v: {"checks": c, "adopt": all(c.values())} for v, c in checks.items()}
    passing = [v for v in checks if out[v]["adopt"]]
    out["pick"] = best(passing) if passing else None
    return out


def aimed_rule(edit: str):
    """The rule of a trial aimed at one edit (the tree trials' (a)-(d), with (a) aimed at ``edit``):
    per variant against ``current``, (a) that edit's drop down by >= 1 point or the LOGO 3-way mean
    up by >= 1, (b) no other edit's drop up by more than 0.5, and :func:`guard_checks`; the pick is
    the passing variant with the smaller drop. Shared by ``drop_ends_copies.py`` and ``list_spacing.py``."""
    def decide(inner: dict, logo: dict) -> dict:
        base, mean = inner["current"], logo["mean"]
        checks = {v: {f"{edit}_drop_down_1pt_or_logo_up_1pt":
                      inner[v]["drops"][edit] <= base["drops"][edit] - GAIN
                      or mean[v]["accuracy_3way"] >= mean["current"]["accuracy_3way"] + GAIN,
                      "no_other_drop_up_0.5pt": all(d <= base["drops"][e] + SLACK for e, d in inner[v]["drops"].items()
                                                    if e != edit),
                      **guard_checks(inner, logo, v)}
                  for v in inner if v != "current"}
        return verdicts(checks, lambda vs: min(vs, key=lambda v: inner[v]["drops"][edit]))

    return decide


def decide(inner: dict, logo: dict) -> dict:
    """Per single-kind variant, the rule's checks against ``current``, and the pick (or None)."""
    mean, base = logo["mean"], inner["current"]
    checks = {v: {"logo_4way_up_1pt": mean[v]["accuracy"] >= mean["current"]["accuracy"] + GAIN,
                  **guard_checks(inner, logo, v),
                  "worst_drop_not_up_0.5pt": inner[v]["worst_drop"] <= base["worst_drop"] + SLACK,
                  "md_drop_not_up_0.5pt": inner[v]["md_drop"] <= base["md_drop"] + SLACK}
              for v in (*KINDS, PAIR) if v in inner}
    return verdicts(checks, lambda vs: max(vs, key=lambda v: mean[v]["accuracy"]))


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--variants", nargs="+", default=["none", *KINDS], choices=VARIANTS,
                    help="besides current (always fitted); round 2: truncated+plain_text")
    args = ap.parse_args()
    t0 = time.perf_counter()
    log = timed_log()
    inn = inner_setup(args, log)  # plain_route's cache: its runs' features are reused
    outer, tr, va, X, edited = inn.outer, inn.train, inn.val, inn.X, inn.edited
    texts = outer["text"].tolist()
    copies = {"current": inn.Xa, "none": no_copies(X)}
    for kind in KINDS:
        copies[kind] = inn.cache.get(f"copies-{kind}", texts,
                                     lambda t, k=kind: copy_features(inn.feat, t, args.seed, groups=((k,),)))
    copies[PAIR] = np.concatenate([copies["truncated"], copies["plain_text"]], axis=1)
    variants = [v for v in VARIANTS if v in args.variants or v == "current"]
    r, yv = tr["row"].to_numpy(), va["provider"].to_numpy(object)

    def fit(rows: np.ndarray, v: str, frame):  # two copies at half weight each: current's total copy weight
        return inn.fit(X[rows], copies[v][rows], frame, AUG_WEIGHT / copies[v].shape[1] if v == PAIR else AUG_WEIGHT)

    models = {v: fit(r, v, tr) for v in variants}
    inner = {v: edit_scores({e: scores(m, m.predict_proba(Xe), yv) for e, Xe in edited.items()}) for v, m in models.items()}
    for v, s in inner.items():
        log(f"{v}: raw {s['edits']['raw']['accuracy']:.3f}; drops " + ", ".join(f"{e} {d * 100:+.1f}" for e, d in s["drops"].items()))
    logo: dict = {}
    for genre, gtr, gte in leave_one_genre_out(outer):
        rr, t = gtr["row"].to_numpy(), gte["row"].to_numpy()
        y = gte["provider"].to_numpy(object)
        logo[str(genre)] = {v: logo_scores(m, m.predict_proba(X[t]), y)
                            for v in variants for m in [fit(rr, v, gtr)]}
        log(f"logo {genre}: " + ", ".join(f"{v} {s['accuracy_3way']:.3f}/{s['accuracy']:.3f}" for v, s in logo[str(genre)].items()))
    logo["mean"] = logo_means(logo, variants)
    res = {"n_train": len(tr), "n_val": len(va), "inner": inner, "logo": logo, "decision": decide(inner, logo),
           "wall_seconds": time.perf_counter() - t0}
    args.out.mkdir(parents=True, exist_ok=True)
    name = "copy_types_round2.json" if PAIR in variants else "copy_types.json"
    atomic_write(args.out / name, json.dumps(res, indent=1) + "\n")
    log(f"LOGO means: {logo['mean']}; decision: {res['decision']}")


if __name__ == "__main__":
    main()
