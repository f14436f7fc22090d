"""Curricula on real corpus rows: step composition, gold balance, genre-matched pairs, and the
leak-free guarantee (no curriculum text or topic from val / val_ood)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from whowrote.data import load_corpus
from whowrote.data.build import SplitConfig, build_splits
from whowrote.data.splits import SplitLeakError, topic_keys
from whowrote.data.writers import write_splits
from whowrote.task.curricula import (
    BOUNDARIES,
    assert_curriculum_no_leak,
    build_curriculum,
    curriculum_messages,
    curriculum_split,
    parse_pair_weights,
)
from whowrote.task.examples import load_examples
from whowrote.task.parser import decode_slot_gold
from whowrote.task.rewards import correct_answer
from whowrote.types import WhowroteError

N_STEPS = 8


@pytest.fixture(scope="module")
def sample(corpus_files):
    """Every blog and the debates of 60 topics: two genres (GEMINI only in debates), quick to audit."""
    corpus = load_corpus([corpus_files["blogs"], corpus_files["debates"]])
    debate_topics = sorted(corpus.loc[corpus["genre"] == "debate", "topic"].unique())[:60]
    return corpus[(corpus["genre"] == "blog") | corpus["topic"].isin(debate_topics)]


@pytest.fixture(scope="module")
def base(sample):
    return build_splits(sample, SplitConfig(seed=0, labels=["CLAUDE", "CHATGPT", "GEMINI"]))


def _sources(base) -> pd.DataFrame:
    return base.splits["train"].set_index(base.splits["train"]["id"].astype(str))


def _check_no_leak_independently(train: pd.DataFrame, base) -> None:
    held_ids = set().union(*(set(p["id"].astype(str)) for n, p in base.splits.items() if n != "train"))
    held_topics = set().union(*(set(topic_keys(p)) for n, p in base.splits.items() if n != "train"))
    src = _sources(base)
    for comp in train["components"]:
        ids = json.loads(comp)
        assert not set(ids) & held_ids
        assert not set(topic_keys(src.loc[ids])) & held_topics


def test_pair_curriculum_steps_and_balance(base):
    assert len(base.splits["val"]) > 20 and len(base.splits["val_ood"]) > 20  # the leak checks bite
    res = curriculum_split(base, "pair", n_steps=N_STEPS, seed=0, strip_frac=0.4)
    train = res.splits["train"]
    assert len(train) == 12 * N_STEPS and train["id"].is_unique
    src = _sources(base)
    for _step, rows in train.groupby("step"):
        singles, pairs = rows[rows.task_type == "single"], rows[rows.task_type == "pair"]
        assert sorted(singles["provider"]) == sorted(["CLAUDE", "CHATGPT", "GEMINI"] * 2)
        bounds = [tuple(lab for lab in ("CLAUDE", "CHATGPT", "GEMINI") if lab in decode_slot_gold(g).values())
                  for g in pairs["provider"]]
        assert sorted(bounds) == sorted(BOUNDARIES * 2)
        for comp, gold in zip(pairs["components"], pairs["provider"], strict=True):
            a, b = json.loads(comp)
            assert src.loc[a, "genre"] == src.loc[b, "genre"]  # one genre per pair
            assert decode_slot_gold(gold) == {"A": src.loc[a, "provider"], "B": src.loc[b, "provider"]}
    for b in BOUNDARIES:  # the A slot's gold exactly 50/50 per boundary
        golds = [decode_slot_gold(g)["A"] for g in train.loc[train.task_type == "pair", "provider"]
                 if set(decode_slot_gold(g).values()) == set(b)]
        assert golds.count(b[0]) == golds.count(b[1]) == N_STEPS
    assert 0.2 < train["stripped"].mean() < 0.8
    assert res.splits["val"].equals(base.splits["val"])  # val stays single-text 3-way, untouched
    _check_no_leak_independently(train, base)


def test_trio_and_hardpair_curricula(base):
    trio = curriculum_split(base, "trio", n_steps=N_STEPS).splits["train"]
    assert (trio.groupby("step")["task_type"].apply(lambda s: (s == "trio").sum()) == 6).all()
    first = trio[trio.task_type == "trio"].iloc[0].to_dict()
    msgs = curriculum_messages(first)
    assert "TEXT C" in msgs[0]["content"] and msgs[1]["content"].startswith("### TEXT A")
    gold = decode_slot_gold(first["provider"])
    perfect = "<answer>\n" + "\n".join(f"{s}: {lab}" for s, lab in gold.items()) + "\n</answer>"
    assert correct_answer(perfect, first["provider"]) == 1.0
    hard = curriculum_split(base, "hardpair", n_steps=N_STEPS).splits["train"]
    hp = hard[hard.task_type == "hardpair"]
    assert len(hp) == 3 * N_STEPS and set(hp["provider"]) == {"CLAUDE", "CHATGPT"}
    assert abs((hp["provider"] == "CLAUDE").sum() - (hp["provider"] == "CHATGPT").sum()) <= 1
    system = curriculum_messages(hp.iloc[0].to_dict())[0]["content"]
    assert "GEMINI" not in system and "CLAUDE" in system
    for t in (trio, hard):
        _check_no_leak_independently(t, base)


def test_leak_check_fires_on_a_val_text(base):
    train = curriculum_split(base, "pair", n_steps=2).splits["train"].copy()
    val_id = str(base.splits["val"]["id"].iloc[0])
    a, _ = json.loads(train.loc[0, "components"])
    train.loc[0, "components"] = json.dumps([a, val_id])
    with pytest.raises(SplitLeakError, match="not in train"):
        assert_curriculum_no_leak(train, base.splits)


def test_written_curriculum_reads_back_as_examples(base, tmp_path):
    res = curriculum_split(base, "pair", n_steps=2)
    write_splits(res.splits, tmp_path / "out", res.info, formats=["jsonl", "qa"])
    examples = load_examples(tmp_path / "out" / "train.jsonl")
    assert [e.kind for e in examples] == list(res.splits["train"]["task_type"])
    qa = [json.loads(x) for x in (tmp_path / "out" / "qa" / "train.jsonl").read_text().splitlines()]
    assert qa[0]["answer"].startswith("A=") and qa[0]["info"]["task_type"] == "pair"
    info = json.loads((tmp_path / "out" / "split_info.json").read_text())
    assert info["curriculum"]["task_types"] == {"pair": 12, "single": 12}


def test_bad_requests_are_one_line_errors(base):
    with pytest.raises(WhowroteError, match="unknown curriculum"):
        curriculum_split(base, "quad")
    with pytest.raises(WhowroteError, match="summing to 6"):
        curriculum_split(base, "pair", pair_weights=(1, 1, 1))
    assert parse_pair_weights("1,2,3") == (1, 2, 3)
    for bad in ("1,2", "a,b,c", "7,-1,0"):
        with pytest.raises(WhowroteError, match="summing to 6"):
            parse_pair_weights(bad)
    blogs_only = base.splits["train"][base.splits["train"]["genre"] == "blog"]
    from whowrote.data.build import SplitResult

    with pytest.raises(WhowroteError, match="no GEMINI"):
        curriculum_split(SplitResult({**base.splits, "train": blogs_only}), "trio")
    with pytest.raises(WhowroteError, match="unknown curriculum"):
        build_curriculum(blogs_only, scheme="quad")


def test_build_curriculum_end_to_end(sample):
    res = build_curriculum(sample, SplitConfig(seed=1, strip_frac=0.4, labels=["CLAUDE", "CHATGPT", "GEMINI"]),
                           scheme="trio", n_steps=3)
    train, val = res.splits["train"], res.splits["val"]
    assert len(train) == 36 and res.info["curriculum"]["task_types"] == {"trio": 18, "single": 18}
    assert not val["stripped"].any() and train["stripped"].any()  # augmentation only in train
    val_topics = set(topic_keys(val))
    src = sample.set_index(sample["id"].astype(str))
    for comp in train["components"]:
        assert not set(topic_keys(src.loc[json.loads(comp)])) & val_topics
