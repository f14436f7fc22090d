"""Out-of-corpus test (issue 17): the corpus's own debate versions in another task, persuasion chats.

Sessions 56-57 found that assistant versions are learnt per genre: the newer Claude versions read in
debates are still not named in stories. This asks the converse with the version held fixed: Lech
Mazur's persuasion benchmark (``lechmazur/persuasion``) has the same 15-model panel as the corpus's
debates (Claude Opus 4.6 and Sonnet 4.6, GPT-5.4, Gemini 3.1 Pro and Flash-Lite, and ten open
models), the same author's pipeline and mostly the same propositions, but another task: an
eight-turn conversation in which one model (the persuader) tries to move another's (the target's)
stated view, each writing four conversational turns. Nothing here is fitted, chosen or tuned on
these texts: it is a test set only.

Protocol, fixed before the first run:

- Input: a folder of transcripts (``prop_<n>__<persuader>__<target>__<pro|con>__<notes>.md``). A
  transcript gives two texts, one per participant: its four turns in order, each turn's body
  without the ``- speaker_role:`` / ``- speaker_model:`` lines, joined by a blank line. A transcript
  whose turns name other models than its file name is refused (counted, left out).
- Label ``provider_of(model)``; "seen version" as in ``external_stories.py``; intervals resample
  whole propositions (15), 1,000 draws. A text the corpus holds is dropped.
- Every ``--src`` scored as in ``external_stories.py``, also split by role (persuader, target) and
  by whether the corpus's debates hold the proposition (11 of 15 do: same topic, other task). With
  two or more contenders, each later one minus the first, paired over the same texts (mean 3-way
  recall and 3-way accuracy on the assistants' texts, 4-way accuracy on all), as in
  ``external_debates.py``.

::

    git clone https://github.com/lechmazur/persuasion /tmp/persuasion     # 40 MB
    python benchmarks/external_persuasion.py --transcripts /tmp/persuasion/transcripts/v1_no_notes_15topics_panel15_8040 \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --src /tmp/c64/src --src /tmp/base57/src --src /tmp/base58/src --src src \\
        --name c64209e --name "session 37" --name "session 57" --name bundled \\
        --edits 300 --out results/external_persuasion --figure docs/figures/external_persuasion.png
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from external_answers import (
    check_corpus_files,
    contender_args,
    contenders_of,
    figure,
    predictions,
    predictions_csv,
    score_contenders,
    scores,
    table,
)
from external_debates import corpus_sides, paired
from external_stories import grouped_scores
from robustness import timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.providers import provider_of
from whowrote.types import OTHER

NAME = re.compile(r"(prop_\d{1,6})__(.+?)__(.+?)__(pro|con)__[\w.-]+\.md")
ROLES = ("persuader", "target")


def participants(raw: str) -> dict[str, dict]:
    """A transcript's texts by role: ``model`` (from the turns' ``- speaker_model:``) and ``text`` (the
    turns' bodies joined by a blank line); a role whose turns name two models is left out."""
    turns: dict[str, list[list[str]]] = {}
    models: dict[str, set[str]] = {}
    current: list[str] | None = None
    role = ""
    for line in raw.split("\n"):
        if line.startswith(("## Turn ", "## Proposition")):  # a body's own "## " heading stays in its text
            current = [] if line.startswith("## Turn ") else None
            role = ""
            continue
        if current is None:
            continue
        if not role and line.startswith("- speaker_role: "):
            role = line.partition(": ")[2].strip(" `")
            turns.setdefault(role, []).append(current)
        elif role and line.startswith("- speaker_model: ") and not current:
            models.setdefault(role, set()).add(line.partition(": ")[2].strip(" `"))
        elif role:
            current.append(line)
    out = {}
    for role, bodies in turns.items():
        text = "\n\n".join(t for t in ("\n".join(b).strip() for b in bodies) if t)
        if text and len(models.get(role, ())) == 1:
            out[role] = {"model": next(iter(models[role])), "text": text}
    return out


def read_persuasion(folder: Path) -> tuple[pd.DataFrame, int]:
    """One row per participant: ``topic`` (= ``question``), ``role``, ``model``, ``provider``, ``side``
    (the persuader's assigned side), ``text``, ``n_words``, ``file``; and how many transcripts were refused."""
    rows, refused = [], 0
    for path in sorted(folder.glob("*.md")):
        found = NAME.fullmatch(path.name)
        if not found:
            continue
        texts = participants(path.read_text(encoding="utf-8", errors="replace"))
        named = {"persuader": found.group(2), "target": found.group(3)}
        if set(texts) != set(ROLES) or any(texts[r]["model"] != named[r] for r in ROLES):
            refused += 1
            continue
        for role in ROLES:
            text = texts[role]["text"]
            rows.append({"topic": found.group(1), "role": role, "model": named[role], "side": found.group(4),
                         "text": text, "n_words": len(text.split()), "file": path.name})
    if not rows:
        sys.exit(f"error: no transcripts (prop_<n>__<persuader>__<target>__<pro|con>__<notes>.md) in {folder}")
    frame = pd.DataFrame(rows)
    frame["question"] = frame.topic
    frame["provider"] = frame.model.map(provider_of)
    return frame, refused


def subset_scores(P: np.ndarray, unsure: np.ndarray, frame: pd.DataFrame, masks: dict[str, np.ndarray]) -> dict:
    """:func:`external_answers.scores` on each named subset of ``frame``'s rows (roles, propositions)."""
    y = frame.provider.to_numpy(dtype=object)
    return {name: scores(P[m], unsure[m], y[m]) for name, m in masks.items() if m.any()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transcripts", type=Path, required=True, help="folder of prop_<n>__<persuader>__<target>__... .md files")
    ap.add_argument("--corpus", type=Path, nargs="+", required=True, help="the corpus files (versions, propositions, texts)")
    contender_args(ap, "texts")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if not args.transcripts.is_dir():
        sys.exit(f"error: --transcripts {args.transcripts}: not a folder")
    check_corpus_files(args.corpus)
    contenders, names = contenders_of(args)
    log = timed_log()
    corpus = corpus_sides(args.corpus)
    frame, refused = read_persuasion(args.transcripts)
    held = frame.text.isin(corpus.texts).to_numpy()
    frame = frame[~held].reset_index(drop=True)
    if frame.empty:
        sys.exit("error: every text is in the corpus")
    corpus_topics = {key[0] for key in corpus.by_side if key[2] is not None}  # the debates' propositions
    in_debates = frame.topic.isin(corpus_topics).to_numpy()
    assistants = (frame.provider != OTHER).to_numpy()
    masks = {"persuader": (frame.role == "persuader").to_numpy(), "target": (frame.role == "target").to_numpy(),
             "propositions the corpus's debates hold": in_debates, "propositions new to the corpus": ~in_debates}
    log(f"{len(frame):,} texts of {frame.file.nunique():,} transcripts ({refused} refused, {int(held.sum())} in the "
        f"corpus) by {frame.model.nunique()} models on {frame.topic.nunique()} propositions "
        f"({frame.topic[in_debates].nunique()} in the corpus's debates); "
        + ", ".join(f"{c} {n:,}" for c, n in frame.provider.value_counts().items())
        + f"; median words {int(frame.n_words.median())}")
    kept: list[np.ndarray] = []

    def evaluate(src: str, frame: pd.DataFrame, seen: set[str], log) -> dict:  # keeps P for the paired differences
        t1 = time.time()
        P, unsure = predictions(src, frame.text.tolist())
        log(f"  {len(frame):,} texts scored in {time.time() - t1:.0f} s")
        kept.append(P)
        return {**grouped_scores(P, unsure, frame, seen), "subsets": subset_scores(P, unsure, frame, masks)}

    results, edited = score_contenders(contenders, names, frame, corpus.versions, evaluate, args.edits, log)
    probs = dict(zip(names, kept, strict=True))
    first = names[0]
    # external_debates.paired's "newer" subset is here the assistants' texts
    diffs = {name: {k.replace("_newer", "_assistants"): v for k, v in paired(probs[first], probs[name], frame,
                                                                            assistants).items()}
             for name in names[1:]}
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"transcripts": str(args.transcripts), "n": len(frame), "n_transcripts": int(frame.file.nunique()),
               "refused": refused, "dropped_in_corpus": int(held.sum()), "models": sorted(frame.model.unique()),
               "by_provider": frame.provider.value_counts().to_dict(),
               "median_words": {r: int(frame.n_words[frame.role == r].median()) for r in ROLES},
               "propositions_in_debates": sorted(frame.topic[in_debates].unique()),
               "propositions_new": sorted(frame.topic[~in_debates].unique()),
               "results": results, "edits": edited, "paired_vs_first": diffs}
    atomic_write(args.out / "results.json", json.dumps(summary, indent=1) + "\n")
    subsets = {f"{name}: {s}": {"groups": {"all": v}} for name, res in results.items() for s, v in res["subsets"].items()}
    atomic_write(args.out / "table.md", table(results) + "\n\n" + table(subsets) + "\n")
    atomic_write(args.out / "predictions.csv",
                 predictions_csv(frame, ["file", "role", "topic", "model", "provider", "n_words"], probs))
    figure(results, args.figure or args.out / "external_persuasion.png",
           title="Persuasion chats (lechmazur/persuasion), per assistant version", metric="accuracy")
    print(table(results))
    print(table(subsets))
    for name, d in diffs.items():
        print(f"{name} minus {first}:", d)
    log("done")


if __name__ == "__main__":
    main()
