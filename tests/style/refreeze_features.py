"""Re-freeze ``data/frozen_features.json`` from the current code, after a deliberate feature change.

    PYTHONPATH=src python tests/style/refreeze_features.py --note "what changed and why"

Keeps the same 20 corpus rows (file stem and id), recomputes both forms with ``extract([text],
"full")`` and prints, per form, how many texts and values moved, so the change can be reported.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from pathlib import Path

import numpy as np

from whowrote.style import extract, feature_names
from whowrote.style.edits import canonical

FIXTURE = Path(__file__).parent / "data" / "frozen_features.json"
CORPUS = Path(os.environ.get("WHOWROTE_SHARED", Path(__file__).resolve().parents[2].parent / "shared")) / "corpus"


def _texts(rows: list[dict]) -> list[str]:
    found: dict[tuple[str, str], str] = {}
    for stem in sorted({r["corpus"] for r in rows}):
        ids = {r["id"] for r in rows if r["corpus"] == stem}
        with open(CORPUS / f"{stem}.jsonl", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("id") in ids:
                    found[stem, rec["id"]] = rec.get("text") or rec.get("content") or ""
    return [found[r["corpus"], r["id"]] for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--note", required=True, help="what the frozen values now are (goes into the file)")
    args = ap.parse_args()
    data = json.loads(FIXTURE.read_text())
    rows, names = data["rows"], feature_names("full")
    texts = _texts(rows)
    for form, forms in (("full", texts), ("canonical_full", [canonical(t) for t in texts])):
        moved_texts, moved = 0, {}
        for row, got in zip(rows, [extract([t], "full")[0] for t in forms], strict=True):
            old = np.frombuffer(base64.b64decode(row[form]), dtype="<f8")
            diff = np.flatnonzero(old.view("<u8") != got.astype("<f8").view("<u8"))
            moved_texts += bool(len(diff))
            for j in diff:
                moved[names[j]] = moved.get(names[j], 0) + 1
            row[form] = base64.b64encode(got.astype("<f8").tobytes()).decode()
        print(f"{form}: {moved_texts} of {len(rows)} texts changed, {sum(moved.values())} values {moved}")
    data["note"] = args.note
    tmp = FIXTURE.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, FIXTURE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
