"""The fast paths of ``attribute`` give exactly what the straightforward code gave.

``decision_support`` (trees of the two compared classes only), ``tells_of_rows`` (cue totals and
ranks of a batch in numpy), ``Tell.to_dict`` (no ``asdict``) and ``count_words`` (non-ASCII bytes
only) replaced simpler code; that code is kept here, verbatim from main@862f8a8, and both are run
on real corpus texts (chat answers and four other genres), asking for many tells so that the
"no true sentence, try the next cue" path runs too.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict

import numpy as np
import pytest

from whowrote.style import FEATURES, load_model
from whowrote.style.decision import decision_attributions, decision_support
from whowrote.style.explain import (
    CUES,
    UNIT_SHORT,
    Tell,
    has_markup,
    is_fragile,
    sentence,
    tell_label,
    tells_of_rows,
)
from whowrote.style.textcheck import count_words
from whowrote.style.verdict import attribute


def old_make_tells(model, x, attributions, target, versus, n):  # main@862f8a8, verbatim but for `markup`
    classes = [str(c) for c in model.classes_]
    support = attributions[target] - attributions[versus]
    names = model.feature_names_
    by_cue: dict[str, list[int]] = {}
    for j in np.flatnonzero(support > 0):
        by_cue.setdefault(CUES.get(names[j], names[j]), []).append(int(j))
    ranked = sorted(by_cue.items(), key=lambda kv: -support[kv[1]].sum())
    fav, vs = classes[target], classes[versus]
    tells = []
    for cue, js in ranked:
        if len(tells) >= n:
            break
        for j in sorted(js, key=lambda j: -support[j]):
            spec = FEATURES[names[j]]
            unit = UNIT_SHORT.get(spec.unit, spec.unit)
            said = sentence(tell_label(model, names[j]), x[j], unit, fav, model.norms_[target, j], vs,
                            model.norms_[versus, j])
            if said:
                norms = {c: round(float(model.norms_[k, j]), 4) for k, c in enumerate(classes)}
                tells.append(Tell(names[j], tell_label(model, names[j]), float(x[j]), spec.unit, norms, fav,
                                  round(float(support[js].sum()), 4), said, cue, vs,
                                  is_fragile(model, names[j], has_markup(model, x))))
                break
    return tells


@pytest.fixture(scope="module")
def texts(corpus_sample) -> list[str]:
    return corpus_sample((("chat", 160), ("blogs", 30), ("debates", 40), ("fiction", 40), ("longform", 40)))


def test_tells_and_support_equal_the_previous_code(texts):
    model = load_model()
    X = model.features(texts)
    P = model.predict_proba(X)
    D = decision_attributions(model, X)
    order = np.argsort(-P, axis=1)
    S = decision_support(model, X, order[:, 0], order[:, 1])
    want_support = np.stack([D[i, t] - D[i, v] for i, (t, v) in enumerate(order[:, :2])])
    assert S.tobytes() == want_support.tobytes()
    fallbacks = 0
    for i in range(len(texts)):
        target, versus = (int(k) for k in np.argsort(-P[i])[:2])
        assert (target, versus) == (order[i, 0], order[i, 1])
        for n in (3, 40):
            want = [t.to_dict() for t in old_make_tells(model, X[i], D[i], target, versus, n)]
            got = [t.to_dict() for t in tells_of_rows(model, X[i:i + 1], S[i:i + 1], [target], [versus], n)[0]]
            assert got == want, (i, n)
            fallbacks += n == 40 and len(want) > 6
    assert fallbacks > 10  # the path past the first 2n cues ran


def test_attribute_output_is_what_the_previous_tells_give(texts):
    model = load_model()
    sample = texts[::5]
    found = attribute(model, sample, n_tells=4)
    X = model.features(sample)
    D = decision_attributions(model, X)
    P = model.predict_proba(X)
    # the first and last paragraphs' evidence, counted here with each tell's pattern: more of its matches
    # in those two paragraphs than in the rest, for a stock phrase whose evidence is "more"
    names = list(model.feature_names_)
    by_ends = 0
    for i, a in enumerate(found):
        target, versus = (int(k) for k in np.argsort(-P[i])[:2])
        want = old_make_tells(model, X[i], D[i], target, versus, 4)
        paragraphs = [p for p in re.split(r"\n[ \t\r]*\n", sample[i].strip()) if p.strip()]
        for t in want:
            j, pattern = names.index(t.feature), FEATURES[t.feature].pattern
            if (t.fragile or pattern is None or len(paragraphs) < 3 or model.norms_[target, j] <= model.norms_[versus, j]
                    or FEATURES[t.feature].family != "phrases"):
                continue
            ends = sum(1 for p in (paragraphs[0], paragraphs[-1]) for m in re.finditer(pattern, p) if m.end() > m.start())
            rest = sum(1 for p in paragraphs[1:-1] for m in re.finditer(pattern, p) if m.end() > m.start())
            t.fragile = ends > rest
            by_ends += t.fragile
        assert [t.to_dict() for t in a.tells[:len(want)]] == [t.to_dict() for t in want]
    assert by_ends >= 3  # the ends marked some tells that nothing else does


def test_tell_to_dict_is_asdict():
    t = Tell("f", "label", 1.5, "unit", {"CLAUDE": 0.1, "OTHER": 2.0}, "CLAUDE", 0.25, "s", "cue", "OTHER", True)
    d = t.to_dict()
    assert d == asdict(t) and list(d) == list(asdict(t))
    d["norms"]["CLAUDE"] = 9.0
    assert t.norms["CLAUDE"] == 0.1  # a copy, as asdict gives


def test_count_words_is_str_split(texts):
    rng = random.Random(0)
    spaces = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\u200b\ufeff"
    odd = ["".join(rng.choice(["a", "\u00e9", "\u2019", "\ud800", "\U0001f600", *spaces]) for _ in range(rng.randrange(30)))
           for _ in range(3000)]
    for t in texts + odd:
        assert count_words(t) == len(t.split()), repr(t[:80])


def test_csv_skips_the_tells_and_writes_what_it_wrote_with_them(texts, tmp_path, capsys, monkeypatch):
    import csv
    import io

    from whowrote.cli import batches
    from whowrote.cli import predict as cli
    from whowrote.types import LABELS

    sample = texts[::10]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(sample)), encoding="utf-8")
    asked = []
    real = batches._attribute_batch
    monkeypatch.setattr(batches, "_attribute_batch", lambda ts, o, model=None: asked.append(o["n_tells"]) or real(ts, o, model))
    assert cli.run([str(rows), "--csv", "--no-progress"]) == 0
    got = list(csv.reader(io.StringIO(capsys.readouterr().out)))[1:]
    assert asked and set(asked) == {0}
    want = [a.to_dict() for a in load_model().attribute(sample, n_tells=3)]
    assert [r[2:] for r in got] == [[w["provider"], str(w["uncertain"]), *(f"{w['probabilities'][k]:.6f}" for k in LABELS),
                                     str(w["n_words"]), " | ".join(w["warnings"])] for w in want]
