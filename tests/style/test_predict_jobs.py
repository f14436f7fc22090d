"""``predict --jobs``: the batches grow (64 texts per worker, then 128, then 256), the end of the
input is cut into shrinking batches, and the output is the one-process output, in input order,
byte for byte (real corpus texts, enough for every batch size)."""

from __future__ import annotations

import json
import subprocess
import sys

from whowrote.cli.batches import BATCH, TAIL_MIN, _batches, _job_batches

ENTRY = "from whowrote.cli import main; main()"


def test_batches_are_fixed_size_in_order():
    assert [len(b) for b in _batches(range(300), 100)] == [100, 100, 100] and BATCH == 256
    assert [x for b in _batches(range(1000), 64) for x in b] == list(range(1000))
    assert list(_batches([], 64)) == []


def test_job_batches_grow_then_shrink_at_the_end_and_keep_the_order():
    for n in (0, 1, 15, 50, 200, 700, 3000):
        for jobs in (2, 3, 4):
            got = list(_job_batches(range(n), jobs))
            assert [x for b in got for x in b] == list(range(n))
            sizes = [len(b) for b in got]
            assert all(s <= BATCH for s in sizes)
            if n >= 64 * jobs:  # every worker starts at once on 64 texts
                assert sizes[:jobs] == [64] * jobs
    sizes = [len(b) for b in _job_batches(range(3000), 2)]
    assert sizes[:6] == [64, 64, 128, 128, 256, 256] and sizes.count(BATCH) >= 8
    tail = sizes[sizes.index(BATCH, 4) + sizes.count(BATCH):]
    # what is left when the input ends (< 3 batches) goes out in shrinking batches, none below
    # TAIL_MIN but the last, so no worker waits long for the other's last one
    assert len(tail) >= 2 * 2 and tail == sorted(tail, reverse=True) and min(tail[:-1]) >= TAIL_MIN
    assert tail[0] <= -(-sum(tail) // 4)
    assert [len(b) for b in _job_batches(range(50), 2)] == [16, 16, 16, 2]  # small inputs: both workers


def test_two_jobs_write_what_one_process_writes(tmp_path, corpus):
    texts = corpus["text"].iloc[:700].tolist()
    rows = tmp_path / "t.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    one, two = (subprocess.run([sys.executable, "-c", ENTRY, "predict", str(rows), "--jsonl", "--jobs", j],
                               capture_output=True, text=True) for j in ("1", "2"))
    assert one.returncode == two.returncode == 0
    assert two.stdout == one.stdout and len(one.stdout.splitlines()) == 700
