"""Splits: no topic or near-duplicate crosses, balanced, deterministic per seed; LOGO; augmentation."""

from __future__ import annotations

import pandas as pd
import pytest

from whowrote.data import (
    SplitLeakError,
    assert_no_leak,
    default_ood_categories,
    leave_one_genre_out,
    topic_holdout_split,
)
from whowrote.data.build import SplitConfig, build_splits, strip_augment
from whowrote.data.splits import topic_keys

from .helpers import tiny_corpus


@pytest.fixture(scope="module")
def ood(corpus):
    return default_ood_categories(corpus, seed=0)


@pytest.fixture(scope="module")
def canonical(corpus, ood):
    return topic_holdout_split(corpus, seed=0, ood_categories=ood)


def _keys(frame):
    return set(topic_keys(frame))


def test_no_topic_crosses_splits(canonical):
    train, val, val_ood = canonical["train"], canonical["val"], canonical["val_ood"]
    assert len(train) > 1000 and len(val) > 100 and len(val_ood) > 50
    assert not _keys(train) & _keys(val)
    assert not _keys(train) & _keys(val_ood)
    assert not _keys(val) & _keys(val_ood)


def test_longform_topic_shared_by_two_categories_stays_together(canonical):
    val = canonical["val"]
    held = val[val["genre"] == "longform"]
    assert len(held) > 0
    for topic in held["topic"].unique():  # both categories of a held-out novella prompt are in val
        assert not ((canonical["train"]["genre"] == "longform") & (canonical["train"]["topic"] == topic)).any()


def test_val_ood_is_whole_categories(corpus, canonical, ood):
    assert set(ood) == {"philosophy", "Biopunk", "Humour", "Teen horror"} or len(ood) == 4
    assert set(canonical["val_ood"]["category"]) == set(ood)
    for split in ("train", "val"):
        assert not set(canonical[split]["category"]) & set(ood)


def test_balanced_per_genre(canonical):
    for name, split in canonical.items():
        for genre, part in split.groupby("genre"):
            counts = part["provider"].value_counts()
            assert counts.nunique() == 1, (name, genre, counts.to_dict())


def test_balance_over_chosen_labels_keeps_other(corpus):
    splits = topic_holdout_split(corpus, seed=0, balance_labels=("CLAUDE", "CHATGPT", "GEMINI"), balance_within=None)
    train = splits["train"]
    counts = train["provider"].value_counts()
    assert counts["CLAUDE"] == counts["CHATGPT"] == counts["GEMINI"]
    assert counts["OTHER"] > counts["GEMINI"]  # OTHER kept whole, not subsampled
    unbalanced = topic_holdout_split(corpus, seed=0, balance=False)
    assert len(unbalanced["train"]) + len(unbalanced["val"]) == len(corpus)


def test_deterministic_per_seed(corpus, ood, canonical):
    again = topic_holdout_split(corpus, seed=0, ood_categories=ood)
    for name in canonical:
        pd.testing.assert_frame_equal(canonical[name], again[name])
    other = topic_holdout_split(corpus, seed=1, ood_categories=ood)
    assert set(other["val"]["id"]) != set(canonical["val"]["id"])


def test_research_rule_k_topics_per_category():
    corpus = tiny_corpus(n_topics=30, per_topic=1, categories=("a", "b", "c"))
    splits = topic_holdout_split(corpus, seed=0, balance=False)
    per_cat = splits["val"].groupby("category")["topic"].nunique()
    assert per_cat.to_dict() == {"a": 4, "b": 4, "c": 4}  # max(1, round(30 * 0.15)) = round(4.5) = 4


def test_small_categories_are_pooled():
    corpus = tiny_corpus(n_topics=2, per_topic=1, categories=tuple("abcdefghij"))  # 10 x 2 topics
    splits = topic_holdout_split(corpus, seed=0, balance=False)
    assert splits["val"]["topic"].nunique() == 3  # round(20 * 0.15), not one per category


def test_near_duplicates_never_cross():
    corpus = tiny_corpus(n_topics=20, per_topic=1)
    first = topic_holdout_split(corpus, seed=0, balance=False)
    val_row = corpus.index[corpus["id"] == first["val"]["id"].iloc[0]][0]
    train_row = corpus.index[corpus["id"] == first["train"]["id"].iloc[0]][0]
    guarded = topic_holdout_split(corpus, seed=0, balance=False, near_duplicates=[(train_row, val_row)])
    assert corpus.loc[val_row, "id"] in set(guarded["val"]["id"])
    assert corpus.loc[train_row, "id"] not in set(guarded["train"]["id"])  # the train copy is dropped


def test_assert_no_leak_raises():
    good = tiny_corpus(n_topics=2, per_topic=1)
    with pytest.raises(SplitLeakError, match="topic"):
        assert_no_leak({"train": good, "val": good.head(1)})
    a, b = good.iloc[:4].assign(_row=range(4)), good.iloc[4:].assign(_row=range(4, 8))
    b = b[b["topic"] != a["topic"].iloc[0]]
    with pytest.raises(SplitLeakError, match="near-duplicate"):
        assert_no_leak({"train": a, "val": b}, near_duplicates=[(0, 5)])


def test_ood_genre_and_word_cap(corpus):
    splits = topic_holdout_split(corpus, seed=0, ood_genres=["blog"], max_words=3000)
    assert set(splits["val_ood"]["genre"]) == {"blog"}
    assert all(len(t.split()) <= 3000 for s in splits.values() for t in s["text"])


def test_leave_one_genre_out(corpus):
    seen = []
    for genre, train, test in leave_one_genre_out(corpus):
        seen.append(genre)
        assert set(test["genre"]) == {genre} and genre not in set(train["genre"])
        assert len(train) + len(test) == len(corpus)
    assert seen == ["blog", "debate", "fiction", "longform"]


@pytest.mark.slow
def test_binary_scheme_and_strip_augmentation(corpus):
    small = corpus[corpus["genre"].isin(["blog", "longform"])]
    result = build_splits(small, SplitConfig(scheme="binary", strip_frac=0.4, near_duplicates=False))
    train = result.splits["train"]
    assert set(train["provider"]) == {"CLAUDE", "CHATGPT"}
    assert train["stripped"].sum() == round(len(train) * 0.4)
    assert not result.splits["val"]["stripped"].any()
    stripped = train[train["stripped"]]
    assert not stripped["text"].str.contains(r"\*\*|\u2014|\n\n", regex=True).any()


def test_strip_augment_is_seeded():
    frame = tiny_corpus(n_topics=5, per_topic=1).assign(text="**a** \u2014 b\n\n\nc")
    a, b = strip_augment(frame, 0.4, seed=3), strip_augment(frame, 0.4, seed=3)
    assert a["stripped"].tolist() == b["stripped"].tolist() and a["stripped"].sum() == 8
    assert set(a.loc[a["stripped"], "text"]) == {"a , b\nc"}  # "a " + ", " + " b", spaces collapsed


@pytest.mark.slow
def test_token_cap_with_a_local_tokenizer(tmp_path):
    """--max-tokens with a tokenizer folder built here (whitespace word-level: no download)."""
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from whowrote.data.build import token_counts

    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(tmp_path / "tok")
    corpus = tiny_corpus(n_topics=10, per_topic=1)
    corpus.loc[corpus.index[::2], "text"] += " extra" * 100
    counts = token_counts(corpus["text"], str(tmp_path / "tok"))
    assert counts.tolist() == [len(t.split()) for t in corpus["text"]]
    result = build_splits(corpus, SplitConfig(max_tokens=100, tokenizer=str(tmp_path / "tok"), ood_categories=None,
                                              near_duplicates=False, balance=False))
    kept = pd.concat(result.splits.values())
    assert len(kept) == len(corpus) // 2 and (kept["text"].str.split().str.len() <= 100).all()


def test_binary_split_function(corpus):
    from whowrote.data import binary_split

    splits = binary_split(corpus, seed=0, ood_categories=["philosophy"])
    assert {p for s in splits.values() for p in s["provider"]} == {"CLAUDE", "CHATGPT"}
    assert not _keys(splits["train"]) & _keys(splits["val"])
    assert set(splits["val_ood"]["category"]) == {"philosophy"}


def test_research_held_out_categories_are_the_default_when_present():
    corpus = tiny_corpus(n_topics=8, per_topic=1, categories=("history", "politics", "stem", "philosophy"))
    assert default_ood_categories(corpus) == ["history", "politics"]
    splits = topic_holdout_split(corpus, seed=0, ood_categories=default_ood_categories(corpus), balance_within=None)
    assert set(splits["val_ood"]["category"]) == {"history", "politics"}
    assert splits["val"]["provider"].value_counts().nunique() == 1  # balanced over the whole split
