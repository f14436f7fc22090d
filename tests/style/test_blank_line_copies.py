"""The debates also trained with blank lines between paragraphs (issue 17, session 58): which rows are
added, that they are trained on and never scored, and what the model file and card say (real texts)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from whowrote.style import load_model
from whowrote.style.edits import one_blank_line
from whowrote.style.train import BLANK_LINE_GENRES, train_probe, with_blank_line_copies


def test_only_the_named_genres_get_a_blank_line_row(corpus):
    sample = corpus.groupby("genre", group_keys=False).sample(5, random_state=0).reset_index(drop=True)
    out = with_blank_line_copies(sample, ("debate",))
    written, copies = out[~out.layout_copy], out[out.layout_copy]
    pd.testing.assert_frame_equal(written.drop(columns="layout_copy"), sample)
    debates = sample[sample.genre == "debate"]
    assert len(copies) == len(debates) == 5
    assert copies.text.tolist() == [one_blank_line(t) for t in debates.text]
    assert (copies[["provider", "genre", "topic", "model"]].to_numpy() == debates[["provider", "genre", "topic", "model"]]
            .to_numpy()).all()
    assert copies.id.tolist() == [f"{i}:blank-lines" for i in debates.id]
    # a debate's claims are one a line; its copy has no single line break left, and the same words
    for before, after in zip(debates.text, copies.text, strict=True):
        assert "\n" in before.replace("\n\n", "") and "\n" not in after.replace("\n\n", "")
        assert after.split() == before.split()
    assert not with_blank_line_copies(sample, ()).layout_copy.any()
    assert len(with_blank_line_copies(sample, ("no such genre",))) == len(sample)


def test_the_default_is_the_bundled_models():
    aug = load_model().training_["augmentation"]
    assert aug.get("blank_line_genres", []) == list(BLANK_LINE_GENRES)
    assert aug["blank_line_rows"] == sum(n for k, n in load_model().training_["counts"].items() if k.startswith("debate/"))


@pytest.mark.slow
def test_train_probe_trains_on_the_copies_and_never_scores_them(tmp_path, corpus):
    sample = corpus[corpus.genre.isin(["debate", "blog", "fiction"])].groupby("genre", group_keys=False).sample(
        60, random_state=0)
    src = []
    for genre, rows in sample.groupby("genre"):  # a file's genre is its name's (debates.jsonl: debate)
        src.append(tmp_path / f"{genre}{'' if genre == 'fiction' else 's'}.jsonl")
        src[-1].write_text("".join(json.dumps({"id": r.id, "text": r.text, "model": r.model, "topic": r.topic}) + "\n"
                                   for r in rows.itertuples()))
    logs: list[str] = []
    metrics = train_probe(src, tmp_path / "m", tree_iter=20, robustness_cap=0, log=logs.append)
    assert any("60 of them (debate) also laid out with blank lines" in line for line in logs)
    # every scored text is a text as written: LOGO scores each genre's 60, the topic hold-out fewer than 180
    assert {g: v["n"] for g, v in metrics["leave_one_genre_out"].items() if isinstance(v, dict) and "n" in v} == \
        {"blog": 60, "debate": 60, "fiction": 60}
    assert metrics["topic_holdout_val"]["n"] < 180
    training = json.loads((tmp_path / "m" / "model.json").read_text())["training"]
    assert training["n_texts"] == 180 and sum(training["counts"].values()) == 180
    assert training["augmentation"]["blank_line_rows"] == 60
    assert "The 60 texts of debate" in (tmp_path / "m" / "MODEL_CARD.md").read_text()
    # and without them: no row added, the card says nothing of them
    train_probe(src, tmp_path / "n", tree_iter=20, check=False, blank_line_genres=(), log=logs.append)
    training = json.loads((tmp_path / "n" / "model.json").read_text())["training"]
    assert training["augmentation"]["blank_line_rows"] == 0
    assert "blank lines between paragraphs" not in (tmp_path / "n" / "MODEL_CARD.md").read_text()


def test_the_card_names_the_debate_format_only_for_the_debates():
    from whowrote.style.model_card import _copies

    aug = {"copies": [["truncated"]], "weight": 0.5}
    debate = _copies({**aug, "blank_line_genres": ["debate"], "blank_line_rows": 2644})
    assert "The 2644 texts of debate (one claim a line, the debate benchmark's format) also train" in debate
    fiction = _copies({**aug, "blank_line_genres": ["fiction"], "blank_line_rows": 30})
    assert "The 30 texts of fiction also train with blank lines" in fiction and "debate" not in fiction
