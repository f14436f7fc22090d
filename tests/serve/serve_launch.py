"""Start the real server in this process (for the end-to-end test): the bundled model when the
classifier is installed, else the fake stand-in. Usage: python serve_launch.py PORT."""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    port = int(sys.argv[1])
    try:
        from whowrote.style import load_model

        model = load_model()
    except (ImportError, AttributeError):  # classifier not landed: same interface, fake numbers
        sys.path.insert(0, str(Path(__file__).parent))
        from serve_fakes import FakeModel

        model = FakeModel()
    import uvicorn

    from whowrote.serve import create_app

    print(f"serving {type(model).__name__}", file=sys.stderr, flush=True)
    uvicorn.run(create_app(model), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
