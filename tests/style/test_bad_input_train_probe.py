"""`whowrote train-probe` on bad input: refused up front (before the features or the fit), one line."""

from __future__ import annotations

import json

import pytest

from whowrote.cli import main


def _corpus(path, models=("claude-sonnet-4",), n=12, extra=()):
    rows = [{"id": str(i), "text": f"Sample text number {i} about gardens and the weather. " * 5,
             "model": models[i % len(models)], "topic": f"t{i % 3}"} for i in range(n)]
    path.write_text("".join(json.dumps(r) + "\n" for r in [*rows, *extra]), encoding="utf-8")
    return path


def _fails(capsys, *args: str, code: int = 1) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["train-probe", *args])
    err = capsys.readouterr().err
    assert e.value.code == code and "Traceback" not in err, err
    return err


def test_one_provider_is_refused_before_training_and_load_notes_are_logged(tmp_path, capsys):
    src = _corpus(tmp_path / "one.jsonl", extra=[{"id": "e", "text": "", "model": "claude-sonnet-4"}])
    err = _fails(capsys, "--corpus", str(src), "--out", str(tmp_path / "m"), "--no-check")
    errors = [line for line in err.splitlines() if line.startswith("whowrote: error:")]
    assert errors == [err.splitlines()[-1]] and "at least 2 providers" in errors[0] and "CLAUDE" in errors[0]
    assert "note: " in err and "1 rows with empty text dropped" in err  # the loader's notes are not silent
    assert "features of" not in err and not (tmp_path / "m").exists()


@pytest.mark.parametrize("under", [False, True])
def test_out_that_is_a_file_or_under_one_is_refused_before_training(tmp_path, capsys, under):
    src = _corpus(tmp_path / "c.jsonl", models=("claude-sonnet-4", "gpt-5"))
    (tmp_path / "afile").write_text("mine", encoding="utf-8")
    out = tmp_path / "afile" / "m" if under else tmp_path / "afile"
    err = _fails(capsys, "--corpus", str(src), "--out", str(out), "--no-check")
    assert err.count("\n") == 1 and str(out) in err and ("under a file" if under else "not a folder") in err
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "mine"


def test_negative_seed_is_a_usage_error(tmp_path, capsys):
    src = _corpus(tmp_path / "c.jsonl", models=("claude-sonnet-4", "gpt-5"))
    err = _fails(capsys, "--corpus", str(src), "--out", str(tmp_path / "m"), "--seed", "-5", code=2)
    assert "--seed" in err and not (tmp_path / "m").exists()


def test_a_users_folder_is_refused_and_its_own_model_folder_is_rewritten(tmp_path, capsys):
    src = _corpus(tmp_path / "c.jsonl", models=("claude-sonnet-4", "gpt-5"))
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "model.json").write_text("my own file", encoding="utf-8")  # no model.npz: not a saved model
    err = _fails(capsys, "--corpus", str(src), "--out", str(mine), "--no-check")
    assert "not written by `whowrote train-probe`" in err and "features of" not in err
    assert [p.name for p in mine.iterdir()] == ["model.json"] and (mine / "model.json").read_text() == "my own file"
    out = tmp_path / "m"
    for _ in range(2):  # the second run rewrites the folder the first one wrote
        with pytest.raises(SystemExit) as e:
            main(["train-probe", "--corpus", str(src), "--out", str(out), "--no-check"])
        assert e.value.code in (0, None)
    assert {"model.json", "model.npz"} <= {p.name for p in out.iterdir()}


def test_copies_name_the_training_copies_and_an_unknown_edit_is_refused_up_front(tmp_path, capsys):
    src = _corpus(tmp_path / "c.jsonl", models=("claude-sonnet-4", "gpt-5"))
    err = _fails(capsys, "--corpus", str(src), "--out", str(tmp_path / "bad"), "--no-check",
                 "--copies", "truncated,typo_edit")
    assert err.count("\n") == 1 and "unknown edit typo_edit" in err and "single_newlines" in err
    assert "features of" not in err and not (tmp_path / "bad").exists()
    out = tmp_path / "m"
    with pytest.raises(SystemExit) as e:
        main(["train-probe", "--corpus", str(src), "--out", str(out), "--no-check", "--tree-iter", "5",
              "--copies", "truncated, plain_text", "--copies", "single_newlines"])
    assert e.value.code in (0, None)
    training = json.loads((out / "model.json").read_text(encoding="utf-8"))["training"]
    assert training["augmentation"]["copies"] == [["truncated", "plain_text"], ["single_newlines"]]
    assert "single_newlines" in (out / "MODEL_CARD.md").read_text(encoding="utf-8")
