"""PDFs read as Markdown (issue 17, session 52): what printing a text to PDF costs the verdict.

A user who saves a chat answer or a post with a browser's "Save as PDF" gives ``whowrote predict``
a PDF. This fits the default recipe on the topic hold-out's train part (as ``benchmarks/robustness.py``
does, sharing its feature cache), renders each val text into an HTML page (``edits.markdown_page``),
prints the page with headless Chromium as "Save as PDF" does (``Page.printToPDF``, Letter, headers
and footers on: date, title, file address, page numbers) and scores the val texts read four ways:

- ``raw``: the Markdown itself;
- ``html_file``: the page read as an ``.html`` file (the suite's ``html_file`` edit);
- ``pdf_file``: the printed PDF read by ``whowrote predict`` (``whowrote.style.pdf_reader``);
- ``pdf_styled``: the page under a chat app's style sheet (:data:`STYLE_SHEET`: sans-serif type,
  headings underlined by a border, code on a grey ground with padding, bordered tables, a quote's
  bar, a thick rule) printed and read the same way;
- ``pdf_plain``: the plain page's PDF as pypdf's plain ``extract_text()`` gives it, page after page
  (a PDF-to-text tool's reading: lines, no paragraphs or marks).

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals. Needs Chromium
and chromedriver (``apt-get install chromium chromium-driver``) and selenium (the ``dev`` extra);
the PDFs are kept in ``--pdf-dir`` (by the page's sha256), so a second run prints nothing.

    OMP_NUM_THREADS=1 python benchmarks/pdf_reader.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/pdf_reader

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead, read the same five ways (drops over bootstrapped questions):

    OMP_NUM_THREADS=1 python benchmarks/pdf_reader.py --answers /tmp/mtbench/model_answer --out results/pdf_reader_mtbench

Writes ``pdf_reader.json`` and ``pdf_reader.png`` under ``--out``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
from html_reader import fitted_holdout, print_readings, readings_figure, readings_result, score_readings
from robustness import timed_log

from whowrote.data.corpus import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.style.edits import html_page, markdown_html_file, markdown_page, render_markdown
from whowrote.style.io import load_model
from whowrote.style.pdf_reader import pdf_markdown

# a Markdown viewer's look (GitHub's and the chat apps' are alike): what the reader must see through
STYLE_SHEET = """body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 16px; line-height: 1.5; max-width: 46em;
  margin: 2em auto; color: #1f2328; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
code { font-family: "DejaVu Sans Mono", monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; font-size: 85%; }
pre { background: #f6f8fa; padding: 16px; border-radius: 6px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; } th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
blockquote { border-left: .25em solid #d1d9e0; padding: 0 1em; color: #59636e; margin-left: 0; }
hr { height: .25em; background: #d1d9e0; border: 0; }"""


def styled_page(text: str) -> str:
    return html_page(render_markdown(text)).replace("</title>", f"</title><style>{STYLE_SHEET}</style>", 1)


def print_pdfs(pages: list[str], folder: Path, log) -> list[Path]:
    """Each HTML page printed by headless Chromium into ``folder`` (named by the page's sha256;
    one already there is kept)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{hashlib.sha256(p.encode()).hexdigest()[:24]}.pdf" for p in pages]
    todo = [(p, path) for p, path in zip(pages, paths, strict=True) if not path.exists()]
    if not todo:
        return paths
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        for i, (page, path) in enumerate(todo):
            html = path.with_suffix(".html")
            html.write_text(page, encoding="utf-8")
            driver.get(html.resolve().as_uri())
            pdf = driver.execute_cdp_cmd("Page.printToPDF", {"displayHeaderFooter": True})
            part = path.with_suffix(".part")  # (renamed when whole: a stopped run leaves no half PDF)
            part.write_bytes(base64.b64decode(pdf["data"]))
            part.replace(path)
            html.unlink()
            if (i + 1) % 200 == 0:
                log(f"printed {i + 1} of {len(todo)} PDFs")
    finally:
        driver.quit()
    return paths


def plain_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", nargs="+", help="the corpus files: the default recipe fitted and scored on their topic hold-out")
    ap.add_argument("--answers", type=Path, help="instead, a FastChat model_answer folder scored by the bundled model")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/whowrote-robustness"), help="robustness.py's feature cache")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pdf-dir", type=Path, default=Path("/tmp/whowrote-pdf"), help="where the printed PDFs are kept")
    args = ap.parse_args()
    if not (args.corpus or args.answers):
        ap.error("give --corpus or --answers")
    log = timed_log()
    if args.answers:  # the bundled model, as users meet it, on answers from outside the corpus
        model, val = load_model(), load_corpus(args.answers)
        featurise = model.features
    else:
        model, val = fitted_holdout(args, log)
        featurise = None
    texts = val["text"].tolist()
    pdfs = print_pdfs([markdown_page(t) for t in texts], args.pdf_dir, log)
    styled = print_pdfs([styled_page(t) for t in texts], args.pdf_dir, log)
    log(f"{len(pdfs) + len(styled)} PDFs in {args.pdf_dir}")
    readings = {"raw": texts, "html_file": [markdown_html_file(t) for t in texts],
                "pdf_file": [pdf_markdown(p)[0] for p in pdfs], "pdf_styled": [pdf_markdown(p)[0] for p in styled],
                "pdf_plain": [plain_text(p) for p in pdfs]}
    log("read " + ", ".join(readings))
    P = score_readings(model, readings, featurise)
    same = {k: float(np.mean([a == b for a, b in zip(readings["html_file"], t, strict=True)])) for k, t in readings.items()}
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""),
              **readings_result(model, val, P, args.seed), "same_as_html_file": same}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "pdf_reader.json", json.dumps(result, indent=1) + "\n")
    print_readings(result)
    readings_figure(result, args.out / "pdf_reader.png",
                    "A Markdown text's page printed to PDF by Chromium, read back (benchmarks/pdf_reader.py)")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
