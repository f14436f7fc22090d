"""Fixtures for the research-recipe tests: synthetic splits (the tiny model is in tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def splits(tmp_path_factory) -> dict[str, Path]:
    from research_helpers import synthetic_rows

    from whowrote.train.data import write_rows

    d = tmp_path_factory.mktemp("splits")
    return {"train": write_rows(d / "train.jsonl", synthetic_rows(2, "tr")),
            "val": write_rows(d / "val.jsonl", synthetic_rows(1, "va"))}
