"""A markup-blind model (issue 17): Markdown markers as fragile tells only, like typography.

Typography already counts for nothing in the verdict (the canonical form drops it) because an
editor adds or removes it without changing a word. Markdown markers are the same kind of evidence:
a paste into a plain-text box, or a page read back from HTML, removes them. The *blind* model is
the same recipe (``fit_augmented``, the current copies) with the :data:`plain_route.MARKUP`
feature columns (headings, bullets, bold, code, tables, links, rules... per 1,000 characters) set
to 0 in every matrix it fits on or scores, so a marker cannot move its verdict. What still carries
the layout are the features that survive the edits: line and paragraph breaks, sentence and
paragraph lengths.

Measured on the same inner split as ``plain_route.py`` (``topic_holdout_split(outer train,
seed=100)`` of the topic hold-out's train part; its feature cache), raw and under every edit, and
leave-one-genre-out on the outer train part (3-way, raw and Markdown stripped).

Decision rule, written here before the first run. Adopt ``blind`` (for a full retrain and the
outer targets) only if, against ``current``:
  (a) the worse of the two Markdown drops (strip_markdown, markdown_html) is <= 3 points;
  (b) the worst drop over all edits does not grow by more than 0.5 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) the mean inner LOGO 3-way accuracy (raw) falls by <= 0.5 points.

Second round, ``--blend`` (added after the first run, its rule written before the second):
``P = (1 - w) P_current + w P_blind`` for w in :data:`BLENDS`, from the same fits. Each blend gets
the same four checks against ``current``; among the blends that pass all four, the one with the
smallest Markdown drop is picked (ties to the smaller w). None passing: nothing is adopted.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/markup_blind.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/markup_blind
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from plain_route import MARKUP, SLACK, edit_scores, inner_setup, scores
from robustness import corpus_args, timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out
from whowrote.style.edits import strip_markdown
from whowrote.style.features import feature_names

MD_TARGET = 0.03
BLENDS = (0.25, 0.5, 0.75)
COLS = [feature_names("full").index(n) for n in MARKUP]


def blind(X: np.ndarray) -> np.ndarray:
    """``X`` with the markup columns set to 0 (the last axis is the features; copies too)."""
    out = X.copy()
    out[..., COLS] = 0.0
    return out


def decide(inner: dict, logo: dict, name: str = "blind") -> dict:
    base, c = inner["current"], inner[name]
    checks = {"md_drop_within_3pt": c["md_drop"] <= MD_TARGET,
              "worst_drop_not_up_0.5pt": c["worst_drop"] <= base["worst_drop"] + SLACK,
              "raw_not_down_0.5pt": c["edits"]["raw"]["accuracy"] >= base["edits"]["raw"]["accuracy"] - SLACK,
              "logo_3way_not_down_0.5pt": logo["mean_3way"][name] >= logo["mean_3way"]["current"] - SLACK}
    return {"checks": checks, "adopt": all(checks.values())}


def pick_blend(inner: dict, logo: dict) -> dict:
    """The second round's rule: the passing blend with the smallest Markdown drop (ties: smaller w)."""
    names = [f"blend {w}" for w in BLENDS]
    verdicts = {n: decide(inner, logo, n) for n in names}
    passing = [n for n in names if verdicts[n]["adopt"]]
    return {"blends": verdicts, "picked": min(passing, key=lambda n: inner[n]["md_drop"]) if passing else None}


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--blend", action="store_true", help="second round: blends of current and blind")
    args = ap.parse_args()
    t0 = time.perf_counter()
    log = timed_log()
    inn = inner_setup(args, log)  # plain_route's cache: its runs' features are reused
    outer, tr, va, X, Xa, edited, fit = inn.outer, inn.train, inn.val, inn.X, inn.Xa, inn.edited, inn.fit
    Xp = inn.cache.get("plain", [strip_markdown(t) for t in outer["text"].tolist()], inn.feat)
    r, yv = tr["row"].to_numpy(), va["provider"].to_numpy(object)
    views = {"current": lambda M: M, "blind": blind}
    blends = {f"blend {w}": w for w in BLENDS} if args.blend else {}

    def with_blends(P: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {**P, **{n: (1 - w) * P["current"] + w * P["blind"] for n, w in blends.items()}}

    models = {name: fit(view(X[r]), view(Xa[r]), tr) for name, view in views.items()}
    inner: dict = {}
    for e, Xe in edited.items():
        P = with_blends({name: models[name].predict_proba(view(Xe)) for name, view in views.items()})
        for name, Pn in P.items():
            inner.setdefault(name, {})[e] = scores(models["current"], Pn, yv)  # classes_ are the same
    inner = {name: edit_scores(ed) for name, ed in inner.items()}
    for name, v in inner.items():
        log(f"{name}: raw {v['edits']['raw']['accuracy']:.3f} / 3-way {v['edits']['raw']['accuracy_3way']:.3f}; drops "
            + ", ".join(f"{e} {d * 100:+.1f}" for e, d in v["drops"].items()))
    logo: dict = {}
    for genre, gtr, gte in leave_one_genre_out(outer):
        rr, t = gtr["row"].to_numpy(), gte["row"].to_numpy()
        y = gte["provider"].to_numpy(object)
        ms = {name: fit(view(X[rr]), view(Xa[rr]), gtr) for name, view in views.items()}
        Praw = with_blends({n: ms[n].predict_proba(v(X[t])) for n, v in views.items()})
        Pmd = with_blends({n: ms[n].predict_proba(v(Xp[t])) for n, v in views.items()})
        logo[str(genre)] = {n: {"raw": scores(ms["current"], Praw[n], y), "strip_markdown": scores(ms["current"], Pmd[n], y)}
                            for n in Praw}
        log(f"logo {genre}: " + ", ".join(f"{n} {v['raw']['accuracy_3way']:.3f}/{v['strip_markdown']['accuracy_3way']:.3f}"
                                          for n, v in logo[str(genre)].items()))
    genres = [g for g in logo if g != "mean_3way"]
    logo["mean_3way"] = {n: float(np.mean([logo[g][n]["raw"]["accuracy_3way"] for g in genres])) for n in inner}
    res = {"n_train": len(tr), "n_val": len(va), "markup_columns": list(MARKUP), "inner": inner, "logo": logo,
           "decision": decide(inner, logo), "wall_seconds": time.perf_counter() - t0}
    if blends:
        res["blend_decision"] = pick_blend(inner, logo)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "markup_blind_blend.json" if blends else "markup_blind.json"
    atomic_write(args.out / name, json.dumps(res, indent=1) + "\n")
    log(f"LOGO 3-way mean: {logo['mean_3way']}; decision: {res['decision']}"
        + (f"; blends: {res['blend_decision']}" if blends else ""))


if __name__ == "__main__":
    main()
