"""Chat-format records (OpenAI / Hugging Face ``messages``, ShareGPT ``conversations``, Gemini
``contents``) in ``whowrote predict``'s tables: only the assistant's turns are attributed."""

from __future__ import annotations

import json

import pytest

from whowrote.cli import main
from whowrote.cli.inputs import iter_items
from whowrote.formats import conversation_turns

ANSWER = ("Gardens change with the seasons, and a careful gardener plans for each of them. In spring "
          "the soil is turned and the first seeds go in; in summer the beds are watered and weeded. ") * 8
SECOND = "Autumn brings the harvest, and winter is for rest, repairs and planning the next year. " * 6
ASK = "Tell me about gardens, please. I want a long answer with lots of detail in it!!! " * 4


def test_conversation_turns_reads_each_format() -> None:
    openai = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": ASK},
              {"role": "assistant", "content": ANSWER}, {"role": "user", "content": "more"},
              {"role": "assistant", "content": [{"type": "text", "text": SECOND}]}]
    assert conversation_turns(openai) == (ANSWER.strip() + "\n\n" + SECOND.strip(), 2, 2)
    sharegpt = [{"from": "human", "value": ASK}, {"from": "gpt", "value": ANSWER}]
    assert conversation_turns(sharegpt) == (ANSWER.strip(), 1, 1)
    gemini = [{"role": "user", "parts": [{"text": ASK}]}, {"role": "model", "parts": [{"text": ANSWER}]}]
    assert conversation_turns(gemini) == (ANSWER.strip(), 1, 1)
    tool_call = [{"role": "user", "content": ASK}, {"role": "assistant", "content": None},
                 {"role": "tool", "content": "42"}, {"role": "Assistant", "content": ANSWER}]
    assert conversation_turns(tool_call) == (ANSWER.strip(), 2, 1)  # the tool's output is neither side


@pytest.mark.parametrize("value", [[], ["a", "b"], [{"content": ANSWER}], [{"role": 3, "content": ANSWER}],
                                   [{"role": "assistant", "content": 7}], "text", None])
def test_what_is_not_a_list_of_turns_is_none(value) -> None:
    assert conversation_turns(value) is None


def _jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_table_rows_read_the_assistant_side_with_a_warning(tmp_path) -> None:
    path = _jsonl(tmp_path / "chats.jsonl", [
        {"id": "a", "messages": [{"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER}]},
        {"id": "b", "messages": [{"role": "user", "content": ASK}]},
        {"id": "c", "messages": ["not", "turns"]},
        {"id": "d", "text": ANSWER, "messages": [{"role": "assistant", "content": SECOND}]},
    ])
    a, b, c, d = iter_items([path])
    assert a.text == ANSWER.strip() and a.error is None and a.id == "a"
    assert a.warnings == ["a conversation record ('messages'): only the assistant's 1 turn(s) were attributed, "
                          "not the user's 1"]
    assert b.error == "column 'messages' is a conversation with no assistant turn"
    assert c.error == "column 'messages' holds a list, not text"
    assert d.text == ANSWER and not d.warnings  # a text column wins over the turns
    sharegpt = _jsonl(tmp_path / "sg.jsonl", [{"conv": [{"from": "human", "value": ASK}, {"from": "gpt", "value": SECOND}]}])
    (item,) = iter_items([sharegpt], column="conv")
    assert item.text == SECOND.strip()


def test_parquet_conversations_are_read(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    turns = [{"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER}]
    pq.write_table(pa.table({"id": [1], "messages": [turns]}), tmp_path / "c.parquet")
    (item,) = iter_items([str(tmp_path / "c.parquet")])
    assert item.text == ANSWER.strip() and item.warnings


def test_predict_gives_a_conversation_the_verdict_of_its_assistant_side(tmp_path, capsys) -> None:
    chats = _jsonl(tmp_path / "chats.jsonl", [{"id": "x", "messages": [
        {"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER},
        {"role": "user", "content": ASK}, {"role": "assistant", "content": SECOND}]}])
    alone = _jsonl(tmp_path / "alone.jsonl", [{"id": "x", "text": ANSWER.strip() + "\n\n" + SECOND.strip()}])
    rows = []
    for path in (chats, alone):
        with pytest.raises(SystemExit) as e:
            main(["predict", path, "--jsonl"])
        assert e.value.code == 0
        rows.append(json.loads(capsys.readouterr().out))
    assert rows[0]["probabilities"] == rows[1]["probabilities"]
    assert rows[0]["provider"] == rows[1]["provider"]
    assert any("only the assistant's 2 turn(s)" in w for w in rows[0]["warnings"])


def test_corpus_loader_reads_chat_logs_by_their_assistant_turns(tmp_path) -> None:
    pytest.importorskip("pandas")
    from whowrote.data import load_corpus

    rows = [{"model": "gpt-4o-2024-05-13", "messages": [{"role": "user", "content": ASK},
                                                        {"role": "assistant", "content": ANSWER}]},
            {"model": "claude-3-opus-20240229", "messages": [{"role": "user", "content": ASK},
                                                             {"role": "assistant", "content": SECOND}]},
            {"model": "gemini-pro", "messages": [{"role": "user", "content": ASK}]}]
    corpus = load_corpus([_jsonl(tmp_path / "chats.jsonl", rows)])
    assert list(corpus.text) == [ANSWER.strip(), SECOND.strip()]  # the turn-less record is dropped as empty
    assert list(corpus.provider) == ["CHATGPT", "CLAUDE"]
    assert any("3 chat-format records ('messages') read by their assistant turns" in n
               for n in corpus.attrs["load_notes"])


def test_a_json_file_holding_one_chat_log_is_one_text_not_a_row_per_turn(tmp_path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER}]))
    (item,) = iter_items([str(path)])  # was: two rows, the user's turn attributed as a text of its own
    assert item.text == ANSWER.strip() and "only the assistant's 1 turn(s)" in item.warnings[0]
    table = tmp_path / "rows.json"
    table.write_text(json.dumps([{"text": ANSWER}, {"text": SECOND}]))  # a table of texts stays a table
    assert [it.text for it in iter_items([str(table)])] == [ANSWER, SECOND]


def test_a_user_turn_kept_as_a_row_of_its_own_is_attributed_with_a_warning(tmp_path) -> None:
    path = _jsonl(tmp_path / "turns.jsonl", [{"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER},
                                             {"from": "system", "value": ASK}])
    user, assistant, system = iter_items([str(path)], column=None)
    assert user.text == ASK and user.warnings == [
        "this row is a chat turn with role 'user', not the assistant's: it was attributed as given"]
    assert assistant.text == ANSWER and not assistant.warnings
    assert system.error is not None  # "value" is not a text column: no text to attribute


def test_a_role_column_that_is_not_a_chat_role_gives_no_turn_warning(tmp_path) -> None:
    path = _jsonl(tmp_path / "cast.jsonl", [{"role": "narrator", "text": ANSWER}, {"role": "tool", "text": ANSWER}])
    narrator, tool = iter_items([str(path)])
    assert not narrator.warnings  # a dataset's own "role" column, not a chat turn
    assert tool.warnings == ["this row is a chat turn with role 'tool', not the assistant's: it was attributed as given"]


def test_real_chat_answers_kept_as_records_read_as_the_answers(tmp_path, corpus_sample) -> None:
    from whowrote.style import load_model

    answers = [t.strip() for t in corpus_sample([("chat", 12), ("debates", 3)])]
    path = _jsonl(tmp_path / "real.jsonl", [{"id": i, "messages": [{"role": "user", "content": ASK},
                                                                     {"role": "assistant", "content": a}]}
                                            for i, a in enumerate(answers)])
    items = list(iter_items([path]))
    assert [it.text for it in items] == answers
    model = load_model()
    got = model.attribute([it.text for it in items])
    want = model.attribute(answers)
    assert [g.probabilities for g in got] == [w.probabilities for w in want]


@pytest.mark.parametrize("pasted", [
    lambda log: json.dumps(log),  # a list of turns
    lambda log: "\n  " + json.dumps({"id": "x", "messages": log}, indent=2),  # a record, indented
    lambda log: json.dumps({"conversations": [{"from": "human" if t["role"] == "user" else "gpt",
                                              "value": t["content"]} for t in log]}),  # ShareGPT
], ids=["turns", "record", "sharegpt"])
def test_a_chat_log_pasted_as_json_text_is_read_by_its_assistant_turns(pasted) -> None:
    """Pasted into stdin, the page or the API (one text, not a file), a JSON chat log was attributed
    as prose, braces, keys and the user's turns included; it now gets its assistant side's verdict."""
    from whowrote.style import load_model
    from whowrote.style.highlight import highlight_spans

    log = [{"role": "user", "content": ASK}, {"role": "assistant", "content": ANSWER},
           {"role": "user", "content": ASK}, {"role": "assistant", "content": SECOND}]
    model = load_model()
    (got,), (want,) = model.attribute([pasted(log)]), model.attribute([ANSWER.strip() + "\n\n" + SECOND.strip()])
    assert got.probabilities == want.probabilities and got.n_words == want.n_words
    assert got.warnings[0] == ("looks like a pasted conversation (a JSON chat log): only the assistant's 2 "
                               "turn(s) were attributed, not the user's 2")
    assert highlight_spans(pasted(log), [t.feature for t in got.tells]) == []  # no offsets into JSON source


@pytest.mark.parametrize("text", [
    '[{"role": "user", "content": "only a question"}]',  # no assistant turn
    '{"text": "a record, not a chat log", "label": "CLAUDE"}',
    "[A link](https://example.com) opens this ordinary Markdown text, which goes on for a while.",
    "[[[[[[" * 20_000,  # nested too deep for the parser: not JSON here
])
def test_json_that_is_no_chat_log_stays_a_text(text) -> None:
    from whowrote.style.transcript import assistant_turns

    assert assistant_turns(text) is None


def test_a_json_chat_log_whose_turn_holds_html_reads_as_its_record() -> None:
    """MT-Bench question 123 asks for a web page: its answers hold HTML. The HTML check ran on the
    pasted JSON source first and turned it into Markdown, so the log was no longer read by its turns
    (19 of 2,192 MT-Bench conversations, benchmarks/multi_turn.py); the log is read first now."""
    from whowrote.style import load_model

    page = ("Here is a simple page:\n\n<!DOCTYPE html>\n<html>\n<head><title>Jokes</title></head>\n<body>\n"
            "<h1>Random joke</h1>\n<button onclick=\"show()\">Show a joke</button>\n<p id=\"joke\"></p>\n"
            "</body>\n</html>\n\nClick the button to see one of four jokes. " + ANSWER)
    log = [{"role": "user", "content": "Write a web page with a button that shows a random joke."},
           {"role": "assistant", "content": page}]
    model = load_model()
    (pasted,), (record,) = model.attribute([json.dumps(log)]), model.attribute([conversation_turns(log)[0]])
    assert pasted.probabilities == record.probabilities
    assert pasted.warnings[0].startswith("looks like a pasted conversation (a JSON chat log)")


def _node(role: str | None, parts: list | None, children: list[str], parent: str | None, kind: str = "text") -> dict:
    message = None if role is None else {"author": {"role": role, "name": None},
                                         "content": {"content_type": kind, "parts": parts}, "metadata": {}}
    return {"id": "", "message": message, "parent": parent, "children": children}


# ChatGPT's data export (conversations.json: a list of conversations, each a tree of nodes): a hidden
# system message, an answer the user regenerated (two children: the window shows the last), a code
# run (not the writing) and an image part beside the text.
CHATGPT_EXPORT = [{
    "title": "Gardens", "id": "c1", "current_node": "a2",
    "mapping": {
        "root": _node(None, None, ["sys"], None),
        "sys": _node("system", [""], ["u1"], "root"),
        "u1": _node("user", [ASK], ["old", "a1"], "sys"),
        "old": _node("assistant", ["A first answer the user regenerated."], [], "u1"),
        "a1": _node("assistant", [ANSWER], ["code"], "u1"),
        "code": _node("assistant", None, ["u2"], "a1", kind="code"),
        "u2": _node("user", [{"asset_pointer": "file-1"}, "And in autumn?"], ["a2"], "code", kind="multimodal_text"),
        "a2": _node("assistant", [SECOND, {"asset_pointer": "file-2"}], [], "u2", kind="multimodal_text"),
    }}]
# Claude's data export (conversations.json): turns with a sender, the text, and content parts.
CLAUDE_EXPORT = [{"uuid": "c2", "name": "Gardens", "chat_messages": [
    {"sender": "human", "text": ASK, "content": [{"type": "text", "text": ASK}]},
    {"sender": "assistant", "text": ANSWER, "content": [{"type": "text", "text": ANSWER},
                                                        {"type": "tool_use", "name": "search", "input": {}}]},
    {"sender": "human", "text": "And in autumn?", "content": [{"type": "text", "text": "And in autumn?"}]},
    {"sender": "assistant", "text": SECOND},
]}]


# Gemini's (Google Takeout, "My Activity.json" of Gemini Apps): an entry per prompt, the answer as
# HTML, a regenerated answer after the first; feedback entries carry no answer.
GEMINI_ANSWER_HTML = f"<h2>Planting</h2><p>{ANSWER}</p><ul><li>in autumn</li><li>deep</li></ul><p>{SECOND}</p>"
GEMINI_EXPORT = [
    {"header": "Gemini Apps", "title": f"Prompted {ASK}", "time": "2025-06-01T10:00:00.000Z",
     "products": ["Gemini Apps"], "activityControls": ["Gemini Apps Activity"],
     "safeHtmlItem": [{"html": "<p>A first answer the user regenerated.</p>"}, {"html": GEMINI_ANSWER_HTML}]},
    {"header": "Gemini Apps", "title": "Gave feedback: Good response", "time": "2025-06-01T10:01:00.000Z",
     "products": ["Gemini Apps"], "activityControls": ["Gemini Apps Activity"]},
]


def test_gemini_activity_entries_read_as_their_answer(tmp_path) -> None:
    """`whowrote predict "My Activity.json"`: an entry's last answer, its HTML read as the Markdown it
    displays; an entry with no answer is named as such."""
    from whowrote.style import load_model

    path = tmp_path / "My Activity.json"
    path.write_text(json.dumps(GEMINI_EXPORT), encoding="utf-8")
    answer, feedback = iter_items([str(path)])
    assert answer.error is None and answer.text == GEMINI_ANSWER_HTML
    assert answer.id == "2025-06-01T10:00:00.000Z"  # an entry's only name is its time
    assert answer.warnings == ["a conversation record ('safeHtmlItem'): the assistant's 1 turn(s) were attributed"]
    assert feedback.error == "a Gemini Apps activity entry with no answer (feedback, a chosen draft, a setting)"
    from whowrote.style.html_reader import html_to_markdown

    a, b = load_model().attribute([answer.text, html_to_markdown(answer.text)])
    assert any(w.startswith("input looks like HTML") for w in a.warnings)
    assert a.probabilities == b.probabilities and a.n_words == b.n_words  # read as the Markdown it displays


@pytest.mark.parametrize(("export", "column"), [(CHATGPT_EXPORT, "mapping"), (CLAUDE_EXPORT, "chat_messages")],
                         ids=["chatgpt", "claude"])
def test_the_assistants_data_exports_read_as_their_assistant_turns(tmp_path, export, column) -> None:
    """`whowrote predict conversations.json` on a ChatGPT or Claude data export: one result per
    conversation, the assistant's shown turns (not a regenerated answer, a code run or an image)."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    (item,) = iter_items([str(path)])
    assert item.error is None and item.text == ANSWER.strip() + "\n\n" + SECOND.strip()
    assert item.id == export[0].get("id", export[0].get("uuid"))  # ChatGPT's id, Claude's uuid
    assert item.warnings == [f"a conversation record ({column!r}): only the assistant's 2 turn(s) were "
                             "attributed, not the user's 2"]


def test_the_assistants_data_exports_are_labelled_corpora(tmp_path) -> None:
    """`load_corpus` (train-probe, data audit/split) reads an export as chat texts labelled by their
    maker: ChatGPT's by the model most of the shown answers name (a regenerated answer's slug does
    not count; a slug the rules would not read as ChatGPT's is prefixed), Claude's as `claude`,
    Gemini's as `gemini` (its HTML answers marked, and read as Markdown by train-probe)."""
    pytest.importorskip("pandas")
    import copy

    from whowrote.data import load_corpus

    chatgpt = [copy.deepcopy(CHATGPT_EXPORT[0]) for _ in range(3)]
    for conv, slugs in zip(chatgpt, [("gpt-4o", "o1", "o1"), ("gpt-4o", "o1", "gpt-4o"), ("auto", "auto", "auto")],
                           strict=True):
        for node, slug in zip(("old", "a1", "a2"), slugs, strict=True):
            conv["mapping"][node]["message"]["metadata"] = {"model_slug": slug}
    chatgpt[0]["id"], chatgpt[1]["id"], chatgpt[2]["id"] = "c1", "c2", "c3"
    chatgpt[1]["mapping"]["a1"]["message"]["metadata"] = {}  # no slug here: the rest decide
    chatgpt[1]["default_model_slug"] = "gpt-4"
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(chatgpt), encoding="utf-8")
    corpus = load_corpus([path])
    assert list(corpus.model) == ["o1", "gpt-4o", "chatgpt auto"]
    assert set(corpus.provider) == {"CHATGPT"} and set(corpus.genre) == {"chat"}
    assert list(corpus.id) == ["c1", "c2", "c3"] and set(corpus.text) == {ANSWER.strip() + "\n\n" + SECOND.strip()}
    assert any("ChatGPT's data export: each conversation labelled by its maker" in n for n in corpus.attrs["load_notes"])
    path.write_text(json.dumps(CLAUDE_EXPORT), encoding="utf-8")
    claude = load_corpus([path])
    assert list(claude.provider) == ["CLAUDE"] and list(claude.model) == ["claude"] and list(claude.id) == ["c2"]
    path.write_text(json.dumps(GEMINI_EXPORT), encoding="utf-8")
    gemini = load_corpus([path])  # the feedback entry has no answer: dropped as empty
    assert list(gemini.provider) == ["GEMINI"] and list(gemini.model) == ["gemini"] and list(gemini.genre) == ["chat"]
    assert list(gemini.text) == [GEMINI_ANSWER_HTML] and list(gemini.markup) == ["html"]
    assert list(gemini.topic) == [f"Prompted {ASK}".strip()]
    from whowrote.style.train import training_corpus  # train-probe reads the HTML as the Markdown it displays

    (text,) = training_corpus([path]).text
    assert text.startswith("## Planting\n\n") and "<p>" not in text and "- in autumn" in text
    labelled = [{**CLAUDE_EXPORT[0], "model": "claude-3-opus-20240229"}]  # a model column of the user's own wins
    path.write_text(json.dumps(labelled), encoding="utf-8")
    assert list(load_corpus([path]).model) == ["claude-3-opus-20240229"]


def test_an_export_pasted_whole_reads_every_conversation_as_one_text() -> None:
    """An export piped to `predict -` or pasted on the page is one text: every conversation's
    assistant turns (before: its JSON source, the user's turns and metadata included), and a warning
    that says how many conversations it held and how to get one result each."""
    from whowrote.style.textcheck import inspect_text

    both = ANSWER.strip() + "\n\n" + SECOND.strip()
    check = inspect_text(json.dumps(CHATGPT_EXPORT + CLAUDE_EXPORT))
    assert check.text == both + "\n\n" + both
    assert check.warnings[0].startswith("a data export of 2 conversations, read as one text: the assistant's 4 turn(s), "
                                        "not the user's 4")
    gemini = inspect_text(json.dumps(GEMINI_EXPORT))  # the feedback entry holds no conversation: skipped
    assert gemini.text.startswith("## Planting") and "<p>" not in gemini.text
    one = inspect_text(json.dumps(CLAUDE_EXPORT))  # one conversation: the usual chat-log warning
    assert one.text == both and one.warnings[0].startswith("looks like a pasted conversation (a JSON chat log)")


def test_a_chatgpt_tree_with_a_cycle_or_no_root_ends() -> None:
    from whowrote.formats import mapping_turns

    loop = {"r": _node(None, None, ["a"], None), "a": _node("assistant", [ANSWER], ["b"], "r"),
            "b": _node("user", [ASK], ["a"], "a")}
    assert conversation_turns(loop) == (ANSWER.strip(), 1, 1)
    assert mapping_turns({"a": _node("user", [ASK], [], "x")}) is None  # no root
    assert conversation_turns({"mapping": "not a tree"}) is None
