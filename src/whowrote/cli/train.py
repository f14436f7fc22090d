"""CLI commands for this part (registered on whowrote.cli.app.app). Heavy imports go inside functions."""

from __future__ import annotations

from whowrote.cli.app import app, data_app, train_app  # noqa: F401
