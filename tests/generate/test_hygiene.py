"""Leak hygiene by default (the corpus audit on every new text), and rows that the data layer
reads back with their labels: JSONL through load_corpus, the Markdown tree through its reader."""

from __future__ import annotations

import json

from whowrote.data import load_corpus
from whowrote.data.generate import load_plan, run
from whowrote.data.generate.hygiene import check

from .conftest import read_rows, write_plan

TOPICS = tuple(f"Topic {i}" for i in range(5))


def test_self_identification_and_own_model_name_are_dropped_and_reported(tmp_path, server, keys):
    # concurrency 1: the queued faults hit the first requests in order
    srv = server(faults=["selfid", "modelname"])
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai",), topics=TOPICS, extra="[concurrency]\nopenai = 1"))
    report = run(plan, tmp_path / "out", log=lambda m: None)
    kept = read_rows(tmp_path / "out" / "generated.jsonl")
    dropped = read_rows(tmp_path / "out" / "dropped.jsonl")
    assert report.dropped == {"self_identification": 1, "names_own_model": 1}
    assert len(kept) == report.written == 3 and len(dropped) == 2
    assert {tuple(r["dropped_for"]) for r in dropped} == {("self_identification",), ("names_own_model",)}
    assert not any("As an AI" in r["text"] or "gpt-5.5" in r["text"] for r in kept)
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["dropped"] == report.dropped and len(saved["dropped_rows"]) == 2
    # Dropped cells count as done: a re-run does not pay for them again.
    n = len(srv.requests)
    assert run(plan, tmp_path / "out", log=lambda m: None).written == 0 and len(srv.requests) == n


def test_frontmatter_a_model_writes_is_stripped_and_the_row_kept(tmp_path, server, keys):
    srv = server(faults=["frontmatter"])
    plan = load_plan(write_plan(tmp_path, srv.url, ("anthropic",), topics=("One",)))
    report = run(plan, tmp_path / "out", log=lambda m: None)
    (row,) = read_rows(tmp_path / "out" / "generated.jsonl")
    assert report.written == 1 and not report.dropped
    assert row["frontmatter_stripped"] is True and not row["text"].startswith("---")
    assert "model:" not in row["text"] and row["n_words"] == 40


def test_hygiene_kinds_come_from_the_plan(tmp_path, server, keys):
    srv = server(faults=["modelname"])
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai",), topics=("One",),
                                extra="[hygiene]\ndrop = ['self_identification']"))
    run(plan, tmp_path / "out", log=lambda m: None)
    (row,) = read_rows(tmp_path / "out" / "generated.jsonl")
    assert "names_own_model" in row["leak_flags"]  # kept, but flagged for a human look


def test_check_flags_provider_mentions_without_dropping():
    v = check({"id": "x", "text": "OpenAI and Anthropic both " + "word " * 60, "model": "gpt-5.5",
               "provider": "CHATGPT", "genre": "blog", "topic": "t", "category": "c"},
              ("self_identification", "metadata_line", "names_own_model", "empty"))
    assert v.drop == () and "provider_mention" in v.flags


def test_rows_read_back_with_their_labels_and_genres(tmp_path, server, keys):
    srv = server()
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai", "google", "openai-compatible"),
                                genres=("blog", "story"), words=200, max_tokens=120))
    run(plan, tmp_path / "out", log=lambda m: None, markdown=True)
    corpus = load_corpus([tmp_path / "out" / "generated.jsonl"])
    assert len(corpus) == 12
    assert set(corpus["genre"]) == {"blog", "story"}  # the row's genre, not the file name
    assert corpus.groupby("model")["provider"].first().to_dict() == {
        "Qwen/Qwen3-8B": "OTHER", "gemini-3.1-pro": "GEMINI", "gpt-5.5": "CHATGPT"}
    assert corpus["truncated"].all()  # the column train-probe filters on
    assert set(corpus["topic"]) == {"Why Zeno still matters", "Free will in the lab"}
    # The Markdown tree: one file per row, frontmatter carrying the label, stripped on load.
    files = sorted((tmp_path / "out" / "markdown").rglob("*.md"))
    assert len(files) == 12 and files[0].read_text().startswith("---\nmodel: ")
    tree = load_corpus([tmp_path / "out" / "markdown" / "blog"])
    assert len(tree) == 6 and not tree["text"].str.startswith("---").any()
    assert set(tree["provider"]) == {"CHATGPT", "GEMINI", "OTHER"}
    jsonl_text = dict(zip(corpus["id"], corpus["text"], strict=True))
    assert all(jsonl_text[i].strip() == t.strip() for i, t in zip(tree["id"], tree["text"], strict=True))
