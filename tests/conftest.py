"""Shared fixtures: the real corpus in ../shared/corpus (read at run time, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("WHOWROTE_SHARED", REPO.parent / "shared"))
CORPUS_DIR = SHARED / "corpus"
CORPUS_FILES = {stem: CORPUS_DIR / f"{stem}.jsonl" for stem in ("blogs", "debates", "fiction", "longform")}

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def corpus_files() -> dict[str, Path]:
    missing = [str(p) for p in CORPUS_FILES.values() if not p.exists()]
    if missing:
        pytest.fail(f"shared corpus missing: {missing}")
    return CORPUS_FILES


@pytest.fixture(scope="session")
def corpus(corpus_files):
    """All four shared corpus files as one clean table (loaded once per session)."""
    from whowrote.data import load_corpus

    return load_corpus(list(corpus_files.values()))
