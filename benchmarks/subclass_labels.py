"""Trial (issue 17, session 45): one class per assistant *generation*, summed back to the assistant.

Why. Adding Arena-Hard's 2023-24 answers to training (the bundled recipe since session 37) cost
leave-one-genre-out blog 16.6 points (0.796 -> 0.630): 2023-24 Claude answers teach a Claude that
2025-26 Claude blog posts do not sound like (docs/predict.md, "Trained on Arena-Hard's answers").
An assistant of two generations is two styles, and one class must cover both. Hypothesis: giving
each (assistant, generation) its own class (``whowrote.data.generations.generation``: CLAUDE@2023-24,
CLAUDE@2025-26, ...; OTHER stays one class) and summing the classes' probabilities back per
assistant lets each style keep its own region, and reads unseen genres better.

Protocol, fixed before the first run (this docstring was committed before it):

- Rows: the five corpus genres and the Arena-Hard answers the bundled recipe trains on (half A of
  the prompts, versions not held out: ``external_training.arena_rows``), features cached by
  ``robustness.Features`` (shared with ``external_training.py``).
- Only the outer topic hold-out's *train* part is scored (``topic_holdout_split(corpus, seed=0,
  balance=False)``, 9,563 texts); its val, the reported T3, is never read.
- Arms, on the same rows and training copies: ``current`` (labels as given: the bundled recipe,
  uncalibrated) and ``generation`` (assistant labels split by generation, probabilities summed per
  assistant). The sample weights stay those of the provider labels (the recipe balances (genre,
  label) cells; with sub-labels the cells would change too), so only the classes differ.
- In-genre: 5 topic-grouped folds of the outer train part (``GroupKFold``), each fold's texts scored
  raw and under every edit of the suite by the fit on the other four plus all the added answers.
- Across genres: per corpus genre, a fit on the outer train part without it (plus the answers),
  scored on its outer-train texts (3-way on the assistants' texts, 4-way, OTHER AUROC).
- Rule (the tree trials' (a)-(d), ``tree_settings.decide``): ``generation`` is recommended for a
  refit on another fold assignment, and only then for a retrain, if (a) the LOGO 3-way mean rises by
  >= 1 point or the worst edit drop shrinks by >= 1; (b) no edit's drop grows by more than 0.5;
  (c) raw in-genre 4-way falls by <= 0.5; (d) the LOGO 3-way mean falls by <= 0.5 and no genre's by
  more than 2. Per-text rows for ``trial_noise.py``'s paired topic-bootstrap intervals.

Round 2, declared after round 1 and committed before its run. Round 1 (``generation``) read unseen
genres 4.6 points better (blog +28, chat +2.8, debate +4.2) but fiction -4.2 and longform -7.8 and
grew the single-newlines drop by 3.8, so it failed (b) and (d). It would also cost predict 7/4 of the
trees (one ensemble per class). Which member carries what: the logistic member is linear, so one class
for two styles should hurt it most, and sub-classes there cost predict nothing. Two variants mix the
members of round 1's two fits (re-fitted identically here), with the bundled weights (0.15 / 0.85):
``lr_generation`` (``generation``'s logistic member, summed, with ``current``'s trees) and
``trees_generation`` (``current``'s logistic member with ``generation``'s trees, summed). Same rule;
``generation`` and ``current`` repeat round 1. Hypothesis: ``lr_generation`` keeps part of the blog
gain without the losses; refuted if it fails the rule. Only a variant that passes is refitted on
another fold assignment before any retrain.

Round 3, declared in session 46 before its run. Round 1's blog gain is Claude's: with the answers in
training, 10 of Claude's 90 held-out blog posts are called CLAUDE (68 without them; ChatGPT's posts
are right either way: docs/predict.md, "Where the blog cost comes from"), and its losses were laid
to thin 2025-26 classes of ChatGPT and Gemini, which a held-out longform or fiction takes 38-51 % and
14-19 % of. So only Claude is split: ``claude`` has five classes (``CLAUDE@2023-24``,
``CLAUDE@2025-26``, CHATGPT, GEMINI, OTHER; summed back as before, rows weighted as in ``current``)
with the bundled 300 rounds (5/4 of the trees: reported, not a candidate for shipping unless issue
11's speed is traded), and ``claude240`` the same with 240 rounds, the bundled tree count (1,200
trees, predict's cost unchanged; its candidate). Same protocol and rule; ``current`` repeats round 1.
Hypothesis: ``claude240`` keeps most of the blog gain without the fiction and longform losses;
refuted if it fails (a) or (d). A passing variant is refitted on another fold assignment
(``tree_settings.topic_folds`` seed 1) before any retrain.
Result: both fail (b) and (d). ``claude240``: LOGO +2.4 (blog +10.8, chat +1.5, debate +5.6,
longform 0.0) but fiction -5.9 and the single-newlines drop +2.2; no refit (docs/predict-trials.md).

::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/subclass_labels.py --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/subclass_labels --round 2
    python benchmarks/trial_noise.py results/subclass_labels/round2_rows.npz --out results/subclass_labels/round2_noise.json
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from copy_types import logo_means, logo_scores
from external_training import answers_table, trained_answers
from joblib import Parallel, delayed
from plain_route import edit_scores, scores
from robustness import FEATURES_OF, Features, corpus_args, fit_recipe, timed_log
from tree_settings import decide, topic_folds, write_round

from whowrote.data.generations import generation
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.calibration import softmax
from whowrote.style.edits import edits
from whowrote.style.heldout import three_way
from whowrote.style.model import balanced_weights
from whowrote.style.train import AUG_WEIGHT, augmented_rows
from whowrote.style.trees import log_transform
from whowrote.types import LABELS, OTHER, PROVIDERS

ARMS = {1: ("current", "generation"), 2: ("current", "generation"), 3: ("current", "claude", "claude240")}  # round -> arms
MIXES = {"lr_generation": ("generation", "current"), "trees_generation": ("current", "generation")}  # (LR's arm, trees' arm)


def sub_labels(frame: pd.DataFrame, split: tuple[str, ...] = PROVIDERS) -> np.ndarray:
    """Each row's assistant and generation (``CLAUDE@2023-24``) for the assistants in ``split``; the
    other rows (OTHER always) keep their label."""
    return np.array([f"{p}@{generation(m, p, g)}" if p in split and p != OTHER else p
                     for m, p, g in zip(frame["model"], frame["provider"], frame["genre"], strict=True)], dtype=object)


# arm -> (the assistants split by generation, boosting rounds)
SPLITS = {"generation": (PROVIDERS, 300), "claude": (("CLAUDE",), 300), "claude240": (("CLAUDE",), 240)}


class SummedClasses:
    """A model fitted on sub-labels, read as the assistants: each assistant's probability is the sum
    of its sub-classes' (``LABEL@...``)."""

    def __init__(self, model: StyleModel) -> None:
        self.model = model
        base = [str(s).split("@")[0] for s in model.classes_]
        self.classes_ = np.array([c for c in LABELS if c in base], dtype=object)
        self._sum = np.array([[float(b == c) for c in self.classes_] for b in base])

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(X) @ self._sum


def members(model, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """A fit's two members' probabilities over the assistants (sub-classes summed) and its tree weight;
    ``(1 - w) p_lr + w p_trees`` is its ``predict_proba`` (uncalibrated fits)."""
    m, S = (model.model, model._sum) if isinstance(model, SummedClasses) else (model, np.eye(len(model.classes_)))
    p_lr = softmax(m._z(X) @ m.coef_.T + m.intercept_) @ S
    p_trees = softmax(m.trees_.raw_predict(log_transform(X))) @ S
    return p_lr, p_trees, m.tree_weight


def mixed_proba(lr_model, tree_model, X: np.ndarray) -> np.ndarray:
    """The logistic member of one fit with the trees of another, at the bundled weights."""
    p_lr, _, w = members(lr_model, X)
    _, p_trees, _ = members(tree_model, X)
    return (1.0 - w) * p_lr + w * p_trees


def fit_generation(X: np.ndarray, Xa: np.ndarray, frame: pd.DataFrame, seed: int,
                   split: tuple[str, ...] = PROVIDERS, tree_iter: int = 300) -> SummedClasses:
    """The ``generation`` arm: the default recipe as ``robustness.fit_recipe`` fits it (copies at
    AUG_WEIGHT, uncalibrated), on sub-labels with the provider labels' cell weights."""
    y, genres = frame["provider"].to_numpy(object), frame["genre"].to_numpy(object)
    rows, sub, g2, groups2, w = augmented_rows(X, Xa, sub_labels(frame, split), genres, topic_keys(frame), AUG_WEIGHT)
    provider = np.tile(y, len(rows) // len(y))  # augmented_rows tiles the labels: rows, then each copy

    def cells(labels: np.ndarray) -> np.ndarray:
        uniq = sorted(set(labels.tolist()))
        return balanced_weights(np.array([uniq.index(v) for v in labels]), g2, sqrt=True)

    # StyleModel.fit multiplies in the sub-labels' (genre, label) cell weights: divide them out, so
    # the rows weigh what they weigh in `current`
    model = StyleModel(calibrate=False, seed=seed, canonical=True, tree_iter=tree_iter).fit(rows, sub, genres=g2, groups=groups2,
                                                        sample_weight=w * cells(provider) / cells(sub))
    return SummedClasses(model)


Fold = tuple[str, pd.DataFrame, pd.DataFrame]  # name, rows fitted (without the answers), rows scored


def answer_folds(args: argparse.Namespace, log, fold_seed: int | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, Features, list[Fold], int]:
    """The protocol's rows and folds: the outer topic hold-out's train part, the answers added to every
    fit, the feature cache, 5 topic-grouped folds of the outer train part (in-genre; ``fold_seed``:
    ``tree_settings.topic_folds``' assignment) then one fold per corpus genre (LOGO), and the number
    of in-genre folds."""
    table, feats, is_arena = answers_table(args.corpus, args.answers, args.cache, log)
    outer = topic_holdout_split(table[~is_arena], seed=args.seed, balance=False)["train"]
    add = trained_answers(table[is_arena])
    log(f"outer train {len(outer):,} texts; {len(add):,} answers added to every fit")
    folds = [(f"cv{i}", outer.iloc[tr], outer.iloc[te])
             for i, (tr, te) in enumerate(topic_folds(topic_keys(outer).to_numpy(), 5, fold_seed))]
    n_inner = len(folds)
    folds += [(str(g), tr, te) for g, tr, te in leave_one_genre_out(outer)]
    return outer, add, feats, folds, n_inner


def score_folds(outer: pd.DataFrame, feats: Features, folds: list[Fold], n_inner: int, seed: int,
                variants, proba: Callable[[str, str, np.ndarray], np.ndarray],
                base: Callable[[str], StyleModel], reading: dict[str, str] | None = None) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """Every variant's in-genre scores (each outer-train text by its fold's fit, raw and under every
    edit of ``edits(seed)``, features from ``feats``), its LOGO scores, and the per-text rows for ``trial_noise.py``; ``proba(variant, fold,
    X)`` gives probabilities over the assistants in ``LABELS`` order, ``base(fold)`` the fold's
    ``current`` fit (whose classes the scores read). ``reading``: variant -> the recipe whose features
    it reads (a variant that reads texts another way, e.g. ``tight_lists``); default ``default``."""
    pos = pd.Series(np.arange(len(outer)), index=outer.row_idx.to_numpy())
    reading = reading or {}
    # the features each variant reads: its reading's, or the default's for a recipe of other copies
    recipe = {v: FEATURES_OF.get(reading.get(v, "default"), reading.get(v, "default")) for v in variants}
    edited = {r: {e: feats.get(r, outer.row_idx.to_numpy(), e) for e in edits(seed)} for r in set(recipe.values())}
    y = outer.provider.to_numpy(object)
    rows: dict[str, np.ndarray] = {"inner_topic": topic_keys(outer).to_numpy(str)}
    inner = {}
    first = base(folds[0][0])  # every variant's columns are the assistants in LABELS order
    for v in variants:
        ed = {}
        for e, Xe in edited[recipe[v]].items():
            P = np.zeros((len(outer), len(LABELS)))
            for name, _, te in folds[:n_inner]:
                i = pos[te.row_idx.to_numpy()].to_numpy()
                P[i] = proba(v, name, Xe[i])
            ed[e] = scores(first, P, y)
            rows[f"inner|{v}|{e}"] = first.classes_[P.argmax(axis=1)] == y
        inner[v] = edit_scores(ed)
    logo: dict = {}
    for name, _, te in folds[n_inner:]:
        yt = te.provider.to_numpy(object)
        three = yt != OTHER
        X = {r: feats.get(r, te.row_idx.to_numpy(), "raw") for r in edited}
        rows[f"logo_topic|{name}"] = te.topic.to_numpy(str)[three]
        logo[name] = {}
        m = base(name)
        for v in variants:
            P = proba(v, name, X[recipe[v]])
            logo[name][v] = logo_scores(m, P, yt)
            rows[f"logo|{name}|{v}"] = three_way(m, P)[three] == yt[three]
    logo["mean"] = logo_means(logo, variants)
    return inner, logo, rows


def answer_args(doc: str, rounds, default: int, round_help: str) -> argparse.Namespace:
    """The command line of a trial on this protocol: the corpus arguments, ``--answers`` (the
    Arena-Hard answers folder), ``--jobs`` and ``--round`` (one of ``rounds``)."""
    ap = corpus_args(argparse.ArgumentParser(description=doc.splitlines()[0]), "/tmp/whowrote-external")
    ap.add_argument("--answers", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--round", type=int, choices=sorted(rounds), default=default, help=round_help)
    return ap.parse_args()


def main() -> None:
    args = answer_args(__doc__, ARMS, 2, "1: the two arms; 2: also their members mixed; 3: only Claude split by generation")
    log, t0 = timed_log(), time.perf_counter()
    outer, add, feats, folds, n_inner = answer_folds(args, log)

    def task(arm: str, name: str, train: pd.DataFrame):
        fit_rows = pd.concat([train, add])
        if arm == "current":
            return arm, name, fit_recipe(feats, "default", fit_rows, args.seed)
        r = fit_rows.row_idx.to_numpy()
        split, tree_iter = SPLITS[arm]
        return arm, name, fit_generation(feats.get("default", r, "raw"), feats.get("default", r, "train_copy", args.seed),
                                         fit_rows, args.seed, split, tree_iter)

    feats.get("default", outer.row_idx.to_numpy(), "train_copy", args.seed)  # every row's copies cached here, before the workers read them
    arms = ARMS[args.round]
    log(f"{len(arms) * len(folds)} fits in {args.jobs} processes")
    done = Parallel(n_jobs=args.jobs, verbose=10)(delayed(task)(arm, name, tr) for name, tr, _ in folds for arm in arms)
    models = {(arm, name): m for arm, name, m in done}
    variants = (*arms, *MIXES) if args.round == 2 else arms

    def proba(v: str, name: str, X: np.ndarray) -> np.ndarray:
        if v in MIXES:
            return mixed_proba(models[MIXES[v][0], name], models[MIXES[v][1], name], X)
        return models[v, name].predict_proba(X)

    check = feats.get("default", folds[0][2].row_idx.to_numpy()[:50], "raw")  # members add up to the fits
    for arm in arms:
        np.testing.assert_allclose(mixed_proba(models[arm, "cv0"], models[arm, "cv0"], check),
                                   models[arm, "cv0"].predict_proba(check), atol=1e-9)
    inner, logo, rows = score_folds(outer, feats, folds, n_inner, args.seed, variants, proba,
                                    lambda name: models["current", name])
    res = {"n_outer_train": len(outer), "n_added": len(add), "classes": [str(c) for c in models[arms[1], "cv0"].model.classes_],
           "inner": inner, "logo": logo, "decision": decide(inner, logo), "wall_seconds": time.perf_counter() - t0}
    write_round(args.out, args.round, res, rows, log)


if __name__ == "__main__":
    main()
