"""Sanity checks on one input text before attribution: empty, HTML, huge, non-English, binary, a
document format's source (a PDF's; an RTF document's is read), a Markdown file's YAML frontmatter,
a saved email, lines a tool wrapped.

Never raises: a text that cannot be attributed gets an explicit warning and is forced to
``uncertain``; HTML is read as the Markdown it displays (:mod:`whowrote.style.html_reader`: the
features describe Markdown and plain prose).

Every step is linear in the text, the HTML reading included (see its module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from whowrote.formats import is_rtf, not_text
from whowrote.style.email_reader import looks_like_email, read_email
from whowrote.style.html_reader import html_to_markdown
from whowrote.style.line_wrap import unwrap
from whowrote.style.transcript import Conversation, assistant_turns, json_chat_log
from whowrote.typography import frontmatter_end  # (re-exported: where the input check reads it)

# [^<>]* (not [^>]*): a '<' ends the attempt, so a run of unclosed "<p <p ..." stays linear. Not <br>
# (Markdown tables break their cells' lines with it) and not a tag in backticks (`<div>` in prose).
_HTML_TAG = re.compile(r"(?<!`)<(?:p|div|span|html|body|head|h[1-6]|li|ul|ol|a|table|td|tr|script|style)\b[^<>]*>",
                       re.I)
_CLOSING_TAG = re.compile(r"</(?:p|div|span|html|body|h[1-6]|li|ul|ol|a|table|td|tr)>", re.I)
_FRAGMENT_START = re.compile(r"<(?:p|div|h[1-6]|ul|ol|table|article|section|blockquote|pre)\b[^<>]*>", re.I)
MAX_CHARS = 2_000_000  # ~300k words: far beyond any single answer; the rest is ignored
_COMMON = frozenset(b"the a an of and to in is it that for with as on be are this not or but you".split())
# [A-Za-z']+ words, lower-cased, as bytes: every other byte (non-ASCII too) becomes a space.
_WORD_TABLE = bytes((c | 32) if (65 <= c <= 90 or 97 <= c <= 122) else (39 if c == 39 else 32) for c in range(256))
_LETTERS = bytes(c for c in range(256) if _WORD_TABLE[c] != 32)  # what _WORD_TABLE keeps: letters and "'"
ASCII_WS = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"  # Python's whitespace (str.split, str.strip), ASCII part
# The rest of Python's whitespace.
UNICODE_WS = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_ASCII = bytes(range(128))
# Whitespace -> ' ', every other byte -> 'x': words are the runs of 'x'.
_SPLIT_TABLE = bytes(32 if c in ASCII_WS else 120 for c in range(256))


def utf8_parts(text: str) -> tuple[bytes, str]:
    """``(UTF-8 bytes, non-ASCII characters in order)`` of ``text`` (surrogatepass): the byte-level
    counts read the bytes, the checks that need Unicode look only at the (few) non-ASCII characters."""
    raw = text.encode("utf-8", "surrogatepass")
    return raw, (raw.translate(None, _ASCII).decode("utf-8", "surrogatepass") if len(raw) != len(text) else "")


def looks_like_html(text: str) -> bool:
    """A page (``<!doctype``, ``<html``), five or more common tags with a closing one, or a fragment
    that opens with a block tag and ends with a tag (a rendered answer of one or two paragraphs); not
    Markdown whose tags come after a code fence (an answer that shows HTML code)."""
    head = text[:20000].lstrip()
    if head[:15].lower().startswith(("<!doctype", "<html")):
        return True
    first = _HTML_TAG.search(head)
    if first is None:
        return False
    fence = head.find("```", 0, first.start())
    if fence >= 0:
        return False
    if len(_HTML_TAG.findall(head, first.start())) >= 5 and _CLOSING_TAG.search(head) is not None:
        return True  # (a closing tag: prose that names tags, "such as <html>, <head>", has none)
    return _FRAGMENT_START.match(head) is not None and text[-200:].rstrip().endswith(">")


@dataclass
class TextCheck:
    text: str
    n_words: int
    warnings: list[str] = field(default_factory=list)
    force_uncertain: bool = False
    skip: bool = False  # nothing to attribute: the result is uniform probabilities, uncertain
    raw: bytes = b""  # text as UTF-8 (surrogatepass), when it was encoded here
    nonascii: str = ""  # its non-ASCII characters, in order


def _words(raw: bytes) -> tuple[int, int, int, float]:
    """(number of [A-Za-z']+ words, how many are common English words, their letters, the share of
    distinct words among every :data:`REPEAT_STRIDE`-th of the first :data:`REPEAT_WORDS`) of UTF-8
    bytes."""
    words = raw.translate(_WORD_TABLE).split()
    sample = words[:REPEAT_WORDS:REPEAT_STRIDE] if len(words) >= REPEAT_MIN_WORDS else ()
    return (len(words), sum(map(_COMMON.__contains__, words)), len(raw) - len(raw.translate(None, _LETTERS)),
            len(set(sample)) / len(sample) if sample else 1.0)


def _non_space(n_chars: int, raw: bytes, nonascii: str) -> int:
    """``len("".join(sample.split()))`` of the sample with ``n_chars`` characters, UTF-8 ``raw``
    and non-ASCII characters ``nonascii``: ASCII spaces are counted in the bytes (one byte each),
    the Unicode ones among the non-ASCII characters."""
    spaces = len(raw) - len(raw.translate(None, ASCII_WS))
    if nonascii:
        spaces += len(UNICODE_WS.findall(nonascii))
    return n_chars - spaces


COUNT_BY_NUMPY = 1024  # bytes: above this, bytes.count(b" x") (a match every few bytes) is the slower


def count_words(text: str, parts: tuple[bytes, str] | None = None) -> int:
    """``len(text.split())`` without a str object per word: runs of non-space bytes. Only the
    non-ASCII characters (few) are searched for Unicode spaces, which need ``str.split``.
    ``parts``: :func:`utf8_parts` of ``text``, if already made."""
    raw, nonascii = parts or utf8_parts(text)
    if nonascii and UNICODE_WS.search(nonascii):
        return len(text.split())
    buf = raw.translate(_SPLIT_TABLE)
    if len(buf) > COUNT_BY_NUMPY:  # word starts are the ' ' -> 'x' steps: one vectorised pass
        a = np.frombuffer(buf, np.uint8)
        return int(np.count_nonzero(a[1:] > a[:-1])) + buf.startswith(b"x")
    return buf.count(b" x") + buf.startswith(b"x")


SAMPLE = 4000  # characters: enough to tell English prose; keeps this check cheap on long texts
# A text is a loop ("the the the ...", a phrase repeated by a model stuck in a cycle) or a word grid
# (music notation), on which a style verdict means nothing, when among every 5th of its first 250
# words (50 words, from the ones the English check splits anyway) under a quarter are distinct; prose
# has ~80 %. In the corpus 5 of 11,127 texts with 100+ words in their first 4,000 characters are (two
# phi-2 loops, another model's loop, two ABC notations).
REPEAT_WORDS = 250
REPEAT_STRIDE = 5
REPEAT_MIN_WORDS = 100
REPEAT_DISTINCT = 0.25


def _read_turns(conversation: Conversation) -> str:
    if conversation.records > 1:
        return (f"a data export of {conversation.records} conversations, read as one text: the assistant's "
                f"{conversation.assistant_turns} turn(s), not the user's {conversation.user_turns} (give the file "
                "to `whowrote predict` for one result per conversation)")
    return (f"looks like a pasted conversation{' (a JSON chat log)' if conversation.json_log else ''}: "
            f"only the assistant's {conversation.assistant_turns} turn(s) were attributed, not the user's "
            f"{conversation.user_turns}" + (f"; the transcript itself labels the assistant {conversation.named} "
                                            "(the verdict reads the writing only)" if conversation.named else ""))


def inspect_text(text: str) -> TextCheck:
    warnings: list[str] = []
    force = False
    if text.find("\x00", 0, 10000) >= 0:  # (find with bounds: no copy of the head)
        return TextCheck("", 0, ["binary data, not text: no attribution"], True, True)
    if is_rtf(text[:64].encode("utf-8", "surrogatepass")):  # an RTF document's source pasted or posted: read as a .rtf file is
        from whowrote.style.rtf_reader import rtf_markdown  # (here: predict's start-up loads no RTF reader)

        text = rtf_markdown(text)  # (its Markdown is then held to MAX_CHARS like any text)
        warnings.append("input is an RTF document's source: its text was attributed, with its headings, lists, "
                        "emphasis, tables, code and links read as Markdown")
    reason = not_text(text[:64].encode("utf-8", "surrogatepass"))  # e.g. a PDF's source pasted
    if reason:
        return TextCheck("", 0, [f"{reason}: no attribution"], True, True)
    if len(text) > MAX_CHARS:
        warnings.append(f"very long text ({len(text):,} characters): only the first {MAX_CHARS:,} are used")
        text = text[:MAX_CHARS]
    body = frontmatter_end(text)
    if body:
        lines = text[:body].rstrip("\r\n").count("\n") + 1
        warnings.append(f"YAML frontmatter ({lines} lines) not attributed: metadata, not the writing")
        text = text[body:]
    if text[:1].isalpha() and looks_like_email(text):  # a message's source: its body, as the sender wrote it
        text, note = read_email(text)
        warnings.append(note)
    log = json_chat_log(text)  # before the HTML check: a turn may hold HTML, the JSON around it is not a page
    if log is not None:
        text = log.text
        warnings.append(_read_turns(log))
    if text.find("<", 0, 20000) >= 0 and looks_like_html(text):
        text = html_to_markdown(text)
        warnings.append("input looks like HTML: its visible text was attributed, with its headings, lists, "
                        "emphasis, tables, code and links read as Markdown")
    conversation = assistant_turns(text)  # (an ordinary text: its first line is read, nothing more)
    if conversation is not None:
        text = conversation.text
        warnings.append(_read_turns(conversation))
    joined, width = unwrap(text)  # (the model's canonical form joins them too; here the user is told)
    if width is not None:
        text = joined
        warnings.append(f"its lines look wrapped at about {width} columns (by a mail client, an editor or a "
                        "converter): read with the wrapped lines joined")
    if not text or text.isspace():  # = not text.strip(), without the copy
        return TextCheck(text, 0, [*warnings, "empty text: no attribution"], True, True)
    raw, nonascii = utf8_parts(text)
    n_words = count_words(text, (raw, nonascii))
    if len(text) <= SAMPLE:
        sample, sample_raw, sample_na = text, raw, nonascii
    else:
        sample = text[:SAMPLE]
        sample_raw, sample_na = utf8_parts(sample)
    n, n_common, n_letters, distinct = _words(sample_raw)
    if not n:
        n, n_common, n_letters, distinct = _words(raw)
    if not n:
        return TextCheck(text, n_words, [*warnings, "no English words found: no attribution"], True, True, raw, nonascii)
    common = n_common / n
    letters = n_letters / max(_non_space(len(sample), sample_raw, sample_na), 1)
    if n_words >= 20 and (common < 0.08 or letters < 0.5):
        warnings.append("this does not look like English prose; the model was trained on English only")
        force = True
    elif distinct < REPEAT_DISTINCT:
        warnings.append(f"the text repeats itself (only {distinct:.0%} of every {REPEAT_STRIDE}th of its first "
                        f"{min(n, REPEAT_WORDS)} words are distinct: a loop or a grid, not prose); no reliable verdict")
        force = True
    return TextCheck(text, n_words, warnings, force, False, raw, nonascii)
