"""The ``[data]`` extra: what reading corpora, splitting, ``train-probe`` and ``study`` need beyond
the light core (numpy, typer, rich) that ``predict`` runs on."""

from __future__ import annotations

import importlib.util

from whowrote.formats import DATA_EXTRA
from whowrote.types import WhowroteError

__all__ = ["DATA_EXTRA", "REQUIRED", "MissingExtraError", "missing_modules", "require_data_extra"]
# import name -> distribution, for the modules every [data] command may need (datasets is optional:
# without it the hf layout is skipped with a note).
REQUIRED = {"pandas": "pandas", "pyarrow": "pyarrow", "sklearn": "scikit-learn", "scipy": "scipy",
            "yaml": "PyYAML"}


class MissingExtraError(WhowroteError, ImportError):
    """A command needs an extra that is not installed (the CLI prints it on one line)."""


def missing_modules() -> list[str]:
    """Distributions of :data:`REQUIRED` that cannot be imported here (found without importing)."""
    missing = []
    for module, dist in REQUIRED.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a blocked or half-removed module
            found = False
        if not found:
            missing.append(dist)
    return missing


def require_data_extra() -> None:
    missing = missing_modules()
    if missing:
        raise MissingExtraError(f"this command needs the data extra ({', '.join(missing)} not installed): "
                                f"{DATA_EXTRA}")
