"""`among`: the verdict conditioned on the labels a user assumes the text is by (style.verdict)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style import load_model
from whowrote.types import WhowroteError

THREE = ("CLAUDE", "CHATGPT", "GEMINI")


@pytest.fixture(scope="module")
def texts(corpus_sample) -> list[str]:
    return corpus_sample([("chat", 12), ("debates", 4), ("blogs", 2)])


def test_among_conditions_the_calibrated_probabilities(texts) -> None:
    """Each text's probabilities over the assumed labels are its four-way ones renormalised over
    them (the others 0); the provider, the abstain flag and the tells read those."""
    model = load_model()
    four, three = model.attribute(texts), model.attribute(texts, among=THREE)
    for a, b in zip(four, three, strict=True):
        p = np.array([a.probabilities[c] for c in THREE])
        want = p / p.sum()
        assert b.probabilities["OTHER"] == 0.0
        assert np.allclose([b.probabilities[c] for c in THREE], want, atol=1e-4)  # (the four-way ones are rounded to 6 places)
        assert b.provider == THREE[int(want.argmax())]
        assert b.uncertain == bool(want.max() < model.abstain_below_ or b.distance > model.ood_threshold_
                                   or b.n_words < model.min_words)
        assert b.tells and all(t.favours in THREE and t.versus in THREE for t in b.tells)
        assert "assumed to be by one of CLAUDE, CHATGPT, GEMINI (among): a text by any other model, or by a " \
               "person, is still given one of them" in b.warnings
        # the unconditioned reading is quoted when the assumption overrules it (a person's text mostly reads OTHER)
        note = f"without that assumption it reads as OTHER ({a.probabilities['OTHER']:.2f})"
        assert (note in b.warnings) == (a.provider == "OTHER")
        assert sum(w.startswith("without that assumption") for w in b.warnings) == (a.provider == "OTHER")
    # a text the four-way verdict calls OTHER is given the most probable of the three
    called_other = [b.provider for a, b in zip(four, three, strict=True) if a.provider == "OTHER"]
    assert called_other and all(p in THREE for p in called_other)


def test_two_labels_answer_a_pairwise_question(texts) -> None:
    (b,) = load_model().attribute(texts[:1], among=["chatgpt", "Claude"])  # any case, any order
    assert set(k for k, v in b.probabilities.items() if v > 0) <= {"CLAUDE", "CHATGPT"}
    assert abs(b.probabilities["CLAUDE"] + b.probabilities["CHATGPT"] - 1) < 1e-6
    (c,) = load_model().attribute(texts[:1], among="CHATGPT, claude")  # one comma-separated string
    assert c.probabilities == b.probabilities


@pytest.mark.parametrize("among", [["CLAUDE"], ["CLAUDE", "CLAUDE"], ["CLAUDE", "MISTRAL"], []])
def test_fewer_than_two_known_labels_is_an_error(among) -> None:
    with pytest.raises(WhowroteError, match="among: give two or more of"):
        load_model().attribute(["Some text to attribute, long enough to read."], among=among)


def test_predict_among_in_the_cli(tmp_path, texts) -> None:
    runner = CliRunner()
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[:6]), encoding="utf-8")
    one = runner.invoke(app, ["predict", str(path), "--jsonl", "--among", "claude,chatgpt,gemini"])
    two = runner.invoke(app, ["predict", str(path), "--jsonl", "--among", "CLAUDE,CHATGPT,GEMINI", "--jobs", "2"])
    assert one.exit_code == 0 and one.stdout == two.stdout
    recs = [json.loads(line) for line in one.stdout.splitlines()]
    assert len(recs) == 6 and all(r["probabilities"]["OTHER"] == 0 and r["provider"] != "OTHER" for r in recs)
    bad = runner.invoke(app, ["predict", str(path), "--among", "CLAUDE"])
    assert bad.exit_code == 2 and "two or more of CLAUDE,CHATGPT,GEMINI,OTHER" in bad.output
    assert "Traceback" not in bad.output
