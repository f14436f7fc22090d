"""Model name -> provider, by family rules a user can extend.

Rules are regular expressions tried in order against the lower-cased model id with any
``org/`` prefix kept (so ``anthropic/claude-3-haiku`` matches ``claude``). The first match wins;
nothing matching means OTHER. Order matters: open-weight families from the same vendors
(``gemma``, ``gpt-oss``) and known open families of other vendors (``KNOWN_OTHER_FAMILIES``,
OTHER on purpose, so the audit can tell a truly unrecognised name from a known non-assistant one)
are listed before the chat families whose names they may carry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from whowrote.types import LABELS, OTHER, WhowroteError

KNOWN_OTHER_FAMILIES = (
    r"llama|mistral|mixtral|ministral|codestral|qwen|qwq|deepseek|glm|chatglm|kimi|moonshot|grok|"
    r"command|cohere|c4ai|aya|phi-?\d|falcon|yi-|internlm|baichuan|ernie|hunyuan|hy\d|doubao|seed-|"
    r"mimo|minimax|abab|lfm|liquid|nemotron|olmo|granite|jamba|reka|dbrx|starling|vicuna|zephyr|"
    r"hermes|dolphin|nous|wizardlm|openchat|solar|exaone|darkest-muse|smollm|step-\d|pangu|spark|"
    r"alpaca|koala|guanaco|tulu|baize|oasst|pythia|dolly|rwkv|stablelm|h2ogpt|mpt-\d"
)

DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    # Open-weight models from OpenAI / Google are not the assistants we name, nor are older
    # open GPT-style models from others (GPT-2, GPT-J, GPT-NeoX, Cerebras-GPT, BioGPT, GPT4All).
    (r"gpt-oss", OTHER),
    (r"gemma", OTHER),
    (r"(^|/)(gpt-?2|gpt-?j|gpt-neo|gpt4all|gpt-sw3|cerebras-gpt|biogpt|distilgpt)", OTHER),
    # Open models fine-tuned on an assistant's answers often carry its name ("vicuna-30b-gpt4",
    # "gpt4-x-alpaca", "llama-2-7b-claude-chat"): a known open family wins over the name it imitates.
    (KNOWN_OTHER_FAMILIES, OTHER),
    (r"claude", "CLAUDE"),
    (r"(^|[/_\-\s.])(chat)?gpt(-|$|\d)", "CHATGPT"),
    (r"chatgpt", "CHATGPT"),
    (r"(^|/)text[-_]davinci", "CHATGPT"),  # OpenAI's instruct models before ChatGPT (AlpacaEval's gold label)
    # OpenAI o-series reasoning chat models: o1, o3, o3-mini, o4-mini, o1-preview, o3-pro ...
    (r"(^|/)o[1-9](-(mini|pro|preview|high|low|medium|deep-research))*($|-\d)", "CHATGPT"),
    (r"gemini", "GEMINI"),
    (r"(^|/)bard($|-)", "GEMINI"),
)


class ProviderMap:
    """Maps model ids to providers; extra rules are tried before the defaults."""

    def __init__(self, extra_rules: Iterable[tuple[str, str]] = ()) -> None:
        extra = list(extra_rules)
        for pattern, label in extra:
            if label not in LABELS:
                raise WhowroteError(f"provider rule {pattern!r}: label {label!r} is not one of {', '.join(LABELS)}")
            try:
                re.compile(pattern)
            except re.error as e:
                raise WhowroteError(f"provider rule {pattern!r}: bad regular expression ({e})") from None
        self.rules = [(re.compile(p, re.I), label) for p, label in (*extra, *DEFAULT_RULES)]

    def __call__(self, model: str | None) -> str:
        name = (model or "").strip().lower()
        for pattern, label in self.rules:
            if pattern.search(name):
                return label
        return OTHER

    def is_known(self, model: str | None) -> bool:
        """True when some rule names this model (OTHER by an explicit rule counts as known)."""
        name = (model or "").strip().lower()
        return any(p.search(name) for p, _ in self.rules)


def parse_rules(specs: Iterable[str]) -> list[tuple[str, str]]:
    """``"PATTERN=LABEL"`` strings (as given on the command line) -> rules."""
    rules = []
    for spec in specs:
        pattern, sep, label = spec.rpartition("=")
        if not sep or not pattern:
            raise WhowroteError(f"provider rule {spec!r}: expected PATTERN=LABEL, e.g. 'mistral=OTHER'")
        rules.append((pattern, label.strip().upper()))
    return rules


_DEFAULT = ProviderMap()


def provider_of(model: str | None, extra_rules: Iterable[tuple[str, str]] = ()) -> str:
    """The provider (CLAUDE / CHATGPT / GEMINI / OTHER) of a generator model id."""
    return (ProviderMap(extra_rules) if extra_rules else _DEFAULT)(model)
