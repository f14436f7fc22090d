"""The verifiers environment lives in environments/whowrote_provider_id/ (its own package, installed
with ``pip install environments/whowrote_provider_id``); the tests import it from the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

ENVIRONMENTS = Path(__file__).resolve().parents[2] / "environments" / "whowrote_provider_id"
if str(ENVIRONMENTS) not in sys.path:
    sys.path.insert(0, str(ENVIRONMENTS))
