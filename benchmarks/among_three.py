"""`--among CLAUDE,CHATGPT,GEMINI` out of the corpus: the verdict when the user knows the text is by
one of the three assistants, against the four-way verdict, on texts the model never trained on.

Users often ask "which of ChatGPT, Claude or Gemini wrote this?". The four-way verdict keeps OTHER
in play, and out of the corpus the assistants' answers are often called OTHER (2023 GPT answers read
like the open models tuned on them). ``among`` conditions the calibrated probabilities on the
user's assumption (``whowrote.style.verdict``); nothing is fitted or tuned here, and the abstain
rule is the model's own (top probability below ``abstain_below_``, or farther than the OOD
threshold, or under ``min_words``).

Test sets (the assistants' texts only: the mode assumes one of them), scored through
``StyleModel.attribute`` as ``predict`` runs it:
- Arena-Hard-Auto half B (``external_answers.py --prompts B``: prompts the bundled model never
  trained on; answers of >= 50 words);
- MT-Bench's two-turn chats (``multi_turn.py``: both answers read as the chat log).
Per set and mode: accuracy, mean recall over the assistants present, ECE, the "uncertain" share,
accuracy on the texts not marked uncertain; 95 % intervals of the accuracy difference resample
whole prompts (1,000 draws). And, to show the assumption's cost, where the OTHER models' texts of
each set go under it (they must get one of the three).

::

    OMP_NUM_THREADS=1 python benchmarks/among_three.py --arena /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --mt-bench /tmp/mtbench --out results/among_three
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from external_answers import N_BOOT, read_answers, scores
from multi_turn import read_conversations, scored, view_texts
from trial_noise import topic_weights, weighted_mean

from whowrote.data.generate.store import atomic_write
from whowrote.types import LABELS, OTHER, PROVIDERS

THREE = tuple(PROVIDERS)


def mode_scores(P: np.ndarray, unsure: np.ndarray, y: np.ndarray) -> dict:
    """What a user sees of ``external_answers.scores``, with the mean of the labels' recalls."""
    s = scores(P, unsure, y)
    return {"n": s["n"], "accuracy": s["accuracy"], "mean_recall": float(np.mean(list(s["recall"].values()))),
            "ece": s["ece"], "uncertain": s["uncertain"], "accuracy_not_uncertain": s["accuracy_not_uncertain"]}


def compare(model, texts: list[str], y: np.ndarray, groups: np.ndarray, other_texts: list[str]) -> dict:
    P4, u4 = scored(model, texts, None)
    P3, u3 = scored(model, texts, THREE)
    yi = np.array([LABELS.index(v) for v in y])
    d = (P3.argmax(1) == yi).astype(float) - (P4.argmax(1) == yi)
    boot = weighted_mean(d, topic_weights(groups, N_BOOT, np.random.default_rng(0)))
    P_other, _ = scored(model, other_texts, THREE) if other_texts else (np.zeros((0, 4)), None)
    called = P_other.argmax(1) if len(P_other) else np.zeros(0, int)
    return {"four_way": mode_scores(P4, u4, y), "among_three": mode_scores(P3, u3, y),
            "accuracy_difference": [round(100 * float(d.mean()), 2),
                                    *(round(100 * float(v), 2) for v in np.percentile(boot, (2.5, 97.5)))],
            "other_texts_called": {c: int((called == i).sum()) for i, c in enumerate(THREE)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arena", type=Path, required=True, help="Arena-Hard-Auto's model_answer folder")
    ap.add_argument("--mt-bench", type=Path, required=True, help="MT-Bench's folder: model_answer/ and question.jsonl")
    ap.add_argument("--model", default=None, help="a model directory (default: the bundled model)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from whowrote.style import load_model

    t0 = time.time()
    model = load_model(args.model)
    frame = read_answers(args.arena)
    frame = frame[~frame.half_a]
    mine = frame.provider != OTHER
    convs = read_conversations(args.mt_bench / "model_answer", args.mt_bench / "question.jsonl")
    chats = [c for c in convs if c["provider"] != OTHER]
    others = [c for c in convs if c["provider"] == OTHER]
    result = {
        "arena_half_b": compare(model, frame.text[mine].tolist(), frame.provider[mine].to_numpy(dtype=object),
                                frame.question[mine].to_numpy(), frame.text[~mine].tolist()),
        "mt_bench": compare(model, [view_texts(c)["record"] for c in chats],
                            np.array([c["provider"] for c in chats], dtype=object),
                            np.array([c["question"] for c in chats]), [view_texts(c)["record"] for c in others]),
        "seconds": round(time.time() - t0, 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(result, indent=1))
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
