"""System prompts and chat messages for the provider-identification task (research spec §2.2).

The prompts are written in our own words after the spec's summaries: a forensic-analyst persona,
``## TASK`` / ``## OUTPUT FORMAT`` / ``## RULES`` sections, and the output contract the parser
(:mod:`whowrote.task.parser`) reads: ``<reason_why>`` then ``<answer>``. The must-start,
no-``<think>`` and brevity rules exist because their absence caused thinking leaks and
repetition-loop truncation in the reference runs.

The text a prompt carries is written in ASCII typography (:func:`whowrote.typography.to_ascii`:
straight quotes, ``--`` for an em-dash): a model trained or asked on it cannot learn, or be flipped
by, the apostrophe shortcut the corpus teaches (curly apostrophes are near absent from CLAUDE texts),
which a word processor or a copy button adds or removes without changing a word. The style model's
canonical form drops the same characters, so the two read one text. Both also read the text's plain
layout (:func:`whowrote.typography.plain_layout`: ``\\n`` line endings, no trailing spaces, no
zero-width characters).

Pure Python: importable with nothing but the standard library.
"""

from __future__ import annotations

from collections.abc import Sequence

from whowrote.types import PROVIDERS
from whowrote.typography import plain_layout, to_ascii

# How a prompt carries its text; an eval run records it, so a resumed run never mixes two readings.
PROMPT_TEXT = "ascii+plain_layout"

COMPANY: dict[str, str] = {"CLAUDE": "Anthropic", "CHATGPT": "OpenAI", "GEMINI": "Google"}
PRODUCT: dict[str, str] = {"CLAUDE": "Claude", "CHATGPT": "ChatGPT", "GEMINI": "Gemini"}

# Variants that take one text; "pair" and "trio" take several (see pair_messages/trio_messages).
SINGLE_VARIANTS: tuple[str, ...] = ("3way", "binary", "answer_only", "hardpair", "lexical")
VARIANTS: tuple[str, ...] = (*SINGLE_VARIANTS, "pair", "trio")
BINARY_LABELS: tuple[str, ...] = ("CLAUDE", "CHATGPT")

PERSONA = "You are a forensic analyst of AI-generated text."
HOLISTIC = (
    "Rely on your own overall, qualitative judgment of the writing's style and voice, "
    "not on any single surface cue."
)
STYLE_ONLY = "Judge only how the text is written, never what it is about: the topic carries no signal."

_REASON_FORMAT = """## OUTPUT FORMAT
Reply with exactly these two tags and nothing outside them:

<reason_why>
2-4 short sentences {evidence}, grounded in the text.
</reason_why>

<answer>
{answer_line}
Confidence: HIGH / MEDIUM / LOW
</answer>"""

_REASON_RULES = """## RULES
- Always classify; {choose_rule}
- Start your reply with the literal tag <reason_why>, with nothing before it.
- Keep the reasoning to at most 4 short sentences: no long deliberation, lists, second-guessing or repetition.
- Always close </reason_why> and then write the complete <answer> block; do not run out of room.
- Do not write <think> or </think> and do not think out loud outside the tags.
- If the signals conflict, say so briefly and lower the confidence."""


def _label_list(labels: Sequence[str]) -> str:
    """``CLAUDE (Anthropic's Claude), CHATGPT (OpenAI's ChatGPT) or GEMINI (Google's Gemini)``."""
    parts = [f"{lab} ({COMPANY[lab]}'s {PRODUCT[lab]})" if lab in COMPANY else lab for lab in labels]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _single_prompt(labels: Sequence[str], *, holistic: bool, method: str = "") -> str:
    who = "exactly one" if len(labels) > 2 else "one"
    task = (
        f"## TASK\nThe text in the user message was written by {who} of these AI assistants: "
        f"{_label_list(labels)}. Decide which one wrote it. {STYLE_ONLY}"
    )
    if holistic:
        task += f"\n{HOLISTIC}"
    body = [PERSONA, task]
    if method:
        body.append(method)
    body.append(_REASON_FORMAT.format(evidence="giving the decisive evidence",
                                      answer_line="Exactly one of: " + " / ".join(labels)))
    body.append(_REASON_RULES.format(choose_rule="name exactly one label, never two and never none."))
    return "\n\n".join(body)


def _multi_prompt(task: str, *, evidence: str, answer_line: str, choose_rule: str) -> str:
    """The pair/trio scaffold: persona, ``task``, the reasoned output format and the rules."""
    return "\n\n".join([
        PERSONA,
        task,
        _REASON_FORMAT.format(evidence=evidence, answer_line=answer_line),
        _REASON_RULES.format(choose_rule=choose_rule),
    ])


_LEXICAL_METHOD = """## METHOD
Each assistant has its own vocabulary: favourite words, stock phrases, transitions, punctuation
and formatting habits. You are not told which tokens belong to which assistant; infer it yourself.
Find the tokens in this text that are most discriminative (frequent for one assistant, rare for the
others) and weigh them. Look at connectives, hedges and set phrases; dashes, quotes, bullets,
headings, bold/italic, emoji and spacing; how the text opens and closes, how lists are framed, and
sentence rhythm. Topic words carry no signal. In <reason_why>, quote the tokens you found and say
which assistant each points to."""


def _answer_only_prompt(labels: Sequence[str]) -> str:
    return (
        f"{PERSONA}\n\n## TASK\nThe text in the user message was written by exactly one of: "
        f"{_label_list(labels)}. Decide which. {STYLE_ONLY}\n\n"
        "## OUTPUT FORMAT\nReply with only <answer>LABEL</answer>, where LABEL is one of "
        f"{' / '.join(labels)}. No reasoning, no preamble, no other text.\n\n"
        "## RULES\n- Always classify with exactly one label.\n- No explanation.\n"
        "- Do not write <think> or </think>."
    )


def pair_system_prompt(p1: str = "CLAUDE", p2: str = "CHATGPT") -> str:
    """Two texts A and B; one is by ``p1``, the other by ``p2`` (so the authors differ)."""
    a, b = (f"{p} ({COMPANY.get(p, p)})" for p in (p1, p2))
    return _multi_prompt(
        f"## TASK\nYou get two texts, TEXT A and TEXT B. One was written by {a} and the other by {b}, "
        f"so their authors differ. Decide which is which. {STYLE_ONLY}\n{HOLISTIC} Contrast them: "
        "what does A do that B does not, and the other way round?",
        evidence="contrasting the two texts", answer_line=f"A: {p1} or {p2}\nB: {p1} or {p2}",
        choose_rule="use each of the two labels exactly once, never the same label twice.")


def trio_system_prompt(labels: Sequence[str] = PROVIDERS) -> str:
    """Three texts A, B, C, each by one provider; repeats allowed (authors need not differ)."""
    one_of = " or ".join(labels)
    return _multi_prompt(
        f"## TASK\nYou get three texts, TEXT A, TEXT B and TEXT C. Each was written by one of "
        f"{_label_list(labels)}. The same assistant may have written more than one of them: do not "
        f"assume the authors are different. {STYLE_ONLY}\n{HOLISTIC} Contrast the texts, but judge "
        "each one on its own writing.",
        evidence="contrasting the texts", answer_line=f"A: {one_of}\nB: {one_of}\nC: {one_of}",
        choose_rule="give one label per text; repeats are allowed and a label may go unused.")


def system_prompt(variant: str = "3way", labels: Sequence[str] = PROVIDERS,
                  cheatsheet: str | None = None) -> str:
    """The system prompt of a single-text ``variant``, with an optional cheatsheet appended."""
    labels = tuple(labels)
    if variant == "3way":
        text = _single_prompt(labels, holistic=True)
    elif variant in ("binary", "hardpair"):
        # binary and hardpair differ only in the holistic line (hardpair has it); both are 2-way.
        two = labels if len(labels) == 2 else BINARY_LABELS
        text = _single_prompt(two, holistic=variant == "hardpair")
    elif variant == "answer_only":
        text = _answer_only_prompt(labels)
    elif variant == "lexical":
        text = _single_prompt(labels, holistic=False, method=_LEXICAL_METHOD)
    elif variant == "pair":
        text = pair_system_prompt(*(labels[:2] if len(labels) >= 2 else BINARY_LABELS))
    elif variant == "trio":
        text = trio_system_prompt(labels)
    else:
        raise ValueError(f"unknown prompt variant {variant!r}; expected one of {VARIANTS}")
    return text + ("\n\n" + cheatsheet.strip() if cheatsheet else "")


def variant_labels(variant: str, labels: Sequence[str] = PROVIDERS) -> tuple[str, ...]:
    """The labels the parser should accept for ``variant`` (binary/hardpair are 2-way)."""
    if variant in ("binary", "hardpair") and len(labels) != 2:
        return BINARY_LABELS
    return tuple(labels)


def build_messages(text: str, variant: str = "3way", cheatsheet: str | None = None,
                   labels: Sequence[str] = PROVIDERS) -> list[dict]:
    """``[system, user]`` chat messages for one text; the user message is the text in ASCII typography and plain layout."""
    if variant in ("pair", "trio"):
        raise ValueError(f"variant {variant!r} takes several texts: use pair_messages/trio_messages")
    return [
        {"role": "system", "content": system_prompt(variant, labels, cheatsheet)},
        {"role": "user", "content": plain_layout(to_ascii(text))},
    ]


def text_blocks(texts: Sequence[str]) -> str:
    """``### TEXT A\\n...\\n\\n### TEXT B\\n...`` user message for pair/trio rows."""
    return "\n\n".join(f"### TEXT {chr(ord('A') + i)}\n{plain_layout(to_ascii(t))}" for i, t in enumerate(texts))


def pair_messages(text_a: str, text_b: str, p1: str = "CLAUDE", p2: str = "CHATGPT",
                  cheatsheet: str | None = None) -> list[dict]:
    sys_text = system_prompt("pair", (p1, p2), cheatsheet)
    return [{"role": "system", "content": sys_text}, {"role": "user", "content": text_blocks([text_a, text_b])}]


def trio_messages(texts: Sequence[str], labels: Sequence[str] = PROVIDERS,
                  cheatsheet: str | None = None) -> list[dict]:
    if len(texts) != 3:
        raise ValueError(f"a trio needs 3 texts, got {len(texts)}")
    sys_text = system_prompt("trio", labels, cheatsheet)
    return [{"role": "system", "content": sys_text}, {"role": "user", "content": text_blocks(texts)}]


def slot_gold(labels: Sequence[str]) -> str:
    """Gold string of a pair/trio row: ``A=CLAUDE;B=GEMINI[;C=...]`` (what the router reads)."""
    return ";".join(f"{chr(ord('A') + i)}={lab}" for i, lab in enumerate(labels))
