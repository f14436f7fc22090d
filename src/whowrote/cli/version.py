"""The package version, from one place: the installed distribution's metadata (which pip takes
from ``pyproject.toml``), or ``whowrote.__version__`` when running from a source tree."""

from __future__ import annotations


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("whowrote")
    except PackageNotFoundError:
        import whowrote

        return whowrote.__version__
