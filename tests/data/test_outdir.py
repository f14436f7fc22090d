"""Rewriting a split folder: only what the earlier split's manifest lists is replaced, the swap is
atomic (SIGKILL at any step leaves the old split whole or the new one complete), and stale
temporary folders of interrupted runs are cleaned while anything else is left alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from whowrote.data import build_splits, load_corpus, write_splits
from whowrote.data.outdir import MANIFEST, MARKER, read_manifest, remove_stale
from whowrote.types import WhowroteError

from .helpers import sample_rows, write_jsonl

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def source(corpus_files, tmp_path_factory) -> Path:
    return write_jsonl(sample_rows(corpus_files["fiction"], n=120, every=9),
                       tmp_path_factory.mktemp("src") / "fiction.jsonl")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _write(source: Path, out: Path, seed: int, formats=("jsonl", "qa")) -> None:
    result = build_splits(load_corpus(source), None if seed == 0 else _config(seed))
    write_splits(result.splits, out, result.info, formats=formats)


def _config(seed: int):
    from whowrote.data.build import SplitConfig

    return SplitConfig(seed=seed, ood_categories=None)  # seed 1: another split and no val_ood


def test_manifest_lists_every_file_written(source, tmp_path):
    _write(source, tmp_path / "o", 0, formats=("jsonl", "qa", "hf"))
    listed = read_manifest(tmp_path / "o")
    on_disk = {p.relative_to(tmp_path / "o").as_posix() for p in (tmp_path / "o").rglob("*") if p.is_file()}
    assert on_disk - listed == set() and {"train.jsonl", "qa/val_ood.jsonl", "README.md", "hf/dataset_dict.json"} <= listed
    assert not (tmp_path / "o" / MARKER).exists()


def test_rewrite_replaces_the_earlier_split_but_refuses_over_a_users_file(source, tmp_path):
    out = tmp_path / "o"
    _write(source, out, 0)
    assert (out / "val_ood.jsonl").exists()
    _write(source, out, 1)  # an earlier split: replaced whole, its stale val_ood gone
    assert not (out / "val_ood.jsonl").exists() and not (out / "qa" / "val_ood.jsonl").exists()
    (out / "notes.txt").write_text("my own notes")
    (out / "qa" / "mine.jsonl").write_text("{}\n")
    before = _snapshot(out)
    with pytest.raises(WhowroteError, match=r"did not write \(notes\.txt, qa/mine\.jsonl\)"):
        _write(source, out, 0)
    assert _snapshot(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".o.tmp-")]


def test_folder_without_manifest_is_refused(source, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "split_info.json").write_text("{}")  # looks like an old split, but nothing says what is ours
    (out / "train.jsonl").write_text("precious\n")
    with pytest.raises(WhowroteError, match="no split manifest"):
        _write(source, out, 0)
    assert (out / "train.jsonl").read_text() == "precious\n"


def test_a_manifest_naming_outside_paths_deletes_nothing_outside(source, tmp_path):
    out = tmp_path / "o"
    _write(source, out, 0)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    data = json.loads((out / MANIFEST).read_text())
    data["files"] += ["../victim.txt", "/etc/hostname"]
    (out / MANIFEST).write_text(json.dumps(data))
    _write(source, out, 1)
    assert victim.read_text() == "keep" and (out / "train.jsonl").exists()


KILL_AT = {
    # where the child dies: while writing rows, after the manifest, before / right after the swap
    "mid-write": "W.write_records = die_on_call(W.write_records, 2)",
    "after-manifest": "O.write_manifest = die_after(O.write_manifest)",
    "before-swap": "O.swap_in = die_on_call(O.swap_in, 1)",
    "after-exchange": "O.exchange = die_after(O.exchange)",
    "fallback-between-renames": "O.exchange = lambda a, b: False; O.os.replace = die_on_call(O.os.replace, 2)",
}

CHILD = """
import os, signal, sys
from whowrote.data import build_splits, load_corpus, write_splits
from whowrote.data import outdir as O, writers as W
from whowrote.data.build import SplitConfig

def die_on_call(fn, n):
    calls = [0]
    def wrapped(*a, **k):
        calls[0] += 1
        if calls[0] == n:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*a, **k)
    return wrapped

def die_after(fn):
    def wrapped(*a, **k):
        result = fn(*a, **k)
        os.kill(os.getpid(), signal.SIGKILL)
        return result
    return wrapped

{patch}
result = build_splits(load_corpus(sys.argv[1]), SplitConfig(seed=1, ood_categories=None))
write_splits(result.splits, sys.argv[2], result.info, formats=("jsonl", "qa"))
"""


@pytest.mark.parametrize("point", KILL_AT)
def test_sigkill_at_any_step_leaves_old_or_new_never_half(source, tmp_path, point):
    out = tmp_path / "o"
    _write(source, out, 0)
    old = _snapshot(out)
    _write(source, tmp_path / "ref", 1)
    new = _snapshot(tmp_path / "ref")
    assert old != new
    code = textwrap.dedent(CHILD).replace("{patch}", KILL_AT[point])
    proc = subprocess.run([sys.executable, "-c", code, str(source), str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(".o.tmp-")]
    if out.exists():
        now = {k: v for k, v in _snapshot(out).items() if k != MARKER}
        assert now in (old, new), point
    else:  # only the non-Linux fallback has this instant: the old split is whole beside it
        assert point == "fallback-between-renames"
        assert any({k: v for k, v in _snapshot(p).items() if k != MARKER} == old for p in leftovers)
    # The next run cleans up what the killed one left and writes a complete split.
    _write(source, out, 1)
    assert _snapshot(out) == new
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".o.tmp-")]


def test_stale_cleanup_removes_only_provably_ours(tmp_path):
    out = tmp_path / "o"
    dead = tmp_path / ".o.tmp-dead"
    dead.mkdir()
    (dead / MARKER).write_text(json.dumps({"pid": 2**22 + 12345, "host": os.uname().nodename}))
    (dead / "train.jsonl").write_text("partial")
    alive = tmp_path / ".o.tmp-alive"  # a split running right now in another process
    alive.mkdir()
    (alive / MARKER).write_text(json.dumps({"pid": os.getpid(), "host": os.uname().nodename}))
    foreign = tmp_path / ".o.tmp-users"  # same name pattern, not ours: no marker, no manifest
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep")
    swapped = tmp_path / ".o.tmp-old"  # an earlier split swapped out, whose deletion was cut short
    swapped.mkdir()
    (swapped / "train.jsonl").write_text("{}\n")
    (swapped / MANIFEST).write_text(json.dumps({"files": ["train.jsonl"]}))
    other = tmp_path / ".other.tmp-x"  # another output folder's temp: not ours to judge
    other.mkdir()
    (other / MARKER).write_text(json.dumps({"pid": 2**22 + 1, "host": os.uname().nodename}))
    out.mkdir()
    (out / MANIFEST).write_text(json.dumps({"files": []}))
    removed = remove_stale(out)
    assert sorted(p.name for p in removed) == [".o.tmp-dead", ".o.tmp-old"]
    assert alive.exists() and foreign.exists() and other.exists() and (foreign / "thesis.tex").exists()
