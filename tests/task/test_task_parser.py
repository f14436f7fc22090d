"""Strict parser rules (spec §2.3) against adversarial completions."""

from __future__ import annotations

import pytest

from whowrote.task.parser import (
    completion_text,
    decode_slot_gold,
    final_content,
    parse_answer,
    parse_pair,
    parse_pred,
    parse_trio,
    reasoning,
    task_type,
)

BINARY = ("CLAUDE", "CHATGPT")
FILLER = "The text hedges a lot and uses numbered lists everywhere. " * 12  # > 400 chars


def wrap(answer: str, reason: str = "Short evidence.") -> str:
    return f"<reason_why>\n{reason}\n</reason_why>\n\n<answer>\n{answer}\nConfidence: HIGH\n</answer>"


@pytest.mark.parametrize("completion,expected", [
    (wrap("CLAUDE"), "CLAUDE"),
    (wrap("chatgpt"), "CHATGPT"),  # lowercase is upper-cased
    (wrap("Gemini"), "GEMINI"),
    (wrap("GEMINI GEMINI"), "GEMINI"),  # repeating one label is fine
    ("<ANSWER>claude</Answer>", "CLAUDE"),  # tag is case-insensitive
    (wrap("CLAUDE or CHATGPT"), None),  # two providers named: a miss even though one is right
    (wrap("CLAUDE, GEMINI, CHATGPT"), None),
    (wrap("I cannot tell"), None),  # zero labels
    ("", None),  # empty output
    ("<answer></answer>", None),
    (wrap("CLAUDES"), None),  # word boundaries
    (wrap("XCLAUDE"), None),
    (wrap("CHATGPT-4o"), "CHATGPT"),  # a hyphen is a boundary
    (wrap("\u0421LAUDE"), None),  # Cyrillic Es look-alike
    (wrap("CLAUD\u0415"), None),  # Cyrillic Ie at the end
    (wrap("GEM\u0131NI"), None),  # dotless i upper-cases to I in Python: must not count
    (wrap("\uff23\uff2c\uff21\uff35\uff24\uff25"), None),  # full-width CLAUDE
    (wrap("ClaudeЖ"), None),  # glued to a non-Latin letter: not word-bounded
])
def test_single_label_rules(completion, expected):
    assert parse_answer(completion) == expected


def test_reasoning_is_not_parsed_when_answer_tag_present():
    c = wrap("GEMINI", reason="It reads like CLAUDE or maybe CHATGPT, but the diagrams say otherwise.")
    assert parse_answer(c) == "GEMINI"


def test_provider_only_in_reasoning_with_empty_answer_is_a_failure():
    c = wrap("unsure", reason="Sincere tone like CLAUDE.")
    assert parse_answer(c) is None


def test_unclosed_answer_falls_back_to_last_400_chars():
    assert parse_answer(FILLER + "<answer>\nCHATGPT\nConfidence: LOW") == "CHATGPT"
    # the label is outside the last 400 characters: no parse
    assert parse_answer("<answer>CHATGPT " + FILLER) is None


def test_truncated_reasoning_naming_one_label_in_tail_still_parses():
    c = "<reason_why>" + FILLER + " so this must be GEMINI because"
    assert parse_answer(c) == "GEMINI"
    # provider mentioned only early in a long truncated reasoning: outside the window
    assert parse_answer("<reason_why>Looks like CLAUDE. " + FILLER) is None


def test_binary_labels_ignore_gemini():
    assert parse_answer(wrap("CLAUDE, not GEMINI"), BINARY) == "CLAUDE"
    assert parse_answer(wrap("GEMINI"), BINARY) is None


def test_non_string_input():
    assert parse_answer(None) is None  # type: ignore[arg-type]


def test_lenient_parse_pred():
    assert parse_pred(wrap("CLAUDE")) == "CLAUDE"
    # two labels in the answer -> first found anywhere, in label order
    assert parse_pred(wrap("GEMINI or CHATGPT")) == "CHATGPT"
    assert parse_pred("no idea") is None
    assert parse_answer(wrap("GEMINI or CHATGPT")) is None  # strict one stays strict


def test_pair_and_trio_slots():
    assert parse_pair(wrap("A: CLAUDE\nB = gemini")) == {"A": "CLAUDE", "B": "GEMINI"}
    assert parse_pair(wrap("A: CLAUDE")) == {"A": "CLAUDE", "B": None}
    assert parse_pair(wrap("B - chatgpt\nA:claude")) == {"A": "CLAUDE", "B": "CHATGPT"}
    t = parse_trio(wrap("A: GEMINI\nB: GEMINI\nC: CLAUDE"))
    assert t == {"A": "GEMINI", "B": "GEMINI", "C": "CLAUDE"}
    # slot letters must be word-bounded: "DATA: CLAUDE" is not slot A
    assert parse_pair(wrap("DATA: CLAUDE\nB: GEMINI"))["A"] is None


@pytest.mark.parametrize("line, expected", [
    ("A: CLAUDEish", None),  # a label glued to more letters is not a label
    ("A: CHATGPTX", None),
    ("A: GEMINI2", None),
    ("A: CLAUDE_X", None),
    ("A: xCLAUDE", None),
    ("A: CLAUDE\u0439", None),  # glued to a Cyrillic letter: no word boundary either
    ("A: CLAUDE.", "CLAUDE"),
    ("A: CLAUDE", "CLAUDE"),  # the label ends the line
    ("A: CLAUDE, I think", "CLAUDE"),
    ("A: **CLAUDE**", "CLAUDE"),  # Markdown bold around the label
    ("**A:** CLAUDE", "CLAUDE"),  # ... or around the slot
    ("**A**: *claude*", "CLAUDE"),
    ("A: `CLAUDE`", "CLAUDE"),
    ('A = "CLAUDE"', "CLAUDE"),
])
def test_slot_label_is_word_bounded_like_parse_answer(line, expected):
    got = parse_pair(wrap(f"{line}\nB: GEMINI"))
    assert got == {"A": expected, "B": "GEMINI"}
    # the single-label parser draws the same boundary around a label
    assert parse_answer(wrap(line.split(":", 1)[-1].split("=", 1)[-1])) == expected
    assert parse_pair(f"<reason_why>x</reason_why> {line}")["A"] == expected  # the fallback tail too
    assert parse_trio(wrap(f"{line}\nB: GEMINI\nC: CHATGPT"))["A"] == expected


def test_trio_fallback_window_is_500():
    tail = "A: CLAUDE\nB: CLAUDE\nC: GEMINI" + "x" * 440  # slot A sits 440-470 chars from the end
    assert len(tail) > 400
    assert parse_trio("<reason_why>" + tail)["A"] == "CLAUDE"
    assert parse_pair("<reason_why>" + tail)["A"] is None


def test_gold_decoding_and_routing():
    assert decode_slot_gold("A=CLAUDE;B=GEMINI") == {"A": "CLAUDE", "B": "GEMINI"}
    assert task_type("A=CLAUDE;B=GEMINI;C=CLAUDE") == "trio"
    assert task_type("a=claude;b=gemini") == "pair"
    assert task_type("CLAUDE") == "single"
    assert task_type("CLAUDE", {"task_type": "pair"}) == "pair"


def test_reasoning_extraction_needs_closed_tag():
    assert reasoning(wrap("CLAUDE", reason="Because.")) == "Because."
    assert reasoning("<reason_why>never closed") is None


class Msg:  # messages arrive as objects at scoring time
    def __init__(self, role, content, reasoning_content=None):
        self.role, self.content, self.reasoning_content = role, content, reasoning_content


def test_completion_text_handles_dicts_objects_and_parts():
    dict_msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": wrap("CLAUDE")}]
    obj_msgs = [Msg("assistant", [{"type": "text", "text": "<answer>"}, {"type": "text", "text": "GEMINI</answer>"}],
                    reasoning_content="thinking")]
    assert parse_answer(completion_text(dict_msgs)) == "CLAUDE"
    assert "hi" not in completion_text(dict_msgs)
    text = completion_text(obj_msgs)
    assert text.startswith("thinking") and parse_answer(text) == "GEMINI"
    assert final_content(obj_msgs) == "<answer> GEMINI</answer>"
    assert completion_text([{"role": "user", "content": "only user"}]) == "only user"


def test_first_block_is_the_lazy_dotall_search_without_its_quadratic_retries():
    import re

    from whowrote.task.parser import first_block

    old = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
    cases = ["", "<answer>CLAUDE</answer>", "x<ANSWER>\nGEMINI\n</Answer> <answer>B</answer>",
             "<answer><answer>A</answer>", "<answer>open only", "</answer><answer>late</answer>",
             "<answer>" * 50 + "</answer>", "no tags at all"]
    for text in cases:
        m = old.search(text)
        assert first_block(text, "answer") == (m.group(1) if m else None), text
    # Unclosed opening tags repeated: one pass, not one retry per tag (the regex took 22 s at 64 KB).
    assert first_block("<answer>" * 8000, "answer") is None
