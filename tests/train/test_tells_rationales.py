"""star.mode = "tells" / "fallback": cold-start rationales built without the LM, on real corpus texts.

The tells rows must be true statements of their text (every number re-measured here), support the
gold label (also where the style model prefers another), pass STaR's filters and become the same
rationale SFT targets as STaR rows; the cold start runs its SFT stage on them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest
from train_helpers import tiny_cfg

from whowrote.train.config import StarRecipe
from whowrote.train.tells_rationales import build_lm_free, tells_rows
from whowrote.typography import plain_layout, to_ascii

LABELS = ["CLAUDE", "CHATGPT", "GEMINI"]
_PROVIDER = re.compile(r"\b(CLAUDE|CHATGPT|GEMINI)\b")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_SENTENCE_END = re.compile(r"(?<=\.) (?=[A-Z])")


@pytest.fixture(scope="module")
def style():
    from whowrote.style import load_model

    return load_model()


@pytest.fixture(scope="module")
def rows(corpus):
    """4 texts per provider and genre (debate, fiction, longform), at most 6,000 characters each."""
    df = corpus[corpus.provider.isin(LABELS) & corpus.genre.isin(["debate", "fiction", "longform"])]
    df = df.groupby(["genre", "provider"]).head(4)
    return [{"id": r["id"], "text": r["text"][:6000], "provider": r["provider"]}
            for r in df[["id", "text", "provider"]].to_dict("records")]


def _log(v: float) -> float:
    return math.copysign(math.log1p(abs(v)), v)


def check_sentence(sentence: str, name: str, gold: str, text: str, x: np.ndarray,
                   support: dict[str, np.ndarray], style) -> None:
    """One rationale sentence against the text's features, the model's norms and its attributions."""
    from whowrote.style.explain import CANONICAL_LABELS, fmt, typography_stats
    from whowrote.style.features import FEATURES

    named = _PROVIDER.findall(sentence)
    assert len(named) == 2 and named[0] == gold and named[1] != gold, sentence  # favours gold, vs a rival
    vs = named[1]
    k_fav, k_vs = (list(style.classes_).index(c) for c in (gold, vs))
    candidates = []  # (label, value, norm_fav, norm_vs, is_model_tell)
    if name in style.feature_names_:
        j = style.feature_names_.index(name)
        candidates.append((CANONICAL_LABELS.get(name, FEATURES[name].label), x[j], style.norms_[k_fav, j],
                           style.norms_[k_vs, j], True))
    typo = typography_stats(text)
    if name in typo:  # a typography tell: measured on the raw text, against the training data's typography norms
        norms = style.training_["typography_norms"][name]
        candidates.append((FEATURES[name].label, typo[name], norms[gold], norms[vs], False))

    def states(c: tuple) -> bool:
        numbers = _NUMBER.findall(sentence[len(c[0]):].replace("per 1,000", "per"))
        return sentence.lower().startswith(c[0].lower() + ": ") and numbers == [fmt(c[1]), fmt(c[2]), fmt(c[3])]

    found = [c for c in candidates if states(c)]
    assert found, f"{sentence!r} does not state the measured {name} and its norms: {candidates}"
    label, value, norm_fav, norm_vs, is_model = found[0]
    if is_model:
        assert support[vs][style.feature_names_.index(name)] > 0, sentence  # pushes the decision towards gold
    a, f, v = _log(value), _log(norm_fav), _log(norm_vs)
    said = sentence[len(label):].split(", ", 1)[1]  # the comparison, after "label: value unit" (a label may hold ", ")
    if re.match(r"above|higher|beyond", said):
        assert a > f > v, sentence
    elif re.match(r"below|lower|under", said):
        assert a < f < v, sentence
    else:
        assert re.match(r"typical of|close to|in line with", said) and abs(a - f) < abs(a - v), sentence


def test_tells_are_true_measurements_that_support_gold(rows, style):
    from whowrote.style.decision import decision_attributions

    X = style.features([r["text"] for r in rows])
    P = style.predict_proba(X)
    classes = [str(c) for c in style.classes_]
    # Relabel six texts to the provider the style model finds *least* likely: tells must still argue for gold.
    relabelled = []
    for i in range(0, len(rows), 6):
        worst = min(LABELS, key=lambda lab: P[i, classes.index(lab)])
        relabelled.append({**rows[i], "id": f"{rows[i]['id']}-relabelled", "provider": worst})
    data = rows + relabelled
    kept, stats = tells_rows(data, StarRecipe(mode="tells"), labels=LABELS)
    assert stats["tried"] == len(data) and len(kept) >= 0.9 * len(data), stats
    Xd = style.features([r["text"] for r in data])
    D = decision_attributions(style, Xd)
    by_id = {r["id"]: i for i, r in enumerate(data)}
    against_model = 0
    for row in kept:
        i = by_id[row["id"]]
        gold = row["provider"]
        g = classes.index(gold)
        support = {lab: D[i, g] - D[i, classes.index(lab)] for lab in LABELS if lab != gold}
        sentences = _SENTENCE_END.split(row["rationale"])
        assert 2 <= len(sentences) == len(row["tells"]) <= 4, row["rationale"]
        for sentence, name in zip(sentences, row["tells"], strict=True):
            check_sentence(sentence, name, gold, row["text"], Xd[i], support, style)
        against_model += row["style_pred"] != gold
    assert against_model >= 3  # relabelled texts kept, their tells arguing for the (new) gold


def test_tells_rows_pass_the_star_filters_and_become_rationale_sft_targets(rows):
    from whowrote.task.parser import parse_answer, reasoning
    from whowrote.train.data import rationale_target, sft_records
    from whowrote.train.star import SCAFFOLD_RE, clean_rationale, leaks

    cfg = StarRecipe(mode="tells")
    assert cfg.reject_label_in_reason  # the default: the label check is documented not to apply to tells
    kept, _ = tells_rows(rows, cfg, labels=LABELS)
    assert kept
    records = sft_records(kept, target="rationale", variant="3way")
    for row, rec in zip(kept, records, strict=True):
        r = row["rationale"]
        assert SCAFFOLD_RE.search(r) is None, r
        assert leaks(r, cfg, LABELS)  # it names providers (as norms): kept because the label check is exempt
        assert clean_rationale(f"<reason_why>{r}</reason_why>", cfg) == r
        assert cfg.min_words <= len(r.split()) <= cfg.max_words
        content = rec["completion"][0]["content"]
        assert content == rationale_target(r, row["provider"])
        assert reasoning(content) == r and parse_answer(content, LABELS) == row["provider"]
        assert rec["prompt"][-1]["content"] == plain_layout(to_ascii(row["text"]))  # the plain 3-way prompt on the same text


def test_too_few_tells_are_counted_and_stats_written(rows, tmp_path):
    data = [*rows[:6], {"id": "digits", "text": "12345 67890 " * 40, "provider": "GEMINI"}]
    out = tmp_path / "star.jsonl"
    kept, stats = build_lm_free(data, StarRecipe(mode="tells", cap_per_class=0), labels=LABELS, out_path=out)
    assert stats["too_few_tells"] == 1 and stats["rejected"]["too_few_tells"] == 1
    assert "digits" not in {r["id"] for r in kept}
    on_disk = [json.loads(line) for line in out.read_text().splitlines()]
    assert on_disk == kept
    written = json.loads(out.with_suffix(".stats.json").read_text())
    assert written["rows_per_provider"] == {lab: sum(r["provider"] == lab for r in kept) for lab in LABELS}
    assert written["mean_words"] == pytest.approx(np.mean([len(r["rationale"].split()) for r in kept]), abs=0.01)
    assert written["mode"] == "tells" and written["final_rows"] == len(kept)


def test_tells_rationales_are_faithful_by_the_eval_metric(rows):
    # The harness's faithfulness check reads the same kind of claims: tells rationales should pass it.
    from whowrote.task.faithfulness import rationale_faithfulness

    kept, _ = tells_rows(rows, StarRecipe(mode="tells"), labels=LABELS)
    scores = [s for r in kept if (s := rationale_faithfulness(r["rationale"], r["text"])) is not None]
    assert scores and np.mean(scores) >= 0.9, (len(scores), np.mean(scores))


def test_fallback_mode_writes_the_d1_sentence_without_the_lm(splits, tmp_path, monkeypatch):
    import whowrote.train.coldstart as cs
    from whowrote.train.config import load_config
    from whowrote.train.star import FALLBACK_RATIONALE

    monkeypatch.setattr(cs, "load_policy", lambda *a, **k: pytest.fail("the LM was loaded"))
    cfg = load_config(None, ['star.mode="fallback"', f'data.train="{splits["train"]}"', "data.max_text_tokens=0",
                             f'run.output_dir="{tmp_path}"'])
    path, stats = cs.run_star(cfg)
    kept = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(kept) == 12 and stats["rows_per_provider"] == dict.fromkeys(LABELS, 4)
    assert all(r["rationale"] == FALLBACK_RATIONALE.format(gold=r["provider"]) for r in kept)
    assert {r["star_mode"] for r in kept} == {"fallback"}


def test_tells_mode_needs_a_tokenizer_to_cut_texts(splits, tmp_path):
    from whowrote.train.coldstart import run_star
    from whowrote.train.config import load_config
    from whowrote.types import WhowroteError

    cfg = load_config(None, ['star.mode="tells"', f'data.train="{splits["train"]}"', f'run.output_dir="{tmp_path}"'])
    with pytest.raises(WhowroteError, match="set model.name_or_path .* or data.max_text_tokens=0"):
        run_star(cfg)


def test_coldstart_with_tells_runs_sft_on_a_tiny_model(tiny_model, splits, rows, tmp_path, monkeypatch, style,
                                                        capsys):
    from transformers import AutoTokenizer

    import whowrote.train.coldstart as cs
    from whowrote.style.explain import fmt
    from whowrote.train.data import write_rows

    train = write_rows(tmp_path / "train.jsonl", rows[:12])
    cfg = tiny_cfg(tiny_model, {**splits, "train": train}, tmp_path / "cs", 'star.mode="tells"',
                   'coldstart.stages=["star", "sft"]', "coldstart.sft_max_steps=2", 'data.val=""',
                   "data.max_text_tokens=300", "star.cap_per_class=0")
    # the star stage must not load the LM (the SFT stage loads it through the runner)
    monkeypatch.setattr(cs, "load_policy", lambda *a, **k: pytest.fail("the LM was loaded for tells"))
    dirs = cs.run_coldstart(cfg)
    star_rows = [json.loads(line) for line in (tmp_path / "cs" / "star.jsonl").read_text().splitlines()]
    assert star_rows and dirs["star"].endswith("star.jsonl")
    tok = AutoTokenizer.from_pretrained(tiny_model)
    x = style.features([r["text"] for r in star_rows])
    for r, xi in zip(star_rows, x, strict=True):
        assert len(tok(r["text"], add_special_tokens=False)["input_ids"]) <= 300 + 4  # the cut text ...
        first = _SENTENCE_END.split(r["rationale"])[0]  # ... is the text the tells were measured on
        assert fmt(xi[style.feature_names_.index(r["tells"][0])]) in first
    state = json.loads((tmp_path / "cs" / "sft" / "train_result.coldstart-sft.json").read_text())
    assert state["global_step"] == 2 and (tmp_path / "cs" / "sft" / "final" / "config.json").is_file()
    # run again asking for more steps: the kept SFT is reused, with a warning that it is short
    before = (tmp_path / "cs" / "sft" / "final" / "config.json").stat().st_mtime_ns
    cfg5 = dataclasses.replace(cfg, coldstart=dataclasses.replace(cfg.coldstart, sft_max_steps=5))
    cs.run_coldstart(cfg5)
    assert "trained 2 of the 5 steps asked" in capsys.readouterr().err
    assert (tmp_path / "cs" / "sft" / "final" / "config.json").stat().st_mtime_ns == before
    cs.run_coldstart(cfg)  # as many steps as asked: no warning
    assert "warning" not in capsys.readouterr().err


def test_resume_refuses_another_modes_rows(splits, tmp_path):
    from whowrote.train.coldstart import run_star
    from whowrote.train.config import load_config
    from whowrote.types import WhowroteError

    base = [f'data.train="{splits["train"]}"', "data.max_text_tokens=0", f'run.output_dir="{tmp_path}"']
    run_star(load_config(None, ['star.mode="fallback"', *base]))
    assert run_star(load_config(None, ['star.mode="fallback"', *base]))[1]["mode"] == "fallback"  # resumed
    with pytest.raises(WhowroteError, match="holds star.mode = 'fallback' rows, not 'tells'"):
        run_star(load_config(None, ['star.mode="tells"', *base]))


def test_typography_tells_only_fill_up(style):
    # With no model attribution pushing towards gold, only the raw-text typography tells are left.
    from whowrote.train.tells_rationales import gold_tells, tells_rationale

    text = "It\u2019s what we\u2019d call \u201cgood\u201d work, and it\u2019s done. " * 20
    x = style.features([text])[0]
    probs = np.full(len(style.classes_), 0.25)
    zeros = np.zeros((len(style.classes_), len(style.feature_names_)))
    tells = gold_tells(style, text, x, zeros, probs, "CHATGPT", LABELS, 4)
    assert [t.cue for t in tells] and {t.cue for t in tells} == {"typography"}
    assert {t.feature for t in tells} == {"curly_apostrophe_share", "curly_dquote_share"}
    sentences = _SENTENCE_END.split(tells_rationale(tells))
    for sentence, t in zip(sentences, tells, strict=True):
        check_sentence(sentence, t.feature, "CHATGPT", text, x, {}, style)
    assert "(typography:" not in " ".join(sentences)
    # ... and with real attributions the same text gets model tells first
    from whowrote.style.decision import decision_attributions

    D = decision_attributions(style, x[None, :])[0]
    assert gold_tells(style, text, x, D, probs, "CHATGPT", LABELS, 4)[0].cue != "typography"


def test_verdict_first_opens_with_gold_and_keeps_the_same_true_tells(rows, style):
    # Verdict first: the lead names gold (not the style model's pick), and the tells after it are the
    # same true sentences as without the lead (trimmed from the end when the lead needs the room).
    from whowrote.style.decision import decision_attributions
    from whowrote.task.parser import parse_answer, reasoning
    from whowrote.train.data import rationale_target, sft_records
    from whowrote.train.tells_rationales import VERDICT_LEAD

    plain, _ = tells_rows(rows, StarRecipe(mode="tells"), labels=LABELS)
    first, stats = tells_rows(rows, StarRecipe(mode="tells", verdict_first=True), labels=LABELS)
    assert [r["id"] for r in first] == [r["id"] for r in plain] and first
    by_id = {r["id"]: r for r in plain}
    X = style.features([r["text"] for r in first])
    D = decision_attributions(style, X)
    classes = [str(c) for c in style.classes_]
    for i, row in enumerate(first):
        gold = row["provider"]
        lead = VERDICT_LEAD.format(gold=gold)
        assert row["rationale"].startswith(lead + " "), row["rationale"]
        rest = row["rationale"][len(lead) + 1:]
        assert by_id[row["id"]]["rationale"].startswith(rest)  # the plain rationale, maybe with fewer tells
        assert row["tells"] == by_id[row["id"]]["tells"][:len(row["tells"])]
        g = classes.index(gold)
        support = {lab: D[i, g] - D[i, classes.index(lab)] for lab in LABELS if lab != gold}
        for sentence, name in zip(_SENTENCE_END.split(rest), row["tells"], strict=True):
            check_sentence(sentence, name, gold, row["text"], X[i], support, style)
        content = sft_records([row], target="rationale", variant="3way")[0]["completion"][0]["content"]
        assert content == rationale_target(row["rationale"], gold)
        assert reasoning(content).startswith(lead) and parse_answer(content, LABELS) == gold
    # A text relabelled to the provider the style model finds least likely: the lead names the label.
    P = style.predict_proba(X[:1])
    worst = min(LABELS, key=lambda lab: P[0, classes.index(lab)])
    moved, _ = tells_rows([{**first[0], "provider": worst}], StarRecipe(mode="tells", verdict_first=True),
                          labels=LABELS)
    assert moved and moved[0]["style_pred"] != worst
    assert moved[0]["rationale"].startswith(VERDICT_LEAD.format(gold=worst) + " ")


def test_resume_refuses_rows_of_the_other_verdict_order(splits, tmp_path):
    from whowrote.train.coldstart import run_star
    from whowrote.train.config import load_config
    from whowrote.types import WhowroteError

    base = [f'data.train="{splits["train"]}"', "data.max_text_tokens=0", f'run.output_dir="{tmp_path}"',
            'star.mode="tells"', "data.n_train=6", "star.cap_per_class=0"]
    _, stats = run_star(load_config(None, [*base, "star.verdict_first=true"]))
    assert stats["verdict_first"] is True
    assert run_star(load_config(None, [*base, "star.verdict_first=true"]))[1]["verdict_first"] is True  # resumed
    with pytest.raises(WhowroteError, match="star.verdict_first = True"):
        run_star(load_config(None, base))
