"""HTML pages read as Markdown (issue 17, session 35): what reading a saved page costs the verdict.

A user who saves a post as ``.html`` gives ``whowrote predict`` the page, not its Markdown. This
fits the default recipe on the topic hold-out's train part (as ``benchmarks/robustness.py`` does,
sharing its feature cache), renders each val text into an HTML page (``edits.markdown_page``'s:
markdown-it, CommonMark + tables) and scores the val texts read four ways:

- ``raw``: the Markdown itself;
- ``browser_copy``: the page's text as a browser's copy gives it (the suite's ``markdown_html``);
- ``page_now``: the page read by this code's input check (``inspect_text``: ``html_reader``);
- ``page_before``: the page read by the input check of ``--before-src`` (another checkout's ``src``,
  run in a subprocess; e.g. ``3d26199``, whose reader kept the visible text only).

- ``site_now`` / ``site_before``: the same page inside a blog site's chrome (:data:`SITE`: a menu,
  a sidebar of recent posts with a search form, a footer; the post in ``<article>``), read by each.

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals.

    git worktree add /tmp/base 3d26199
    OMP_NUM_THREADS=1 python benchmarks/html_reader.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --before-src /tmp/base/src --out results/html_reader

Writes ``html_reader.json`` and ``html_reader.png`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from robustness import RECIPES, Features, corpus_args, drop_intervals, fit_recipe, indexed_corpus, timed_log

from whowrote.data.corpus import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import html_page, html_text, render_markdown
from whowrote.style.heldout import proba_accuracies
from whowrote.style.io import load_model
from whowrote.style.textcheck import inspect_text

# a made-up but typical blog page around the post (~50 words of menus, sidebar and footer)
SITE = ("<!doctype html>\n<html><head><title>Notes</title></head><body>\n<header><a href='/'>Notes from the field</a>"
        "<nav><ul><li><a href='/'>Home</a></li><li><a href='/archive'>Archive</a></li><li><a href='/about'>About</a>"
        "</li><li><a href='/contact'>Contact</a></li></ul></nav></header>\n<main><article>\n{body}</article></main>\n"
        "<aside><h3>Recent posts</h3><ul><li><a href='/a'>What I learned from a year of journaling</a></li>"
        "<li><a href='/b'>A weekend in the mountains</a></li><li><a href='/c'>Notes on remote work</a></li></ul>"
        "<form role='search'><input name='q' placeholder='Search'><button>Search</button></form>"
        "<p>Subscribe to get new posts by email.</p></aside>\n<footer><p>&copy; 2024 Notes from the field. "
        "All rights reserved. <a href='/privacy'>Privacy</a> &middot; <a href='/terms'>Terms</a></p></footer>\n"
        "</body></html>\n")

# run under the other checkout's src: JSON pages in on stdin, the texts its input check reads out
READ_BEFORE = ("import json, sys\nfrom whowrote.style.textcheck import inspect_text\n"
               "json.dump([inspect_text(p).text for p in json.load(sys.stdin)], sys.stdout)")


def read_before(pages: list[str], src: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    done = subprocess.run([sys.executable, "-c", READ_BEFORE], input=json.dumps(pages), env=env, text=True,
                          capture_output=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--before-src", type=Path, help="another checkout's src/ (its reader is page_before)")
    args = ap.parse_args()
    log = timed_log()
    model, val = fitted_holdout(args, log)
    texts = val["text"].tolist()
    bodies = [render_markdown(t) for t in texts]  # (once per text: the page, the site and the copy share it)
    pages, sites = [html_page(b) for b in bodies], [SITE.format(body=b) for b in bodies]
    readings = {"raw": texts, "browser_copy": [html_text(b) for b in bodies],
                "page_now": [inspect_text(p).text for p in pages], "site_now": [inspect_text(p).text for p in sites]}
    if args.before_src:
        readings["page_before"] = read_before(pages, args.before_src)
        readings["site_before"] = read_before(sites, args.before_src)
    P = score_readings(model, readings)
    log("scored " + ", ".join(readings))
    result = {"n": len(texts), "seed": args.seed, "before_src": str(args.before_src or ""), **readings_result(model, val, P, args.seed)}
    write_readings(result, args.out, "html_reader", "A Markdown text saved as an HTML page, read back", log)


def write_readings(result: dict, out: Path, name: str, title: str, log) -> None:
    """``name.json`` (atomically) and ``name.png`` (by genre) under ``out``, and the table printed."""
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / f"{name}.json", json.dumps(result, indent=1) + "\n")
    print_readings(result)
    readings_figure(result, out / f"{name}.png", f"{title} (benchmarks/{name}.py)")
    log(f"wrote {out}")


def readings_args(description: str) -> argparse.ArgumentParser:
    """The arguments the reading benchmarks share (``pdf_reader``, ``pandoc_documents``,
    ``email_reader``, ``line_wrap``): ``--corpus`` or ``--answers``, ``--out``, ``--cache``, ``--seed``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--corpus", nargs="+", help="the corpus files: the default recipe fitted and scored on their topic hold-out")
    ap.add_argument("--answers", type=Path, help="instead, a FastChat model_answer folder scored by the bundled model")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/whowrote-robustness"), help="robustness.py's feature cache")
    ap.add_argument("--seed", type=int, default=0)
    return ap


def model_and_texts(ap: argparse.ArgumentParser, args, log):
    """``(model, val, featurise)``: with ``--answers``, the bundled model (as users meet it) and those
    answers from outside the corpus; with ``--corpus``, the default recipe fitted on the topic
    hold-out's train part and its val part (``featurise`` None: the default recipe's features)."""
    if not (args.corpus or args.answers):
        ap.error("give --corpus or --answers")
    if args.answers:
        model = load_model()
        return model, load_corpus(args.answers), model.features
    model, val = fitted_holdout(args, log)
    return model, val, None


def fitted_holdout(args, log) -> tuple[StyleModel, object]:
    """The default recipe fitted on the topic hold-out's train part (``robustness.py``'s feature
    cache), and the hold-out's val part."""
    corpus = indexed_corpus(args.corpus)
    feats = Features(corpus, args.cache, log)
    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    model = fit_recipe(feats, "default", split["train"], args.seed)
    log(f"fitted on {len(split['train'])} texts")
    return model, split["val"]


def score_readings(model: StyleModel, readings: dict[str, list[str]], featurise=None) -> dict[str, np.ndarray]:
    """Each reading's class probabilities (``featurise``: the texts' features; by default the
    default recipe's)."""
    featurise = featurise or StyleModel(**RECIPES["default"]).features
    return {name: model.predict_proba(featurise(t)) for name, t in readings.items()}


def readings_result(model: StyleModel, val, P: dict[str, np.ndarray], seed: int) -> dict:
    """Accuracy of each reading (``P``: its probabilities on ``val``), its drop from ``raw`` with a
    95 % paired topic-bootstrap interval, its accuracy by genre, and the share of verdicts it changes."""
    y = val["provider"].to_numpy(object)
    genres = val["genre"].to_numpy(object)
    return {"accuracy": {k: proba_accuracies(model, p, y) for k, p in P.items()},
            "drops": drop_intervals(model.classes_, P, y, topic_keys(val).to_numpy(), seed),
            "by_genre": {g: {k: proba_accuracies(model, p[genres == g], y[genres == g])["accuracy"] for k, p in P.items()}
                         for g in sorted(set(genres))},
            "verdicts_changed": {k: float(np.mean(P[k].argmax(1) != P["raw"].argmax(1))) for k in P}}


def print_readings(result: dict) -> None:
    print("| reading | 4-way | 3-way | drop (points) [95 % topic bootstrap] | verdicts changed |\n|---|---:|---:|---|---:|")
    for k, acc in result["accuracy"].items():
        d = result["drops"].get(k)
        drop = f"{d['diff']:+.1f} [{d['lo']:+.1f}, {d['hi']:+.1f}]" if d else "—"
        print(f"| {k} | {acc['accuracy']:.3f} | {acc['accuracy_3way'] or 0:.3f} | {drop} | {result['verdicts_changed'][k]:.1%} |")


def readings_figure(result: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["accuracy"])
    genres = list(result["by_genre"])
    fig, ax = plt.subplots(figsize=(8.5, 4))
    width = 0.8 / len(names)
    for i, k in enumerate(names):
        ax.bar(np.arange(len(genres) + 1) + width * i, [result["by_genre"][g][k] for g in genres]
               + [result["accuracy"][k]["accuracy"]], width=width, label=k)
    ax.set_xticks(np.arange(len(genres) + 1) + 0.4 - width / 2, [*genres, "all"])
    ax.set_ylim(0, 1.15)
    ax.set_yticks(np.arange(0, 1.01, 0.2))
    ax.set_ylabel("4-way accuracy (topic hold-out val)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncol=len(names), loc="upper center")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
