"""Trial (issue 17, session 51): read every list tight (the blank lines between its items dropped).

Why. Session 51 made ``whowrote predict`` read Word documents and added their round trip to the
edit suite (``docx_file``: a text pasted into Word as a rendered answer and read back). It costs the
bundled recipe 3.9 points [2.3, 5.8] on the topic hold-out's 1,602 val texts, all of it on chat
answers (0.636 -> 0.555), and the three assistants' answers on Arena-Hard half B 6.6 points 3-way. A
document cannot say whether a list was "loose" (blank lines between its items) or tight, so a loose
list reads back tight; removing only those blank lines (``whowrote.style.edits.tight_lists``) flips
14.7 % of the bundled model's verdicts on 600 corpus chat answers, and 82 % of the verdicts the Word
round trip flips are among them. The model leans on a layout habit that documents, pages and
editors do not keep.

Protocol, fixed before the first run (this docstring was committed before it): session 46's
``layout_answers.py`` protocol as ``drop_ends_copies.py`` runs it (``layout_answers.copy_trial``): the
five corpus genres plus the Arena-Hard answers the bundled recipe trains on (half A) added to every
fit; only the outer topic hold-out's train part (9,563 texts) is scored, in 5 topic-grouped folds
(raw and under every edit of the suite) and per corpus genre a fit without it (LOGO, 3-way on its
assistants' texts); its val, the reported T3, is never read. Arms, each fitted as
``robustness.fit_recipe`` fits it (uncalibrated, copies at ``AUG_WEIGHT``):

- ``current``: the bundled recipe;
- ``tight_lists``: the same recipe reading every text with its lists tight, in training (texts and
  their copies) and when scoring (``StyleModel(canonical_list_spacing=True)``; the recipe
  ``tight_lists`` of ``robustness.RECIPES``, whose features are its own).

Rule (``copy_types.aimed_rule("docx_file")``: the tree trials' (a)-(d), with (a) aimed at this edit):
recommended for a refit on another fold assignment, and only then for a retrain, if (a) the
``docx_file`` drop shrinks by >= 1 point or the LOGO 3-way mean rises by >= 1; (b) no other edit's
drop grows by more than 0.5; (c) raw in-genre 4-way falls by <= 0.5; (d) the LOGO 3-way mean falls
by <= 0.5 and no genre's by more than 2. Hypothesis: the loose-list habit is worth less than what its
loss under documents and pages costs; refuted if the reading fails (a) or (c).

Round 2, declared before round 1's results: both arms refitted on another assignment of the topics to
the 5 in-genre folds (seed 1, ``tree_settings.topic_folds``); run only if ``tight_lists`` passes
round 1, and it counts as robust only if it passes here too.

::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/list_spacing.py --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/list_spacing --round 1
    python benchmarks/trial_noise.py results/list_spacing/round1_rows.npz --out results/list_spacing/round1_noise.json
"""

from __future__ import annotations

from copy_types import aimed_rule
from layout_answers import copy_trial

ARMS = {"current": "default", "tight_lists": "tight_lists"}  # arm -> recipe (robustness.RECIPES)
FOLD_SEEDS = {1: None, 2: 1}  # round -> the in-genre folds' assignment (tree_settings.topic_folds)
decide = aimed_rule("docx_file")  # this trial's rule (see the module's docstring)


def main() -> None:
    copy_trial(__doc__, ARMS, FOLD_SEEDS, decide)


if __name__ == "__main__":
    main()
