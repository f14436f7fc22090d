"""Model -> provider: every model name in the shared corpus, and the family rules."""

from __future__ import annotations

import json

import pytest

from whowrote.data.providers import ProviderMap, parse_rules, provider_of
from whowrote.types import WhowroteError


def _models_with_gold(path):
    pairs = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            pairs.add((row["model"], row.get("provider")))
    return pairs


@pytest.mark.parametrize("stem", ["debates", "fiction", "longform"])
def test_every_corpus_model_matches_the_gold_provider_column(corpus_files, stem):
    pairs = _models_with_gold(corpus_files[stem])
    assert len({m for m, _ in pairs}) >= 14
    wrong = sorted((m, gold, provider_of(m)) for m, gold in pairs if provider_of(m) != gold)
    assert not wrong, wrong


def test_blog_models(corpus_files):
    models = {m for m, _ in _models_with_gold(corpus_files["blogs"])}
    assert models == {"claude-opus-4.8", "gpt-5.5"}
    assert provider_of("claude-opus-4.8") == "CLAUDE"
    assert provider_of("gpt-5.5") == "CHATGPT"


def test_every_corpus_model_is_known_to_some_rule(corpus):
    """Known families of other vendors are OTHER by an explicit rule, so nothing is 'unknown'."""
    pmap = ProviderMap()
    unknown = sorted(m for m in corpus["model"].unique() if not pmap.is_known(m))
    assert not unknown, unknown


@pytest.mark.parametrize(("model", "provider"), [
    ("gpt-oss-120b", "OTHER"), ("openai/gpt-oss-20b", "OTHER"), ("google/gemma-3-27b-it", "OTHER"),
    ("ToastyPigeon/Gemma-3-Starshine-12B", "OTHER"), ("gpt2", "OTHER"), ("EleutherAI/gpt-j-6b", "OTHER"),
    ("o3", "CHATGPT"), ("o4-mini", "CHATGPT"), ("o1-preview", "CHATGPT"), ("openai/o3-pro", "CHATGPT"),
    ("chatgpt-4o-latest-2025-03-27", "CHATGPT"), ("gpt-4.1-nano", "CHATGPT"), ("gpt-5.4-high", "CHATGPT"),
    ("anthropic/claude-3.5-haiku-20241022", "CLAUDE"), ("claude-sonnet-4-6-0K", "CLAUDE"),
    ("gemini-3.1-flash-lite-preview", "GEMINI"), ("models/gemini-1.5-pro", "GEMINI"),
    ("llama4-maverick", "OTHER"), ("qwen3.6-max-preview", "OTHER"), ("deepseek-ai/DeepSeek-R1", "OTHER"),
    ("", "OTHER"), (None, "OTHER"), ("totally-new-model", "OTHER"),
    # open models named after the assistant they were fine-tuned on (MT-Bench's vicuna-30b-gpt4 was CHATGPT)
    ("vicuna-30b-gpt4", "OTHER"), ("gpt4-x-alpaca", "OTHER"), ("alpaca-gpt4-7b", "OTHER"),
    ("llama-2-7b-claude-chat", "OTHER"), ("koala-13b", "OTHER"), ("mpt-30b-chat", "OTHER"),
])
def test_family_rules(model, provider):
    assert provider_of(model) == provider


def test_unknown_model_is_other_but_not_known():
    pmap = ProviderMap()
    assert pmap("totally-new-model") == "OTHER" and not pmap.is_known("totally-new-model")


def test_user_rules_come_first_and_are_validated():
    assert provider_of("my-claude-distill", [("claude-distill", "OTHER")]) == "OTHER"
    assert provider_of("acme-writer", parse_rules(["acme=gemini"])) == "GEMINI"
    with pytest.raises(WhowroteError, match="not one of"):
        ProviderMap([("acme", "ACME")])
    with pytest.raises(WhowroteError, match="regular expression"):
        ProviderMap([("(", "OTHER")])
    with pytest.raises(WhowroteError, match="PATTERN=LABEL"):
        parse_rules(["no-equals-sign"])
