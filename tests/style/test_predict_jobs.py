"""``predict --jobs``: the batches grow (64 texts per worker, then 128, then 256) and the output
is the one-process output, in input order, byte for byte (real corpus texts, enough for every
batch size)."""

from __future__ import annotations

import json
import subprocess
import sys

from whowrote.cli.predict import BATCH, _batches

ENTRY = "from whowrote.cli import main; main()"


def test_batches_double_after_every_round_up_to_batch():
    got = [len(b) for b in _batches(range(1000), 64, grow_after=2)]
    assert got == [64, 64, 128, 128, 256, 256, 104] and BATCH == 256
    assert [x for b in _batches(range(1000), 64, grow_after=2) for x in b] == list(range(1000))
    assert [len(b) for b in _batches(range(300), 100)] == [100, 100, 100]  # fixed without grow_after
    assert list(_batches([], 64, grow_after=2)) == []


def test_two_jobs_write_what_one_process_writes(tmp_path, corpus):
    texts = corpus["text"].iloc[:700].tolist()
    rows = tmp_path / "t.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    one, two = (subprocess.run([sys.executable, "-c", ENTRY, "predict", str(rows), "--jsonl", "--jobs", j],
                               capture_output=True, text=True) for j in ("1", "2"))
    assert one.returncode == two.returncode == 0
    assert two.stdout == one.stdout and len(one.stdout.splitlines()) == 700
