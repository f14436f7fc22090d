"""The out-of-corpus story set (benchmarks/external_stories.py): what is read from a story file, which
versions count as seen, and the labels."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from external_stories import main, read_stories, story_text, version  # noqa: E402

RAW = ("story_wc_3.txt\n<story>\nThe flood had gone. [4] She knelt by the glass [9] and counted [11].\n\n"
       "Nothing [1] moved.\u2019 [13]\n</story>")


def test_story_text_keeps_the_story_without_its_running_counts() -> None:
    assert story_text(RAW) == "The flood had gone. She knelt by the glass and counted.\n\nNothing moved.\u2019"
    assert story_text("A story with no tags [3] at all.") == "A story with no tags at all."
    assert story_text("name\n<story>\nCut off here. [3]") == "Cut off here."  # no closing tag
    assert story_text("<story>" * 50_000) == "<story>" * 49_999  # many unclosed tags: read once, linear
    assert story_text("a list [x] and [ 4] stay") == "a list [x] and [ 4] stay"  # only [digits] are counts


@pytest.mark.parametrize(("model", "want"), [
    ("claude-opus-4-6-16K", "claude-opus-4-6"), ("claude-opus-4-6-adaptive", "claude-opus-4-6"),
    ("gpt-5.5-xhigh", "gpt-5-5"), ("gpt-5.5-high", "gpt-5-5"), ("gemini-3.1-pro-preview", "gemini-3-1-pro"),
    ("gemma-4-31b-it-reasoning", "gemma-4-31b"), ("google/gemma-3-27b-it", "gemma-3-27b"),
    ("mistral-medium-3.5-high", "mistral-medium-3-5"), ("gpt-6-astra-high", "gpt-6-astra"),
    ("kimi-k3", "kimi-k3"), ("claude-opus-5-5-high", "claude-opus-5-5"),
    ("claude-opus-4.8", "claude-opus-4-8"), ("claude-opus-4-8-adaptive", "claude-opus-4-8"),
])
def test_version_drops_effort_suffixes_only(model: str, want: str) -> None:
    assert version(model) == want


def test_read_stories_labels_each_model_folder(tmp_path: Path) -> None:
    for model in ("claude-opus-5-high", "gpt-6-astra-high", "gemma-4-31b-it-reasoning"):
        (tmp_path / model).mkdir()
        for n in (0, 7):
            (tmp_path / model / f"story_wc_{n}.txt").write_text(RAW, encoding="utf-8")
        (tmp_path / model / "notes.txt").write_text("not a story", encoding="utf-8")
    frame = read_stories(tmp_path)
    assert len(frame) == 6 and set(frame.question) == {"0", "7"}
    assert dict(zip(frame.model, frame.provider, strict=False)) == {
        "claude-opus-5-high": "CLAUDE", "gpt-6-astra-high": "CHATGPT", "gemma-4-31b-it-reasoning": "OTHER"}
    assert set(frame.n_words) == {13}


def test_a_folder_without_stories_or_a_missing_one_is_one_line(tmp_path: Path, monkeypatch) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x", "model": "gpt-5.5"}\n', encoding="utf-8")
    for folder, message in ((tmp_path / "nope", "not a folder"), (tmp_path, "no stories")):
        monkeypatch.setattr(sys, "argv", ["external_stories.py", "--stories", str(folder), "--corpus", str(corpus),
                                          "--out", str(tmp_path / "out")])
        with pytest.raises(SystemExit, match=f"^error: .*{message}") as e:
            main()
        assert "\n" not in str(e.value) and not (tmp_path / "out").exists()


def test_story_training_writes_only_versions_not_held_out(tmp_path: Path) -> None:
    from story_training import HELD_OUT, write_train

    from whowrote.data.corpus import load_corpus

    folder = tmp_path / "train"
    for model in ("claude-opus-5-high", "claude-opus-5-5-high", "kimi-k3", "gpt-6-astra-high"):
        (folder / model).mkdir(parents=True)
        for n in (25, 26):
            (folder / model / f"story_wc_{n}.txt").write_text(RAW.replace("3", str(n)), encoding="utf-8")
    out = tmp_path / "stories.jsonl"
    write_train(folder, out)
    corpus = load_corpus([out])
    assert set(corpus.model) == {"claude-opus-5-high", "gpt-6-astra-high"} and not set(corpus.model) & HELD_OUT
    assert len(corpus) == 4 and set(corpus.genre) == {"stories"} and set(corpus.topic) == {"story-25", "story-26"}
    write_train(folder, tmp_path / "as-fiction.jsonl", "fiction")  # round 2: read back as the corpus's fiction
    fiction = load_corpus([tmp_path / "as-fiction.jsonl"])
    assert set(fiction.genre) == {"fiction"} and set(fiction.subgenre) == {"stories"} and len(fiction) == 4


def test_story_rule_reads_each_clause() -> None:
    from story_training import story_rule

    def row(a: float, b: float, lo: float = 0.01, key: str = "mean_recall_3way") -> dict:
        return {"bundled": {key: a}, "stories": {key: b}, "diff_intervals": {key: [lo, 0.2]}}

    def results(s2: float = 0.60, s2_lo: float = 0.01, s1: float = 0.60, t3: float = 0.78, logo: float = 0.70,
                combined: float = 5.0) -> dict:
        return {"tests": {"S2 test prompts, held-out versions": row(0.50, s2, s2_lo),
                          "S1 test prompts, trained versions": row(0.50, s1),
                          "T3 corpus topic hold-out": row(0.78, t3, key="accuracy")},
                "LOGO": {g: row(0.70, logo, key="accuracy_3way") for g in ("blog", "chat")},
                "T3 edits": {"bundled": {"combined": {"diff": 5.0}}, "stories": {"combined": {"diff": combined}}}}

    assert all(story_rule(results()).values())
    assert story_rule(results(s2=0.54))["(a) S2 gain"] is False  # +4 points < 5
    assert story_rule(results(s2_lo=0.0))["(a) S2 gain"] is False
    assert story_rule(results(s1=0.549))["(b) S1 gain"] is False
    assert story_rule(results(t3=0.774))["(c) T3 no loss"] is False
    assert story_rule(results(logo=0.694))["(d) LOGO no loss"] is False
    assert story_rule(results(combined=5.6))["(e) combined drop"] is False
