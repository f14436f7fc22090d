"""Saved emails read as the text their sender wrote (whowrote.style.email_reader): a Gmail-style HTML
reply, a Thunderbird-style format=flowed plain reply, an Outlook-style reply with its header block,
encodings and charsets, attachments, no body, prose that is not a message, and `whowrote predict`
on an .eml file, a folder and stdin."""

from __future__ import annotations

import json
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style.email_reader import looks_like_email, read_email
from whowrote.style.textcheck import inspect_text

runner = CliRunner()
LETTER = ("Dear Ms. Rivera,\n\nThank you for the interview on Tuesday. I enjoyed learning about the team's plans "
          "for the new archive, and I'm excited about the chance to help **digitise the maps**.\n\n"
          "- I can start in March.\n- I'm happy to share more writing samples.\n\nBest regards,\nSam")
LETTER_HTML = ("<div dir='ltr'><p>Dear Ms. Rivera,</p><p>Thank you for the interview on Tuesday. I enjoyed learning "
               "about the team's plans for the new archive, and I'm excited about the chance to help <b>digitise the "
               "maps</b>.</p><ul><li>I can start in March.</li><li>I'm happy to share more writing samples.</li></ul>"
               "<p>Best regards,<br>Sam</p></div>")


def _message(**headers: str) -> EmailMessage:
    m = EmailMessage()
    for name, value in {"From": "Sam <sam@example.org>", "To": "rivera@example.org", "Subject": "Thank you",
                        "Date": "Mon, 7 Dec 2026 10:00:00 +0000", **headers}.items():
        m[name] = value
    return m


def test_a_gmail_style_reply_reads_its_html_body_without_the_quote_and_signature():
    m = _message()
    m.set_content(LETTER + "\n\nOn Sun, Dec 6, 2026 at 9:00 AM Rivera <rivera@example.org> wrote:\n> Thanks for coming in.\n")
    m.add_alternative(LETTER_HTML + "<div class='gmail_signature'>-- <br>Sam Lee<br>Archivist</div>"
                      "<div class='gmail_quote'><div class='gmail_attr'>On Sun, Dec 6, 2026 at 9:00 AM Rivera "
                      "&lt;rivera@example.org&gt; wrote:<br></div><blockquote class='gmail_quote'>Thanks for coming "
                      "in.<br>Best, R.</blockquote></div>", subtype="html")
    source = m.as_string()
    assert "quoted-printable" in source or "base64" in source or "7bit" in source
    text, note = read_email(source)
    assert text == LETTER
    assert note == ("an email: its HTML body was attributed, with its headings, lists and emphasis read as Markdown "
                    "(not its headers or attachments); the quoted reply and the signature left out")


def test_a_flowed_plain_reply_joins_its_soft_breaks():
    """Thunderbird sends format=flowed: a line ending in a space goes on in the next (RFC 3676)."""
    body = ("Hi Sam, \r\nthanks for the maps. The second one is the  \r\nclearer of the two.\r\n\r\n"
            " From the archive, with thanks,\r\nR.\r\n\r\nSam wrote on 12/6/26 09:00:\r\n> Here are the maps.\r\n")
    m = _message()
    m.set_content(body.replace("\r\n", "\n"), params={"format": "flowed"})
    assert read_email(m.as_string()) == (
        "Hi Sam, thanks for the maps. The second one is the  clearer of the two.\n\nFrom the archive, with thanks,\nR.",
        "an email: its text body was attributed (not its headers); the quoted reply left out")
    m = _message()
    m.set_content("A line that goes on \nhere.\n", params={"format": "flowed", "delsp": "yes"})
    assert read_email(m.as_string())[0] == "A line that goes onhere."


def test_an_outlook_style_reply_drops_the_message_below_its_header_block():
    m = _message()
    m.set_content(LETTER + "\n\n________________________________\nFrom: Rivera\nSent: Sunday\nTo: Sam\n\nThanks for coming in.\n")
    assert read_email(m.as_string())[0] == LETTER
    m = _message()
    m.add_alternative(LETTER_HTML + "<hr><div id='divRplyFwdMsg'><b>From:</b> Rivera<br><b>Sent:</b> Sunday<br>"
                      "<b>Subject:</b> Interview</div><p>Thanks for coming in.</p>", subtype="html")
    assert read_email(m.as_string()) == (LETTER, "an email: its HTML body was attributed, with its headings, lists and "
                                         "emphasis read as Markdown (not its headers or attachments); the quoted message "
                                         "below it left out")

    # Outlook writes the block in its user's language: French (a no-break space before the colon),
    # German, Spanish, Italian, Dutch; prose that opens a line with "De :" alone is kept
    for names in (("De\u00a0:", "Envoy\u00e9\u00a0:"), ("Von:", "Gesendet:"), ("De:", "Enviado:"), ("Da:", "Inviato:"),
                  ("Van:", "Verzonden:")):
        m = _message()
        m.add_alternative(LETTER_HTML + f"<p><b>{names[0]}</b> Rivera<br><b>{names[1]}</b> dimanche</p><p>Merci.</p>",
                          subtype="html")
        assert read_email(m.as_string())[0] == LETTER, names
    m = _message()
    m.set_content(LETTER + "\n\nDe : la part de toute l'\u00e9quipe, merci.")
    assert read_email(m.as_string())[0].endswith("merci.")


def test_a_forward_is_read_as_the_forwarded_message_unless_the_sender_wrote_more():
    forwarded = ("---------- Forwarded message ---------\nFrom: Sam <sam@example.org>\nDate: Mon, Dec 7, 2026\n"
                 "Subject: Thank you\nTo: rivera@example.org\n\n" + LETTER + "\n\n-- \nSam Lee\n")
    m = _message()
    m.set_content("FYI, see below.\n\n" + forwarded)
    assert read_email(m.as_string()) == (LETTER, "an email: the forwarded message's text body was attributed (not its "
                                         "headers); the forwarding note and headers above the forwarded message and "
                                         "the signature left out")
    note = "I wrote this note myself, and it is long enough to be the text in question: twenty words or more of my own."
    m = _message()
    m.set_content(note + "\n\n" + forwarded)
    assert read_email(m.as_string()) == (note, "an email: its text body was attributed (not its headers); the quoted "
                                         "message below it left out")


def test_encodings_charsets_and_attachments():
    m = _message()
    m.set_content("Caf\u00e9 au lait, s'il vous pla\u00eet. " * 20, charset="iso-8859-1", cte="quoted-printable")
    m.add_attachment(b"%PDF-1.4 not read", maintype="application", subtype="pdf", filename="cv.pdf")
    text, note = read_email(m.as_string())
    assert text == ("Caf\u00e9 au lait, s'il vous pla\u00eet. " * 20).strip() and "attachments" in note
    m = _message()
    m.set_content(LETTER, cte="base64")
    assert read_email(m.as_string())[0] == LETTER
    only_picture = _message()
    only_picture.add_attachment(b"\x89PNG\r\n\x1a\n", maintype="image", subtype="png", filename="x.png")
    check = inspect_text(only_picture.as_string())
    assert check.text == "" and check.warnings[:1] == ["an email with no text body"] and check.skip


def test_parts_nested_thousands_deep_and_an_unknown_charset_are_one_line():
    nested = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(3000))
    check = inspect_text("From: a@b\nSubject: x\nMIME-Version: 1.0\n" + nested + "Content-Type: text/plain\n\nhello\n")
    assert check.text == "" and check.skip and check.warnings[0] == "an email whose parts are nested too deeply to read"
    m = _message()
    m.set_content(LETTER)
    unknown = inspect_text(m.as_string().replace('charset="utf-8"', 'charset="x-no-such-charset"'))
    assert unknown.skip and unknown.warnings[0] == "an email whose body cannot be decoded (unknown encoding: x-no-such-charset)"


def test_prose_is_not_an_email():
    assert not looks_like_email("Note: this is a blog post.\nFrom: the author\n\nIt goes on.")
    assert not looks_like_email("# From: a heading\nSubject: more")
    assert not looks_like_email("Subject: a question\nI have a question about the maps.")
    assert looks_like_email("Received: from mx.example.org\n\tby mail.example.org\nFrom: a@b\n\nBody")
    assert inspect_text(LETTER).text == LETTER


def test_predict_reads_an_eml_file_a_folder_and_stdin(tmp_path):
    m = _message()
    m.set_content(LETTER)
    (tmp_path / "reply.eml").write_text(m.as_string())
    (tmp_path / "letter.md").write_text(LETTER)
    found = [json.loads(x) for x in runner.invoke(app, ["predict", str(tmp_path), "--jsonl"]).stdout.splitlines()]
    assert [Path(r["path"]).name for r in found] == ["letter.md", "reply.eml"]
    assert found[0]["probabilities"] == found[1]["probabilities"]
    assert found[1]["warnings"][0] == "an email: its text body was attributed (not its headers)"
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=m.as_string())
    assert json.loads(via_stdin.stdout)["probabilities"] == found[0]["probabilities"]


@pytest.mark.parametrize("text", ["From: a\n" * 200_000, "From: a@b\nSubject: x\n\n" + "> q\n" * 200_000,
                                  "From: a@b\nSubject: x\n\n" + "On x wrote " * 100_000 + "\n> q",
                                  "From: a@b\nSubject: x\nContent-Type: text/plain; format=flowed\n\n" + "soft \n" * 300_000],
                         ids=["headers", "quotes", "attribution", "flowed"])
def test_hostile_messages_stay_linear(text):
    t0 = time.perf_counter()
    inspect_text(text)
    assert time.perf_counter() - t0 < 10


def test_an_mbox_mailbox_is_read_a_message_at_a_time(tmp_path):
    """A .mbox (written by the standard library's mailbox, as Thunderbird's mboxo): one result per
    message, named path:n, its id the Message-ID; a body line opening with "From " (quoted ">From "
    in the file) is read unquoted and does not start a message. A mailbox without the suffix, or
    pasted, is read for its first message with a warning; a file that is not a mailbox, and an empty
    one, are one error each; a message over the cap is read for its start."""
    import mailbox

    from whowrote.cli import mailbox_inputs

    path = tmp_path / "inbox.mbox"
    box = mailbox.mbox(path)
    for i, body in enumerate([LETTER, "Hi,\n\nFrom what I saw, the beds need more sun.\nJo", None]):
        m = _message(**{"Message-ID": f"<m{i}@example.org>"})
        if body is None:
            m.set_content(LETTER)
            m.add_alternative(LETTER_HTML, subtype="html")
        else:
            m.set_content(body)
        box.add(m)
    box.close()
    assert b"\n>From what I saw" in path.read_bytes()
    items = list(mailbox_inputs.read_mailbox(path))
    assert [(i.path, i.id) for i in items] == [(f"{path}:{n + 1}", f"<m{n}@example.org>") for n in range(3)]
    assert "\nFrom what I saw" in items[1].text and ">From" not in items[1].text
    rows = [json.loads(x) for x in runner.invoke(app, ["predict", str(path), "--jsonl"]).stdout.splitlines()]
    (tmp_path / "letter.md").write_text(LETTER)
    alone = json.loads(runner.invoke(app, ["predict", str(tmp_path / "letter.md"), "--jsonl"]).stdout)
    assert [r["path"] for r in rows] == [f"{path}:{n}" for n in (1, 2, 3)]
    assert rows[0]["probabilities"] == alone["probabilities"] == rows[2]["probabilities"]  # (the HTML part reads as the letter)
    assert rows[0]["warnings"][0] == "an email: its text body was attributed (not its headers)"
    (tmp_path / "Inbox").write_bytes(path.read_bytes())
    first = json.loads(runner.invoke(app, ["predict", str(tmp_path / "Inbox"), "--jsonl"]).stdout)
    assert first["probabilities"] == alone["probabilities"]
    assert first["warnings"][0].startswith("a mailbox (mbox): only its first message was read")
    assert inspect_text(path.read_text()).text == LETTER
    (tmp_path / "notes.mbox").write_text(LETTER)
    (tmp_path / "empty.mbox").write_bytes(b"")
    for name in ("notes.mbox", "empty.mbox"):
        (bad,) = list(mailbox_inputs.read_mailbox(tmp_path / name))
        assert bad.error == "no messages: not an mbox mailbox (it does not open with a 'From ' line)"
    big = tmp_path / "big.mbox"
    big.write_bytes(b"From a@b Mon Dec  7 10:00:00 2026\nFrom: a@b\nSubject: x\n\n" + b"word " * 2_500_000 + b"\n")
    (item,) = list(mailbox_inputs.read_mailbox(big))
    assert len(item.text) < 10.5e6 and item.warnings == ["message over 10 MB: only its first 10 MB were read"]
