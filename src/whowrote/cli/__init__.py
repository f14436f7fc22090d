"""Command-line entry point: ``whowrote data|predict|train-probe|study|eval|train|serve``.

Each sub-module registers its commands on :data:`whowrote.cli.app.app`; this module only turns
user-facing errors into one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import sys

from whowrote.cli import (  # noqa: F401  (register commands)
    data, evaluate, generate, package, predict, research, serve, study, traces, train,
)
from whowrote.cli.app import app
from whowrote.types import WhowroteError

EXIT_USAGE = 2
EXIT_ERROR = 1


def main(argv: list[str] | None = None) -> None:
    try:
        # Standalone mode handles usage errors and --help and exits by itself.
        app(args=argv)
    except WhowroteError as e:
        print(f"whowrote: error: {e}", file=sys.stderr)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        print("whowrote: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
