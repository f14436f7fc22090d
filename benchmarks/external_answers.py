"""Out-of-corpus test (issue 17): the model on chat answers from another source, Arena-Hard-Auto.

Every number in docs/predict.md before this one is measured on ``../shared/corpus``. This reads
the model answers of Arena-Hard-Auto v0.1 (lmarena/arena-hard-auto, Apache-2.0): 500 hard,
mostly technical prompts from Chatbot Arena users, each answered by dozens of models, among them
the issue's "Claude 3/3.5, GPT-4/4o/o1, Gemini 1.0/1.5". Nothing here is fitted, chosen or
tuned on these texts: it is a test set only, scored once per model file given.

Protocol, fixed before the first run:

- Input: a folder of ``<model>.jsonl`` files in FastChat's ``model_answer`` format (one JSON
  object a line: ``model_id``, ``question_id``, ``choices[0].turns[*].content``; the turns of an
  answer are joined by a blank line). Get it with
  ``git clone https://github.com/lmarena/arena-hard-auto`` (``data/arena-hard-v0.1/model_answer``)
  or a fork that holds more answer files.
- Label: ``whowrote.data.providers.provider_of(model_id)`` (Gemma is OTHER, as in the corpus).
- Dropped: answers with fewer than 50 words (``MIN_WORDS``; the model's own floor for a verdict
  is lower, but a one-line answer says nothing of style), and model ids matching ``EXCLUDE``
  (fine-tune checkpoints of a fork's own, and a second run of a model already present).
- "Seen version": the model id, normalised (``normalise``), is one the corpus's chat genre holds
  (its AlpacaEval answers are by 2023-24 versions too); every other assistant version is unseen.
- Scores, for every ``--src`` (a source tree, or ``"SRC --model DIR"``: that tree reading another
  model, as in ``benchmarks/predict.py``; default ``src``), from ``attribute`` (what ``whowrote
  predict`` runs), in a child process with that tree on ``PYTHONPATH``: 4-way accuracy; 3-way accuracy (the most probable of the three assistants, on
  their texts) and its mean over the three (their answer counts differ); recall per label; ECE;
  OTHER AUROC; how often "uncertain" fires and the accuracy of the rest; the share of verdicts at
  >= 0.9 confidence and how often they are right; all split by seen / unseen version, by length
  and by whether the answer holds a code block. 95 % intervals resample whole prompts (answers to
  one prompt share their content), 1,000 draws.
- ``--edits N``: the suite's everyday edits (``whowrote.style.edits``) on N answers (the same
  share of every label, seeded), 4-way and 3-way accuracy per edit.

::

    git worktree add /tmp/c64 c64209e     # the default model when issue 17 was filed
    python benchmarks/external_answers.py --answers arena-hard-auto/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/chat.jsonl --out results/external_answers --edits 2000 \\
        --src /tmp/c64/src --src src
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from robustness import timed_log
from trial_noise import topic_weights, weighted_mean

from whowrote.data.generate.store import atomic_write
from whowrote.data.providers import provider_of
from whowrote.data.readers import iter_json_rows, read_fastchat_answers
from whowrote.style.calibration import expected_calibration_error, reliability
from whowrote.style.edits import edits
from whowrote.style.heldout import capped
from whowrote.types import LABELS, OTHER, PROVIDERS, WhowroteError

MIN_WORDS = 50
EXCLUDE = re.compile(r"^krikri|no-sys-prompt")
# Versions the bundled model never trained on (session 37: it trained on half A's answers by the
# other versions; see benchmarks/external_training.py): the newest or a sibling version of each
# assistant, and four whole OTHER families.
HELD_OUT = re.compile(r"^(?:claude-3-5-sonnet-20241022|claude-3-haiku-20240307|o1-preview-2024-09-12|"
                      r"gpt-4o-2024-08-06|gpt-3\.5-turbo-0125|gemini-1\.5-pro-api-0514|qwen|yi-|phi-3|command-r)")
N_BOOT = 1000
LENGTHS = ((50, 150), (150, 400), (400, 10**9))


def read_answers(folder: Path) -> pd.DataFrame:
    """One row per answer: ``model``, ``provider``, ``question``, ``text``, ``n_words``, ``code``,
    ``half_a`` (its prompt is in half A) and ``held_out`` (a version never trained on)."""
    try:
        frame = read_fastchat_answers(folder).rename(columns={"topic": "question"})
    except WhowroteError as e:
        sys.exit(f"error: {e}")
    if frame.empty:
        sys.exit(f"error: no answers in {folder}")
    frame = frame[~frame.model.str.contains(EXCLUDE)]
    frame["n_words"] = frame.text.str.split().str.len()
    frame = frame[frame.n_words >= MIN_WORDS].reset_index(drop=True)
    frame["provider"] = frame.model.map(provider_of)
    frame["code"] = frame.text.str.contains("```", regex=False)
    frame["half_a"] = frame.question.map(half_a)
    frame["held_out"] = frame.model.str.contains(HELD_OUT)
    return frame


def half_a(question: str) -> bool:
    """The prompt halves of ``benchmarks/external_training.py``: half A may be trained on."""
    return hashlib.sha256(question.encode()).digest()[0] % 2 == 0


def normalise(model: str) -> str:
    """A model id as both sources spell it: lower case, ``_`` -> ``-``, ``gpt4`` -> ``gpt-4``,
    ``gpt35`` -> ``gpt-3.5``, ``claude-2.0`` -> ``claude-2``, a trailing ``-concise``/``-verbose``
    (AlpacaEval's prompt variants) dropped."""
    name = model.lower().replace("_", "-")
    name = re.sub(r"^gpt4(?=-|$)", "gpt-4", re.sub(r"^gpt35(?=-|$)", "gpt-3.5", name))
    name = re.sub(r"-(concise|verbose)$", "", name)
    return re.sub(r"^claude-2\.0$", "claude-2", name)


def corpus_versions(path: Path) -> set[str]:
    return {normalise(str(row.get("model", ""))) for _, row in iter_json_rows(path)}


MODEL_SEP = " --model "
# Run in the contender's tree: only load_model and attribute, whose API every version shares.
WORKER = """
import json, sys
from whowrote.style import load_model
model = load_model(sys.argv[3] or None)
texts = json.load(open(sys.argv[1], encoding="utf-8"))
labels = ("CLAUDE", "CHATGPT", "GEMINI", "OTHER")
rows = [[a.probabilities[c] for c in labels] + [float(a.uncertain)] for a in model.attribute(texts, n_tells=0)]
json.dump(rows, open(sys.argv[2], "w"))
"""


def predictions(contender: str, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(P, uncertain)`` from ``contender``'s tree: probabilities in ``LABELS`` order and the
    abstain flag, as its ``predict`` gives them."""
    src, _, model_dir = contender.partition(MODEL_SEP)
    with tempfile.TemporaryDirectory() as tmp:
        given, got = Path(tmp) / "texts.json", Path(tmp) / "out.json"
        given.write_text(json.dumps(texts), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        done = subprocess.run([sys.executable, "-c", WORKER, str(given), str(got), model_dir], env=env,
                              capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"error: {contender}: {(done.stderr.strip().splitlines() or ['failed'])[-1]}")
        rows = np.array(json.loads(got.read_text()))
    return rows[:, :4], rows[:, 4] > 0.5


def predictions_csv(frame: pd.DataFrame, columns: list[str], probs: dict[str, np.ndarray]) -> str:
    """``frame``'s ``columns`` and each contender's probabilities (``<name>:<label>``, 4 decimals), as CSV."""
    cols = frame[columns].copy()
    for name, P in probs.items():
        for j, label in enumerate(LABELS):
            cols[f"{name}:{label}"] = P[:, j].round(4)
    return cols.to_csv(index=False)


def label_scores(P: np.ndarray, y: np.ndarray) -> dict:
    """Accuracy (4-way), 3-way accuracy (the most probable of the three assistants, on their
    texts), 3-way recall of each assistant present and their mean, and OTHER AUROC when both sides
    occur; ``P`` in ``LABELS`` order."""
    yi = np.array([LABELS.index(v) for v in y])
    three = y != OTHER
    pred3 = P[:, :3].argmax(axis=1)
    out = {"n": int(len(y)), "accuracy": float((P.argmax(axis=1) == yi).mean())}
    if three.any():
        out["accuracy_3way"] = float((pred3[three] == yi[three]).mean())
        rec3 = {c: float((pred3[yi == i] == i).mean()) for i, c in enumerate(PROVIDERS) if (yi == i).any()}
        out["recall_3way"] = rec3
        out["mean_recall_3way"] = float(np.mean(list(rec3.values())))
    if 0 < (y == OTHER).sum() < len(y):
        from sklearn.metrics import roc_auc_score

        out["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, LABELS.index(OTHER)]))
    return out


def scores(P: np.ndarray, unsure: np.ndarray, y: np.ndarray) -> dict:
    """:func:`label_scores`, and what a user sees: ECE, how often "uncertain" fires and the accuracy
    of the rest, verdicts at >= 0.9 confidence, 4-way recall and what was predicted."""
    yi = np.array([LABELS.index(v) for v in y])
    pred = P.argmax(axis=1)
    sure = P.max(axis=1) >= 0.9
    return {**label_scores(P, y), "ece": expected_calibration_error(P, yi), "uncertain": float(unsure.mean()),
            "accuracy_not_uncertain": float((pred == yi)[~unsure].mean()) if (~unsure).any() else None,
            "confident_share": float(sure.mean()),
            "confident_precision": float((pred == yi)[sure].mean()) if sure.any() else None,
            "recall": {c: float((pred[yi == i] == i).mean()) for i, c in enumerate(LABELS) if (yi == i).any()},
            "predicted": {c: int((pred == i).sum()) for i, c in enumerate(LABELS)}}


def intervals(P: np.ndarray, y: np.ndarray, questions: np.ndarray, seed: int = 0) -> dict:
    """95 % intervals of 4-way, 3-way and mean-recall 3-way accuracy, resampling whole prompts."""
    counts = topic_weights(questions, N_BOOT, np.random.default_rng(seed))
    yi = np.array([LABELS.index(v) for v in y])
    right4 = P.argmax(axis=1) == yi
    right3 = P[:, :3].argmax(axis=1) == yi
    three = y != OTHER
    boot = {"accuracy": weighted_mean(right4, counts),
            "accuracy_3way": weighted_mean(right3[three], counts[:, three])}
    recalls = [counts[:, yi == i] @ right3[yi == i] / np.maximum(counts[:, yi == i].sum(axis=1), 1)
               for i in range(3) if (yi == i).any()]
    boot["mean_recall_3way"] = np.mean(recalls, axis=0)
    return {k: [round(float(v), 4) for v in np.percentile(b, (2.5, 97.5))] for k, b in boot.items()}


def evaluate(contender: str, frame: pd.DataFrame, seen: set[str], log) -> dict:
    t0 = time.time()
    P, unsure = predictions(contender, frame.text.tolist())
    log(f"  {len(frame):,} answers scored in {time.time() - t0:.0f} s")
    y = frame.provider.to_numpy(dtype=object)
    is_seen = frame.model.map(normalise).isin(seen).to_numpy() & (y != OTHER)
    groups = {"all": np.ones(len(y), bool), "assistants, seen versions": is_seen,
              "assistants, unseen versions": (~is_seen) & (y != OTHER),
              "assistants, versions trained on (arena)": (~frame.held_out.to_numpy()) & (y != OTHER),
              "assistants, versions held out (arena)": frame.held_out.to_numpy() & (y != OTHER),
              "with a code block": frame.code.to_numpy(), "without a code block": ~frame.code.to_numpy()}
    for lo, hi in LENGTHS:
        groups[f"{lo}-{hi if hi < 10**9 else ''} words"] = ((frame.n_words >= lo) & (frame.n_words < hi)).to_numpy()
    out = {"groups": {g: scores(P[m], unsure[m], y[m]) for g, m in groups.items() if m.any()},
           "intervals": intervals(P, y, frame.question.to_numpy()),
           "reliability": reliability(P, np.array([LABELS.index(v) for v in y]))}
    per_model = {}
    for name, idx in frame.groupby("model").indices.items():
        s = scores(P[idx], unsure[idx], y[idx])
        per_model[name] = {"provider": y[idx[0]], "seen": bool(is_seen[idx[0]]),
                           "held_out": bool(frame.held_out.to_numpy()[idx[0]]), "n": s["n"], "accuracy": s["accuracy"],
                           "accuracy_3way": s.get("accuracy_3way"), "uncertain": s["uncertain"],
                           "predicted": s["predicted"]}
    out["per_model"] = per_model
    return out


def edit_block(contender: str, frame: pd.DataFrame, n: int, seed: int, log) -> dict:
    sample = capped(frame, n, seed)
    y = sample.provider.to_numpy(dtype=object)
    out = {}
    for name, edit in edits(seed).items():
        P, unsure = predictions(contender, [edit(t) for t in sample.text])
        s = scores(P, unsure, y)
        out[name] = {k: s.get(k) for k in ("n", "accuracy", "accuracy_3way", "mean_recall_3way", "uncertain", "ece")}
        log(f"  edit {name}: 4-way {s['accuracy']:.3f}, 3-way {s.get('accuracy_3way', float('nan')):.3f}")
    return out


def contender_args(ap: argparse.ArgumentParser, texts: str) -> argparse.ArgumentParser:
    """The arguments every out-of-corpus script takes: ``--src``, ``--name``, ``--edits`` (how many
    ``texts`` to score under every edit) and ``--figure``."""
    ap.add_argument("--src", action="append", default=[],
                    help='a source tree, or "SRC --model DIR" (repeat to compare; default: src)')
    ap.add_argument("--name", action="append", default=[],
                    help="a label for each --src, in order, for the tables and the figure (default: the --src)")
    ap.add_argument("--edits", type=int, default=0, help=f"{texts} to score under every edit (0: none)")
    ap.add_argument("--figure", type=Path, default=None, help="write the figure here (default: in --out)")
    return ap


def contenders_of(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """``--src`` (default ``src``) and their ``--name`` (default: the ``--src``), or a one-line exit."""
    contenders = args.src or ["src"]
    if args.name and len(args.name) != len(contenders):
        sys.exit(f"error: {len(args.name)} --name for {len(contenders)} --src")
    return contenders, args.name or contenders


def check_corpus_files(paths: list[Path]) -> None:
    """A one-line exit naming the first ``--corpus`` path that is not a file."""
    for path in paths:
        if not path.is_file():
            sys.exit(f"error: --corpus {path}: no such file")


def score_contenders(contenders: list[str], names: list[str], frame: pd.DataFrame, seen: set[str], evaluate,
                     n_edits: int, log) -> tuple[dict, dict]:
    """Each contender's ``evaluate(src, frame, seen, log)`` and, with ``n_edits``, its :func:`edit_block`,
    by name."""
    results, edited = {}, {}
    for src, name in zip(contenders, names, strict=True):
        log(f"contender {name} ({src})")
        results[name] = evaluate(src, frame, seen, log)
        if n_edits:
            edited[name] = edit_block(src, frame, n_edits, 0, log)
    return results, edited


def f(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def table(results: dict) -> str:
    lines = ["| model | group | n | 4-way | 3-way | mean 3-way recall | CLAUDE / CHATGPT / GEMINI recall (3-way) | "
             "OTHER AUROC | ECE | uncertain | ≥ 0.9 conf: share, right |", "|---|---|---:|" + "---:|" * 8]
    for name, res in results.items():
        for g, s in res["groups"].items():
            r3 = s.get("recall_3way", {})
            rec = " / ".join(f"{r3[c]:.2f}" if c in r3 else "–" for c in PROVIDERS)
            lines.append(f"| {name} | {g} | {s['n']:,} | {s['accuracy']:.3f} | {f(s.get('accuracy_3way'))} | "
                         f"{f(s.get('mean_recall_3way'))} | {rec} | {f(s.get('other_auroc'))} | {s['ece']:.3f} | "
                         f"{s['uncertain']:.2f} | {s['confident_share']:.2f}, {f(s['confident_precision'])} |")
    return "\n".join(lines)


def figure(results: dict, out: Path, held_out_marks: bool = False,
           title: str = "Arena-Hard-Auto answers, per assistant version", metric: str = "accuracy_3way") -> None:
    """Per assistant version, each contender's 3-way accuracy (``metric`` "accuracy": 4-way); versions
    marked "(unseen)" (not in the corpus) or, with ``held_out_marks``, "(held out)" of the bundled
    model's training."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = next(iter(results.values()))
    rows = sorted(first["per_model"].items(), key=lambda kv: (PROVIDERS.index(kv[1]["provider"])
                                                             if kv[1]["provider"] in PROVIDERS else 3, kv[0]))
    rows = [(m, r) for m, r in rows if r["provider"] != OTHER]
    colours = {"CLAUDE": "#d97757", "CHATGPT": "#10a37f", "GEMINI": "#4285f4"}
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 6), gridspec_kw={"width_ratios": [2.2, 1]})
    width = 0.8 / len(results)
    fade = 0.35 * min(1, 2 / max(1, len(results) - 1))  # bars fade to alpha 0.3 however many contenders
    for k, (name, res) in enumerate(results.items()):
        vals = [res["per_model"][m][metric] for m, _ in rows]
        ax.barh(np.arange(len(rows)) + k * width, vals, height=width, alpha=1 - fade * k, label=name,
                color=[colours[r["provider"]] for _, r in rows],
                hatch=None if k == 0 else "//", edgecolor="white")
    ax.set_yticks(np.arange(len(rows)) + 0.4 - width / 2)
    def mark(r: dict) -> str:
        if held_out_marks:
            return " (held out)" if r.get("held_out") else ""
        return "" if r["seen"] else " (unseen)"

    ax.set_yticklabels([f"{m}{mark(r)}" for m, r in rows], fontsize=8)
    ax.axvline(1 / 3 if metric == "accuracy_3way" else 1 / 4, color="grey", ls=":", lw=1)  # chance
    ax.set_xlabel("3-way accuracy (most probable of the three assistants)" if metric == "accuracy_3way"
                  else "4-way accuracy (OTHER is a wrong answer)")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    if len(results) > 1:
        ax.legend(fontsize=8)
    ax.set_title(title + (" (half B: prompts never trained on)" if held_out_marks else ""))
    for name, res in results.items():
        rel = [b for b in res["reliability"] if b["count"] > 0]
        ax2.plot([b["confidence"] for b in rel], [b["accuracy"] for b in rel], "o-", label=name)
    ax2.plot([0, 1], [0, 1], color="grey", ls=":")
    ax2.set_xlabel("confidence (top probability)")
    ax2.set_ylabel("accuracy (4-way)")
    ax2.set_title("Reliability, all texts")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=Path, required=True, help="folder of <model>.jsonl answer files")
    ap.add_argument("--corpus", type=Path, required=True, help="the corpus's chat.jsonl (which versions it holds)")
    contender_args(ap, "answers")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--prompts", choices=("all", "B"), default="all",
                    help="B: only the half of the prompts no model here trained on (see HELD_OUT)")
    args = ap.parse_args()
    if not args.answers.is_dir():
        sys.exit(f"error: --answers {args.answers}: not a folder")
    if not args.corpus.is_file():
        sys.exit(f"error: --corpus {args.corpus}: no such file")
    log = timed_log()

    frame = read_answers(args.answers)
    if args.prompts == "B":
        frame = frame[~frame.half_a].reset_index(drop=True)
    seen = corpus_versions(args.corpus)
    log(f"{len(frame):,} answers by {frame.model.nunique()} models, {frame.question.nunique()} prompts; "
        + ", ".join(f"{c} {n:,}" for c, n in frame.provider.value_counts().items()))
    contenders, names = contenders_of(args)
    results, edited = score_contenders(contenders, names, frame, seen, evaluate, args.edits, log)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"answers": str(args.answers), "prompts": args.prompts, "n": len(frame), "models": sorted(frame.model.unique()),
               "by_provider": frame.provider.value_counts().to_dict(), "results": results, "edits": edited}
    atomic_write(args.out / "results.json", json.dumps(summary, indent=1) + "\n")
    atomic_write(args.out / "table.md", table(results) + "\n")
    figure(results, args.figure or args.out / "external_answers.png", held_out_marks=args.prompts == "B")
    print(table(results))
    for name, res in results.items():
        print(name, "intervals:", res["intervals"])
    log("done")


if __name__ == "__main__":
    main()
