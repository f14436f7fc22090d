"""Attribution of ``whowrote predict``'s items in batches, in this process or in N (``--jobs``).

:func:`attribute_stream` yields each item with its attribution (or finished ``--jsonl`` line) in
input order; memory stays bounded however many items come. With ``--jobs N`` this process and
N-1 forked workers attribute batches; plain files come unread (``iter_items(defer=True)``) and
the process that attributes a batch reads its files, so no text crosses a pipe. Standard library
only (start-up time matters): the model is passed in.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Future

BATCH = 256
TAIL_MIN = 16  # the smallest batch the end of a --jobs run is cut into
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(rec, ensure_ascii=False), one encoder
_worker_model = None


def record(path: str, ident: str | None, attribution: dict, error: str | None = None) -> dict:
    """One output record: the input's path (and table id), the attribution, the input's error."""
    rec = {"path": path, **attribution}
    if ident is not None:
        rec["id"] = ident
    if error:
        rec["error"] = error
    return rec


def _attribute_batch(texts: list[str], options: dict, model=None) -> list[dict]:
    """``options``: the keyword arguments of ``StyleModel.attribute`` (``n_tells``, ``among``)."""
    found = (model or _worker_model).attribute(texts, **options)
    return [a.to_dict() for a in found]


def _attribute_lines(texts: list[str], options: dict, model, meta: list) -> list[str]:
    """The finished ``--jsonl`` lines of ``texts`` (``meta``: each text's path, id and input
    warnings): a worker then sends back one string per text, and the parent has nothing left to
    encode."""
    lines = []
    for att, (path, ident, warnings) in zip(_attribute_batch(texts, options, model), meta, strict=True):
        att["warnings"][:0] = warnings
        lines.append(_ENCODE(record(path, ident, att)))
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
    from whowrote.style.verdict import no_attribution

    results = iter(found)
    for it in batch:
        if it.error:
            att = no_attribution([it.error]).to_dict()
            yield it, (_ENCODE(record(it.path, it.id, att, it.error)) if lines else att)
        elif lines:
            yield it, next(results)
        else:
            att = next(results)
            att["warnings"][:0] = it.warnings
            yield it, att


def _job(batch: list, lines: bool) -> tuple:
    """The function and the arguments after ``(texts, options, model)`` that attribute a batch."""
    if lines:
        return _attribute_lines, ([(it.path, it.id, it.warnings) for it in batch if not it.error],)
    return _attribute_batch, ()


def _read_unread(batch: list) -> list[tuple]:
    """Reads the batch's unread files into their items; returns each one's ``(error, warnings)``.
    With ``--jobs`` the process that attributes a batch reads its files: a worker's texts then
    never cross a pipe (pickled, copied twice and unpickled, and held by the parent meanwhile)."""
    from whowrote.cli.inputs import read_file

    got = []
    for it in batch:
        if it.unread:
            r = read_file(it.path)
            it.text, it.error, it.warnings, it.unread = r.text, r.error, r.warnings, False
            got.append((r.error, r.warnings))
    return got


def _attribute_items(batch: list, options: dict, lines: bool, model=None) -> tuple[list, list]:
    """``(what was read, the attributions or --jsonl lines)`` of a batch of items, here or in a
    worker (which sends back only those two: the parent has the items)."""
    reads = _read_unread(batch)
    texts = [it.text for it in batch if not it.error]
    fn, extra = _job(batch, lines)
    return reads, (fn(texts, options, model, *extra) if texts else [])


def _took_reads(batch: list, reads: list) -> list:
    """The batch with what a worker read put into the parent's unread items (their texts stay
    with the worker: only the path, id, error and warnings are output)."""
    got = iter(reads)
    for it in batch:
        if it.unread:
            it.error, it.warnings = next(got)
            it.unread = False
    return batch


def attribute_stream(model, model_path, items: Iterable, options: dict, jobs: int = 1,
                     lines: bool = False) -> Iterator[tuple[object, object]]:
    """``(item, attribution dict)`` in input order, or with ``lines`` ``(item, its --jsonl line)``;
    ``options``: the keyword arguments of ``StyleModel.attribute`` (``n_tells``, ``among``).
    With ``jobs > 1`` the batches go to ``jobs - 1`` worker processes, and this process attributes
    those that come while the workers have enough to do (:func:`_to_workers`); at most
    ``4 * jobs * BATCH`` items are held ahead of the output, so memory stays bounded. Unread
    items (plain files, ``iter_items(defer=True)``) are read by the process that attributes them:
    one a worker read comes back with its error and warnings, not its text."""
    if jobs <= 1:
        for batch in _batches(items, BATCH):
            yield from _merge(batch, _attribute_items(batch, options, lines, model)[1], lines)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from whowrote.style.decision import prepare

    global _worker_model
    _worker_model = model  # inherited by forked workers; spawned ones load it in _init_worker
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if method == "fork":
        prepare(getattr(model, "trees_", None))  # the trees' tables: made once here, inherited by every worker
        import gc

        gc.freeze()  # the workers' collector leaves the inherited objects alone (fewer copied pages)
    path = None if model_path is None else str(model_path)
    workers = jobs - 1  # this process attributes batches too: N processes in all
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                             initializer=_init_worker, initargs=(path,)) as pool:
        pending: deque = deque()  # (batch, its future, or its attributions made here), input order
        held = 0  # texts in pending
        for batch in _job_batches(items, jobs):
            if all(it.error for it in batch):
                pending.append((batch, None, []))
            elif _to_workers(pending, len(batch), workers):
                pending.append((batch, pool.submit(_attribute_items, batch, options, lines), None))
            else:  # the workers have enough to do meanwhile: this process takes this one
                pending.append((batch, None, _attribute_items(batch, options, lines, model)[1]))
            held += len(batch)
            # (a bound in texts, not batches: the small batches at the end must not wait on a big one)
            while pending and (pending[0][1] is None or pending[0][1].done() or held > 4 * jobs * BATCH):
                done, fut, found = pending.popleft()
                held -= len(done)
                yield from _merge(*_finished(done, fut, found), lines)
        while pending:
            yield from _merge(*_finished(*pending.popleft()), lines)


def _to_workers(pending: Iterable[tuple], size: int, workers: int) -> bool:
    """Whether the next batch (``size`` items) goes to a worker: unless the workers' unfinished
    batches hold twice its size each (so none runs dry while this process attributes it, however
    far its running batch is), or three batches each (memory). Counted in items, not batches: a
    worker's 64-item start must not count as a 256-item batch; and a worker's batch that has just
    finished may not be marked done yet (the pool's thread waits for this process's GIL): a count
    of batches (at most two each) then left a worker idle for this process's whole next batch."""
    busy = [len(b) for b, fut, _ in pending if fut is not None and not fut.done()]
    return len(busy) < 3 * workers and sum(busy) < 2 * workers * size


def _finished(batch: list, fut: Future | None, found: list) -> tuple[list, list]:
    """A batch and its attributions, from a worker's future or made here (``found``)."""
    if fut is None:
        return batch, found
    reads, found = fut.result()
    return _took_reads(batch, reads), found
