"""Per-provider feature signatures (spec §5.2): top coefficients, provider means, and the
"CLAUDE uses 19× the em-dashes of CHATGPT" sentences."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from whowrote.study.probes import Probe, ordered_labels

# Plain-English plural nouns for the research-41 features (others fall back to their name).
NOUNS: dict[str, str] = {
    "avg_sent_len_words": "sentence length", "avg_word_len": "word length",
    "type_token_ratio": "vocabulary variety", "punc_comma": "commas", "punc_semicolon": "semicolons",
    "punc_colon": "colons", "punc_emdash": "em-dashes", "punc_question": "question marks",
    "punc_exclaim": "exclamation marks", "punc_paren": "parentheses",
    "punc_dquote": "straight double quotes", "md_h1": "# headers", "md_h2_h3": "##/### headers",
    "md_bullet": "bullet lines", "md_numbered": "numbered-list lines", "md_bold": "bold markers",
    "md_code": "code fences", "md_table": "table pipes", "md_blockquote": "blockquotes",
    "latex": "LaTeX marks", "ascii_art": "ASCII-art runs", "first_person_I": "first-person 'I's",
    "first_person_we": "'we's", "digit_ratio": "share of digits", "upper_ratio": "share of capitals",
}


def noun(feature: str) -> str:
    if feature in NOUNS:
        return NOUNS[feature]
    if feature.startswith("w_"):
        return f'"{feature[2:]}"s'
    return feature.replace("_", " ")


def top_coefficients(probe: Probe, names: Sequence[str], k: int = 8) -> dict[str, list[tuple[str, float]]]:
    """Per class, the ``k`` largest positive standardized coefficients, descending (3 decimals)."""
    coef = probe.coef()
    out = {}
    for cls in ordered_labels(probe.classes):
        row = coef[probe.classes.index(cls)]
        order = [i for i in np.argsort(-row, kind="stable") if row[i] > 0][:k]
        out[cls] = [(str(names[i]), round(float(row[i]), 3)) for i in order]
    return out


def provider_means(X: np.ndarray, y: np.ndarray, names: Sequence[str]) -> dict[str, dict[str, float]]:
    """Unscaled feature means per provider."""
    return {
        p: {str(n): round(float(v), 4) for n, v in zip(names, X[y == p].mean(axis=0), strict=True)}
        for p in ordered_labels(y)
    }


def _fmt_ratio(r: float) -> str:
    return f"{r:.0f}×" if r >= 10 else f"{r:.1f}×"


LEVEL_FEATURES = {"avg_sent_len_words", "avg_word_len", "type_token_ratio", "digit_ratio", "upper_ratio"}


def tell_sentence(p: str, q: str, f: str, mp: float, mq: float, ratio: float | None) -> str:
    """One plain sentence for a tell: "CLAUDE uses 19× the em-dashes of CHATGPT (1.89 vs 0.103)"."""
    nums = f"({mp:.3g} vs {mq:.3g} `{f}`)"
    if f.startswith("w_"):
        word = f'"{f[2:]}"'
        if ratio is None:
            return f"{p} writes {word} ({mp:.3g} per 1k words, `{f}`); {q} almost never does ({mq:.3g})."
        return f"{p} writes {word} {_fmt_ratio(ratio)} as often as {q} {nums}."
    if ratio is None:
        return f"{p} uses {noun(f)} ({mp:.3g} `{f}`); {q} almost never does ({mq:.3g})."
    if f in LEVEL_FEATURES:
        return f"{p}'s {noun(f)} is {_fmt_ratio(ratio)} {q}'s {nums}."
    return f"{p} uses {_fmt_ratio(ratio)} the {noun(f)} of {q} {nums}."


def _matched_means(X: np.ndarray, y: np.ndarray, genres: np.ndarray, p: str, q: str) -> tuple:
    """Means of p and q over the genres where both occur (mean of per-genre means), and the pooled
    standard deviation: a genre-matched comparison (blogs have no GEMINI, for instance)."""
    shared = [g for g in sorted(set(genres.tolist())) if (y[genres == g] == p).any() and (y[genres == g] == q).any()]
    if not shared:
        return None
    mp = np.mean([X[(y == p) & (genres == g)].mean(axis=0) for g in shared], axis=0)
    mq = np.mean([X[(y == q) & (genres == g)].mean(axis=0) for g in shared], axis=0)
    rows = np.isin(genres, shared)
    sd = np.sqrt((X[rows & (y == p)].var(axis=0) + X[rows & (y == q)].var(axis=0)) / 2)
    return mp, mq, sd, shared


def ratio_sentences(
    X: np.ndarray, y: np.ndarray, names: Sequence[str], genres: np.ndarray | None = None,
    k: int = 3, min_ratio: float = 1.5,
) -> dict[str, list[dict]]:
    """Per provider, its ``k`` clearest tells as sentences ("CLAUDE uses 19× the em-dashes of
    CHATGPT").

    A tell of provider p is a feature on which p is the highest of the named providers (CLAUDE /
    CHATGPT / GEMINI; OTHER is compared with all of them); it is stated against the provider q
    lowest on it. Means are genre-matched (over the genres where both p and q occur). Features
    are ranked by the standardized mean difference and kept when the ratio is at least
    ``min_ratio``. Each item: ``{feature, ratio, d, vs, mean, vs_mean, genres, sentence}``
    (``ratio`` is None when q's mean is ~0).
    """
    genres = np.full(len(y), "all", dtype=object) if genres is None else np.asarray(genres, dtype=object)
    providers = ordered_labels(y)
    named = [p for p in providers if p != "OTHER"]
    pairs = {(p, q): _matched_means(X, y, genres, p, q) for p in providers for q in providers if p != q}
    out: dict[str, list[dict]] = {}
    for p in providers:
        others = [q for q in (named if p != "OTHER" else providers) if q != p and pairs[(p, q)] is not None]
        cands = []
        for j, f in enumerate(names):
            if not others:
                break
            if any(pairs[(p, o)][0][j] <= pairs[(p, o)][1][j] for o in others):
                continue  # p is not the highest on f
            q = min(others, key=lambda o: pairs[(p, o)][1][j])
            mp, mq, sd, shared = pairs[(p, q)]
            mp, mq, sd = float(mp[j]), float(mq[j]), float(sd[j])
            if mp <= 0 or sd == 0:
                continue
            ratio = mp / mq if mq > 0.01 * mp else None
            if ratio is not None and ratio < min_ratio:
                continue
            cands.append(((mp - mq) / sd, str(f), q, mp, mq, ratio, shared))
        cands.sort(key=lambda t: (-t[0], t[1]))
        items = []
        for d, f, q, mp, mq, ratio, shared in cands[:k]:
            sentence = tell_sentence(p, q, f, mp, mq, ratio)
            items.append({"feature": f, "ratio": None if ratio is None else round(ratio, 2), "d": round(d, 3),
                          "vs": q, "mean": round(mp, 4), "vs_mean": round(mq, 4), "genres": shared,
                          "sentence": sentence})
        out[p] = items
    return out


def genre_signatures(
    X: np.ndarray, y: np.ndarray, genres: np.ndarray, names: Sequence[str], k: int = 5
) -> dict:
    """Within-genre probes: per genre top features per provider; across genres, the sign agreement
    of each provider's coefficients and the features that transfer (same sign everywhere).

    Returns ``{per_genre: {genre: {n, providers, top}}, transfer: {provider: [...]},
    sign_agreement: {provider: float}, coef_corr: {provider: {"g1|g2": r}}}``.
    """
    per_genre, coefs = {}, {}
    for g in sorted(set(genres.tolist())):
        mask = genres == g
        if len(set(y[mask].tolist())) < 2:
            continue
        probe = Probe(scaled=True).fit(X[mask], y[mask])
        coef = probe.coef()
        coefs[g] = {c: coef[i] for i, c in enumerate(probe.classes)}
        per_genre[g] = {"n": int(mask.sum()), "providers": ordered_labels(probe.classes),
                        "top": top_coefficients(probe, names, k)}
    transfer, agreement, corr = {}, {}, {}
    for p in ordered_labels(y):
        rows = {g: c[p] for g, c in coefs.items() if p in c}
        if len(rows) < 2:
            continue
        M = np.vstack(list(rows.values()))
        signs = np.sign(M)
        major = np.sign(signs.sum(axis=0))
        agree = (signs == major).mean(axis=0)
        agreement[p] = round(float(agree.mean()), 3)
        consistent = [i for i in range(M.shape[1]) if np.all(signs[:, i] == major[i]) and major[i] != 0]
        consistent.sort(key=lambda i: -np.abs(M[:, i]).min())
        transfer[p] = [{"feature": str(names[i]), "sign": "+" if major[i] > 0 else "-",
                        "min_abs_coef": round(float(np.abs(M[:, i]).min()), 3),
                        "mean_coef": round(float(M[:, i].mean()), 3)} for i in consistent[:k]]
        gs = list(rows)
        corr[p] = {f"{a}|{b}": round(float(np.corrcoef(rows[a], rows[b])[0, 1]), 3)
                   for i, a in enumerate(gs) for b in gs[i + 1:]}
    return {"per_genre": per_genre, "transfer": transfer, "sign_agreement": agreement, "coef_corr": corr}


def genre_effects(
    X: np.ndarray, y: np.ndarray, genres: np.ndarray, names: Sequence[str], features: Sequence[str]
) -> dict[str, dict[str, dict[str, float]]]:
    """For the chosen features: genre -> provider -> standardized difference
    (provider mean - genre mean) / genre standard deviation. Same sign in every genre = a tell
    that transfers; a sign flip = a genre-specific habit."""
    idx = [list(names).index(f) for f in features if f in names]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for g in sorted(set(genres.tolist())):
        mask = genres == g
        base, sd = X[mask][:, idx].mean(axis=0), X[mask][:, idx].std(axis=0)
        out[g] = {}
        for p in ordered_labels(y[mask]):
            m = X[mask & (y == p)][:, idx].mean(axis=0)
            out[g][p] = {str(names[i]): round(float((mm - base[j]) / sd[j]), 3) if sd[j] > 0 else 0.0
                         for j, (i, mm) in enumerate(zip(idx, m, strict=True))}
    return out
