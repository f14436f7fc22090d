"""Fixtures for the training tests: synthetic, memorisable splits (the tiny model: tests/conftest.py).

Nothing is downloaded: the model and tokenizer are built offline (whowrote.train.tiny), and the
texts are synthetic sentences whose provider is given away by a few words, so a tiny model can
memorise the set in a few dozen steps.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from whowrote.train.data import write_rows

STYLE = {
    "CLAUDE": "Honestly, the real question is what we owe each other.",
    "CHATGPT": "There are several factors to consider, such as cost and risk.",
    "GEMINI": "We must build a paradigm that is fundamentally profound.",
}


def synthetic_rows(n_per_class: int, seed: int = 0, prefix: str = "r") -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n_per_class):
        for prov, sent in STYLE.items():
            words = sent.split()
            rng.shuffle(words)  # varied texts, same tell words
            rows.append({"id": f"{prefix}{prov}{i}", "text": " ".join(words), "provider": prov,
                         "genre": "synthetic", "topic": f"t{i}"})
    return rows


@pytest.fixture(scope="session")
def splits(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("splits")
    return {
        "train": write_rows(d / "train.jsonl", synthetic_rows(4, seed=1, prefix="tr")),
        "val": write_rows(d / "val.jsonl.gz", synthetic_rows(2, seed=2, prefix="va")),
    }
