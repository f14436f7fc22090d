"""Out-of-corpus test (issue 17): the model on debates by assistant versions newer than the corpus.

``benchmarks/external_stories.py`` found the newer Claude versions (Opus 5, 5.5, Fable 5.1) never
named CLAUDE in short stories, a genre the corpus has only by 2024-25 versions. This asks the same of
the corpus's own debate genre: the later transcripts of ``lechmazur/debate`` (the corpus's debates
are an early snapshot of it), where Claude Opus 5 / 5.5, Fable 5 / 5.1 and Sonnet 5, GPT-5.6 and
GPT-6 Astra, Gemini 3.5 / 3.7 / 3.8 Flash and many newer open models debate the same propositions.
The second question is whether texts of one source teach another: contenders fitted with the
newest versions' stories (``story_training.py --write-train``) against the same fit without them.

Protocol, fixed before the first run:

- Input: a folder of transcripts (``transcripts/prop_<n>__<pro>__<con>__s<k>__tpl_<t>.md``). A
  transcript gives two texts, one per side, made as the corpus's ``debates.jsonl`` was (checked on
  the corpus's own snapshot, see ``--check``): a side's turns in order, each turn's body without its
  metadata, without the claim ids that open its lines (``[P1.2] ``), the cited ids (`` [C1.3]``,
  ``[C2.6-C2.7]``, ``[C1.2-3]``) and the ``[clipped]`` marks, the turns joined by a blank line.
- Transcripts (chosen from the repository's ``.publication_manifest.json`` before any was read,
  ``results/external_debates/transcripts.txt``): of the listed transcripts with a newer assistant
  version, for each such version 8 spread evenly over its list (by proposition), counting the ones
  already chosen for another; then 4 of each seen assistant version likewise. Their opponents'
  sides (mostly newer open models) are scored as OTHER.
- A side whose (proposition, model, side) the corpus holds, or whose text it holds, is dropped.
- Label ``provider_of(model)``; "seen version" as in ``external_stories.py`` (the version, without
  effort suffixes, is in some corpus file); intervals resample whole propositions, 1,000 draws.
- Every ``--src`` scored as in ``external_stories.py``. With two or more, each later contender
  minus the first, paired over the same texts: mean 3-way recall and 3-way accuracy on the
  newer assistant versions, 4-way accuracy on all texts (95 % intervals, whole propositions).
- Transfer rule (the stories' question): stories "teach debates" if the story-fitted contender's
  mean 3-way recall on the newer assistant versions gains >= 5 points with the interval's lower end
  above 0, and its 4-way accuracy on all texts does not fall by more than 1 point.

::

    python benchmarks/external_debates.py --transcripts /tmp/s57/deb \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --src src --src "src --model models/refit_s57" --src "src --model models/story_refit_s57" \\
        --name bundled --name refit --name "refit + stories" --edits 200 --out results/external_debates \\
        --figure docs/figures/external_debates.png
    # the parser against the corpus: the repository at the corpus's snapshot (934bfc0)
    git clone https://github.com/lechmazur/debate /tmp/debate && git -C /tmp/debate checkout 934bfc0
    python benchmarks/external_debates.py --check /tmp/debate/transcripts --corpus ../shared/corpus/debates.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
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
    table,
)
from external_stories import grouped_scores, version
from robustness import timed_log
from trial_noise import topic_weights

from whowrote.data.generate.store import atomic_write
from whowrote.data.providers import provider_of
from whowrote.data.readers import iter_json_rows
from whowrote.types import LABELS, OTHER

NAME = re.compile(r"(prop_\d{1,6})__(.+?)__(.+?)__s[01]__tpl_[\w.-]+\.md")
CLAIM_ID = re.compile(r"^\[[PC]\d{1,3}\.\d{1,3}\] ", re.M)
# A cited id or a list or range of them, with the space before it; bounded repeats: linear in the text.
CITED = re.compile(r"\s?\[[PC]\d{1,3}\.\d{1,3}(?:[ \t]{0,3}[,\-–‑][ \t]{0,3}[PC]?\d{1,3}(?:\.\d{1,3})?){0,50}\]")
CLIPPED = re.compile(r" ?\[clipped\]")
N_BOOT = 1000


def turn_text(body: str) -> str:
    """One turn's text: the body after its metadata lines, without claim ids, cited ids or clip marks."""
    _, _, text = body.lstrip("\n").partition("\n\n")
    text = CLAIM_ID.sub("", text)
    text = CLIPPED.sub("", text)
    return CITED.sub("", text).strip()


def debate_sides(raw: str) -> list[dict]:
    """The two sides of a transcript: ``side``, ``model`` (the turns' ``- model:``) and ``text``."""
    turns: dict[str, list[list[str]]] = {}  # side -> its turns, each a list of lines (joined once: linear)
    models: dict[str, str] = {}
    current: list[str] | None = None
    for line in raw.split("\n"):
        if line.startswith("## Turn "):
            side = line.partition(": ")[2].partition(" ")[0]
            current = None
            if side in ("PRO", "CON"):
                current = []
                turns.setdefault(side, []).append(current)
            continue
        if current is None:
            continue
        if line.startswith("- model: ") and side not in models:
            models[side] = line[len("- model: "):].strip()
        current.append(line)
    sides = []
    for side, bodies in turns.items():
        text = "\n\n".join(t for t in (turn_text("\n".join(b) + "\n") for b in bodies) if t)
        if text and side in models:
            sides.append({"side": side, "model": models[side], "text": text})
    return sides


def read_debates(folder: Path) -> pd.DataFrame:
    """One row per side: ``topic`` (= ``question``), ``model``, ``provider``, ``side``, ``text``,
    ``n_words``, ``file``."""
    rows = []
    for path in sorted(folder.glob("*.md")):
        found = NAME.fullmatch(path.name)
        if not found:
            continue
        for side in debate_sides(path.read_text(encoding="utf-8", errors="replace")):
            rows.append({**side, "topic": found.group(1), "file": path.name, "n_words": len(side["text"].split())})
    if not rows:
        sys.exit(f"error: no transcripts (prop_<n>__<pro>__<con>__s<k>__tpl_<t>.md) in {folder}")
    frame = pd.DataFrame(rows)
    frame["question"] = frame.topic
    frame["provider"] = frame.model.map(provider_of)
    return frame


@dataclass(frozen=True)
class CorpusSides:
    """What the corpus files hold, read once: each (proposition, model, side)'s texts, every text and
    every version (:func:`external_stories.version`)."""

    by_side: dict[tuple, set[str]]
    texts: set[str]
    versions: set[str]


def corpus_sides(paths: list[Path]) -> CorpusSides:
    by_side: dict[tuple, set[str]] = {}
    texts: set[str] = set()
    versions: set[str] = set()
    for path in paths:
        for _, row in iter_json_rows(path):
            text = str(row.get("text") or row.get("content") or "")
            by_side.setdefault((row.get("topic"), row.get("model"), row.get("side")), set()).add(text)
            texts.add(text)
            versions.add(version(str(row.get("model", ""))))
    return CorpusSides(by_side, texts, versions)


def drop_corpus(frame: pd.DataFrame, corpus: CorpusSides) -> tuple[pd.DataFrame, int]:
    """``frame`` without the sides the corpus holds (same proposition, model and side, or same text)."""
    sides = zip(frame.topic, frame.model, frame.side, strict=True)
    held = np.array([key in corpus.by_side or text in corpus.texts for key, text in zip(sides, frame.text, strict=True)],
                    bool)
    return frame[~held].reset_index(drop=True), int(held.sum())


def paired(P0: np.ndarray, P1: np.ndarray, frame: pd.DataFrame, newer: np.ndarray, seed: int = 0) -> dict:
    """``P1`` minus ``P0`` in points with 95 % intervals over whole propositions: mean 3-way recall and
    3-way accuracy on the newer assistant versions, 4-way accuracy on all texts."""
    y = np.array([LABELS.index(v) for v in frame.provider])
    w = topic_weights(frame.topic.to_numpy(), N_BOOT, np.random.default_rng(seed))
    ones = np.ones((1, len(y)))

    def stats(P: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
        r3 = (P[:, :3].argmax(axis=1) == y).astype(float)
        r4 = (P.argmax(axis=1) == y).astype(float)
        wn = weights[:, newer]
        recalls = [wn[:, y[newer] == i] @ r3[newer][y[newer] == i] / np.maximum(wn[:, y[newer] == i].sum(axis=1), 1)
                   for i in range(3) if (y[newer] == i).any()]
        return {"mean_recall_3way_newer": np.mean(recalls, axis=0),
                "accuracy_3way_newer": wn @ r3[newer] / np.maximum(wn.sum(axis=1), 1),
                "accuracy_all": weights @ r4 / weights.sum(axis=1)}

    point0, point1, boot0, boot1 = stats(P0, ones), stats(P1, ones), stats(P0, w), stats(P1, w)
    out = {}
    for k in point0:
        lo, hi = np.percentile(100 * (boot1[k] - boot0[k]), (2.5, 97.5))
        out[k] = {"diff": round(100 * float(point1[k][0] - point0[k][0]), 2), "lo": round(float(lo), 2),
                  "hi": round(float(hi), 2)}
    return out


def transfer_rule(diff: dict) -> dict[str, bool]:
    """The protocol's rule for "stories teach debates", from :func:`paired`'s output."""
    recall, total = diff["mean_recall_3way_newer"], diff["accuracy_all"]
    return {"newer recall +5, interval above 0": recall["diff"] >= 5 and recall["lo"] > 0,
            "all 4-way at most -1": total["diff"] >= -1}


def check(folder: Path, corpus: CorpusSides) -> None:
    """How many of a transcript folder's sides the parser turns into exactly a corpus text."""
    frame = read_debates(folder)
    texts = corpus.by_side
    sides = list(zip(frame.topic, frame.model, frame.side, strict=True))
    known = [key for key, text in zip(sides, frame.text, strict=True) if key in texts]
    same = sum(text in texts[key] for key, text in zip(sides, frame.text, strict=True) if key in texts)
    print(f"{len(frame):,} sides; {len(known):,} in the corpus; {same:,} of them read to exactly the corpus's text")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transcripts", type=Path, help="folder of prop_<n>__<pro>__<con>__s<k>__tpl_<t>.md files")
    ap.add_argument("--check", type=Path, default=None, help="only compare this folder's sides with the corpus's")
    ap.add_argument("--corpus", type=Path, nargs="+", required=True, help="the corpus files (versions, sides to drop)")
    contender_args(ap, "sides")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    check_corpus_files(args.corpus)
    folder = args.check or args.transcripts
    if folder is None or not folder.is_dir():
        sys.exit(f"error: {'--check' if args.check else '--transcripts'} {folder}: not a folder")
    corpus = corpus_sides(args.corpus)
    if args.check:
        return check(args.check, corpus)
    if args.out is None:
        sys.exit("error: --out is required with --transcripts")
    contenders, names = contenders_of(args)
    log = timed_log()

    frame, dropped = drop_corpus(read_debates(folder), corpus)
    if frame.empty:
        sys.exit("error: every side is in the corpus")
    seen = corpus.versions
    newer = (~frame.model.map(version).isin(seen) & (frame.provider != OTHER)).to_numpy()
    log(f"{len(frame):,} sides of {frame.file.nunique()} transcripts ({dropped} in the corpus, dropped) by "
        f"{frame.model.nunique()} models on {frame.topic.nunique()} propositions; "
        + ", ".join(f"{c} {n:,}" for c, n in frame.provider.value_counts().items()) + f"; newer assistants {newer.sum()}")
    kept: list[np.ndarray] = []

    def evaluate(src: str, frame: pd.DataFrame, seen: set[str], log) -> dict:  # keeps P for the paired differences
        P, unsure = predictions(src, frame.text.tolist())
        kept.append(P)
        return grouped_scores(P, unsure, frame, seen)

    results, edited = score_contenders(contenders, names, frame, seen, evaluate, args.edits, log)
    probs = dict(zip(names, kept, strict=True))
    first = names[0]
    diffs = {name: paired(probs[first], probs[name], frame, newer) for name in names[1:]}
    rules = {name: transfer_rule(d) for name, d in diffs.items()}
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"transcripts": str(folder), "n": len(frame), "n_transcripts": int(frame.file.nunique()),
               "dropped_in_corpus": dropped, "models": sorted(frame.model.unique()),
               "by_provider": frame.provider.value_counts().to_dict(),
               "newer_versions": sorted(set(frame.model[newer])), "results": results, "edits": edited,
               "paired_vs_first": diffs, "transfer_rule": rules}
    atomic_write(args.out / "results.json", json.dumps(summary, indent=1) + "\n")
    atomic_write(args.out / "table.md", table(results) + "\n")
    atomic_write(args.out / "predictions.csv",
                 predictions_csv(frame, ["file", "side", "topic", "model", "provider", "n_words"], probs))
    figure(results, args.figure or args.out / "external_debates.png",
           title="Debates (lechmazur/debate, later transcripts), per assistant version", metric="accuracy")
    print(table(results))
    for name, d in diffs.items():
        print(f"{name} minus {first}:", d, rules[name])
    log("done")


if __name__ == "__main__":
    main()
