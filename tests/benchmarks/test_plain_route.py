"""Plain-text routing (benchmarks/plain_route.py): which member scores which real corpus text."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from whowrote.style import StyleModel
from whowrote.style.edits import strip_markdown

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from plain_route import markup, routed_proba  # noqa: E402

CLASSES = np.array(["CHATGPT", "CLAUDE", "GEMINI", "OTHER"], dtype=object)


class Member:
    """A fitted member's stand-in: the same probabilities for every row, one class each."""

    def __init__(self, k: int) -> None:
        self.classes_, self.k = CLASSES, k

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        P = np.zeros((len(X), len(CLASSES)))
        P[:, self.k] = 1.0
        return P


@pytest.fixture(scope="module")
def texts(corpus_sample):
    return corpus_sample([("chat", 12), ("longform", 4), ("fiction", 4)])


def test_hard_route_sends_markdown_free_texts_to_the_specialist(texts):
    X = StyleModel().features(texts)
    has_md = [any(s in t for s in ("**", "\n#", "\n- ", "\n* ", "\n1. ", "```", "\n|")) for t in texts]
    assert any(has_md) and not all(has_md)  # the sample holds both kinds
    P = routed_proba(Member(0), Member(1), X, "hard")
    to_general = P[:, 0] == 1.0
    assert (to_general == (markup(X) > 0)).all()
    assert all(to_general[i] for i, md in enumerate(has_md) if md)  # every visibly marked-up text
    # the same texts with their Markdown stripped all go to the specialist
    Xp = StyleModel().features([strip_markdown(t) for t in texts])
    assert (routed_proba(Member(0), Member(1), Xp, "hard")[:, 1] == 1.0).all()


def test_soft_route_mixes_by_markup_density(texts):
    X = StyleModel().features(texts)
    m = markup(X)
    P = routed_proba(Member(0), Member(1), X, "soft", m0=1.0)
    np.testing.assert_allclose(P[:, 0], np.minimum(1.0, m))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(routed_proba(Member(0), Member(1), X, "current")[:, 0], 1.0)
    with pytest.raises(ValueError):
        routed_proba(Member(0), Member(1), X, "nope")
