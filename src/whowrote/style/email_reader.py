"""A saved email (``.eml``, or a message's source pasted) read as the text its sender wrote.

Cover letters, cold emails and students' messages are where people most often ask whether an
assistant wrote something, and a mail client saves or shows the raw message: headers, a
quoted-printable or base64 body, often two versions of it (``multipart/alternative``: HTML and plain
text), the reply's quoted history and a signature. :func:`read_email` parses it with the standard
library (``email``, ``policy.default``), takes the HTML body when there is one (its headings, lists
and emphasis read as Markdown by :func:`whowrote.style.html_reader.html_to_markdown`) and else the
plain one (``format=flowed`` soft line breaks joined, RFC 3676), and leaves out what the sender did
not write in this message: the quoted history at its end (``>`` lines and the "On ... wrote:" line
before them; a Gmail or Outlook reply's quoted block) and the signature after a ``-- `` line. A
forward with at most a short note above it ("FYI") is read as the forwarded message (below its
separator and header block), which is what a user asks about. Attachments are not read. :func:`looks_like_email` tells a message's source from prose by its
first lines (header names a message has, before the first blank line); both are linear.
"""

from __future__ import annotations

import re

from whowrote.style.html_reader import html_to_markdown

# header names only a message's source opens with (a prose text may open with "Note: ...")
_HEADERS = frozenset({"from", "to", "cc", "subject", "date", "message-id", "mime-version", "received",
                      "return-path", "delivered-to", "reply-to", "content-type", "x-mailer", "in-reply-to",
                      "references", "dkim-signature", "authentication-results", "arc-seal", "x-received"})
_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9-]{0,60}):[ \t]")  # (match() at a line's start: bounded)
MAX_HEAD_LINES = 80  # lines of headers looked at to tell a message (its continuation lines included)
_WROTE = (" wrote", " a écrit", " schrieb", " escribió", " ha scritto")  # "On <date>, <name> wrote:", "<name> wrote on <date>:"
_REPLY_SEPARATORS = ("-----Original Message-----", "________________________________", "-----Ursprüngliche Nachricht-----")
# a line of a client's header block over a quoted or forwarded message ("From: ..." then "Sent:" or
# "Date:"; bold in an HTML reply; Outlook writes it in the user's language, French with a space
# before the colon): its name, as the English one, lower-cased
_HEADER_NAMES = {"From": "from", "Date": "date", "Sent": "sent", "Subject": "subject", "To": "to", "Cc": "cc",
                 "CC": "cc", "Reply-To": "reply-to",
                 "De": "from", "Envoyé": "sent", "À": "to", "Objet": "subject",  # French (and Spanish, Portuguese "De")
                 "Von": "from", "Gesendet": "sent", "Datum": "date", "An": "to", "Betreff": "subject",  # German (Dutch "Datum")
                 "Enviado": "sent", "Fecha": "date", "Para": "to", "Asunto": "subject", "Assunto": "subject",  # Spanish, Portuguese
                 "Da": "from", "Inviato": "sent", "Data": "date", "Oggetto": "subject",  # Italian
                 "Van": "from", "Verzonden": "sent", "Aan": "to", "Onderwerp": "subject"}  # Dutch
_QUOTED_HEADER = re.compile(r"(?:\*\*)?(" + "|".join(sorted(map(re.escape, _HEADER_NAMES), key=len, reverse=True))
                            + r")[ \u00a0]?:(?:\*\*)? ")
# a forward's separator (Gmail, Thunderbird, Apple Mail), once its dashes are stripped and lower-cased
_FORWARD_SEPARATORS = frozenset({"forwarded message", "begin forwarded message:"})
# what was read, for the warning (the Outlook reader's too)
MARKDOWN_READ = "with its headings, lists and emphasis read as Markdown"
HTML_BODY = f"its HTML body was attributed, {MARKDOWN_READ}"
TEXT_BODY = "its text body was attributed"
FORWARD_NOTE_WORDS = 20  # a note above a forward ("FYI, see below"): the forwarded text is what is asked about


def _envelope_dropped(text: str) -> str:
    """``text`` without the mbox envelope line it may open with ("From sam@example.org Mon Dec 7 ...":
    a message copied out of a mailbox file, or a one-message mbox)."""
    return text.partition("\n")[2] if text.startswith("From ") else text


def looks_like_email(text: str) -> bool:
    """Whether ``text`` opens with a message's headers (after an mbox envelope line): its first line
    is a header, and at least two of the known header names (``From``, ``Subject``, ``Date`` ...)
    come before the first blank line."""
    text = _envelope_dropped(text[:16000])  # (only the opening lines are looked at)
    first = _HEADER.match(text)
    if first is None:
        return False
    known = 0
    for line in text[:8000].split("\n", MAX_HEAD_LINES)[:MAX_HEAD_LINES]:
        if not line.strip():
            break
        header = _HEADER.match(line)
        if header is not None and header.group(1).lower() in _HEADERS:
            known += 1
            if known >= 2:
                return True
        elif header is None and not line.startswith((" ", "\t")):
            return False  # (a line that is neither a header nor a header's continuation: prose)
    return False


def _flowed(text: str, delsp: bool) -> str:
    """A ``format=flowed`` body's paragraphs: a line ending in a space goes on in the next (RFC 3676;
    ``delsp=yes``: that space is dropped); space-stuffing undone; ``-- `` stays a signature line."""
    out: list[list[str]] = []  # (each paragraph's lines, joined once: linear on a long paragraph)
    going_on = False
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.startswith(" "):
            line = line[1:]  # (space-stuffed)
        soft = line.endswith(" ") and line != "-- "
        if soft and delsp:
            line = line[:-1]
        if going_on:
            out[-1].append(line)
        else:
            out.append([line])
        going_on = soft
    return "\n".join("".join(lines) for lines in out)


def _quoted_header(line: str) -> str:
    """The lower-cased name of a client's quoted header line ("from", "sent" ...), else ""."""
    found = _QUOTED_HEADER.match(line)
    return _HEADER_NAMES[found.group(1)] if found else ""


def _is_forward_separator(line: str) -> bool:
    return line.strip().strip("-").strip().lower() in _FORWARD_SEPARATORS


def _forwarded(text: str) -> tuple[str, list[str]] | None:
    """A forward's text, when the sender wrote at most a short note above it ("FYI"): the forwarded
    message below its separator and header block, read as :func:`_own_text` reads a message; None
    when the message forwards nothing or the sender wrote more than :data:`FORWARD_NOTE_WORDS` words
    (their text is then read, the forwarded message left out by :func:`_own_text`)."""
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines) if _is_forward_separator(line)), None)
    if at is None or len(_own_text("\n".join(lines[:at]))[0].split()) > FORWARD_NOTE_WORDS:
        return None
    below = lines[at + 1:]
    start = 0
    while start < len(below) and (not below[start].strip() or _quoted_header(below[start])):
        start += 1
    forwarded, dropped = _own_text("\n".join(below[start:]))
    return forwarded, ["the forwarding note and headers above the forwarded message", *dropped]


def _own_text(text: str) -> tuple[str, list[str]]:
    """The sender's own text: the quoted history at the end (``>`` lines, the attribution line
    before them, a client's "Original Message" separator and all after it) and a signature (after a
    ``-- `` line) left out; and what was left out, in words."""
    lines = text.split("\n")
    dropped: list[str] = []
    cut = next((i for i, line in enumerate(lines) if line.strip() in _REPLY_SEPARATORS or _is_forward_separator(line)
                or (_quoted_header(line) == "from" and any(_quoted_header(n) in ("sent", "date") for n in lines[i + 1:i + 4]))),
               None)
    if cut is not None:
        while cut and lines[cut - 1].strip() in ("", "---"):  # (the rule an HTML reply draws above it)
            cut -= 1
        lines = lines[:cut]
        dropped.append("the quoted message below it")
    end = len(lines)
    while end and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith(">")):
        end -= 1
    if end < len(lines) and any(line.lstrip().startswith(">") for line in lines[end:]):
        attribution = lines[end - 1].strip() if end else ""
        if len(attribution) <= 300 and attribution.endswith(":") and any(w in attribution for w in _WROTE):
            end -= 1
        lines = lines[:end]
        if "the quoted message below it" not in dropped:
            dropped.append("the quoted reply")
    signature = next((i for i, line in enumerate(lines) if line.rstrip("\r") in ("-- ", "--")), None)
    if signature is not None and signature > 0:
        lines = lines[:signature]
        dropped.append("the signature")
    return "\n".join(lines).strip(), dropped


def read_email(source: str) -> tuple[str, str]:
    """``(text, note)``: the message's body as its sender wrote it (module docstring) and what was
    read, in words, for a warning; ``("", note)`` when the message has no text body."""
    from email import policy  # (the standard library's parser loads only for a message)
    from email.parser import Parser

    mailbox = ""
    if source.startswith("From "):  # an mbox: its first message (a .mbox file is read a message at a time)
        source = _envelope_dropped(source).replace("\r\n", "\n")
        nxt = source.find("\n\nFrom ")
        if nxt >= 0 and looks_like_email(source[nxt + 2:nxt + 8002]):
            source, mailbox = source[:nxt + 1], "a mailbox (mbox): only its first message was read (name the file .mbox to read each); "
    try:
        message = Parser(policy=policy.default).parsestr(source)
        body = message.get_body(preferencelist=("html", "plain"))
    except RecursionError:  # (parts nested thousands deep: the standard library walks them recursively)
        return "", "an email whose parts are nested too deeply to read"
    if body is None:
        return "", "an email with no text body"
    try:
        content = body.get_content()
    except (LookupError, ValueError, AssertionError) as e:  # an unknown charset, a broken encoding
        return "", f"an email whose body cannot be decoded ({e})"
    if body.get_content_subtype() == "html":
        text, part = html_to_markdown(content), HTML_BODY
    else:
        params = body.get_params() or []
        flowed = any(k.lower() == "format" and str(v).lower() == "flowed" for k, v in params)
        delsp = any(k.lower() == "delsp" and str(v).lower() == "yes" for k, v in params)
        text, part = (_flowed(content, delsp) if flowed else content.replace("\r\n", "\n")), TEXT_BODY
    text, part, left_out = sender_text(text, part)
    return text, f"{mailbox}an email: {part} (not its headers{' or attachments' if message.is_multipart() else ''}){left_out}"


def sender_text(body: str, part: str) -> tuple[str, str, str]:
    """A message body's own text (a forward under a short note: the forwarded message; else the body
    without its quoted history and signature), ``part`` ("its HTML body was attributed ...") said of
    the forwarded message when it is one, and what was left out, in words ("; ... left out" or "").
    Shared by :func:`read_email` and :mod:`whowrote.style.msg_reader`."""
    forward = _forwarded(body)
    text, dropped = forward if forward is not None else _own_text(body)
    if forward is not None:
        part = part.replace("its ", "the forwarded message's ", 1)
    return text, part, f"; {' and '.join(dropped)} left out" if dropped else ""
