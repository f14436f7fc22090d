"""Trial (issue 17): does training on chat answers from another source carry to its unseen prompts
and unseen model versions, at no cost inside the corpus?

``benchmarks/external_answers.py`` scores the bundled model on Arena-Hard-Auto's answers (a test
set only). This asks what adding such answers to the training data would buy, without touching
the texts it is judged on. Everything below was fixed before the first run:

- Prompts: Arena-Hard's 500 prompts split in two halves by ``sha256(question_id)`` (even / odd
  first byte): half A may be trained on, half B is only tested.
- Versions never trained on (``external_answers.HELD_OUT``): the newest or a sibling version of each assistant
  (CLAUDE: claude-3-5-sonnet-20241022, claude-3-haiku-20240307; CHATGPT: o1-preview-2024-09-12,
  gpt-4o-2024-08-06, gpt-3.5-turbo-0125; GEMINI: gemini-1.5-pro-api-0514) and four whole OTHER
  families (qwen, yi, phi-3, command-r).
- Fits: the bundled recipe (``robustness.fit_recipe``, ``default``: its training copies,
  uncalibrated: the scores below are argmax accuracies, which a temperature cannot move) on the
  corpus's topic hold-out train part (``topic_holdout_split(seed=0, balance=False)``, as
  ``robustness.py``), without (``current``) and with (``arena``) the answers on half A by every
  version not held out, as a sixth genre (``arena-hard``; ``arena`` when the results were written).
- Tests: T1 half B, trained versions; T2 half B, held-out versions; T3 the corpus's topic hold-out
  val. Scores: 3-way accuracy, its mean over the three assistants, 4-way accuracy, OTHER AUROC;
  95 % intervals of ``arena`` minus ``current`` resample whole prompts (T3: whole topics), 1,000
  draws. ``--edits`` (added after the rule was decided): T3 under the edit suite, each fit's drops, and
  its 4-way accuracy per genre; ``--logo`` (also after the rule): both recipes without each corpus
  genre, scored on it.
- Rule: ``arena`` is worth making the bundled recipe if on T2 and on T1 the mean 3-way recall
  gains >= 3 points with the interval's lower end above 0, and T3's 4-way accuracy falls by at
  most 0.5 points. Otherwise not adopted.

::

    OMP_NUM_THREADS=2 python benchmarks/external_training.py --answers arena-hard-auto/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/external_training

``--write-train runs/arena/arena-hard.jsonl`` writes the added answers as a corpus file instead:
the bundled model is trained on it (docs/predict.md, "Trained on Arena-Hard's answers").

**Arm ``versions`` (session 47; declared and committed before its run).** The bundled data keeps
six assistant versions and four OTHER families out of training so that half B can measure unseen
versions. Users bring exactly those versions (Claude 3.5 Sonnet, o1, GPT-4o, Gemini 1.5 Pro), so
should the shipped model train on their half-A answers too? The pair is ``arena`` (the bundled
data: half A, versions not held out) against ``versions`` (half A, every version), both on the
corpus's topic hold-out train part; the tests are T1–T3 above (T2 now reads versions ``versions``
trains on, to new prompts) and, always, LOGO over the five corpus genres (``logo_block``) and T3
under the edits. Rule: ``versions`` replaces the bundled data only if (a) on T2 the mean 3-way recall
gains >= 2 points with the interval's lower end above 0; (b) on T1 it falls by at most 0.5 points;
(c) T3's 4-way accuracy falls by at most 0.5 points; (d) the LOGO 3-way mean over the five genres
falls by at most 0.5 points; and (e) T3's drop under all edits combined grows by at most 0.5 points.
Then ``--arm versions --write-train`` writes the new training file. Not measured here: versions
never trained on (the bundled model's T2 numbers stay the estimate for those)::

    OMP_NUM_THREADS=1 python benchmarks/external_training.py --arm versions --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/external_versions

**Arm ``assistants`` (session 47, round 2; declared and committed after round 1's T1–T3 were
seen and before its run).** Round 1 cost T1 1.0 point of mean 3-way recall (rule (b)) while T2
gained only 2.4; most of what it added (8,872 held-out answers in all) is by the four OTHER
families. This arm adds only the six assistant versions' half-A answers (the OTHER families stay
out): ``arena`` against ``assistants``, the same tests and the same rule (a)-(e)::

    OMP_NUM_THREADS=1 python benchmarks/external_training.py --arm assistants --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/external_assistants

**Arm ``others`` (session 47, round 3; declared and committed after rounds 1–2 were seen and before
its run).** Both rounds failed (b) only; round 1's T2 4-way accuracy (+6.8) and OTHER AUROC (0.589
→ 0.691) rose with the four OTHER families it added, and "none of the three" is a verdict users get.
This arm adds only those families' half-A answers (the six assistant versions stay out): ``arena``
against ``others``, rule (b), (c) and (e) as above, and instead of (a) and (d): (a) on T2 the 4-way
accuracy gains >= 2 points with the interval's lower end above 0; (d) the LOGO 3-way mean over the
five genres falls by at most 0.5 points and the mean LOGO OTHER AUROC (chat, debate, fiction) does
not fall; and also (b) T1's 4-way accuracy falls by at most 0.5 points::

    OMP_NUM_THREADS=1 python benchmarks/external_training.py --arm others --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/external_others
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from external_answers import label_scores, read_answers
from robustness import Features, corpus_args, drop_intervals, fit_recipe, indexed_corpus, timed_log
from trial_noise import topic_weights

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.style.edits import edits
from whowrote.types import LABELS, OTHER

N_BOOT = 1000
GAIN, SLACK = 0.03, 0.005
VERSIONS_GAIN = 0.02  # the session-47 arms' rule (a); SLACK bounds their (b)-(e)
TEST_KEYS = ("mean_recall_3way", "accuracy_3way", "accuracy")  # the scores each test's intervals cover
GENRE = "arena-hard"  # as whowrote.data.readers.benchmark_genre names the folder's genre


def arena_rows(folder: Path) -> pd.DataFrame:
    frame = read_answers(folder)
    return frame.assign(genre=GENRE, topic=frame.question, id=frame.model + ":" + frame.question)


def answers_table(corpus: list[Path], answers: Path, cache: Path, log) -> tuple[pd.DataFrame, Features, np.ndarray]:
    """The corpus files' rows, then the answers (``arena_rows``), numbered by ``row_idx``; their
    feature cache (``robustness.Features``); and which rows are answers."""
    rows = indexed_corpus(corpus).drop(columns="row_idx")
    arena = arena_rows(answers)
    table = pd.concat([rows, arena], ignore_index=True)
    table["row_idx"] = np.arange(len(table))
    log(f"corpus {len(rows):,} texts, arena {len(arena):,} answers "
        f"(half A {int(arena.half_a.sum()):,}; held-out versions {int(arena.held_out.sum()):,})")
    return table, Features(table, cache, log), (table.genre == GENRE).to_numpy()


def trained_answers(answers: pd.DataFrame, arm: str = "arena") -> pd.DataFrame:
    """The answers an arm trains on, all on half A of the prompts: ``arena`` (the bundled data)
    the versions not held out, ``versions`` every version, ``assistants`` every version but the
    held-out OTHER families, ``others`` every version but the held-out assistant versions."""
    keep = answers.half_a.to_numpy(bool)  # bool: a concat makes them objects
    held, other = answers.held_out.to_numpy(bool), answers.provider.to_numpy(object) == OTHER
    if arm in ("assistants", "others"):
        held = held & (other if arm == "assistants" else ~other)
    return answers[keep if arm == "versions" else keep & ~held]


def write_train(folder: Path, out: Path, arm: str = "arena") -> None:
    """The answers ``arm`` trains on (:func:`trained_answers`) as a corpus file, for
    ``whowrote train-probe --corpus``; named ``arena-hard.jsonl`` its genre is ``arena-hard``."""
    rows = trained_answers(arena_rows(folder), arm)[["id", "model", "provider", "topic", "text"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows.to_dict("records")))
    print(f"wrote {len(rows):,} answers ({rows.model.nunique()} models, {rows.topic.nunique()} prompts) to {out}")


def scores(P: np.ndarray, y: np.ndarray, classes: np.ndarray) -> dict:
    """:func:`external_answers.label_scores` of a fitted model's probabilities (columns in ``classes`` order)."""
    return label_scores(P[:, [list(classes).index(c) for c in LABELS]], y)


def paired_intervals(Pa: np.ndarray, Pb: np.ndarray, y: np.ndarray, classes: np.ndarray, units: np.ndarray,
                     keys: tuple[str, ...], seed: int = 0) -> dict[str, list[float]]:
    """95 % intervals of each of ``keys`` (b minus a), resampling whole ``units`` (prompts or topics)."""
    draws = topic_weights(units, N_BOOT, np.random.default_rng(seed)).astype(int)
    diffs: dict[str, list[float]] = {k: [] for k in keys}
    for w in draws:
        rows = np.repeat(np.arange(len(y)), w)
        a, b = scores(Pa[rows], y[rows], classes), scores(Pb[rows], y[rows], classes)
        for k in keys:
            diffs[k].append(b[k] - a[k])
    return {k: [round(float(v), 4) for v in np.percentile(d, (2.5, 97.5))] for k, d in diffs.items()}


def paired_test(feats: Features, fits: dict, test: pd.DataFrame, units: np.ndarray,
                keys: tuple[str, ...], recipes: dict[str, str] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """One test read by two fits (``fits``: the baseline first): each fit's :func:`scores` and the
    95 % intervals of ``keys`` (second minus first) resampling whole ``units``; and each fit's
    probabilities on the test. ``recipes``: a fit's recipe where it reads texts otherwise than ``default``."""
    (a, fit_a), (b, _) = fits.items()
    recipes = recipes or {}
    y = test.provider.to_numpy(object)
    P = {name: m.predict_proba(feats.get(recipes.get(name, "default"), test.row_idx.to_numpy(), "raw"))
         for name, m in fits.items()}
    classes = fit_a.classes_
    assert all(list(m.classes_) == list(classes) for m in fits.values())
    row = {name: scores(P[name], y, classes) for name in fits}
    row["diff_intervals"] = paired_intervals(P[a], P[b], y, classes, units, keys)
    return row, P


def logo_block(feats: Features, corpus: pd.DataFrame, adds: dict[str, pd.DataFrame], seed: int, log,
               fit: dict | None = None, recipes: dict[str, str] | None = None) -> dict:
    """Per corpus genre: two recipes fitted on the other genres, each with its own added rows
    (``adds``: two names, the first the baseline; an empty frame adds nothing), scored on that genre
    (4-way, 3-way, what each assistant's texts were called), with 95 % intervals of the difference
    (second minus first) resampling whole topics. ``fit[name](train, add)`` fits an arm another way
    (default: the recipe on both); ``recipes[name]``: an arm's recipe (default ``default``)."""
    a, b = adds
    fit, recipes = fit or {}, recipes or {}
    out = {}
    for genre, train, test in leave_one_genre_out(corpus):
        fits = {name: fit[name](train, add) if name in fit
                else fit_recipe(feats, recipes.get(name, "default"), pd.concat([train, add]), seed)
                for name, add in adds.items()}
        row, _ = paired_test(feats, fits, test, topic_keys(test).to_numpy(), ("accuracy_3way", "accuracy"), recipes)
        out[genre] = row
        log(f"LOGO {genre} (n {len(test):,}): 3-way {row[a]['accuracy_3way']:.3f} -> "
            f"{row[b]['accuracy_3way']:.3f}; recall {row[a]['recall_3way']} -> {row[b]['recall_3way']}")
    return out


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), "/tmp/whowrote-external")
    ap.add_argument("--answers", type=Path, required=True)
    ap.add_argument("--arm", choices=("arena", "versions", "assistants", "others"), default="arena",
                    help="arena: the corpus alone against the bundled data (session 36); versions: the bundled "
                         "data against half A by every version; assistants: by every assistant version; others: "
                         "with the held-out OTHER families (session 47)")
    ap.add_argument("--write-train", type=Path, default=None,
                    help="only write the answers the arm adds to this JSONL file (for train-probe) and stop")
    ap.add_argument("--logo", action="store_true",
                    help="also fit both recipes without each corpus genre and score it (leave-one-genre-out)")
    ap.add_argument("--edits", action="store_true",
                    help="also score T3 under every edit of the suite (drops with paired topic intervals)")
    args = ap.parse_args()
    against_bundled = args.arm != "arena"  # session 47's arms: the bundled data is their baseline
    if args.write_train:
        return write_train(args.answers, args.write_train, args.arm)
    log = timed_log()
    table, feats, is_arena = answers_table(args.corpus, args.answers, args.cache, log)
    split = topic_holdout_split(table[~is_arena], seed=args.seed, balance=False)
    arena_part = table[is_arena]
    in_a, held = arena_part.half_a.to_numpy(bool), arena_part.held_out.to_numpy(bool)  # the concat made them objects
    add = trained_answers(arena_part)
    pair = {"arena": add, args.arm: trained_answers(arena_part, args.arm)} if against_bundled else \
        {"current": add.iloc[:0], "arena": add}
    base, challenger = pair
    tests = {"T1 new prompts, trained versions": arena_part[~in_a & ~held],
             "T2 new prompts, held-out versions": arena_part[~in_a & held],
             "T3 corpus topic hold-out": split["val"]}
    fits = {}
    for name, extra in pair.items():
        train = pd.concat([split["train"], extra])
        fits[name] = fit_recipe(feats, "default", train, args.seed)
        log(f"fitted {name} on {len(train):,} texts")
    results: dict = {"arm": args.arm, "n_added": {name: len(extra) for name, extra in pair.items()}, "tests": {}}
    for tname, test in tests.items():
        units = (test.topic if tname.startswith("T1") or tname.startswith("T2") else topic_keys(test)).to_numpy()
        row, P = paired_test(feats, fits, test, units, TEST_KEYS)  # the last test's (T3) P serves --edits too
        y = test.provider.to_numpy(object)
        if against_bundled and not tname.startswith("T3"):  # where a session-47 arm's change lands, version by version
            row["per_version"] = per_version(P, y, test.model.to_numpy(object), fits[base].classes_)
        results["tests"][tname] = row
        log(f"{tname} (n {len(test):,}): " + "; ".join(
            f"{name} 3-way {row[name]['accuracy_3way']:.3f} mean recall {row[name]['mean_recall_3way']:.3f} "
            f"4-way {row[name]['accuracy']:.3f}" for name in fits) + f"; diff intervals {row['diff_intervals']}")
    if args.edits or against_bundled:  # arena: measured after the rule was decided (session 37), not part of it
        val = split["val"]
        X = {e: feats.get("default", val.row_idx.to_numpy(), e) for e in edits(args.seed) if e != "raw"}
        topics, genres = topic_keys(val).to_numpy(), val.genre.to_numpy(object)
        right = {name: m.classes_[P[name].argmax(axis=1)] == y for name, m in fits.items()}
        results["T3 per genre"] = {name: {g: float(r[genres == g].mean()) for g in sorted(set(genres))}
                                   for name, r in right.items()}
        results["T3 edits"] = {name: drop_intervals(m.classes_, {"raw": P[name]} | {e: m.predict_proba(x) for e, x in X.items()},
                                                    y, topics, args.seed) for name, m in fits.items()}
        log("T3 drops (points): " + "; ".join(f"{e} {results['T3 edits'][base][e]['diff']:.1f} -> "
                                              f"{results['T3 edits'][challenger][e]['diff']:.1f}" for e in X))
    if args.logo or against_bundled:
        results["LOGO"] = logo_block(feats, table[~is_arena], pair, args.seed, log)
    t = results["tests"]
    results["rule"] = versions_rule(results, args.arm) if against_bundled else arena_rule(t)
    results["adopt"] = all(results["rule"].values())
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(results, indent=1) + "\n")
    log(f"rule {results['rule']} -> {'adopt' if results['adopt'] else 'not adopted'}; wrote {args.out}")


def per_version(P: dict[str, np.ndarray], y: np.ndarray, models: np.ndarray, classes: np.ndarray) -> dict:
    """Each assistant version's answers: their count and each fit's 3-way accuracy on them."""
    out = {}
    for model in sorted(set(models[y != OTHER])):
        rows = models == model
        out[model] = {"n": int(rows.sum())} | {name: scores(p[rows], y[rows], classes)["accuracy_3way"]
                                               for name, p in P.items()}
    return out


def arena_rule(t: dict) -> dict[str, bool]:
    """Session 36's rule: the answers gain on T2 and T1, and cost T3 at most SLACK."""

    def gained(name: str) -> bool:
        d = t[name]["arena"]["mean_recall_3way"] - t[name]["current"]["mean_recall_3way"]
        return d >= GAIN and t[name]["diff_intervals"]["mean_recall_3way"][0] > 0

    t3 = t["T3 corpus topic hold-out"]
    return {"T2 gain": gained("T2 new prompts, held-out versions"),
            "T1 gain": gained("T1 new prompts, trained versions"),
            "T3 no loss": t3["arena"]["accuracy"] - t3["current"]["accuracy"] >= -SLACK}


def versions_rule(results: dict, arm: str = "versions") -> dict[str, bool]:
    """The rule (a)-(e) of the session-47 arms, fixed in the module's docstring before their runs
    (``others``: (a) on T2's 4-way accuracy, (b) and (d) with a clause more)."""
    t = results["tests"]
    t1, t2, t3 = (t[k] for k in ("T1 new prompts, trained versions", "T2 new prompts, held-out versions",
                                 "T3 corpus topic hold-out"))

    def diff(row: dict, key: str) -> float:
        return row[arm][key] - row["arena"][key]

    logo = results["LOGO"]
    logo_diff = float(np.mean([diff(row, "accuracy_3way") for row in logo.values()]))
    combined = {name: results["T3 edits"][name]["combined"]["diff"] for name in ("arena", arm)}
    a_key = "accuracy" if arm == "others" else "mean_recall_3way"
    rule = {"(a) T2 gain": diff(t2, a_key) >= VERSIONS_GAIN and t2["diff_intervals"][a_key][0] > 0,
            "(b) T1 no loss": diff(t1, "mean_recall_3way") >= -SLACK,
            "(c) T3 no loss": diff(t3, "accuracy") >= -SLACK,
            "(d) LOGO no loss": logo_diff >= -SLACK,
            "(e) combined drop": combined[arm] - combined["arena"] <= 100 * SLACK}  # drops are in points
    if arm == "others":
        auroc = [diff(row, "other_auroc") for row in logo.values() if "other_auroc" in row["arena"]]
        rule["(b) T1 no loss"] &= diff(t1, "accuracy") >= -SLACK
        rule["(d) LOGO no loss"] &= float(np.mean(auroc)) >= 0
    return rule


if __name__ == "__main__":
    main()
