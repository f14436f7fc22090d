"""Progress for long commands (``study``, ``data audit``, ``data split``): a rich display on
stderr when it is a terminal, nothing otherwise (pipes, logs and CI stay clean), and each step's
seconds for the one-line summary at the end."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager


class Steps:
    """``with steps.step("name", total) as advance: ... advance(k)``; records each step's seconds.

    ``enabled=True`` shows bars only if stderr is a terminal (``force=True`` shows them anyway)."""

    def __init__(self, enabled: bool = True, force: bool = False):
        self.enabled = enabled and (force or _stderr_is_tty())
        self.seconds: dict[str, float] = {}
        self._progress = None
        self._start = time.perf_counter()

    def __enter__(self) -> Steps:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description:<34}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), console=Console(file=sys.stderr), transient=False)
            self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
            self._progress = None

    @property
    def total_seconds(self) -> float:
        return round(time.perf_counter() - self._start, 1)

    def summary(self) -> str:
        """``12.3 s (read 2.1 s, audit 5.0 s, ...)``: the whole run and its slowest steps."""
        slow = sorted(self.seconds.items(), key=lambda kv: -kv[1])[:4]
        return f"{self.total_seconds:.1f} s" + (f" ({', '.join(f'{k} {v:.1f} s' for k, v in slow)})" if slow else "")

    @contextmanager
    def step(self, name: str, total: int | None = 1):
        start = time.perf_counter()
        task = self._progress.add_task(name, total=total) if self._progress is not None else None

        def advance(k: int = 1) -> None:
            if task is not None:
                self._progress.advance(task, k)

        def set_total(n: int) -> None:
            if task is not None:
                self._progress.update(task, total=n)

        advance.set_total = set_total  # type: ignore[attr-defined]
        try:
            yield advance
        finally:
            if task is not None:
                t = self._progress.tasks[[x.id for x in self._progress.tasks].index(task)]
                self._progress.update(task, completed=t.total if t.total is not None else 1)
            self.seconds[name] = round(time.perf_counter() - start, 2)


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False
