"""scripts/gpu/augment_train.py: the LM's train rows plus the style model's edited copies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from whowrote.style.edits import combined, strip_markdown
from whowrote.style.train import AUG_LENGTHS, AUGMENTATIONS, edited_copies
from whowrote.train.data import read_rows, write_rows

REPO = Path(__file__).resolve().parents[2]
MD = "# A heading\n\nIt's **bold** and *leaning*.\n\n- one item\n- two items\n\n" + "Words follow here, one by one. " * 150


def test_every_row_then_one_edited_copy_of_each(tmp_path: Path) -> None:
    rows = [{"id": f"t{i}", "text": MD + f" Text {i}.", "provider": p, "model": "m", "genre": "blog", "topic": f"q{i}"}
            for i, p in enumerate(["CLAUDE", "CHATGPT", "GEMINI"] * 4)]
    write_rows(tmp_path / "train.jsonl.gz", rows)
    out = tmp_path / "aug" / "train.jsonl.gz"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/augment_train.py"), "--train", str(tmp_path / "train.jsonl.gz"),
                        "--out", str(out), "--seed", "3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = read_rows(out)
    assert len(got) == 2 * len(rows)
    assert [g["text"] for g in got[:12]] == [x["text"] for x in rows]  # the rows as they were, first
    assert [g["id"] for g in got[12:]] == [f"t{i}~aug" for i in range(12)]
    assert [g["provider"] for g in got[12:]] == [x["provider"] for x in rows]
    # each copy is one of the three edits the style model's copies make, read off the text itself
    kinds = []
    for g, x in zip(got[12:], rows, strict=True):
        t, c = x["text"], g["text"]
        if c == strip_markdown(t):
            kinds.append("plain_text")
        elif c in {combined(t, seed=n) for n in AUG_LENGTHS}:
            kinds.append("combined")
        else:
            assert t.startswith(c) and len(c.split()) in AUG_LENGTHS, c[:80]  # its first 60-600 words
            kinds.append("truncated")
    assert len(set(kinds)) >= 2, kinds  # drawn per text
    # and exactly the style model's copies (same seed, same group)
    (want,) = edited_copies([x["text"] for x in rows], seed=3, groups=AUGMENTATIONS[:1])
    assert [g["text"] for g in got[12:]] == want
    summary = json.loads(r.stdout)
    assert summary["rows"] == 24 and summary["copies_changed"] == 12
    assert not list(out.parent.glob("*.tmp*"))


def test_an_empty_train_file_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "train.jsonl").write_text("")
    r = subprocess.run([sys.executable, str(REPO / "scripts/gpu/augment_train.py"), "--train", str(tmp_path / "train.jsonl"),
                        "--out", str(tmp_path / "aug.jsonl.gz")], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines() == [f"augment_train: no rows in {tmp_path / 'train.jsonl'}"]
    assert not (tmp_path / "aug.jsonl.gz").exists()
