"""Invisible layout edits against the bundled model, with and without the plain-layout reading (session 31).

A text saved on Windows (``\\r\\n`` line endings) or with spaces at the ends of its lines looks the same
on screen. This scores the bundled model's verdicts on every corpus text as written and after each such
edit, twice: reading the text as ``whowrote.style.canonical.canonical`` does now (plain layout last), and
as it did before (the same without :func:`whowrote.typography.plain_layout`). It also counts how many
verdicts on the unedited texts the new reading changes, since the bundled model was fitted on the old one.
``single_newlines`` (blank lines between paragraphs made single line breaks) is a visible edit that the
plain layout does not undo, measured beside them.

    OMP_NUM_THREADS=1 python benchmarks/layout_edits.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/layout_edits

Writes ``layout_edits.json`` under ``--out`` and prints it (~40 s on one core).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

import whowrote.style.canonical as canonical_module
from whowrote.data import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.style import StyleModel, load_model
from whowrote.style.edits import crlf, single_newlines
from whowrote.types import WhowroteError

_LINE_END = re.compile(r"(\r?\n)")

EDITS = {
    "crlf": crlf,
    "trailing_spaces": lambda t: _LINE_END.sub(r"  \1", t),  # two spaces before every line break
    "zero_width": lambda t: "\ufeff" + t.replace(". ", ".\u200b "),  # a byte-order mark, a zero-width space per sentence
    # visible, and not undone by the plain layout: paragraphs separated by one line break instead of
    # a blank line (the suite's edit); measured for the record
    "single_newlines": single_newlines,
}
PROBE = "A line.  \r\n\r\nNext: \u200bpara.\r\n"  # what the plain layout reads differently


def verdicts(model: StyleModel, texts: list[str], plain: bool) -> np.ndarray:
    """Class probabilities of ``texts``, read with (``plain``) or without the plain-layout step."""
    real = canonical_module.plain_layout
    canonical_module.plain_layout = real if plain else (lambda t: t)
    try:
        # the switch must reach the reading: without the plain layout the probe reads differently
        assert (canonical_module.canonical(PROBE) == real(canonical_module.canonical(PROBE))) == plain
        return model.predict_proba(texts)
    finally:
        canonical_module.plain_layout = real


def flip_rates(P: np.ndarray, Q: np.ndarray, genres: np.ndarray) -> dict:
    flip = P.argmax(axis=1) != Q.argmax(axis=1)
    return {"all": round(float(flip.mean()), 4), "n_flips": int(flip.sum()),
            "by_genre": {g: round(float(flip[genres == g].mean()), 4) for g in sorted(set(genres))},
            "max_abs_dp": round(float(np.abs(P - Q).max()), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    t0 = time.perf_counter()
    try:
        corpus = load_corpus(args.corpus)
    except WhowroteError as e:
        raise SystemExit(f"error: {e}") from None
    texts, genres, y = corpus["text"].tolist(), corpus["genre"].to_numpy(object), corpus["provider"].to_numpy(object)
    model = load_model()
    res: dict = {"n_texts": len(texts), "readings": {}}
    raw = {}
    for plain in (False, True):
        name = "plain_layout" if plain else "before"
        raw[name] = verdicts(model, texts, plain)
        res["readings"][name] = {e: flip_rates(raw[name], verdicts(model, [f(t) for t in texts], plain), genres)
                                 for e, f in EDITS.items()}
        res["readings"][name]["accuracy_in_sample"] = round(float((model.classes_[raw[name].argmax(axis=1)] == y).mean()), 5)
    res["new_vs_before_on_unedited"] = flip_rates(raw["before"], raw["plain_layout"], genres)
    res["new_vs_before_on_unedited"]["mean_abs_dp"] = round(float(np.abs(raw["before"] - raw["plain_layout"]).mean()), 6)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "layout_edits.json", json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
