"""``whowrote predict`` / ``train-probe``: the JSONL contract, formats, exit codes and bad inputs."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.types import LABELS

runner = CliRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


@pytest.fixture(scope="module")
def posts(tmp_path_factory, corpus):
    d = tmp_path_factory.mktemp("posts")
    blogs = corpus[corpus["genre"] == "blog"].iloc[:4]
    (d / "sub").mkdir()
    for i, text in enumerate(blogs["text"]):
        (d / ("sub" if i % 2 else ".") / f"post{i}.md").write_text(text)
    (d / "notes.txt").write_text(corpus[corpus["genre"] == "debate"]["text"].iloc[0])
    (d / "ignored.py").write_text("print('not a post')")
    return d


def test_jsonl_contract(posts):
    res = run("predict", str(posts), "--jsonl")
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(lines) == 5  # four .md (one level down too) + one .txt; .py ignored
    for rec in lines:
        assert {"path", "provider", "uncertain", "probabilities", "tells"} <= set(rec)
        assert rec["provider"] in LABELS and isinstance(rec["uncertain"], bool)
        assert set(rec["probabilities"]) == set(LABELS)
        assert sum(rec["probabilities"].values()) == pytest.approx(1.0, abs=1e-9)
        assert rec["tells"] and all("sentence" in t for t in rec["tells"])


def test_formats_glob_stdin_and_explain(posts, corpus):
    res = run("predict", str(posts / "*.md"), "--json", "--explain", "1")
    recs = json.loads(res.stdout)
    assert res.exit_code == 0 and len(recs) == 2 and all(len(r["tells"]) == 1 for r in recs)
    res = run("predict", str(posts / "post0.md"), "--csv")
    header, row = res.stdout.splitlines()[:2]
    assert header.startswith("path,id,provider,uncertain,p_CLAUDE") and row.split(",")[2] in LABELS
    res = run("predict", "-", "--jsonl", input=corpus["text"].iloc[10])
    assert res.exit_code == 0 and json.loads(res.stdout)["path"] == "-"
    res = run("predict", str(posts / "post0.md"))  # the human table
    assert res.exit_code == 0 and "provider" in res.stdout and "typical of" in res.stdout


def test_jsonl_and_csv_tables_with_column(tmp_path, corpus):
    rows = corpus.iloc[:3]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps({"id": i, "story": t}) + "\n" for i, t in zip(rows["id"], rows["text"], strict=True)))
    res = run("predict", str(tmp_path / "t.jsonl"), "--column", "story", "--jsonl")
    recs = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code == 0 and [r["id"] for r in recs] == [str(i) for i in rows["id"]]
    res = run("predict", str(tmp_path / "t.jsonl"), "--jsonl")  # "story" is not a known text column
    assert res.exit_code == 1 and res.stdout == "" and str(res.exception).startswith(f"{tmp_path / 't.jsonl'}: no text column")


def test_csv_has_the_id_column_of_jsonl(tmp_path, corpus):
    import csv
    import io

    rows = corpus.iloc[:2]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps({"id": f"row-{i}", "text": t}) + "\n"
                                              for i, t in enumerate(rows["text"])))
    res = run("predict", str(tmp_path / "t.jsonl"), "--csv")
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert res.exit_code == 0 and [r["id"] for r in table] == ["row-0", "row-1"]
    jsonl = [json.loads(x) for x in run("predict", str(tmp_path / "t.jsonl"), "--jsonl").stdout.splitlines()]
    assert [r["id"] for r in jsonl] == [r["id"] for r in table]
    assert [r["provider"] for r in jsonl] == [r["provider"] for r in table]


@pytest.mark.parametrize("flags", [("--json", "--csv"), ("--jsonl", "--csv"), ("--json", "--jsonl")])
def test_two_output_formats_is_a_usage_error(tmp_path, flags):
    (tmp_path / "a.md").write_text("some words")
    proc = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "predict",
                           str(tmp_path / "a.md"), *flags], capture_output=True, text=True)
    assert proc.returncode == 2 and "not allowed with" in proc.stderr and proc.stdout == ""


def test_version_flag():
    from whowrote.cli.version import version

    proc = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "--version"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == f"whowrote {version()}\n"
    assert version().split(".")[0].isdigit()


def test_predict_does_not_import_the_cli_framework(tmp_path):
    """Start-up: the predict path loads no typer/click/pydantic/rich/pandas/sklearn/scipy, and no
    whowrote.data module (its readers need pandas; predict's inputs share only whowrote.formats)."""
    (tmp_path / "a.md").write_text("A plain sentence about gardens. " * 30)
    code = ("import sys; from whowrote.cli import main\n"
            "try:\n    main(['predict', sys.argv[1], '--jsonl'])\nexcept SystemExit:\n    pass\n"
            "heavy = ('typer', 'click', 'pydantic', 'rich', 'pandas', 'sklearn', 'scipy', 'pyarrow', 'yaml')\n"
            "data = {m for m in sys.modules if m.startswith('whowrote.data')}\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & set(heavy) | data), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.md")], capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["provider"] in LABELS
    assert proc.stderr.strip() == "[]"


def test_train_probe_refuses_the_bundled_model_dir(tmp_path):
    from whowrote.style.io import DEFAULT_DIR

    before = (DEFAULT_DIR / "model.npz").stat().st_mtime
    res = run("train-probe", "--corpus", str(tmp_path / "x.jsonl"), "--out", str(DEFAULT_DIR), "--no-check")
    assert res.exit_code == 1 and "--force" in str(res.exception) and "models/mine" in str(res.exception)
    assert (DEFAULT_DIR / "model.npz").stat().st_mtime == before


def test_jobs_give_the_same_results_in_order(tmp_path, corpus):
    texts = corpus["text"].iloc[:40].tolist()
    (tmp_path / "t.jsonl").write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    one = run("predict", str(tmp_path / "t.jsonl"), "--jsonl")
    two = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "predict",
                          str(tmp_path / "t.jsonl"), "--jsonl", "--jobs", "2"], capture_output=True, text=True)
    assert one.exit_code == 0 and two.returncode == 0, two.stderr
    assert two.stdout == one.stdout and len(two.stdout.splitlines()) == 40


def test_jobs_beyond_the_cpus_run_as_many_processes_as_cpus(tmp_path, corpus, monkeypatch):
    # audit, session 30: --jobs 10000 forked 9,999 workers for 100 texts (minutes, ~5 GB)
    import whowrote.cli.predict as predict_cli

    asked = []
    real = predict_cli.attribute_stream

    def spy(model, path, items, options, jobs=1, lines=False):
        asked.append(jobs)
        return real(model, path, items, options, 1, lines)

    monkeypatch.setattr(predict_cli, "attribute_stream", spy)
    (tmp_path / "t.jsonl").write_text(json.dumps({"text": corpus["text"].iloc[0]}) + "\n")
    for cpus, jobs, runs_as in ((3, "10000", 3), (1, "10000", 2), (1, "2", 2), (8, "1", 1)):
        monkeypatch.setattr(predict_cli, "usable_cores", lambda cpus=cpus: cpus)
        res = run("predict", str(tmp_path / "t.jsonl"), "--jsonl", "--jobs", jobs)
        assert res.exit_code == 0 and asked[-1] == runs_as and len(res.stdout.splitlines()) == 1


def test_bad_inputs_give_explicit_results_not_tracebacks(tmp_path):
    files = {
        "empty.md": b"",
        "binary.txt": bytes(range(256)) * 20,
        "latin1.txt": "Caf\xe9 cr\xe8me, a short note about nothing much at all.".encode("latin-1"),
        "page.md": b"<html><body>" + b"<p>This is a paragraph of text that was saved as HTML.</p>" * 40 + b"</body></html>",
        "chinese.txt": ("\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u6587\u672c\u3002" * 200).encode(),
        "five.md": b"just five words right here",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    res = run("predict", *(str(tmp_path / n) for n in files), "--jsonl")
    assert res.exit_code == 3, res.output  # one unreadable (binary) among readable ones
    recs = {r["path"].rsplit("/", 1)[-1]: r for r in map(json.loads, res.stdout.splitlines())}
    assert set(recs) == set(files)
    for r in recs.values():
        assert sum(r["probabilities"].values()) == pytest.approx(1.0, abs=1e-9)
    assert recs["binary.txt"]["uncertain"] and "binary" in recs["binary.txt"]["error"]
    assert recs["empty.md"]["uncertain"] and any("empty" in w for w in recs["empty.md"]["warnings"])
    assert any("UTF-8" in w for w in recs["latin1.txt"]["warnings"])
    assert any("HTML" in w for w in recs["page.md"]["warnings"])
    assert recs["chinese.txt"]["uncertain"] and recs["five.md"]["uncertain"]
    assert any("short text" in w for w in recs["five.md"]["warnings"])


def test_huge_file_and_missing_paths(tmp_path, corpus):
    big = tmp_path / "big.md"
    unit = corpus["text"].iloc[0].encode()
    with open(big, "wb") as f:
        f.write(unit * (50_000_000 // len(unit) + 1))
    res = run("predict", str(big), "--jsonl")
    assert res.exit_code == 0
    rec = json.loads(res.stdout)
    assert any("MB" in w for w in rec["warnings"])
    res = run("predict", str(tmp_path / "nope.md"), "--jsonl")
    assert res.exit_code == 1 and "no such file" in json.loads(res.stdout)["error"]
    res = run("predict", str(tmp_path / "nope.md"))
    assert res.exit_code == 1 and "Traceback" not in res.output


def test_bad_model_path_is_one_line_error(tmp_path):
    proc = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "predict", "-",
                           "--model", str(tmp_path)], input="some text", capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "no model at" in proc.stderr
    # a file that is not model.json / model.npz is named itself (it used to say "no model at" its folder)
    (tmp_path / "notes.txt").write_text("mine")
    proc = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "predict", "-",
                           "--model", str(tmp_path / "notes.txt")], input="some text", capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == f"whowrote: error: {tmp_path / 'notes.txt'} is a file, not a model folder (model.json and model.npz)\n"


def test_train_probe_writes_a_loadable_model(tmp_path, corpus):
    sample = corpus[corpus["genre"] == "debate"].sample(200, random_state=0)
    src = tmp_path / "debates.jsonl"  # its genre: debate
    src.write_text("".join(json.dumps({"id": r.id, "text": r.text, "model": r.model, "topic": r.topic}) + "\n"
                           for r in sample.itertuples()))
    res = run("train-probe", "--corpus", str(src), "--out", str(tmp_path / "m"), "--no-check")
    assert res.exit_code == 0, res.output
    res = run("predict", "-", "--model", str(tmp_path / "m"), "--jsonl", input=sample["text"].iloc[0])
    assert res.exit_code == 0 and json.loads(res.stdout)["provider"] in LABELS
    assert (tmp_path / "m" / "MODEL_CARD.md").exists()
    import sklearn

    versions = json.loads((tmp_path / "m" / "model.json").read_text())["training"]["versions"]
    assert versions["scikit-learn"] == sklearn.__version__ and set(versions) == {"python", "numpy", "scikit-learn", "scipy"}
    assert json.loads((tmp_path / "m" / "model.json").read_text())["params"]["tree_iter"] == 300
    # --tree-iter reaches the trees: fewer rounds, a smaller model; out of range is a one-line error
    # the debates also train laid out with blank lines (one row more each), unless --blank-line-genres "" says none
    assert json.loads((tmp_path / "m" / "model.json").read_text())["training"]["augmentation"]["blank_line_rows"] == 200
    res = run("train-probe", "--corpus", str(src), "--out", str(tmp_path / "m20"), "--no-check", "--tree-iter", "20",
              "--blank-line-genres", "")
    assert res.exit_code == 0, res.output
    training = json.loads((tmp_path / "m20" / "model.json").read_text())["training"]
    assert training["augmentation"]["blank_line_rows"] == 0 and training["n_texts"] == 200
    assert json.loads((tmp_path / "m20" / "model.json").read_text())["params"]["tree_iter"] == 20
    assert (tmp_path / "m20" / "model.npz").stat().st_size < (tmp_path / "m" / "model.npz").stat().st_size
    res = run("train-probe", "--corpus", str(src), "--out", str(tmp_path / "m0"), "--no-check", "--tree-iter", "0")
    assert res.exit_code != 0 and "Traceback" not in res.output and not (tmp_path / "m0").exists()
    # --blend-iter adds its rounds of large-leaf trees (no split possible on 200 texts: one leaf a tree)
    res = run("train-probe", "--corpus", str(src), "--out", str(tmp_path / "mb"), "--no-check", "--tree-iter", "20",
              "--blend-iter", "5")
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "mb" / "model.json").read_text())["params"]["blend_iter"] == 5
    with np.load(tmp_path / "mb" / "model.npz") as z, np.load(tmp_path / "m20" / "model.npz") as z20:
        assert len(z["tree_roots"]) == len(z20["tree_roots"]) + 5 * len(LABELS)


def test_results_keep_input_order_when_some_inputs_are_unreadable(tmp_path):
    text = "A plain sentence about gardens and the weather in spring. " * 30
    rows = [{"text": text}, "not json", {"text": text + " More."}, [1], {"text": text + " End."}]
    (tmp_path / "mixed.jsonl").write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    res = run("predict", str(tmp_path / "mixed.jsonl"), str(tmp_path / "nope.md"), "--jsonl")
    assert res.exit_code == 3, res.output
    paths = [json.loads(x)["path"] for x in res.stdout.splitlines()]
    assert paths == [f"{tmp_path / 'mixed.jsonl'}:{n}" for n in range(1, 6)] + [str(tmp_path / "nope.md")]


def test_negative_explain_is_a_usage_error(tmp_path):
    (tmp_path / "a.md").write_text("some words")
    assert run("predict", str(tmp_path / "a.md"), "--explain", "-1").exit_code == 2


def test_tables_are_read_whole_and_deep_json_is_an_error(tmp_path, monkeypatch):
    from whowrote.cli import inputs

    monkeypatch.setattr(inputs, "MAX_BYTES", 200)  # a table is not cut at the single-text limit
    rows = [{"id": i, "text": f"row {i} " + "words " * 20} for i in range(10)]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = list(inputs.iter_items([str(tmp_path / "t.jsonl")]))
    assert [it.id for it in items] == [str(i) for i in range(10)] and not any(it.error for it in items)
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "deep.jsonl").write_text(json.dumps({"text": "fine"}) + "\n" + "[" * 100_000 + "\n")
    res = run("predict", str(tmp_path / "deep.json"), str(tmp_path / "deep.jsonl"), "--jsonl")
    recs = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code == 3 and [bool(r.get("error")) for r in recs] == [True, False, True]


def test_utf16_text_with_bom_is_read_not_called_binary(tmp_path):
    from whowrote.cli.decoding import decode

    item = decode("A short note — with a dash.".encode("utf-16"), "note.txt")
    assert item.error is None and item.text == "A short note — with a dash."
    assert decode(b"\xff\xfe\x00\xd8", "odd.txt").error  # lone surrogate: still refused


# Each as a user's file of that kind begins (nothing after the header has a NUL in its first
# 8 KB, so before this check the PDF was read as text and attributed). A PDF and a ZIP are read as
# documents (whowrote.style.documents): these broken ones are refused by the reader. (An RTF document
# is read since session 53: test_an_rtf_file_or_source_is_read_as_its_text; an Outlook .msg, a
# Compound File as an old .doc is, since session 54: tests/style/test_msg_reader.py.)
DOCUMENTS = {
    "essay.pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n"
                  + b"BT /F1 12 Tf (An essay about gardening, sentence after sentence.) Tj ET\n" * 200, "a PDF "),
    "essay.docx": (b"PK\x03\x04\x14\x00\x06\x00" + b"word/document.xml" * 50, "a ZIP archive"),
    "essay.doc": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "an Office compound file"),  # (read since session 54: a .msg)
    "photo.png": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "a PNG image"),
}


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_documents_and_images_are_refused_by_name(tmp_path, name):
    """A document or image format is one line naming it and what to do, with a non-zero exit,
    never an attribution of its source."""
    raw, kind = DOCUMENTS[name]
    (tmp_path / name).write_bytes(raw)
    res = run("predict", str(tmp_path / name), "--jsonl")
    (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code != 0 and rec["uncertain"] and rec["n_words"] == 0
    advice = "copy its text into a .md or .txt file" if name != "photo.png" else "save or export it as plain text"
    assert rec["error"].startswith(f"{kind}") and advice in rec["error"]
    table = tmp_path / "rows.csv"  # the same bytes named as a table: the same refusal
    table.write_bytes(raw)
    (rec,) = [json.loads(x) for x in run("predict", str(table), "--jsonl").stdout.splitlines()]
    assert rec["error"].startswith(kind)


ESSAY_RTF = (b"{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}}\\f0\\fs24 "
             + b"An essay about gardening, sentence after sentence.\\par\n" * 200 + b"}")


def test_an_rtf_file_or_source_is_read_as_its_text(tmp_path):
    """An RTF document (a .rtf file, the same bytes under a .txt name after a BOM and spaces, its
    source given as text to the Python API) is read as its text, never attributed as its source."""
    from whowrote.style import load_model

    (tmp_path / "essay.rtf").write_bytes(ESSAY_RTF)
    (tmp_path / "essay.txt").write_bytes(b"\xef\xbb\xbf  " + ESSAY_RTF)
    for name in ("essay.rtf", "essay.txt"):
        res = run("predict", str(tmp_path / name), "--jsonl")
        (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
        assert res.exit_code == 0 and rec["n_words"] == 7 * 200 and "RTF document" in rec["warnings"][0], name
        assert "rtf1" not in json.dumps(rec["tells"])
    (result,) = load_model().attribute([ESSAY_RTF.decode()])
    assert result.warnings[0].startswith("input is an RTF document's source") and result.n_words == 7 * 200
    (prose,) = load_model().attribute(["A paragraph about {\\rtf1} files and gardening, sentence after sentence. " * 40])
    assert not any("RTF" in w for w in prose.warnings)  # mentioning RTF is not being RTF


def test_truncated_stdin_is_warned_about(monkeypatch):
    import io

    from whowrote.cli import inputs

    monkeypatch.setattr(inputs, "MAX_BYTES", 100)
    (item,) = inputs.iter_items(["-"], stdin=io.BytesIO(b"word " * 50))
    assert len(item.text) == 100 and any("only the first" in w for w in item.warnings)
    (item,) = inputs.iter_items(["-"], stdin=io.BytesIO(b"word " * 20))
    assert item.warnings == []


def test_table_rows_carry_their_own_decoding_warning(tmp_path):
    """Tables are streamed: the row with the undecodable byte says so, the clean row does not."""
    from whowrote.cli.inputs import iter_items

    for name, data in (("t.jsonl", b'{"text": "caf\xe9 au lait"}\n{"text": "plain"}\n'),
                       ("t.csv", b'text\n"caf\xe9 au lait"\nplain\n')):
        (tmp_path / name).write_bytes(data)
        items = list(iter_items([str(tmp_path / name)]))
        assert len(items) == 2 and any("UTF-8" in w for w in items[0].warnings) and items[1].warnings == []
