"""Serve the page over the fake stand-in model (used by the end-to-end test only when no real
model can be loaded, e.g. before the bundled model exists). Usage: python serve_launch.py PORT."""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).parent))
from serve_fakes import FakeModel  # noqa: E402

from whowrote.serve import create_app  # noqa: E402

if __name__ == "__main__":
    uvicorn.run(create_app(FakeModel()), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
