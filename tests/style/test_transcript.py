"""Pasted conversations: the assistant's turns are attributed, the user's are not."""

from __future__ import annotations

import gc
import time

import pytest

from whowrote.style import load_model
from whowrote.style.textcheck import inspect_text
from whowrote.style.transcript import assistant_turns

LAYOUTS = [
    lambda ask, text: f"User: {ask}\n\nAssistant: {text}",
    lambda ask, text: f"You said:\n{ask}\n\nChatGPT said:\n{text}",
    lambda ask, text: f"**Human:** {ask}\n\n**Claude:** {text}",
    lambda ask, text: f"### User:\n{ask}\n\n## Assistant:\n{text}",
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
def test_real_answers_come_back_exactly_from_a_transcript(corpus_sample, layout):
    texts = [t.strip() for t in corpus_sample([("chat", 20), ("debates", 5), ("blogs", 3)])]
    for text in texts:
        pasted = LAYOUTS[layout]("Please explain how tides work, briefly.", text)
        conv = assistant_turns(pasted)
        assert conv is not None and conv.text == text and conv.assistant_turns == 1
        assert [pasted[a:b] for a, b in conv.spans] == [text]  # where the turn stands in the paste


def test_several_turns_and_the_named_assistant():
    conv = assistant_turns("You said:\nHi!\n\nChatGPT said:\nHello. How can I help?\n\nYou said:\nA joke.\n\n"
                           "ChatGPT said:\nWhy did the chicken cross the road?\n")
    assert conv.text == "Hello. How can I help?\n\nWhy did the chicken cross the road?"
    assert (conv.assistant_turns, conv.user_turns, conv.named) == (2, 2, "ChatGPT")
    assert assistant_turns("User: a\n\nAssistant: b").named is None
    assert assistant_turns("User: a\n\nGPT-4o said: b").named == "GPT-4o"


def test_ordinary_texts_are_left_whole(corpus_sample):
    # every genre's texts as they are, and texts that only quote role lines, or have one side only
    for text in corpus_sample([(g, 30) for g in ("blogs", "debates", "fiction", "longform", "chat")]):
        assert assistant_turns(text) is None
    assert assistant_turns("An essay about chatbots.\n\nUser: hello\nAssistant: hi\n") is None
    assert assistant_turns("User: one question\n\nUser: another question") is None
    assert assistant_turns("Usernames: many\nAssistant: x") is None  # "Usernames" is not a role


def test_predict_attributes_the_assistant_side_and_says_so(corpus_sample):
    text = corpus_sample([("chat", 1)])[0]
    model = load_model()
    want = model.attribute([text])[0]
    got = model.attribute([LAYOUTS[1]("What should I cook tonight? Keep it simple.", text)])[0]
    assert got.probabilities == want.probabilities
    assert any("pasted conversation" in w and "labels the assistant ChatGPT" in w for w in got.warnings)
    empty = inspect_text("User: hello\n\nAssistant:\n")
    assert empty.skip and "empty text" in empty.warnings[-1]


@pytest.mark.parametrize("unit", [" ", "\t", "user ", "User:\n", "**", "#"])
def test_hostile_inputs_are_linear(unit):
    def cost(n: int) -> float:
        text = "User: a\n" + unit * n + "x\nAssistant: b"
        # the collector off while timing: 200,000 role lines are 200,000 match objects, and a full
        # collection inside a test run scans the whole suite's heap (0.57 s against 0.16 s alone),
        # which measures the heap, not the regex
        gc.disable()
        try:
            t = time.perf_counter()
            assistant_turns(text)
            return time.perf_counter() - t
        finally:
            gc.enable()

    cost(1000)  # (growth, not seconds: 10x the input may cost at most 40x the time)
    assert min(cost(200_000) for _ in range(2)) < 40 * max(min(cost(20_000) for _ in range(2)), 1e-3)
