"""The cheatsheet teacher splice (research spec §3.4): the student's prompt with the cheatsheet put in.

The teacher is the live student itself under a different prompt: the system prompt with the
cheatsheet appended. Rather than re-rendering every rollout's prompt, the splice works on token
ids, as the research did: the *plain prefix* is the longest token prefix shared by the rendered
plain prompts of some probe texts, the *cheat prefix* the same for the cheatsheet prompts, and a
teacher prompt is ``cheat_prefix + (student prompt ids minus plain_prefix)``. :func:`build_splice`
checks that identity token for token on every probe and refuses a tokenizer or template for
which it fails (a BPE merge across the system/user boundary, say).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from whowrote.task.prompts import build_messages
from whowrote.types import PROVIDERS, WhowroteError

# Short, dissimilar probes (the research used 12 train texts plus these three), so that the shared
# prefix ends where the user text starts.
SYNTHETIC_PROBES = ("short.", "A punctuated sentence, with commas; and more!", "x")


@dataclass(frozen=True)
class Splice:
    plain_prefix: tuple[int, ...]
    cheat_prefix: tuple[int, ...]

    @property
    def added_tokens(self) -> int:
        return len(self.cheat_prefix) - len(self.plain_prefix)

    def teacher_ids(self, student_ids: Sequence[int]) -> list[int]:
        """The teacher prompt for one student prompt (padding already removed)."""
        n = len(self.plain_prefix)
        if tuple(student_ids[:n]) != self.plain_prefix:
            raise WhowroteError("a student prompt does not start with the plain prefix: the splice needs every "
                                "train prompt to use the same system prompt (one variant, no per-row prompts)")
        return [*self.cheat_prefix, *student_ids[n:]]


def render_ids(tokenizer: Any, messages: list[dict], template_kwargs: dict | None = None) -> list[int]:
    """Prompt ids exactly as TRL's GRPOTrainer tokenizes a conversational prompt."""
    out = tokenizer.apply_chat_template(conversation=[messages], add_generation_prompt=True, tokenize=True,
                                        return_dict=True, **(template_kwargs or {}))
    return list(out["input_ids"][0])


def _common_prefix(seqs: Sequence[Sequence[int]]) -> tuple[int, ...]:
    first = seqs[0]
    n = min(len(s) for s in seqs)
    i = 0
    while i < n and all(s[i] == first[i] for s in seqs):
        i += 1
    return tuple(first[:i])


def build_splice(tokenizer: Any, cheatsheet: str, texts: Sequence[str] = (), *, variant: str = "3way",
                 labels: Sequence[str] = PROVIDERS, template_kwargs: dict | None = None) -> Splice:
    """Plain and cheat prefixes from ``texts`` (up to 12 used) plus the synthetic probes, verified."""
    if not cheatsheet.strip():
        raise WhowroteError("the teacher splice needs a non-empty cheatsheet")
    probes = [*list(texts)[:12], *SYNTHETIC_PROBES]
    plain = [render_ids(tokenizer, build_messages(t, variant, None, labels), template_kwargs) for t in probes]
    cheat = [render_ids(tokenizer, build_messages(t, variant, cheatsheet, labels), template_kwargs) for t in probes]
    splice = Splice(_common_prefix(plain), _common_prefix(cheat))
    for p, c in zip(plain, cheat, strict=True):
        if splice.teacher_ids(p) != c:
            raise WhowroteError("cheatsheet splice check failed: cheat_prefix + (plain prompt - plain_prefix) "
                                "differs from the cheat prompt for this tokenizer/template")
    if splice.added_tokens <= 0:
        raise WhowroteError("cheatsheet splice adds no tokens: is the cheatsheet in the system prompt?")
    return splice
