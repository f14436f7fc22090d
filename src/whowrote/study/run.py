"""``run_study``: style vs content on one corpus, written as report.html, summary.md, summary.json."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from whowrote.study import probes as P
from whowrote.study import robustness as R
from whowrote.study import signatures as S
from whowrote.study.embed import EmbeddingCache, embed
from whowrote.study.maps import knn_separation, project_2d
from whowrote.study.progress import Steps
from whowrote.study.sample import build_splits, subsample
from whowrote.style.edits import edits as perturbations
from whowrote.style.features import extract, feature_names
from whowrote.types import LABELS, jsonable


@dataclass
class StudyConfig:
    seed: int = 0
    max_per_class: int | None = 100  # texts per (genre, provider) cell; None = all
    labels: Sequence[str] = LABELS
    val_frac: float = 0.2
    content_eval_cap: int = 150  # held-out texts the content probe sees under edits / prefixes
    map_points: int = 900
    full_features: bool = True  # also probe whowrote's full feature set
    style_model: bool = True  # also refit whowrote's StyleModel recipe per split (needs full_features)
    default_model: bool = True  # also score whowrote's default model (as shipped, no refit)
    progress: bool = True
    cache: bool = True  # keep MiniLM embeddings for re-runs (in cache_dir, default out_dir/cache)
    cache_dir: str | None = None
    map_method: str = "auto"
    notes: list[str] = field(default_factory=list)


def _single_thread():
    """BLAS / OpenMP limited to one thread: on a shared, busy CPU the small sklearn fits of the
    study run faster without thread barriers (torch's encoder is not affected)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _feature_memo() -> Callable[[Sequence[str], str], np.ndarray]:
    """``features(texts, feature_set)``, each distinct request extracted once per run: the probes,
    the refitted StyleModel, the default model and the tell survival all featurise the same
    (edited) texts."""
    memo: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}

    def features(texts: Sequence[str], feature_set: str) -> np.ndarray:
        key = (feature_set, tuple(texts))
        if key not in memo:
            memo[key] = np.asarray(extract(list(texts), feature_set=feature_set), dtype=float)
        return memo[key]

    return features


def run_study(corpus: pd.DataFrame, out_dir: str | Path, seed: int = 0, **options) -> dict:
    """Run every part of the study on ``corpus`` and write the report files into ``out_dir``.

    Returns the summary (the content of ``summary.json``). ``options`` are :class:`StudyConfig`
    fields (``max_per_class``, ``progress``, …).
    """
    cfg = StudyConfig(seed=seed, **options)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    notes = list(cfg.notes)
    df = subsample(corpus, cfg.max_per_class, seed, cfg.labels)
    texts, y = df["text"].astype(str).tolist(), df["provider"].to_numpy(dtype=object)
    genres = df["genre"].to_numpy(dtype=object)
    splits = build_splits(df, seed, cfg.val_frac)
    if cfg.max_per_class:
        notes.append(f"At most {cfg.max_per_class} texts per (genre, provider) were sampled (seed {seed}); "
                     f"{len(df)} of {len(corpus)} texts are used.")
    rng = np.random.default_rng(seed)
    eval_rows = rng.permutation(splits["val"]["test"])
    eval_texts, eval_y = [texts[i] for i in eval_rows], y[eval_rows]
    cache_dir = Path(cfg.cache_dir) if cfg.cache_dir else out / "cache"
    cache = EmbeddingCache(cache_dir / "minilm_embeddings.npz" if cfg.cache else None)
    summary: dict = {"config": {k: v for k, v in asdict(cfg).items() if k not in ("notes", "cache_dir")}}

    features = _feature_memo()
    with Steps(cfg.progress) as steps:
        with steps.step("style features (41)", 1):
            X41, names41 = features(texts, "research41"), list(feature_names("research41"))
        Xfull = names_full = None
        if cfg.full_features:
            with steps.step("style features (full)", 1):
                try:
                    Xfull, names_full = features(texts, "full"), list(feature_names("full"))
                except Exception as e:  # noqa: BLE001
                    notes.append(f"Full feature set unavailable ({type(e).__name__}: {e}).")
        with steps.step("content embeddings (MiniLM)", None) as adv:
            E = embed(texts, cache, on_total=adv.set_total, on_batch=adv)
        cache.save()
        with steps.step("probes", len(splits) * 3) as adv, _single_thread():
            results: dict[str, dict] = {}
            results["style"], style_probes = P.evaluate_probe(X41, y, splits, scaled=True)
            adv(len(splits))
            if Xfull is not None:
                results["style_full"], full_probes = P.evaluate_probe(Xfull, y, splits, scaled=True)
            adv(len(splits))
            results["content"], content_probes = P.evaluate_probe(E, y, splits, scaled=False)
            adv(len(splits))
        style_models = None
        if Xfull is not None and cfg.style_model:
            with steps.step("whowrote StyleModel (refit per split)", 1):
                try:
                    results["style_model"], style_models = P.evaluate_style_model(Xfull, y, splits, genres, seed)
                except Exception as e:  # noqa: BLE001 — keep the rest of the study
                    notes.append(f"whowrote's StyleModel could not be refitted ({type(e).__name__}: {e}).")
        model = None
        if cfg.default_model:
            with steps.step("default model", 1):
                model, why = P.load_default_model()
                if model is None:
                    notes.append(f"whowrote's default model was not scored ({why}).")
                else:
                    pred = model.predict(features(texts, model.feature_set))
                    results["default_model"] = P.evaluate_fixed(np.asarray(pred, dtype=object), y, splits)
                    notes.append(P.default_model_note(model))

        scorers = {"style": lambda t: style_probes["val"].predict(features(t, "research41"))}
        if Xfull is not None:
            scorers["style_full"] = lambda t: full_probes["val"].predict(features(t, "full"))
        if style_models is not None:
            scorers["style_model"] = lambda t: np.asarray(style_models["val"].predict(features(t, "full")), dtype=object)
        if model is not None:
            scorers["default_model"] = lambda t: np.asarray(model.predict(features(t, model.feature_set)), dtype=object)
        scorers["content"] = lambda t: content_probes["val"].predict(embed(t, cache))
        caps = {"content": cfg.content_eval_cap}
        with steps.step("robustness (edits)", len(perturbations()) * len(scorers)) as adv:
            robust = R.robustness_table(eval_texts, eval_y, scorers, seed, caps, tick=adv)
        with steps.step("accuracy vs length", len(R.LENGTHS) * len(scorers)) as adv:
            length = R.length_curve(eval_texts, eval_y, scorers, caps=caps, tick=adv)
        cache.save()

        with steps.step("signatures and cross-genre", 3):
            top = S.top_coefficients(style_probes["val"], names41, k=8)
            means = S.provider_means(X41, y, names41)
            ratios = S.ratio_sentences(X41, y, names41, genres, k=3)
            adv_tells = list(dict.fromkeys([(p, it["feature"]) for p, items in ratios.items() for it in items[:2]]
                                           + [(p, f) for p, items in top.items() if p != "OTHER" for f, _ in items[:2]]))
            survival = R.tell_survival(eval_texts, eval_y, adv_tells, lambda t: features(t, "research41"),
                                       names41, seed)
            genre_sig = S.genre_signatures(X41, y, genres, names41, k=5)
            tell_feats = list(dict.fromkeys([f for _, f in adv_tells] + [f for p in top for f, _ in top[p][:2]]))
            genre_effects = S.genre_effects(X41, y, genres, names41, tell_feats)

        with steps.step("2-D maps", 2):
            map_rows = np.unique(np.concatenate([splits[s]["test"] for s in ("val", "val_ood") if s in splits]))
            if len(map_rows) > cfg.map_points:
                map_rows = np.sort(rng.choice(map_rows, size=cfg.map_points, replace=False))
            Xs = np.clip(style_probes["val"].scaler.transform(X41[map_rows]), -3, 3)
            Zs, method = project_2d(Xs, "euclidean", seed, cfg.map_method)
            Zc, _ = project_2d(E[map_rows], "cosine", seed, method)
            sep = {"style": knn_separation(Zs, y[map_rows]), "content": knn_separation(Zc, y[map_rows])}

    summary.update({
        "n_texts": len(df), "n_corpus": len(corpus),
        "counts": {g: df[df["genre"] == g]["provider"].value_counts().reindex(P.ordered_labels(y)).fillna(0)
                   .astype(int).to_dict() for g in sorted(set(genres.tolist()))},
        "splits": {k: {"n_train": len(v["train"]), "n_test": len(v["test"]), "note": v["note"]}
                   for k, v in splits.items()},
        "style_probe": results["style"], "content_probe": results["content"],
        "style_full_probe": results.get("style_full", {}), "style_model": results.get("style_model", {}),
        "default_model": results.get("default_model", {}),
        "feature_names": {"research41": names41, "full": names_full or []},
        "top_style_features": {p: [[n, v] for n, v in items] for p, items in top.items()},
        "provider_mean_style": means, "ratio_sentences": ratios,
        "robustness": robust, "tell_survival": survival, "length_curve": length,
        "cross_genre": {**genre_sig, "logo": {s[5:]: {p: results[p][s]["accuracy"] for p in results}
                                              for s in splits if s.startswith("logo_")},
                        "genre_effects": genre_effects},
        "maps": {"method": method, "n_points": int(len(map_rows)), "knn_separation_2d": sep},
        "notes": notes,
    })
    from whowrote.study.report import write_report

    write_report(summary, {"style": Zs, "content": Zc}, y[map_rows], genres[map_rows], out)
    (out / "summary.json").write_text(json.dumps(jsonable(summary), indent=2, sort_keys=False) + "\n")
    # timings vary between runs, so they stay out of the (deterministic) report and summary
    (out / "timings.json").write_text(json.dumps(steps.seconds, indent=2) + "\n")
    return summary
