"""Training the bundled model reproducibly (``whowrote train-probe``).

1. Load the corpus files and extract the features of every text and of its edited copies once.
2. Honest check: fit on the topic-held-out ``train`` split (``whowrote.data.splits``), measure
   on ``val``; then leave-one-genre-out (every genre predicted by a model that never saw it).
3. Fit the final model on every row (calibrated on out-of-genre predictions), save it (JSON + npz)
   with the metrics and a model card.

Every fit also sees one edited copy of each training text (weight 0.5; ``AUGMENTATIONS``, one
chosen at random per text): its first 60-600 words, or the text pasted as plain text (Markdown
stripped), or all content-keeping edits at once (plain text, ASCII, lower case, sentences
shuffled). ``AUGMENTATIONS`` may list several groups (one copy per group; ``COPY_EDITS`` also
holds the HTML round trip and character crops). The model reads the canonical form of every
text, so typography and case edits need no copies: they cannot change the features.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from whowrote.data.outdir import check_own_folder, claim_folder
from whowrote.style.edits import (
    combined,
    drop_ends,
    first_chars,
    first_words,
    markdown_html_roundtrip,
    one_blank_line,
    single_newlines,
    strip_markdown,
)
from whowrote.style.explain import typography_stats
from whowrote.style.heldout import capped, edit_scores, evaluate, logo_report
from whowrote.style.io import save_model
from whowrote.style.model import StyleModel
from whowrote.style.model_card import model_card
from whowrote.types import WhowroteError, file_sha256

AUG_LENGTHS = (60, 100, 150, 250, 400, 600)
FALLOFF_LENGTHS = (50, 100, 250, 500, 1000)
ROBUSTNESS_CAP = 400


def truncated_copies(texts: Sequence[str], seed: int = 0) -> list[str]:
    """Each text cut to its first 60-600 words: the previous recipe's only copy (benchmarks compare it)."""
    rng = random.Random(seed)
    return [first_words(t, rng.choice(AUG_LENGTHS)) for t in texts]


# Every edit a training copy can get: (text, n) -> the edited text, n a length drawn from AUG_LENGTHS.
COPY_EDITS: dict[str, Callable[[str, int], str]] = {
    "truncated": lambda t, n: first_words(t, n),
    "first_chars": lambda t, n: first_chars(t, 5 * n),  # its first 300-3000 characters
    "plain_text": lambda t, n: strip_markdown(t),
    "markdown_html": lambda t, n: markdown_html_roundtrip(t),
    "combined": lambda t, n: combined(t, seed=n),
    # session 32's trial (benchmarks/layout_copies.py): the layout edit alone, and after each copy edit
    "single_newlines": lambda t, n: single_newlines(t),
    "truncated+single_newlines": lambda t, n: single_newlines(first_words(t, n)),
    "plain_text+single_newlines": lambda t, n: single_newlines(strip_markdown(t)),
    "combined+single_newlines": lambda t, n: single_newlines(combined(t, seed=n)),
    # session 50's trial (benchmarks/drop_ends_copies.py): the first and last paragraphs cut
    "drop_ends": lambda t, n: drop_ends(t),
}
# Each training text gets one copy per group, its edit drawn at random from the group, at weight
# AUG_WEIGHT each. The bundled model's recipe: one copy (truncated, plain text or all combined).
# Mixes with the HTML round trip and character crops were compared on an inner split
# (benchmarks/augmentation_mix.py); the one picked (a shortened and a reformatted copy, 0.25 each)
# lost 4 points of leave-one-genre-out 3-way accuracy when retrained, so it was not adopted
# (docs/predict-trials.md, "Edit-robust training copies").
AUGMENTATIONS: tuple[tuple[str, ...], ...] = (("truncated", "plain_text", "combined"),)
AUG_WEIGHT = 0.5
# The debate genre's transcripts put every claim on a line of its own: the debate benchmark's format,
# shared by every debater, not a writer's habit. Trained only that way, the model tied those versions
# to that layout (the same versions in persuasion chats, paragraphs apart by blank lines: 4-way 0.53 for
# a refit, 0.77 with these rows), so each such text also trains laid out with blank lines
# (docs/predict-trials.md, "The debates also with blank lines between paragraphs", session 58).
BLANK_LINE_GENRES: tuple[str, ...] = ("debate",)


def with_blank_line_copies(corpus, genres: Sequence[str] = BLANK_LINE_GENRES):
    """``corpus`` and, for each text of ``genres``, a row with every run of line breaks one blank line
    (same label, genre and topic, so the same side of every split; the recipe weighs a genre, not its
    rows, so the genre's weight is shared by both layouts). ``layout_copy`` marks those rows: trained
    on, never scored."""
    import pandas as pd

    corpus = corpus.assign(layout_copy=False)
    rows = corpus[corpus["genre"].isin(list(genres))]
    if rows.empty:
        return corpus
    copies = rows.assign(text=rows["text"].map(one_blank_line), layout_copy=True)
    if "id" in copies.columns:
        copies["id"] = copies["id"].astype(str) + ":blank-lines"
    return pd.concat([corpus, copies], ignore_index=True)


def edited_copies(texts: Sequence[str], seed: int = 0,
                  groups: Sequence[Sequence[str]] = AUGMENTATIONS) -> list[list[str]]:
    """Per group of ``groups``, one edited copy of every text (the group's edit drawn per text)."""
    rng = random.Random(seed)
    return [[COPY_EDITS[rng.choice(names)](t, rng.choice(AUG_LENGTHS)) for t in texts] for names in groups]


def copy_features(featurise: Callable[[list[str]], np.ndarray], texts: Sequence[str], seed: int = 0,
                  groups: Sequence[Sequence[str]] = AUGMENTATIONS) -> np.ndarray:
    """``(texts, copies, features)``: the features of :func:`edited_copies`, row by row (so that
    ``Xa[rows]`` picks every copy of those rows)."""
    return np.stack([featurise(c) for c in edited_copies(texts, seed, groups)], axis=1)


def check_copies(groups: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    """``groups`` as a tuple of tuples, or a :class:`WhowroteError` naming an unknown or empty group."""
    out = tuple(tuple(g) for g in groups)
    for g in out:
        bad = [name for name in g if name not in COPY_EDITS]
        if bad or not g:
            raise WhowroteError(f"copy group {','.join(g) or '(empty)'!r}: "
                                f"{'unknown edit ' + ', '.join(b or '(an empty name)' for b in bad) if bad else 'no edit'}; "
                                f"choose among {', '.join(COPY_EDITS)}")
    return out


def augmented_features(model: StyleModel, texts: Sequence[str], seed: int = 0,
                       log: Callable[[str], None] | None = None,
                       groups: Sequence[Sequence[str]] = AUGMENTATIONS) -> tuple[np.ndarray, np.ndarray]:
    """Feature matrices of the texts and of their edited copies (:func:`copy_features`), same row order."""
    t0 = time.perf_counter()
    X = model.features(texts)
    Xa = copy_features(model.features, texts, seed, groups)
    if log:
        log(f"features of {len(texts)} texts and their edited copies in {time.perf_counter() - t0:.1f}s")
    return X, Xa


def augmented_rows(X: np.ndarray, Xa: np.ndarray, y, genres, groups=None, aug_weight: float = AUG_WEIGHT,
                   row_weight: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """``(rows, y, genres, groups, sample_weight)`` as :func:`fit_augmented` fits them: the rows ``X``,
    then each kind of edited copy ``Xa`` (``(rows, features)`` for one copy per row, ``(rows, copies,
    features)`` for several), the copies at ``aug_weight``; ``row_weight`` (default 1) scales a row
    and its copies alike."""
    Xa = Xa[:, None, :] if Xa.ndim == 2 else Xa
    if Xa.shape[0] != len(X):
        raise ValueError(f"copies of {Xa.shape[0]} rows for {len(X)} rows")
    k = Xa.shape[1]
    y, genres = np.asarray(y, dtype=object), np.asarray(genres, dtype=object)
    w = np.r_[np.ones(len(X)), np.full(k * len(X), aug_weight)]
    if row_weight is not None:
        w = w * np.tile(np.asarray(row_weight, dtype=np.float64), k + 1)
    g2 = None if groups is None else np.tile(np.asarray(groups, dtype=object), k + 1)
    stacked = np.vstack([X, *(Xa[:, j] for j in range(k))])
    return stacked, np.tile(y, k + 1), np.tile(genres, k + 1), g2, w


def fit_augmented(X: np.ndarray, Xa: np.ndarray, y, genres, groups=None, aug_weight: float = AUG_WEIGHT,
                  row_weight: np.ndarray | None = None, **params) -> StyleModel:
    """Fit a :class:`StyleModel` on rows ``X`` plus their edited copies ``Xa``, weight ``aug_weight``
    each (:func:`augmented_rows`; ``row_weight`` scales a row and its copies)."""
    rows, y2, g2, groups2, w = augmented_rows(X, Xa, y, genres, groups, aug_weight, row_weight)
    return StyleModel(**params).fit(rows, y2, genres=g2, groups=groups2, sample_weight=w)


def typography_norms(texts: Sequence[str], y: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per label, the mean of each raw typographic habit (for the fragile typography tells)."""
    stats = [typography_stats(t) for t in texts]
    y = np.asarray(y, dtype=object)
    return {name: {str(c): float(np.mean([s[name] for s, yy in zip(stats, y, strict=True) if yy == c]))
                   for c in sorted(set(y.tolist()))} for name in stats[0]} if stats else {}


def train_probe(
    corpus_paths: Sequence[str | Path],
    out: str | Path,
    seed: int = 0,
    feature_set: str = "full",
    check: bool = True,
    log: Callable[[str], None] = print,
    robustness_cap: int = ROBUSTNESS_CAP,
    tree_iter: int = 300,
    blend_iter: int = 0,
    copies: Sequence[Sequence[str]] = AUGMENTATIONS,
    blank_line_genres: Sequence[str] = BLANK_LINE_GENRES,
) -> dict[str, Any]:
    """Train (and by default first validate) a :class:`StyleModel`; save it to ``out``.

    The check also scores up to ``robustness_cap`` held-out texts per test set under every edit
    of the suite (0 skips it). ``tree_iter``: boosting rounds (the bundled model's 300; 600 gain ~1
    point in-genre at 0.77x the chat batch speed, docs/predict-trials.md "More boosting rounds");
    ``blend_iter``: rounds of a second, large-leaf ensemble averaged into the trees' scores (0, the
    bundled model: none; 75 read unseen genres 1.7 points better than a refit without it, held-out
    topics as well, the length edits worse: docs/predict-trials.md "Tree settings"; 300: +2.9 points
    across genres in its own check, no in-genre loss, 0.85x the chat batch speed: docs/predict.md "A
    faster tree step"); ``copies``: the training copies, one per group, its edit drawn per text from
    ``COPY_EDITS`` (the bundled model's ``AUGMENTATIONS``; adding ``("single_newlines",)`` read unseen genres 6.2 points better on inner
    splits, the 800-character crop 0.7-1.0 worse: docs/predict-trials.md "Training copies with single line breaks");
    ``blank_line_genres``: genres whose texts also train laid out with blank lines (:func:`with_blank_line_copies`)."""
    from whowrote.data.splits import topic_holdout_split, topic_keys

    t0 = time.perf_counter()
    copies = check_copies(copies)
    check_own_folder(Path(out), PROBE_OWNER, _holds_a_model)  # a user's folder is refused before any work
    corpus = with_blank_line_copies(training_corpus(corpus_paths), blank_line_genres)
    corpus["row_idx"] = np.arange(len(corpus))
    written = corpus[~corpus["layout_copy"].to_numpy(bool)]
    log(f"loaded {len(written)} texts from {len(corpus_paths)} file(s) in {time.perf_counter() - t0:.1f}s"
        + (f"; {len(corpus) - len(written)} of them ({', '.join(blank_line_genres)}) also laid out with blank lines"
           if len(corpus) > len(written) else ""))
    for note in corpus.attrs.get("load_notes", []):
        log(f"note: {note}")
    counts = {str(k): int(v) for k, v in corpus["provider"].value_counts().items()}
    if len(counts) < 2:
        raise WhowroteError(f"need texts from at least 2 providers to train, got {counts}")
    params = {"feature_set": feature_set, "seed": seed, "tree_iter": tree_iter, "blend_iter": blend_iter}
    X, Xa = augmented_features(StyleModel(**params), corpus["text"].tolist(), seed, log, copies)
    metrics: dict[str, Any] = {}
    if check:
        split = topic_holdout_split(corpus, seed=seed, balance=False)
        tr, va = split["train"], split["val"]
        va = va[~va["layout_copy"].to_numpy(bool)]  # trained on, never scored
        r = tr["row_idx"].to_numpy()
        probe = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], topic_keys(tr), **params)
        Xv = X[va["row_idx"].to_numpy()]
        metrics["topic_holdout_val"] = evaluate(probe, Xv, va["provider"], va["genre"])
        # in-genre held-out predictions (unseen topics): with LOGO's, they calibrate the final model
        in_genre = (probe.logits(Xv), probe.distance(Xv), va["provider"].to_numpy(object), va["genre"].to_numpy(object))
        log("topic-held-out val: " + _summary(metrics["topic_holdout_val"]))
        if robustness_cap:
            sub = capped(va, robustness_cap, seed)
            metrics["topic_holdout_edits"] = edit_scores(probe, sub["text"].tolist(), sub["provider"], seed)
            log("topic-held-out val under edits: " + ", ".join(
                f"{k} {v['accuracy']:.3f}" for k, v in metrics["topic_holdout_edits"].items()))
        metrics["length_falloff"] = falloff(probe, va, log)
        if corpus["genre"].nunique() > 2:
            metrics["leave_one_genre_out"], oof = logo(corpus, X, Xa, params, log, robustness_cap, in_genre)
    log("fitting the final model")
    model = fit_augmented(X, Xa, corpus["provider"], corpus["genre"], topic_keys(corpus), calibrate=not check, **params)
    if check and corpus["genre"].nunique() > 2:  # calibrate on the check's out-of-genre predictions
        model.calibrate_out_of_genre(*oof, in_genre=in_genre[:3]).set_params(calibrate=True)  # as fit(calibrate=True) would
    model.metrics_ = metrics
    model.training_ = {
        "files": [{"name": Path(p).name, "sha256": file_sha256(p)} for p in corpus_paths],
        "seed": seed,
        "counts": {f"{g}/{p}": int(n) for (g, p), n in written.groupby(["genre", "provider"]).size().items()},
        "n_texts": int(len(written)),
        "augmentation": {"copies": [list(g) for g in copies], "weight": AUG_WEIGHT,
                         "blank_line_genres": list(blank_line_genres), "blank_line_rows": int(len(corpus) - len(written))},
        "typography_norms": typography_norms(written["text"].tolist(), written["provider"].tolist()),
        # the same corpus and seed give other trees under another scikit-learn (1.9.1 vs the bundled
        # model's: raw tree scores up to 1.42 apart, 99.2 % of verdicts the same), so say which made it
        "versions": library_versions(),
    }
    save_model(model, claim_folder(Path(out), PROBE_OWNER, _holds_a_model))
    Path(out, "MODEL_CARD.md").write_text(model_card(model))
    log(f"saved model to {out} (temperature {model.temperature_:.3f} x (1 + distance) ^ {model.temperature_slope_:.3f}, "
        f"abstain below {model.abstain_below_:.3f}) "
        f"in {time.perf_counter() - t0:.1f}s total")
    return metrics


PROBE_OWNER = "whowrote train-probe"


def _holds_a_model(out: Path) -> bool:
    """A folder train-probe wrote before folders were marked: it holds a saved model."""
    return (out / "model.json").is_file() and (out / "model.npz").is_file()


def training_corpus(paths: Sequence[str | Path]):
    """The corpus table as :func:`train_probe` fits on it: every file in order, index reset, without
    the generations cut off at their output budget (``truncated``, from ``whowrote data generate``)."""
    from whowrote.data import load_corpus

    corpus = read_markup(load_corpus(list(paths)).reset_index(drop=True))
    if "truncated" in corpus.columns:
        corpus = corpus[~corpus["truncated"].eq(True)].reset_index(drop=True)
    return corpus


def read_markup(corpus):
    """The corpus with the rows a loader marked ``markup == "html"`` (Gemini's exported answers) read
    as the Markdown their HTML displays, as ``predict`` reads an HTML page."""
    if "markup" not in corpus.columns or not corpus["markup"].eq("html").any():
        return corpus
    from whowrote.style.html_reader import html_to_markdown

    html = corpus["markup"].eq("html")
    corpus = corpus.copy()
    corpus.loc[html, "text"] = corpus.loc[html, "text"].map(html_to_markdown)
    return corpus


def library_versions() -> dict[str, str]:
    """The versions of what fits the model (Python, numpy, scikit-learn, scipy)."""
    import platform
    from importlib.metadata import version

    return {"python": platform.python_version(),
            **{name: version(name) for name in ("numpy", "scikit-learn", "scipy")}}


def falloff(model: StyleModel, val, log: Callable[[str], None]) -> dict[str, float]:
    """Accuracy on the val texts cut to their first N words."""
    y = val["provider"].to_numpy()
    out = {}
    for n in FALLOFF_LENGTHS:
        pred = model.predict([first_words(t, n) for t in val["text"]])
        out[str(n)] = float((pred == y).mean())
    log("accuracy by length (first N words): " + ", ".join(f"{n}: {a:.3f}" for n, a in out.items()))
    return out


def logo(corpus, X: np.ndarray, Xa: np.ndarray, params: dict[str, Any], log: Callable[[str], None],
         robustness_cap: int = 0, in_genre=None) -> tuple[dict[str, Any], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Leave-one-genre-out (see :func:`whowrote.style.heldout.logo_report`; ``in_genre``, the topic
    hold-out's ``(logits, distances, labels, genres)``, joins each genre's calibration fit),
    optionally with the edit suite on up to ``robustness_cap`` texts of each held-out genre. Also
    returns the out-of-genre ``(logits, distances, labels)`` of every row, which calibrate the final
    model."""
    from whowrote.data.splits import leave_one_genre_out

    folds, robust, test_rows = [], {}, []
    for genre, tr, te in leave_one_genre_out(corpus):
        te = te[~te["layout_copy"].to_numpy(bool)]  # trained on, never scored
        r, t = tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()
        test_rows.append(t)
        m = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], calibrate=False, **params)
        y = te["provider"].to_numpy(object)
        folds.append((str(genre), m, m.logits(X[t]), y, m.distance(X[t])))
        if robustness_cap:
            sub = capped(te, robustness_cap, params.get("seed", 0))
            robust[str(genre)] = edit_scores(m, sub["text"].tolist(), sub["provider"], params.get("seed", 0))
        log(f"leave-one-genre-out {genre}: fitted on {len(r)} texts; accuracy "
            f"{(m.classes_[folds[-1][2].argmax(axis=1)] == y).mean():.3f} (n={len(y)})")
    out = logo_report(folds, in_genre)
    if robust:
        out["edits"] = robust
    log(f"leave-one-genre-out: mean accuracy {out['mean_accuracy']:.3f}, 3-way {out['mean_accuracy_3way']:.3f}, "
        f"ECE {out['mean_ece']:.3f}, coverage {out['mean_coverage']:.3f} at accuracy {out['mean_selective_accuracy']:.3f}")
    cls = list(folds[0][1].classes_)
    same = [i for i, f in enumerate(folds) if list(f[1].classes_) == cls]  # folds that saw every label
    rows = np.concatenate([test_rows[i] for i in same])
    return out, (np.vstack([folds[i][2] for i in same]), np.concatenate([folds[i][4] for i in same]),
                 corpus["provider"].to_numpy(object)[rows])


def _summary(m: dict[str, Any]) -> str:
    genres = ", ".join(f"{g} {v['accuracy']:.3f} (n={v['n']})" for g, v in m["per_genre"].items())
    auroc = f", OTHER AUROC {m['other_auroc']:.3f}" if "other_auroc" in m else ""
    return (f"accuracy {m['accuracy']:.3f} (n={m['n']}; {genres}), macro-F1 {m['macro_f1']:.3f}, "
            f"ECE {m['ece']:.3f}, Brier {m['brier']:.3f}{auroc}")


