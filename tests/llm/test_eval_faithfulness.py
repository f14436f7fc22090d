"""Rationale faithfulness in the eval harness: per trace, in the summary, on screen, once per text."""

from __future__ import annotations

import json

import pytest
from word_backend import WordTokens

from whowrote.llm.backends import Sample, SamplingParams
from whowrote.llm.config import EvalConfig
from whowrote.llm.evaluate import run_eval

PROSE = ("The plan is simple \u2014 start small \u2014 then grow \u2014 and keep every promise \u2014 "
         "as the team agreed \u2014 last spring.")
MARKDOWN = PROSE + ("\n\n## Overview\n\n- First point about the plan.\n- Second point about scope.\n"
                    "- Third point about timing.\n\n## Details\n\nMore text follows here.")
PLAIN = ("We walked to the river in the morning and talked about the harvest. The light was soft and the "
         "water was slow. Nobody was in a hurry that day.")
FAITHFUL = "The text uses markdown headers and bullet lists, with heavy em-dashes throughout."
UNFAITHFUL = "The text has no headers, no bullet lists and no em-dashes at all."
NO_CLAIM = "The warm and sincere voice points to one particular assistant here."
TRUE_ABSENCE = "There are no headers and no bullet lists in this plain prose."


class Scripted(WordTokens):
    """Sample 0 / 1 of the markdown text: the faithful / the unfaithful rationale; of the plain
    text: no checkable claim / a true one. Tokens are words."""

    def generate(self, prompts, params: SamplingParams):
        out = []
        for m in prompts:
            md = "plan" in m[-1]["content"]
            reasons = (FAITHFUL, UNFAITHFUL) if md else (NO_CLAIM, TRUE_ABSENCE)
            out.append([Sample(f"<reason_why>{reasons[j]}</reason_why><answer>CLAUDE</answer>", "stop", 10, 20)
                        for j in range(params.k)])
        return out


@pytest.fixture()
def split(tmp_path):
    rows = [{"id": "md", "text": MARKDOWN, "provider": "CLAUDE"}, {"id": "plain", "text": PLAIN, "provider": "GEMINI"}]
    p = tmp_path / "split.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def _run(split, out, **kw):
    cfg = EvalConfig(**{"split": str(split), "out": str(out), "model": "scripted", "k": 2, "batch_size": 2, **kw})
    s = run_eval(cfg, backend=Scripted())
    traces = {(t["prompt_id"], t["sample"]): t for t in map(json.loads, (out / "traces.jsonl").open())}
    return s, traces


def test_faithfulness_per_trace_and_in_the_summary(split, tmp_path):
    s, traces = _run(split, tmp_path / "o")
    assert (traces["md", 0]["claims_checked"], traces["md", 0]["claims_true"]) == (3, 3)
    assert traces["md", 0]["faithfulness"] == 1.0
    assert (traces["md", 1]["claims_checked"], traces["md", 1]["claims_true"]) == (3, 0)
    assert traces["md", 1]["faithfulness"] == 0.0
    assert traces["plain", 0]["claims_checked"] == 0 and traces["plain", 0]["faithfulness"] is None
    assert traces["plain", 1]["faithfulness"] == 1.0  # "no headers, no lists" is true of plain prose
    assert s["faithfulness"] == pytest.approx(round(2 / 3, 4))  # mean over the 3 traces with a claim
    assert s["faithfulness_coverage"] == 0.75  # 3 of 4 traces make a checkable claim
    n_claims = [traces[k]["claims_checked"] for k in (("md", 0), ("md", 1), ("plain", 0), ("plain", 1))]
    assert n_claims[:3] == [3, 3, 0] and n_claims[3] > 0
    assert s["claims_per_trace"] == pytest.approx(round(sum(n_claims) / 4, 4))  # the claimless trace counts
    # each rationale checked against the other text of its batch: the faithful markdown rationale is
    # false of the plain text, the denial true of it, the plain text's true absence false of the post
    assert [traces[k]["faithfulness_other_text"] for k in (("md", 0), ("md", 1), ("plain", 0), ("plain", 1))] == \
        [0.0, 1.0, None, 0.0]
    assert s["faithfulness_other_text"] == pytest.approx(round(1 / 3, 4))
    on_disk = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert on_disk["faithfulness"] == s["faithfulness"]
    assert list(on_disk).index("faithfulness") == list(on_disk).index("accuracy") + 1  # next to accuracy


def test_claims_are_checked_against_the_text_the_model_was_shown(split, tmp_path):
    # Cut to its first 20 words, the markdown text is only the dashed prose: no headers, no lists.
    _, traces = _run(split, tmp_path / "cut", max_text_tokens=20)
    assert traces["md", 0]["claims_true"] == 1  # only "heavy em-dashes" is still true
    assert traces["md", 1]["claims_true"] == 2  # "no headers", "no bullet lists" now true


def test_a_batch_of_one_text_has_no_baseline(split, tmp_path):
    s, traces = _run(split, tmp_path / "one", batch_size=1)
    assert all(t["faithfulness_other_text"] is None for t in traces.values())
    assert s["faithfulness_other_text"] is None and s["faithfulness"] == pytest.approx(round(2 / 3, 4))


def test_features_are_measured_once_per_text(split, tmp_path, monkeypatch):
    import whowrote.task.faithfulness as faith

    calls = []
    real = faith.measured
    monkeypatch.setattr(faith, "measured", lambda text: calls.append(text) or real(text))
    _run(split, tmp_path / "once")
    assert len(calls) == 2  # 2 texts x k = 2 samples


def test_report_shows_faithfulness_next_to_accuracy(split, tmp_path):
    from rich.console import Console

    from whowrote.llm.report import faithfulness_line, render_summary

    s, _ = _run(split, tmp_path / "r")
    console = Console(record=True, width=120)
    render_summary(s, console=console)
    lines = console.export_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "accuracy / pass@1" in line)
    assert "rationale faithfulness" in lines[at + 1]
    per = f"{s['claims_per_trace']:.1f}"
    assert f"0.667 (claims checkable in 75.0% of traces, {per} a trace; 0.333 against another text)" in lines[at + 1]
    assert faithfulness_line({"faithfulness": None, "faithfulness_coverage": 0.0}) == \
        "- (no checkable claim in any trace)"
    assert faithfulness_line({}) == "-"  # a summary written before the metric existed


def test_summary_of_old_traces_without_claim_fields():
    from whowrote.llm.metrics import summarize

    recs = [{"prompt_id": "a", "gold": "CLAUDE", "pred": "CLAUDE", "correct": True}]
    s = summarize(recs, ["CLAUDE", "CHATGPT", "GEMINI"])
    assert s["faithfulness"] is None and s["faithfulness_coverage"] is None and s["faithfulness_other_text"] is None
    assert s["claims_per_trace"] is None


def test_checker_reads_stated_measurements_and_both_dash_spellings():
    from whowrote.task.faithfulness import check_claims

    dashed = "We start -- slowly -- and then -- at last -- we finish. " * 4  # "--", no U+2014
    plain = "We start slowly and then at last we finish. " * 4
    # a tell label with a number claims that number: the style model measures 71.7 dashes per 1,000
    # characters here ("--" counts; its plain layout drops the final space; "21.4" stays one clause),
    # so 71.7 is true and 21.4 is made up
    [c] = check_claims("Dashes (\u2014 or --): 71.7 per 1,000 characters, typical of CLAUDE (1.9).", dashed)
    assert (c.family, c.kind, c.true) == ("value:double_hyphen", "value", True)
    assert round(c.value, 1) == 71.7 and c.reference == 71.7
    [c] = check_claims("Dashes (\u2014 or --): 21.4 per 1,000 characters, typical of CLAUDE (1.9).", dashed)
    assert (c.kind, c.true) == ("value", False)
    [c] = check_claims("Bold markers (**): 0.0 per 1,000 characters.", plain)
    assert (c.family, c.kind, c.true) == ("value:md_bold", "value", True)
    [c] = check_claims("Hyphens and en-dashes: 6.6 per 1,000 characters.", plain)
    assert (c.family, c.true) == ("value:hyphen", False)  # its own feature, not the em-dash family
    # a stated rate that is no tell label falls back to the family check
    [c] = check_claims("Headings: 2.5 per 1,000 words.", plain)
    assert (c.family, c.kind, c.true) == ("headers", "present", False)  # something the text lacks
    # within 20 % + 0.05 of the measured value is true, beyond it is not
    semi = "One; two; three. " * 10  # 2 semicolons per 17 characters: 117.6 per 1,000
    assert [c.true for c in check_claims("Semicolons: 130.0 per 1,000 characters.", semi)] == [True]
    assert [c.true for c in check_claims("Semicolons: 150.0 per 1,000 characters.", semi)] == [False]
    # raw-text typography: the canonical form has no em-dash, the tell quotes the raw text's
    em = "We start \u2014 slowly \u2014 and then we finish. " * 4
    [c] = check_claims("Em-dashes: 50.0 per 1,000 characters.", em)  # 8 in 160 characters
    assert (c.family, c.true) == ("value:punc_emdash", True)


def test_in_loop_eval_reports_faithfulness_too(monkeypatch):
    # train/'s in-loop eval runs the same sampling loop and summary: the metric reaches metrics.jsonl.
    import whowrote.train.evaluation as ev
    from whowrote.train.config import InLoopEval

    class Fake(Scripted):
        def __init__(self, *a, **k):
            self.tokens_per_s, self.gen_seconds = 0.0, 0.0

    monkeypatch.setattr(ev, "TransformersBackend", Fake)
    hcfg = ev.harness_config(InLoopEval(k=2), ["CLAUDE", "CHATGPT", "GEMINI"])
    rows = [{"text": MARKDOWN, "provider": "CLAUDE"}, {"text": PLAIN, "provider": "GEMINI"}]
    summary, traces = ev.evaluate_policy(None, None, rows, hcfg)
    assert [t["faithfulness"] for t in traces] == [1.0, 0.0, None, 1.0]
    assert summary["faithfulness"] == pytest.approx(round(2 / 3, 4)) and summary["faithfulness_coverage"] == 0.75
