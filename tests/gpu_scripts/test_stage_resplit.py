"""scripts/gpu/stage.sh resplit / last on a small packed stage in a scratch copy of the script.

The resplit must give the same bytes in more, smaller chunks (the joined tar's sha256 checked),
a MANIFEST that ``recv`` can check, and refuse to touch ``.stage`` when a chunk is corrupt.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _packed(root: Path, data: bytes, n: int) -> None:
    """``.stage/p1..pn`` as ``stage.sh pack`` leaves them: chunks of one tar and a MANIFEST in each."""
    (root / "scripts" / "gpu").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "gpu" / "stage.sh", root / "scripts" / "gpu" / "stage.sh")
    size = -(-len(data) // n)
    lines = [f"{hashlib.sha256(data).hexdigest()}  stage.tar"]
    for i in range(n):
        d = root / ".stage" / f"p{i + 1}"
        d.mkdir(parents=True)
        part = data[i * size:(i + 1) * size]
        (d / f"chunk.{i:02d}").write_bytes(part)
        lines.append(f"{hashlib.sha256(part).hexdigest()}  p{i + 1}/chunk.{i:02d}")
    manifest = "\n".join(lines + [f"chunks={n}"]) + "\n"
    for i in range(n):
        (root / ".stage" / f"p{i + 1}" / "MANIFEST").write_text(manifest)


def _stage(root: Path, *args: str, chunk: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"STAGE_CHUNK_BYTES": str(chunk)} if chunk else {})}
    return subprocess.run(["bash", str(root / "scripts" / "gpu" / "stage.sh"), *args], capture_output=True,
                          text=True, env=env, timeout=60)


def test_resplit_gives_the_same_bytes_in_smaller_chunks(tmp_path):
    data = os.urandom(250_000)
    _packed(tmp_path, data, 2)
    r = _stage(tmp_path, "resplit", chunk=100_000)
    assert r.returncode == 0, r.stdout + r.stderr
    chunks = [next((tmp_path / ".stage" / f"p{i}").glob("chunk.*")) for i in (1, 2, 3)]
    assert not (tmp_path / ".stage" / "p4").exists()
    assert b"".join(c.read_bytes() for c in chunks) == data
    assert max(c.stat().st_size for c in chunks) <= 100_000
    manifest = (tmp_path / ".stage" / "p3" / "MANIFEST").read_text().splitlines()
    assert manifest[0] == f"{hashlib.sha256(data).hexdigest()}  stage.tar" and manifest[-1] == "chunks=3"
    for c in chunks:  # every chunk's line, as recv checks it
        assert f"{hashlib.sha256(c.read_bytes()).hexdigest()}  {c.parent.name}/{c.name}" in manifest
    assert _stage(tmp_path, "last").stdout.strip() == "3"


def test_resplit_refuses_a_corrupt_chunk_and_keeps_the_stage(tmp_path):
    data = os.urandom(120_000)
    _packed(tmp_path, data, 2)
    bad = tmp_path / ".stage" / "p2" / "chunk.01"
    raw = bad.read_bytes()
    bad.write_bytes(bytes([raw[0] ^ 0xFF]) + raw[1:])  # always another byte (b"x" equalled it 1 time in 256)
    r = _stage(tmp_path, "resplit", chunk=50_000)
    assert r.returncode != 0
    assert "do not match stage.tar's sha256" in r.stdout + r.stderr
    assert sorted(p.name for p in (tmp_path / ".stage").iterdir()) == ["p1", "p2"]
    assert not (tmp_path / ".stage.new").exists()  # no scratch left (it would travel with a device call)


def test_last_reads_whichever_chunk_travelled(tmp_path):
    # a device call carries one .stage/pN; `last` must not need p1 (session 23's first A0 failed on it)
    _packed(tmp_path, os.urandom(30_000), 3)
    shutil.rmtree(tmp_path / ".stage" / "p1")
    shutil.rmtree(tmp_path / ".stage" / "p2")
    r = _stage(tmp_path, "last")
    assert r.returncode == 0 and r.stdout.strip() == "3", r.stderr
    shutil.rmtree(tmp_path / ".stage")
    r = _stage(tmp_path, "last")
    assert r.returncode != 0 and "no .stage/pN/MANIFEST" in r.stderr


def test_fits_refuses_a_tree_and_chunk_over_the_carry_limit(tmp_path):
    _packed(tmp_path, os.urandom(10_000), 1)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    tracked = tmp_path / "big.bin"
    with tracked.open("wb") as f:
        f.truncate(20 * 1048576)  # sparse: counted by its size, as the device tool counts it
    subprocess.run(["git", "-C", str(tmp_path), "add", "big.bin", "scripts"], check=True)
    r = _stage(tmp_path, "fits")
    assert r.returncode == 0, r.stdout + r.stderr
    chunk = tmp_path / ".stage" / "p1" / "chunk.00"
    with chunk.open("r+b") as f:
        f.truncate(42_000_000)  # session 22's chunk size: with this 20 MiB tree it is 2.5 MiB too large
    r = _stage(tmp_path, "fits")
    assert r.returncode != 0 and "too large for one call" in r.stderr and "STAGE_CHUNK_BYTES=" in r.stderr


def test_the_last_chunks_call_names_a_chunk_that_never_arrived(tmp_path):
    # session 29: a refused first call lost chunk 1; the last chunk's call returned 0 with no word, skipped
    # the install, and the export after it failed with no message
    _packed(tmp_path, os.urandom(30_000), 3)
    env = {"STAGE_HOME": str(tmp_path / "home" / "stage")}
    r = subprocess.run(["bash", str(tmp_path / "scripts" / "gpu" / "stage.sh"), "recv", "2"], capture_output=True,
                       text=True, env={**os.environ, **env}, timeout=60)
    assert r.returncode == 0 and "chunk 2 of 3 ok" in r.stdout, r.stdout + r.stderr  # not the last: more may come
    r = subprocess.run(["bash", str(tmp_path / "scripts" / "gpu" / "stage.sh"), "recv", "3"], capture_output=True,
                       text=True, env={**os.environ, **env}, timeout=60)
    assert r.returncode == 1
    assert "stage: chunk(s) p1 never arrived" in r.stdout, r.stdout + r.stderr
    assert sorted(p.name for p in (tmp_path / "home" / "stage").iterdir()) == ["chunk.01", "chunk.02"]  # nothing joined
    # a chunk of another stage left behind: more chunks than this stage has is named too
    (tmp_path / "home" / "stage" / "chunk.00").write_bytes(b"x")
    (tmp_path / "home" / "stage" / "chunk.07").write_bytes(b"stale")
    r = subprocess.run(["bash", str(tmp_path / "scripts" / "gpu" / "stage.sh"), "recv", "3"], capture_output=True,
                       text=True, env={**os.environ, **env}, timeout=60)
    assert r.returncode == 1 and "holds chunks of another stage (4 for 3)" in r.stdout, r.stdout + r.stderr
    # one stale chunk and one missing: the count is right, the names are not; the missing one is named
    (tmp_path / "home" / "stage" / "chunk.01").unlink()
    r = subprocess.run(["bash", str(tmp_path / "scripts" / "gpu" / "stage.sh"), "recv", "3"], capture_output=True,
                       text=True, env={**os.environ, **env}, timeout=60)
    assert r.returncode == 1 and "stage: chunk(s) p2 never arrived" in r.stdout, r.stdout + r.stderr


def test_a_chunk_call_names_the_earlier_chunks_a_fresh_machine_lacks(tmp_path):
    # session 43: the machine went back after chunk 31; chunk 32's call found a fresh one and its reply
    # only listed what it had. The loss is named at once, and only the chunks before this one count
    _packed(tmp_path, os.urandom(40_000), 4)
    env = {**os.environ, "STAGE_HOME": str(tmp_path / "home" / "stage")}
    script = str(tmp_path / "scripts" / "gpu" / "stage.sh")
    r = subprocess.run(["bash", script, "recv", "1"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and "earlier chunk" not in r.stdout, r.stdout + r.stderr
    shutil.rmtree(tmp_path / "home" / "stage")  # the fresh machine
    r = subprocess.run(["bash", script, "recv", "3"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr  # not the last: the missing ones can still come
    assert "stage: earlier chunk(s) p1 p2 are not here" in r.stdout, r.stdout
    r = subprocess.run(["bash", script, "recv", "2"], capture_output=True, text=True, env=env, timeout=60)
    assert "stage: earlier chunk(s) p1 are not here" in r.stdout, r.stdout
    r = subprocess.run(["bash", script, "recv", "1"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and "earlier chunk" not in r.stdout, r.stdout  # p4 is later: not named


def test_fits_counts_the_tree_as_a_tar_does(tmp_path):
    # session 32: 64.9 MB of plain bytes was refused by the device tool, which counts a 512-byte header
    # per file and pads each file to 512 bytes; fits must count the same way
    _packed(tmp_path, os.urandom(1000), 1)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(".stage/\n")
    for i in range(3):
        (tmp_path / f"f{i}.txt").write_bytes(b"x" * 513)  # 1,536 bytes of tar: header + two blocks
    r = _stage(tmp_path, "fits")
    assert r.returncode == 0, r.stderr
    # tracked-or-untracked files: .gitignore (512 + 512), stage.sh (512 + padded size), three f*.txt
    script = (tmp_path / "scripts" / "gpu" / "stage.sh").stat().st_size
    tree = 1024 + 512 + -(-script // 512) * 512 + 3 * 1536
    assert f"tree {tree} (tar blocks) + largest chunk 1000 = {tree + 1000} of 67108864 bytes" in r.stdout
    # a tree that leaves too little room: refused, with the chunk size that would fit
    (tmp_path / "big.bin").write_bytes(b"\0" * (64 * 1048576 - 1048576 - tree - 1000))
    r = _stage(tmp_path, "fits")
    assert r.returncode == 1 and "too large for one call" in r.stderr
    room = 64 * 1048576 - 1048576 - (tree + 512 + (64 * 1048576 - 1048576 - tree - 1000 + 511) // 512 * 512)
    assert f"STAGE_CHUNK_BYTES={room} bash scripts/gpu/stage.sh resplit" in r.stderr
