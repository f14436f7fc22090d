"""`whowrote score`: the style model against labelled texts (style.scorecard)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from whowrote.cli import main
from whowrote.types import LABELS


@pytest.fixture(scope="module")
def rows(corpus):
    return corpus.groupby(["genre", "provider"]).head(3).reset_index(drop=True)


def test_the_scores_agree_with_the_verdicts(rows) -> None:
    """Accuracy, recall, the confusion matrix, the uncertain share and the per-group rows are the
    verdicts' own; a text that cannot be read counts as the uncertain OTHER it is given."""
    from whowrote.style import load_model
    from whowrote.style.scorecard import MIN_GROUP, score_attributions

    texts, y = [*rows.text, ""], [*rows.provider, "CLAUDE"]
    genres, models = [*rows.genre, "blog"], [*rows.model, "claude-x"]
    found = load_model().attribute(texts, n_tells=0)
    card = score_attributions(found, y, genres, models)
    pred = [a.provider for a in found]
    right = np.array([p == t for p, t in zip(pred, y, strict=True)])
    assert card["n"] == len(texts) and pred[-1] == "OTHER" and not right[-1]
    assert card["accuracy"] == pytest.approx(right.mean())
    assert sum(card["confusion"][c][c] for c in card["confusion"]) == right.sum()
    for c, row in card["confusion"].items():
        n_c = y.count(c)
        assert sum(row.values()) == n_c
        assert card["recall"][c] == pytest.approx(row[c] / n_c)
    assert card["uncertain"] == pytest.approx(np.mean([a.uncertain for a in found]))
    assert found[-1].uncertain
    sure = ~np.array([a.uncertain for a in found])
    assert card["accuracy_not_uncertain"] == pytest.approx(right[sure].mean())
    assert 0 <= card["ece"] <= 1 and "other_auroc" in card
    assert sum(b["count"] for b in card["reliability"]) == len(texts)
    cover = [c["coverage"] for c in card["coverage_curve"]]
    assert cover == sorted(cover, reverse=True) and cover[0] == 1.0  # every verdict is >= 0.25 sure
    assert card["coverage_curve"][0]["accuracy"] == pytest.approx(card["accuracy"])
    assert all(s["n"] >= MIN_GROUP for s in card["per_model"].values())
    assert set(card["per_genre"]) == set(rows.genre)
    assert card["per_genre"]["blog"]["n"] == (rows.genre == "blog").sum() + 1


def test_score_on_the_command_line(rows, tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps({"text": t, "model": m}) + "\n" for t, m in zip(rows.text, rows.model, strict=True)),
                    encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        main(["score", str(path), "--json", "-", "--figure", str(tmp_path / "score.png")])
    assert e.value.code in (0, None)
    assert (tmp_path / "score.png").stat().st_size > 10_000  # a drawn figure
    cap = capsys.readouterr()
    card = json.loads(cap.out)
    assert card["n"] == len(rows) and card["model"] == "bundled"
    assert set(card["confusion"]) == set(rows.provider) and set(card["recall"]) <= set(LABELS)
    assert "labelled texts: accuracy" in cap.err and "Confusion" in cap.err
    import whowrote.cli.predict as cli_predict

    monkeypatch.setattr(cli_predict, "SCORE_CHUNK", 7)  # attributed 7 texts at a time: the same scores
    with pytest.raises(SystemExit):
        main(["score", str(path), "--json", "-"])
    assert json.loads(capsys.readouterr().out) == card
    monkeypatch.undo()
    with pytest.raises(SystemExit) as e:  # --edits: typography never moves a verdict; a crop does
        main(["score", str(path), "--edits", "smart_quotes, first_800_chars", "--json", "-"])
    edited = json.loads(capsys.readouterr().out)["edits"]
    assert list(edited) == ["smart_quotes", "first_800_chars"]
    assert edited["smart_quotes"] == {"accuracy": card["accuracy"], "accuracy_3way": card["accuracy_3way"], "changed": 0.0}
    assert card["accuracy_3way"] is not None and 0 <= edited["first_800_chars"]["accuracy_3way"] <= 1
    assert edited["first_800_chars"]["changed"] > 0
    import whowrote.style

    def no_model(*_args, **_kwargs):
        raise AssertionError("a bad --edits name should fail before the model is loaded")

    monkeypatch.setattr(whowrote.style, "load_model", no_model)
    with pytest.raises(SystemExit) as e:
        main(["score", str(path), "--edits", "bold_everything"])
    assert e.value.code == 1 and "unknown edit(s) bold_everything (choose from to_ascii" in capsys.readouterr().err
    monkeypatch.undo()
    with pytest.raises(SystemExit) as e:  # --among: every verdict one of the labels named
        main(["score", str(path), "--among", "claude,chatgpt,gemini", "--json", "-"])
    three = json.loads(capsys.readouterr().out)
    assert three["among"] == ["CLAUDE", "CHATGPT", "GEMINI"]
    assert all(row["OTHER"] == 0 for row in three["confusion"].values())


@pytest.mark.parametrize(("args", "message"), [
    (["--among", "CLAUDE"], "among: give two or more of"),
    ([], "no model or provider column"),
])
def test_score_errors_are_one_line(tmp_path, capsys, args, message) -> None:
    path = tmp_path / "mine.jsonl"
    rows = [{"text": "A text with no label at all. " * 30, **({"model": "gpt-4o"} if args else {})}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        main(["score", str(path), *args])
    err = capsys.readouterr().err
    assert e.value.code == 1 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
