"""The batched paths of ``predict`` give exactly what the one-text-at-a-time code gives.

Token counts and word-list lookups of a batch (``style.vocab.vocabs``), the one search for the
trees' leaves that yields both the probabilities and the tells' path credits
(``decision.scores_and_credits``, ``StyleModel.proba_distance``), the
counted literals of long texts (``extended._split_counts``), the byte-level ``canonical`` and
``inspect_text`` helpers, the one-pass ``model.npz`` reader and the ``scandir`` folder walk are each
compared with the straightforward computation on real corpus texts and adversarial snippets.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from whowrote.style import extended, load_model, research41
from whowrote.style.decision import scores_and_credits, tree_attributions
from whowrote.style.edits import canonical, to_ascii
from whowrote.style.features import extract, extract_one
from whowrote.style.trees import log_transform
from whowrote.style.vocab import Vocab, vocabs
from whowrote.typography import plain_layout

SNIPPETS = ["", " ", "a", "don't won't 'tis o'clock", "x" * 40 + " " + "y" * 17 + " supercalifragilistic " * 3,
            "the the the in fact in fact", "caf\u00e9 na\u00efve \u03a3\u039f\u03a6\u0399\u0391 \u0130stanbul",
            "- **a**\n- b\n\n#### h\n\n---\n\n| a | b |\n" * 5, "word -- word - word --- x:\nend " * 20]


@pytest.fixture(scope="module")
def texts(corpus_sample) -> list[str]:
    out = corpus_sample((("chat", 200), ("blogs", 20), ("debates", 30), ("fiction", 30), ("longform", 30)))
    rng = random.Random(11)
    alphabet = list("aB '\n.-*#:|\u2014\u2019\u00e9") + ["however ", "it's ", "in fact ", "- **", "\n#### ", "the "]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400))) for _ in range(300)]
    return out + SNIPPETS


def test_batched_vocabularies_equal_one_text_at_a_time(texts):
    bufs = [canonical(t).encode("utf-8", "surrogatepass").translate(research41.WORD_TABLE) for t in texts]
    keys = (research41.WORDS_KEYS, extended.ALL_KEYS)
    for got, buf in zip(vocabs(bufs, keys), bufs, strict=True):
        want = Vocab(buf)
        assert (got.n, got.distinct, got.hapax, got.long) == (want.n, want.distinct, want.hapax, want.long)
        assert got.uh.tobytes() == want.uh.tobytes() and got.counts.tobytes() == want.counts.tobytes()
        assert got.starts.tobytes() == want.starts.tobytes() and got.lens.tobytes() == want.lens.tobytes()
        assert got.token_hashes.tobytes() == want.token_hashes.tobytes()
        assert got.apostrophe_at().tolist() == want.apostrophe_at().tolist()  # same buf, starts, lens: same tokens
        for k in keys:  # the lookups made for the batch, and a fresh one of the same words
            assert got.lookup(k).tolist() == want.lookup(k).tolist()
            assert got.lookup((k[0].copy(), k[1].copy())).tolist() == want.lookup(k).tolist()
    assert any(v.long for v in vocabs(bufs))  # tokens over 16 bytes were in the batch


def test_batched_extraction_is_bit_identical_to_extract_one(texts):
    for form in (texts, [canonical(t) for t in texts]):
        X = extract(form, "full")
        want = np.array([extract_one(t, "full") for t in form])
        assert X.tobytes() == want.tobytes()
        assert extract(form, "research41").tobytes() == want[:, :41].tobytes()


def test_long_texts_count_their_literals_as_the_split_replay_does(texts, monkeypatch):
    for t in texts:
        s = research41.scan(t)
        got = extended._split_counts(s.raw, s.counts, s.nonascii)
        monkeypatch.setattr(extended, "MANY", 10**9)  # never the counting path
        assert got == extended._split_counts(s.raw, s.counts, s.nonascii)
        monkeypatch.setattr(extended, "MANY", -1)  # always the counting path
        assert got == extended._split_counts(s.raw, s.counts, s.nonascii)
        monkeypatch.undo()


def test_one_walk_gives_the_scores_and_the_credits(texts):
    model = load_model()
    Z = log_transform(model.features(texts[:200]))
    raw, credits = scores_and_credits(model.trees_, Z)
    want, _ = tree_attributions(model.trees_, Z)
    assert raw.tobytes() == model.trees_.raw_predict(Z).tobytes() and credits.tobytes() == want.tobytes()
    X = model.features(texts[:200])
    P, far, leaves = model.proba_distance(X, leaves=True)
    assert P.tobytes() == model.predict_proba(X).tobytes() and far.tobytes() == model.distance(X).tobytes()
    assert leaves.tobytes() == model.trees_.leaves(Z).tobytes()


def test_canonical_lowercases_as_str_lower(texts):
    extra = ["\u03a3", "A\u03a3 b", "\u0130 I", "\u1e9e SS", "\u01c5 x", "\ud800 AB", "\U0001f600 Q"]
    for t in texts + extra:
        assert canonical(t) == plain_layout(to_ascii(t).lower())


def test_inspect_text_counts_spaces_and_words_as_str_split():
    from whowrote.style.textcheck import _non_space, count_words, utf8_parts

    rng = random.Random(5)
    alphabet = list("ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u3000\u00e9") + ["\ud800", "\U0001f600"]
    for _ in range(2000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        raw, na = utf8_parts(t)
        assert _non_space(len(t), raw, na) == len("".join(t.split()))
        assert count_words(t, (raw, na)) == count_words(t) == len(t.split())


def test_model_arrays_read_in_one_pass_equal_np_load():
    from whowrote.style import io as model_io

    path = model_io.DEFAULT_DIR / "model.npz"
    shapes = model_io._expected_shapes(model_io._read_json(model_io.DEFAULT_DIR / "model.json"))
    got = model_io._read_arrays(path, shapes)
    with np.load(path) as z:
        for key in shapes:
            want = z[key]
            assert got[key].dtype == want.dtype and got[key].shape == want.shape
            assert got[key].tobytes() == want.tobytes() and got[key].flags.writeable


def test_folders_are_walked_as_os_walk_walks_them(tmp_path, monkeypatch):
    from whowrote.cli.inputs import iter_items

    for rel in ("b.md", "A.TXT", "z.markdown", "skip.json", "sub/q.md", "sub/deeper/r.txt", ".hid/h.md", "a/1.md",
                "page.HTML", "sub/p.htm", "skip.xml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("words " * 30)
    os.symlink(tmp_path / "a", tmp_path / "linked")  # a symlinked folder is not entered (os.walk's default)
    os.symlink(tmp_path / "nowhere.md", tmp_path / "broken.md")  # listed: the read says why it fails
    want = []
    for root, dirs, files in os.walk(tmp_path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        want += [str(tmp_path.__class__(root, f)) for f in sorted(files)
                 if f.lower().endswith((".md", ".markdown", ".txt", ".html", ".htm"))]
    got = [it.path for it in iter_items([str(tmp_path)])]
    assert got == want and str(tmp_path / "broken.md") in got
    monkeypatch.chdir(tmp_path)
    assert [it.path for it in iter_items(["."])] == [os.path.relpath(p, tmp_path) for p in want]
