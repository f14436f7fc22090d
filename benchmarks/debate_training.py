"""Trial (issue 17): do debates by the newest assistant versions, in the corpus's own debate genre,
teach the model those versions at no cost inside the corpus, and do they carry over to stories?

``benchmarks/external_debates.py`` (session 57) found that in debates the bundled model reads the
newer versions' family well 3-way (0.88) but calls half of them OTHER (4-way 0.51): GPT-6 Astra and
Gemini 3.8 Flash all OTHER with no "uncertain". The story trial (``story_training.py``) taught the
newest versions inside the story source but cost 0.56 points in the corpus as a seventh genre.
Here the added texts are debates, labelled as the corpus's debate genre. Fixed and committed
before the first run:

- Training debates: ``--debates-train``, transcripts on propositions the test set does not use
  (``results/external_debates/train_transcripts.txt``, chosen from the manifest like the test
  set, 10 a newer version, none with a held-out version), every side the corpus does not hold
  (``external_debates.read_debates`` / ``drop_corpus``), ``genre`` debate, ``subgenre`` newer. A side
  on a proposition of the corpus's topic hold-out val is dropped, so no proposition is on both sides
  of that split.
- Held out of training (``story_training.HELD_OUT``): Claude Opus 5.5, Gemini 3.8 Flash, Kimi K3.
- Fits: the bundled recipe (``robustness.fit_recipe``, uncalibrated) on the corpus's topic
  hold-out train part plus the bundled Arena-Hard answers: ``bundled``; the same plus the training
  debates: ``debates``.
- Tests: D1 ``external_debates.py``'s test sides by versions trained on; D2 by the held-out
  versions; S the 400 test stories of ``external_stories.py`` (another source); T3 the corpus's
  topic hold-out val, raw and under the edit suite; LOGO over the five genres, where a fit without
  debates also leaves out the added debates. Intervals of ``debates`` minus ``bundled`` resample
  whole propositions (D1, D2), prompts (S) or topics (T3, LOGO), 1,000 draws.
- Rule: the debates join the bundled data only if (a) D1's 4-way accuracy gains >= 5 points with
  the interval's lower end above 0; (b) S's 4-way accuracy falls by at most 1 point; (c) T3's
  4-way accuracy falls by at most 0.5 points; (d) the LOGO 3-way mean falls by at most 0.5 points;
  (e) T3's drop under all edits combined grows by at most 0.5.

``--write-train FILE`` writes the training sides as a corpus file (genre debate) and stops: the
bundled data once the rule passed (docs/predict.md).

``--generation`` (after the decision, the checklist's): leave-one-generation-out of the corpus
without and with the training debates, as ``story_training.py --generation``.

::

    OMP_NUM_THREADS=2 python benchmarks/debate_training.py --debates-test /tmp/s57/deb \\
        --debates-train /tmp/s57/deb_train --stories-test /tmp/lw --arena runs/arena/arena-hard.jsonl \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/debate_training
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from external_debates import CorpusSides, corpus_sides, drop_corpus, read_debates
from external_stories import read_stories
from external_training import logo_block, paired_test
from robustness import Features, corpus_args, fit_recipe, required_folders, timed_log
from story_training import (
    HELD_OUT,
    decide,
    generation_check,
    genre_accuracy,
    stacked,
    t3_drops,
    verdict_counts,
    write_rows,
)

from whowrote.data.corpus import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split, topic_keys

GAIN, SLACK, STORY_SLACK = 0.05, 0.005, 0.01
KEYS = ("accuracy", "accuracy_3way", "mean_recall_3way")


def debate_rows(folder: Path, corpus: CorpusSides) -> pd.DataFrame:
    """A transcript folder's sides the corpus does not hold, as corpus rows of the debate genre."""
    frame, _ = drop_corpus(read_debates(folder), corpus)
    return frame.assign(genre="debate", subgenre="newer", id=frame.file + ":" + frame.side,
                        held_out=frame.model.isin(HELD_OUT))


def write_train(folder: Path, corpus: CorpusSides, out: Path) -> None:
    """Every training side of a version not held out, as a corpus file for ``whowrote train-probe --corpus``
    (the bundled model has no topic hold-out, so no proposition is dropped here)."""
    rows = debate_rows(folder, corpus)
    rows = write_rows(rows[~rows.held_out], ["id", "model", "provider", "topic", "genre", "subgenre", "side", "text"], out)
    print(f"wrote {len(rows):,} debate sides ({rows.model.nunique()} models, {rows.topic.nunique()} propositions) to {out}")


def outside_held_genre(add: pd.DataFrame, train: pd.DataFrame, genres: set[str]) -> pd.DataFrame:
    """``add`` without the rows of the corpus genre ``train`` leaves out (a LOGO fold's held-out genre):
    a fit that must not see corpus debates must not see the added ones either."""
    return add[~add.genre.isin(genres - set(train.genre))]


def debate_rule(results: dict) -> dict[str, bool]:
    t = results["tests"]

    def diff(test: str, key: str) -> float:
        return t[test]["debates"][key] - t[test]["bundled"][key]

    mean3 = {arm: float(np.mean([row[arm]["accuracy_3way"] for row in results["LOGO"].values()]))
             for arm in ("bundled", "debates")}
    combined = {arm: results["T3 edits"][arm]["combined"]["diff"] for arm in ("bundled", "debates")}
    return {"(a) D1 4-way gain": diff("D1", "accuracy") >= GAIN and t["D1"]["diff_intervals"]["accuracy"][0] > 0,
            "(b) S no loss": diff("S", "accuracy") >= -STORY_SLACK,
            "(c) T3 no loss": diff("T3", "accuracy") >= -SLACK,
            "(d) LOGO no loss": mean3["debates"] - mean3["bundled"] >= -SLACK,
            "(e) combined drop": combined["debates"] - combined["bundled"] <= 100 * SLACK}  # drops are in points


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), "/tmp/whowrote-debates")
    ap.add_argument("--debates-test", type=Path, help="external_debates.py's transcripts")
    ap.add_argument("--debates-train", type=Path, required=True, help="transcripts on other propositions")
    ap.add_argument("--stories-test", type=Path, help="external_stories.py's stories")
    ap.add_argument("--arena", type=Path, help="the bundled model's Arena-Hard answers (a corpus file)")
    ap.add_argument("--generation", action="store_true", help="only leave-one-generation-out without and with the debates")
    ap.add_argument("--write-train", type=Path, default=None,
                    help="only write the training sides here (a corpus file) and stop (needs --debates-train and --corpus only)")
    args = ap.parse_args()
    if args.write_train:
        required_folders(ap, args, ["--debates-train"])
        return write_train(args.debates_train, corpus_sides([Path(p) for p in args.corpus]), args.write_train)
    required_folders(ap, args, ["--debates-test", "--debates-train", "--stories-test"])
    if args.arena is None:
        ap.error("the following arguments are required: --arena")
    log = timed_log()
    paths = [Path(p) for p in args.corpus]
    corpus, arena, sides = load_corpus(paths), load_corpus([args.arena]), corpus_sides(paths)
    test, train = debate_rows(args.debates_test, sides), debate_rows(args.debates_train, sides)
    overlap = set(test.topic) & set(train.topic)
    if overlap:
        raise SystemExit(f"error: propositions in both transcript folders: {sorted(overlap)[:5]}")
    stories = read_stories(args.stories_test).assign(genre="stories", topic=lambda f: "story-" + f.question)
    table, (corpus_rows, arena_rows, test_rows, train_rows, story_rows) = stacked([corpus, arena, test, train, stories])
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=args.seed, balance=False)
    val_props = set(split["val"].topic[split["val"].genre == "debate"])
    added = train_rows[~train_rows.held_out.to_numpy(bool) & ~train_rows.topic.isin(val_props).to_numpy()]
    log(f"corpus {len(corpus_rows):,}, arena {len(arena_rows):,}, test sides {len(test_rows):,}, "
        f"training sides added {len(added):,} of {len(train_rows):,} ({added.model.nunique()} models), stories {len(story_rows)}")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.generation:
        out = generation_check(feats, corpus_rows, added, args.seed, log, "debates")
        atomic_write(args.out / "generation.json", json.dumps(out, indent=1) + "\n")
        return None
    pair = {"bundled": arena_rows, "debates": pd.concat([arena_rows, added])}
    fits = {name: fit_recipe(feats, "default", pd.concat([split["train"], extra]), args.seed) for name, extra in pair.items()}
    held = test_rows.held_out.to_numpy(bool)
    tests = {"D1": (test_rows[~held], test_rows.topic[~held]), "D2": (test_rows[held], test_rows.topic[held]),
             "S": (story_rows, story_rows.topic), "T3": (split["val"], topic_keys(split["val"]))}
    results: dict = {"held_out": sorted(HELD_OUT), "n_added": len(added), "tests": {}}
    for tname, (frame, units) in tests.items():
        row, P = paired_test(feats, fits, frame, units.to_numpy(), KEYS)
        if tname == "T3":
            row["per_genre"] = genre_accuracy(P, fits["bundled"].classes_, frame)
        else:
            row["per_version"] = verdict_counts(P, fits["bundled"].classes_, frame.model.to_numpy(object))
        results["tests"][tname] = row
        log(f"{tname} (n {len(frame):,}): " + "; ".join(f"{name} 4-way {row[name]['accuracy']:.3f} 3-way "
                                                       f"{row[name]['accuracy_3way']:.3f}" for name in fits)
            + f"; diff intervals {row['diff_intervals']}")
    results["T3 edits"] = t3_drops(feats, fits, split["val"], args.seed, log)
    genres = set(corpus_rows.genre)

    def without_held_genre(train: pd.DataFrame, add: pd.DataFrame):
        return fit_recipe(feats, "default", pd.concat([train, outside_held_genre(add, train, genres)]), args.seed)

    results["LOGO"] = logo_block(feats, corpus_rows, pair, args.seed, log, fit={"debates": without_held_genre})
    decide(results, debate_rule(results), args.out, log)


if __name__ == "__main__":
    main()
