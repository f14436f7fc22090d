"""Out-of-corpus test (issue 17): the model on short stories by assistant versions newer than the corpus.

The corpus's texts end with Claude Opus 4.8, GPT-5.5 and Gemini 3.1. This reads the stories of
Lech Mazur's creative story-writing benchmark (``lechmazur/writing``, ``stories_wc/<model>/
story_wc_<prompt>.txt``: 600-800 word stories, every model answering the same prompts), where
later versions also wrote: Claude Opus 5 / 5.5 and Claude Fable 5.1, GPT-6 Astra, Gemini 3.7 and
3.8 Flash. Its stories are a source the model never trained on (the corpus's fiction is
EQ-Bench's, by 2024-25 versions); its debates are the same author's, another task. Nothing
here is fitted, chosen or tuned on these texts: it is a test set only.

Protocol, fixed before the first run:

- Input: a folder of ``<model>/story_wc_<n>.txt`` files (a clone's ``stories_wc``, or any subset
  of its model folders). A file holds its name, then the story between ``<story>`` and
  ``</story>``. The benchmark asked each model to write its running word count after every
  sentence (``[40]``; the models' own counts, often a word or two off, so no checksum); no text
  a user brings has them, so they are removed.
- Label: ``whowrote.data.providers.provider_of(model)``; the prompt is ``<n>`` (the same prompt
  for every model), and 95 % intervals resample whole prompts, 1,000 draws.
- "Seen version": the model id without its effort suffix (``version``) is one the corpus holds
  in any genre (e.g. ``claude-opus-4-6``, ``gpt-5-5``, ``gemini-3-1-pro``: dots read as dashes); every other
  version is unseen: for the three assistants these are the versions newer than the corpus.
- Scores for every ``--src`` as in ``benchmarks/external_answers.py`` (what ``whowrote predict``
  runs, in a child process with that tree): 4-way and 3-way accuracy, mean 3-way recall, OTHER
  AUROC, ECE, how often "uncertain" fires and the accuracy of the rest, verdicts at >= 0.9
  confidence; split by seen / unseen version and per model. ``--edits N`` scores N stories
  under every edit of the suite.

::

    git clone https://github.com/lechmazur/writing    # ~950 MB; or copy some stories_wc/<model> folders
    python benchmarks/external_stories.py --stories writing/stories_wc --prompts 25 --models "$MODELS" \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --edits 400 \\
        --src /tmp/c64/src --src src --name c64209e --name bundled --out results/external_stories \\
        --figure docs/figures/external_stories.png

(``MODELS``: the 16 model folders of ``results/external_stories/results.json``'s ``models``.)
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
    intervals,
    predictions,
    score_contenders,
    scores,
    table,
)
from robustness import timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.providers import provider_of
from whowrote.data.readers import iter_json_rows
from whowrote.style.calibration import reliability
from whowrote.types import LABELS, OTHER

COUNT = re.compile(r"[ \t]?\[(\d{1,6})\]")
# Reasoning-effort and release suffixes that name a setting, not another version.
SUFFIX = re.compile(r"-(?:\d+k|adaptive|none|low|medium|x?high|reasoning|non-reasoning|thinking|preview|exp|it)$")


def version(model: str) -> str:
    """``claude-opus-4-6-16K`` -> ``claude-opus-4-6``; ``gemma-4-31b-it-reasoning`` -> ``gemma-4-31b``;
    a corpus id's owner prefix (``google/``) dropped, dots as dashes (the blogs' ``claude-opus-4.8`` is
    the debates' ``claude-opus-4-8-adaptive``)."""
    name = model.lower().rsplit("/", 1)[-1].replace(".", "-")
    while (shorter := SUFFIX.sub("", name)) != name:
        name = shorter
    return name


def story_text(raw: str) -> str:
    """The text after ``<story>`` up to ``</story>`` (the whole text without them), without the running
    word counts."""
    start = raw.find("<story>")
    if start >= 0:  # str.find, not a lazy regex: linear on a file of many unclosed tags
        end = raw.find("</story>", start)
        raw = raw[start + len("<story>"):end if end >= 0 else None]
    return COUNT.sub("", raw).strip()


def read_stories(folder: Path) -> pd.DataFrame:
    """One row per story: ``model``, ``provider``, ``question`` (the prompt), ``text``, ``n_words``."""
    rows = []
    for path in sorted(folder.glob("*/*.txt")):
        found = re.fullmatch(r"story(?:_wc)?_(\d+)\.txt", path.name)
        if not found:
            continue
        text = story_text(path.read_text(encoding="utf-8", errors="replace"))
        rows.append({"model": path.parent.name, "question": found.group(1), "text": text, "n_words": len(text.split())})
    if not rows:
        sys.exit(f"error: no stories (<model>/story_wc_<n>.txt) in {folder}")
    frame = pd.DataFrame(rows)
    frame["provider"] = frame.model.map(provider_of)
    return frame


def evaluate(contender: str, frame: pd.DataFrame, seen: set[str], log) -> dict:
    t0 = time.time()
    P, unsure = predictions(contender, frame.text.tolist())
    log(f"  {len(frame):,} texts scored in {time.time() - t0:.0f} s")
    return grouped_scores(P, unsure, frame, seen)


def grouped_scores(P: np.ndarray, unsure: np.ndarray, frame: pd.DataFrame, seen: set[str]) -> dict:
    """Scores of one contender's ``(P, unsure)`` on ``frame`` (``model``, ``provider``, ``question``): all,
    assistants' seen and newer versions, OTHER's seen and unseen versions, per model; intervals
    resample whole questions."""
    y = frame.provider.to_numpy(dtype=object)
    is_seen = frame.model.map(version).isin(seen).to_numpy()
    groups = {"all": np.ones(len(y), bool), "assistants, seen versions": is_seen & (y != OTHER),
              "assistants, newer versions": ~is_seen & (y != OTHER), "OTHER, seen versions": is_seen & (y == OTHER),
              "OTHER, unseen versions": ~is_seen & (y == OTHER)}
    out = {"groups": {g: scores(P[m], unsure[m], y[m]) for g, m in groups.items() if m.any()},
           "intervals": intervals(P, y, frame.question.to_numpy()),
           "reliability": reliability(P, np.array([LABELS.index(v) for v in y]))}
    newer = ~is_seen & (y != OTHER)
    if newer.any():
        out["intervals_newer"] = intervals(P[newer], y[newer], frame.question.to_numpy()[newer])
    out["per_model"] = {}
    for name, idx in frame.groupby("model").indices.items():
        s = scores(P[idx], unsure[idx], y[idx])
        out["per_model"][name] = {"provider": y[idx[0]], "seen": bool(is_seen[idx[0]]), "n": s["n"],
                                  "accuracy": s["accuracy"], "accuracy_3way": s.get("accuracy_3way"),
                                  "uncertain": s["uncertain"], "predicted": s["predicted"]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stories", type=Path, required=True, help="folder of <model>/story_wc_<n>.txt files")
    ap.add_argument("--corpus", type=Path, nargs="+", required=True, help="the corpus files (which versions they hold)")
    contender_args(ap, "stories")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--models", default="", help="only these model folders, comma-separated (default: all)")
    ap.add_argument("--prompts", type=int, default=0, help="only prompts 0 .. N-1 (default: all)")
    args = ap.parse_args()
    if not args.stories.is_dir():
        sys.exit(f"error: --stories {args.stories}: not a folder")
    check_corpus_files(args.corpus)
    contenders, names = contenders_of(args)
    log = timed_log()

    frame = read_stories(args.stories)
    if args.models:
        frame = frame[frame.model.isin(args.models.split(","))]
    if args.prompts:
        frame = frame[frame.question.astype(int) < args.prompts]
    if frame.empty:
        sys.exit("error: no stories left after --models / --prompts")
    frame = frame.reset_index(drop=True)
    seen = {version(str(row.get("model", ""))) for path in args.corpus for _, row in iter_json_rows(path)}
    log(f"{len(frame):,} stories by {frame.model.nunique()} models, {frame.question.nunique()} prompts; "
        + ", ".join(f"{c} {n:,}" for c, n in frame.provider.value_counts().items()))
    results, edited = score_contenders(contenders, names, frame, seen, evaluate, args.edits, log)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"stories": str(args.stories), "n": len(frame),
               "models": sorted(frame.model.unique()), "by_provider": frame.provider.value_counts().to_dict(),
               "seen_versions": sorted(set(frame.model[frame.model.map(version).isin(seen)])),
               "results": results, "edits": edited}
    atomic_write(args.out / "results.json", json.dumps(summary, indent=1) + "\n")
    atomic_write(args.out / "table.md", table(results) + "\n")
    figure(results, args.figure or args.out / "external_stories.png", title="Short stories (lechmazur/writing), per assistant version")
    print(table(results))
    for name, res in results.items():
        print(name, "intervals:", res["intervals"], "newer versions:", res.get("intervals_newer"))
    log("done")


if __name__ == "__main__":
    main()
