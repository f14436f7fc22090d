"""Tree settings (issue 17): feature subsampling (round 1), larger leaves (round 2), those leaves for long texts (round 3; round 4 on a fresh inner split, round 5 on topic folds), a blend (rounds 6-12), smaller trees (round 13), larger ones (round 14), the blend distilled (rounds 15-16), an additive second member (round 17), stronger L2 on the leaf values (rounds 19-20).

The bundled model's boosted trees carry 85 % of the vote, and every split may pick any of the
features. A tree that leans on one genre-specific cue (a Markdown habit of one genre's assistants)
or on a cue an edit erases loses when that cue moves. Drawing a random share of the features at
each split (scikit-learn's ``HistGradientBoostingClassifier(max_features=...)``) makes the trees
spread the same signal over more cues, which is often said to make boosted models less brittle. This
trial asks whether it helps here, across genres and under the edits.

Round 1, declared before its run: ``mf0.5`` and ``mf0.25`` (the share of features drawn at
each split), against ``current`` (the bundled recipe, ``max_features`` 1.0, exactly as
``copy_types.py`` fits it: the current edited copy of each text at 0.5, seed 0). The logistic
member, the weights and everything else stay the same. Same inner split and feature cache as
``plain_route.py`` (``topic_holdout_split(outer train, seed=100)``), raw and under every edit of
``edits(seed)``, and leave-one-genre-out on the outer train part (3-way, 4-way, OTHER AUROC). The
reported test texts are never scored.

Round 2, declared after round 1 and before its own run. Round 1 made the trees worse across genres
by letting them use more cues; the opposite push is tried next: every leaf must hold at least
``min_samples_leaf`` training rows (scikit-learn's default is 20; the outer train part has about
19,000 rows with the copies, 157 of them blog texts, 181 in the corpus), so a leaf cannot isolate a small cluster of one
genre's texts. Variants ``leaf100``, ``leaf400``, ``leaf1000``, against ``current``, refitted.

Round 3, declared after round 2 and before its own run. ``leaf1000`` gained across genres and lost
on cut texts, so it is read only where it helped: ``route300`` reads a text of more than 300 words
(whitespace-split, the text as given) with ``leaf1000`` and a shorter one with ``current``. The
300 is fixed a priori as the suite's own short-text edit (so a text cut to its first 300 words,
and nearly every text cut to 800 characters, is read by ``current``), not tuned. Both members and the route are scored and judged
by the rule; the route is the new candidate (``leaf1000`` repeats round 2). Shipping it would mean
two tree ensembles in the model file.

Round 4, declared after round 3 and before its own run, after ``trial_noise.py`` put 95 % topic-
bootstrap intervals on round 3's differences: the rule's edit guards (0.5 points) are finer than
the inner split can measure (an edit's drop difference has a bootstrap sd of 0.5-0.85 points), and
route300 failed only on two such guards (strip Markdown +0.61 [-0.57, +1.56], all combined +1.23
[-0.08, +2.32]) while its LOGO gain holds (+2.05 [+0.60, +3.46]). Every trial so far used one inner
split (seed 100); round 4 replicates round 3 on a fresh one (``--inner-seed 200``, never used
before), the same variants, the same rule, unchanged. LOGO does not depend on the inner split (it
repeats round 3's numbers). Read: passing here while failing on seed 100 means the guards cannot
decide route300 at this resolution; it is not adopted on one passing split (that would pick the
better of two looks), and the next step would be a rule stated on intervals, declared first.

Round 5, declared after round 4 (route300 passed there) and before its own run: the decider for
route300. Two single-split looks disagree (seed 100 fails, seed 200 passes), so the inner numbers are
taken from all of the outer train part instead: 5 topic-grouped folds (``GroupKFold`` over each
genre's topics, no shuffle), every text scored once under every edit by the fits on the other four
folds (~9,500 texts, about 6.5 times one inner val). Same variants, same rule, unchanged; LOGO as
before. Passing: route300 is recommended for a full retrain (a later session: two tree ensembles in
the model file and the whole suite re-measured). Failing: not adopted. It is the third look at one
candidate, and is reported as such.

Round 6, declared after round 5 and before its own run. ``leaf1000`` reads unseen genres better
(LOGO +2.1) and the training genres worse (raw -1.4 on round 5's folds), ``current`` the reverse.
``blend`` averages the two fits' probabilities for every text, weights 0.5 / 0.5 fixed a priori (not
tuned): an average of two members often keeps most of each one's strength. Round 5's protocol (5
topic folds, LOGO), same rule. Shipping it would mean two tree ensembles in the model file, so if it
passes, predict's speed must be measured against issue 11's targets before a retrain.

Round 7, declared after round 6 (``blend`` passed) and before its own run. A product model cannot
ship round 6's average of probabilities and keep exact tells: the trees' path credits add up to
their class scores, not to a softmax average. ``blend_logit`` averages the two ensembles' class
scores (0.5 / 0.5) before the softmax instead, one tree member with exact credits (``logit_blend``);
``blend`` repeats round 6 as a check. Round 5's folds, same rule. ``blend_logit`` passing is what a
retrain would ship.

Round 8, declared after round 7 and before its own run. ``blend_logit`` passed the rule, but its
second ensemble costs predict more than the bundled one's whole tree walk (``tree_cost.py``: 145
against 121 us per chat answer), which issue 11's chat target (>= 2x, met by 1-2 %) cannot absorb.
``blend_logit_150`` keeps the tree count: ``current150`` and ``leaf1000_150`` (150 boosting rounds
each instead of 300, nothing else changed) averaged in tree-score space, 0.5 / 0.5. Round 5's folds,
same rule. Its walk must also cost no more than ``current``'s by 5 % (``tree_cost.py``), checked
after the run.

Round 9, declared after round 8 and before its own run. A review found that refitting moves a
difference by about a point on the same texts (round 5's fold fits scored round 3's texts at
-0.48 raw for ``route300``, its own fit +0.48), more than the bootstrap intervals say. Round 7's
``blend_logit`` is refitted on another assignment of the topics to 5 folds (dealt in a random order,
seed 1), same rule. It counts as robust only if it passes here too; if it fails, it is not
recommended even as a product trade.

Round 10, declared after round 9 and before its own run. ``blend_logit`` passed twice but its second
walk would break issue 11's chat target, and halving both ensembles (round 8) lost 0.6 raw points.
``blend_logit_225_75`` keeps the bundled tree count with most rounds in the bundled setting:
``current225`` (225 boosting rounds) and ``leaf1000_75`` (``min_samples_leaf=1000``, 75 rounds),
class scores averaged 0.5 / 0.5 as in rounds 7-9. Round 5's folds, same rule. After the run its cost
is checked with ``tree_cost.py --round 10``: the blend's (row, tree) walk steps per chat answer
(counted, so not noisy) must be within 5 % of ``current``'s; the timings are reported, not judged.
If it passes both, it is the candidate for a retrain; otherwise it is not adopted. Its two parts
are fitted for it and reported; they are not candidates.

Round 11, declared after round 10 and before its own run. Round 10's blend gained 3.6 LOGO points
but lost 0.56 raw, as every blend with fewer than 300 bundled rounds has; round 7's kept all 300
and lost nothing raw but doubled the trees. ``blend_logit_300_75`` keeps the 300 bundled rounds and
adds ``leaf1000_75`` (75 rounds of ``min_samples_leaf=1000``), class scores averaged 0.5 / 0.5;
round 5's folds, same rule. Round 10 showed that counted walk steps do not track the walk's time
(+20 % steps, the same time), so its cost check is the time: ``tree_cost.py --round 11``'s median
per-repeat ratio of the one-walk blend's CPU time to ``current``'s, reported against issue 11's
margin (its chat target is met by 1-2 %, so a ratio above 1.05 would need that target traded); the
accuracy rule alone decides "passes", the cost decides whether it can ship without that trade.

Round 12, declared after round 11 (``blend_logit_300_75`` passed the rule; its one-walk tree step
took 1.32x ``current``'s time) and before its own run: round 11 refitted on round 9's other
assignment of the topics to 5 folds (seed 1), same rule. As for round 7, the blend counts as robust
only if it passes here too.

Round 13, declared after round 12 and before its own run (session 30). Every round so far made
the trees' leaves larger or their inputs fewer; none made each tree smaller. Trees of fewer leaves
hold fewer feature interactions each (a 15-leaf tree can encode a cue that matters only inside one
genre's cluster of habits; a 7-leaf one has less room for that), which is often said to help a
boosted model carry over to shifted data, and a shallower tree is also a shorter walk at predict
time. ``leaves7``: ``tree_leaves`` 7 (``max_leaf_nodes``) with the bundled 300 rounds;
``leaves7_450``: the same with 450 rounds (about the bundled walk's length, since a 7-leaf tree is
about two levels shallower). Round 5's folds, same rule. Passing variants are then timed with
``tree_cost.py``-style per-repeat ratios before any retrain; failing: not adopted.

Round 14, declared after round 13 (7-leaf trees lost 1.9-2.7 LOGO points, debate 7-9, and about a
raw point) and before its own run (session 30): if fewer interactions per tree read unseen genres
worse, more may read them better. ``leaves31``: ``tree_leaves`` 31 with the bundled 300 rounds;
``leaves31_240``: 240 rounds, about the bundled walk's length if a 31-leaf tree is one level deeper
(about 5 levels against 4). The recipe's choice of 15 leaves was made on in-genre accuracy only
(31 leaves "no better than more rounds"); LOGO was not measured then. Round 5's folds, same rule;
a passing variant is timed before any retrain.

Rounds 15 and 16, declared in session 33 before their runs. Rounds 7 and 9 passed the rule with
the blend (``blend_logit``), held back only by predict's speed; session 33's faster tree step
still left it at 1.74-1.77x ``c64209e`` on chat answers (issue 11: >= 2x). ``blend300``: the blend
as ``StyleModel(blend_iter=300)`` fits it (round 7's ``blend_logit``, in one model); ``distilled``:
a student of the bundled size (300 rounds of 15-leaf trees per class, 1,200 trees, the bundled
predict cost) fitted per fold to ``blend300``'s tree scores on the same rows and copies with the
same weights, one ``HistGradientBoostingRegressor`` per class (``distill_trees.py``). Round 15 on
round 5's folds, round 16 on round 9's (seed 1); same rule. ``distilled`` counts as robust only if
it passes on both; then, and only then, it is a candidate for a train-probe option and a full check
with speed. Hypothesis: the student learns the blend's smoother function and keeps most of its
LOGO gain; refuted if it fails (a) or (d). Result: ``distilled`` failed round 15 on (b), (c) and
(d) (raw -1.04, fiction LOGO -2.9; LOGO mean +2.6 against the blend's +4.4), so round 16 was not
run (docs/predict.md, "A faster tree step").

Round 17, declared in session 45 before its run. The blend passes the accuracy rule twice and is
held back only by the time its second ensemble costs predict. An **additive** second ensemble
(scikit-learn's ``interaction_cst="no_interactions"``: every tree splits on one feature, so the
member is a sum of one step function per feature) would cost far less: its class scores are one
threshold lookup per feature, and its path credits are its own terms. It also cannot learn a cue
that matters only inside one genre's cluster of other habits, the interactions a tree uses to pick
up genre-specific thresholds. Hypothesis: averaged into the bundled trees' class scores it keeps
part of the blend's LOGO gain (rounds 7 and 9: +2.5 to +4.4). Variants: ``gam`` (the bundled 300
rounds of 15-leaf trees, no interactions; reported, not a candidate on its own unless it passes),
and ``blend_logit_gam`` (``current`` and ``gam`` class scores averaged 0.5 / 0.5, as round 7's
``blend_logit``; weights fixed a priori). Round 5's folds, same rule. Passing: round 18 refits it on
round 9's fold assignment (seed 1), and only if it passes there too is an additive evaluator built and
timed against issue 11's targets. Failing (a), (c) or (d): not adopted. Round 13 (7-leaf trees:
fewer interactions per tree, LOGO -1.9 to -2.7) is evidence against; it is run because the speed
argument makes it the one blend the product could ship.

Rounds 19 and 20, declared in session 46 before their runs. Leaves of at least 1,000 rows read
unseen genres better (round 5: LOGO +2.1, a leaf cannot isolate a small cluster of one genre's
texts) but grow the first-800-characters drop by ~3 points (a cut text needs the finer leaves).
That is a hard floor on every leaf; an L2 penalty on the leaf values (scikit-learn's
``l2_regularization``, 1.0 in the bundled recipe, a leaf's value ``-G / (H + l2)``) is the soft
version: a leaf holding little hessian mass (few rows, or rows already fitted) is shrunk toward 0,
while a split into small leaves still counts where its gradient is large, and the walk costs predict
nothing more (same trees, same count). With mean sample weight 1 and the multinomial hessian
``p (1 - p)`` per row, a 20-row leaf holds ``H`` ~1-4, a 1,000-row leaf ~50-190. Variants fixed a
priori, a decade apart: ``l2_10`` (``l2_regularization`` 10) and ``l2_100`` (100); everything
else as ``current``. Round 19 on round 5's folds, same rule. Hypothesis: a variant keeps part of the
large leaves' LOGO gain without their first-800 cost; refuted if both fail (a) or (d). ``l2_100``
may also slow the fit enough to lose raw accuracy (c), as halving the rounds did (round 8). A passing
variant is refitted on round 9's fold assignment (round 20, seed 1) and counts as robust only if it
passes there too; then, and only then, it is a candidate for the bundled recipe (a retrain and the
whole suite). (Round 18, round 17's refit, was conditional on round 17 passing and was not run.)
Result (session 46): both fail; the LOGO mean is level (-0.16, -0.22) while blog falls 9-10 points
and debate rises 4-6; ``l2_100`` also loses 0.64 raw. Round 20 was not run (docs/predict-trials.md).

Decision rule (all rounds), written here before the first run. A variant is adopted (recommended for a full
retrain) only if, against ``current``:
  (a) the LOGO 3-way mean rises by >= 1 point, or the worst edit drop (raw minus edit, inner
      4-way) shrinks by >= 1 point;
  (b) no edit's drop grows by more than 0.5 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) the LOGO 3-way mean falls by <= 0.5 points and no genre's by more than 2 points.
Several passing: the highest LOGO 3-way mean.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 1 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 2 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 3 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 4 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 5 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 6 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 7 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 8 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 9 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 10 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 11 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 12 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 13 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 14 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 15 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 16 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 17 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/tree_settings.py --round 19 --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/tree_settings
    python benchmarks/windows.py --table results/tree_settings/round3.json   # a round's tables, every edit a column
    python benchmarks/trial_noise.py results/tree_settings/round3_rows.npz --out results/tree_settings/round3_noise.json
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from copy_types import GAIN, guard_checks, logo_means, logo_scores, verdicts
from distill_trees import distilled
from joblib import Parallel, delayed
from length_route import words
from plain_route import SLACK, Inner, blended_proba, edit_scores, inner_setup, scores
from robustness import corpus_args, timed_log
from sklearn.model_selection import GroupKFold
from windows import table

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_keys
from whowrote.style import StyleModel
from whowrote.style.calibration import softmax
from whowrote.style.edits import edits
from whowrote.style.heldout import three_way
from whowrote.style.trees import TreeEnsemble, log_transform

ROUNDS: dict[int, dict[str, dict[str, float | str]]] = {  # variant -> HistGradientBoostingClassifier settings
    1: {"current": {}, "mf0.5": {"max_features": 0.5}, "mf0.25": {"max_features": 0.25}},
    2: {"current": {}, "leaf100": {"min_samples_leaf": 100}, "leaf400": {"min_samples_leaf": 400},
        "leaf1000": {"min_samples_leaf": 1000}},
    3: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},
    4: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},  # round 3 on a fresh inner split
    5: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},  # round 3 on 5 topic folds of the outer train
    6: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},  # their blend, on round 5's folds
    7: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},  # the blend in tree-score space, same folds
    8: {"current": {}, "current150": {"tree_iter": 150},  # the blend at half the rounds each, same folds
        "leaf1000_150": {"min_samples_leaf": 1000, "tree_iter": 150}},
    9: {"current": {}, "leaf1000": {"min_samples_leaf": 1000}},  # round 7 refitted on another fold assignment
    10: {"current": {}, "current225": {"tree_iter": 225},  # the blend at the bundled tree count, 225 + 75
         "leaf1000_75": {"min_samples_leaf": 1000, "tree_iter": 75}},
    11: {"current": {}, "leaf1000_75": {"min_samples_leaf": 1000, "tree_iter": 75}},  # all 300 bundled + 75
    12: {"current": {}, "leaf1000_75": {"min_samples_leaf": 1000, "tree_iter": 75}},  # round 11, other folds
    13: {"current": {}, "leaves7": {"tree_leaves": 7}, "leaves7_450": {"tree_leaves": 7, "tree_iter": 450}},
    14: {"current": {}, "leaves31": {"tree_leaves": 31}, "leaves31_240": {"tree_leaves": 31, "tree_iter": 240}},
    # session 33: the blend as StyleModel fits it (--blend-iter 300: round 7's blend_logit), and its
    # student of the bundled size (DISTILLED); round 15 on round 5's folds, round 16 on round 9's
    15: {"current": {}, "blend300": {"blend_iter": 300}},
    16: {"current": {}, "blend300": {"blend_iter": 300}},
    # session 45: an additive ensemble (every tree on one feature), alone and averaged into current's scores
    17: {"current": {}, "gam": {"interaction_cst": "no_interactions"}},
    18: {"current": {}, "gam": {"interaction_cst": "no_interactions"}},  # round 17 on round 9's folds
    # session 46: stronger L2 on the leaf values (the bundled recipe's l2_regularization is 1.0)
    19: {"current": {}, "l2_10": {"l2_regularization": 10.0}, "l2_100": {"l2_regularization": 100.0}},
    20: {"current": {}, "l2_10": {"l2_regularization": 10.0}, "l2_100": {"l2_regularization": 100.0}},  # 19, round 9's folds
}
MODEL_SETTINGS = {"tree_iter", "tree_leaves", "blend_iter"}  # StyleModel's own settings; the rest are HistGradientBoostingClassifier's
DISTILLED = {15: ("distilled", "blend300"), 16: ("distilled", "blend300")}  # round -> (student, its teacher variant)
ROUTES = {r: ("route300", "leaf1000", 300) for r in (3, 4, 5)}
BLENDS = {  # round -> blends as (name, variant, its weight against the base's 1 - weight, space, base)
    6: [("blend", "leaf1000", 0.5, "proba", "current")],
    7: [("blend", "leaf1000", 0.5, "proba", "current"), ("blend_logit", "leaf1000", 0.5, "logit", "current")],
    8: [("blend_logit_150", "leaf1000_150", 0.5, "logit", "current150")],
    9: [("blend_logit", "leaf1000", 0.5, "logit", "current")],
    10: [("blend_logit_225_75", "leaf1000_75", 0.5, "logit", "current225")],
    11: [("blend_logit_300_75", "leaf1000_75", 0.5, "logit", "current")],
    12: [("blend_logit_300_75", "leaf1000_75", 0.5, "logit", "current")],
    17: [("blend_logit_gam", "gam", 0.5, "logit", "current")],
    18: [("blend_logit_gam", "gam", 0.5, "logit", "current")],
}
# round -> (k, seed): k topic-grouped folds of the outer train part in place of the one inner split;
# seed None: GroupKFold's assignment (rounds 5-8), else the topics dealt to folds in a seeded random order
CV_FOLDS: dict[int, tuple[int, int | None]] = {5: (5, None), 6: (5, None), 7: (5, None), 8: (5, None), 9: (5, 1),
                                               10: (5, None), 11: (5, None), 12: (5, 1), 13: (5, None),
                                               14: (5, None), 15: (5, None), 16: (5, 1),
                                               17: (5, None), 18: (5, 1), 19: (5, None), 20: (5, 1)}
INNER_SEEDS = {4: 200}  # round -> its inner split's seed (others: 100 + --seed, every earlier trial's)


def split_settings(settings: dict[str, float | str]) -> tuple[dict[str, float | str], dict[str, float | str]]:
    """A variant's settings as (HistGradientBoostingClassifier's, StyleModel's own)."""
    return ({k: x for k, x in settings.items() if k not in MODEL_SETTINGS},
            {k: x for k, x in settings.items() if k in MODEL_SETTINGS})


def with_tree_settings(fit: Callable[..., StyleModel], **settings: float | str) -> Callable[..., StyleModel]:
    """``fit`` with the trees built with ``settings`` (keywords of ``HistGradientBoostingClassifier``;
    they replace the style model's own value where it passes one, as for ``l2_regularization``). The
    style model imports the classifier from ``sklearn.ensemble`` when it fits, so the module's name is
    bound to a maker of the classifier with those settings for the duration of the fit (in this
    worker process)."""
    import sklearn.ensemble as ens

    @functools.wraps(fit)
    def run(*a, **kw) -> StyleModel:
        original = ens.HistGradientBoostingClassifier

        def configured(*args, **given):  # settings win over the style model's own keywords
            return original(*args, **{**given, **settings})
        ens.HistGradientBoostingClassifier = configured
        try:
            return fit(*a, **kw)
        finally:
            ens.HistGradientBoostingClassifier = original
    return run


def long_rows(texts: list[str], seed: int, above: int) -> dict[str, np.ndarray]:
    """Per edit of the suite, which of ``texts`` have more than ``above`` words once edited."""
    return {e: words([fn(t) for t in texts]) > above for e, fn in edits(seed).items()}


Fold = tuple[str, np.ndarray, pd.DataFrame, np.ndarray, np.ndarray | None]  # name, fit rows, their frame, scored, gold


def inner_folds(inn: Inner, cv: tuple[int, int | None] | None,
                log: Callable[[str], None]) -> tuple[pd.DataFrame, dict[str, np.ndarray], list[Fold]]:
    """The texts the inner protocol scores, their features under every edit, and its folds as
    ``(name, outer rows to fit on, frame of those rows, positions scored, None)``.

    Without ``cv``: the one inner split (its val scored, fitted on its train). With ``cv = (k,
    seed)``: the outer train part in ``k`` topic-grouped folds (a topic is one genre's topic), every
    text scored once by the fit on the other folds, so the inner numbers rest on all ~9,500 texts, not
    ~1,500; ``seed`` None uses ``GroupKFold``'s size-balanced assignment, a seed deals the topics to
    the folds in a random order (another assignment, for a refit check)."""
    if not cv:
        pos = np.arange(len(inn.val))
        return inn.val, inn.edited, [("inner", inn.train["row"].to_numpy(), inn.train, pos, None)]
    outer = inn.outer
    texts = outer["text"].tolist()
    edited = {e: inn.cache.get(f"val-{e}", texts, lambda t, fn=fn: inn.feat([fn(x) for x in t]))
              for e, fn in edits(inn.seed).items()}
    k, seed = cv
    splits = topic_folds(topic_keys(outer).to_numpy(), k, seed)
    folds = []
    for i, (fit_rows, test) in enumerate(splits):
        folds.append((f"cv{i}", outer["row"].to_numpy()[fit_rows], outer.iloc[fit_rows], test, None))
    log(f"{k} topic-grouped folds (seed {seed}) of the outer train part: {len(outer)} texts scored once each")
    return outer, edited, folds


def topic_folds(groups: np.ndarray, k: int, seed: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``k`` (fit, scored) position pairs, whole topics (``groups``) on one side: ``GroupKFold``'s
    size-balanced assignment for ``seed`` None, else the topics dealt to the folds in a seeded random
    order (another assignment, for a refit check)."""
    if seed is None:
        return list(GroupKFold(n_splits=k).split(groups, groups=groups))
    uniq = np.random.default_rng(seed).permutation(np.unique(groups))
    fold_of = dict(zip(uniq, np.arange(len(uniq)) % k, strict=True))
    fold = np.array([fold_of[g] for g in groups])
    return [(np.flatnonzero(fold != i), np.flatnonzero(fold == i)) for i in range(k)]


def logit_blend(other: StyleModel, base: StyleModel, X: np.ndarray, w: float) -> np.ndarray:
    """``base``'s probabilities (uncalibrated, as every trial fits) with its trees' class scores
    replaced by ``w`` x ``other``'s + (1 - w) x its own, before the softmax: one tree member whose
    path credits still add up to its scores (what the tells need), unlike an average of probabilities;
    the trees are walked as the one ensemble a shipped blend would hold (``TreeEnsemble.weighted_sum``)."""
    if list(other.classes_) != list(base.classes_):
        raise ValueError("the two models must share their classes")
    if other.trees_ is None or base.trees_ is None or getattr(base, "temperature_slope_", 0.0) \
            or getattr(base, "temperature_", 1.0) != 1.0:
        raise ValueError("logit_blend needs two uncalibrated models with trees")
    Z = log_transform(X)
    p_lr = softmax(base._z(X) @ base.coef_.T + base.intercept_)
    raw = TreeEnsemble.weighted_sum([(other.trees_, w), (base.trees_, 1.0 - w)]).raw_predict(Z)
    return (1.0 - base.tree_weight) * p_lr + base.tree_weight * softmax(raw)


def save_rows(path: Path, rows: dict[str, np.ndarray]) -> None:
    """The per-text arrays, written through a temporary name (never half a file); no pickles."""
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez_compressed(tmp, **rows)
    tmp.replace(path)


def write_round(out: Path, round_: int, res: dict, rows: dict[str, np.ndarray], log: Callable[[str], None]) -> None:
    """A round's results (``round{N}.json``) and per-text rows (``round{N}_rows.npz``, for
    ``trial_noise.py``) under ``out``, then its tables and decision in the log."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"round{round_}.json"
    atomic_write(path, json.dumps(res, indent=1) + "\n")
    save_rows(out / f"round{round_}_rows.npz", rows)
    log("\n" + table(path))
    log(f"decision: {res['decision']}")


def decide(inner: dict, logo: dict) -> dict:
    """Per variant, the rule's checks against ``current``, and the pick (or None)."""
    base, mean = inner["current"], logo["mean"]
    checks = {v: {"logo_up_1pt_or_worst_drop_down_1pt":
                  mean[v]["accuracy_3way"] >= mean["current"]["accuracy_3way"] + GAIN
                  or inner[v]["worst_drop"] <= base["worst_drop"] - GAIN,
                  "no_drop_up_0.5pt": all(d <= base["drops"][e] + SLACK for e, d in inner[v]["drops"].items()),
                  **guard_checks(inner, logo, v)}
              for v in inner if v != "current"}
    return verdicts(checks, lambda vs: max(vs, key=lambda v: mean[v]["accuracy_3way"]))


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--round", type=int, choices=sorted(ROUNDS), required=True)
    ap.add_argument("--jobs", type=int, default=2, help="fits run in this many processes (one thread each)")
    ap.add_argument("--inner-seed", type=int, help="the inner split's seed (default: the round's, else 100 + --seed)")
    args = ap.parse_args()
    variants = ROUNDS[args.round]
    if args.inner_seed is not None and args.round in CV_FOLDS:
        ap.error(f"round {args.round} scores topic folds of the outer train part, not an inner split: no --inner-seed")
    if args.inner_seed is None and args.round not in CV_FOLDS:
        args.inner_seed = INNER_SEEDS.get(args.round, 100 + args.seed)
    t0 = time.perf_counter()
    log = timed_log()
    inn = inner_setup(args, log)  # plain_route's cache: its runs' features are reused
    outer, X, Xa = inn.outer, inn.X, inn.Xa
    evalset, edited, folds = inner_folds(inn, CV_FOLDS.get(args.round), log)
    yv = evalset["provider"].to_numpy(object)
    n_inner = len(folds)
    for genre, gtr, gte in leave_one_genre_out(outer):
        folds.append((str(genre), gtr["row"].to_numpy(), gtr, gte["row"].to_numpy(), gte["provider"].to_numpy(object)))

    def task(v: str, name: str, rows: np.ndarray, frame: pd.DataFrame) -> tuple[str, str, StyleModel, float]:
        t = time.perf_counter()
        trees, own = split_settings(variants[v])
        return v, name, with_tree_settings(inn.fit, **trees)(X[rows], Xa[rows], frame, **own), time.perf_counter() - t

    log(f"{len(variants) * len(folds)} fits in {args.jobs} processes")
    done = Parallel(n_jobs=args.jobs, verbose=10)(delayed(task)(v, name, rows, frame)
                                                   for name, rows, frame, _, _ in folds for v in variants)
    models = {(v, name): m for v, name, m, _ in done}
    if args.round in DISTILLED:  # the student of each fold's blend, on the rows the blend was fitted on
        student, teacher = DISTILLED[args.round]
        got = Parallel(n_jobs=args.jobs, verbose=10)(delayed(distilled)(models[teacher, name], X[rows], Xa[rows], frame)
                                                      for name, rows, frame, _, _ in folds)
        models.update({(student, f[0]): m for f, m in zip(folds, got, strict=True)})
        variants = {**variants, student: variants[teacher]}
    route = ROUTES.get(args.round)  # (its name, the long texts' variant, the word count above which it reads)
    blends = {b[0]: b for b in BLENDS.get(args.round, ())}  # name -> (name, variant, its weight, space, base)
    names = [*variants, *([route[0]] if route else []), *blends]

    def proba(v: str, name: str, Xt: np.ndarray, is_long: np.ndarray | None) -> np.ndarray:
        """Fold ``name``'s probabilities for variant ``v``; the route reads the ``is_long`` rows with
        its long texts' member."""
        if v in blends:
            _, other, w, space, base = blends[v]
            if space == "logit":
                return logit_blend(models[other, name], models[base, name], Xt, w)
            return blended_proba(models[other, name], models[base, name], Xt, np.full(len(Xt), w))
        if route is None or v != route[0]:
            return models[v, name].predict_proba(Xt)
        return blended_proba(models[route[1], name], models["current", name], Xt, is_long)

    long_inner = long_rows(evalset["text"].tolist(), args.seed, route[2]) if route else {}
    first = models["current", folds[0][0]]
    if any(list(m.classes_) != list(first.classes_) for m in models.values()):
        raise SystemExit("error: the fold models do not share their classes")
    # per text, for trial_noise.py's paired bootstrap: 4-way right/wrong on the inner val under every
    # edit, 3-way right/wrong on each LOGO genre's assistant texts, and every row's topic
    rows: dict[str, np.ndarray] = {"inner_topic": topic_keys(evalset).to_numpy(str)}
    inner = {}
    for v in names:
        ed = {}
        for e, Xe in edited.items():
            P = np.zeros((len(evalset), len(first.classes_)))
            for name, _, _, test, _ in folds[:n_inner]:  # each inner text is predicted by one fold's fit
                P[test] = proba(v, name, Xe[test], None if e not in long_inner else long_inner[e][test])
            ed[e] = scores(first, P, yv)
            rows[f"inner|{v}|{e}"] = first.classes_[P.argmax(axis=1)] == yv
        inner[v] = edit_scores(ed)
    logo: dict = {}
    for name, _, _, test, y in folds[n_inner:]:
        is_long = words(outer["text"].to_numpy()[test].tolist()) > route[2] if route else None
        three = y != "OTHER"
        rows[f"logo_topic|{name}"] = outer["topic"].to_numpy(str)[test][three]
        logo[name] = {}
        for v in names:
            P = proba(v, name, X[test], is_long)
            logo[name][v] = logo_scores(models["current", name], P, y)
            rows[f"logo|{name}|{v}"] = three_way(models["current", name], P)[three] == y[three]
    logo["mean"] = logo_means(logo, names)
    if route:
        log(f"{route[0]}: {long_inner['raw'].mean():.1%} of the inner val above {route[2]} words")
    fit_s = {v: float(np.mean([secs for vv, _, _, secs in done if vv == v])) for v in ROUNDS[args.round]}
    res = {"inner_seed": args.inner_seed,
           "inner_folds": n_inner, "n_train": int(np.mean([len(f[1]) for f in folds[:n_inner]])),
           "n_val": len(evalset), "inner": inner, "logo": logo, "fit_seconds": fit_s,
           "decision": decide(inner, logo), "wall_seconds": time.perf_counter() - t0}
    write_round(args.out, args.round, res, rows, log)


if __name__ == "__main__":
    main()
