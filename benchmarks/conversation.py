"""Pasted conversations: what wrapping a text in a chat transcript does to the verdict, and whether
keeping only the assistant's turns (``whowrote.style.transcript``) undoes it.

The topic hold-out of ``train-probe`` (seed 0, five genres), the default recipe fitted once on its
train part (``robustness.py``'s feature cache and fit). Each held-out text becomes the assistant's
turn of a two-turn transcript whose user turn is the text's own prompt where the corpus has one
(chat: the AlpacaEval instruction; debates: the proposition; blogs: the title) and a generic request
elsewhere, in two layouts: ``User: ... / Assistant: ...`` and a chat window's copy ``You said: ... /
ChatGPT said: ...``. Scored: 4-way and 3-way accuracy on the raw texts, on the transcripts read whole
(what whowrote did before), and on what ``assistant_turns`` keeps of them; plus how often that is the
original text exactly. Nothing is tuned here.

    OMP_NUM_THREADS=1 python benchmarks/conversation.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/conversation
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from robustness import RECIPES, Features, corpus_args, fit_recipe, indexed_corpus, timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split
from whowrote.style import StyleModel
from whowrote.style.heldout import accuracies
from whowrote.style.transcript import assistant_turns

GENERIC = "Could you write this for me?"
LAYOUTS = {
    "user_assistant": lambda ask, text: f"User: {ask}\n\nAssistant: {text}",
    "chat_window_copy": lambda ask, text: f"You said:\n{ask}\n\nChatGPT said:\n{text}",
}


def user_turn(row) -> str:
    """The text's own prompt where the corpus keeps one, else a generic request."""
    for field, form in (("instruction", "{}"), ("proposition", "Argue your side of this motion: {}"),
                        ("title", 'Write a blog post titled "{}".')):
        value = getattr(row, field, None)
        if isinstance(value, str) and value.strip():
            return form.format(value.strip())
    return GENERIC


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    args = ap.parse_args()
    log = timed_log()
    corpus = indexed_corpus(args.corpus)
    splits = topic_holdout_split(corpus, seed=args.seed, balance=False)
    train, val = splits["train"], splits["val"]
    feats = Features(corpus, args.cache, log)
    model = fit_recipe(feats, "default", train, args.seed)
    log(f"fitted on {len(train)} texts; scoring {len(val)} held-out texts")
    featurise = StyleModel(**RECIPES["default"]).features
    y = val["provider"].to_numpy(object)
    results: dict = {"n": int(len(val)), "raw": accuracies(model, feats.get("default", val["row_idx"].to_numpy(), "raw"), y)}
    whole = {}  # each layout's transcripts, featurised once (the per-genre rows below reuse them)
    for name, layout in LAYOUTS.items():
        wrapped = [layout(user_turn(row), row.text) for row in val.itertuples()]
        kept = [assistant_turns(w) for w in wrapped]
        exact = float(np.mean([k is not None and k.text == row.text.strip() for k, row in zip(kept, val.itertuples(), strict=True)]))
        whole[name] = featurise(wrapped)
        results[name] = {
            "read_whole": accuracies(model, whole[name], y),
            "assistant_turns": accuracies(model, featurise([k.text if k else w for k, w in zip(kept, wrapped, strict=True)]), y),
            "recognised": float(np.mean([k is not None for k in kept])),
            "exact_original": exact,
        }
        log(f"{name}: whole {results[name]['read_whole']['accuracy']:.3f}, assistant turns "
            f"{results[name]['assistant_turns']['accuracy']:.3f} (raw {results['raw']['accuracy']:.3f}); "
            f"recognised {results[name]['recognised']:.3f}, exact {exact:.3f}")
    per_genre = {}
    for genre in sorted(val["genre"].unique()):
        m = (val["genre"] == genre).to_numpy()
        per_genre[genre] = {"n": int(m.sum()),
                            "raw": accuracies(model, feats.get("default", val["row_idx"].to_numpy()[m], "raw"), y[m])["accuracy"],
                            "read_whole": accuracies(model, whole["user_assistant"][m], y[m])["accuracy"]}
    results["per_genre_user_assistant"] = per_genre
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "conversation.json", json.dumps(results, indent=2) + "\n")
    print("\n| layout | raw | transcript read whole | assistant's turns kept | recognised | equal to the original |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in LAYOUTS:
        v = results[name]
        print(f"| {name} | {results['raw']['accuracy']:.3f} ({results['raw']['accuracy_3way']:.3f}) | "
              f"{v['read_whole']['accuracy']:.3f} ({v['read_whole']['accuracy_3way']:.3f}) | "
              f"{v['assistant_turns']['accuracy']:.3f} ({v['assistant_turns']['accuracy_3way']:.3f}) | "
              f"{v['recognised']:.3f} | {v['exact_original']:.3f} |")
    print("\n| genre (user_assistant) | n | raw | read whole |\n|---|---:|---:|---:|")
    for genre, v in per_genre.items():
        print(f"| {genre} | {v['n']} | {v['raw']:.3f} | {v['read_whole']:.3f} |")
    log("done")


if __name__ == "__main__":
    main()
