"""Texts converted by pandoc, read back as Markdown (issue 17, session 53): what converting a text costs the verdict.

A user who suspects a self-published e-book was written by an assistant gives ``whowrote predict``
an ``.epub``; one who saves a text with pandoc (the converter most Markdown tools call) gives it
pandoc's HTML page or its RTF. This fits the default recipe on the topic hold-out's train part (as
``benchmarks/robustness.py`` does, sharing its feature cache), converts each val text with pandoc
and scores the val texts read six ways:

- ``raw``: the Markdown itself;
- ``html_file``: the markdown-it page read as an ``.html`` file (the suite's ``html_file`` edit);
- ``pandoc_html``: pandoc's standalone page (``-s``: its lines wrapped at 72 columns, highlighted
  code with line anchors) read by this code's input check;
- ``pandoc_html_before``: the same page read by ``--before-src``'s input check (another checkout's
  ``src``, e.g. ``f26fc8d``, before the reader dropped a code block's anchors and links and read a
  wrapped source's line breaks as spaces), scored with the canonical form's joining of wrapped lines
  switched off (as the model read it then);
- ``pandoc_epub``: pandoc's EPUB 3 (its chapters split at top-level headings, its paragraphs
  unwrapped: a single line break inside a paragraph is a space) read by ``whowrote predict``
  (``whowrote.style.epub_reader``);
- ``pandoc_rtf``: pandoc's standalone RTF read by ``whowrote predict`` (``whowrote.style.rtf_reader``).

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals. Needs pandoc
(``--pandoc``; pandoc 3.9 is the binary inside the ``pypandoc_binary==1.17`` wheel, not a
dependency of whowrote). The converted files are kept in ``--convert-dir`` (by the text's sha256),
so a second run converts nothing.

    git worktree add /tmp/base f26fc8d
    OMP_NUM_THREADS=1 python benchmarks/pandoc_documents.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --pandoc /tmp/pp/pypandoc/files/pandoc --before-src /tmp/base/src --out results/pandoc_documents

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead (drops over bootstrapped questions):

    OMP_NUM_THREADS=1 python benchmarks/pandoc_documents.py --answers /tmp/mtbench/model_answer \\
        --pandoc /tmp/pp/pypandoc/files/pandoc --before-src /tmp/base/src --out results/pandoc_documents_mtbench

Writes ``pandoc_documents.json`` and ``pandoc_documents.png`` under ``--out``.
"""

from __future__ import annotations

import hashlib
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

import numpy as np
from html_reader import (
    model_and_texts,
    read_before,
    readings_args,
    readings_result,
    score_readings,
    write_readings,
)
from robustness import timed_log

from whowrote.style import canonical as canonical_module
from whowrote.style.documents import document_to_markdown
from whowrote.style.edits import markdown_html_file
from whowrote.style.textcheck import inspect_text

# what pandoc is told: the Markdown the corpus is written in, a page title so no warning is printed
FORMATS = {"html": ["-s", "--metadata", "pagetitle=post"], "epub": ["-t", "epub3"], "rtf": ["-s", "-t", "rtf"]}


def convert(texts: list[str], kind: str, pandoc: str, folder: Path, log, jobs: int = 2) -> list[Path]:
    """Each text converted by pandoc into ``folder`` (named by the text's sha256 and ``kind``; one
    already there is kept); ``jobs`` pandoc processes at once."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{hashlib.sha256(t.encode()).hexdigest()[:24]}.{kind}" for t in texts]
    todo = [(t, p) for t, p in zip(texts, paths, strict=True) if not p.exists()]

    def one(item: tuple[str, Path]) -> None:
        text, path = item
        part = path.with_suffix(".part")  # (renamed when whole: a stopped run leaves no half file)
        subprocess.run([pandoc, "-f", "commonmark+pipe_tables", *FORMATS[kind], "-o", str(part)], input=text.encode(),
                       check=True, capture_output=True)
        part.replace(path)

    with ThreadPoolExecutor(jobs) as pool:
        for i, _ in enumerate(pool.map(one, todo)):
            if (i + 1) % 400 == 0:
                log(f"converted {i + 1} of {len(todo)} to {kind}")
    return paths


def main() -> None:
    ap = readings_args(__doc__.splitlines()[0])
    ap.add_argument("--pandoc", default="pandoc", help="the pandoc binary")
    ap.add_argument("--before-src", type=Path, help="another checkout's src/ (its reader is pandoc_html_before)")
    ap.add_argument("--convert-dir", type=Path, default=Path("/tmp/whowrote-pandoc"), help="where the converted files are kept")
    args = ap.parse_args()
    log = timed_log()
    model, val, featurise = model_and_texts(ap, args, log)
    texts = val["text"].tolist()
    pages = [p.read_text(encoding="utf-8") for p in convert(texts, "html", args.pandoc, args.convert_dir, log)]
    books = convert(texts, "epub", args.pandoc, args.convert_dir, log)
    rtfs = convert(texts, "rtf", args.pandoc, args.convert_dir, log)
    log(f"{len(pages) + len(books) + len(rtfs)} files in {args.convert_dir}")
    readings = {"raw": texts, "html_file": [markdown_html_file(t) for t in texts],
                "pandoc_html": [inspect_text(p).text for p in pages]}
    readings["pandoc_epub"] = [document_to_markdown(b)[0] for b in books]
    readings["pandoc_rtf"] = [document_to_markdown(r)[0] for r in rtfs]
    P = score_readings(model, readings, featurise)
    if args.before_src:
        readings["pandoc_html_before"] = read_before(pages, args.before_src)
        with mock.patch.object(canonical_module, "unwrap", lambda text: (text, None)):  # (before session 53)
            P["pandoc_html_before"] = score_readings(model, {"k": readings["pandoc_html_before"]}, featurise)["k"]
    log("read and scored " + ", ".join(readings))
    same = {k: float(np.mean([a == b for a, b in zip(readings["pandoc_html"], t, strict=True)])) for k, t in readings.items()}
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""), "before_src": str(args.before_src or ""),
              **readings_result(model, val, P, args.seed), "same_as_pandoc_html": same}
    write_readings(result, args.out, "pandoc_documents", "A Markdown text converted by pandoc to a page, an EPUB and an RTF, read back",
                   log)


if __name__ == "__main__":
    main()
