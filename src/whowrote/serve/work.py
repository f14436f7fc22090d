"""The CPU work of one ``POST /v1/predict``: text checks, the model, the spans and the JSON body.

It runs in a worker process of :mod:`whowrote.serve.pool` (or, with ``workers=0``, in a thread
of the server), so the event loop never touches a text. A worker imports only this module, the
style package and Starlette's response class, not FastAPI.

- ``worker_main(conn, blob)``: a worker process: loads the model once, then answers requests
  from ``conn`` (pickled ``(texts, n_tells, highlight, where, batch, notes, among)`` -> ``("ok", body)`` or
  ``("error", exception)``) until the server closes its end or dies.
- ``predict_body(model, ...)``: one request with a model at hand -> the JSON body (what a worker
  runs; also the in-process path and the tests).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

from starlette.responses import JSONResponse

from whowrote.style.highlight import highlight_spans

MAX_CONTROL_FRACTION = 0.01  # more C0 control characters than this (besides \t \n \r) = binary
_ALLOWED_CONTROLS = {"\t", "\n", "\r", "\f"}
_MODEL: Any = None  # the model of this worker process, set once by init_worker


class ApiError(Exception):
    """An error answered as ``{"error": message}`` with ``status``; crosses process boundaries."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:  # pickled back from a worker with its status
        return (type(self), (self.status, self.message))


def check_text(text: str, where: str) -> None:
    """Reject empty, binary-looking or un-encodable text (422)."""
    if not text.strip():
        raise ApiError(422, f"{where} is empty")
    if "\x00" in text:
        raise ApiError(422, f"{where} looks like binary data (contains NUL characters)")
    controls = sum(1 for c in text if ord(c) < 32 and c not in _ALLOWED_CONTROLS)
    if controls > MAX_CONTROL_FRACTION * len(text):
        raise ApiError(422, f"{where} looks like binary data ({controls} control characters)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(422, f"{where} contains invalid Unicode (lone surrogates)") from None


def predict_body(model: Any, texts: list[str], n_tells: int | None, highlight: bool, where: list[str],
                 batch: bool, notes: list[list[str]] | None = None, among: list[str] | None = None) -> bytes:
    """All CPU work of one request -> the answer's bytes: one attribution dict (the one
    ``whowrote predict --json`` prints), or ``{"results": [...]}`` for a batch. ``notes``: warnings
    of each text's own (e.g. a chat log's), put before the model's; ``among``: the labels assumed."""
    for text, name in zip(texts, where, strict=True):
        check_text(text, name)
    options = {k: v for k, v in (("n_tells", n_tells), ("among", among)) if v is not None}
    found = model.attribute(texts, **options)  # (a WhowroteError, e.g. an among label it lacks, is a 422)
    results = [a.to_dict() for a in found]
    for result, own in zip(results, notes or [[] for _ in results], strict=True):
        if own:
            result["warnings"] = [*own, *result.get("warnings", [])]
    if highlight:
        for text, result in zip(texts, results, strict=True):
            result["highlights"] = highlight_spans(text, [t["feature"] for t in result.get("tells", [])])
    # Rendered here, with Starlette's own JSON renderer, so the bytes equal what JSONResponse
    # would answer and the server process only copies them out.
    return bytes(JSONResponse({"results": results} if batch else results[0]).body)


def _exit_with_parent() -> None:
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)


def init_worker(blob: bytes) -> None:
    """Load the model once per worker process. Ctrl-C reaches the whole process group: the
    server shuts its workers down itself, so they ignore SIGINT (no traceback per worker). A
    worker exits when the server dies, even by SIGKILL (no orphans holding memory)."""
    global _MODEL
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, name="exit-with-parent", daemon=True).start()
    _MODEL = pickle.loads(blob)
    from whowrote.style.decision import prepare

    prepare(getattr(_MODEL, "trees_", None))  # a worker reads one text at a time: its trees' tables, made once


def _reply(request: bytes) -> bytes:
    try:
        reply: tuple[str, Any] = ("ok", predict_body(_MODEL, *pickle.loads(request)))
    except Exception as e:  # the request's own error (ApiError, WhowroteError) or a model bug
        reply = ("error", e)
    try:
        return pickle.dumps(reply)
    except Exception:  # an exception that cannot be pickled: keep its name for the 500
        return pickle.dumps(("error", RuntimeError(type(reply[1]).__name__)))


def worker_main(conn: Connection, blob: bytes) -> None:
    """The body of a worker process; says ``("ready", pid)`` once the model is loaded."""
    init_worker(blob)
    conn.send_bytes(pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            request = conn.recv_bytes()
        except (EOFError, OSError):  # the server closed its end, or died
            return
        try:
            conn.send_bytes(_reply(request))
        except OSError:  # the server went away meanwhile
            return
