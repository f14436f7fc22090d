"""``predict --jobs``: the batches grow (64 texts per worker, then 128, then 256), the end of the
input is cut into shrinking batches, and the output is the one-process output, in input order,
byte for byte (real corpus texts, enough for every batch size)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from whowrote.cli.batches import BATCH, TAIL_MIN, _batches, _job_batches, _to_workers

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


def test_defer_leaves_plain_files_unread_and_reading_them_later_gives_the_same_items(tmp_path):
    from whowrote.cli.batches import _read_unread
    from whowrote.cli.inputs import iter_items, read_file

    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.md").write_text("plain words " * 30)
    (folder / "b.md").write_bytes(b"\x00\x01 binary")
    (folder / "c.txt").write_bytes("caf\xe9 ".encode("latin-1") * 40)  # bad bytes: a warning
    named = tmp_path / "named.txt"
    named.write_text("another text " * 20)
    rows = tmp_path / "t.jsonl"
    rows.write_text(json.dumps({"text": "a table row " * 10}) + "\n")
    args = [str(folder), str(named), str(rows), str(tmp_path / "missing.md")]
    late = list(iter_items(args, defer=True))
    now = list(iter_items(args))
    assert [it.unread for it in late] == [True, True, True, True, False, False]
    assert all(it.text == "" and it.error is None for it in late[:4])
    assert _read_unread(late) == [(it.error, it.warnings) for it in now[:4]]
    assert late == now and [it.path for it in now[:4]] == [read_file(it.path).path for it in now[:4]]


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_let_the_workers_read_their_files_and_write_what_one_process_writes(tmp_path, corpus, monkeypatch, jobs):
    """The parent reads only the files of the batches it attributes itself; the workers read the
    rest (their texts never cross a pipe), and the lines are those of one process, in order."""
    import gc

    from whowrote.cli import inputs
    from whowrote.cli.batches import attribute_stream
    from whowrote.cli.inputs import iter_items
    from whowrote.style.io import load_model

    for i, text in enumerate(corpus["text"].iloc[:400]):
        (tmp_path / f"{i:04d}.md").write_text(text, encoding="utf-8")
    (tmp_path / "0100a.md").write_bytes(b"\x00 binary")  # an unreadable file in a worker's batch
    model = load_model()
    one = [line for _, line in attribute_stream(model, None, iter_items([str(tmp_path)]), {"n_tells": 3}, 1, lines=True)]
    read_here: list[str] = []
    real = inputs.read_file
    monkeypatch.setattr(inputs, "read_file", lambda p: read_here.append(str(p)) or real(p))
    try:
        got = list(attribute_stream(model, None, iter_items([str(tmp_path)], defer=True), {"n_tells": 3}, jobs, lines=True))
    finally:
        gc.unfreeze()  # attribute_stream froze this process's objects for the fork
    assert [line for _, line in got] == one and len(one) == 401
    assert 0 < len(read_here) < 401 - 64  # the workers read their batches' files (64 at least)
    errors = [it.error for it, _ in got if it.error]
    assert errors == ["binary file, not text"] and all(it.unread is False for it, _ in got)


class _Batch:
    """A worker's batch in ``pending``, finished or not."""

    def __init__(self, done: bool) -> None:
        self._done = done

    def done(self) -> bool:
        return self._done


def test_a_worker_gets_the_next_batch_unless_its_unfinished_batches_hold_twice_its_size():
    def pending(*batches: tuple[int, bool | None]) -> list[tuple]:  # (size, done); None: made here
        return [(list(range(n)), None if done is None else _Batch(done), None) for n, done in batches]

    # a worker with two 64-text batches still has too little to do while this process attributes
    # 128 (a count of batches said "full", and the worker then sat idle for this process's batch)
    assert _to_workers(pending((64, False), (64, False)), 128, 1)
    assert not _to_workers(pending((128, False), (256, False)), 128, 1)  # 384 >= 2 * 128: this one takes it
    assert _to_workers(pending((256, True), (256, False), (128, None)), 256, 1)  # done and own batches: not work
    assert not _to_workers(pending((16, False), (16, False), (16, False)), 256, 1)  # three waiting: memory
    assert _to_workers(pending((256, False), (256, False)), 256, 2)  # two workers need 2 * 2 * 256
    assert not _to_workers(pending((256, False), (256, False), (256, False), (256, False)), 256, 2)
