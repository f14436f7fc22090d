"""The leak audit finds planted leaks, duplicates and label problems; dedup works as documented."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from whowrote.data.audit import DROP_BY_DEFAULT, audit, drop_flagged
from whowrote.data.dedup import exact_duplicate_groups, near_duplicate_pairs


@pytest.fixture(scope="module")
def planted(corpus):
    """120 real rows plus planted leaks and copies (ids say what was planted)."""
    base = corpus.groupby("genre").head(30).reset_index(drop=True)
    src = base["text"]
    rng = random.Random(1)
    words = src[3].split()
    for i in rng.sample(range(len(words)), len(words) // 20):
        words[i] = "zzz"  # 5% of words changed: still a near-duplicate
    extra = [
        ("leak-ai", "As an AI language model, I cannot feel, but here is my essay. " + src[0]),
        ("leak-claude", "I\u2019m Claude, and today I want to write about gardens. " + src[1]),
        ("leak-openai", "This essay was written by a large language model trained by OpenAI. " + src[2]),
        ("leak-meta", "model: gpt-5.5\n\n" + src[4]),
        ("exact-copy", src[5].upper().replace(" ", "  ")),
        ("near-copy", " ".join(words)),
        ("short", "Too short to judge."),
        ("own-model", src[6] + " (written by claude-opus-4.8)"),
    ]
    rows = [base.iloc[min(i, 6)].to_dict() | {"id": rid, "text": text} for i, (rid, text) in enumerate(extra)]
    rows[-1]["model"] = "claude-opus-4.8"
    rows[-2]["model"] = "brand-new-model-x"
    return pd.concat([base, pd.DataFrame(rows)], ignore_index=True)


def _ids(report, kind):
    return {p.id for p in report.problems if p.kind == kind}


def test_real_sample_has_no_leaks(corpus):
    report = audit(corpus.groupby("genre").head(30), near_duplicates=True)
    assert not {"self_identification", "metadata_line", "exact_duplicate", "near_duplicate"} & set(
        report.problem_counts())


def test_planted_leaks_are_found(planted):
    report = audit(planted)
    assert _ids(report, "self_identification") == {"leak-ai", "leak-claude", "leak-openai"}
    assert _ids(report, "metadata_line") == {"leak-meta"}
    assert "own-model" in _ids(report, "names_own_model")
    assert _ids(report, "exact_duplicate") == {"exact-copy"}
    assert "near-copy" in _ids(report, "near_duplicate")
    assert _ids(report, "too_short") == {"short"}
    unknown = [p.detail for p in report.problems if p.kind == "unknown_model"]
    assert len(unknown) == 1 and "brand-new-model-x" in unknown[0] and "OTHER" in unknown[0]


def test_drop_flagged_removes_leaks_and_later_copy_only(planted):
    report = audit(planted)
    clean = drop_flagged(planted, report)
    gone = set(planted["id"]) - set(clean["id"])
    assert gone == {"leak-ai", "leak-claude", "leak-openai", "leak-meta", "exact-copy"}
    assert set(DROP_BY_DEFAULT) >= {"self_identification", "exact_duplicate"}
    with pytest.raises(ValueError):
        drop_flagged(planted, report, ["no-such-kind"])


def test_counts_tables(planted):
    report = audit(planted, near_duplicates=False)
    genre = report.counts["genre"]
    assert genre["total"].sum() == len(planted)
    assert set(report.counts) == {"genre", "model", "category"}
    assert report.to_dict()["n_rows"] == len(planted)


def test_exact_duplicates_ignore_case_space_and_markup():
    groups = exact_duplicate_groups(["Hello, **World**!", "hello world", "hello there", "HELLO   world"])
    assert groups == [[0, 1, 3]]


def test_near_duplicates_threshold_and_containment():
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(5000)]
    a = [rng.choice(vocab) for _ in range(600)]
    b = list(a)
    for i in rng.sample(range(600), 20):
        b[i] = "changed"  # ~3% of words: Jaccard of 5-grams well above 0.5
    c = [rng.choice(vocab) for _ in range(600)]  # unrelated
    d = a[100:300]  # a third of a, copied: containment 1.0
    pairs = near_duplicate_pairs([" ".join(x) for x in (a, b, c, d)])
    found = {(p.a, p.b) for p in pairs}
    assert found == {(0, 1), (0, 3), (1, 3)} or found == {(0, 1), (0, 3)}
    assert all(p.jaccard >= 0.5 or p.containment >= 0.8 for p in pairs)
    far = [rng.choice(vocab) for _ in range(600)]
    assert near_duplicate_pairs([" ".join(a), " ".join(far)]) == []
