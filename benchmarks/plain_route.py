"""Route by an observable view: Markdown-free texts to a plain-text specialist (issue 17).

After Markdown is stripped, the general model sees a text unlike its Markdown-bearing training
texts of the same provider. The *plain-text specialist* is the same recipe (``fit_augmented``,
the current copies) fitted on the Markdown-stripped view of every training text. A text is routed
by markup the features already count (:data:`MARKUP`, per 1,000 characters):

- ``hard``: no markup at all (their sum is 0) -> the specialist, otherwise the general model;
- ``soft``: ``P = w P_general + (1 - w) P_specialist`` with ``w = min(1, markup / M0)``, ``M0`` the
  median markup of the inner-train texts that carry any (fixed before the first run).

Measured only on an inner split of the topic hold-out's train part (``topic_holdout_split(outer
train, seed=100)``, as ``benchmarks/augmentation_mix.py``), raw and under every edit (all inner
val texts), and with ``--logo`` leave-one-genre-out on the outer train part (raw and Markdown
stripped, 3-way). ``--html``: a variant whose specialist also gets each training text's Markdown
-> HTML -> text view as a second copy (weight 0.5, beside its plain view's copy).

Decision rule, written here before the first run. Adopt a routing only if, against ``current``
(the general model alone) on the inner split:
  (a) the worse of the two Markdown drops (strip_markdown, markdown_html; raw minus edit) shrinks
      by >= 1 point;
  (b) the worst drop over all edits does not grow by more than 0.5 points;
  (c) raw inner 4-way accuracy falls by <= 0.5 points;
  (d) with ``--logo``: the mean inner LOGO 3-way accuracy (raw) falls by <= 0.5 points.

    OMP_NUM_THREADS=1 nice -n 19 python benchmarks/plain_route.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/plain_route [--logo]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from augmentation_mix import inner_split
from genre_jackknife import texts_key
from robustness import corpus_args, timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import edits, markdown_html_roundtrip, strip_markdown
from whowrote.style.features import feature_names
from whowrote.style.heldout import three_way
from whowrote.style.train import AUG_WEIGHT, copy_features, fit_augmented

MARKUP = ("md_h1", "md_h2_h3", "md_bullet", "md_numbered", "md_bold", "md_code", "md_table", "md_blockquote",
          "latex", "link", "h4", "hrule", "bold_bullet", "table_row", "bullet_char", "italic_asterisk", "inline_code")
SLACK = 0.005
PARAMS = {"feature_set": "full", "calibrate": False}


def markup(X: np.ndarray) -> np.ndarray:
    """Markup per 1,000 characters: the sum of the :data:`MARKUP` feature columns."""
    names = feature_names("full")
    return X[:, [names.index(n) for n in MARKUP]].sum(axis=1)


def routed_proba(general, special, X: np.ndarray, how: str, m0: float = 1.0) -> np.ndarray:
    """Probabilities (``general.classes_`` order) of the routed pair on feature rows ``X``."""
    m = markup(X)
    if how == "current":
        w = np.ones(len(X))
    elif how == "hard":
        w = (m > 0).astype(float)
    elif how == "soft":
        w = np.minimum(1.0, m / m0)
    else:
        raise ValueError(f"unknown routing {how!r}")
    return blended_proba(general, special, X, w)


def blended_proba(general, special, X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``w P_general + (1 - w) P_special`` per row (``general.classes_`` order; shared classes checked)."""
    if list(general.classes_) != list(special.classes_):
        raise ValueError("the two members must share their classes")
    w = np.asarray(w, dtype=float)[:, None]
    return w * general.predict_proba(X) + (1.0 - w) * special.predict_proba(X)


def scores(model, P: np.ndarray, y: np.ndarray) -> dict:
    three = y != "OTHER"
    return {"n": int(len(y)), "accuracy": float((model.classes_[P.argmax(axis=1)] == y).mean()),
            "accuracy_3way": float((three_way(model, P)[three] == y[three]).mean())}


def edit_scores(ed: dict) -> dict:
    """Scores under each edit (``scores`` by edit name, ``raw`` among them) with each edit's drop from
    raw, the worst drop and the worse of the two Markdown drops."""
    raw = ed["raw"]["accuracy"]
    drops = {e: raw - v["accuracy"] for e, v in ed.items() if e != "raw"}
    return {"edits": ed, "drops": drops, "worst_drop": max(drops.values()),
            "md_drop": max(drops["strip_markdown"], drops["markdown_html"])}


@dataclass
class Inner:
    """The inner split of the outer topic hold-out's train part, the general model's training
    features (``X``, its copies ``Xa``, rows numbered by ``outer["row"]``) and the inner val's
    features under every edit: what each routing trial starts from."""

    outer: pd.DataFrame
    train: pd.DataFrame
    val: pd.DataFrame
    feat: Callable[[list[str]], np.ndarray]
    cache: Cache
    X: np.ndarray
    Xa: np.ndarray
    edited: dict[str, np.ndarray]
    seed: int

    def fit(self, Xr: np.ndarray, Xc: np.ndarray, frame: pd.DataFrame, aug_weight: float = AUG_WEIGHT,
            **params: Any) -> StyleModel:
        """The bundled recipe (``fit_augmented``, the current copies) on rows ``Xr`` and copies ``Xc``
        (each copy at ``aug_weight``); ``params``: StyleModel settings that differ from it."""
        return fit_augmented(Xr, Xc, frame["provider"], frame["genre"], topic_keys(frame), aug_weight=aug_weight,
                             seed=self.seed, **{**PARAMS, **params})


def inner_setup(args: argparse.Namespace, log) -> Inner:
    outer, tr, va = inner_split(args.corpus, args.seed, getattr(args, "inner_seed", None))
    log(f"inner split: train {len(tr)}, val {len(va)} ({va['genre'].value_counts().to_dict()})")
    feat = StyleModel(**PARAMS).features
    cache = Cache(args.cache, log)
    texts = outer["text"].tolist()
    X = cache.get("raw", texts, feat)
    Xa = cache.get("copies", texts, lambda t: copy_features(feat, t, args.seed))
    vt = va["text"].tolist()
    edited = {name: cache.get(f"val-{name}", vt, lambda t, fn=fn: feat([fn(s) for s in t]))
              for name, fn in edits(args.seed).items()}
    return Inner(outer, tr, va, feat, cache, X, Xa, edited, args.seed)


def route_start(doc: str, add_args=None) -> tuple[argparse.Namespace, Callable[[str], None], Inner]:
    """A routing trial's start: its arguments (``--corpus --out --cache --seed --logo``, plus what
    ``add_args(parser)`` adds), a timed log and the :class:`Inner` setup (features cached in
    ``/tmp/whowrote-plain-route``, shared by every routing trial)."""
    ap = corpus_args(argparse.ArgumentParser(description=doc.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--logo", action="store_true", help="also leave-one-genre-out on the outer train part")
    if add_args is not None:
        add_args(ap)
    args = ap.parse_args()
    log = timed_log()
    return args, log, inner_setup(args, log)


class Cache:
    def __init__(self, root: Path, log) -> None:
        self.root, self.log = root, log
        root.mkdir(parents=True, exist_ok=True)

    def get(self, name: str, texts: list[str], fn) -> np.ndarray:
        f = self.root / f"{name}-{texts_key(texts)}.npy"
        if f.exists():
            return np.load(f)
        t0 = time.perf_counter()
        X = fn(texts)
        np.save(f, X)
        self.log(f"  features {name}: {len(texts)} texts in {time.perf_counter() - t0:.0f}s")
        return X


def main() -> None:
    args, log, inn = route_start(__doc__, lambda ap: ap.add_argument(
        "--html", action="store_true", help="variant: the specialist also sees each text's HTML round trip as a second copy"))
    outer, tr, va, feat, cache, X, Xa, fit = inn.outer, inn.train, inn.val, inn.feat, inn.cache, inn.X, inn.Xa, inn.fit
    texts = outer["text"].tolist()
    plain = [strip_markdown(t) for t in texts]
    Xp = cache.get("plain", plain, feat)
    Xpa = cache.get("plain-copies", plain, lambda t: copy_features(feat, t, args.seed))
    if args.html:  # the HTML round trip of every text, a second copy of its plain view (weight 0.5)
        Xh = cache.get("html", texts, lambda t: feat([markdown_html_roundtrip(s) for s in t]))
        Xpa = np.concatenate([Xpa if Xpa.ndim == 3 else Xpa[:, None], Xh[:, None]], axis=1)
    edited = inn.edited
    r, yv = tr["row"].to_numpy(), va["provider"].to_numpy(object)
    m_tr = markup(X[r])
    m0 = float(np.median(m_tr[m_tr > 0]))
    log(f"inner train: {float((m_tr == 0).mean()):.3f} without markup; M0 = {m0:.3f} per 1,000 characters")

    general = fit(X[r], Xa[r], tr)
    log("general model fitted")
    special = fit(Xp[r], Xpa[r], tr)
    log("plain-text specialist fitted")
    results: dict = {"specialist": "plain + HTML round trip" if args.html else "plain", "n_train": len(tr), "n_val": len(va), "m0": m0, "markup_columns": list(MARKUP), "inner": {}}
    for how in ("current", "hard", "soft"):
        ed = {e: scores(general, routed_proba(general, special, Xe, how, m0), yv) for e, Xe in edited.items()}
        routed = {e: float((markup(Xe) == 0).mean()) for e, Xe in edited.items()}
        results["inner"][how] = {**edit_scores(ed), "share_without_markup": routed}
        log(f"{how}: raw {ed['raw']['accuracy']:.3f} / 3-way {ed['raw']['accuracy_3way']:.3f}; drops "
            + ", ".join(f"{e} {d * 100:+.1f}" for e, d in results["inner"][how]["drops"].items()))
    if args.logo:
        results["logo"] = logo(outer, X, Xa, Xp, Xpa, fit, m0, log)
    results["decision"] = decide(results)
    args.out.mkdir(parents=True, exist_ok=True)
    name = "plain_route" + ("_html" if args.html else "") + ("_logo" if args.logo else "") + ".json"
    atomic_write(args.out / name, json.dumps(results, indent=1) + "\n")
    log(f"decision: {results['decision']}")


def logo(outer, X, Xa, Xp, Xpa, fit, m0: float, log) -> dict:
    """Leave-one-genre-out on the outer train part: 3-way accuracy raw and Markdown-stripped."""
    out: dict = {}
    for genre, tr, te in leave_one_genre_out(outer):
        r, t = tr["row"].to_numpy(), te["row"].to_numpy()
        g, s = fit(X[r], Xa[r], tr), fit(Xp[r], Xpa[r], tr)
        y = te["provider"].to_numpy(object)
        out[str(genre)] = {how: {"raw": scores(g, routed_proba(g, s, X[t], how, m0), y),
                                 "strip_markdown": scores(g, routed_proba(g, s, Xp[t], how, m0), y)}
                           for how in ("current", "hard", "soft")}
        log(f"logo {genre}: " + ", ".join(f"{h} {v['raw']['accuracy_3way']:.3f}/{v['strip_markdown']['accuracy_3way']:.3f}"
                                           for h, v in out[str(genre)].items()))
    out["mean_3way"] = {how: float(np.mean([v[how]["raw"]["accuracy_3way"] for k, v in out.items() if k != "mean_3way"]))
                        for how in ("current", "hard", "soft")}
    return out


def route_decision(results: dict, own_checks) -> dict:
    """Per routing (hard, soft): the trial's own checks (``own_checks(routed, current)``), then raw
    inner accuracy and, with ``--logo``, the LOGO 3-way mean each at most 0.5 points below the
    general model's. Adopt when every check holds."""
    base = results["inner"]["current"]
    out = {}
    for how in ("hard", "soft"):
        c = results["inner"][how]
        checks = {**own_checks(c, base),
                  "raw_not_down_0.5pt": c["edits"]["raw"]["accuracy"] >= base["edits"]["raw"]["accuracy"] - SLACK}
        if "logo" in results:
            mean = results["logo"]["mean_3way"]
            checks["logo_3way_not_down_0.5pt"] = mean[how] >= mean["current"] - SLACK
        out[how] = {"checks": checks, "adopt": all(checks.values())}
    return out


def decide(results: dict) -> dict:
    return route_decision(results, lambda c, base: {
        "md_drop_shrinks_1pt": c["md_drop"] <= base["md_drop"] - 0.01,
        "worst_drop_not_up_0.5pt": c["worst_drop"] <= base["worst_drop"] + SLACK})


def table(out: Path) -> str:
    """The Markdown table of docs/predict-trials.md from the JSON files under ``out``."""
    cols = ("strip_markdown", "markdown_html", "first_800_chars", "first_300_words", "sent_shuffle", "combined")
    lines = ["| specialist | routing | raw (3-way) | " + " | ".join(cols) + " | MD drop | worst drop | adopt |",
             "|---|---|---:|" + "---:|" * (len(cols) + 3)]
    for f in sorted(out.glob("plain_route*.json")):
        r = json.loads(f.read_text())
        if "logo" in r:
            continue
        for how, c in r["inner"].items():
            raw = c["edits"]["raw"]
            adopt = r["decision"][how]["adopt"] if how in r["decision"] else "—"
            lines.append(f"| {r.get('specialist', 'plain')} ({f.name}) | {how} | {raw['accuracy']:.3f} ({raw['accuracy_3way']:.3f}) | "
                         + " | ".join(f"{c['edits'][e]['accuracy']:.3f} ({-c['drops'][e] * 100:+.1f})" for e in cols)
                         + f" | {c['md_drop'] * 100:.1f} | {c['worst_drop'] * 100:.1f} | {adopt} |")
    for f in sorted(out.glob("plain_route*_logo.json")):
        lo = json.loads(f.read_text())["logo"]
        genres = [g for g in lo if g != "mean_3way"]
        lines += ["", f"Leave-one-genre-out on the outer train part, 3-way, raw / Markdown stripped ({f.name}):", "",
                  "| routing | " + " | ".join(genres) + " | mean (raw) |", "|---|" + "---:|" * (len(genres) + 1)]
        for how in lo["mean_3way"]:
            lines.append(f"| {how} | " + " | ".join(f"{lo[g][how]['raw']['accuracy_3way']:.3f} / "
                                                  f"{lo[g][how]['strip_markdown']['accuracy_3way']:.3f}" for g in genres)
                         + f" | {lo['mean_3way'][how]:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--table"]:  # python benchmarks/plain_route.py --table results/plain_route
        print(table(Path(sys.argv[2])))
    else:
        main()
