"""HTML input read back as Markdown: each element, sloppy HTML, hostile nesting, and real texts."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from whowrote.style.edits import markdown_html_file, markdown_html_roundtrip, markdown_page
from whowrote.style.html_emphasis import class_styles
from whowrote.style.html_reader import MAX_NEST, html_to_markdown
from whowrote.style.textcheck import inspect_text, looks_like_html

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"

MD = """# Title

Some **bold** and *italic* text, `code`, a [link](https://x.org/a) and <https://y.org>.

## Section

- one
- two with **bold**
  - nested
    1. deep
- three

Steps:

1. first

   its second paragraph
2. second

> a quote

| a | b |
|---|---|
| 1 | 2 |
| 3 | 4 |

```python
def f():
    return 1
```

---

Last line one
last line two.
"""


def test_a_rendered_markdown_page_reads_back_as_its_markdown():
    assert markdown_html_file(MD) == MD.strip().replace("|---|---|", "| --- | --- |").replace(
        "<https://y.org>", "https://y.org").replace(
        "1. first\n\n   its second paragraph\n2. second", "1. first\n\n   its second paragraph\n\n2. second")


def test_elements():
    assert html_to_markdown("<h3>Head</h3><p>x</p>") == "### Head\n\nx"
    assert html_to_markdown("<p><b>b</b> <strong>s</strong> <i>i</i> <em>e</em></p>") == "**b** **s** *i* *e*"
    assert html_to_markdown('<ol start="4"><li>d</li><li>e</li></ol>') == "4. d\n5. e"
    assert html_to_markdown("<p>a<br>b</p><hr><p>c</p>") == "a\nb\n\n---\n\nc"
    # two line breaks in a row are a blank line, as a browser shows them (a web editor's or a mail's
    # paragraphs); more add nothing, and a break after a block's end adds nothing
    assert html_to_markdown("Dear Sam,<br><br>Thanks.<br>\n<br><br>Jo") == "Dear Sam,\n\nThanks.\n\nJo"
    assert html_to_markdown("<p>a</p><br><p>b</p>") == "a\n\nb"
    assert html_to_markdown('<p>see <a href="#top">top</a> and <a href=" u ">here</a></p>') == "see [top](#top) and [here](u)"
    assert html_to_markdown("<blockquote><p>one</p><p>two</p></blockquote>") == "> one\n>\n> two"
    assert html_to_markdown("<pre><code>  a  b\n\n c</code></pre>") == "```\n  a  b\n\n c\n```"
    assert html_to_markdown("<table><tr><td>a</td><td>b\nc</td></tr></table>") == "| a | b c |"


def test_hidden_text_and_entities():
    page = ("<html><head><title>T</title><style>p{}</style></head><body><script>x = 1 < 2</script>"
            "<p>Fish &amp; chips &lt;3</p><template><p>no</p></template></body></html>")
    assert html_to_markdown(page) == "Fish & chips <3"


def test_sloppy_html_items_close_themselves():
    assert html_to_markdown("<ul><li>a<li>b<ol><li>x<li>y</ol></ul><p>tail") == "- a\n- b\n  1. x\n  2. y\n\ntail"
    assert html_to_markdown("<table><tr><th>h<th>k<tr><td>1<td>2</table>") == "| h | k |\n| --- | --- |\n| 1 | 2 |"
    assert html_to_markdown("</li></ul></blockquote>text") == "text"  # ends with nothing open


def test_spaces_as_shown_and_source_line_breaks_kept():
    html = "<div>\n    <p>\n      A   long\n      paragraph <b>bold</b>  end.\n    </p>\n  </div>"
    assert html_to_markdown(html) == "A long\nparagraph **bold** end."
    # layout alone between tags is one space, as a browser shows it
    assert html_to_markdown("<p>\n  <span>Hello</span>\n  <b>world</b>\n</p>") == "Hello **world**"


def test_fragments_and_pages_are_sniffed_but_prose_is_not():
    assert looks_like_html("<p>One paragraph only, as a rendered short answer.</p>\n")
    assert looks_like_html(markdown_page("Just a sentence."))
    assert not looks_like_html("<p> is the paragraph tag, written in a sentence about HTML.")
    assert not looks_like_html("I think 3 < 4 and 5 > 2.")
    # Markdown that shows or names HTML (13 chat answers of the corpus were read as HTML before):
    code = "Here is the page:\n\n```html\n" + "<div><p>x</p></div>\n" * 5 + "```\n"
    table = "| Player | Notes |\n|---|---|\n| A | one<br>two<br>three<br>four<br>five<br>six |\n"
    prose = "A page is built from elements such as <html>, <head>, <body>, <table> and <div>."
    named = "Wrap it in `<div>`, then `<p>`, `<ul>`, `<li>` and `<span>` tags.</p>"
    assert not any(looks_like_html(t) for t in (code, table, prose, named))


def test_predict_reads_a_page_as_markdown_and_says_so():
    chk = inspect_text(markdown_page(MD))
    assert chk.text.startswith("# Title\n\nSome **bold**")
    assert any("read as Markdown" in w for w in chk.warnings)


NESTED = ["<ul><li>" * 100_000, "<blockquote>" * 100_000, "<table><tr><td>" * 70_000, "<ol><li><p>x" * 60_000,
          '<a href="u">' * 100_000, "<pre>" * 100_000, "<li>" * 100_000 + "</ul>" * 100_000,
          '<span style="font-weight:700">' * 60_000 + "</b>" * 100_000, '<a href="u">x' * 50_000 + "</a>" * 50_000]


@pytest.mark.parametrize("html", NESTED, ids=[h[:12] for h in NESTED])
def test_deep_nesting_stays_linear(html):
    """Containers are rewritten on close, so each level re-reads its text: past MAX_NEST they are
    plain blocks, else 100k nested items would copy their text 100k times."""
    t0 = time.perf_counter()
    out = html_to_markdown("<html><body>" + html + "end")
    assert time.perf_counter() - t0 < 10 and "end" in out
    assert out.count("> ") <= MAX_NEST


def test_real_texts_keep_their_markdown_features(corpus_sample):
    """200 corpus texts of every genre, rendered to a page and read back: the Markdown families the
    model counts (headings, bullets, numbers, bold, fences, tables, rules, links) come back; the
    browser's copy of the same page keeps none of them."""
    from whowrote.style import load_model

    model = load_model()
    texts = corpus_sample([("blogs", 40), ("debates", 40), ("fiction", 40), ("longform", 40), ("chat", 40)])
    names = ["md_h1", "md_h2_h3", "md_numbered", "md_bold", "md_code", "table_row", "hrule", "link"]
    cols = [model.feature_names_.index(n) for n in names]
    raw, read, copied = (model.features([edit(t) for t in texts])[:, cols]
                         for edit in (lambda t: t, markdown_html_file, markdown_html_roundtrip))
    has = raw > 0
    assert has.sum() > 150  # the sample has these marks
    assert np.isclose(read, raw, rtol=0.02)[has].mean() > 0.9
    assert np.isclose(copied, raw, rtol=0.02)[has].mean() < 0.1


SITE = ("<!doctype html><html><head><title>My blog</title></head><body>"
        "<header><a href='/'>My blog</a><nav><ul><li><a href='/'>Home</a></li><li><a href='/about'>About</a></li></ul></nav></header>"
        "{content}"
        "<aside><h3>Recent posts</h3><ul><li><a href='/p1'>Older post</a></li></ul>"
        "<form><input name=q><button>Search</button></form></aside>"
        "<footer><p>&copy; 2024 My blog. All rights reserved.</p></footer></body></html>")


def test_a_site_page_is_read_for_its_post_only():
    post = "<h1>The post</h1><p>Its <b>first</b> paragraph.</p><ul><li>a point</li></ul>"
    assert html_to_markdown(SITE.format(content=f"<main><article>{post}</article></main>")) == \
        "# The post\n\nIts **first** paragraph.\n\n- a point"
    # no <main> or <article>: the menus, sidebar, form and footer still go; the site's name stays
    assert html_to_markdown(SITE.format(content=post)) == \
        "[My blog](/)\n\n# The post\n\nIts **first** paragraph.\n\n- a point"


def test_a_page_that_is_all_chrome_is_read_whole():
    assert html_to_markdown("<html><body><nav><p>Only a menu, left open") == "Only a menu, left open"
    assert html_to_markdown("<article></article><footer><p>Just a footer</p></footer>") == "Just a footer"


def test_a_chat_windows_code_block_is_a_fence_with_its_language():
    html = ('<p>Try:</p><pre><div class="contain-inline-size"><div class="flex items-center">python</div>'
            '<div class="sticky"><button>Copy code</button></div><div class="p-4"><code class="hljs language-python">'
            'def f():\n    return 1\n</code></div></div></pre><p>Done.</p>')
    assert html_to_markdown(html) == "Try:\n\n```python\ndef f():\n    return 1\n```\n\nDone."


def test_editors_mark_emphasis_by_style():
    """A Google Docs copy: bold as a styled span, the whole copy wrapped in a <b> of normal weight."""
    docs = ('<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-1">'
            '<h2 dir="ltr"><span style="font-size:16pt;font-weight:400;">A heading</span></h2>'
            '<p dir="ltr"><span style="font-weight:400;">Plain and </span><span style="font-weight: 700;">bold</span>'
            '<span style="font-weight:400;"> and </span><span style="font-style:italic;">italic</span>.</p></b>')
    assert html_to_markdown(docs) == "## A heading\n\nPlain and **bold** and *italic*."
    assert html_to_markdown("<p><strong><em>both</em></strong> <span>plain</span></span></b></p>") == "***both*** plain"


def test_a_saved_chat_page_is_read_as_the_assistants_markdown():
    """A chat window's page: turns in <article>s with screen-reader role headings and copy buttons;
    read as Markdown, then as a pasted conversation (only the assistant's turn is attributed)."""
    page = ('<html><body><article><h5 class="sr-only">You said:</h5><div><p>Give me tips for sleeping better.</p>'
            '</div></article><article><h6 class="sr-only">ChatGPT said:</h6><div><p>Here are some <strong>practical'
            '</strong> tips:</p><ol><li><p><strong>Keep a schedule.</strong> Same time each night.</p></li><li><p>'
            '<strong>Limit screens.</strong> Stop an hour before bed.</p></li></ol><div><button>Copy</button></div>'
            '</div></article></body></html>')
    chk = inspect_text(page)
    assert chk.text == ("Here are some **practical** tips:\n\n1. **Keep a schedule.** Same time each night.\n\n"
                        "2. **Limit screens.** Stop an hour before bed.")
    assert any("HTML" in w for w in chk.warnings) and any("conversation" in w for w in chk.warnings)


ANSWER_HTML = ("<p>Basil is easier to keep than its reputation suggests, as long as you give it <strong>three "
               "things</strong>: light, warmth and even watering.</p><ul><li>Light: six hours of sun.</li>"
               "<li>Water: when the top is dry.</li></ul>")
ANSWER_MD = ("Basil is easier to keep than its reputation suggests, as long as you give it **three things**: "
             "light, warmth and even watering.\n\n- Light: six hours of sun.\n- Water: when the top is dry.")
# Each window's markup as its browser extensions select it (whowrote.style.transcript.chat_role), with the page
# around the turns (a title, a menu, buttons) that is not the conversation.
CHAT_PAGES = {
    "chatgpt": ('<!DOCTYPE html><html><body><nav>New chat</nav><main><h1>Basil care</h1>'
                '<article data-testid="conversation-turn-1"><h5 class="sr-only">You said:</h5>'
                '<div data-message-author-role="user"><div class="whitespace-pre-wrap">How do I keep basil alive?'
                '</div></div></article><article data-testid="conversation-turn-2"><h6 class="sr-only">ChatGPT said:'
                '</h6><div data-message-author-role="assistant"><div class="markdown prose">' + ANSWER_HTML
                + '</div></div><div><button>Copy</button></div></article></main><footer>Check important info.'
                '</footer></body></html>'),
    "gemini": ('<html><body><h1>Gemini</h1><div class="conversation-container"><user-query><div class="query-text">'
               '<p>How do I keep basil alive?</p></div></user-query><model-response><message-content>'
               '<div class="markdown">' + ANSWER_HTML + '</div></message-content></model-response></div>'
               '<p>Gemini can make mistakes.</p></body></html>'),
    "claude": ('<!doctype html><html><body><div>Basil care</div><div data-testid="user-message"><p>How do I keep '
               'basil alive?</p></div><div data-is-streaming="false"><div class="font-claude-message grid">'
               + ANSWER_HTML + '</div><button>Retry</button></div></body></html>'),
}


@pytest.mark.parametrize("window", list(CHAT_PAGES))
def test_a_chat_windows_saved_page_is_read_as_its_turns(window):
    """ChatGPT, Gemini and Claude pages: only the turns are read, each after a role line, so the
    user's question is not attributed as the assistant's writing (before, it was; the title and the
    page's chrome were read too)."""
    md = html_to_markdown(CHAT_PAGES[window])
    assert md == "User:\n\nHow do I keep basil alive?\n\nAssistant:\n\n" + ANSWER_MD
    chk = inspect_text(CHAT_PAGES[window])
    assert chk.text == ANSWER_MD and any("only the assistant's 1 turn(s)" in w for w in chk.warnings)


def test_a_turn_holding_elements_of_its_own_tag_closes_with_its_own_end():
    page = ('<html><body><div data-message-author-role="user"><div><div>Question?</div></div></div>'
            '<div data-message-author-role="assistant"><div><p>One.</p></div><div><p>Two.</p></div></div>'
            '<div data-message-author-role="assistant"><p>More of the same side.</p></div>'
            '<div>Not a turn.</div></body></html>')
    assert html_to_markdown(page) == "User:\n\nQuestion?\n\nAssistant:\n\nOne.\n\nTwo.\n\nMore of the same side."


def test_a_chat_page_with_no_assistant_turn_found_is_read_as_a_page():
    """Where the markup changed so that no assistant turn is recognised, the page is read whole, as
    before, instead of as the user's turns alone."""
    page = ('<html><body><main><div data-testid="user-message"><p>Question?</p></div>'
            '<div class="renamed-class"><p>Answer here.</p></div></main></body></html>')
    assert html_to_markdown(page) == "Question?\n\nAnswer here."


def test_nested_turns_stay_linear():
    t0 = time.perf_counter()
    out = html_to_markdown("<html><body>" + '<div data-message-author-role="assistant">x' * 100_000 + "end")
    assert time.perf_counter() - t0 < 10 and out.startswith("x\n\nx") and out.endswith("end")  # one side: no role line


def test_a_page_with_the_assistants_turns_only_reads_them_with_no_role_line():
    """A copied or saved answer alone (ChatGPT's message element and its code block's header and
    copy button, as its DOM has them): the answer's Markdown, without the notes around it."""
    page = ('<div class="flex"><div class="gizmo-bot-avatar"></div><div data-message-author-role="assistant" '
            'data-message-id="9d" class="min-h-8 text-message"><div class="markdown prose"><h3>TDD vs BDD</h3>'
            '<p>Both <strong>TDD</strong> and <strong>BDD</strong> are practices.</p><pre><div class="dark">'
            '<div class="flex items-center">python</div><div class="sticky"><button>Copy code</button></div>'
            '<div class="overflow-y-auto"><code class="hljs language-python">assert add(2, 3) == 5\n</code></div>'
            '</div></pre></div></div></div>\n\nSome notes outside the message.')
    assert html_to_markdown(page) == ("### TDD vs BDD\n\nBoth **TDD** and **BDD** are practices.\n\n"
                                      "```python\nassert add(2, 3) == 5\n```")


def test_pandocs_standalone_page_reads_back_as_its_markdown():
    """pandoc 3.9's `-s` page of test_docx_reader's MD (tests/fixtures/documents): its title block,
    its lines wrapped at 72 characters (soft breaks, as the page's source has them), its highlighted code (line anchors, `sourceCode python` classes, colour rules of `code span.kw`)
    read as a fence with its language and no links or emphasis inside."""
    from test_docx_reader import MD as DOC_MD

    page = (FIXTURES / "pandoc-3.9.html").read_text()
    assert html_to_markdown(page) == "# A page\n\n" + DOC_MD.replace(").\nA soft break.", "). A soft break.").replace(
        "|---|---|", "| --- | --- |").replace("*italic*, ***both***", "*italic*,\n***both***").strip()  # (pandoc's wrapping)
    assert html_to_markdown("<pre><b>x</b> <a href='#l1'>y</a></pre>") == "```\nx y\n```"
    assert html_to_markdown("<p>An <a href='#n1'></a>anchor and <a href='u'><img src='i.png'></a>an image link.</p>") == (
        "An anchor and an image link.")


def test_an_xhtml_pages_xml_declaration_is_not_text():
    page = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Hi.</p></body></html>'
    assert html_to_markdown(page) == "Hi."
    assert html_to_markdown("<p>a <? b</p>") == "a <? b"  # (an unclosed one is text, as before)


# Google Docs' "Download > Web page": every run a span whose weight and slant are class rules in the
# page's <style> (written here in its layout: c-numbered classes, one rule per class, no spaces)
DOCS_PAGE = ('<html><head><meta content="text/html; charset=UTF-8" http-equiv="content-type"><style type="text/css">'
             '@import url(https://themes.googleusercontent.com/fonts/css?kit=x);ul.lst-kix_a-0{list-style-type:none}'
             '.c1{padding-top:0pt;font-weight:400;font-style:normal}.c4{font-weight:700}.c6{font-style:italic}'
             '.c2{font-family:"Arial"}/* a comment .c0{font-weight:700} */.title{font-size:26pt}'
             '@media print{.c2{font-weight:700}}h2{font-weight:400}</style></head><body class="c5 doc-content">'
             '<h2 class="c3" id="h.1"><span class="c1">A heading</span></h2>'
             '<p class="c0"><span class="c1">Plain and </span><span class="c4 c2">bold</span><span class="c1"> and </span>'
             '<span class="c6 c2">italic</span><span class="c1">, </span><span class="c4" style="font-weight:400">not bold</span>.</p>'
             '<ul class="c7 lst-kix_a-0 start"><li class="c0 li-bullet-0"><span class="c1">an </span><span class="c4">item</span></li></ul>'
             '</body></html>')


def test_emphasis_set_by_a_style_sheets_class_rules():
    assert html_to_markdown(DOCS_PAGE) == "## A heading\n\nPlain and **bold** and *italic*, not bold.\n\n- an **item**"
    assert html_to_markdown(DOCS_PAGE, class_styles(".c1{font-weight:bold}")) == (  # a linked sheet's rule, before the page's
        "## A heading\n\nPlain and **bold** and *italic*, not bold.\n\n- an **item**")
    assert html_to_markdown("<p><span class='x'>a</span> <b class='x'>b</b></p>", class_styles("span.x{font-style:italic}")) == "*a* **b**"
    assert html_to_markdown("<style>.x{font-weight:700}</style><p><span class='x'>no sheet read</span>") == "**no sheet read**"


HOSTILE_STYLES = {"unclosed": "<style>" * 100_000 + "<p class='a'>hidden", "comments": "<style>/*" * 100_000 + "<p class='a'>hidden",
                  "rules": "<style>" + ".a{font-weight:700}" * 200_000 + "</style><p><span class='a'>end",
                  "classes": "<p>" + "<span class='a b c'>" * 50_000 + "end",
                  "rules_and_elements": "<style>" + ".a{font-weight:700}" * 100_000 + "</style><p>" + "<span class='a'>x</span> " * 50_000}


@pytest.mark.parametrize("name", HOSTILE_STYLES)
def test_style_sheets_stay_linear(name):
    """An unclosed <style> holds the rest of the page, as a browser reads it (nothing shown)."""
    t0 = time.perf_counter()
    out = html_to_markdown(HOSTILE_STYLES[name])
    assert time.perf_counter() - t0 < 10
    expected = {"unclosed": "", "comments": "", "rules": "**end", "classes": "end",  # ("rules": a span left open)
                "rules_and_elements": " ".join(["**x**"] * 50_000)}
    assert out == expected[name]


def test_empty_headings_and_emphasis_show_nothing():
    """pandoc's e-book title page without a title is an empty <h1>; editors leave empty bold runs."""
    assert html_to_markdown("<h1 class='title'></h1><p>Hi.</p><h2> </h2><p>x <b></b>y <i><b></b></i>z</p>") == "Hi.\n\nx y z"
    assert html_to_markdown("<h3>A <b>bold</b> one</h3>") == "### A **bold** one"


WORD_HTML = """<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta name=Generator content="Microsoft Word 15">
<style><!-- p.MsoNormal, li.MsoNormal, div.MsoNormal {margin:0cm; margin-bottom:.0001pt; font-size:11.0pt;}
p.MsoListParagraph {margin-top:0cm; margin-right:0cm; margin-bottom:0cm; margin-left:36.0pt;} --></style></head>
<body lang=EN-GB><div class=WordSection1>
<p class=MsoNormal>Hi Sam,<o:p></o:p></p>
<p class=MsoNormal><o:p>&nbsp;</o:p></p>
<p class=MsoNormal>Thanks for the notes. Two things:<o:p></o:p></p>
<p class=MsoNormal>the <b>budget</b> is fine<b><span style='color:#1F497D'>&nbsp;</span></b>as it is.<o:p></o:p></p>
<p class=MsoNormal><b><o:p>&nbsp;</o:p></b></p>
<p class=MsoNormal style='mso-margin-top-alt:auto;mso-margin-bottom-alt:auto'>A paragraph from an HTML mail.<o:p></o:p></p>
<p class=MsoNormal><a href="https://example.org/"><span style='color:windowtext'><img width=20 src="cid:logo"></span></a><o:p></o:p></p>
<p class=MsoNormal>Jo<o:p></o:p></p>
</div></body></html>"""


def test_words_html_paragraphs_without_margins_are_lines_and_an_empty_one_a_blank_line():
    """Word's HTML (Outlook's mail, a paste from Word): MsoNormal paragraphs have no margins, so they
    show as lines, and the "&nbsp;" paragraph between them is the blank line a reader sees; a
    paragraph with Outlook's auto spacing keeps its gaps; a bold no-break space is a space, not
    "** **"; a linked image without text shows nothing. Elsewhere a paragraph stays a paragraph."""
    assert html_to_markdown(WORD_HTML) == ("Hi Sam,\n\nThanks for the notes. Two things:\nthe **budget** is fine as it is."
                                           "\n\nA paragraph from an HTML mail.\n\nJo")
    assert html_to_markdown('<style>.x{margin:0}</style><p class="x">a</p><p class="x">b</p>') == "a\n\nb"  # (not Word's)


def test_windows_line_ends_read_as_a_browser_reads_them():
    assert html_to_markdown("<p>a</p>\r\n<pre><code>x = 1\r\ny = 2\r\n</code></pre>\r\n") == "a\n\n```\nx = 1\ny = 2\n```"


def test_words_list_paragraphs_read_as_list_items():
    """Word (Outlook's editor) writes a list as paragraphs styled ``mso-list:l0 level2 lfo1``, each
    opening with its bullet or number in an ``mso-list:Ignore`` span inside ``<![if !supportLists]>``
    (written out here in that layout; no Word runs here): read as Markdown items, nested by level,
    numbers kept; before, the conditions were read as text ("<![if !supportLists]>· <![endif]>the ...")."""
    def item(level: int, marker: str, text: str, first: bool = False) -> str:
        cls = "MsoListParagraphCxSpFirst" if first else "MsoListParagraphCxSpMiddle"
        return (f"<p class={cls} style='text-indent:-18.0pt;mso-list:l0 level{level} lfo1'><![if !supportLists]>"
                f"<span style='font-family:Symbol'><span style='mso-list:Ignore'>{marker}<span style='font:7.0pt "
                f"\"Times New Roman\"'>&nbsp;&nbsp;&nbsp; </span></span></span><![endif]>{text}<o:p></o:p></p>\n")
    page = WORD_HTML.replace("<p class=MsoNormal>Jo<o:p></o:p></p>", (
        "<p class=MsoNormal>Two lists:<o:p></o:p></p>\n" + item(1, "·", "the <b>budget</b> is fine", True)
        + item(2, "o", "even the travel") + item(1, "·", "the dates are not") + "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n"
        + item(1, "1.", "Book the room", True) + item(1, "2.", "Send the invites") + "<p class=MsoNormal>Jo<o:p></o:p></p>"))
    assert html_to_markdown(page).endswith("\n\nTwo lists:\n- the **budget** is fine\n  - even the travel\n- the dates are not"
                                           "\n\n1. Book the room\n2. Send the invites\nJo")
    # a marker span left open ends with its paragraph; one holding more than a marker is text
    broken = WORD_HTML.replace("<p class=MsoNormal>Jo<o:p></o:p></p>", "<p class=MsoNormal style='mso-list:l0 level1 lfo1'>"
                               "<span style='mso-list:Ignore'>·<span>x</p><p class=MsoNormal>After.</p>")
    assert html_to_markdown(broken).endswith("\n-\nAfter.")
    long = WORD_HTML.replace("<p class=MsoNormal>Jo<o:p></o:p></p>", "<p class=MsoNormal style='mso-list:l0 level1 lfo1'>"
                             "<span style='mso-list:Ignore'>" + "<i>word</i> " * 20 + "</span></p>")
    assert html_to_markdown(long).count("word") == 20


def test_a_table_that_lays_out_a_mail_reads_as_its_blocks_and_a_data_table_as_a_grid():
    """Newsletters and many mails lay themselves out with tables (SpamScope's test mails read as rows
    of "| | |"): a table marked role="presentation", one with a table inside a cell, or one column
    without a header reads as its cells' blocks; a data table stays a grid, and text in a row
    outside its cells is kept."""
    layout = ('<table role="presentation"><tr><td><h1>News</h1><p>Hello <b>you</b>.</p></td><td>Side note.</td></tr></table>'
              '<table><tr><td><table><tr><td>inner a</td><td>inner b</td></tr></table></td></tr><tr><td>Para two.</td></tr></table>'
              '<table><tr><td>Only column</td></tr><tr><td>Second</td></tr></table>')
    assert html_to_markdown(layout) == ("# News\n\nHello **you**.\n\nSide note.\n\n| inner a | inner b |\n\nPara two."
                                        "\n\nOnly column\n\nSecond")
    data = "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2 <i>x</i></td></tr></table>"
    assert html_to_markdown(data) == "| A | B |\n| --- | --- |\n| 1 | 2 *x* |"
    assert html_to_markdown("<table><tr><td>a</td>stray<td>b</td></tr></table>") == "| a | b | stray |"
