"""A web address given to ``whowrote predict`` (``https://...``): the page or document fetched once
with the standard library (``urllib``) and read as that kind of file is. An HTML page is then read
as the Markdown it shows by the input check (a chat window's page by its assistant turns), a PDF,
Word, EPUB or RTF document by its reader (:func:`whowrote.cli.decoding.read_document`), plain text
or Markdown as it is.

Bounded: at most :data:`~whowrote.cli.decoding.MAX_BYTES` of a page are read (a document must come
whole), and the whole fetch, redirects included, stops after :data:`TIMEOUT_S` seconds, however
slowly the server sends. Every failure (an HTTP error, no connection, a timeout) is the item's
one-line error. ``whowrote serve`` does not fetch addresses (a server that fetches what its users
name can be pointed at its own network).
"""

from __future__ import annotations

import time

from whowrote import __version__
from whowrote.cli.decoding import MAX_BYTES, Item, decode, read_document
from whowrote.formats import is_document

TIMEOUT_S = 30.0  # the whole fetch
CHUNK = 64 * 1024
_ACCEPT = "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5"


def _fetch(url: str) -> tuple[bytes, bool, str | None]:
    """The body's first :data:`MAX_BYTES` (whether there was more) and the charset the
    server named; raises on any failure (:func:`read_url` words it)."""
    from urllib.request import Request, urlopen  # (loaded only for an address: start-up time)

    start = time.monotonic()
    request = Request(url, headers={"User-Agent": f"whowrote/{__version__}", "Accept": _ACCEPT})
    with urlopen(request, timeout=TIMEOUT_S) as response:
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = response.read1(CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if time.monotonic() - start > TIMEOUT_S:
                raise TimeoutError(f"the server took over {TIMEOUT_S:.0f} s to send the page")
        body = b"".join(chunks)
        return body[:MAX_BYTES], len(body) > MAX_BYTES, response.headers.get_content_charset()


def read_url(url: str) -> Item:
    """The page or document at ``url`` as an item (module docstring)."""
    from urllib.error import HTTPError, URLError

    try:
        raw, more, charset = _fetch(url)
    except HTTPError as e:
        return Item(url, error=f"cannot fetch: the server answered {e.code} {e.reason}")
    except URLError as e:
        return Item(url, error=f"cannot fetch: {e.reason}")
    except (OSError, ValueError) as e:  # a timeout, a reset connection, a malformed address
        return Item(url, error=f"cannot fetch: {e}")
    if is_document(raw):
        if more:
            return Item(url, error=f"cannot fetch: a document over {MAX_BYTES >> 20} MB")
        return read_document(raw, url)
    if charset and charset.lower().replace("-", "") not in ("utf8", "usascii", "ascii"):
        try:
            item = Item(url, raw.decode(charset, errors="replace"))
        except LookupError:  # a charset Python does not know
            item = decode(raw, url)
    else:
        item = decode(raw, url)
    if more and item.error is None:
        item.warnings.append(f"the page is over {MAX_BYTES >> 20} MB: only its first {MAX_BYTES >> 20} MB were read")
    return item
