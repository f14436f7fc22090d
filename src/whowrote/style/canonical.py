"""The canonical form the classifier reads, and the ASCII-typography edit it builds on.

:func:`canonical` undoes the typography, case and layout edits of :mod:`whowrote.style.edits` exactly
(``canonical(to_ascii(t)) == canonical(smart_quotes(t)) == canonical(t.lower()) == canonical(crlf(t))``
up to the quote/dash spelling), so those edits cannot move the verdict; it also drops spaces at the
ends of lines and zero-width characters (:func:`whowrote.typography.plain_layout`), and joins the
lines of a text a tool wrapped at a fixed width (:func:`whowrote.style.line_wrap.unwrap`: the
``hard_wrap`` edit, undone exactly for most texts). It lives here, apart from the other
edits, because ``whowrote predict`` needs it on every text and nothing else of them: their
regexes are not compiled at its start-up. ``to_ascii`` itself lives in :mod:`whowrote.typography`
(the task's prompts use it too); ``whowrote.style.edits`` re-exports both functions.

Both are exact and cheap on the common inputs: an ASCII text with plain line ends is returned
lower-cased and otherwise as it is, and a non-ASCII one is replaced only for the typographic
characters it holds.
"""

from __future__ import annotations

from whowrote.style.line_wrap import unwrap
from whowrote.style.textcheck import utf8_parts
from whowrote.typography import plain_layout, to_ascii

__all__ = ["canonical", "to_ascii"]


def canonical(text: str) -> str:
    """The form the classifier reads: a tool's line wrapping undone, ASCII typography, lower case,
    plain layout (see the module docstring)."""
    # unwrapped first: a wrap's widths are the text's own characters' (an em dash is one, "--" two);
    # plain layout last: on the (mostly ASCII) lower-cased text its searches are several times faster
    return plain_layout(_lower(to_ascii(unwrap(text)[0])))


def _lower(text: str) -> str:
    if text.isascii():
        return text.lower()
    # str.lower() maps each character on its own, except that a capital sigma depends on its
    # neighbours. When no non-ASCII character changes (sigma would), only A-Z do: bytes.lower()
    # of the UTF-8 does that without the per-character Unicode lookups (3x faster on long texts).
    raw, rest = utf8_parts(text)
    if rest.lower() != rest:
        return text.lower()
    return raw.lower().decode("utf-8", "surrogatepass")
