"""The worker pool of ``whowrote serve``: the CPU work of requests in processes, one per core.

Each worker is a spawned process (:func:`whowrote.serve.work.worker_main`) with the model loaded
once and one end of a socket pair; the event loop writes a request to an idle worker and reads the
answer when the socket is readable. No helper threads run in the server (a ``ProcessPoolExecutor``
adds two per worker and cost about 3x the server's CPU per call in a side-by-side check), and the
pool knows which process runs which request. ``await pool.run(...)`` answers the JSON body of one
request, or raises :class:`~whowrote.serve.work.ApiError`:

- 503 at once when ``workers + queue`` requests are already in progress or waiting (bounded
  memory: a waiting request holds its texts);
- 504 when the request is not done within ``timeout_s`` of its arrival (waiting included). A job
  still running then is a runaway: its worker is killed and a new one started in the background,
  so it cannot hold a core after its client got the answer;
- 500 when the worker died during the request (a crash, the OOM killer); a new one is started.
  A worker found dead while idle is replaced and the request goes to another worker.

``workers=0`` runs the work in a thread of the server process instead (one core's throughput,
no kill on timeout: Python cannot stop a thread); for embedding and for models that cannot be
pickled. Models cross to the workers pickled once per worker, in memory; nothing is written.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import pickle
from collections import deque
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import anyio

from whowrote.serve.work import ApiError, predict_body, worker_main
from whowrote.types import WhowroteError, usable_cores

log = logging.getLogger("whowrote.serve")

DEFAULT_QUEUE = 32
MAX_WORKERS = 256
MAX_QUEUE = 10_000
START_TIMEOUT_S = 120.0  # a new worker's interpreter start and model load, on a busy machine
RESTART_DELAY_S = 1.0  # between attempts when a replacement worker fails to start


@dataclass(frozen=True)
class PoolSettings:
    """``workers`` processes (0: a thread of the server), ``queue`` more requests may wait."""

    workers: int
    queue: int = DEFAULT_QUEUE
    timeout_s: float = 30.0

    def __post_init__(self) -> None:
        for name, value, top in (("workers", self.workers, MAX_WORKERS), ("queue", self.queue, MAX_QUEUE)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise WhowroteError(f"--{name} must be a whole number from 0 to {top}, not {value!r}")
        t = self.timeout_s
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t <= 0:
            raise WhowroteError(f"--timeout must be a positive number of seconds, not {t!r}")


class WorkerDied(Exception):
    """The worker's end of the socket closed: the process is gone."""


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection
    busy: bool = field(default=False)

    @property
    def pid(self) -> int:
        return self.process.pid or 0

    def alive(self) -> bool:
        return self.process.is_alive()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.conn.close()

    async def call(self, message: bytes, timeout: float) -> Any:
        """Send ``message`` (none: only wait) and wait for the reply; ``TimeoutError`` after
        ``timeout``, :class:`WorkerDied` when the process ends first."""
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[Any] = loop.create_future()
        fd = self.conn.fileno()

        def readable() -> None:
            loop.remove_reader(fd)
            if reply.done():
                return
            try:
                reply.set_result(pickle.loads(self.conn.recv_bytes()))
            except (EOFError, OSError):
                reply.set_exception(WorkerDied())
            except Exception as e:  # an answer that does not unpickle
                reply.set_exception(e)

        loop.add_reader(fd, readable)
        try:
            if message:
                try:
                    self.conn.send_bytes(message)  # the worker is idle in recv: it reads at once
                except OSError:  # a broken pipe: it died while idle
                    raise WorkerDied() from None
            return await asyncio.wait_for(reply, timeout)
        finally:
            loop.remove_reader(fd)


class WorkerPool:
    def __init__(self, model: Any, settings: PoolSettings) -> None:
        self.settings = settings
        threads = max(2, usable_cores())  # workers=0: requests worked on at once in threads
        self.capacity = (settings.workers or threads) + settings.queue
        self.restarts = 0  # workers replaced after a timeout or a crash
        self._model = model
        self._blob = b""
        if settings.workers:
            try:
                self._blob = pickle.dumps(model)
            except Exception as e:
                raise WhowroteError(f"the model cannot be sent to worker processes ({type(e).__name__}: {e}); "
                                    "use --workers 0 to run it in the server process") from None
        self._limiter = anyio.CapacityLimiter(threads)
        self._admitted = 0
        self._reset()

    def _reset(self) -> None:
        """Fresh state, bound to the event loop that starts the pool (again, after a close)."""
        self._idle: list[_Worker] = []
        self._waiters: deque[asyncio.Future[_Worker]] = deque()  # requests waiting for a worker, oldest first
        self._workers: set[_Worker] = set()
        self._tasks: set[asyncio.Task] = set()
        self._start_lock = asyncio.Lock()
        self._started = False
        self._closed = False

    @property
    def pids(self) -> list[int]:
        return sorted(w.pid for w in self._workers)

    async def start(self) -> None:
        """Start every worker and wait until each has loaded the model (idempotent)."""
        if self._closed:  # an app's lifespan run again (a second test client, say)
            self._reset()
        if self._started or not self.settings.workers:
            return
        async with self._start_lock:
            if self._started:
                return
            found = await asyncio.gather(*(self._new_worker() for _ in range(self.settings.workers)),
                                         return_exceptions=True)
            failed = [e for e in found if isinstance(e, BaseException)]
            for w in found:
                if isinstance(w, _Worker):
                    self._add(w)
            if failed:
                await self.close()
                raise RuntimeError(f"worker processes could not start: {failed[0]}") from failed[0]
            self._started = True

    async def run(self, texts: list[str], n_tells: int | None, highlight: bool, where: list[str],
                  batch: bool, notes: list[list[str]] | None = None, among: list[str] | None = None) -> bytes:
        """The JSON body of one ``POST /v1/predict``; see the module doc for the errors."""
        if self._closed:
            raise ApiError(503, "the server is shutting down")
        if self._admitted >= self.capacity:
            raise ApiError(503, f"server busy: {self._admitted} requests in progress or waiting "
                                f"(the limit is {self.capacity}); try again shortly")
        self._admitted += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.timeout_s
        args = (texts, n_tells, highlight, where, batch, notes, among)
        try:
            if not self.settings.workers:
                return await self._in_thread(args, deadline)
            await self.start()
            return await self._in_worker(args, deadline)
        finally:
            self._admitted -= 1

    def _timed_out(self) -> ApiError:
        return ApiError(504, f"attribution took longer than {self.settings.timeout_s:g} s")

    async def _in_thread(self, args: tuple, deadline: float) -> bytes:
        call = partial(predict_body, self._model, *args)
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        try:
            return await asyncio.wait_for(anyio.to_thread.run_sync(call, limiter=self._limiter), remaining)
        except TimeoutError:
            raise self._timed_out() from None

    async def _take(self, deadline: float) -> _Worker:
        """An idle worker, first come first served. A freed worker is handed to the oldest waiter
        directly (an ``asyncio.Queue`` lets a newcomer take it while the woken waiter goes to the
        back of the line: under load that starved some requests for seconds)."""
        if self._idle and not self._waiters:
            return self._idle.pop()
        loop = asyncio.get_running_loop()
        handed: asyncio.Future[_Worker] = loop.create_future()
        self._waiters.append(handed)
        try:
            return await asyncio.wait_for(handed, max(0.0, deadline - loop.time()))
        except TimeoutError:
            raise self._timed_out() from None
        except BaseException:  # cancelled: pass on a worker handed over meanwhile
            if handed.done() and not handed.cancelled():
                self._release(handed.result())
            raise
        finally:
            if not handed.done() or handed.cancelled():
                with suppress(ValueError):
                    self._waiters.remove(handed)

    async def _in_worker(self, args: tuple, deadline: float) -> bytes:
        message = pickle.dumps(args)
        loop = asyncio.get_running_loop()
        while True:
            worker = await self._take(deadline)
            if worker.alive():
                break
            self._retire(worker, "was found dead while idle")  # the OOM killer, say: try another
        worker.busy = True
        try:
            status, value = await worker.call(message, max(0.0, deadline - loop.time()))
        except TimeoutError:
            self._retire(worker, f"ran a request past the {self.settings.timeout_s:g} s timeout")
            raise self._timed_out() from None
        except WorkerDied:
            self._retire(worker, "died during a request")
            raise ApiError(500, "the worker process died during this request; a new one has been started") from None
        except BaseException:  # cancelled (the server shutting down): the job may still be running
            self._retire(worker, "had its request cancelled")
            raise
        self._release(worker)
        if status != "ok":
            raise value  # the request's own error (422, a model bug): the worker is fine
        return value

    def _release(self, worker: _Worker) -> None:
        worker.busy = False
        if worker not in self._workers:
            return
        while self._waiters:
            handed = self._waiters.popleft()
            if not handed.done():
                handed.set_result(worker)
                return
        self._idle.append(worker)

    def _add(self, worker: _Worker) -> None:
        self._workers.add(worker)
        self._release(worker)

    def _retire(self, worker: _Worker, why: str) -> None:
        """Kill ``worker`` and start a replacement in the background."""
        self._workers.discard(worker)
        worker.kill()
        if self._closed:
            return
        self.restarts += 1
        log.warning("worker process %d %s; it was stopped and a new one is starting", worker.pid, why)
        task = asyncio.get_running_loop().create_task(self._replace())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _replace(self) -> None:
        while not self._closed:
            try:
                worker = await self._new_worker()
            except Exception as e:
                log.error("a new worker process could not start (%s); retrying", type(e).__name__)
                await asyncio.sleep(RESTART_DELAY_S)
                continue
            if self._closed:
                worker.kill()
            else:
                self._add(worker)
            return

    async def _new_worker(self) -> _Worker:
        """Spawn a worker (a fresh interpreter: never ``fork`` of a threaded server) and wait
        until it has loaded the model."""
        ctx = multiprocessing.get_context("spawn")
        conn, child_conn = ctx.Pipe()
        process = ctx.Process(target=worker_main, args=(child_conn, self._blob), name="whowrote-serve-worker",
                              daemon=True)
        try:
            await asyncio.to_thread(process.start)  # writes the model to the new process: off the loop
        finally:
            child_conn.close()
        worker = _Worker(process, conn)
        try:
            status, pid = await worker.call(b"", START_TIMEOUT_S)
        except BaseException as e:
            worker.kill()
            await asyncio.to_thread(process.join, 5)
            if isinstance(e, WorkerDied):
                raise RuntimeError(f"a worker process exited while loading the model (exit code "
                                   f"{process.exitcode})") from None
            raise
        if (status, pid) != ("ready", process.pid):
            worker.kill()
            raise RuntimeError(f"a worker process answered {status!r} instead of 'ready'")
        return worker

    async def close(self) -> None:
        """Stop every worker: idle ones exit when their socket closes, busy ones are killed."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        workers, self._workers = list(self._workers), set()
        for w in workers:
            if w.busy:
                w.process.kill()
            w.conn.close()

        def join() -> None:
            for w in workers:
                w.process.join(5)
                if w.process.is_alive():
                    w.process.kill()
                    w.process.join(5)

        await asyncio.to_thread(join)
