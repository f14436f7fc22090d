"""Saved emails read as their sender's text (issue 17, sessions 53 and 54): what sending a text by email costs the verdict.

A user who asks whether a cover letter or a cold email was written by an assistant gives
``whowrote predict`` the message (``.eml``). This fits the default recipe on the topic hold-out's
train part (as ``benchmarks/robustness.py`` does, sharing its feature cache), sends each val text as
a mail client would (written here with the standard library's ``email`` package) and scores the
val texts read back by ``predict``'s input check (``whowrote.style.email_reader``):

- ``raw``: the Markdown itself;
- ``html_mail``: a formatted mail (Gmail's ``multipart/alternative``: the rendered page as HTML,
  its visible text as the plain part), read from its HTML part;
- ``plain_part``: that mail's plain part alone (what a reader that ignores HTML gets);
- ``flowed_mail``: a plain-text mail as Thunderbird sends one, ``format=flowed`` at 72 columns
  (soft breaks marked by a trailing space, RFC 3676);
- ``wrapped_mail``: a plain-text mail hard-wrapped at 72 columns without ``format=flowed`` (older
  clients), read back through the joining of wrapped lines;
- ``outlook_msg`` (session 54): the formatted mail as Outlook saves it (``.msg``): the HTML only
  inside the compressed RTF body, the visible text as the plain body (written by
  ``whowrote.style.msg_writer``; no Outlook runs here), read as ``predict`` reads a ``.msg``.

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals.

    OMP_NUM_THREADS=1 python benchmarks/email_reader.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/email_reader

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead (drops over bootstrapped questions):

    OMP_NUM_THREADS=1 python benchmarks/email_reader.py --answers /tmp/mtbench/model_answer --out results/email_reader_mtbench

Writes ``email_reader.json`` and ``email_reader.png`` under ``--out``.
"""

from __future__ import annotations

import textwrap
from email.message import EmailMessage

from html_reader import (
    model_and_texts,
    readings_args,
    readings_result,
    score_readings,
    write_readings,
)
from robustness import timed_log

from whowrote.style.documents import document_to_markdown
from whowrote.style.edits import html_text, render_markdown
from whowrote.style.line_wrap import hard_wrap
from whowrote.style.msg_writer import outlook_message
from whowrote.style.textcheck import inspect_text


def _message() -> EmailMessage:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "Sam <sam@example.org>", "rivera@example.org", "Notes"
    m["Date"] = "Mon, 7 Dec 2026 10:00:00 +0000"
    return m


def flowed(text: str, width: int = 72) -> str:
    """``text`` as a ``format=flowed`` body: each line's trailing spaces removed (RFC 3676: they
    would mark a soft break), a longer line wrapped with a space ending each piece but the last,
    a line opening with a space, ``>`` or ``From `` space-stuffed."""
    out: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip(" ")
        pieces = textwrap.wrap(line, width=width, break_long_words=False, break_on_hyphens=False,
                               drop_whitespace=True, replace_whitespace=False) if len(line) > width else [line]
        for i, piece in enumerate(pieces):
            piece = " " + piece if piece.startswith((" ", ">", "From ")) else piece
            out.append(piece + (" " if i < len(pieces) - 1 else ""))
    return "\n".join(out)


def html_mail(text: str) -> str:
    body = render_markdown(text)
    m = _message()
    m.set_content(html_text(body))
    m.add_alternative(f"<div dir=\"ltr\">{body}</div>", subtype="html")
    return m.as_string()


def plain_part(text: str) -> str:
    m = _message()
    m.set_content(html_text(render_markdown(text)))
    return m.as_string()


def flowed_mail(text: str) -> str:
    m = _message()
    m.set_content(flowed(text), params={"format": "flowed"})
    return m.as_string()


def wrapped_mail(text: str) -> str:
    m = _message()
    m.set_content(hard_wrap(text, 72))
    return m.as_string()


def outlook_msg(text: str) -> str:
    """The formatted mail saved by Outlook and read back as ``predict`` reads a ``.msg``."""
    body = render_markdown(text)
    saved = outlook_message(html=f"<div dir=\"ltr\">{body}</div>", plain=html_text(body))
    return document_to_markdown(saved)[0]


def main() -> None:
    ap = readings_args(__doc__.splitlines()[0])
    args = ap.parse_args()
    log = timed_log()
    model, val, featurise = model_and_texts(ap, args, log)
    texts = val["text"].tolist()
    readings = {"raw": texts}
    for name, send in (("html_mail", html_mail), ("plain_part", plain_part), ("flowed_mail", flowed_mail),
                       ("wrapped_mail", wrapped_mail)):
        readings[name] = [inspect_text(send(t)).text for t in texts]
        log(f"sent and read {name}")
    readings["outlook_msg"] = [inspect_text(outlook_msg(t)).text for t in texts]
    log("saved and read outlook_msg")
    P = score_readings(model, readings, featurise)
    same = {k: sum(a == b for a, b in zip(texts, t, strict=True)) / len(texts) for k, t in readings.items()}
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""),
              **readings_result(model, val, P, args.seed), "same_as_raw": same}
    write_readings(result, args.out, "email_reader", "A Markdown text sent by email, read back", log)
    print("same as raw:", {k: round(v, 3) for k, v in same.items()})


if __name__ == "__main__":
    main()
