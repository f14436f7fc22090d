"""``whowrote predict`` start-up, throughput and memory, for one or more source trees side by side.

    python benchmarks/predict.py --src /tmp/base/src --src src --corpus ../shared/corpus/blogs.jsonl --n 1000
    python benchmarks/predict.py --baseline-ref 862f8a8 --corpus ../shared/corpus/chat.jsonl --n 1000 --parts batch

``--baseline-ref REF`` checks REF out with ``git worktree add`` into a temporary folder (removed
afterwards) and makes its ``src`` the first contender, this tree's ``src`` the second. ``--model
DIR`` (repeatable) adds this tree's ``src`` reading another model (``whowrote predict --model DIR``)
as a contender after the bundled one, e.g. a ``train-probe --blend-iter 75`` model::

    python benchmarks/predict.py --model models/blend75 --corpus ../shared/corpus/chat.jsonl --n 1000 --parts batch

Every measurement runs the entry point (``whowrote predict ...``) as a child process with
``PYTHONPATH=<src>``, pinned with ``taskset`` to ``--cores`` (one core by default), the
contenders interleaved and repeated (``--repeat``); the table gives the median and each
contender's ratio to the first ``--src``. Peak RSS comes from ``os.wait4`` of each child.

- ``startup``: ``whowrote predict ONE.md --jsonl`` (one blog post), then ``whowrote predict ONE.md``
  (the human table, the command a person types);
- ``batch``: ``whowrote predict FOLDER --jsonl --no-progress`` over ``--n`` files written from
  ``--corpus`` (texts cycled), wall time including start-up, in docs/s;
- ``table``: ``whowrote predict rows.jsonl --jsonl`` on ``--corpus`` repeated to ``--rows`` rows
  (for the memory check: RSS should not grow with the number of rows);
- ``jobs``: the batch with ``--jobs 2`` on two cores against ``--jobs 1`` on the same two cores
  (``--jobs`` only where the source tree has it); the time is wall time, so the two cores must
  be idle for the ratio to mean anything (the table also gives each run's CPU seconds);
- ``identity``: no timing: the output of every contender on a mixed table (``--per-genre`` texts
  of each ``*.jsonl`` beside ``--corpus``: every genre) compared byte for byte, for ``--jsonl
  --explain 8``, ``--csv`` and ``--jsonl --jobs 2``, and the same texts as files with ``--jsonl
  --jobs 2``; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def entry_point() -> list[str]:
    script = Path(sys.executable).with_name("whowrote")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from whowrote.cli import main; main()"]


def texts_of(path: Path) -> list[str]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            text = row.get("text") or row.get("content") or ""
            if text.strip():
                out.append(text)
    return out


MODEL_SEP = " --model "  # a contender is a source tree, or "SRC --model DIR": that tree reading another model


def contender(c: str, args: list[str]) -> tuple[str, list[str]]:
    """The source tree of contender ``c`` and the arguments it runs ``whowrote`` with."""
    src, _, model = c.partition(MODEL_SEP)
    return src, args + (["--model", model] if model else [])


def run_once(src: str, args: list[str], cores: str) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB, CPU seconds of the child and its workers) of one ``whowrote`` child."""
    src, args = contender(src, args)
    # Bytecode is cached as in an installed package (this workplace sets PYTHONDONTWRITEBYTECODE,
    # which would make every start compile the sources again).
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = (["taskset", "-c", cores] if shutil.which("taskset") else []) + entry_point() + args
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def compare(name: str, srcs: list[str], args_of, repeat: int, cores: str, n_docs: int | None,
            warm: bool = True) -> None:
    walls: dict[str, list[float]] = {s: [] for s in srcs}
    rss: dict[str, list[float]] = {s: [] for s in srcs}
    cpu: dict[str, list[float]] = {s: [] for s in srcs}
    for s in srcs if warm else ():  # warm-up (file cache, .pyc)
        run_once(s, args_of(s), cores)
    for _ in range(repeat):
        for s in srcs:  # interleaved: machine drift hits every contender alike
            w, r, c = run_once(s, args_of(s), cores)
            walls[s].append(w)
            rss[s].append(r)
            cpu[s].append(c)
    first = statistics.median(walls[srcs[0]])
    for s in srcs:
        med = statistics.median(walls[s])
        rate = f"  {n_docs / med:8,.0f} docs/s" if n_docs else ""
        print(f"{name:8s} {s:28s} median {med:7.3f} s (min {min(walls[s]):.3f}){rate}  "
              f"time ratio {med / first:5.2f}  speed ratio {first / med:5.2f}  CPU {statistics.median(cpu[s]):7.3f} s  "
              f"peak RSS {max(rss[s]):6.0f} MB", flush=True)


def same_output(srcs: list[str], args: list[str], cores: str) -> bool:
    """Whether every contender writes the same bytes for ``args`` (one untimed run each)."""
    outs = []
    for c in srcs:
        src, run_args = contender(c, args)
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "OMP_NUM_THREADS": "1"}
        cmd = (["taskset", "-c", cores] if shutil.which("taskset") else []) + entry_point() + run_args
        outs.append(subprocess.run(cmd, env=env, capture_output=True, check=False).stdout)
    return len(set(outs)) == 1


def identity(srcs: list[str], corpus_dir: Path, per_genre: int, d: Path, cores: str) -> bool:
    """Whether every contender writes the same bytes on ``per_genre`` texts of every genre."""
    rows, files = d / "mixed.jsonl", d / "mixed"
    files.mkdir()
    with open(rows, "w", encoding="utf-8") as f:
        for path in sorted(corpus_dir.glob("*.jsonl")):
            for i, text in enumerate(texts_of(path)[:per_genre]):
                f.write(json.dumps({"id": f"{path.stem}-{i}", "text": text}, ensure_ascii=False) + "\n")
                (files / f"{path.stem}-{i:04d}.md").write_text(text, encoding="utf-8")
    print(f"identity: {rows.read_text(encoding='utf-8').count(chr(10))} rows ({per_genre} per genre at most), "
          "also as files")
    same = True
    for target, extra in ((rows, ["--jsonl", "--explain", "8"]), (rows, ["--csv"]), (rows, ["--jsonl", "--jobs", "2"]),
                          (files, ["--jsonl", "--jobs", "2"])):  # files: --jobs workers read their own
        ok = same_output(srcs, ["predict", str(target), "--no-progress", *extra], cores)
        print(f"identity {target.name:12s} {' '.join(extra):24s} identical across contenders: {ok}", flush=True)
        same &= ok
    return same


def has_jobs(src: str) -> bool:
    return "--jobs" in (Path(src) / "whowrote" / "cli" / "predict.py").read_text()


@contextlib.contextmanager
def baseline_tree(ref: str):
    """The ``src`` folder of ``ref`` checked out beside this repository (a detached git worktree)."""
    repo = Path(__file__).resolve().parents[1]
    tmp = Path(tempfile.mkdtemp(prefix="whowrote-baseline-"))
    tree = tmp / "tree"
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(tree), ref], check=True,
                   stdout=subprocess.DEVNULL)
    try:
        yield str(tree / "src")
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", action="append", help="a source tree (its src/ folder); repeat to compare")
    ap.add_argument("--baseline-ref", help="git ref to check out as the first contender (then this tree's src)")
    ap.add_argument("--model", action="append", default=[], type=Path,
                    help="this tree reading another model folder, as one more contender (repeatable)")
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--n", type=int, default=1000, help="files in the batch")
    ap.add_argument("--rows", type=int, default=0, help="rows in the table run (0: skip it)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cores", default="0", help="taskset core list for the one-core runs")
    ap.add_argument("--jobs-cores", default="0,1", help="taskset core list for the --jobs run")
    ap.add_argument("--parts", default="startup,batch", help="comma list of startup,batch,table,jobs,identity")
    ap.add_argument("--per-genre", type=int, default=500, help="texts per genre in the identity check")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parents[1] / "src")
    with contextlib.ExitStack() as stack:
        srcs = args.src or [here]
        if args.baseline_ref:
            srcs = [stack.enter_context(baseline_tree(args.baseline_ref)), *(args.src or [here])]
        for m in args.model:
            if not (m / "model.json").is_file():
                raise SystemExit(f"--model {m}: no model.json there (a train-probe --out folder)")
            srcs.append(f"{here}{MODEL_SEP}{m.resolve()}")
        print(f"contenders: {srcs}" + (f" ({srcs[0]} = {args.baseline_ref})" if args.baseline_ref else ""))
        run_parts(args, srcs)


def run_parts(args, srcs: list[str]) -> None:
    parts = set(args.parts.split(","))
    texts = texts_of(args.corpus)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "one.md").write_text(texts[0])
        batch = d / "batch"
        batch.mkdir()
        for i in range(args.n):
            (batch / f"{i:05d}.md").write_text(texts[i % len(texts)])
        mb = sum(len(texts[i % len(texts)].encode()) for i in range(args.n)) / 1e6
        print(f"corpus {args.corpus.name}: {args.n} files, {mb:.1f} MB; cores {args.cores}; repeat {args.repeat}")
        if "startup" in parts:
            compare("startup", srcs, lambda s: ["predict", str(d / "one.md"), "--jsonl"], args.repeat, args.cores, None)
            compare("table", srcs, lambda s: ["predict", str(d / "one.md")], args.repeat, args.cores, None)
        if "batch" in parts:
            batch_args = ["predict", str(batch), "--jsonl", "--no-progress"]
            compare("batch", srcs, lambda s: batch_args, args.repeat, args.cores, args.n)
            code = [s for s in srcs if MODEL_SEP not in s]  # another model writes other verdicts: not compared
            if len(code) > 1:
                print(f"batch    JSONL output identical across source trees: {same_output(code, batch_args, args.cores)}")
        if "table" in parts and args.rows:
            rows = d / "rows.jsonl"
            with open(rows, "w", encoding="utf-8") as f:
                for i in range(args.rows):
                    f.write(json.dumps({"id": i, "text": texts[i % len(texts)]}, ensure_ascii=False) + "\n")
            print(f"table: {args.rows} rows, {rows.stat().st_size / 1e6:.0f} MB")
            compare("table", srcs, lambda s: ["predict", str(rows), "--jsonl", "--no-progress"], 1, args.cores,
                    args.rows, warm=False)
        if "identity" in parts and args.model:
            raise SystemExit("--parts identity compares source trees on one model; leave out --model")
        if "identity" in parts and not identity(srcs, args.corpus.parent, args.per_genre, d, args.cores):
            raise SystemExit(1)
        if "jobs" in parts:
            for s in srcs:
                if has_jobs(contender(s, [])[0]):
                    print(f"jobs: {s} on cores {args.jobs_cores}")
                    compare("jobs", [s, s + "/"], lambda x: ["predict", str(batch), "--jsonl", "--no-progress"]
                            + (["--jobs", "2"] if x.endswith("/") else []), args.repeat, args.jobs_cores, args.n)


if __name__ == "__main__":
    main()
