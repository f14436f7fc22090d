"""Rewards (spec §2.4): exact match, multiplicative reasoning gate, diagnostics, truncation."""

from __future__ import annotations

import pytest

from whowrote.task.rewards import (
    correct_answer,
    diagnostics,
    has_substantive_reason,
    reward_terms,
    truncation_penalized_advantages,
)

REASON12 = "The prose leans on sincere adverbs, direct address and a warm essay voice throughout."
REASON_SHORT = "Warm tone, sincere tone, warm warm warm."  # < 12 distinct words


def comp(answer: str, reason: str = REASON12) -> str:
    return f"<reason_why>{reason}</reason_why>\n<answer>{answer}\nConfidence: MEDIUM</answer>"


def test_exact_match():
    assert correct_answer(comp("CLAUDE"), "CLAUDE") == 1.0
    assert correct_answer(comp("CLAUDE"), "claude") == 1.0
    assert correct_answer(comp("GEMINI"), "CLAUDE") == 0.0
    assert correct_answer(comp("CLAUDE or GEMINI"), "CLAUDE") == 0.0


def test_gate_is_multiplicative():
    assert has_substantive_reason(comp("CLAUDE"))
    assert not has_substantive_reason(comp("CLAUDE", REASON_SHORT))
    assert not has_substantive_reason("<reason_why>" + REASON12)  # unclosed tag fails
    assert correct_answer(comp("CLAUDE", REASON_SHORT), "CLAUDE", require_reason=True) == 0.0
    assert correct_answer(comp("CLAUDE"), "CLAUDE", require_reason=True) == 1.0
    assert correct_answer(comp("GEMINI"), "CLAUDE", require_reason=True) == 0.0
    assert correct_answer(comp("CLAUDE", REASON_SHORT), "CLAUDE", require_reason=True, min_reason_words=3) == 1.0


def test_exactly_twelve_distinct_words_passes_eleven_fails():
    twelve = " ".join(f"w{c}" for c in "abcdefghijkl").replace("w", "word")
    eleven = " ".join(twelve.split()[:11]) + " " + twelve.split()[0]
    assert has_substantive_reason(f"<reason_why>{twelve}</reason_why>")
    assert not has_substantive_reason(f"<reason_why>{eleven}</reason_why>")


def test_pair_all_or_nothing_and_trio_per_slot():
    assert correct_answer(comp("A: CLAUDE\nB: GEMINI"), "A=CLAUDE;B=GEMINI") == 1.0
    assert correct_answer(comp("A: CLAUDE\nB: CLAUDE"), "A=CLAUDE;B=GEMINI") == 0.0
    assert correct_answer(comp("A: CLAUDE"), "A=CLAUDE;B=GEMINI") == 0.0
    trio = "A=CLAUDE;B=GEMINI;C=GEMINI"
    assert correct_answer(comp("A: CLAUDE\nB: GEMINI\nC: CHATGPT"), trio) == pytest.approx(2 / 3)
    assert correct_answer(comp("A: CLAUDE\nB: GEMINI\nC: GEMINI"), trio) == 1.0
    assert correct_answer(comp("A: CLAUDE\nB: GEMINI\nC: CHATGPT", REASON_SHORT), trio, require_reason=True) == 0.0


def test_reward_terms_and_diagnostics():
    t = reward_terms(comp("GEMINI"), "CLAUDE")
    assert t["reward"] == 0.0 and t["parsed_ok"] == 1.0 and t["pred_gemini"] == 1.0 and t["pred_claude"] == 0.0
    t = reward_terms(comp("CLAUDE", REASON_SHORT), "CLAUDE", require_reason=True)
    assert t["reward"] == 0.0 and t["correct_ungated"] == 1.0 and t["reason_ok"] == 0.0
    t = reward_terms("", "CLAUDE")
    assert t["parsed_ok"] == 0.0 and sum(v for k, v in t.items() if k.startswith("pred_")) == 0.0
    d = diagnostics(comp("CHATGPT"), "CHATGPT")
    assert set(d) == {"parsed_ok", "reason_ok", "finished", "pred_claude", "pred_chatgpt", "pred_gemini"}
    binary = reward_terms(comp("CLAUDE"), "CLAUDE", labels=("CLAUDE", "CHATGPT"))
    assert "pred_gemini" not in binary


def test_truncation_penalty():
    t = reward_terms("<reason_why>loop loop", "CLAUDE", truncated=True, truncation_penalty=0.5)
    assert t["reward"] == -0.5 and t["truncated"] == 1.0
    assert reward_terms(comp("CLAUDE"), "CLAUDE", truncated=False, truncation_penalty=0.5)["reward"] == 1.0
    adv = truncation_penalized_advantages([0.0, 0.0, 0.0, 0.0], [True, False, False, True])
    assert adv == [-0.5, 0.0, 0.0, -0.5]  # all-wrong group: no wrong rollout is pushed up
    adv = truncation_penalized_advantages([1.0, 0.0], [False, True])
    assert adv == [0.5, -1.0]


def test_single_answer_read_from_final_content_not_reasoning_channel():
    msgs = [{"role": "assistant", "content": "no answer here", "reasoning_content": "<answer>CLAUDE</answer>"}]
    assert correct_answer(msgs, "CLAUDE") == 0.0
    msgs = [{"role": "assistant", "content": comp("CLAUDE")}]
    assert correct_answer(msgs, "CLAUDE") == 1.0


def test_unfinished_completions_earn_no_accuracy_reward():
    from whowrote.task.rewards import loops, unfinished

    done = comp("CLAUDE")
    cut = "<reason_why>The voice resembles CLAUDE's warm register and"  # parses CLAUDE via the tail
    looping = comp("CLAUDE", REASON12 + " and so on" * 30)
    unclosed_answer = f"<reason_why>{REASON12}</reason_why>\n<answer>CLAUDE\nConfidence: HI"
    assert unfinished(done) is None and unfinished(done, truncated=True) == "truncated"
    assert unfinished(cut) == "unclosed" and unfinished(looping) == "loop" and unfinished(unclosed_answer) == "unclosed"
    for c in (cut, looping, unclosed_answer):
        t = reward_terms(c, "CLAUDE")
        assert t["correct_ungated"] == 1.0 and t["correct_answer"] == 0.0 and t["reward"] == 0.0 and t["finished"] == 0.0
        assert correct_answer(c, "CLAUDE", score_unfinished=True) == 1.0
    t = reward_terms(done, "CLAUDE", truncated=True, truncation_penalty=0.5)
    assert t["correct_answer"] == 0.0 and t["reward"] == -0.5
    assert reward_terms(done, "CLAUDE")["correct_answer"] == 1.0
    # A bare tag-free answer that ended on its own still counts (nothing unfinished about it).
    assert correct_answer("CLAUDE", "CLAUDE") == 1.0
    # Loops: an 8-token run repeated 4 times; punctuation runs count too; ordinary prose does not.
    assert loops("!" * 40) and not loops(REASON12 + " " + REASON12)
