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
- ``pdf_reportlab``: the Markdown typeset by ReportLab (:func:`reportlab_pdf`: another PDF
  producer, a document's look: bullets and numbers set as characters, Times body text spaced
  between paragraphs, page numbers at the foot), read the same way;
- ``pdf_plain``: the plain page's PDF as pypdf's plain ``extract_text()`` gives it, page after page
  (a PDF-to-text tool's reading: lines, no paragraphs or marks).

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals. Needs Chromium
and chromedriver (``apt-get install chromium chromium-driver``), selenium (the ``dev`` extra) and
reportlab (the ``bench`` extra);
the PDFs are kept in ``--pdf-dir`` (by the page's sha256), so a second run prints nothing.

    OMP_NUM_THREADS=1 python benchmarks/pdf_reader.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/pdf_reader

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead, read the same five ways (drops over bootstrapped questions):

    OMP_NUM_THREADS=1 python benchmarks/pdf_reader.py --answers /tmp/mtbench/model_answer --out results/pdf_reader_mtbench

Writes ``pdf_reader.json`` and ``pdf_reader.png`` under ``--out``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
from html import escape
from pathlib import Path

import numpy as np
from html_reader import (
    model_and_texts,
    readings_args,
    readings_result,
    score_readings,
    write_readings,
)
from robustness import timed_log

from whowrote.formats import markdown_parser
from whowrote.style.edits import (
    html_page,
    markdown_html_file,
    markdown_page,
    render_markdown,
)
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


def _reportlab_inline(tok) -> str:
    """An inline token's children as ReportLab paragraph markup."""
    out = []
    link = False
    for c in tok.children or []:
        t = c.type
        if t == "text":
            out.append(escape(c.content))
        elif t == "code_inline":
            out.append(f'<font face="Courier">{escape(c.content)}</font>')
        elif t in ("strong_open", "strong_close"):
            out.append("<b>" if t.endswith("open") else "</b>")
        elif t in ("em_open", "em_close"):
            out.append("<i>" if t.endswith("open") else "</i>")
        elif t == "link_open":  # (ReportLab resolves only absolute links)
            href = str(c.attrs.get("href", ""))
            link = href.startswith(("http://", "https://", "mailto:"))
            out.append(f'<a href="{escape(href)}">' if link else "")
        elif t == "link_close":
            out.append("</a>" if link else "")
        elif t == "softbreak":
            out.append(" ")
        elif t == "hardbreak":
            out.append("<br/>")
        elif t in ("html_inline",) or t == "image":
            out.append(escape(c.content))
    return "".join(out)


def reportlab_pdf(text: str) -> bytes:
    """The Markdown typeset by ReportLab's platypus as a plain document looks: its sample styles
    (Times body text spaced 6 pt, Helvetica headings), bullets and numbers set as characters, code
    in Courier, bordered tables, "Page N" centred at the foot of each page."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.platypus import (
        HRFlowable,
        ListFlowable,
        ListItem,
        Paragraph,
        Preformatted,
        SimpleDocTemplate,
        Table,
    )

    ss = getSampleStyleSheet()
    body = ss["BodyText"]
    quote = ParagraphStyle("quote", parent=body, leftIndent=24)
    tight = ParagraphStyle("tight", parent=body, spaceBefore=0)
    code = ParagraphStyle("code", parent=ss["Code"], fontSize=8.5, leading=10.5)
    heads = {1: ss["Heading1"], 2: ss["Heading2"], 3: ss["Heading3"], 4: ss["Heading4"], 5: ss["Heading5"], 6: ss["Heading6"]}
    tokens = markdown_parser().parse(text)

    def blocks(i: int, end_type: str | None, in_quote: bool = False) -> tuple[list, int]:
        out = []
        while i < len(tokens):
            tok = tokens[i]
            if end_type and tok.type == end_type:
                return out, i + 1
            if tok.type == "heading_open":
                out.append(Paragraph(_reportlab_inline(tokens[i + 1]), heads[int(tok.tag[1])]))
                i += 3
            elif tok.type == "paragraph_open":  # (a tight list's item paragraphs are hidden: no space before)
                style = quote if in_quote else tight if tok.hidden else body
                out.append(Paragraph(_reportlab_inline(tokens[i + 1]), style))
                i += 3
            elif tok.type in ("fence", "code_block"):
                out.append(Preformatted(tok.content.rstrip("\n"), code))
                i += 1
            elif tok.type == "hr":
                out.append(HRFlowable(width="100%"))
                i += 1
            elif tok.type == "blockquote_open":
                inner, i = blocks(i + 1, "blockquote_close", True)
                out.extend(inner)
            elif tok.type in ("bullet_list_open", "ordered_list_open"):
                ordered = tok.type == "ordered_list_open"
                close = tok.type.replace("open", "close")
                items = []
                i += 1
                while tokens[i].type == "list_item_open":
                    inner, i = blocks(i + 1, "list_item_close", in_quote)
                    items.append(ListItem(inner or [Paragraph("", body)]))
                start = int(tok.attrs.get("start", 1)) if ordered else None
                out.append(ListFlowable(items, bulletType="1" if ordered else "bullet", start=start if ordered else "•",
                                        leftIndent=18, bulletFontName="Helvetica", bulletFormat="%s." if ordered else None))
                assert tokens[i].type == close
                i += 1
            elif tok.type == "table_open":
                rows = []
                i += 1
                while tokens[i].type != "table_close":
                    if tokens[i].type == "tr_open":
                        row = []
                        i += 1
                        while tokens[i].type != "tr_close":
                            if tokens[i].type in ("th_open", "td_open"):
                                row.append(Paragraph(_reportlab_inline(tokens[i + 1]), body))
                                i += 3
                            else:
                                i += 1
                        rows.append(row)
                    i += 1
                out.append(Table(rows, style=[("GRID", (0, 0), (-1, -1), 0.5, (0.6, 0.6, 0.6))]))
                i += 1
            elif tok.type == "html_block":
                out.append(Paragraph(escape(tok.content), body))
                i += 1
            else:
                i += 1
        return out, i

    story, _ = blocks(0, None)

    def footer(canvas, doc) -> None:
        canvas.setFont("Helvetica", 8)
        canvas.drawCentredString(letter[0] / 2, 36, f"Page {doc.page}")

    buf = io.BytesIO()
    SimpleDocTemplate(buf, pagesize=letter).build(story, onFirstPage=footer, onLaterPages=footer)
    return buf.getvalue()


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
    ap = readings_args(__doc__.splitlines()[0])
    ap.add_argument("--pdf-dir", type=Path, default=Path("/tmp/whowrote-pdf"), help="where the printed PDFs are kept")
    args = ap.parse_args()
    log = timed_log()
    model, val, featurise = model_and_texts(ap, args, log)
    texts = val["text"].tolist()
    pdfs = print_pdfs([markdown_page(t) for t in texts], args.pdf_dir, log)
    styled = print_pdfs([styled_page(t) for t in texts], args.pdf_dir, log)
    log(f"{len(pdfs) + len(styled)} PDFs in {args.pdf_dir}")
    readings = {"raw": texts, "html_file": [markdown_html_file(t) for t in texts],
                "pdf_file": [pdf_markdown(p)[0] for p in pdfs], "pdf_styled": [pdf_markdown(p)[0] for p in styled],
                "pdf_reportlab": [pdf_markdown(reportlab_pdf(t))[0] for t in texts],
                "pdf_plain": [plain_text(p) for p in pdfs]}
    log("read " + ", ".join(readings))
    P = score_readings(model, readings, featurise)
    same = {k: float(np.mean([a == b for a, b in zip(readings["html_file"], t, strict=True)])) for k, t in readings.items()}
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""),
              **readings_result(model, val, P, args.seed), "same_as_html_file": same}
    write_readings(result, args.out, "pdf_reader", "A Markdown text's page printed to PDF by Chromium, read back", log)


if __name__ == "__main__":
    main()
