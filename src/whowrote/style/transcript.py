"""Pasted conversations: keep the assistant's turns, drop the user's.

People paste whole chats ("User: ... / Assistant: ...", or a chat window's copy: "You said: ... /
ChatGPT said: ..."). The user's turns are not the assistant's writing, and their style pulls the
verdict (wrapping the corpus's chat answers in a one-line user turn moves their verdicts; see
docs/predict.md, "Pasted conversations"). A text counts as a conversation only when it *starts* with
a role line and holds turns of both sides, so an essay that quotes a "User:" line stays whole; the
check of an ordinary text reads its first line only. Role lines are matched by line-anchored
patterns of literals (linear time).

A transcript that labels the assistant by name ("ChatGPT said:") states the answer outright; the
caller says so in a warning, and the verdict still comes from the writing alone.

A chat log pasted as JSON (a list of turns, or an object holding one under ``messages`` and the
other :data:`whowrote.formats.CONVERSATION_COLUMNS`, read by :func:`whowrote.formats.conversation_turns`)
is a conversation too: before, its source (braces, keys, the user's turns) was attributed as prose.
So is an assistant's whole data export pasted or piped as one text (a list of such objects): every
conversation's assistant turns, read as one text, and the warning says how many conversations
(``whowrote predict`` on the file gives one result each).
Only a text that starts with ``[`` or ``{`` is parsed (once, linear time). Its turns have no spans
(JSON escapes move the offsets), so a highlight marks nothing in it. ``inspect_text`` reads a JSON
log (:func:`json_chat_log`) before its HTML check, so a turn holding HTML does not turn the JSON
source into Markdown first; the assistant side then goes through the same checks as a record's.

Saved pages of the assistants' chat windows: their visible text has no "User:" / "Assistant:" lines,
but the windows mark their turns in their markup, as the browser extensions that read them select
them (2024-25): ChatGPT ``data-message-author-role="user"`` / ``"assistant"`` on each message;
Gemini the custom elements ``<user-query>`` and ``<model-response>``; Claude ``data-testid=
"user-message"`` on the user's, the class ``font-claude-message`` (or ``font-claude-response``) on
the assistant's (:func:`chat_role`). :mod:`whowrote.style.html_reader` reads such a page's turns
only, each after a role line, so that :func:`assistant_turns` keeps the assistant's; a page where no
assistant turn is found is read as an ordinary page (the markup may have changed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from whowrote.formats import CONVERSATION_COLUMNS, JSONError, conversation_turns, parse_json

USER_ROLES = ("user", "human", "you", "me", "prompt")
ASSISTANT_ROLES = ("assistant", "ai", "bot", "model", "chatbot", "chatgpt", "gpt-4o", "gpt-4", "gpt", "claude",
                   "gemini", "bard", "copilot")
NAMED = {"chatgpt": "ChatGPT", "gpt-4o": "GPT-4o", "gpt-4": "GPT-4", "gpt": "GPT", "claude": "Claude",
         "gemini": "Gemini", "bard": "Bard", "copilot": "Copilot"}
# "**User:**", "### Assistant", "You said:", "ChatGPT said:" at a line start; the rest of the line is the
# turn's first line. Longer names first, so "gpt-4o" is not read as "gpt".
_ROLES = "|".join(sorted((re.escape(r) for r in (*USER_ROLES, *ASSISTANT_ROLES)), key=len, reverse=True))
# (one whitespace run between the name and the colon, an optional "**" after it: no two adjacent
# runs, so a line of spaces is scanned once)
_ROLE_LINE = re.compile(rf"^[ \t]*(?:#{{1,6}}[ \t]*)?(?:\*\*)?({_ROLES})(?:[ \t]+said)?[ \t]*(?:\*\*[ \t]*)?:(?:\*\*)?[ \t]*",
                        re.IGNORECASE | re.MULTILINE)
_HEAD = 300  # characters of the first line that are looked at for an ordinary text
_SPACE = re.compile(r"\s*")


CHAT_PAGE = re.compile(r"data-message-author-role\s*=|<(?:user-query|model-response)\b|"
                       r"data-testid\s*=\s*[\"']?(?:user|assistant)-message|font-claude-(?:message|response)", re.I)
USER, ASSISTANT = "User", "Assistant"  # the role lines a chat page's turns are written after
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


@dataclass(frozen=True)
class Conversation:
    """The assistant's turns of a pasted conversation."""

    text: str  # the assistant's turns, a blank line between them
    assistant_turns: int
    user_turns: int
    named: str | None  # the product the transcript labels the assistant with, if any
    spans: tuple[tuple[int, int], ...] = ()  # where those turns stand in the pasted text (start, end)
    json_log: bool = False  # pasted as a JSON chat log, not as role lines
    records: int = 1  # conversations in it (an assistant's data export pasted whole: more than one)


def json_chat_log(text: str) -> Conversation | None:
    """The assistant's side of a chat log pasted as JSON (see the module doc), else None."""
    start = _SPACE.match(text).end()
    if text[start : start + 1] not in ("[", "{"):
        return None
    try:
        value = parse_json(text)
    except JSONError:
        return None
    held = [r for v in value if (r := _record(v)) is not None] if isinstance(value, list) else []
    # a list of records holding conversations (an export; a Gemini export's feedback entries hold none)
    read = [conversation_turns(r) for r in held] if held else [conversation_turns(_record(value) or value)]
    read = [t for t in read if t is not None and t[1]]
    if not read:
        return None
    return Conversation("\n\n".join(t[0] for t in read), sum(t[1] for t in read), sum(t[2] for t in read), None, (),
                        json_log=True, records=len(read))


def _record(value: object) -> object:
    """A record's conversation (its first :data:`CONVERSATION_COLUMNS` value), else None."""
    if not isinstance(value, dict):
        return None
    return next((value[c] for c in CONVERSATION_COLUMNS if isinstance(value.get(c), list | dict)), None)


def assistant_turns(text: str) -> Conversation | None:
    """The assistant's side of ``text`` when it is a pasted conversation (it starts with a role line
    and has turns of both sides, or it is a JSON chat log with an assistant turn), else None."""
    start = _SPACE.match(text).end()
    if not _ROLE_LINE.match(text, start, start + _HEAD):
        return json_chat_log(text)
    marks = list(_ROLE_LINE.finditer(text, start))
    roles = [m.group(1).lower() for m in marks]
    if not any(r in USER_ROLES for r in roles) or not any(r in ASSISTANT_ROLES for r in roles):
        return None
    turns, spans = [], []
    for i, m in enumerate(marks):
        if roles[i] in ASSISTANT_ROLES:
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            turn = text[m.end() : end]
            stripped = turn.strip()
            if stripped:
                start = m.end() + len(turn) - len(turn.lstrip())
                turns.append(stripped)
                spans.append((start, start + len(stripped)))
    named = next((NAMED[r] for r in roles if r in NAMED), None)
    n_user = sum(r in USER_ROLES for r in roles)
    return Conversation("\n\n".join(turns), len(roles) - n_user, n_user, named, tuple(spans))
