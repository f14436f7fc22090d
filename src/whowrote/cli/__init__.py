"""Command-line entry point: ``whowrote data|predict|train-probe|study|eval|train|serve``.

``whowrote predict`` is dispatched first, without building the Typer app (start-up is part of
the product: Typer, click, pydantic and rich cost more than the prediction of one text). Every
other command goes through :data:`app`, built on first use; each sub-module registers its
commands on :data:`whowrote.cli.app.app`. This module only turns user-facing errors into one line
on stderr and a non-zero exit.
"""

from __future__ import annotations

import sys
import types
from typing import Any

EXIT_USAGE = 2
EXIT_ERROR = 1


def _build_app() -> Any:
    from whowrote.cli import (  # noqa: F401  (register commands)
        data,
        evaluate,
        generate,
        package,
        predict,
        research,
        serve,
        study,
        traces,
        train,
    )
    from whowrote.cli.app import app

    if not getattr(app, "_whowrote_predict", False):
        predict.register(app)
        app._whowrote_predict = True
    return app


class _Package(types.ModuleType):
    """``whowrote.cli.app`` is the Typer app, built on first use. A property, because importing
    the submodule ``whowrote.cli.app`` sets this package's ``app`` attribute to the submodule."""

    @property
    def app(self) -> Any:
        return _build_app()

    @app.setter
    def app(self, value: Any) -> None:  # the import system's setattr(package, "app", submodule)
        pass


sys.modules[__name__].__class__ = _Package


def _exit_now(code: int) -> None:
    """End ``whowrote predict`` once its output is flushed, without the interpreter's teardown
    (freeing numpy, the model and every module: ~20 ms, 8 % of a one-file run). Nothing else is
    pending by then: predict registers no exit handlers and has joined its workers. Under a
    profiler, tracer or coverage tool (which write their results at exit) it exits normally."""
    sys.stdout.flush()
    sys.stderr.flush()
    if sys.getprofile() is None and sys.gettrace() is None:
        import os

        os._exit(code)


def main(argv: list[str] | None = None) -> None:
    from whowrote.types import WhowroteError

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args[:1] == ["predict"]:
            from whowrote.cli.predict import run

            code = run(args[1:])
            if argv is None:  # the `whowrote` program itself (a caller's main([...]) returns normally)
                _exit_now(code)
            sys.exit(code)
        # Standalone mode handles usage errors and --help and exits by itself.
        _build_app()(args=args)
    except WhowroteError as e:
        print(f"whowrote: error: {e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        print("whowrote: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as e:  # a path the OS refused (--out under a file, a full disk, no permission): one line
        where = f"{e.filename}: " if e.filename else ""
        print(f"whowrote: error: {where}{e.strerror or e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
