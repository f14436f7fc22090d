"""Fixtures for the serve tests: an app over a fake model, and real blog texts read at run time."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
pytest.importorskip("fastapi", reason="the [serve] extra (fastapi) is not installed")

from serve_fakes import FakeModel  # noqa: E402


@pytest.fixture
def fake_model() -> FakeModel:
    return FakeModel()


@pytest.fixture
def client(fake_model):
    from fastapi.testclient import TestClient

    from whowrote.serve import create_app

    with TestClient(create_app(fake_model, max_body_bytes=200_000, timeout_s=5)) as c:
        yield c


@pytest.fixture(scope="session")
def real_model():
    """The bundled style model (or WHOWROTE_SERVE_MODEL's)."""
    try:
        from whowrote.style import load_model

        return load_model(os.environ.get("WHOWROTE_SERVE_MODEL"))
    except Exception as e:  # before the bundled model is built
        pytest.skip(f"no real style model loads: {e}")


@pytest.fixture(scope="session")
def blog_texts(corpus_files) -> list[str]:
    """A few real blog posts (the `content` column), read from ../shared/corpus at run time."""
    texts = []
    with open(corpus_files["blogs"], encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if 800 <= len(row["content"].split()) <= 4000:
                texts.append(row["content"])
            if len(texts) == 4:
                break
    assert texts, "no blog-length texts in blogs.jsonl"
    return texts
