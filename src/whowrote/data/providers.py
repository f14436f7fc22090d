"""Model name -> provider, by family rules a user can extend.

Rules are regular expressions tried in order against the lower-cased model id with any
``org/`` prefix kept (so ``anthropic/claude-3-haiku`` matches ``claude``). The first match wins;
nothing matching means OTHER. Order matters: open-weight families from the same vendors
(``gemma``, ``gpt-oss``) are listed before the chat families they would otherwise match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from whowrote.types import OTHER

DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    # Open-weight models from OpenAI / Google are not the assistants we name.
    (r"gpt-oss", OTHER),
    (r"gemma", OTHER),
    (r"claude", "CLAUDE"),
    (r"(^|[/_\-\s])(chat)?gpt(-|$|\d)", "CHATGPT"),
    (r"chatgpt", "CHATGPT"),
    # OpenAI o-series reasoning chat models: o1, o3, o3-mini, o4-mini, o1-preview ...
    (r"(^|/|openai/)o[1-9](-(mini|pro|preview|high|low|medium))*($|-\d)", "CHATGPT"),
    (r"gemini", "GEMINI"),
)


class ProviderMap:
    """Maps model ids to providers; extra rules are tried before the defaults."""

    def __init__(self, extra_rules: Iterable[tuple[str, str]] = ()) -> None:
        self.rules = [(re.compile(p, re.I), label) for p, label in (*extra_rules, *DEFAULT_RULES)]

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


_DEFAULT = ProviderMap()


def provider_of(model: str | None, extra_rules: Iterable[tuple[str, str]] = ()) -> str:
    """The provider (CLAUDE / CHATGPT / GEMINI / OTHER) of a generator model id."""
    return (ProviderMap(extra_rules) if extra_rules else _DEFAULT)(model)
