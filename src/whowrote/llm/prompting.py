"""Fitting a prompt into a context budget by truncating the *text*, never the scaffold.

The system prompt and output format are what make completions parseable; cutting them would
turn a long-text problem into a format problem. So the budget is spent on the scaffold first
and the input text (the last user message) is cut, in tokens, to whatever room remains.
"""

from __future__ import annotations

from dataclasses import dataclass

from whowrote.llm.backends import Backend

SAFETY_TOKENS = 8  # re-tokenising a cut text can merge or split a few tokens at the edge


@dataclass
class FitResult:
    messages: list[dict]
    prompt_tokens: int
    text_tokens: int  # tokens of the input text before truncation
    kept_tokens: int  # tokens of the input text kept
    truncated: bool


def _with_text(messages: list[dict], text: str) -> list[dict]:
    out = [dict(m) for m in messages]
    idx = max(i for i, m in enumerate(out) if m.get("role") == "user")
    out[idx]["content"] = text
    return out


def fit_messages(messages: list[dict], backend: Backend, max_prompt_tokens: int | None,
                 max_text_tokens: int | None = None) -> FitResult:
    """``messages`` with the last user message's text cut to ``max_text_tokens`` (as training
    cuts it), then further if needed so the rendered prompt fits ``max_prompt_tokens``."""
    user = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not user:
        raise ValueError("messages have no user message to truncate")
    text = str(messages[user[-1]]["content"])
    text_tokens = backend.count_tokens(text)
    cut_first = bool(max_text_tokens and max_text_tokens > 0 and text_tokens > max_text_tokens)
    if cut_first:
        text = backend.truncate_tokens(text, max_text_tokens)
        messages = _with_text(messages, text)
    total = backend.prompt_tokens(messages)
    if max_prompt_tokens is None or total <= max_prompt_tokens:
        kept = backend.count_tokens(text) if cut_first else text_tokens
        return FitResult(messages, total, text_tokens, kept, cut_first)
    scaffold = backend.prompt_tokens(_with_text(messages, ""))
    room = max_prompt_tokens - scaffold - SAFETY_TOKENS
    if room <= 0:
        raise ValueError(f"the prompt scaffold alone takes {scaffold} tokens; "
                         f"max_prompt_tokens={max_prompt_tokens} leaves no room for the text")
    keep = min(room, backend.count_tokens(text))
    for _ in range(4):  # shrink until the rendered prompt really fits
        cut = backend.truncate_tokens(text, keep)
        fitted = _with_text(messages, cut)
        total = backend.prompt_tokens(fitted)
        if total <= max_prompt_tokens:
            return FitResult(fitted, total, text_tokens, backend.count_tokens(cut), True)
        keep = max(0, keep - (total - max_prompt_tokens) - SAFETY_TOKENS)
    raise ValueError(f"could not fit the prompt into {max_prompt_tokens} tokens")
