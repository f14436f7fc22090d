"""Windowed features (issue 17): fit and predict the recipe on fixed-size windows of the texts.

The bundled model is fitted on the features of whole texts, so a short or cut text (its first 800
characters, its first 300 words) looks unlike its training rows. Here the same recipe
(``StyleModel`` on the full feature set, the current edited copy of each text at 0.5) is fitted on
*windows* of the training texts, and a text is predicted from its windows:

- :func:`windows`: the text's words cut into consecutive windows of ``W`` words; a window's start
  is snapped back to the start of a line or sentence when one lies at most ``W // 5`` words
  before it; the last window takes the tail (under ``W`` words), so a text of fewer than ``2 W``
  words is one window: the text itself.
- training: at most ``K = 4`` windows per text, at positions drawn with a seed fixed per text
  (:func:`train_picks`); each window weighs ``1 / n_windows`` of its text, so every text keeps the
  recipe's total weight (1 for the text, 0.5 for its copy, the copy kept as in the recipe: the
  current cached copy of the whole text; :func:`window_weights`).
- prediction: up to ``M = 8`` evenly spaced windows (:func:`spread`), their probabilities
  aggregated per text (:func:`aggregate`) as ``log`` (the mean log-probability, renormalised;
  primary) or ``prob`` (the mean probability).

Variants, all declared before the first run: ``w150-log`` (primary), ``w150-prob``, ``w300-log``,
``w300-prob`` (``W`` = 150 or 300 words), against ``current`` (the bundled recipe on whole texts,
exactly as ``copy_types.py`` fits it). Same inner split and feature cache as ``plain_route.py``
(``topic_holdout_split(outer train, seed=100)``: inner train 8,094, inner val 1,469), raw and under
every edit of ``edits(seed)``, and leave-one-genre-out on the outer train part (3-way, 4-way, OTHER
AUROC). The prediction cost per text relative to ``current`` (features of the windows and their
rows against one) is timed in one process on 300 inner-val texts, interleaved and repeated.

Decision rule, written here before the first run. A windowed variant is adopted (recommended for a
full retrain) only if, against ``current``:
  (a) the first_800_chars drop (raw minus edit, inner 4-way) shrinks by >= 3 points;
  (b) no other edit's drop grows by more than 0.5 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) the mean LOGO 3-way accuracy falls by <= 0.5 points and no genre's by more than 2 points.
Several passing: the smallest first_800_chars drop.

    OMP_NUM_THREADS=2 nice -n 10 python benchmarks/windows.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out /tmp/windows-smoke --limit 150
    OMP_NUM_THREADS=2 nice -n 10 python benchmarks/windows.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/windows
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from copy_types import guard_checks, logo_means, logo_scores, verdicts
from plain_route import PARAMS, SLACK, edit_scores, inner_setup, scores
from robustness import corpus_args, timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import edits, text_seed
from whowrote.style.model import balanced_weights
from whowrote.style.train import AUG_WEIGHT

SIZES = (150, 300)
K, M = 4, 8
AGGS = ("log", "prob")
VARIANTS = tuple(f"w{w}-{a}" for w in SIZES for a in AGGS)
SHRINK = 0.03
FIRST = "first_800_chars"
_WORD = re.compile(r"\S+")
_ENDS_SENTENCE = re.compile(r"[.!?][\"'\u201d\u2019)\]*_]*$")


def unit_starts(text: str, spans: list[tuple[int, int]]) -> list[bool]:
    """Per word: does it start a line or a sentence (the text's first word does)?"""
    return [i == 0 or "\n" in text[spans[i - 1][1]:s] or bool(_ENDS_SENTENCE.search(text[spans[i - 1][0]:spans[i - 1][1]]))
            for i, (s, _) in enumerate(spans)]


def windows(text: str, size: int) -> list[str]:
    """The text cut into consecutive windows of ``size`` words (starts snapped back to a line or
    sentence start at most ``size // 5`` words before; the tail joins the last window)."""
    spans = [m.span() for m in _WORD.finditer(text)]
    n = len(spans) // size
    if n <= 1:
        return [text]
    starts = unit_starts(text, spans)
    firsts = [0]
    for i in range(1, n):
        g = i * size
        firsts.append(next((j for j in range(g, g - size // 5 - 1, -1) if starts[j]), g))
    cuts = [spans[j][0] for j in firsts] + [len(text)]
    return [text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]


def train_picks(n: int, k: int, key: int) -> list[int]:
    """At most ``k`` of ``n`` window indices, drawn (sorted) with the seed ``key``."""
    return list(range(n)) if n <= k else sorted(random.Random(key).sample(range(n), k))


def spread(n: int, m: int) -> list[int]:
    """At most ``m`` of ``n`` window indices, evenly spaced from the first to the last."""
    return list(range(n)) if n <= m else np.round(np.linspace(0, n - 1, m)).astype(int).tolist()


def windowed(texts: list[str], size: int, pick: Callable[[int, str], list[int]]) -> tuple[list[str], np.ndarray]:
    """The picked windows of every text, flat, and the text (position) each belongs to."""
    out, owner = [], []
    for i, t in enumerate(texts):
        ws = windows(t, size)
        for j in pick(len(ws), t):
            out.append(ws[j])
            owner.append(i)
    return out, np.asarray(owner, dtype=np.int64)


def train_pick(seed: int) -> Callable[[int, str], list[int]]:
    return lambda n, t: train_picks(n, K, text_seed(t, seed))


def predict_pick(n: int, t: str) -> list[int]:
    return spread(n, M)


def aggregate(P: np.ndarray, owner: np.ndarray, n: int, how: str) -> np.ndarray:
    """Per text, its windows' probabilities combined: ``log`` (mean log-probability, renormalised)
    or ``prob`` (mean probability). Every text needs a window."""
    counts = np.bincount(owner, minlength=n).astype(float)
    if (counts == 0).any():
        raise ValueError("a text without windows")
    if how == "prob":
        V = np.zeros((n, P.shape[1]))
        np.add.at(V, owner, P)
        return V / counts[:, None]
    if how != "log":
        raise ValueError(f"unknown aggregation {how!r}")
    L = np.zeros((n, P.shape[1]))
    np.add.at(L, owner, np.log(np.clip(P, 1e-12, 1.0)))
    L /= counts[:, None]
    E = np.exp(L - L.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def window_weights(pos: np.ndarray, y: np.ndarray, genres: np.ndarray, aug_weight: float = AUG_WEIGHT,
                   weighting: str = "sqrt") -> np.ndarray:
    """``sample_weight`` for the rows ``[windows (text pos), copies (one per text)]`` such that, after
    ``StyleModel.fit`` multiplies it by its own (genre, label) balancing of those rows, every text
    weighs what it weighs in the recipe (its balanced weight; its copy ``aug_weight`` of it), shared
    evenly by its windows."""
    y, genres = np.asarray(y, dtype=object), np.asarray(genres, dtype=object)
    n_win = np.bincount(pos, minlength=len(y)).astype(float)
    sqrt = weighting == "sqrt"  # the model's own ``weighting``, which fit applies on top
    bt = balanced_weights(y, genres, sqrt=sqrt)
    wanted = np.r_[bt[pos] / n_win[pos], bt * aug_weight]
    return wanted / balanced_weights(np.r_[y[pos], y], np.r_[genres[pos], genres], sqrt=sqrt)


def window_positions(owner: np.ndarray, rows: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, pos)``: which windows (``owner``: outer row of each) belong to the texts at outer
    ``rows``, and the position in ``rows`` of each kept window's text."""
    pos_of = np.full(n_rows, -1)
    pos_of[rows] = np.arange(len(rows))
    keep = pos_of[owner] >= 0
    return keep, pos_of[owner[keep]]


def fit_windows(Xw: np.ndarray, owner: np.ndarray, Xa: np.ndarray, frame: pd.DataFrame, n_rows: int, seed: int) -> StyleModel:
    """The recipe on the training windows of ``frame``'s texts (``owner``: outer row of each window
    of ``Xw``) plus each text's copy (``Xa``, outer rows)."""
    rows = frame["row"].to_numpy()
    keep, pos = window_positions(owner, rows, n_rows)
    y, g = frame["provider"].to_numpy(object), frame["genre"].to_numpy(object)
    keys = np.asarray(topic_keys(frame), dtype=object)
    copies = Xa[rows] if Xa.ndim == 2 else Xa[rows, 0]
    model = StyleModel(seed=seed, **PARAMS)
    return model.fit(np.vstack([Xw[keep], copies]), np.r_[y[pos], y], genres=np.r_[g[pos], g], groups=np.r_[keys[pos], keys],
                     sample_weight=window_weights(pos, y, g, weighting=model.weighting))


def predict_windows(model: StyleModel, Xw: np.ndarray, owner: np.ndarray, rows: np.ndarray, n_rows: int) -> dict[str, np.ndarray]:
    """Per aggregation, the probabilities of the texts at outer ``rows`` from their windows."""
    keep, pos = window_positions(owner, rows, n_rows)
    P = model.predict_proba(Xw[keep])
    return {a: aggregate(P, pos, len(rows), a) for a in AGGS}


def decide(inner: dict, logo: dict) -> dict:
    """Per windowed variant, the rule's checks against ``current``, and the pick (or None)."""
    base = inner["current"]
    checks = {v: {"first_800_drop_shrinks_3pt": inner[v]["drops"][FIRST] <= base["drops"][FIRST] - SHRINK,
                  "no_other_drop_up_0.5pt": all(d <= base["drops"][e] + SLACK for e, d in inner[v]["drops"].items()
                                                if e != FIRST),
                  **guard_checks(inner, logo, v)}
              for v in inner if v != "current"}
    return verdicts(checks, lambda vs: min(vs, key=lambda v: inner[v]["drops"][FIRST]))


def cost_ratio(current: StyleModel, models: dict[int, StyleModel], feat, texts: list[str], reps: int = 3) -> dict:
    """Prediction time of each window size over ``current``'s (features + rows + aggregation), one
    text per call and one batch per call, the two interleaved (which goes first alternates); the
    median over ``reps`` repeats of the summed times' ratio."""
    def cur(ts: list[str]) -> None:
        current.predict_proba(feat(ts))

    def win(size: int) -> Callable[[list[str]], None]:
        def run(ts: list[str]) -> None:
            ws, owner = windowed(ts, size, predict_pick)
            aggregate(models[size].predict_proba(feat(ws)), owner, len(ts), "log")
        return run

    def timed(fn, ts) -> float:
        t0 = time.perf_counter()
        fn(ts)
        return time.perf_counter() - t0

    out: dict = {}
    for size in models:
        w = win(size)
        single, batch = [], []
        for r in range(reps):
            tc = tw = 0.0
            for i, t in enumerate(texts):
                first, second = (cur, w) if (i + r) % 2 == 0 else (w, cur)
                a, b = timed(first, [t]), timed(second, [t])
                tc, tw = (tc + a, tw + b) if first is cur else (tc + b, tw + a)
            single.append(tw / tc)
            if r % 2 == 0:
                a, b = timed(cur, texts), timed(w, texts)
            else:
                b, a = timed(w, texts), timed(cur, texts)
            batch.append(b / a)
        n_win = len(windowed(texts, size, predict_pick)[0])
        out[f"w{size}"] = {"single_text": float(np.median(single)), "batch": float(np.median(batch)),
                           "windows_per_text": n_win / len(texts), "n_texts": len(texts), "reps": reps}
    return out


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--limit", type=int, default=0, help="smoke run: the first N outer texts per genre only")
    args = ap.parse_args()
    t0 = time.perf_counter()
    log = timed_log()
    inn = inner_setup(args, log)  # plain_route's cache: its runs' features are reused
    outer, tr, va, X, Xa, edited = inn.outer, inn.train, inn.val, inn.X, inn.Xa, inn.edited
    if args.limit:
        keep = set(outer.groupby("genre").head(args.limit)["row"])
        vmask = va["row"].isin(keep).to_numpy()
        tr, va, edited = tr[tr["row"].isin(keep)], va[vmask], {e: Xe[vmask] for e, Xe in edited.items()}
        outer = outer[outer["row"].isin(keep)]
        log(f"--limit {args.limit}: outer {len(outer)}, inner train {len(tr)}, val {len(va)}")
    n_rows, vt = len(inn.outer), va["text"].tolist()
    lim = f"-limit{args.limit}" if args.limit else ""
    ed_texts = {e: [fn(t) for t in vt] for e, fn in edits(args.seed).items()}
    log("edited val texts ready")
    win: dict[int, dict] = {}
    for size in SIZES:
        sub = outer["text"].tolist()
        wt, ot = windowed(sub, size, train_pick(args.seed))
        wp, op = windowed(sub, size, predict_pick)
        rows = outer["row"].to_numpy()
        d = {"train": (inn.cache.get(f"win{size}-train{lim}", wt, inn.feat), rows[ot]),
             "predict": (inn.cache.get(f"win{size}-predict{lim}", wp, inn.feat), rows[op]), "val": {}}
        for e, ts in ed_texts.items():
            we, oe = windowed(ts, size, predict_pick)
            d["val"][e] = (inn.cache.get(f"win{size}-val-{e}{lim}", we, inn.feat), oe)
        log(f"w{size}: {len(wt)} training windows ({len(wt) / len(sub):.2f} per text), {len(wp)} predict windows")
        win[size] = d
    yv = va["provider"].to_numpy(object)
    ident = np.arange(len(va))

    def fit_all(frame: pd.DataFrame) -> tuple[StyleModel, dict[int, StyleModel]]:
        t1 = time.perf_counter()
        rows = frame["row"].to_numpy()
        cur = inn.fit(X[rows], Xa[rows], frame)
        t2 = time.perf_counter()
        wm = {s: fit_windows(*win[s]["train"], Xa, frame, n_rows, args.seed) for s in SIZES}
        log(f"  fitted on {len(frame)} texts: current {t2 - t1:.0f}s, windowed {time.perf_counter() - t2:.0f}s")
        return cur, wm

    current, wmodels = fit_all(tr)
    ed: dict[str, dict] = {"current": {e: scores(current, current.predict_proba(Xe), yv) for e, Xe in edited.items()}}
    for s, m in wmodels.items():
        for e, (Xw, ow) in win[s]["val"].items():
            for a, P in predict_windows(m, Xw, ow, ident, len(va)).items():
                ed.setdefault(f"w{s}-{a}", {})[e] = scores(m, P, yv)
    inner = {v: edit_scores(x) for v, x in ed.items()}
    for v, s in inner.items():
        log(f"{v}: raw {s['edits']['raw']['accuracy']:.3f}; drops " + ", ".join(f"{e} {d * 100:+.1f}" for e, d in s["drops"].items()))
    cost = cost_ratio(current, wmodels, inn.feat, va["text"].sample(min(300, len(va)), random_state=args.seed).tolist())
    log(f"cost ratio: {cost}")
    logo: dict = {}
    for genre, gtr, gte in leave_one_genre_out(outer):
        t, y = gte["row"].to_numpy(), gte["provider"].to_numpy(object)
        cur, wm = fit_all(gtr)
        res = {"current": logo_scores(cur, cur.predict_proba(X[t]), y)}
        for s, m in wm.items():
            for a, P in predict_windows(m, *win[s]["predict"], t, n_rows).items():
                res[f"w{s}-{a}"] = logo_scores(m, P, y)
        logo[str(genre)] = res
        log(f"logo {genre}: " + ", ".join(f"{v} {x['accuracy_3way']:.3f}/{x['accuracy']:.3f}" for v, x in res.items()))
    logo["mean"] = logo_means(logo, ("current", *VARIANTS))
    res = {"sizes": list(SIZES), "K": K, "M": M, "n_train": len(tr), "n_val": len(va), "limit": args.limit,
           "windows_per_text": {f"w{s}": {k: len(win[s][k][1]) / len(outer) for k in ("train", "predict")} for s in SIZES},
           "inner": inner, "logo": logo, "cost_ratio": cost, "decision": decide(inner, logo),
           "wall_seconds": time.perf_counter() - t0}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / f"windows{lim}.json", json.dumps(res, indent=1) + "\n")
    log(f"LOGO means: {logo['mean']}; decision: {res['decision']}")


def table(path: Path) -> str:
    """The Markdown tables of docs/predict-trials.md from a results JSON."""
    r = json.loads(path.read_text())
    cols = [e for e in next(iter(r["inner"].values()))["drops"]]
    lines = ["| inner val, 4-way | raw (3-way) | " + " | ".join(cols) + " | adopt |", "|---|---:|" + "---:|" * (len(cols) + 1)]
    for v, c in r["inner"].items():
        raw = c["edits"]["raw"]
        adopt = r["decision"][v]["adopt"] if v in r["decision"] else "—"
        lines.append(f"| {v} | {raw['accuracy']:.3f} ({raw['accuracy_3way']:.3f}) | "
                     + " | ".join(f"{-c['drops'][e] * 100 + 0.0:+.1f}" for e in cols) + f" | {adopt} |")
    lo = r["logo"]
    genres = [g for g in lo if g != "mean"]
    lines += ["", "| LOGO, 3-way (4-way) | " + " | ".join(genres) + " | mean | OTHER AUROC " + " / ".join(
        g for g in genres if lo[g]["current"]["other_auroc"] is not None) + " |", "|---|" + "---:|" * (len(genres) + 1) + "---|"]
    for v in lo["mean"]:
        au = " / ".join(f"{lo[g][v]['other_auroc']:.3f}" for g in genres if lo[g][v]["other_auroc"] is not None)
        lines.append(f"| {v} | " + " | ".join(f"{lo[g][v]['accuracy_3way']:.3f} ({lo[g][v]['accuracy']:.3f})" for g in genres)
                     + f" | **{lo['mean'][v]['accuracy_3way']:.3f}** ({lo['mean'][v]['accuracy']:.3f}) | {au} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--table"]:  # python benchmarks/windows.py --table results/windows/windows.json
        print(table(Path(sys.argv[2])))
    else:
        main()
