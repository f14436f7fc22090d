"""Old Word documents (.doc) read as Markdown (issue 17, session 55): what saving a text in Word 97-2003's format costs the verdict.

Fits the default recipe on the topic hold-out's train part (as ``benchmarks/robustness.py`` does,
sharing its feature cache), writes each val text into Word and scores the val texts read back by
``predict``'s document reader:

- ``raw``: the Markdown itself;
- ``docx_file``: the robustness suite's Word round trip (the text pasted into Word as a rendered
  answer, saved as ``.docx``, read by ``whowrote.style.docx_reader``);
- ``doc_file``: the same document saved as ``.doc`` (written by ``whowrote.style.doc_writer``; no
  Word runs here) and read by ``whowrote.style.doc_reader``.

It also counts the val texts whose two readings are the same text, and times the two readers side
by side on them (interleaved, each text read by both in turn, ``--repeat`` passes; pin a core with
``taskset -c 0``). Drops are raw minus reading, in points, with 95 % paired topic-bootstrap
intervals.

    OMP_NUM_THREADS=1 taskset -c 0 python benchmarks/doc_reader.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/doc_reader

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead. Writes ``doc_reader.json`` and ``doc_reader.png`` under ``--out``.

``--files DIR`` instead reads every ``.doc`` in a folder of real files (e.g. Apache POI's
``test-data/document``) and writes ``public_files.json``: how many read to a text, how many were one
line and why, none may raise anything else; and the reading time of each:

    python benchmarks/doc_reader.py --files /tmp/poidocs --out results/doc_reader
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
from html_reader import model_and_texts, readings_args, readings_result, score_readings, write_readings
from robustness import timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.style.doc_writer import docx_doc
from whowrote.style.documents import document_to_markdown
from whowrote.style.docx_writer import markdown_docx
from whowrote.style.office_xml import DocumentError
from whowrote.style.textcheck import inspect_text


def reading_times(docx_files: list[bytes], doc_files: list[bytes], repeat: int) -> dict:
    """Seconds to read all the files of each kind, per pass (the two kinds interleaved text by text)."""
    passes = {"docx": [], "doc": []}
    for _ in range(repeat):
        spent = {"docx": 0.0, "doc": 0.0}
        for pair in zip(docx_files, doc_files, strict=True):
            for kind, raw in zip(("docx", "doc"), pair, strict=True):
                t0 = time.perf_counter()
                document_to_markdown(raw)
                spent[kind] += time.perf_counter() - t0
        for kind in passes:
            passes[kind].append(spent[kind])
    best = {kind: min(v) for kind, v in passes.items()}
    return {"passes": passes, "best_seconds": best, "doc_over_docx": best["doc"] / best["docx"]}


def public_files(folder: Path, out: Path) -> None:
    """Every ``.doc`` in ``folder`` read as ``predict`` reads it: a text, or one line (module docstring)."""
    rows = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() == ".doc"):
        t0 = time.perf_counter()
        try:
            text, reason = document_to_markdown(path)[0], None
        except DocumentError as e:
            text, reason = "", str(e)
        rows.append({"file": path.name, "bytes": path.stat().st_size, "seconds": time.perf_counter() - t0,
                     "words": len(text.split()), "error": reason})
    read = [r for r in rows if r["error"] is None]
    reasons = Counter(r["error"].split(" (")[0].split(";")[0] for r in rows if r["error"])
    result = {"folder": str(folder), "files": len(rows), "read": len(read), "read_empty": sum(r["words"] == 0 for r in read),
              "one_line": dict(reasons.most_common()), "median_ms": 1000 * float(np.median([r["seconds"] for r in rows])),
              "max_ms": 1000 * max(r["seconds"] for r in rows), "rows": rows}
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "public_files.json", json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))


def main() -> None:
    ap = readings_args(__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timing passes over the val texts")
    ap.add_argument("--files", type=Path, help="instead, a folder of real .doc files, each read (module docstring)")
    args = ap.parse_args()
    if args.files:
        public_files(args.files, args.out)
        return
    log = timed_log()
    model, val, featurise = model_and_texts(ap, args, log)
    texts = val["text"].tolist()
    docx_files = [markdown_docx(t) for t in texts]
    doc_files = [docx_doc(d) for d in docx_files]  # (the very document of docx_file, saved as .doc)
    log(f"wrote {len(texts)} .docx and .doc files")
    readings = {"raw": texts,
                "docx_file": [inspect_text(document_to_markdown(d)[0]).text for d in docx_files],
                "doc_file": [inspect_text(document_to_markdown(d)[0]).text for d in doc_files]}
    log("read them back")
    timing = reading_times(docx_files, doc_files, args.repeat)
    log(f"timed the readers: .doc {timing['doc_over_docx']:.3f}x the time of .docx")
    P = score_readings(model, readings, featurise)
    same = sum(a == b for a, b in zip(readings["docx_file"], readings["doc_file"], strict=True))
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""),
              **readings_result(model, val, P, args.seed), "doc_same_as_docx": same, "reading_time": timing}
    write_readings(result, args.out, "doc_reader", "A Markdown text saved in Word as .docx and as .doc, read back", log)
    print(f".doc read the same as .docx: {same} of {len(texts)}; reading time .doc / .docx {timing['doc_over_docx']:.3f}")


if __name__ == "__main__":
    main()
