"""Trial (issue 17, session 58): read every line break as a paragraph break, judged out of the corpus.

``benchmarks/external_persuasion.py`` found the bundled model reading the corpus's own debate
versions, in another task of the same author, at 4-way 0.573 / 3-way 0.759 (Gemini 3.1 at 0.39-0.46
3-way), and at 3-way 0.94 once the texts' blank lines are made single line breaks (the
``single_newlines`` edit, 300 texts): the corpus's debates separate paragraphs by one line break,
the persuasion chats by a blank line, and the model reads that layout as evidence. Session 31 tried
the reading that cannot see the difference (``StyleModel(canonical_paragraphs=True)``, recipe
``paragraphs``): inner leave-one-genre-out +6.6, ``single_newlines`` drop 6.85 -> 0, but raw
in-genre -1.1 and the two length crops +1.3 each, so its rule (in-genre first) kept it out. A corpus-
only fit here (before this protocol; topic hold-out train part) read persuasion at 4-way 0.590 ->
0.781 with it, and the topic hold-out at 0.785 -> 0.776. The brief puts texts unlike the training
data first; this trial asks whether that known in-genre cost buys reading out of the corpus, on
sets that did not motivate it. Fixed and committed before the run:

- Fits: the bundled recipe (``robustness.fit_recipe``, uncalibrated) with the default reading
  (``default``) and with every line break a paragraph break (``paragraphs``), each on the corpus's
  topic hold-out train part plus the bundled Arena-Hard answers (half A, ``runs/arena``). The
  bundled data's 146 newer debate sides are in neither (their transcripts were being recopied).
- Tests: P the persuasion chats (12,592; intervals resample propositions) — the set that motivated
  the trial, so not independent evidence; A Arena-Hard half B (every answer to a half-B prompt;
  prompts); M MT-Bench (2,560 answers; questions); T3 the corpus's topic hold-out val (topics), raw
  and under the edit suite; LOGO over the five genres (the Arena-Hard answers in every fold's
  training, as in ``debate_training.py``). 1,000 draws.
- Rule: ``paragraphs`` becomes the bundled reading only if (a) P's 4-way accuracy gains >= 5 points
  with the interval above 0; (b) A's 4-way accuracy falls by at most 0.5 points and M's by at most 1;
  (c) the LOGO 3-way mean gains >= 2 points; (d) T3's 4-way accuracy falls by at most 1.5 points (a
  bounded in-genre cost, accepted up front: session 31 measured -1.1); (e) T3's ``single_newlines``
  drop shrinks by >= 2 points and no other edit's drop grows by more than 1.5.

::

    OMP_NUM_THREADS=2 python benchmarks/paragraph_trial.py --arena /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --persuasion /tmp/persuasion/transcripts/v1_no_notes_15topics_panel15_8040 --mt-bench /tmp/mtbench/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/paragraph_trial
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from external_persuasion import read_persuasion
from external_training import arena_rows, logo_block, paired_test, trained_answers
from robustness import Features, corpus_args, fit_recipe, required_folders, timed_log
from story_training import decide, genre_accuracy, stacked, t3_drops, verdict_counts

from whowrote.data.corpus import load_corpus
from whowrote.data.splits import topic_holdout_split, topic_keys

ARMS = {"default": "default", "paragraphs": "paragraphs"}  # arm -> robustness.RECIPES name
KEYS = ("accuracy", "accuracy_3way", "mean_recall_3way")


def paragraph_rule(results: dict) -> dict[str, bool]:
    t = results["tests"]

    def diff(test: str) -> float:  # 4-way, points
        return 100 * (t[test]["paragraphs"]["accuracy"] - t[test]["default"]["accuracy"])

    mean3 = {arm: float(np.mean([row[arm]["accuracy_3way"] for row in results["LOGO"].values()])) for arm in ARMS}
    drops = {arm: {e: v["diff"] for e, v in results["T3 edits"][arm].items()} for arm in ARMS}
    grew = max(drops["paragraphs"][e] - drops["default"][e] for e in drops["default"] if e != "single_newlines")
    return {"(a) P 4-way +5, interval above 0": diff("P") >= 5 and t["P"]["diff_intervals"]["accuracy"][0] > 0,
            "(b) A at most -0.5, M at most -1": diff("A") >= -0.5 and diff("M") >= -1,
            "(c) LOGO 3-way mean +2": 100 * (mean3["paragraphs"] - mean3["default"]) >= 2,
            "(d) T3 at most -1.5": diff("T3") >= -1.5,
            "(e) single newlines -2, no other drop +1.5":
                drops["default"]["single_newlines"] - drops["paragraphs"]["single_newlines"] >= 2 and grew <= 1.5}


def trial_args(description: str, cache: str, generation: bool = False, folders: dict[str, str] | None = None,
               write_train: bool = False, figure_only: bool = False, arms: tuple[str, ...] = (),
               options: dict[str, dict] | None = None) -> argparse.Namespace:
    """The corpus arguments and the three out-of-corpus folders (and ``folders``: more, flag -> help), checked
    (``generation``: also the ``--generation`` flag; ``write_train``: also ``--write-train FILE``, which
    needs only ``--persuasion``; ``figure_only``: also ``--figure-only``, which needs no folder; ``arms``: also
    ``--arm``, one of them, the first by default; ``options``: more, flag -> ``add_argument``'s keywords)."""
    ap = corpus_args(argparse.ArgumentParser(description=description), cache)
    named = {"--arena": "Arena-Hard-Auto's model_answer folder", "--persuasion": "external_persuasion.py's transcripts",
             "--mt-bench": "MT-Bench's model_answer folder", **(folders or {})}
    for flag, help_text in named.items():
        ap.add_argument(flag, type=Path, required=not (write_train or figure_only) or flag == "--persuasion", help=help_text)
    if generation:
        ap.add_argument("--generation", action="store_true", help="only leave-one-generation-out without and with the trial's rows")
    if write_train:
        ap.add_argument("--write-train", type=Path, default=None, help="only write the trial's training rows here (a corpus file) and stop")
    for flag, keywords in (options or {}).items():
        ap.add_argument(flag, **keywords)
    if arms:
        ap.add_argument("--arm", choices=arms, default=arms[0], help="the trial's variant (see its docstring)")
    if figure_only:
        ap.add_argument("--figure-only", action="store_true", help="only draw the figure of --out's results.json and stop")
    args = ap.parse_args()
    if figure_only and args.figure_only:
        return args
    required_folders(ap, args, ["--persuasion"] if write_train and args.write_train else list(named))
    return args


def saved_results(out: Path, missing: str) -> dict:
    """``--figure-only``'s input, ``out/results.json``; where there is none, a one-line stop: ``missing``."""
    results_file = out / "results.json"
    if not results_file.is_file():
        raise SystemExit(f"error: {results_file}: {missing}")
    return json.loads(results_file.read_text(encoding="utf-8"))


def trial_frames(args: argparse.Namespace) -> list[pd.DataFrame]:
    """The corpus, the bundled Arena-Hard answers (half A), half B's answers, the persuasion texts and
    MT-Bench's answers, in that order (for :func:`story_training.stacked`)."""
    answers = arena_rows(args.arena)
    persuasion, _ = read_persuasion(args.persuasion)
    return [load_corpus([Path(p) for p in args.corpus]), trained_answers(answers),
            answers[~answers.half_a.to_numpy(bool)], persuasion.assign(genre="persuasion"), load_corpus([args.mt_bench])]


def run_tests(feats: Features, fits: dict, tests: dict, recipes: dict[str, str], log,
              per_version: tuple[str, ...] = ()) -> dict:
    """Each test (``name: (frame, units)``) read by both fits (:func:`external_training.paired_test`); T3 also per
    corpus genre (4-way: the in-genre targets), the tests named in ``per_version`` what each fit called each model's texts."""
    out = {}
    for name, (frame, units) in tests.items():
        row, P = paired_test(feats, fits, frame, units.to_numpy(), KEYS, recipes)
        classes = next(iter(fits.values())).classes_
        if name == "T3":
            row["per_genre"] = genre_accuracy(P, classes, frame)
        if name in per_version:
            row["per_version"] = verdict_counts(P, classes, frame.model.to_numpy(object))
        out[name] = row
        log(f"{name} (n {len(frame):,}): " + "; ".join(f"{arm} 4-way {row[arm]['accuracy']:.3f} 3-way "
                                                      f"{row[arm]['accuracy_3way']:.3f}" for arm in fits)
            + f"; diff intervals {row['diff_intervals']}")
    return out


def main() -> None:
    args = trial_args(__doc__.splitlines()[0], "/tmp/whowrote-paragraphs")
    log = timed_log()
    table, (corpus_rows, arena_train, arena_b, p_rows, m_rows) = stacked(trial_frames(args))
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=args.seed, balance=False)
    log(f"corpus {len(corpus_rows):,}, arena half A trained {len(arena_train):,}, half B {len(arena_b):,}, "
        f"persuasion {len(p_rows):,}, MT-Bench {len(m_rows):,}")
    fits = {arm: fit_recipe(feats, recipe, pd.concat([split["train"], arena_train]), args.seed)
            for arm, recipe in ARMS.items()}
    tests = {"P": (p_rows, p_rows.topic), "A": (arena_b, arena_b.question), "M": (m_rows, m_rows.topic),
             "T3": (split["val"], topic_keys(split["val"]))}
    results: dict = {"n_train": len(split["train"]) + len(arena_train), "tests": run_tests(feats, fits, tests, ARMS, log)}
    results["T3 edits"] = t3_drops(feats, fits, split["val"], args.seed, log, ARMS)
    results["LOGO"] = logo_block(feats, corpus_rows, {arm: arena_train for arm in ARMS}, args.seed, log,
                                 recipes=ARMS)
    decide(results, paragraph_rule(results), args.out, log)


if __name__ == "__main__":
    main()
