"""Trial (issue 17, session 50): a training copy without the first and last paragraphs.

Why. Session 50 added ``drop_ends`` to the edit suite (``whowrote.style.edits.drop_ends``: a text of
three or more paragraphs without its first and last, as a user pastes an assistant's answer without
its "Sure! Here's ..." and "Let me know if ..." lines, or a post without title and sign-off). It costs
the bundled recipe 6.2 points [4.4, 8.4] on the topic hold-out's 1,602 val texts (chat 0.636 ->
0.538, longform 0.994 -> 0.940; ``results/robustness/topic_all_session50``) and 4.6 on MT-Bench's
answers (``whowrote score --edits drop_ends``). Opening and closing lines are where the assistants
greet, frame and offer more (a third of the corpus's Claude chat answers open "Sure", "Certainly",
"Here's"), so the recipe may lean on them; no training copy lacks them today (the truncated copy
keeps the opening).

Protocol, fixed before the first run (this docstring was committed before it): session 46's
``layout_answers.py`` protocol (``subclass_labels.answer_folds``, ``score_folds``): the five corpus
genres plus the Arena-Hard answers the bundled recipe trains on (half A) added to every fit; only
the outer topic hold-out's train part (9,563 texts) is scored, in 5 topic-grouped folds (raw and
under every edit of the suite, ``drop_ends`` included) and per corpus genre a fit without it (LOGO,
3-way on its assistants' texts); its val, the reported T3, is never read. Arms, each fitted as
``robustness.fit_recipe`` fits it (uncalibrated, copies at ``AUG_WEIGHT`` each):

- ``current``: the bundled recipe (one copy per text: its first 60-600 words, plain text, or all
  content-keeping edits combined);
- ``drop_ends_group``: one copy per text drawn from those three and the text without its first and
  last paragraphs (``COPY_EDITS["drop_ends"]``);
- ``drop_ends_extra``: the bundled copy and a second one, the text without its first and last
  paragraphs.

Rule (the tree trials' (a)-(d), ``tree_settings.decide``, with (a) aimed at this edit): a variant is
recommended for a refit on another fold assignment, and only then for a retrain, if (a) the
``drop_ends`` drop shrinks by >= 1 point or the LOGO 3-way mean rises by >= 1; (b) no other edit's
drop grows by more than 0.5; (c) raw in-genre 4-way falls by <= 0.5; (d) the LOGO 3-way mean falls
by <= 0.5 and no genre's by more than 2. Several passing: the smaller ``drop_ends`` drop. Hypothesis:
a copy without the opening and closing paragraphs makes the cut cost less without costing the
unedited text; refuted for a variant that fails (a), (c) or (d).

Round 2, declared before round 1's results: every arm refitted on another assignment of the topics to
the 5 in-genre folds (seed 1, ``tree_settings.topic_folds``); run only if a variant passes round 1,
which counts as robust only if it passes here too.

Result (round 1): neither passes. ``drop_ends_extra``: the ``drop_ends`` drop 6.5 -> 3.1, LOGO +1.4
(blog +7.0), raw -0.72 [-1.28, -0.12], the single-newlines drop +0.51 (fails (b), (c));
``drop_ends_group``: the drop 6.5 -> 4.6, raw level, the first-300-words drop +1.05, longform -2.6
(fails (b), (d)). Round 2 was not run (docs/predict-trials.md, "A training copy without the opening
and closing paragraphs").

::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/drop_ends_copies.py --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/drop_ends_copies --round 1
    python benchmarks/trial_noise.py results/drop_ends_copies/round1_rows.npz --out results/drop_ends_copies/round1_noise.json
"""

from __future__ import annotations

from copy_types import aimed_rule
from layout_answers import copy_trial

ARMS = {"current": "default", "drop_ends_group": "drop_ends_group", "drop_ends_extra": "drop_ends_extra"}  # arm -> recipe
FOLD_SEEDS = {1: None, 2: 1}  # round -> the in-genre folds' assignment (tree_settings.topic_folds)
decide = aimed_rule("drop_ends")  # this trial's rule (see the module's docstring)


def main() -> None:
    copy_trial(__doc__, ARMS, FOLD_SEEDS, decide)


if __name__ == "__main__":
    main()
