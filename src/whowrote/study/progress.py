"""A small progress display for the study's long steps (rich), silent when disabled."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager


class Steps:
    """``with steps.step("name", total) as advance: ... advance(k)``; records each step's seconds."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.seconds: dict[str, float] = {}
        self._progress = None

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
