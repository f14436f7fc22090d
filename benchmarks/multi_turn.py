"""Multi-turn conversations from outside the corpus (issue 17): MT-Bench's two-turn chats, read as
``whowrote predict`` reads a chat log, against one turn alone and against the user's turns read too.

The issue's users brought "multi-turn conversations" among the texts the model failed on; every
other out-of-corpus number (Arena-Hard-Auto, ``external_answers.py``) is single-turn. MT-Bench
(lm-sys/FastChat's ``llm_judge``, Apache-2.0) has 80 questions of two turns each (the second asks
to revise, extend or answer a follow-up to the first), answered by 32 models in 2023: Claude v1 and
Claude Instant v1, GPT-3.5-Turbo and GPT-4, PaLM 2 (chat-bison-001; OTHER by the provider rules:
Google's model before Gemini) and 27 open models (OTHER). Nothing is fitted, chosen or tuned on
these texts; the bundled model (or ``--model``) is scored once.

Protocol, fixed before the first run (this file was committed before it ran):

- Input: ``--answers``, a FastChat ``model_answer`` folder (``<model>.jsonl``: ``model_id``,
  ``question_id``, ``choices[0].turns`` = the two answers), and ``--questions``, its
  ``question.jsonl`` (``turns`` = the two user turns, ``category``). Label:
  ``whowrote.data.providers.provider_of(model_id)``. Kept: conversations whose two answers together
  have >= 50 words (``external_answers.MIN_WORDS``) and whose both answers are non-empty.
- Views of each conversation (the same conversations in each):
  - ``record``: a ``messages`` record (the user's and the assistant's turns) read by
    ``whowrote.formats.conversation_turns``: the two answers joined by a blank line. What
    ``predict`` does with a chat-log row, ``serve`` with ``{"messages": ...}``.
  - ``transcript``: the chat pasted as text, ``User: ...`` / ``Assistant: ...`` lines, read by
    ``attribute`` (``whowrote.style.transcript``). It should equal ``record`` exactly; the number
    of conversations whose probabilities differ is reported.
  - ``json_log``: the ``messages`` list pasted as one JSON text (the page, stdin). Same check.
  - ``turn1``, ``turn2``: each answer alone.
  - ``with_user_turns``: the four turns in order as one plain text with no role lines (the
    user's turns read as the writing).
- Scores per view (``external_answers.scores``): 4-way accuracy; 3-way accuracy and its mean
  recall over the assistants present (CLAUDE, CHATGPT); OTHER AUROC; ECE; "uncertain" share;
  >= 0.9 confidence share and precision; recall and predicted counts. 95 % intervals resample whole
  questions (1,000 draws). Paired differences (same draws): ``record`` minus ``turn1``,
  ``record`` minus ``turn2`` and ``record`` minus ``with_user_turns``, for 4-way accuracy, 3-way
  accuracy and OTHER AUROC.
- Groups of ``record``: all; by MT-Bench category; "assistants, seen versions" (a version the
  corpus's chat genre holds, by ``external_answers.normalise``) and unseen; per model (4-way, 3-way,
  what it was called; PaLM 2's row says which assistant an early Google model is read as).

::

    OMP_NUM_THREADS=1 python benchmarks/multi_turn.py --answers /tmp/mtbench/model_answer \\
        --questions /tmp/mtbench/question.jsonl --corpus ../shared/corpus/chat.jsonl --out results/multi_turn \\
        --figure docs/figures/multi_turn.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from external_answers import MIN_WORDS, N_BOOT, corpus_versions, normalise, scores
from trial_noise import topic_weights, weighted_mean

from whowrote.data.generate.store import atomic_write
from whowrote.data.providers import provider_of
from whowrote.data.readers import iter_json_rows
from whowrote.formats import conversation_turns
from whowrote.types import LABELS, OTHER, WhowroteError

VIEWS = ("record", "transcript", "json_log", "turn1", "turn2", "with_user_turns")
PAIRS = (("record", "turn1"), ("record", "turn2"), ("record", "with_user_turns"))


def read_conversations(answers: Path, questions: Path) -> list[dict]:
    """One dict per kept conversation: ``model``, ``provider``, ``question``, ``category``, ``asks``
    (the two user turns) and ``answers`` (the two assistant turns)."""
    try:
        asked = {row["question_id"]: row for _, row in iter_json_rows(questions)}
        rows = []
        for path in sorted(answers.glob("*.jsonl")):
            for _, row in iter_json_rows(path):
                turns = [t if isinstance(t, str) else t.get("content", "") for t in row["choices"][0]["turns"]]
                q = asked[row["question_id"]]
                rows.append({"model": row["model_id"], "question": row["question_id"], "category": q["category"],
                             "asks": list(q["turns"]), "answers": turns})
    except (WhowroteError, KeyError, IndexError, TypeError, AttributeError) as e:
        sys.exit(f"error: not an MT-Bench answer folder and question file ({type(e).__name__}: {e})")
    kept = [r for r in rows if len(r["answers"]) == 2 == len(r["asks"]) and all(a.strip() for a in r["answers"])
            and sum(len(a.split()) for a in r["answers"]) >= MIN_WORDS]
    for r in kept:
        r["provider"] = provider_of(r["model"])
    return kept


def messages(conv: dict) -> list[dict[str, str]]:
    return [turn for ask, answer in zip(conv["asks"], conv["answers"], strict=True)
            for turn in ({"role": "user", "content": ask}, {"role": "assistant", "content": answer})]


def view_texts(conv: dict) -> dict[str, str]:
    (ask1, ask2), (ans1, ans2) = conv["asks"], conv["answers"]
    turns = messages(conv)
    record = conversation_turns(turns)
    assert record is not None
    return {"record": record[0],
            "transcript": f"User: {ask1}\n\nAssistant: {ans1}\n\nUser: {ask2}\n\nAssistant: {ans2}",
            "json_log": json.dumps(turns, ensure_ascii=False),
            "turn1": ans1, "turn2": ans2, "with_user_turns": f"{ask1}\n\n{ans1}\n\n{ask2}\n\n{ans2}"}


def scored(model, texts: list[str], among: tuple[str, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(P, uncertain)`` of ``texts`` as ``predict`` gives them: probabilities in ``LABELS`` order."""
    found = model.attribute(texts, n_tells=0, among=among)
    return np.array([[a.probabilities[c] for c in LABELS] for a in found]), np.array([a.uncertain for a in found])


def paired(P_a: np.ndarray, P_b: np.ndarray, y: np.ndarray, weights: np.ndarray) -> dict:
    """``a`` minus ``b`` (points) for 4-way, 3-way accuracy and OTHER AUROC, with 95 % intervals
    over the same question resamples (``weights``: one row of question counts per draw)."""
    from sklearn.metrics import roc_auc_score

    yi = np.array([LABELS.index(v) for v in y])
    three, is_other = y != OTHER, y == OTHER
    out = {}
    for name, right_a, right_b, mask in (
            ("accuracy", P_a.argmax(1) == yi, P_b.argmax(1) == yi, np.ones(len(y), bool)),
            ("accuracy_3way", P_a[:, :3].argmax(1) == yi, P_b[:, :3].argmax(1) == yi, three)):
        d = right_a[mask].astype(float) - right_b[mask]
        boot = weighted_mean(d, weights[:, mask])
        out[name] = [round(100 * float(d.mean()), 2), *(round(100 * float(v), 2) for v in np.percentile(boot, (2.5, 97.5)))]
    if 0 < is_other.sum() < len(y):
        oth = LABELS.index(OTHER)
        point = roc_auc_score(is_other, P_a[:, oth]) - roc_auc_score(is_other, P_b[:, oth])
        boot = []
        for w in weights[:100]:  # 100 draws: AUROC on a weighted sample
            boot.append(roc_auc_score(is_other, P_a[:, oth], sample_weight=w)
                        - roc_auc_score(is_other, P_b[:, oth], sample_weight=w))
        out["other_auroc"] = [round(float(point), 4), *(round(float(v), 4) for v in np.percentile(boot, (2.5, 97.5)))]
    return out


def figure(result: dict, out: Path) -> None:
    """Left: each view's 3-way mean recall, 4-way accuracy and OTHER AUROC; right: the paired
    differences with their 95 % intervals (points; AUROC x 100)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = (("mean_recall_3way", "3-way mean recall"), ("accuracy", "4-way accuracy"), ("other_auroc", "OTHER AUROC"))
    views = [v for v in VIEWS if v not in ("transcript", "json_log")]  # the same numbers as record
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1.4, 1]})
    width = 0.8 / len(metrics)
    for k, (key, label) in enumerate(metrics):
        vals = [result["views"][v].get(key) or 0.0 for v in views]
        bars = ax.bar(np.arange(len(views)) + k * width, vals, width=width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(np.arange(len(views)) + width)
    ax.set_xticklabels(["both answers\n(record, pasted)", "first answer", "second answer", "with the user's\nturns"],
                       fontsize=8)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(f"MT-Bench two-turn chats ({result['n_conversations']:,}, {result['n_models']} models), bundled model",
                 fontsize=9)
    rows = [(f"{pair}: {label}", result["paired"][pair].get(key)) for pair in result["paired"]
            for key, label in (("accuracy_3way", "3-way"), ("accuracy", "4-way"), ("other_auroc", "AUROC x100"))]
    rows = [(name, [x * (100 if "AUROC" in name else 1) for x in vals]) for name, vals in rows if vals]
    for i, (_, (point, lo, hi)) in enumerate(rows):
        ax2.errorbar(point, i, xerr=[[point - lo], [hi - point]], fmt="o", color="C0", capsize=3)
    ax2.axvline(0, color="grey", ls=":")
    ax2.set_yticks(range(len(rows)))
    ax2.set_yticklabels([name for name, _ in rows], fontsize=7)
    ax2.invert_yaxis()
    ax2.set_xlabel("difference, points (95 % interval over questions)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=Path, required=True, help="FastChat model_answer folder of MT-Bench")
    ap.add_argument("--questions", type=Path, required=True, help="its question.jsonl")
    ap.add_argument("--corpus", type=Path, required=True, help="the corpus's chat.jsonl (which versions it holds)")
    ap.add_argument("--model", default=None, help="a model directory (default: the bundled model)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--figure", type=Path, default=None, help="also write the figure here")
    args = ap.parse_args()
    from whowrote.style import load_model

    t0 = time.time()
    convs = read_conversations(args.answers, args.questions)
    if not convs:
        sys.exit("error: no conversations kept")
    seen = corpus_versions(args.corpus)
    model = load_model(args.model)
    y = np.array([c["provider"] for c in convs], dtype=object)
    texts = [view_texts(c) for c in convs]
    P, unsure = {}, {}
    for v in VIEWS:
        P[v], unsure[v] = scored(model, [t[v] for t in texts])
        print(f"{v}: {len(texts):,} conversations scored ({time.time() - t0:.0f} s)", file=sys.stderr)
    questions = np.array([c["question"] for c in convs])
    weights = topic_weights(questions, N_BOOT, np.random.default_rng(0))
    is_seen = np.array([normalise(c["model"]) in seen for c in convs]) & (y != OTHER)
    cats = np.array([c["category"] for c in convs])
    groups = {"all": np.ones(len(y), bool), "assistants, seen versions": is_seen,
              "assistants, unseen versions": ~is_seen & (y != OTHER),
              **{f"category {c}": cats == c for c in sorted(set(cats))}}
    models = np.array([c["model"] for c in convs])
    per_model = {}
    for m in sorted(set(models)):
        rows = models == m
        s = scores(P["record"][rows], unsure["record"][rows], y[rows])
        per_model[m] = {"provider": str(y[rows][0]), "seen": bool(is_seen[rows][0]),
                        **{k: s.get(k) for k in ("n", "accuracy", "accuracy_3way", "uncertain", "predicted")}}
    result = {
        "n_conversations": len(convs), "n_models": len(set(models)),
        "providers": {p: int((y == p).sum()) for p in LABELS},
        "views": {v: scores(P[v], unsure[v], y) for v in VIEWS},
        "same_as_record": {v: int(np.sum(np.any(np.abs(P[v] - P["record"]) > 1e-12, axis=1)))
                           for v in ("transcript", "json_log")},
        "paired": {f"{a} - {b}": paired(P[a], P[b], y, weights) for a, b in PAIRS},
        "groups": {g: scores(P["record"][m], unsure["record"][m], y[m]) for g, m in groups.items() if m.any()},
        "per_model": per_model,
        "seconds": round(time.time() - t0, 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(result, indent=1))
    if args.figure:
        figure(result, args.figure)
    print(json.dumps({v: {k: result["views"][v].get(k) for k in ("accuracy", "accuracy_3way", "other_auroc", "ece")}
                      for v in VIEWS}, indent=1))
    print(json.dumps(result["paired"], indent=1))
    print("differs from record:", result["same_as_record"])


if __name__ == "__main__":
    main()
