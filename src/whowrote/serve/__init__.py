"""The local web page and JSON API over the style model: ``create_app(model)`` (needs the ``[serve]`` extra).

``create_app`` is imported on first use: the worker processes import ``whowrote.serve.work``
and should not pay for FastAPI.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from whowrote.serve.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
