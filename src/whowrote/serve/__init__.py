"""The local web page and JSON API over the style model: ``create_app(model)`` (needs the ``[serve]`` extra)."""

from whowrote.serve.app import create_app

__all__ = ["create_app"]
