"""``whowrote predict`` (attribute texts with the bundled or a given model) and ``whowrote train-probe``.

Start-up is part of the product: ``whowrote predict`` is parsed here with argparse and run before
the Typer app (and the click, pydantic and rich it pulls in) is ever imported; it loads numpy, the
style package and the standard library only. The Typer app lists ``predict`` and hands its
arguments to :func:`run` unchanged, so the options are defined once, below.

Inputs and outputs are streamed in batches: memory does not grow with the number of texts.
``--jobs N`` attributes the batches in N processes, this one and N-1 workers (results stay in input order).

Exit codes of ``predict``: 0 every input attributed; 3 some inputs could not be read (each still
gets an explicit "cannot tell" result); 1 no input could be read, or a fatal error (bad model);
2 usage error.
"""

import argparse
import json
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

EXIT_PARTIAL = 3
BATCH = 256
HELP = "Name the assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote each text, with its tells."
AUTO_PROGRESS = 20  # a bar appears on a terminal once more texts than this are read


def _non_negative(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {n}")
    return n


def _positive(value: str) -> int:
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {n}")
    return n


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="whowrote predict", description=HELP)
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="Files, folders (recursing into .md/.txt), globs, '-' for stdin, "
                        "or .jsonl/.csv/.tsv/.json/.parquet tables (one text per row).")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="json_out", action="store_true", help="One JSON array of results.")
    fmt.add_argument("--jsonl", action="store_true", help="One JSON object per text, one per line.")
    fmt.add_argument("--csv", dest="csv_out", action="store_true",
                     help="CSV: path, id, provider, uncertain, 4 probabilities, words, warnings.")
    p.add_argument("--explain", "-e", type=_non_negative, default=3, metavar="N", help="Show the top N tells per text.")
    p.add_argument("--column", help="Text column of table inputs (default: text/content/...).")
    p.add_argument("--model", dest="model_path", type=Path, help="A model directory from train-probe.")
    p.add_argument("--jobs", "-j", type=_positive, default=1, metavar="N",
                   help="Processes attributing batches in parallel: this one and N-1 workers (default 1).")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help=f"Progress bar on stderr (default: on a terminal, once more than {AUTO_PROGRESS} texts).")
    return p


def _record(path: str, ident: str | None, attribution: dict, error: str | None = None) -> dict:
    """One output record: the input's path (and table id), the attribution, the input's error."""
    rec = {"path": path, **attribution}
    if ident is not None:
        rec["id"] = ident
    if error:
        rec["error"] = error
    return rec


# ---- attribution in batches, in this process or in N workers -----------------------------------
_worker_model = None


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(rec, ensure_ascii=False), one encoder


def _attribute_batch(texts: list[str], n_tells: int, model=None) -> list[dict]:
    found = (model or _worker_model).attribute(texts, n_tells=n_tells)
    return [a.to_dict() for a in found]


def _attribute_lines(texts: list[str], n_tells: int, model, meta: list) -> list[str]:
    """The finished ``--jsonl`` lines of ``texts`` (``meta``: each text's path, id and input
    warnings): a worker then sends back one string per text, and the parent has nothing left to
    encode."""
    lines = []
    for att, (path, ident, warnings) in zip(_attribute_batch(texts, n_tells, model), meta, strict=True):
        att["warnings"][:0] = warnings
        lines.append(_ENCODE(_record(path, ident, att)))
    return lines


def _init_worker(model_path: str | None) -> None:
    global _worker_model
    if _worker_model is None:  # forked workers inherit the parent's model
        from whowrote.style.io import load_model

        _worker_model = load_model(model_path)


def _batches(items: Iterable, size: int) -> Iterator[list]:
    """``items`` in lists of ``size`` (``--jobs`` has its own: :func:`_job_batches`)."""
    batch: list = []
    for it in items:
        batch.append(it)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


TAIL_MIN = 16  # the smallest batch the end of a --jobs run is cut into


def _job_batches(items: Iterable, jobs: int) -> Iterator[list]:
    """The batches of ``--jobs``: 64 texts per worker first (every worker starts at once), then
    128, then :data:`BATCH`; the last ``jobs`` batches' worth of texts is held back and, once the
    input ends, cut into shrinking batches (each a ``2 * jobs``-th of what is left, at least
    :data:`TAIL_MIN`) so that the workers finish together instead of one waiting for the other's
    last full batch."""
    hold = jobs * BATCH
    buf: deque = deque()
    size, made = max(8, BATCH // 4), 0
    for it in items:
        buf.append(it)
        if len(buf) >= size + (hold if size == BATCH else 0):
            yield [buf.popleft() for _ in range(size)]
            made += 1
            if made % jobs == 0:
                size = min(2 * size, BATCH)
    while buf:
        n = min(len(buf), max(TAIL_MIN, -(-len(buf) // (2 * jobs))))
        yield [buf.popleft() for _ in range(n)]


def _merge(batch: list, found: list, lines: bool = False) -> Iterator[tuple[object, object]]:
    from whowrote.style.explain import no_attribution

    results = iter(found)
    for it in batch:
        if it.error:
            att = no_attribution([it.error]).to_dict()
            yield it, (_ENCODE(_record(it.path, it.id, att, it.error)) if lines else att)
        elif lines:
            yield it, next(results)
        else:
            att = next(results)
            att["warnings"][:0] = it.warnings
            yield it, att


def _job(batch: list, lines: bool) -> tuple:
    """The function and the arguments after ``(texts, n_tells, model)`` that attribute a batch."""
    if lines:
        return _attribute_lines, ([(it.path, it.id, it.warnings) for it in batch if not it.error],)
    return _attribute_batch, ()


def attribute_stream(model, model_path, items: Iterable, n_tells: int, jobs: int = 1,
                     lines: bool = False) -> Iterator[tuple[object, object]]:
    """``(item, attribution dict)`` in input order, or with ``lines`` ``(item, its --jsonl line)``.
    With ``jobs > 1`` the batches go to ``jobs - 1`` worker processes, two per worker at a time
    (one running, one waiting), and this process attributes the batches that come while every
    worker is full; at most ``4 * jobs * BATCH`` texts are held ahead of the output, so memory
    stays bounded."""
    if jobs <= 1:
        for batch in _batches(items, BATCH):
            texts = [it.text for it in batch if not it.error]
            fn, extra = _job(batch, lines)
            yield from _merge(batch, fn(texts, n_tells, model, *extra) if texts else [], lines)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _worker_model
    _worker_model = model  # inherited by forked workers; spawned ones load it in _init_worker
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "fork":
        trees = getattr(model, "trees_", None)
        if trees is not None and trees.expected is not None:
            trees.step_change()  # the walk's tables: made once here, inherited by every worker
        import gc

        gc.freeze()  # the workers' collector leaves the inherited objects alone (fewer copied pages)
    path = None if model_path is None else str(model_path)
    workers = jobs - 1  # this process attributes batches too: N processes in all
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                             initializer=_init_worker, initargs=(path,)) as pool:
        pending: deque = deque()  # (batch, its future, or its attributions made here), input order
        held = 0  # texts in pending
        for batch in _job_batches(items, jobs):
            texts = [it.text for it in batch if not it.error]
            fn, extra = _job(batch, lines)
            if not texts:
                pending.append((batch, None, []))
            elif sum(1 for _, fut, _ in pending if fut is not None and not fut.done()) < 2 * workers:
                pending.append((batch, pool.submit(fn, texts, n_tells, None, *extra), None))
            else:  # every worker has a batch running and one waiting: this process takes this one
                pending.append((batch, None, fn(texts, n_tells, model, *extra)))
            held += len(batch)
            # (a bound in texts, not batches: the small batches at the end must not wait on a big one)
            while pending and (pending[0][1] is None or pending[0][1].done() or held > 4 * jobs * BATCH):
                done, fut, found = pending.popleft()
                held -= len(done)
                yield from _merge(done, fut.result() if fut is not None else found, lines)
        while pending:
            done, fut, found = pending.popleft()
            yield from _merge(done, fut.result() if fut is not None else found, lines)


# ---- output ------------------------------------------------------------------------------------
class _Progress:
    """A rich progress bar on stderr, started only once it is wanted (rich loads only then)."""

    def __init__(self, wanted: bool | None) -> None:
        self.wanted = wanted
        self.bar = self.task = None
        self.n = 0

    def advance(self) -> None:
        self.n += 1
        if self.bar is None and self.n > AUTO_PROGRESS and (self.wanted or (self.wanted is None and sys.stderr.isatty())):
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task("attributing", total=None, completed=self.n)
            self.wanted = False  # started once
        elif self.bar is not None and self.n % 64 == 0:
            self.bar.update(self.task, completed=self.n)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _held_back(items: Iterable) -> Iterator:
    """The items, except that tables with nothing to attribute are held back while nothing else
    came: if only such tables come, :class:`WhowroteError` says why, on one line, with nothing
    written before it."""
    from whowrote.types import WhowroteError

    held, other = [], False
    for it in items:
        if not other and it.nothing_in_table:
            held.append(it)
            continue
        if not other:
            other = True
            yield from held
        yield it
    if not other:
        if not held:
            raise WhowroteError("no input texts found (folders are searched for .md and .txt files)")
        raise WhowroteError("; ".join(f"{it.path}: {it.error}" for it in held))


def run(argv: list[str]) -> int:
    """``whowrote predict ARGV``: returns the exit code (usage errors exit 2 from argparse)."""
    from whowrote.cli.inputs import iter_items
    from whowrote.style.io import load_model
    from whowrote.types import LABELS

    args = parser().parse_args(argv)
    model = load_model(args.model_path)
    items = _held_back(iter_items(args.paths, column=args.column))
    jobs = args.jobs
    out = sys.stdout
    writer = None
    if args.csv_out:
        import csv

        writer = csv.writer(out)
        writer.writerow(["path", "id", "provider", "uncertain", *(f"p_{lab}" for lab in LABELS), "n_words", "warnings"])
    records: list[dict] = []  # the human table only (no texts in them)
    n = n_err = 0
    progress = _Progress(args.progress)
    machine = args.json_out or args.jsonl or args.csv_out
    try:
        # CSV has no tells column: skip the attributions and tells that nothing would print.
        n_tells = 0 if args.csv_out else args.explain
        for item, att in attribute_stream(model, args.model_path, items, n_tells, jobs, lines=args.jsonl):
            n += 1
            n_err += item.error is not None
            progress.advance()
            if item.error and not machine:
                print(f"whowrote: {item.path}: {item.error}", file=sys.stderr)
            if args.jsonl:  # the line was made with the attribution (in the worker, with --jobs)
                out.write(att + "\n")
                continue
            rec = _record(item.path, item.id, att, item.error)
            if writer is not None:
                writer.writerow([rec["path"], rec.get("id", ""), rec["provider"], rec["uncertain"],
                                 *(f"{rec['probabilities'][lab]:.6f}" for lab in LABELS), rec["n_words"],
                                 " | ".join(rec["warnings"])])
            elif args.json_out:  # streamed, byte for byte what json.dump(records, indent=1) writes
                body = json.dumps(rec, ensure_ascii=False, indent=1).split("\n")
                out.write(("[\n" if n == 1 else ",\n") + "\n".join(" " + line for line in body))
            else:
                records.append(rec)
    finally:
        progress.stop()
    if args.json_out:
        out.write("\n]\n" if n else "[]\n")
    elif not machine:
        from whowrote.cli.table import print_records

        print_records(records, args.explain, out)
    out.flush()
    if n_err == n:
        return 1
    return EXIT_PARTIAL if n_err else 0


def register(app) -> None:
    """Add ``predict`` (arguments handed to :func:`run`) and ``train-probe`` to the Typer app."""
    from typing import Annotated

    import typer

    @app.command(help=HELP, add_help_option=False,
                 context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def predict(ctx: typer.Context) -> None:
        code = run(list(ctx.args))
        if code:
            raise typer.Exit(code)

    @app.command("train-probe")
    def train_probe(
        corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files (JSONL/CSV/...); repeat for several.")],
        out: Annotated[Path, typer.Option("--out", help="Directory to write model.json, model.npz, MODEL_CARD.md "
                                                        "(e.g. models/mine).")],
        seed: Annotated[int, typer.Option(help="Seed for the split, the trees and the calibration folds.")] = 0,
        feature_set: Annotated[str, typer.Option(help="research41 or full.")] = "full",
        check: Annotated[bool, typer.Option("--check/--no-check", help="First measure on a topic-held-out split.")] = True,
        force: Annotated[bool, typer.Option("--force", help="Allow --out to be the bundled model's folder.")] = False,
    ) -> None:
        """Train the stylometric model reproducibly and print its held-out metrics."""
        from whowrote.style.io import DEFAULT_DIR
        from whowrote.types import WhowroteError

        if not force and _same_dir(out, DEFAULT_DIR):
            raise WhowroteError(f"--out {out} is the bundled model: training there replaces the model every "
                                "`whowrote predict` uses. Pick another folder (e.g. --out models/mine) or add --force")
        from whowrote.style.train import train_probe as train

        metrics = train([str(p) for p in corpus], out, seed=seed, feature_set=feature_set, check=check,
                        log=lambda m: print(m, file=sys.stderr))
        print(json.dumps(metrics, indent=1))


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
