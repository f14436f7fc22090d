"""FastChat ``model_answer`` folders as one corpus source (whowrote.data.readers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whowrote.data.corpus import load_corpus
from whowrote.data.readers import benchmark_genre, expand_sources, is_fastchat_folder, read_fastchat_answers
from whowrote.types import WhowroteError

WORDS = "The answer explains the idea with care and a short example. "


def answer(model: str | None, question: str, *turns: str) -> dict:
    row = {"question_id": question, "answer_id": f"a-{question}", "tstamp": 1.0,
           "choices": [{"index": 0, "turns": [{"content": t, "token_len": 3} for t in turns]}]}
    if model is not None:
        row["model_id"] = model
    return row


def write_folder(root: Path, files: dict[str, list[dict]]) -> Path:
    folder = root / "my-bench-v0.2" / "model_answer"
    folder.mkdir(parents=True)
    for stem, rows in files.items():
        (folder / f"{stem}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_folder(tmp_path, {
        "claude-3-opus-20240229": [answer("claude-3-opus-20240229", "q1", "  First turn.  ", "Second turn " + WORDS),
                                   answer("claude-3-opus-20240229", "q2", WORDS)],
        "gpt-4-0613": [answer(None, "q1", WORDS), answer("gpt-4-0613", "q2", "")],
        "qwen2-72b-instruct": [answer("qwen2-72b-instruct", "q1", WORDS)],
    })


def test_reads_one_row_per_answer_with_turns_joined(folder: Path) -> None:
    frame = read_fastchat_answers(folder)
    assert len(frame) == 5
    first = frame[(frame.model == "claude-3-opus-20240229") & (frame.topic == "q1")].iloc[0]
    assert first.text == "First turn.\n\nSecond turn " + WORDS.strip()
    assert first.id == "claude-3-opus-20240229:q1"
    # a row without model_id takes the file's stem
    assert "gpt-4-0613:q1" in set(frame.id)
    assert frame.attrs["genre"] == "my-bench"


def test_load_corpus_keeps_the_folder_one_genre_and_prompts_as_topics(folder: Path) -> None:
    assert expand_sources([folder]) == [folder]  # not one source per model file
    corpus = load_corpus([folder])
    assert set(corpus.genre) == {"my-bench"}
    assert len(corpus) == 4  # the empty answer is dropped
    by_model = dict(zip(corpus.model, corpus.provider, strict=True))
    assert by_model == {"claude-3-opus-20240229": "CLAUDE", "gpt-4-0613": "CHATGPT", "qwen2-72b-instruct": "OTHER"}
    assert set(corpus[corpus.model == "claude-3-opus-20240229"].topic) == {"q1", "q2"}


def test_mt_bench_turns_are_plain_strings(tmp_path: Path) -> None:
    """MT-Bench's first release writes each turn as a string, not ``{"content": ...}``."""
    row = {"question_id": 81, "model_id": "claude-v1", "choices": [{"index": 0, "turns": [" First. ", WORDS, None]}]}
    folder = write_folder(tmp_path, {"claude-v1": [row]})
    (text,) = read_fastchat_answers(folder).text
    assert text == "First.\n\n" + WORDS.strip()
    assert list(load_corpus([folder]).provider) == ["CLAUDE"]


def test_plain_jsonl_folders_are_still_split_per_file(tmp_path: Path) -> None:
    for name in ("blogs", "chat"):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps({"text": WORDS, "model": "gpt-4"}) + "\n", encoding="utf-8")
    assert not is_fastchat_folder(tmp_path)
    assert expand_sources([tmp_path]) == [tmp_path / "blogs.jsonl", tmp_path / "chat.jsonl"]


def test_a_row_that_is_not_an_answer_names_file_and_line(tmp_path: Path) -> None:
    folder = write_folder(tmp_path, {"gpt-4": [answer("gpt-4", "q1", WORDS), {"question_id": "q2", "text": WORDS}]})
    with pytest.raises(WhowroteError, match=r"gpt-4\.jsonl:2: not a FastChat answer"):
        load_corpus([folder])


@pytest.mark.parametrize(("path", "genre"), [("arena-hard-v0.1/model_answer", "arena-hard"),
                                              ("mt_bench/model_answer", "mt_bench"),
                                              ("answers_v2", "answers")])
def test_benchmark_genre(tmp_path: Path, path: str, genre: str) -> None:
    assert benchmark_genre(tmp_path / path) == genre


def test_data_audit_reads_the_folder_and_names_a_bad_row_in_one_line(folder: Path, tmp_path: Path, capsys) -> None:
    from whowrote.cli import main

    def run(args: list[str]) -> tuple[int, str]:
        try:
            main(args)
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        return code, capsys.readouterr().err

    code, _ = run(["data", "audit", str(folder), "--json", str(tmp_path / "audit.json")])
    assert code == 0
    assert json.loads((tmp_path / "audit.json").read_text())["n_rows"] == 4
    (folder / "zz-broken.jsonl").write_text('{"question_id": "q9", "text": "no choices"}\n', encoding="utf-8")
    code, err = run(["data", "audit", str(folder)])
    assert code != 0 and "zz-broken.jsonl:1: not a FastChat answer" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
