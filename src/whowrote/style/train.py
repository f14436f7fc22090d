"""Training the bundled model reproducibly (``whowrote train-probe``).

1. Load the corpus files and extract the features of every text and of its edited copies once.
2. Honest check: fit on the topic-held-out ``train`` split (``whowrote.data.splits``), measure
   on ``val``; then leave-one-genre-out (every genre predicted by a model that never saw it).
3. Fit the final model on every row (calibrated on out-of-genre predictions), save it (JSON + npz)
   with the metrics and a model card.

Every fit also sees one edited copy of each training text (weight 0.5; ``AUGMENTATIONS``, one
chosen at random per text): its first 60-600 words, or the text pasted as plain text (Markdown
stripped), or all content-keeping edits at once (plain text, ASCII, lower case, sentences shuffled). The model reads the canonical form of
every text, so typography and case edits need no copies: they cannot change the features.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from whowrote.style.calibration import brier, expected_calibration_error, fit_temperature, softmax
from whowrote.style.edits import combined, first_words, strip_markdown
from whowrote.style.explain import typography_stats
from whowrote.style.io import save_model
from whowrote.style.model import StyleModel
from whowrote.style.model_card import model_card
from whowrote.types import OTHER, PROVIDERS

AUG_LENGTHS = (60, 100, 150, 250, 400, 600)
FALLOFF_LENGTHS = (50, 100, 250, 500, 1000)


def truncated(texts: Sequence[str], seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [first_words(t, rng.choice(AUG_LENGTHS)) for t in texts]


# The edits a training text's one extra copy gets (one chosen at random per text), and its weight.
AUGMENTATIONS: dict[str, Callable[[str, int], str]] = {
    "truncated": lambda t, n: first_words(t, n),
    "plain_text": lambda t, n: strip_markdown(t),
    "combined": lambda t, n: combined(t, seed=n),
}
AUG_WEIGHT = 0.5


def edited_copies(texts: Sequence[str], seed: int = 0) -> list[str]:
    """One edited copy per text: its first 60-600 words, or plain text, or all edits combined."""
    rng = random.Random(seed)
    names = list(AUGMENTATIONS)
    return [AUGMENTATIONS[rng.choice(names)](t, rng.choice(AUG_LENGTHS)) for t in texts]


def augmented_features(model: StyleModel, texts: Sequence[str], seed: int = 0,
                       log: Callable[[str], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Feature matrices of the texts and of their edited copies (same row order)."""
    t0 = time.perf_counter()
    X = model.features(texts)
    Xa = model.features(edited_copies(texts, seed))
    if log:
        log(f"features of {len(texts)} texts and their edited copies in {time.perf_counter() - t0:.1f}s")
    return X, Xa


def fit_augmented(X: np.ndarray, Xa: np.ndarray, y, genres, groups=None, **params) -> StyleModel:
    """Fit a :class:`StyleModel` on rows ``X`` plus their edited copies ``Xa`` (weight ``AUG_WEIGHT``)."""
    y, genres = np.asarray(y, dtype=object), np.asarray(genres, dtype=object)
    w = np.r_[np.ones(len(X)), np.full(len(Xa), AUG_WEIGHT)]
    g2 = None if groups is None else np.r_[np.asarray(groups, dtype=object), np.asarray(groups, dtype=object)]
    return StyleModel(**params).fit(np.vstack([X, Xa]), np.r_[y, y], genres=np.r_[genres, genres],
                                    groups=g2, sample_weight=w)


def typography_norms(texts: Sequence[str], y: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per label, the mean of each raw typographic habit (for the fragile typography tells)."""
    stats = [typography_stats(t) for t in texts]
    y = np.asarray(y, dtype=object)
    return {name: {str(c): float(np.mean([s[name] for s, yy in zip(stats, y, strict=True) if yy == c]))
                   for c in sorted(set(y.tolist()))} for name in stats[0]} if stats else {}


def evaluate(model: StyleModel, X: np.ndarray, y: Sequence[str], genres: Sequence[str]) -> dict[str, Any]:
    """Accuracy (overall, per genre), macro-F1, ECE, Brier and OTHER AUROC on labelled rows."""
    from sklearn.metrics import f1_score, roc_auc_score

    y = np.asarray(y, dtype=object)
    genres = np.asarray(genres, dtype=object)
    P = model.predict_proba(X)
    pred = model.classes_[P.argmax(axis=1)]
    known = np.isin(y, model.classes_)
    yi = np.array([list(model.classes_).index(v) if v in model.classes_ else -1 for v in y])
    out: dict[str, Any] = {
        "n": int(len(y)),
        "accuracy": float((pred == y).mean()),
        "macro_f1": float(f1_score(y, pred, average="macro")),
        "per_genre": {str(g): {"n": int((genres == g).sum()), "accuracy": float((pred[genres == g] == y[genres == g]).mean())}
                      for g in sorted(set(genres.tolist()))},
        "ece": expected_calibration_error(P[known], yi[known]),
        "brier": brier(P[known], yi[known]),
    }
    if OTHER in model.classes_ and 0 < (y == OTHER).sum() < len(y):
        out["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, list(model.classes_).index(OTHER)]))
    return out


def three_way(model: StyleModel, P: np.ndarray) -> np.ndarray:
    """The most probable of the three providers (what "3-way accuracy" scores on their texts)."""
    cols = [list(model.classes_).index(c) for c in PROVIDERS if c in model.classes_]
    return model.classes_[np.asarray(cols)[P[:, cols].argmax(axis=1)]]


def train_probe(
    corpus_paths: Sequence[str | Path],
    out: str | Path,
    seed: int = 0,
    feature_set: str = "full",
    check: bool = True,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train (and by default first validate) a :class:`StyleModel`; save it to ``out``."""
    from whowrote.data import load_corpus
    from whowrote.data.splits import topic_holdout_split, topic_keys

    t0 = time.perf_counter()
    corpus = load_corpus(list(corpus_paths)).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    log(f"loaded {len(corpus)} texts from {len(corpus_paths)} file(s) in {time.perf_counter() - t0:.1f}s")
    params = {"feature_set": feature_set, "seed": seed}
    X, Xa = augmented_features(StyleModel(**params), corpus["text"].tolist(), seed, log)
    metrics: dict[str, Any] = {}
    if check:
        split = topic_holdout_split(corpus, seed=seed, balance=False)
        tr, va = split["train"], split["val"]
        r = tr["row_idx"].to_numpy()
        probe = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], topic_keys(tr), **params)
        metrics["topic_holdout_val"] = evaluate(probe, X[va["row_idx"].to_numpy()], va["provider"], va["genre"])
        log("topic-held-out val: " + _summary(metrics["topic_holdout_val"]))
        metrics["length_falloff"] = falloff(probe, va, log)
        if corpus["genre"].nunique() > 2:
            metrics["leave_one_genre_out"], oof = logo(corpus, X, Xa, params, log)
    log("fitting the final model")
    model = fit_augmented(X, Xa, corpus["provider"], corpus["genre"], topic_keys(corpus), calibrate=not check, **params)
    if check and corpus["genre"].nunique() > 2:  # calibrate on the check's out-of-genre predictions
        model.calibrate_out_of_genre(*oof)
    model.metrics_ = metrics
    model.training_ = {
        "files": [{"name": Path(p).name, "sha256": _sha256(p)} for p in corpus_paths],
        "seed": seed,
        "counts": {f"{g}/{p}": int(n) for (g, p), n in corpus.groupby(["genre", "provider"]).size().items()},
        "n_texts": int(len(corpus)),
        "augmentation": {"edits": list(AUGMENTATIONS), "weight": AUG_WEIGHT},
        "typography_norms": typography_norms(corpus["text"].tolist(), corpus["provider"].tolist()),
    }
    save_model(model, out)
    Path(out, "MODEL_CARD.md").write_text(model_card(model))
    log(f"saved model to {out} (temperature {model.temperature_:.3f}, abstain below {model.abstain_below_:.3f}) "
        f"in {time.perf_counter() - t0:.1f}s total")
    return metrics


def falloff(model: StyleModel, val, log: Callable[[str], None]) -> dict[str, float]:
    """Accuracy on the val texts cut to their first N words."""
    y = val["provider"].to_numpy()
    out = {}
    for n in FALLOFF_LENGTHS:
        pred = model.predict([first_words(t, n) for t in val["text"]])
        out[str(n)] = float((pred == y).mean())
    log("accuracy by length (first N words): " + ", ".join(f"{n}: {a:.3f}" for n, a in out.items()))
    return out


def logo(corpus, X: np.ndarray, Xa: np.ndarray, params: dict[str, Any],
         log: Callable[[str], None]) -> tuple[dict[str, Any], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Leave-one-genre-out: accuracy (4-way, and 3-way on the providers' texts), OTHER AUROC, and
    calibration with the temperature each held-out genre would get (fitted on the other genres'
    out-of-genre predictions, never its own). Also returns the out-of-genre ``(logits, distances,
    labels)`` of every row, which calibrate the final model."""
    from sklearn.metrics import roc_auc_score

    from whowrote.data.splits import leave_one_genre_out

    folds = []
    dist = np.zeros(len(X))
    for genre, tr, te in leave_one_genre_out(corpus):
        r, t = tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()
        m = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], calibrate=False, **params)
        folds.append((str(genre), m, m.logits(X[t]), te["provider"].to_numpy(object), t))
        dist[t] = m.distance(X[t])
        log(f"leave-one-genre-out {genre}: fitted on {len(r)} texts")
    out: dict[str, Any] = {}
    for genre, m, logits, y, _ in folds:
        cls = list(m.classes_)
        others = [(lg, yy) for g, mm, lg, yy, _ in folds if g != genre and list(mm.classes_) == cls]
        yi_o = np.concatenate([[cls.index(v) for v in yy] for _, yy in others])
        T = fit_temperature(np.vstack([lg for lg, _ in others]), yi_o)
        P = softmax(logits, T)
        pred, known = m.classes_[P.argmax(axis=1)], np.isin(y, m.classes_)
        three = y != OTHER
        yi = np.array([cls.index(v) if v in cls else -1 for v in y])
        row = {"n": int(len(y)), "accuracy": float((pred == y).mean()),
               "accuracy_3way": float((three_way(m, P)[three] == y[three]).mean()) if three.any() else None,
               "ece": expected_calibration_error(P[known], yi[known]), "temperature": T}
        if OTHER in cls and 0 < (y == OTHER).sum() < len(y):
            row["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, cls.index(OTHER)]))
        out[genre] = row
        log(f"leave-one-genre-out {genre}: accuracy {row['accuracy']:.3f}, 3-way {row['accuracy_3way'] or 0:.3f} "
            f"(n={len(y)}), ECE {row['ece']:.3f}")
    for key in ("accuracy", "accuracy_3way", "ece"):
        vals = [v[key] for v in out.values() if v.get(key) is not None]
        out[f"mean_{key}"] = float(np.mean(vals))
    oof = np.zeros((len(X), len(folds[0][1].classes_)))
    for _, m, logits, _, t in folds:
        oof[t] = logits if list(m.classes_) == list(folds[0][1].classes_) else np.nan
    keep = ~np.isnan(oof).any(axis=1)
    y = corpus["provider"].to_numpy(object)
    return out, (oof[keep], dist[keep], y[keep])


def _summary(m: dict[str, Any]) -> str:
    genres = ", ".join(f"{g} {v['accuracy']:.3f} (n={v['n']})" for g, v in m["per_genre"].items())
    auroc = f", OTHER AUROC {m['other_auroc']:.3f}" if "other_auroc" in m else ""
    return (f"accuracy {m['accuracy']:.3f} (n={m['n']}; {genres}), macro-F1 {m['macro_f1']:.3f}, "
            f"ECE {m['ece']:.3f}, Brier {m['brier']:.3f}{auroc}")


def _sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
