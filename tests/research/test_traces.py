"""Trace-quirk analysis: cue families, length, repetition, echo and faithfulness on fixtures whose
claims are known to be true or false of their texts."""

from __future__ import annotations

import json

import pytest

from whowrote.cli import main
from whowrote.task.cues import cue_families, reason_text, repetition, tone
from whowrote.task.faithfulness import check_claims, rationale_faithfulness
from whowrote.traces.analyze import analyze_sources
from whowrote.types import WhowroteError

# Our own fixture texts. DASH: em-dashes and headers, no tables or lists. LIST: bullets and bold,
# no em-dashes. ASCII: a box-drawing diagram, no headers.
DASH = ("# On patience\n\nThe question — and it is a real one — is what we owe each other. Patience is not "
        "passive — it is a kind of attention that refuses to hurry. We wait — and in waiting we learn.\n\n"
        "## What follows\n\nI think the honest answer — the one worth keeping — is that care takes time, "
        "and time — unlike money — cannot be borrowed back once it is spent on the wrong things.")
LIST = ("There are several factors to consider when choosing a database:\n\n- **Cost**: licences and hosting.\n"
        "- **Scale**: how many writes per second you need.\n- **Risk**: what happens when a node fails.\n"
        "- **Skills**: what your team already knows.\n\nIn conclusion, the right choice can also depend on "
        "context, such as budget and timelines, and it may change as the product grows.")
ASCII = ("We must build a paradigm that is fundamentally robust. Consider the pipeline:\n\n"
         "┌────────┐    ┌────────┐\n│ ingest │───▶│ model  │\n└────────┘    └────────┘\n\n"
         "The architecture is profound in its simplicity: data flows in one direction, and every stage "
         "is replaceable without touching the others, which makes the system massively scalable.")


def completion(reason: str, label: str) -> str:
    return f"<reason_why>\n{reason}\n</reason_why>\n\n<answer>\n{label}\nConfidence: HIGH\n</answer>"


def test_reason_text_of_a_run_of_unclosed_tags_is_read_in_one_pass():
    # The old `<reason_why>(.*?)</reason_why>` search retried from every opening tag (80k chars: 13 s);
    # at 1.2 MB a quadratic search would not finish within the test run.
    text = "<reason_why>" * 100_000
    assert reason_text(text) == text[len("<reason_why>"):]
    assert reason_text(text + "</reason_why>") == text[len("<reason_why>"):]


def test_reason_text_and_cues_follow_the_spec():
    assert reason_text(completion("heavy em-dashes here", "CLAUDE")) == "heavy em-dashes here"
    assert reason_text("<reason_why> never closed and runs on") == "never closed and runs on"
    assert reason_text("<answer>CLAUDE</answer>") == ""
    fams = cue_families("The em-dash use, ## headers and numbered lists, plus a measured, academic tone")
    assert fams == {"em_dash", "headers", "lists_bullets", "hedging", "density"}
    assert cue_families("The voice is warm.") == set()
    assert tone("This is clearly the hallmark of it") == {"confident": True, "hedged": False}
    assert tone("It might perhaps be") == {"confident": False, "hedged": True}
    assert repetition("one two three four five six seven eight") == 0.0
    assert repetition("CLAUDE wait it is CLAUDE wait it is " * 10) > 0.8


@pytest.mark.parametrize(("reason", "text", "expected"), [
    ("Heavy use of em-dashes and markdown headers; there are no tables.", DASH, 1.0),
    ("The text uses bullet lists and frequent em-dashes.", DASH, 0.5),
    ("There are no em-dashes, and it uses tables.", DASH, 0.0),
    ("Bullet points with bold labels, and no em-dashes at all.", LIST, 1.0),
    ("Frequent em-dashes but no bullet lists.", LIST, 0.0),
    ("An ASCII diagram with box-drawing, and no headers.", ASCII, 1.0),
    ("It uses headers and an ASCII diagram.", ASCII, 0.5),
])
def test_faithfulness_on_known_true_and_false_claims(reason, text, expected):
    assert rationale_faithfulness(reason, text) == expected


def test_claim_polarity_and_uncheckable_rationales():
    kinds = {c.family: c.kind for c in check_claims("Few headers, heavy em-dashes, no tables, long sentences", DASH)}
    assert kinds == {"headers": "scarce", "em_dash": "abundant", "tables": "absent", "sentence_long": "abundant"}
    assert rationale_faithfulness("The voice is warm and sincere, like a letter.", DASH) is None
    assert rationale_faithfulness("", DASH) is None and rationale_faithfulness("uses headers", "") is None


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def sources(tmp_path):
    split = _write(tmp_path / "val.jsonl", [
        {"id": "d", "text": DASH, "provider": "CLAUDE", "genre": "blog", "topic": "t1", "category": "c", "model": "claude-x"},
        {"id": "l", "text": LIST, "provider": "CHATGPT", "genre": "blog", "topic": "t2", "category": "c", "model": "gpt-5"},
        {"id": "a", "text": ASCII, "provider": "GEMINI", "genre": "blog", "topic": "t3", "category": "c",
         "model": "gemini-2.5-pro"}])
    good = {"d": ("CLAUDE", "Heavy use of em-dashes and markdown headers; there are no tables in it."),
            "l": ("CHATGPT", "Bullet points with bold labels and no em-dashes at all, an enumerative register."),
            "a": ("GEMINI", "An ASCII diagram drawn with box-drawing characters, and no headers anywhere.")}
    sft = tmp_path / "sft"
    (sft).mkdir()
    (sft / "run.json").write_text(json.dumps({"split": str(split), "k": 2}))
    _write(sft / "traces.jsonl", [{"prompt_id": i, "sample": j, "gold": g, "pred": g, "correct": True,
                                    "truncated": False, "completion": completion(r, g)}
                                   for i, (g, r) in good.items() for j in range(2)])
    # a runaway trace: never closes the tag, echoes the input, false claims
    run = tmp_path / "rlsd"
    (run).mkdir()
    (run / "config.grpo.toml").write_text(f'[data]\nval = "{split}"\n')
    echo_text = " ".join(DASH.split()[:60])
    _write(run / "evals" / "step00010.traces.jsonl", [
        {"prompt_id": 0, "sample": 0, "id": "d", "gold": "CLAUDE", "pred": "", "correct": False, "truncated": True,
         "completion": "<reason_why>It uses bullet lists and tables. " + echo_text * 3}])
    return {"split": split, "sft": sft, "rlsd": run / "evals" / "step00010.traces.jsonl"}


def test_sources_compare_recipes(sources):
    stats = analyze_sources([f"sft={sources['sft']}", str(sources["rlsd"])])
    assert list(stats) == ["sft", "rlsd@10"]
    s, r = stats["sft"], stats["rlsd@10"]
    assert s["n"] == 6 and s["accuracy"] == 1.0 and s["n_with_reason"] == 6 and s["texts_found"] == 6
    assert s["faithfulness"] == 1.0 and s["n_claims"] == 2 * (3 + 3 + 2) and s["concrete_fraction"] == 1.0
    assert s["claims_by_family"]["em_dash"] == {"n": 4, "true": 4}
    assert s["per_provider"]["GEMINI"]["cue_families"]["ascii_diagram"] == 2
    assert len(s["per_provider"]["CLAUDE"]["examples"]) == 1  # the two samples are duplicates
    assert r["truncation_rate"] == 1.0 and r["median_reason_words"] > 150
    assert r["faithfulness"] == 0.0 and r["median_echo"] > 0.8 and r["median_repetition"] > 0.5
    # the baseline: the same true rationales checked against the next example's text are mostly false
    assert s["faithfulness_other_text"] is not None and s["faithfulness_other_text"] <= 0.5
    assert r["faithfulness_other_text"] is None  # one text: no other text to check against


def test_cli_writes_report_and_fails_cleanly(sources, tmp_path, capsys):
    out = tmp_path / "report"
    with pytest.raises(SystemExit) as e:
        main(["traces", str(out), f"sft={sources['sft']}", f"rlsd={sources['rlsd']}"])
    assert e.value.code in (0, None)
    assert {p.name for p in out.iterdir()} == {"summary.json", "report.html", "cues.png", "lengths.png", "rates.png"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sft"]["faithfulness"] == 1.0 and summary["rlsd"]["faithfulness"] == 0.0
    page = (out / "report.html").read_text()
    assert "<h2>sft</h2>" in page and "data:image/png;base64," in page
    assert (out / "cues.png").read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["traces", str(out), str(tmp_path / "missing.jsonl")])
    assert e.value.code == 1 and "trace file not found" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.jsonl", [{"id": 1}])
    with pytest.raises(SystemExit) as e:
        main(["traces", str(out), str(bad)])
    assert e.value.code == 1 and "not a trace record" in capsys.readouterr().err
    assert json.loads((out / "summary.json").read_text()) == summary  # a failed run leaves the old report


def test_reads_real_harness_and_trainer_traces(tiny_model, tmp_path):
    # traces written by the eval harness and by the trainer's in-loop evaluator (tiny random model)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from whowrote.llm.backends import TransformersBackend
    from whowrote.llm.config import EvalConfig
    from whowrote.llm.evaluate import run_eval
    from whowrote.train.config import InLoopEval
    from whowrote.train.data import write_rows
    from whowrote.train.evaluation import evaluate_policy, harness_config

    rows = [{"id": k, "text": t, "provider": p, "genre": "blog", "topic": k, "category": "c", "model": m}
            for k, t, p, m in (("d", DASH, "CLAUDE", "claude-sonnet-4"), ("l", LIST, "CHATGPT", "gpt-5"),
                               ("a", ASCII, "GEMINI", "gemini-2.5-pro"))]
    split = write_rows(tmp_path / "val.jsonl", rows)
    model, tok = AutoModelForCausalLM.from_pretrained(tiny_model), AutoTokenizer.from_pretrained(tiny_model)
    run_eval(EvalConfig(split=str(split), out=str(tmp_path / "harness"), k=2, max_new_tokens=6),
             backend=TransformersBackend(model, tok))
    loop_cfg = harness_config(InLoopEval(max_new_tokens=6), ("CLAUDE", "CHATGPT", "GEMINI"))
    _, loop_traces = evaluate_policy(model, tok, rows, loop_cfg)
    run = tmp_path / "loop"
    (run / "config.grpo.toml").parent.mkdir()
    (run / "config.grpo.toml").write_text(f'[data]\nval = "{split}"\n')
    write_rows(run / "evals" / "step00000.traces.jsonl", loop_traces)
    stats = analyze_sources([str(tmp_path / "harness"), str(run / "evals" / "step00000.traces.jsonl")])
    assert stats["harness"]["n"] == 6 and stats["harness"]["texts_found"] == 6
    assert stats["loop@0"]["n"] == 3 and stats["loop@0"]["texts_found"] == 3


def test_torn_last_line_is_skipped_but_a_bad_middle_line_is_refused(tmp_path):
    from whowrote.traces.analyze import read_records

    good = json.dumps({"completion": completion("heavy em-dashes in it", "CLAUDE"), "gold": "CLAUDE"})
    torn = tmp_path / "torn.jsonl"
    torn.write_text(good + "\n" + good[:20])  # an interrupted write
    assert len(read_records(torn)) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good + "\n{oops\n" + good + "\n")
    with pytest.raises(WhowroteError, match=":2: not a JSON line"):
        read_records(bad)
