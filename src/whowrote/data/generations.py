"""Model generation of a corpus row: ``"2023-24"`` or ``"2025-26"``, for leave-one-generation-out.

Model drift is what users meet first: a classifier trained on one generation of assistants is
used on the next. The rules date the assistants' releases by family and version (first match
wins, lower-cased model id). Rows of other models (OTHER) are dated by their genre's snapshot,
since their open-model families mix releases: chat (AlpacaEval), fiction and Arena-Hard-Auto
v0.1's answers (``arena-hard``, read by :func:`whowrote.data.readers.read_fastchat_answers`) are 2023-24, the rest 2025-26.
"""

from __future__ import annotations

import re

OLD, NEW = "2023-24", "2025-26"

RULES: tuple[tuple[str, str], ...] = (
    (r"claude-3-7|claude-3\.7|claude-(opus|sonnet|haiku)-4|claude-4|claude-opus-4", NEW),
    (r"claude-3-5-sonnet-2024|claude-3\.5|claude-3-|claude-2|claude-instant|(^|_|/)claude$", OLD),
    (r"gpt-?5|gpt-4\.1|gpt-4\.5|(^|/)o[3-9]|chatgpt-4o-latest-2025", NEW),
    (r"gpt-?4|gpt-?3|gpt35|davinci|chatgpt|(^|/)o1", OLD),  # o1 / o1-mini / o1-preview: released in 2024
    (r"gemini-(2|3)", NEW),
    (r"gemini-(pro|1)", OLD),
)
OTHER_BY_GENRE = {"chat": OLD, "fiction": OLD, "arena-hard": OLD}
_COMPILED = [(re.compile(p), gen) for p, gen in RULES]


def generation(model: str, provider: str, genre: str) -> str:
    """The generation of one row (see the module docstring)."""
    if provider != "OTHER":
        name = (model or "").lower()
        for pattern, gen in _COMPILED:
            if pattern.search(name):
                return gen
    return OTHER_BY_GENRE.get(genre, NEW)
