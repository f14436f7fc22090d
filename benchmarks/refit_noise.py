"""How far does the bundled recipe's own refit move the trials' tests? (issue 17, session 60)

Every issue-17 trial compares two fits and puts an interval on their difference by resampling the
*test* texts (whole topics, prompts, propositions or questions). That interval leaves out the noise
of the fit itself: the recipe draws each training text's edited copy (which edit, which length) from
one seeded stream (``whowrote.style.train.edited_copies``) and deals its stacking folds with the
seed, so a fit on the same texts with another seed, or with rows added *before* some others in the
table, is another fit. Session 60 met it by chance: the ``bundled`` arm of ``persuasion_training.py``
read the 400 stories at 0.495 in session 59 and at 0.425 in session 60, on the same training texts;
only the position of the blank-line rows in the trial's table had moved (fewer persuasion rows came
before them), so their copies were drawn again.

This refits the bundled recipe (the topic hold-out's train part, Arena-Hard half A and the
train part's blank-line debate rows, as in ``persuasion_training.py``'s ``bundled``) with each seed
of ``--seeds`` and scores every fit on the trials' tests: P (the persuasion chats of the test
propositions), S (the 400 stories), D (the 175 newer debate sides), A (Arena-Hard half B), M
(MT-Bench) and T3 (the topic hold-out's val part). Each seed after the first is also paired with the
first as a trial pairs its arms (:func:`external_training.paired_test`: the same units resampled),
so the output says how often a *null* trial, two fits differing only in their seed, would show a
difference whose interval excludes 0. ``--logo`` adds the LOGO 3-way mean per seed (five fits each).
``--edits`` adds each fit's drop under every edit of the suite on T3 (raw minus edited 4-way accuracy,
:func:`robustness.drop_intervals`), the quantity of the rules' edit clauses.
``--figure-only`` redraws ``refit_noise.png`` from ``--out``'s ``results.json`` and stops.

::

    OMP_NUM_THREADS=2 python benchmarks/refit_noise.py --seeds 0 1 2 3 4 --arena /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --persuasion /tmp/persuasion/transcripts/v1_no_notes_15topics_panel15_8040 --mt-bench /tmp/mtbench/model_answer \\
        --stories-test /tmp/s59/lw/stories_wc --debates-test /tmp/s59/deb \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/refit_noise
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from debate_layout_trial import blank_line_copies
from debate_training import KEYS, debate_rows
from external_debates import corpus_sides
from external_stories import read_stories
from external_training import paired_test, scores
from paragraph_trial import saved_results, trial_args, trial_frames
from persuasion_training import proposition_halves, without_debate_kin
from robustness import Features, fit_recipe, timed_log
from story_training import edit_drops, stacked

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.types import OTHER

TESTS = ("P", "S", "D", "A", "M", "T3")


def spread(values: list[float]) -> dict:
    """Values over seeds (points), their mean and sd (ddof 1; 0 for one value), rounded to 0.01."""
    return {"values": [round(v, 2) for v in values], "mean": round(float(np.mean(values)), 2),
            "sd": round(float(np.std(values, ddof=1)), 2) if len(values) > 1 else 0.0}


def seed_summary(per_seed: dict[str, dict], key: str) -> dict:
    """Per test, ``key`` (points) over the seeds: each seed's value, mean, sd (ddof 1) and range."""
    out = {}
    for test in TESTS:
        values = [100 * per_seed[s][test][key] for s in per_seed]
        out[test] = {**spread(values), "range": round(max(values) - min(values), 2)}
    return out


def null_passes(pairs: dict[str, dict], key: str) -> dict:
    """Per test: of the seed pairs (each seed against the first), how many show a difference in ``key``
    whose interval excludes 0, and the largest such difference (points) - what a null trial would report."""
    out = {}
    for test in TESTS:
        rows = [pairs[s][test] for s in pairs]
        apart = [r for r in rows if r["interval"][0] > 0 or r["interval"][1] < 0]
        out[test] = {"pairs": len(rows), "interval_excludes_0": len(apart),
                     "largest_diff": round(max((abs(r["diff"]) for r in rows), default=0.0), 2)}
    return out


def point_drops(feats: Features, fit, val: pd.DataFrame, recipe: str = "default") -> dict[str, float]:
    """The fit's drop (points, raw minus edited 4-way accuracy) on ``val`` under every edit of the suite
    (edited as the trials edit, seed 0; ``recipe``: how the fit reads texts)."""
    return {e: round(v["diff"], 2) for e, v in edit_drops(feats, fit, val, 0, recipe).items()}


def logo_mean(feats: Features, corpus: pd.DataFrame, add: pd.DataFrame, seed: int, log,
              recipe: str = "default") -> dict:
    """Each corpus genre's 3-way accuracy by ``recipe`` fitted on the others (and ``add``, as the bundled
    data: a fold without the debates sees no blank-line rows), with their mean."""
    out = {}
    for genre, train, test in leave_one_genre_out(corpus):
        fit = fit_recipe(feats, recipe, pd.concat([train, without_debate_kin(add, train)]), seed)
        P = fit.predict_proba(feats.get(recipe, test.row_idx.to_numpy(), "raw"))
        out[genre] = scores(P, test.provider.to_numpy(object), fit.classes_)["accuracy_3way"]
        log(f"  LOGO {recipe} seed {seed} {genre}: 3-way {out[genre]:.3f}")
    out["mean"] = float(np.mean([out[g] for g in sorted(out)]))
    return out


@dataclass
class BundledData:
    """The bundled recipe's training rows and the trials' tests, in one feature table."""

    feats: Features
    corpus: pd.DataFrame  # the corpus's rows (LOGO's folds)
    base: pd.DataFrame  # T3's train part, Arena-Hard half A and the train part's blank-line debate rows
    add: pd.DataFrame  # what LOGO adds to each fold: Arena-Hard half A and every blank-line debate row
    split: dict  # the topic hold-out of the corpus (T3 is its val part)
    tests: dict  # name -> (rows, units resampled)


def bundled_data(args, log) -> BundledData:
    """The corpus, Arena-Hard, persuasion, MT-Bench, stories and debates of ``args`` in one feature table,
    the bundled recipe's training rows and the six tests (as ``persuasion_training.py``'s ``bundled``)."""
    corpus, arena_train, arena_b, chats, mt_bench = trial_frames(args)
    _, test_props = proposition_halves(chats.topic)
    p_test = chats[chats.topic.isin(test_props)]
    stories = read_stories(args.stories_test).assign(genre="stories", topic=lambda f: "story-" + f.question)
    debates = debate_rows(args.debates_test, corpus_sides([Path(p) for p in args.corpus]))
    table, (corpus_rows, arena_train, arena_b, p_test, m_rows, s_rows, d_rows, copy_rows) = stacked(
        [corpus, arena_train, arena_b, p_test, mt_bench, stories, debates, blank_line_copies(corpus)])
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=0, balance=False)
    copies = copy_rows[copy_rows.copy_of.isin(set(split["train"].id))]
    tests = {"P": (p_test, p_test.topic), "S": (s_rows, s_rows.topic), "D": (d_rows, d_rows.topic),
             "A": (arena_b, arena_b.question), "M": (m_rows, m_rows.topic),
             "T3": (split["val"], topic_keys(split["val"]))}
    return BundledData(feats, corpus_rows, pd.concat([split["train"], arena_train, copies]),
                       pd.concat([arena_train, copy_rows]), split, tests)


def main() -> None:
    args = trial_args(__doc__.splitlines()[0], "/tmp/whowrote-refit-noise",
                      folders={"--stories-test": "external_stories.py's stories",
                               "--debates-test": "external_debates.py's transcripts"}, figure_only=True,
                      options={"--seeds": {"type": int, "nargs": "+", "default": [0, 1, 2, 3, 4],
                                           "help": "the fit seeds (the first is each pair's baseline)"},
                               "--logo": {"action": "store_true", "help": "also the LOGO 3-way mean per seed"},
                               "--edits": {"action": "store_true", "help": "also each fit's T3 drop under every edit"}})
    if args.figure_only:
        return figure(saved_results(args.out, "no results to draw (run the measurement first)"),
                      args.out / "refit_noise.png")
    seeds = list(args.seeds)
    if len(seeds) < 2 or len(set(seeds)) != len(seeds):
        raise SystemExit("error: --seeds: give at least two different seeds")
    log = timed_log()
    data = bundled_data(args, log)
    feats, base, tests, split, s_rows = data.feats, data.base, data.tests, data.split, data.tests["S"][0]
    log(f"bundled data {len(base):,} rows; seeds {seeds}")
    first = fit_recipe(feats, "default", base, seeds[0])
    drops: dict[str, dict] = {}
    per_seed: dict[str, dict] = {}
    pairs: dict[str, dict] = {}
    verdicts: dict[str, dict] = {}
    if args.edits:
        drops[str(seeds[0])] = point_drops(feats, first, split["val"])
    for seed in seeds[1:]:
        fit = fit_recipe(feats, "default", base, seed)
        if args.edits:
            drops[str(seed)] = point_drops(feats, fit, split["val"])
        pairs[str(seed)] = {}
        for name, (frame, units) in tests.items():
            row, P = paired_test(feats, {"first": first, "other": fit}, frame, units.to_numpy(), KEYS)
            per_seed.setdefault(str(seeds[0]), {})[name] = row["first"]
            per_seed.setdefault(str(seed), {})[name] = row["other"]
            lo, hi = row["diff_intervals"]["accuracy"]
            pairs[str(seed)][name] = {"diff": round(100 * (row["other"]["accuracy"] - row["first"]["accuracy"]), 2),
                                      "interval": [round(100 * lo, 2), round(100 * hi, 2)]}
            if name == "S":
                models = frame.model.to_numpy(object)
                for key, p in ((str(seeds[0]), P["first"]), (str(seed), P["other"])):
                    pred = first.classes_[p.argmax(axis=1)]
                    verdicts[key] = {m: int((pred[models == m] == frame.provider.to_numpy(object)[models == m]).sum())
                                     for m in sorted(set(models))}
        log(f"seed {seed} minus seed {seeds[0]} (4-way points): "
            + "; ".join(f"{t} {pairs[str(seed)][t]['diff']:+.1f} {pairs[str(seed)][t]['interval']}" for t in TESTS))
    results = {"seeds": seeds, "n": {t: len(f) for t, (f, _) in tests.items()},
               "accuracy": seed_summary(per_seed, "accuracy"), "accuracy_3way": seed_summary(per_seed, "accuracy_3way"),
               "pairs_with_first": pairs, "null_trials": null_passes(pairs, "accuracy"),
               "S_correct_per_model": verdicts, "S_other_models": sorted(
                   {m for m, p in zip(s_rows.model, s_rows.provider, strict=True) if p == OTHER})}
    if args.edits:
        results["T3 drops"] = {e: {"values": [drops[s][e] for s in drops],
                                   "range": round(max(drops[s][e] for s in drops) - min(drops[s][e] for s in drops), 2)}
                               for e in drops[str(seeds[0])]}
        log("T3 drop ranges over seeds (points): " + "; ".join(f"{e} {v['range']}" for e, v in results["T3 drops"].items()))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(results, indent=1) + "\n")  # kept if LOGO is stopped
    figure(results, args.out / "refit_noise.png")
    if args.logo:
        logo = {str(s): logo_mean(feats, data.corpus, data.add, s, log) for s in seeds}
        means = [100 * v["mean"] for v in logo.values()]
        results["LOGO"] = {"per_seed": logo, "mean_sd": round(float(np.std(means, ddof=1)), 2),
                           "mean_range": round(max(means) - min(means), 2)}
        atomic_write(args.out / "results.json", json.dumps(results, indent=1) + "\n")
        figure(results, args.out / "refit_noise.png")
    log(f"wrote {args.out}; 4-way sd over seeds (points): "
        + ", ".join(f"{t} {results['accuracy'][t]['sd']}" for t in TESTS))


def figure(results: dict, path: Path) -> None:
    """Each test's 4-way accuracy per seed (dots) and its range (a bar); with ``--logo``, also the LOGO
    3-way mean and the held-out blogs' 3-way accuracy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = [(f"{t}\n(n {results['n'][t]:,})", results["accuracy"][t]["values"]) for t in TESTS]
    if "LOGO" in results:
        logo = results["LOGO"]["per_seed"].values()
        columns += [("LOGO mean\n(3-way)", [100 * v["mean"] for v in logo]),
                    ("LOGO blog\n(3-way)", [100 * v["blog"] for v in logo])]
    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    for k, (_, values) in enumerate(columns):
        ax.plot([k, k], [min(values), max(values)], color="#bbbbbb", linewidth=6, solid_capstyle="round", zorder=1)
        ax.scatter([k] * len(values), values, color="#d97757", zorder=2, s=22)
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([name for name, _ in columns], fontsize=8)
    ax.set_ylabel("accuracy, % (4-way unless marked)")
    ax.set_title(f"The bundled recipe refitted with seeds {', '.join(map(str, results['seeds']))}: "
                 "the same texts, other edited copies", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
