"""Saved pages of the assistants' chat windows: which element holds whose turn.

A chat window saved as a page (or its HTML otherwise kept) holds both sides of the conversation,
and its visible text has no "User:" / "Assistant:" lines to tell them apart: the user's turns were
read as the assistant's writing. The windows mark their turns in their markup, as the browser
extensions that read them select them (2024-25):

- ChatGPT: ``data-message-author-role="user"`` / ``"assistant"`` on each message;
- Gemini: the custom elements ``<user-query>`` and ``<model-response>``;
- Claude: ``data-testid="user-message"`` on the user's, the class ``font-claude-message`` (or
  ``font-claude-response``) on the assistant's.

:mod:`whowrote.style.html_reader` reads such a page's turns only, each after a role line, so that
:mod:`whowrote.style.transcript` keeps the assistant's turns; a page where no assistant turn is
found is read as an ordinary page (the markup may have changed).
"""

from __future__ import annotations

import re

CHAT_PAGE = re.compile(r"data-message-author-role\s*=|<(?:user-query|model-response)\b|"
                       r"data-testid\s*=\s*[\"']?(?:user|assistant)-message|font-claude-(?:message|response)", re.I)
USER, ASSISTANT = "User", "Assistant"
_AUTHOR = {"user": USER, "assistant": ASSISTANT}
_ELEMENTS = {"user-query": USER, "model-response": ASSISTANT}
_TEST_IDS = {"user-message": USER, "assistant-message": ASSISTANT}
_CLAUDE_CLASSES = frozenset({"font-claude-message", "font-claude-response"})


def chat_role(tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
    """``"User"`` or ``"Assistant"`` when the element opens a turn of that side, else None."""
    if tag in _ELEMENTS:
        return _ELEMENTS[tag]
    for name, value in attrs:
        value = (value or "").strip().lower()
        if name == "data-message-author-role" and value in _AUTHOR:
            return _AUTHOR[value]
        if name == "data-testid" and value in _TEST_IDS:
            return _TEST_IDS[value]
        if name == "class" and _CLAUDE_CLASSES.intersection(value.split()):
            return ASSISTANT
    return None
