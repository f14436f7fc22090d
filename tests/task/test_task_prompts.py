"""Prompt variants and the cheatsheet generator."""

from __future__ import annotations

import pytest

from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET, Tell, cheatsheet_from_style_model, format_cheatsheet
from whowrote.task.prompts import (
    VARIANTS,
    build_messages,
    pair_messages,
    slot_gold,
    system_prompt,
    trio_messages,
    variant_labels,
)


@pytest.mark.parametrize("variant", ["3way", "binary", "answer_only", "hardpair", "lexical"])
def test_single_variants(variant):
    msgs = build_messages("Some text.", variant=variant)
    assert [m["role"] for m in msgs] == ["system", "user"] and msgs[1]["content"] == "Some text."
    sys = msgs[0]["content"]
    assert "<answer>" in sys and "## TASK" in sys and "## RULES" in sys
    assert ("<reason_why>" in sys) == (variant != "answer_only")
    assert ("GEMINI" in sys) == (variant not in ("binary", "hardpair"))


def test_prompts_carry_the_text_in_ascii_typography(corpus_sample):
    # real corpus texts with curly quotes or dashes: the user message is the text with ASCII
    # typography and plain layout, so straightening or curling the quotes (what an editor does) or
    # saving the text on Windows gives the same prompt
    from whowrote.style.edits import crlf, smart_quotes, to_ascii
    from whowrote.typography import plain_layout

    texts = [t for t in corpus_sample([("debates", 40), ("longform", 40)]) if not t.isascii()][:12]
    assert len(texts) >= 6 and any("\u2019" in t for t in texts) and any("\u2014" in t for t in texts)
    for text in texts:
        prompt = build_messages(text)[1]["content"]
        assert prompt == plain_layout(to_ascii(text)) and "\u2019" not in prompt and "\u2014" not in prompt
        assert build_messages(smart_quotes(to_ascii(text)))[1]["content"] == build_messages(to_ascii(text))[1]["content"]
        assert build_messages(smart_quotes(text))[1]["content"] == prompt
        assert build_messages(crlf(text))[1]["content"] == prompt and "\r" not in prompt
        assert build_messages(text.replace("\n", " \t\n"))[1]["content"] == prompt
    pair = pair_messages(texts[0], texts[1])[1]["content"]
    assert pair == f"### TEXT A\n{plain_layout(to_ascii(texts[0]))}\n\n### TEXT B\n{plain_layout(to_ascii(texts[1]))}"
    assert "\u2019" not in trio_messages(texts[:3])[1]["content"]


def test_3way_rules_and_cheatsheet_suffix():
    base = system_prompt("3way")
    assert "start" in base.lower() and "<think>" in base
    with_cs = system_prompt("3way", cheatsheet=DEFAULT_CHEATSHEET)
    assert with_cs.startswith(base) and with_cs.endswith(DEFAULT_CHEATSHEET.strip())


def test_unknown_variant_and_multi_text_variants():
    with pytest.raises(ValueError):
        system_prompt("nope")
    with pytest.raises(ValueError):
        build_messages("x", variant="pair")
    assert set(VARIANTS) >= {"3way", "binary", "answer_only", "hardpair", "pair", "trio"}
    assert variant_labels("binary") == ("CLAUDE", "CHATGPT")


def test_pair_and_trio_messages():
    p = pair_messages("aaa", "bbb", "GEMINI", "CLAUDE")
    assert p[1]["content"] == "### TEXT A\naaa\n\n### TEXT B\nbbb"
    assert "GEMINI (Google)" in p[0]["content"] and "A: GEMINI or CLAUDE" in p[0]["content"]
    t = trio_messages(["a", "b", "c"])
    assert "### TEXT C\nc" in t[1]["content"] and "more than one" in t[0]["content"]
    with pytest.raises(ValueError):
        trio_messages(["a", "b"])
    assert slot_gold(["CLAUDE", "GEMINI", "CLAUDE"]) == "A=CLAUDE;B=GEMINI;C=CLAUDE"


class FakeStyleModel:
    classes_ = ["CHATGPT", "CLAUDE", "GEMINI"]
    feature_names_ = ["hedge", "genuinely", "diagram", "you"]
    feature_labels = {"genuinely": 'uses "genuinely"', "diagram": "ASCII diagrams"}
    coef_ = [[2.0, -1.0, -1.0, 0.1], [-1.0, 3.0, -2.0, 1.0], [-1.0, -2.0, 4.0, -0.5]]
    class_means_ = {"CHATGPT": [0.6, 0.1, 0.0, 0.5], "CLAUDE": [0.1, 0.8, 0.0, 0.9], "GEMINI": [0.1, 0.1, 0.4, 0.3]}


def test_cheatsheet_from_style_model_coefficients():
    text = cheatsheet_from_style_model(FakeStyleModel(), top=2)
    lines = text.splitlines()
    claude = next(line for line in lines if line.startswith("- CLAUDE"))
    assert 'uses "genuinely"' in claude and "8.0x" in claude and "you" in claude
    assert "diagram" not in claude  # negative weight for CLAUDE
    gemini = next(line for line in lines if line.startswith("- GEMINI"))
    assert "ASCII diagrams" in gemini
    order = [line[2:8] for line in lines if line.startswith("- ")]
    assert order == ["CLAUDE", "CHATGP", "GEMINI"]  # label order, not the model's class order


def test_format_cheatsheet_and_top_tells_interface():
    class M:
        def top_tells(self, top):
            return {"CLAUDE": [("x", "hedges", 0.1, 0.5)]}

    assert "- CLAUDE: rarely hedges." in cheatsheet_from_style_model(M())
    text = format_cheatsheet({"GEMINI": [Tell("d", "diagrams", 0.4, 0.002)]})
    assert "about 199.5x" in text or "about 199" in text


def test_task_package_imports_no_heavy_libraries():
    import subprocess
    import sys

    code = ("import sys, whowrote.task, whowrote.task.trl_rewards; "
            "print(sorted(m for m in ('torch', 'transformers', 'pandas', 'httpx', 'verifiers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_cheatsheet_from_whowrote_style_model_is_in_words():
    # whowrote's StyleModel has no feature_labels/class_means_: the words come from its feature
    # specs and the means from norms_, so the cheatsheet never shows raw names like "punc_emdash".
    from whowrote.style import feature_specs

    specs = feature_specs("research41")
    emdash = next(i for i, s in enumerate(specs) if s.name == "punc_emdash")

    class M:
        feature_set = "research41"
        classes_ = ["CLAUDE", "CHATGPT", "GEMINI"]
        feature_names_ = [s.name for s in specs]
        coef_ = [[1.0 if j == emdash else -1.0 for j in range(len(specs))], [0.0] * len(specs), [0.0] * len(specs)]
        norms_ = [[4.0 if j == emdash else 1.0 for j in range(len(specs))], [1.0] * len(specs), [1.0] * len(specs)]

    claude = next(line for line in cheatsheet_from_style_model(M()).splitlines() if line.startswith("- CLAUDE"))
    assert claude == f"- CLAUDE: {specs[emdash].label} (about 4.0x the others)."
