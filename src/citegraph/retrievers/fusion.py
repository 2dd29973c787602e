"""Fusion of the dense and sparse rankings into one score in [0, 1] per passage. Pure functions.

- `weighted_rrf`: Σ w_i / (K + rank_i) (ranks from 1; a list that misses a passage adds nothing),
  the Agentic Hybrid RAG seed's method with w_dense = 0.9, w_sparse = 0.1, K = 60. It keeps only
  ranks: a BM25 hit far ahead of the rest counts no more than a marginal one.
- `weighted_scores`: Σ w_i · norm_i(score) / Σ w_i with each list's scores normalised over its
  candidates by min-max (or z-score, rescaled): it keeps how far ahead a passage is. docs/BENCHMARKS.md
  compares them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from citegraph.errors import InputError

Ranking = Sequence[tuple[str, float]]  # (id, score), best first


def weighted_rrf(rankings: Sequence[Ranking], weights: Sequence[float], k: int = 60) -> dict[str, float]:
    out: dict[str, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, (item, _) in enumerate(ranking, start=1):
            out[item] = out.get(item, 0.0) + w / (k + rank)
    return out


def rrf_max(weights: Sequence[float], k: int = 60) -> float:
    """The best possible RRF score (rank 1 everywhere): divides RRF into [0, 1]."""
    return sum(w / (k + 1) for w in weights)


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Scores rescaled to [0, 1] over the candidates; a single candidate (or all equal) gets 1."""
    if not scores:
        return {}
    vals = np.fromiter(scores.values(), dtype=np.float64)
    lo, hi = float(vals.min()), float(vals.max())
    if hi - lo <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def zscore(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    vals = np.fromiter(scores.values(), dtype=np.float64)
    mu, sd = float(vals.mean()), float(vals.std())
    if sd <= 1e-12:
        return dict.fromkeys(scores, 0.0)
    return {k: (v - mu) / sd for k, v in scores.items()}


def weighted_scores(
    rankings: Sequence[Ranking], weights: Sequence[float], normalise: str = "minmax"
) -> dict[str, float]:
    """Convex combination of per-list normalised scores; a list that misses a passage gives it its
    lowest normalised value (it ranked below everything that list returned)."""
    norm = minmax if normalise == "minmax" else zscore
    per_list = [norm(dict(r)) for r in rankings]
    items = {item for r in rankings for item, _ in r}
    total_w = sum(weights) or 1.0
    out = {}
    for item in items:
        s = 0.0
        for scores, w in zip(per_list, weights, strict=True):
            if not scores:
                continue
            s += w * scores.get(item, min(scores.values()))
        out[item] = s / total_w
    return minmax(out) if normalise == "zscore" else out


def fuse_full(dense: np.ndarray, sparse: np.ndarray, method: str, w_dense: float, w_sparse: float) -> np.ndarray:
    """Weighted normalised scores when both retrievers' scores are known for every candidate (the
    hybrid computes the cosine and the BM25 score of each passage either list returned, so nothing
    is imputed). Normalised over the candidates by min-max or z-score; the result is in [0, 1]."""
    total = (w_dense + w_sparse) or 1.0

    def norm(x: np.ndarray) -> np.ndarray:
        if method == "minmax":
            lo, hi = float(x.min()), float(x.max())
            return (x - lo) / (hi - lo) if hi - lo > 1e-12 else np.ones_like(x)
        sd = float(x.std())
        return (x - x.mean()) / sd if sd > 1e-12 else np.zeros_like(x)

    if method not in ("minmax", "zscore"):
        raise InputError(f"unknown fusion method {method!r}")
    s = (w_dense * norm(dense.astype(np.float64)) + w_sparse * norm(sparse.astype(np.float64))) / total
    if method == "zscore":  # z-scores are unbounded: rescale the fused score into [0, 1]
        lo, hi = float(s.min()), float(s.max())
        s = (s - lo) / (hi - lo) if hi - lo > 1e-12 else np.ones_like(s)
    return s


def fuse(
    dense: Ranking, sparse: Ranking, method: str, w_dense: float, w_sparse: float, k: int = 60
) -> dict[str, float]:
    """The fused score of every candidate, in [0, 1]."""
    if method == "rrf":
        raw = weighted_rrf([dense, sparse], [w_dense, w_sparse], k)
        top = rrf_max([w for w, r in ((w_dense, dense), (w_sparse, sparse)) if r] or [1.0], k)
        return {item: s / top for item, s in raw.items()}
    if method in ("minmax", "zscore"):
        return weighted_scores([dense, sparse], [w_dense, w_sparse], method)
    raise InputError(f"unknown fusion method {method!r}")
