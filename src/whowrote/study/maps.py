"""2-D maps of the same texts in style space and content space (spec §5.4).

UMAP (n_neighbors=25, min_dist=0.25, random_state=seed; cosine for embeddings, euclidean for
scaled features) when ``umap-learn`` is installed, PCA otherwise. Also a simple number that says
how well providers separate in each map: the accuracy of a 5-nearest-neighbour vote in 2-D
(stratified 10-fold), so that "style separates, content mixes" is measured, not only seen.
"""

from __future__ import annotations

import numpy as np


def umap_available() -> bool:
    try:
        import umap  # noqa: F401
    except Exception:  # noqa: BLE001 — any import failure means "not available"
        return False
    return True


def project_2d(X: np.ndarray, metric: str = "euclidean", seed: int = 0, method: str = "auto") -> tuple[np.ndarray, str]:
    """(n, 2) coordinates and the method used ("umap" or "pca")."""
    if method == "auto":
        method = "umap" if umap_available() else "pca"
    if len(X) < 5:
        return np.zeros((len(X), 2)), "none"
    if method == "umap":
        import umap

        reducer = umap.UMAP(n_neighbors=min(25, len(X) - 1), min_dist=0.25, metric=metric,
                            random_state=seed, n_jobs=1)
        return np.asarray(reducer.fit_transform(X), dtype=float), "umap"
    from sklearn.decomposition import PCA

    Z = PCA(n_components=2, svd_solver="full").fit_transform(X - X.mean(axis=0))
    # fix the sign of each axis so that the picture does not flip between library versions
    for j in range(2):
        if Z[np.argmax(np.abs(Z[:, j])), j] < 0:
            Z[:, j] = -Z[:, j]
    return Z, "pca"


def knn_separation(Z: np.ndarray, y: np.ndarray, k: int = 5) -> float:
    """Cross-validated (stratified, up to 10 folds) accuracy of a k-NN vote on the 2-D points."""
    from sklearn.model_selection import cross_val_predict
    from sklearn.neighbors import KNeighborsClassifier

    if len(Z) <= k or len(set(y.tolist())) < 2:
        return 0.0
    counts = np.unique(y, return_counts=True)[1]
    n_splits = min(10, int(counts.min()))
    if n_splits < 2:
        return 0.0
    # the smallest training fold (stratified test folds hold at most ceil(count / n_splits) per class)
    k = min(k, len(Z) - int(sum(-(-c // n_splits) for c in counts)))
    if k < 1:
        return 0.0
    pred = cross_val_predict(KNeighborsClassifier(n_neighbors=k), Z, y, cv=n_splits)
    return round(float(np.mean(pred == y)), 4)
