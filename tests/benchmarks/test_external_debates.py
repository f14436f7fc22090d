"""The out-of-corpus debate set (benchmarks/external_debates.py): what a transcript's two sides read
as, which sides the corpus already holds, the paired differences and the transfer rule."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from external_debates import (  # noqa: E402
    CITED,
    corpus_sides,
    debate_sides,
    drop_corpus,
    main,
    paired,
    read_debates,
    transfer_rule,
)

# A transcript in the benchmark's layout, written for this test.
RAW = """# Debate prop_0007__claude-opus-5-high__gpt-6-astra-high__s0__tpl_placement_active_20260813a

- topic_id: prop_0007
- proposition: Cities should price parking.
- model_pro: claude-opus-5-high
- model_con: gpt-6-astra-high
- side_swap: False

## Turn 1: PRO Opening

- model: claude-opus-5-high
- raw_words: 20
- clipped_words: 20
- claim_ids: [P1.1], [P1.2]
- cited_claim_ids: (none)
- missing_claim_id_refs: (none)

[P1.1] Free parking is a subsidy nobody voted for.
[P1.2] Price it, and the curb serves everyone.

## Turn 2: CON Opening

- model: gpt-6-astra-high
- raw_words: 12
- clipped_words: 10
- claim_ids: [C1.1]
- cited_claim_ids: (none)
- missing_claim_id_refs: (none)

[C1.1] Pricing hits those with no other way to reach work, and [clipped]

## Turn 3: PRO Rebuttal 1

- model: claude-opus-5-high
- raw_words: 20
- clipped_words: 20
- claim_ids: [P2.1]
- cited_claim_ids: [C1.1]
- missing_claim_id_refs: (none)

[P2.1] The worry at [C1.1] is real; rebates [C1.1, C1.2] and passes [C1.1-2] answer it.
[P2.2] [C1.1] is not the whole story.
"""


def test_each_side_reads_as_the_corpus_made_it() -> None:
    sides = {s["side"]: s for s in debate_sides(RAW)}
    assert sides["PRO"]["model"] == "claude-opus-5-high" and sides["CON"]["model"] == "gpt-6-astra-high"
    assert sides["PRO"]["text"] == ("Free parking is a subsidy nobody voted for.\nPrice it, and the curb serves everyone."
                                    "\n\nThe worry at is real; rebates and passes answer it. is not the whole story.")
    # a line opening with a cited id after its claim id joins the line before, as in the corpus
    assert sides["CON"]["text"] == "Pricing hits those with no other way to reach work, and"


def test_a_long_turn_is_read_in_linear_time() -> None:
    raw = "## Turn 1: PRO Opening\n\n- model: gpt-6-astra-high\n\n" + "[P1.1] A claim [C1.2] here.\n" * 200_000
    t0 = time.perf_counter()
    (side,) = debate_sides(raw)
    assert time.perf_counter() - t0 < 5 and side["text"].count("A claim here.") == 200_000


def test_cited_ids_are_removed_in_linear_time() -> None:
    assert CITED.sub("", "a [C2.6–C2.7] b [P2.3‑P2.4] c [C1.3, C2.5]. d [x] [P1] e") == "a b c. d [x] [P1] e"
    text = "[P1.1, " * 40_000 + "end"  # many unclosed lists: each is tried once, with bounded repeats
    t0 = time.perf_counter()
    assert CITED.sub("", text) == text
    assert time.perf_counter() - t0 < 5


def write(folder: Path, name: str, raw: str = RAW) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(raw, encoding="utf-8")


def test_read_debates_labels_sides_and_drops_what_the_corpus_holds(tmp_path: Path) -> None:
    write(tmp_path / "t", "prop_0007__claude-opus-5-high__gpt-6-astra-high__s0__tpl_placement_active_20260813a.md")
    write(tmp_path / "t", "notes.md", "not a transcript")
    frame = read_debates(tmp_path / "t")
    assert len(frame) == 2 and set(frame.topic) == {"prop_0007"} and list(frame.question) == list(frame.topic)
    assert dict(zip(frame.model, frame.provider, strict=True)) == {"claude-opus-5-high": "CLAUDE",
                                                                    "gpt-6-astra-high": "CHATGPT"}
    corpus = tmp_path / "debates.jsonl"
    corpus.write_text(json.dumps({"text": "other", "model": "gpt-6-astra-high", "topic": "prop_0007", "side": "CON"})
                      + "\n" + json.dumps({"text": "other", "model": "gpt-6-astra-high", "topic": "prop_0007",
                                           "side": "PRO"}) + "\n", encoding="utf-8")
    kept, dropped = drop_corpus(frame, corpus_sides([corpus]))
    assert dropped == 1 and list(kept.side) == ["PRO"]  # same model and proposition, the other side: kept
    corpus.write_text(json.dumps({"content": frame.text[0], "model": "x"}) + "\n", encoding="utf-8")
    kept, dropped = drop_corpus(frame, corpus_sides([corpus]))  # the same text under another name: dropped too
    assert dropped == 1 and len(kept) == 1


def test_paired_differences_and_the_rule() -> None:
    frame = pd.DataFrame({"provider": ["CLAUDE", "CLAUDE", "CHATGPT", "CHATGPT", "OTHER", "OTHER"],
                          "topic": ["a", "b", "a", "b", "a", "b"]})
    newer = np.array([True, True, True, True, False, False])
    wrong = np.tile([0.1, 0.6, 0.2, 0.1], (6, 1))  # CHATGPT for everything
    right = np.array([[0.7, 0.1, 0.1, 0.1], [0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1],
                      [0.1, 0.1, 0.1, 0.7], [0.1, 0.1, 0.1, 0.7]])
    d = paired(wrong, right, frame, newer)
    assert d["mean_recall_3way_newer"]["diff"] == 50.0 and d["accuracy_3way_newer"]["diff"] == 50.0
    assert d["accuracy_all"]["diff"] == pytest.approx(100 * (1 - 2 / 6), abs=0.01)
    assert d["mean_recall_3way_newer"]["lo"] == 50.0  # every text moves the same way in every draw
    assert all(transfer_rule(d).values())
    assert transfer_rule(paired(right, wrong, frame, newer)) == {"newer recall +5, interval above 0": False,
                                                                  "all 4-way at most -1": False}
    assert paired(right, right, frame, newer)["accuracy_all"] == {"diff": 0.0, "lo": 0.0, "hi": 0.0}


def test_bad_folders_are_one_line(tmp_path: Path, monkeypatch) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x", "model": "gpt-5.5"}\n', encoding="utf-8")
    write(tmp_path / "empty", "notes.md", "nothing")
    for args, message in ((["--transcripts", str(tmp_path / "nope")], "not a folder"),
                          (["--transcripts", str(tmp_path / "empty")], "no transcripts"),
                          (["--check", str(tmp_path / "nope")], "not a folder"),
                          (["--transcripts", str(tmp_path / "empty"), "--corpus", str(tmp_path / "gone.jsonl")],
                           "no such file")):
        argv = ["external_debates.py", "--corpus", str(corpus), "--out", str(tmp_path / "out"), *args]
        monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit, match=f"^error: .*{message}") as e:
            main()
        assert "\n" not in str(e.value) and not (tmp_path / "out").exists()


def test_check_counts_the_sides_read_to_the_corpus_text(tmp_path: Path, capsys) -> None:
    from external_debates import check

    write(tmp_path / "t", "prop_0007__claude-opus-5-high__gpt-6-astra-high__s0__tpl_placement_active_20260320f.md")
    con = next(s for s in debate_sides(RAW) if s["side"] == "CON")
    corpus = tmp_path / "debates.jsonl"
    rows = [{"text": con["text"], "model": "gpt-6-astra-high", "topic": "prop_0007", "side": "CON"},
            {"text": "not what the parser reads", "model": "claude-opus-5-high", "topic": "prop_0007", "side": "PRO"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    check(tmp_path / "t", corpus_sides([corpus]))
    assert capsys.readouterr().out.strip() == "2 sides; 2 in the corpus; 1 of them read to exactly the corpus's text"


def test_debate_training_rows_rule_and_logo_filter(tmp_path: Path) -> None:
    from debate_training import debate_rows, debate_rule, outside_held_genre

    write(tmp_path / "t", "prop_0007__claude-opus-5-5-high__gpt-6-astra-high__s0__tpl_placement_active_20260813a.md",
          RAW.replace("claude-opus-5-high", "claude-opus-5-5-high"))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x", "model": "gpt-5.5"}\n', encoding="utf-8")
    rows = debate_rows(tmp_path / "t", corpus_sides([corpus]))
    assert set(rows.genre) == {"debate"} and set(rows.subgenre) == {"newer"}
    assert dict(zip(rows.model, rows.held_out, strict=True)) == {"claude-opus-5-5-high": True, "gpt-6-astra-high": False}

    add = pd.DataFrame({"genre": ["debate", "arena-hard", "debate"]})
    train = pd.DataFrame({"genre": ["blog", "chat", "fiction", "longform"]})  # the debate fold
    genres = {"blog", "chat", "debate", "fiction", "longform"}
    assert list(outside_held_genre(add, train, genres).genre) == ["arena-hard"]
    assert len(outside_held_genre(add, pd.DataFrame({"genre": ["debate", "chat"]}), {"debate", "chat"})) == 3

    def row(a: float, b: float, lo: float = 0.01, key: str = "accuracy") -> dict:
        return {"bundled": {key: a}, "debates": {key: b}, "diff_intervals": {key: [lo, 0.2]}}

    def results(d1: float = 0.60, d1_lo: float = 0.01, s: float = 0.70, t3: float = 0.78, logo: float = 0.70,
                combined: float = 5.0) -> dict:
        return {"tests": {"D1": row(0.50, d1, d1_lo), "S": row(0.70, s), "T3": row(0.78, t3)},
                "LOGO": {g: row(0.70, logo, key="accuracy_3way") for g in ("blog", "chat")},
                "T3 edits": {"bundled": {"combined": {"diff": 5.0}}, "debates": {"combined": {"diff": combined}}}}

    assert all(debate_rule(results()).values())
    assert debate_rule(results(d1=0.54))["(a) D1 4-way gain"] is False  # +4 points < 5
    assert debate_rule(results(d1_lo=0.0))["(a) D1 4-way gain"] is False
    assert debate_rule(results(s=0.689))["(b) S no loss"] is False  # -1.1 points
    assert debate_rule(results(s=0.691))["(b) S no loss"] is True
    assert debate_rule(results(t3=0.774))["(c) T3 no loss"] is False
    assert debate_rule(results(logo=0.694))["(d) LOGO no loss"] is False
    assert debate_rule(results(combined=5.6))["(e) combined drop"] is False


def test_debate_training_write_train_needs_only_its_transcripts_and_the_corpus(tmp_path: Path) -> None:
    import subprocess

    write(tmp_path / "t", "prop_0007__claude-opus-5-high__gpt-6-astra-high__s0__tpl_placement_active_20260813a.md")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "x", "model": "gpt-5.5"}\n', encoding="utf-8")
    script = str(Path(__file__).resolve().parents[2] / "benchmarks" / "debate_training.py")
    base = [sys.executable, script, "--corpus", str(corpus), "--out", str(tmp_path / "o")]
    out = tmp_path / "sides.jsonl"
    done = subprocess.run([*base, "--debates-train", str(tmp_path / "t"), "--write-train", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["model"] for r in rows) == ["claude-opus-5-high", "gpt-6-astra-high"]
    for args, message in ((["--debates-train", str(tmp_path / "none"), "--write-train", str(out)], "not a folder"),
                          (["--debates-train", str(tmp_path / "t")], "required: --debates-test, --stories-test")):
        done = subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
