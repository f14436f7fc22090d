"""The persuasion chats (benchmarks/external_persuasion.py): what a transcript's two participants read
as, which transcripts are refused, and bad input."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from external_persuasion import participants, read_persuasion  # noqa: E402

NAME = "prop_0021__gpt-5.4-high__claude-opus-4-6-adaptive__pro__no_notes.md"


def turn(n: int, role: str, model: str, body: str) -> str:
    return f"## Turn {n}\n\n- speaker_role: `{role}`\n- speaker_model: `{model}`\n\n{body}\n\n"


# A transcript in the benchmark's layout (written for this test): a proposition, then alternating turns.
RAW = ("# Persuasion Transcript\n\n## Proposition\n\nCountries should reintroduce wolves.\n\n"
       + turn(1, "persuader", "gpt-5.4-high", "Wolves restore rivers.\n\nThey also cull deer.")
       + turn(2, "target", "claude-opus-4-6-adaptive", "## My view\n\nI doubt it.")
       + turn(3, "persuader", "gpt-5.4-high", "- speaker_model: a line of the body\n\nConsider Yellowstone.")
       + turn(4, "target", "claude-opus-4-6-adaptive", "Still unconvinced."))


def test_each_participant_reads_as_its_turns_without_metadata() -> None:
    texts = participants(RAW)
    assert texts["persuader"] == {"model": "gpt-5.4-high", "text": "Wolves restore rivers.\n\nThey also cull deer.\n\n"
                                  "- speaker_model: a line of the body\n\nConsider Yellowstone."}
    # a body's own "## " heading stays in its text; the proposition is no one's text
    assert texts["target"] == {"model": "claude-opus-4-6-adaptive", "text": "## My view\n\nI doubt it.\n\nStill unconvinced."}


def test_transcripts_whose_turns_name_other_models_are_refused(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text(RAW, encoding="utf-8")
    (tmp_path / NAME.replace("0021", "0022")).write_text(RAW.replace("`claude-opus-4-6-adaptive`", "`glm-5`", 1),
                                                        encoding="utf-8")
    (tmp_path / "notes.md").write_text("not a transcript", encoding="utf-8")
    frame, refused = read_persuasion(tmp_path)
    assert refused == 1 and list(frame.role) == ["persuader", "target"]
    assert list(frame.provider) == ["CHATGPT", "CLAUDE"] and set(frame.topic) == {"prop_0021"}
    assert list(frame.side) == ["pro", "pro"] and list(frame.n_words) == [16, 8]


def test_a_long_transcript_is_read_in_linear_time() -> None:
    raw = RAW + turn(5, "persuader", "gpt-5.4-high", "A line.\n" * 200_000)
    t0 = time.perf_counter()
    texts = participants(raw)
    assert time.perf_counter() - t0 < 5 and texts["persuader"]["text"].count("A line.") == 200_000


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    script = str(REPO / "benchmarks" / "external_persuasion.py")
    for args, message in ((["--transcripts", str(tmp_path / "none")], "not a folder"),
                          (["--transcripts", str(tmp_path)], "no transcripts")):
        corpus = tmp_path / "c.jsonl"
        corpus.write_text('{"text": "x", "model": "gpt-5.5"}\n', encoding="utf-8")
        done = subprocess.run([sys.executable, script, *args, "--corpus", str(corpus), "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
