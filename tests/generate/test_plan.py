"""The plan file: models to APIs by the provider rules, cells and their stable ids, clear errors,
and the dry-run budget."""

from __future__ import annotations

import dataclasses

import pytest

from whowrote.data.generate.budget import estimate
from whowrote.data.generate.plan import cells, load_plan
from whowrote.types import WhowroteError

from .conftest import plan_text


def _plan(tmp_path, text):
    p = tmp_path / "plan.toml"
    p.write_text(text, encoding="utf-8")
    return load_plan(p)


BASE = """
samples = 2
[topics.inline]
philosophy = ["Zeno", "Free will"]
history = ["The printing press"]
[lengths.short]
words = 2500
[lengths.long]
words = 5500
max_tokens = 12000
[genres.blog]
[genres.story]
lengths = ["short"]
[[models]]
name = "claude-opus-4-6"
[[models]]
name = "gpt-5.5"
price = {input = 1.25, output = 10.0}
[[models]]
name = "gemini-3.1-pro"
[[models]]
name = "meta-llama/Llama-3.3-70B-Instruct"
api = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
"""


def test_models_map_to_apis_and_providers_by_the_existing_rules(tmp_path):
    plan = _plan(tmp_path, BASE)
    got = {m.name: (m.api, m.provider) for m in plan.models}
    assert got == {"claude-opus-4-6": ("anthropic", "CLAUDE"), "gpt-5.5": ("openai", "CHATGPT"),
                   "gemini-3.1-pro": ("google", "GEMINI"),
                   "meta-llama/Llama-3.3-70B-Instruct": ("openai-compatible", "OTHER")}


def test_cells_are_models_x_genres_x_topics_x_lengths_x_samples(tmp_path):
    plan = _plan(tmp_path, BASE)
    cs = cells(plan)
    # blog: 2 lengths, story: short only -> 3 (genre, length) pairs; 3 topics, 2 samples, 4 models
    assert len(cs) == 4 * 3 * 3 * 2 == len({c.id for c in cs})
    story = [c for c in cs if c.genre.name == "story"]
    assert {c.length for c in story} == {"short"}
    long_blog = next(c for c in cs if c.length == "long")
    assert long_blog.max_tokens == 12000 and long_blog.words == 5500
    assert next(c for c in cs if c.length == "short").max_tokens == 2 * 2500 + 1024
    assert "about 2500 words" in next(c for c in cs if c.length == "short").prompt


def test_cell_ids_are_stable_and_change_with_the_prompt_template(tmp_path):
    a = {c.id for c in cells(_plan(tmp_path, BASE))}
    assert a == {c.id for c in cells(_plan(tmp_path, BASE))}
    edited = BASE.replace("[genres.story]", '[genres.story]\ntemplate = "Tell a tale of {words} words: {topic}"')
    b = cells(_plan(tmp_path, edited))
    story_ids = {c.id for c in b if c.genre.name == "story"}
    assert story_ids.isdisjoint(a) and {c.id for c in b if c.genre.name == "blog"} <= a


@pytest.mark.parametrize("text, fragment", [
    ("[[models]]\nname = 'gpt-5.5'\n", "no [topics]"),
    (BASE.replace('name = "gpt-5.5"', 'name = "gpt-5.5"\ncolour = "red"'), "unknown key(s) colour"),
    (BASE.replace('api = "openai-compatible"\n', ""), "say which api"),
    (BASE.replace('base_url = "http://127.0.0.1:9/v1"', ""), "needs base_url"),
    (BASE.replace('lengths = ["short"]', 'lengths = ["epic"]'), "'epic' is not in [lengths]"),
    (BASE.replace("[genres.story]", "[genres.poem]"), "needs a template"),
    (BASE.replace("[genres.story]", "[genres.story]\ntemplate = 'x {nope}'"), "bad placeholder"),
    (BASE.replace("samples = 2", "samples = 0"), "samples must be a positive integer"),
    (BASE + "[hygiene]\ndrop = ['typo']\n", "unknown kinds"),
    ("samples = [", "not valid TOML"),
])
def test_bad_plans_fail_with_one_line_naming_the_problem(tmp_path, text, fragment):
    with pytest.raises(WhowroteError) as err:
        _plan(tmp_path, text)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_missing_plan_file(tmp_path):
    with pytest.raises(WhowroteError, match="plan not found"):
        load_plan(tmp_path / "nope.toml")


def test_topics_from_files(tmp_path):
    (tmp_path / "t.txt").write_text("# comment\nphilosophy\tZeno\nA topic with no category\n\n", encoding="utf-8")
    (tmp_path / "t.jsonl").write_text('{"category": "stem", "topic": "Entropy"}\n', encoding="utf-8")
    (tmp_path / "t.csv").write_text("topic,category\nThe Silk Road,history\n", encoding="utf-8")
    for name, want in [("t.txt", {("philosophy", "Zeno"), ("general", "A topic with no category")}),
                       ("t.jsonl", {("stem", "Entropy")}), ("t.csv", {("history", "The Silk Road")})]:
        plan = _plan(tmp_path, f'[topics]\nfile = "{name}"\n[[models]]\nname = "gpt-5.5"\n')
        assert {(t.category, t.topic) for t in plan.topics} == want


def test_dry_run_budget_adds_up(tmp_path):
    plan = _plan(tmp_path, BASE)
    cs = cells(plan)
    gpt = [c for c in cs if c.model.name == "gpt-5.5"]
    done = {gpt[0].id}
    b = estimate(plan, cs, done)
    line = next(ln for ln in b.lines if ln.model == "gpt-5.5")
    assert line.cells == len(gpt) == 18 and line.done == 1
    todo = gpt[1:]
    assert line.max_output_tokens == sum(c.max_tokens for c in todo)
    assert line.output_tokens == sum(min(c.max_tokens, round(c.words * 1.35)) for c in todo)
    assert line.cost == pytest.approx((line.input_tokens * 1.25 + line.output_tokens * 10.0) / 1e6)
    assert next(ln for ln in b.lines if ln.model == "claude-opus-4-6").cost is None  # no price given
    assert b.totals().cells == len(cs)


def test_dry_run_names_missing_keys(tmp_path, monkeypatch):
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    plan = _plan(tmp_path, BASE)
    assert estimate(plan, cells(plan), set()).missing_keys == ["ANTHROPIC_API_KEY", "GEMINI_API_KEY"]


def test_fixture_plan_parses(tmp_path):
    plan = _plan(tmp_path, plan_text("http://127.0.0.1:1", ("openai", "anthropic", "google", "openai-compatible")))
    assert [m.provider for m in plan.models] == ["CHATGPT", "CLAUDE", "GEMINI", "OTHER"]
    assert dataclasses.replace(plan, samples=3).samples == 3
