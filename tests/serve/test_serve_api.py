"""In-process tests of the JSON API: every endpoint, every bad input, limits, OpenAPI agreement."""

from __future__ import annotations

import json
import logging
import time

import pytest
from serve_fakes import FakeModel

from whowrote.serve.app import DOCX_TYPE

TEXT = (
    "# A heading\n\nThis is **bold** — and perhaps it is very clear. "
    "It might be, arguably, a truly deeply hedged sentence — with dashes.\n"
) * 20


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "model_version": "fake-0.1"}


def test_model_card(client):
    card = client.get("/v1/model").json()
    assert card["name"] == "fake-style"
    assert card["version"] == "fake-0.1"
    assert card["classes"] == ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"]
    assert "training_data" in card and "metrics" in card


def test_predict_one_equals_model(client, fake_model):
    r = client.post("/v1/predict", json={"text": TEXT})
    assert r.status_code == 200
    body = r.json()
    assert body == fake_model.attribute([TEXT])[0].to_dict()
    assert body["provider"] in body["probabilities"]
    assert abs(sum(body["probabilities"].values()) - 1) < 1e-9
    assert "highlights" not in body


def test_predict_batch_in_order(client, fake_model, blog_texts):
    texts = [TEXT, *blog_texts[:2]]
    r = client.post("/v1/predict", json={"texts": texts})
    assert r.status_code == 200
    results = r.json()["results"]
    assert results == [a.to_dict() for a in fake_model.attribute(texts)]
    assert [x["n_words"] for x in results] == [len(t.split()) for t in texts]


def test_n_tells(client, fake_model):
    body = client.post("/v1/predict", json={"text": TEXT, "n_tells": 2}).json()
    assert body == fake_model.attribute([TEXT], n_tells=2)[0].to_dict() and len(body["tells"]) == 2


CHAT_LOG = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Why is the sky blue? Answer in one line!"},
    {"role": "assistant", "content": TEXT},
    {"role": "user", "content": "And at sunset?"},
    {"role": "assistant", "content": [{"type": "text", "text": "At sunset — the light crosses more air."}]},
]


@pytest.mark.parametrize("log", [
    CHAT_LOG,
    [{"from": "human", "value": "Why is the sky blue? Answer in one line!"}, {"from": "gpt", "value": TEXT},
     {"from": "human", "value": "And at sunset?"}, {"from": "gpt", "value": "At sunset — the light crosses more air."}],
], ids=["openai", "sharegpt"])
def test_messages_attribute_the_assistant_turns_with_a_warning(client, fake_model, log):
    """A chat log is read as `whowrote predict` reads a `messages` row: the assistant's turns joined
    by a blank line, never the user's, and a warning put before the model's own."""
    body = client.post("/v1/predict", json={"messages": log, "n_tells": 2}).json()
    assistant_side = TEXT.strip() + "\n\nAt sunset — the light crosses more air."
    expected = fake_model.attribute([assistant_side], n_tells=2)[0].to_dict()
    assert body["warnings"][0] == ("a conversation record ('messages'): only the assistant's 2 turn(s) "
                                   "were attributed, not the user's 2")
    assert body["warnings"][1:] == expected["warnings"]
    assert {k: v for k, v in body.items() if k != "warnings"} == {k: v for k, v in expected.items() if k != "warnings"}
    assert body["n_words"] == len(assistant_side.split())  # the user's words are not counted


def test_short_text_warning(client):
    body = client.post("/v1/predict", json={"text": "Just a few words here."}).json()
    assert body["n_words"] == 5 and body["warnings"]


def test_highlights_spans(client):
    text = "😀 emoji first — then **bold** and perhaps a hedge.\n# Heading\n" * 30
    body = client.post("/v1/predict", json={"text": text, "highlight": True}).json()
    spans = body["highlights"]
    features = {t["feature"] for t in body["tells"]}
    assert spans and {s["feature"] for s in spans} <= features
    last = 0
    for s in spans:  # sorted, non-overlapping, in range
        assert last <= s["start"] < s["end"] <= len(text)
        last = s["end"]
    marked = {s["feature"]: text[s["start"]:s["end"]] for s in spans}
    assert marked["punc_emdash"] == "—"  # code-point offsets survive the emoji before it
    assert marked["md_bold"] == "**"
    assert marked["md_h1"] == "# Heading"


def test_highlights_of_a_pasted_conversation_stay_in_the_assistants_turns(client):
    # the user's turn has the same tells (em-dashes, bold, a heading): none of it is marked
    turn = "😀 emoji first — then **bold** and perhaps a hedge.\n# Heading\n" * 15
    text = f"User: {turn}\n\nAssistant: {turn}"
    body = client.post("/v1/predict", json={"text": text, "highlight": True}).json()
    start = text.index("Assistant: ") + len("Assistant: ")
    assert body["highlights"] and all(s["start"] >= start for s in body["highlights"])
    whole = client.post("/v1/predict", json={"text": turn * 2, "highlight": True}).json()
    assert any(s["start"] < len(turn) for s in whole["highlights"])  # (an ordinary text: marked throughout)


BAD_INPUTS = [
    ("malformed json", b'{"text": "abc"', "application/json", 400),
    ("binary body", b"\xff\xfe\x00\x81\x00garbage\x00", "application/json", 400),
    ("not json content type", b"text=abc", "application/x-www-form-urlencoded", 415),
    ("no content type", b'{"text": "abc"}', None, 415),
    ("text is a number", b'{"text": 123}', "application/json", 422),
    ("text is null", b'{"text": null}', "application/json", 422),
    ("texts not a list", b'{"texts": "abc"}', "application/json", 422),
    ("texts holds a number", b'{"texts": ["a b c", 5]}', "application/json", 422),
    ("texts empty", b'{"texts": []}', "application/json", 422),
    ("too many texts", json.dumps({"texts": ["word"] * 65}).encode(), "application/json", 422),
    ("both text and texts", b'{"text": "a", "texts": ["b"]}', "application/json", 422),
    ("neither", b"{}", "application/json", 422),
    ("unknown key", b'{"text": "a b", "model_path": "/etc/passwd"}', "application/json", 422),
    ("top-level array", b'["a"]', "application/json", 422),
    ("empty text", b'{"text": ""}', "application/json", 422),
    ("whitespace text", b'{"text": "  \\n\\t "}', "application/json", 422),
    ("empty text in batch", b'{"texts": ["fine words", " "]}', "application/json", 422),
    ("NUL in text", b'{"text": "SECRET-MARKER \\u0000\\u0000 rest"}', "application/json", 422),
    ("control chars", json.dumps({"text": "ab\x01\x02\x03\x04cd"}).encode(), "application/json", 422),
    ("lone surrogate", b'{"text": "abc \\ud800 def"}', "application/json", 422),
    ("n_tells too big", b'{"text": "a b", "n_tells": 99}', "application/json", 422),
    ("n_tells a string", b'{"text": "a b", "n_tells": "3"}', "application/json", 422),
    ("highlight not bool", b'{"text": "a b", "highlight": "yes"}', "application/json", 422),
    ("text and messages", b'{"text": "a b", "messages": [{"role": "assistant", "content": "c d"}]}',
     "application/json", 422),
    ("messages empty", b'{"messages": []}', "application/json", 422),
    ("messages not turns", b'{"messages": [{"role": "user"}]}', "application/json", 422),
    ("messages of strings", b'{"messages": ["SECRET-MARKER"]}', "application/json", 422),
    ("messages without an assistant turn", b'{"messages": [{"role": "user", "content": "SECRET-MARKER"}]}',
     "application/json", 422),
    ("among an unknown label", b'{"text": "a b", "among": ["CLAUDE", "MISTRAL"]}', "application/json", 422),
    ("among one label", b'{"text": "a b", "among": ["CLAUDE"]}', "application/json", 422),
    ("messages with highlight", b'{"messages": [{"role": "assistant", "content": "c d"}], "highlight": true}',
     "application/json", 422),
]


@pytest.mark.parametrize(("name", "body", "ctype", "status"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_one_line_error_and_keeps_serving(client, name, body, ctype, status):
    headers = {"Content-Type": ctype} if ctype else {}
    r = client.post("/v1/predict", content=body, headers=headers)
    assert r.status_code == status, r.text
    assert list(r.json()) == ["error"] and r.json()["error"]
    assert "\n" not in r.text
    assert "SECRET-MARKER" not in r.text  # errors never echo the text
    assert client.post("/v1/predict", json={"text": TEXT}).status_code == 200


def test_body_limit_declared_and_streamed(client):
    big = json.dumps({"text": "word " * 50_000}).encode()  # > 200 kB limit of the fixture app
    r = client.post("/v1/predict", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["error"]

    def chunks():  # no Content-Length: the limit must hold on the streamed bytes too
        for i in range(0, len(big), 16_384):
            yield big[i:i + 16_384]

    r = client.post("/v1/predict", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert client.get("/healthz").status_code == 200


def test_default_body_limit_is_2mb(fake_model):
    from fastapi.testclient import TestClient

    from whowrote.serve import create_app

    with TestClient(create_app(fake_model)) as c:
        ok = {"text": "word " * 300_000}  # 1.5 MB
        assert c.post("/v1/predict", json=ok).status_code == 200
        r = c.post("/v1/predict", json={"text": "word " * 500_000})  # 2.5 MB
        assert r.status_code == 413


def test_timeout_gives_504_and_keeps_serving():
    from fastapi.testclient import TestClient

    from whowrote.serve import create_app

    with TestClient(create_app(FakeModel(delay=1.5), timeout_s=0.2)) as c:
        t0 = time.monotonic()
        r = c.post("/v1/predict", json={"text": TEXT})
        assert r.status_code == 504 and "longer than" in r.json()["error"]
        assert time.monotonic() - t0 < 1.2  # answered at the timeout, not when the model finished
        assert c.get("/healthz").status_code == 200


def test_model_errors_are_422_and_internal_errors_500(fake_model, monkeypatch):
    from fastapi.testclient import TestClient

    from whowrote.serve import create_app
    from whowrote.types import WhowroteError

    def refuse(texts):
        raise WhowroteError("text is not attributable")

    monkeypatch.setattr(fake_model, "attribute", refuse)  # in the server process: patched methods cannot be pickled
    with TestClient(create_app(fake_model, workers=0), raise_server_exceptions=False) as c:
        r = c.post("/v1/predict", json={"text": TEXT})
        assert r.status_code == 422 and r.json() == {"error": "text is not attributable"}
        monkeypatch.setattr(fake_model, "attribute", lambda texts: 1 / 0)
        r = c.post("/v1/predict", json={"text": TEXT})
        assert r.status_code == 500 and r.json() == {"error": "internal error (ZeroDivisionError)"}
        assert c.get("/healthz").status_code == 200


def test_unknown_route_and_method_are_json_errors(client):
    r = client.get("/v1/nothing")
    assert r.status_code == 404 and list(r.json()) == ["error"]
    r = client.get("/v1/predict")
    assert r.status_code == 405 and list(r.json()) == ["error"]
    assert client.get("/static/../pyproject.toml").status_code == 404


def test_texts_not_logged_nor_written(client, caplog, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    marker = "ZQXJ-UNIQUE-MARKER"
    assert client.post("/v1/predict", json={"text": f"{marker} {TEXT}"}).status_code == 200
    assert client.post("/v1/predict", json={"text": f"{marker}\x00"}).status_code == 422
    assert marker not in caplog.text
    assert list(tmp_path.iterdir()) == []


def test_page_and_assets_are_local_and_safe(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    html = r.text
    assert "/static/app.js" in html and "/static/app.css" in html
    for asset in ("app.js", "app.css", "favicon.svg"):
        a = client.get(f"/static/{asset}")
        assert a.status_code == 200, asset
        html += a.text
    assert "//cdn" not in html and "https://" not in html and "http://" not in html.replace("http://www.w3.org", "")
    js = client.get("/static/app.js").text
    assert "innerHTML" not in js and "outerHTML" not in js and "eval(" not in js


def test_read_html_gives_the_markdown_the_model_reads(client):
    """The page pastes the clipboard's HTML through /v1/read-html: a fragment with too few tags to be
    sniffed as HTML is still read as HTML here, and the answer is what /v1/predict would attribute."""
    html = "<meta charset='utf-8'><h2>Plan</h2><ul><li><b>First</b> step</li><li>Second &amp; last</li></ul>"
    r = client.post("/v1/read-html", json={"html": html})
    assert r.status_code == 200 and r.json() == {"text": "## Plan\n\n- **First** step\n- Second & last"}
    for body in ({"html": ""}, {"html": "a\x00b"}, {"html": 5}, {"text": "<p>x</p>"}, {"html": "<p>x</p>", "more": 1}):
        bad = client.post("/v1/read-html", json=body)
        assert bad.status_code == 422 and list(bad.json()) == ["error"]
    big = json.dumps({"html": "<p>word</p>" * 30_000}).encode()  # over the fixture app's 200 kB body limit
    assert client.post("/v1/read-html", content=big, headers={"Content-Type": "application/json"}).status_code == 413


def test_read_document_gives_the_markdown_predict_reads(client):
    """The page sends a dropped .docx or .odt through /v1/read-document: the answer is what `whowrote predict`
    reads for that file; anything else is one 422 line, and the body limit holds."""
    from whowrote.style.docx_reader import docx_to_markdown
    from whowrote.style.docx_writer import markdown_docx

    raw = markdown_docx("## Plan\n\n- **First** step\n- Second & last\n\nA closing line.")
    r = client.post("/v1/read-document", content=raw, headers={"Content-Type": DOCX_TYPE})
    assert r.status_code == 200 and r.json() == {"text": docx_to_markdown(raw)}
    assert r.json()["text"] == "## Plan\n\n- **First** step\n- Second & last\n\nA closing line."
    for body in (b"", b"plain text", b"PK\x03\x04broken", raw.replace(b"word/document.xml", b"word/elsewhere.xm")):
        bad = client.post("/v1/read-document", content=body, headers={"Content-Type": DOCX_TYPE})
        assert bad.status_code == 422 and list(bad.json()) == ["error"] and "\n" not in bad.json()["error"]
    empty = markdown_docx("")
    assert client.post("/v1/read-document", content=empty, headers={"Content-Type": DOCX_TYPE}).status_code == 422
    big = raw + b"\0" * 250_000  # over the fixture app's 200 kB body limit
    assert client.post("/v1/read-document", content=big, headers={"Content-Type": DOCX_TYPE}).status_code == 413
    from pathlib import (
        Path,  # an OpenDocument text (pandoc's, tests/fixtures/documents) reads as predict reads it
    )

    odt = (Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "pandoc-3.9.odt").read_bytes()
    r = client.post("/v1/read-document", content=odt, headers={"Content-Type": "application/vnd.oasis.opendocument.text"})
    assert r.status_code == 200 and r.json()["text"].startswith("# A title\n\nIntro with **bold**")


def test_read_document_reads_a_pdf_as_predict_does(client):
    """A dropped .pdf (Chromium's print of a Markdown page, tests/fixtures/documents) reads as
    `whowrote predict` reads it; a broken one is one 422 line."""
    from pathlib import Path

    from whowrote.style.pdf_reader import pdf_markdown

    pdf = (Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "chromium-156.pdf").read_bytes()
    r = client.post("/v1/read-document", content=pdf, headers={"Content-Type": "application/pdf"})
    assert r.status_code == 200 and r.json() == {"text": pdf_markdown(pdf)[0]}
    assert r.json()["text"].startswith("# A title\n\nIntro with **bold**")
    bad = client.post("/v1/read-document", content=b"%PDF-1.4\nbroken", headers={"Content-Type": "application/pdf"})
    assert bad.status_code == 422 and bad.json()["error"].startswith("a PDF that cannot be read (")


def test_read_document_reads_an_epub_as_predict_does(client):
    """A dropped .epub (pandoc's, tests/fixtures/documents) reads as `whowrote predict` reads it,
    chapters in reading order; an archive that is no e-book is one 422 line."""
    from pathlib import Path

    from whowrote.style.documents import document_to_markdown

    book = (Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "pandoc-3.9-two-chapters.epub").read_bytes()
    r = client.post("/v1/read-document", content=book, headers={"Content-Type": "application/epub+zip"})
    assert r.status_code == 200 and r.json() == {"text": document_to_markdown(book)[0]}
    assert r.json()["text"].startswith("# Two chapters\n\nA. Writer\n\n# The harbour")
    no_book = book.replace(b"META-INF/container.xml", b"META-INF/elsewhere.xml")
    bad = client.post("/v1/read-document", content=no_book, headers={"Content-Type": "application/epub+zip"})
    assert bad.status_code == 422 and bad.json()["error"].startswith("an EPUB without META-INF/container.xml")


def test_a_pasted_or_dropped_email_is_read_as_its_senders_text(real_model, blog_texts):
    """The page reads a dropped .eml as text and posts it: the API attributes the body the sender
    wrote, as `whowrote predict` does, and says so (the bundled model: the fakes read raw text)."""
    from email.message import EmailMessage

    from fastapi.testclient import TestClient

    from whowrote.serve import create_app

    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = "sam@example.org", "rivera@example.org", "Thanks"
    m.set_content(blog_texts[0].strip() + "\n\n-- \nSam Lee\nArchivist\n")
    with TestClient(create_app(real_model, max_body_bytes=2_000_000, timeout_s=30)) as client:
        body = client.post("/v1/predict", json={"text": m.as_string()}).json()
        plain = client.post("/v1/predict", json={"text": blog_texts[0].strip()}).json()
    assert body["probabilities"] == plain["probabilities"]
    assert body["warnings"][0] == "an email: its text body was attributed (not its headers); the signature left out"


def test_read_document_reads_an_rtf_as_predict_does(client):
    """A dropped .rtf (pandoc's, tests/fixtures/documents) reads as `whowrote predict` reads it."""
    from pathlib import Path

    from whowrote.style.documents import document_to_markdown

    rtf = (Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "pandoc-3.9.rtf").read_bytes()
    r = client.post("/v1/read-document", content=rtf, headers={"Content-Type": "application/rtf"})
    assert r.status_code == 200 and r.json() == {"text": document_to_markdown(rtf)[0]}
    assert r.json()["text"].startswith("# A title\n\nIntro with **bold**")
