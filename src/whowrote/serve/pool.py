"""The worker pool of ``whowrote serve``: the CPU work of requests in processes, one per core.

Each worker is a spawned process with the model loaded once (:func:`whowrote.serve.work.init_worker`),
held in a ``ProcessPoolExecutor`` of one process, so that the pool knows which process runs which
request. ``await pool.run(...)`` answers the JSON body of one request, or raises
:class:`~whowrote.serve.work.ApiError`:

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
import multiprocessing.process
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio

from whowrote.serve.work import ApiError, init_worker, predict_body, predict_job, worker_pid
from whowrote.types import WhowroteError

log = logging.getLogger("whowrote.serve")

DEFAULT_QUEUE = 32
MAX_WORKERS = 256
MAX_QUEUE = 10_000
START_TIMEOUT_S = 120.0  # a new worker's interpreter start and model load, on a busy machine
RESTART_DELAY_S = 1.0  # between attempts when a replacement worker fails to start


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


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


@dataclass(eq=False)
class _Worker:
    executor: ProcessPoolExecutor
    process: multiprocessing.process.BaseProcess | None  # the executor's one process
    pid: int
    busy: bool = field(default=False)

    def alive(self) -> bool:  # without the Process object, the executor's own check has to do
        return self.process.is_alive() if self.process is not None else True

    def kill(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.kill()


def _consume(future: asyncio.Future) -> None:
    """Retrieve the late result of an abandoned job (no 'exception was never retrieved')."""
    if not future.cancelled():
        future.exception()


def _process(pid: int) -> multiprocessing.process.BaseProcess | None:
    """Our child process ``pid`` as a Process object (which never signals a reused pid)."""
    return next((c for c in multiprocessing.active_children() if c.pid == pid), None)


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
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
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
                  batch: bool) -> bytes:
        """The JSON body of one ``POST /v1/predict``; see the module doc for the errors."""
        if self._closed:
            raise ApiError(503, "the server is shutting down")
        if self._admitted >= self.capacity:
            raise ApiError(503, f"server busy: {self._admitted} requests in progress or waiting "
                                f"(the limit is {self.capacity}); try again shortly")
        self._admitted += 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.timeout_s
        args = (texts, n_tells, highlight, where, batch)
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
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        try:
            return await asyncio.wait_for(self._idle.get(), remaining)
        except TimeoutError:
            raise self._timed_out() from None

    async def _in_worker(self, args: tuple, deadline: float) -> bytes:
        while True:
            worker = await self._take(deadline)
            if not worker.alive():  # it died while idle (the OOM killer, say): try another
                self._retire(worker, "was found dead while idle")
                continue
            try:
                done = asyncio.wrap_future(worker.executor.submit(predict_job, *args))
                break
            except (BrokenProcessPool, RuntimeError):  # the executor saw it die first
                self._retire(worker, "was found dead while idle")
        worker.busy = True
        try:
            finished, _ = await asyncio.wait({done}, timeout=max(0.0, deadline - asyncio.get_running_loop().time()))
        except BaseException:  # cancelled (server shutting down): the job may still be running
            done.add_done_callback(_consume)
            self._retire(worker, "had its request cancelled")
            raise
        if not finished:
            done.add_done_callback(_consume)
            self._retire(worker, f"ran a request past the {self.settings.timeout_s:g} s timeout")
            raise self._timed_out()
        try:
            body = done.result()
        except BrokenProcessPool:
            self._retire(worker, "died during a request")
            raise ApiError(500, "the worker process died during this request; a new one has been started") from None
        except BaseException:  # the request's own error (422, a model bug): the worker is fine
            self._release(worker)
            raise
        self._release(worker)
        return body

    def _release(self, worker: _Worker) -> None:
        worker.busy = False
        if worker in self._workers:
            self._idle.put_nowait(worker)

    def _add(self, worker: _Worker) -> None:
        self._workers.add(worker)
        self._idle.put_nowait(worker)

    def _retire(self, worker: _Worker, why: str) -> None:
        """Kill ``worker`` and start a replacement in the background."""
        self._workers.discard(worker)
        worker.kill()
        worker.executor.shutdown(wait=False, cancel_futures=True)
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
                await asyncio.to_thread(worker.executor.shutdown, True)
            else:
                self._add(worker)
            return

    async def _new_worker(self) -> _Worker:
        executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=init_worker, initargs=(self._blob,))
        try:
            pid = await asyncio.wait_for(asyncio.wrap_future(executor.submit(worker_pid)), START_TIMEOUT_S)
        except BaseException:
            executor.shutdown(wait=False, cancel_futures=True)
            raise
        return _Worker(executor, _process(pid), pid)

    async def close(self) -> None:
        """Stop every worker: idle ones exit on their own, busy ones are killed."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        workers, self._workers = list(self._workers), set()
        for w in workers:
            if w.busy:
                w.kill()

        def join() -> None:
            for w in workers:
                w.executor.shutdown(wait=True, cancel_futures=True)

        try:
            await asyncio.wait_for(asyncio.to_thread(join), 10)
        except TimeoutError:
            for w in workers:
                w.kill()
