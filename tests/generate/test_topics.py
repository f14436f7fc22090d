"""Topics as categories x N, proposed once by a plan model and cached in DIR/topics.jsonl."""

from __future__ import annotations

from whowrote.data.generate import load_plan, run
from whowrote.data.generate.budget import estimate
from whowrote.data.generate.plan import cells
from whowrote.data.generate.run import parse_topic_list, resolve_topics

from .conftest import read_rows


def _plan(tmp_path, url):
    text = (f'[topics]\ncategories = ["history", "stem"]\nper_category = 3\nmodel = "gpt-5.5"\n'
            f'[lengths.short]\nwords = 30\n[genres.blog]\n'
            f'[[models]]\nname = "gpt-5.5"\nbase_url = "{url}/v1"\n'
            f'[[models]]\nname = "claude-opus-4-6"\nbase_url = "{url}"\n'
            f'[retry]\nmax_retries = 1\ntimeout_s = 5\ninitial_delay_s = 0.05\n')
    p = tmp_path / "plan.toml"
    p.write_text(text, encoding="utf-8")
    return load_plan(p)


def test_proposed_topics_are_asked_once_and_reused(tmp_path, server, keys):
    srv = server()
    plan = _plan(tmp_path, srv.url)
    topics, n_todo = resolve_topics(plan, tmp_path / "out", None, lambda m: None, dry_run=True)
    assert n_todo == 2 and len(topics) == 6 and srv.requests == []  # dry run: placeholders, no request
    assert estimate(plan, cells(plan, topics), set(), n_todo).totals().cells == 12

    report = run(plan, tmp_path / "out", log=lambda m: None)
    proposed = read_rows(tmp_path / "out" / "topics.jsonl")
    assert len(proposed) == 6 and {r["category"] for r in proposed} == {"history", "stem"}
    assert all(r["proposed_by"] == "gpt-5.5" and not r["topic"][0].isdigit() for r in proposed)
    assert report.written == 12 and srv.count("chat/completions") == 2 + 6  # 2 proposals + 6 texts
    rows = read_rows(tmp_path / "out" / "generated.jsonl")
    assert {r["topic"] for r in rows} == {r["topic"] for r in proposed}

    n = len(srv.requests)
    assert run(plan, tmp_path / "out", log=lambda m: None).written == 0 and len(srv.requests) == n


def test_parse_topic_list_strips_markers_and_duplicates():
    text = "1. The Silk Road\n2) Roman roads\n- **The telegraph**\n\n3. the silk road\n" + "x" * 400
    assert parse_topic_list(text) == ["The Silk Road", "Roman roads", "The telegraph"]
