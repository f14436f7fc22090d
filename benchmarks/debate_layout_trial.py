"""Trial (issue 17, session 58): the corpus's debates also trained with blank lines between paragraphs.

``benchmarks/external_persuasion.py`` found the corpus's own debate versions read at 3-way 0.76 in
another task of the same source, and at 0.94 once the texts' blank lines are made single line
breaks. The corpus's debates put every claim on a line of its own: that layout is the debate
benchmark's format (its transcripts number each line as a claim), shared by every debater, not a
model's habit, yet it is the only layout in which the model has seen Gemini 3.1, GPT-5.4 or Claude
Opus 4.6. ``paragraph_trial.py`` removed the cue from the reading of every text and lost on the
independent chat sets. This keeps the reading and adds, for the debate genre only, the same texts as
a writer would lay them out. Fixed and committed before the run:

- Fits: the bundled recipe (``robustness.fit_recipe``, uncalibrated) on the corpus's topic hold-out
  train part plus the bundled Arena-Hard answers (half A): ``bundled``; the same plus a second row
  for every training debate, its text with every run of line breaks one blank line
  (``edits.one_blank_line``), same label, genre and topic, with its own edited training copy like
  any row: ``debate_copies``. The recipe weighs a row by 1 / sqrt(genre texts x cell texts), so the
  debate genre's weight stays what it was, split between the two layouts. The bundled data's 146
  newer debate sides are in neither fit.
- Tests as in ``paragraph_trial.py``: P the persuasion chats (the set that motivated the trial, not
  independent), A Arena-Hard half B, M MT-Bench, T3 raw and under the edit suite, LOGO over the five
  genres (a fold without the debates has no copies either).
- ``--generation`` (after the decision, the checklist's): leave-one-generation-out of the corpus
  alone (as ``story_training.py --generation``), each direction without and with the blank-line rows
  of its own training debates.
- Rule: the copies join the bundled recipe only if (a) P's 4-way accuracy gains >= 5 points with the
  interval above 0; (b) A's 4-way accuracy falls by at most 0.5 points and M's by at most 1; (c) T3's
  4-way accuracy falls by at most 0.5; (d) the LOGO 3-way mean falls by at most 0.5; (e) T3's drops
  under all edits combined and under single newlines grow by at most 0.5 each.

::

    OMP_NUM_THREADS=2 python benchmarks/debate_layout_trial.py --arena /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --persuasion /tmp/persuasion/transcripts/v1_no_notes_15topics_panel15_8040 --mt-bench /tmp/mtbench/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/debate_layout_trial
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from debate_training import outside_held_genre
from external_training import logo_block
from paragraph_trial import run_tests, trial_args, trial_frames
from robustness import Features, fit_recipe, timed_log
from story_training import decide, generation_check, stacked, t3_drops

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style.train import with_blank_line_copies

ARMS = ("bundled", "debate_copies")


def blank_line_copies(corpus: pd.DataFrame) -> pd.DataFrame:
    """The blank-line rows ``train-probe`` adds to ``corpus`` (:func:`whowrote.style.train.with_blank_line_copies`,
    the debates), with ``copy_of``: the id of the row each copies."""
    rows = with_blank_line_copies(corpus, ("debate",))
    copies = rows[rows.layout_copy.to_numpy(bool)].drop(columns="layout_copy")
    return copies.assign(copy_of=corpus.id[corpus.genre == "debate"].to_numpy())


def layout_rule(results: dict) -> dict[str, bool]:
    t = results["tests"]

    def diff(test: str) -> float:  # 4-way, points
        return 100 * (t[test]["debate_copies"]["accuracy"] - t[test]["bundled"]["accuracy"])

    mean3 = {arm: float(np.mean([row[arm]["accuracy_3way"] for row in results["LOGO"].values()])) for arm in ARMS}
    grew = {e: results["T3 edits"]["debate_copies"][e]["diff"] - results["T3 edits"]["bundled"][e]["diff"]
            for e in ("combined", "single_newlines")}
    return {"(a) P 4-way +5, interval above 0": diff("P") >= 5 and t["P"]["diff_intervals"]["accuracy"][0] > 0,
            "(b) A at most -0.5, M at most -1": diff("A") >= -0.5 and diff("M") >= -1,
            "(c) T3 at most -0.5": diff("T3") >= -0.5,
            "(d) LOGO 3-way mean at most -0.5": 100 * (mean3["debate_copies"] - mean3["bundled"]) >= -0.5,
            "(e) combined and single-newline drops at most +0.5": max(grew.values()) <= 0.5}


def main() -> None:
    args = trial_args(__doc__.splitlines()[0], "/tmp/whowrote-debate-layout", generation=True)
    log = timed_log()
    frames = trial_frames(args)
    copies = blank_line_copies(frames[0])
    table, (corpus_rows, arena_train, arena_b, p_rows, m_rows, copy_rows) = stacked([*frames, copies])
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=args.seed, balance=False)

    def copies_of(rows: pd.DataFrame) -> pd.DataFrame:  # the blank-line rows of these training rows' debates
        return copy_rows[copy_rows.copy_of.isin(set(rows.id))]

    added = copies_of(split["train"])
    if args.generation:
        out = generation_check(feats, corpus_rows, copies_of, args.seed, log, "debate_copies")
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "generation.json", json.dumps(out, indent=1) + "\n")
        return
    log(f"corpus {len(corpus_rows):,}, arena half A trained {len(arena_train):,}, half B {len(arena_b):,}, "
        f"persuasion {len(p_rows):,}, MT-Bench {len(m_rows):,}; debate copies {len(copy_rows):,} "
        f"({len(added):,} of T3's train part; {int((copy_rows.text != corpus_rows.text[corpus_rows.genre == 'debate'].to_numpy()).sum()):,} "
        f"differ from their text)")
    pair = {"bundled": arena_train, "debate_copies": pd.concat([arena_train, added])}
    fits = {arm: fit_recipe(feats, "default", pd.concat([split["train"], extra]), args.seed) for arm, extra in pair.items()}
    tests = {"P": (p_rows, p_rows.topic), "A": (arena_b, arena_b.question), "M": (m_rows, m_rows.topic),
             "T3": (split["val"], topic_keys(split["val"]))}
    results: dict = {"n_added": len(added), "tests": run_tests(feats, fits, tests, {}, log)}
    results["T3 edits"] = t3_drops(feats, fits, split["val"], args.seed, log)
    genres = set(corpus_rows.genre)

    def with_copies(train: pd.DataFrame, add: pd.DataFrame):
        return fit_recipe(feats, "default", pd.concat([train, outside_held_genre(add, train, genres)]), args.seed)

    results["LOGO"] = logo_block(feats, corpus_rows, {"bundled": arena_train,
                                                      "debate_copies": pd.concat([arena_train, copy_rows])},
                                 args.seed, log, fit={"debate_copies": with_copies})
    decide(results, layout_rule(results), args.out, log)


if __name__ == "__main__":
    main()
