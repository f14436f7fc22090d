"""Trial (issue 17, session 46): session 32's single-line-break training copy, in today's recipe.

Why. Session 32's ``layout_extra`` (every bundled training copy kept, plus a second copy of every
text: the text itself with its paragraphs separated by single line breaks) read unseen genres 6.2
points better on inner splits (LOGO blog 0.586 -> 0.879) and made the ``single_newlines`` edit nearly
harmless, at -0.35 raw and +0.7 to +1.0 on the first-800-characters drop, so its rule rejected it
(docs/predict-trials.md, "Training copies with single line breaks"). It costs predict nothing (the
copies change the fit only). Since then the bundled recipe trains on Arena-Hard's 2023-24 answers
too (session 37), which cost LOGO blog 16.6 points; ``layout_extra`` was never measured with them.

Protocol, fixed before the first run (this docstring was committed before it): session 45's
``subclass_labels.py`` protocol (``answer_folds``, ``score_folds``): the five corpus genres plus
the Arena-Hard answers the bundled recipe trains on (half A, versions not held out) added to every
fit; only the outer topic hold-out's train part (9,563 texts) is scored, in 5 topic-grouped folds
(raw and under every edit of the suite) and per corpus genre a fit without it (LOGO, 3-way on its
assistants' texts); its val, the reported T3, is never read. Arms, each fitted as
``robustness.fit_recipe`` fits it (uncalibrated, copies at ``AUG_WEIGHT`` each):

- ``current``: the bundled recipe (one copy per text: its first 60-600 words, plain text, or all
  content-keeping edits combined);
- ``layout_extra``: that copy and a second one, the text with single line breaks (session 32's);
- ``layout_extra_chars``: both and a third, the text's first 300-3,000 characters
  (``COPY_EDITS["first_chars"]``), added for ``layout_extra``'s one failing guard, the
  first-800-characters drop (a character crop copy shrank it by 1.2 points in
  ``augmentation_mix`` round 1, on one inner split).

Rule: the tree trials' (a)-(d) (``tree_settings.decide``): a variant is recommended for a refit on
another fold assignment, and only then for a retrain, if (a) the LOGO 3-way mean rises by >= 1 point
or the worst edit drop shrinks by >= 1; (b) no edit's drop grows by more than 0.5; (c) raw in-genre
4-way falls by <= 0.5; (d) the LOGO 3-way mean falls by <= 0.5 and no genre's by more than 2.
Several passing: the highest LOGO 3-way mean. Hypothesis: with the answers in training, the
single-line-break copy still restores LOGO blog; refuted for a variant that fails (a) or (d).

Round 2, declared during round 1's run, before its results: every arm refitted on another assignment
of the topics to the 5 in-genre folds (dealt in a seeded random order, seed 1:
``tree_settings.topic_folds``, as tree_settings round 9); the LOGO fits do not depend on it and
repeat round 1's. A variant that passed round 1 counts as robust only if it passes here too; only
then is it a candidate for the bundled recipe (a retrain, calibrated, and the whole suite).
Round 2 is run only if a variant passes round 1.

Result (round 1): neither passes. ``layout_extra``: LOGO +2.0 (blog +5.7, debate +4.2), raw -0.61,
first-800 drop +1.35, first-300-words drop +0.84 (fails (b), (c)); ``layout_extra_chars``: LOGO +0.3,
first-800 drop -1.7, raw -0.77, longform -2.4 (fails (b), (c), (d)). Round 2 was not run
(docs/predict-trials.md, "Training copies with single line breaks").

::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/layout_answers.py --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/layout_answers --round 1
    python benchmarks/trial_noise.py results/layout_answers/round1_rows.npz --out results/layout_answers/round1_noise.json
"""

from __future__ import annotations

import time

import pandas as pd
from joblib import Parallel, delayed
from robustness import fit_recipe, timed_log
from subclass_labels import answer_args, answer_folds, score_folds
from tree_settings import decide, write_round

from whowrote.types import LABELS

ARMS = {"current": "default", "layout_extra": "layout_extra", "layout_extra_chars": "layout_extra_chars"}  # arm -> recipe
FOLD_SEEDS = {1: None, 2: 1}  # round -> the in-genre folds' assignment (tree_settings.topic_folds)


def copy_trial(doc: str, arms: dict[str, str], fold_seeds: dict[int, int | None], decide) -> None:
    """One round of a trial whose arms differ by their training copies (``arms``: arm -> recipe of
    ``robustness.COPY_GROUPS``), on this protocol; ``decide(inner, logo)`` is the trial's rule. Shared
    with ``drop_ends_copies.py``."""
    args = answer_args(doc, fold_seeds, 1, "1: GroupKFold's topic folds; 2: the topics dealt to the folds with seed 1")
    log, t0 = timed_log(), time.perf_counter()
    outer, add, feats, folds, n_inner = answer_folds(args, log, fold_seeds[args.round])
    for recipe in arms.values():  # every row's copies cached here, before the workers read them
        feats.get(recipe, outer.row_idx.to_numpy(), "train_copy", args.seed)

    def task(arm: str, name: str, train: pd.DataFrame):
        return arm, name, fit_recipe(feats, arms[arm], pd.concat([train, add]), args.seed)

    log(f"{len(arms) * len(folds)} fits in {args.jobs} processes")
    done = Parallel(n_jobs=args.jobs, verbose=10)(delayed(task)(arm, name, tr) for name, tr, _ in folds for arm in arms)
    models = {(arm, name): m for arm, name, m in done}
    if any(list(m.classes_) != list(LABELS) for m in models.values()):
        raise SystemExit("error: a fold model's classes are not the four labels in order")
    inner, logo, rows = score_folds(outer, feats, folds, n_inner, args.seed, arms,
                                    lambda v, name, X: models[v, name].predict_proba(X),
                                    lambda name: models["current", name], reading=arms)
    res = {"n_outer_train": len(outer), "n_added": len(add), "recipes": arms, "fold_seed": fold_seeds[args.round],
           "inner": inner, "logo": logo, "decision": decide(inner, logo), "wall_seconds": time.perf_counter() - t0}
    write_round(args.out, args.round, res, rows, log)


def main() -> None:
    copy_trial(__doc__, ARMS, FOLD_SEEDS, decide)


if __name__ == "__main__":
    main()
