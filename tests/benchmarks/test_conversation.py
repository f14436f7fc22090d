"""Pasted conversations (benchmarks/conversation.py): the user turn each real corpus text gets, and
the transcripts it builds give the text back through ``assistant_turns``."""

from __future__ import annotations

import sys
from pathlib import Path

from whowrote.data import load_corpus
from whowrote.style.transcript import assistant_turns

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from conversation import GENERIC, LAYOUTS, user_turn  # noqa: E402


def test_each_genre_gets_its_own_prompt_and_the_transcripts_give_the_text_back(corpus_files):
    corpus_dir = corpus_files["blogs"].parent
    corpus = load_corpus([corpus_dir / f"{g}.jsonl" for g in ("blogs", "debates", "fiction", "chat")])
    rows = corpus.groupby("genre", group_keys=False).head(3)
    asks = {row.genre: user_turn(row) for row in rows.itertuples()}
    assert asks["blog"].startswith("Write a blog post titled") and asks["debate"].startswith("Argue your side")
    assert asks["fiction"] == GENERIC and asks["chat"] not in (GENERIC,) and not asks["chat"].startswith("Write a blog")
    for row in rows.itertuples():
        for layout in LAYOUTS.values():
            conv = assistant_turns(layout(user_turn(row), row.text))
            assert conv is not None and conv.text == row.text.strip()
