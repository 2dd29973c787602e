"""Reranking steps applied after fusion, each a pure function over arrays of candidate scores.

- temporal: s' = (1 - w)·s + w/(1 + age_days/365) (NightFeats, w = 0.3). Age counts from `as_of`;
  a document dated after it counts as age 0. An undated document is neither boosted nor dropped:
  its recency term is the median recency of the dated candidates, so it keeps its place relative to
  a typical dated one (with no dated candidate at all, nothing changes).
- factual density: (1 - w)·cos + w·FD*_rescaled over the cosine top-N (FD* paper, N = 20, w = 0.5),
  FD* min-max rescaled within those N.
- adaptive cutoff: keep scores >= tau = max(tau_min, mu - alpha·sigma).
- dedup: walk in rank order, drop a passage whose cosine to an already kept one exceeds 0.85, unless
  the two state different values (numbers, versions): then they may disagree, and both are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import numpy as np


def recency(date_ints: np.ndarray, as_of: date) -> np.ndarray:
    """1/(1 + age_days/365) per candidate; NaN where undated (date 0)."""
    out = np.full(len(date_ints), np.nan, dtype=np.float64)
    ref = as_of.toordinal()
    for i, d in enumerate(date_ints):
        d = int(d)
        if d:
            try:
                age = max(0, ref - date(d // 10000, (d // 100) % 100 or 1, d % 100 or 1).toordinal())
            except ValueError:
                continue
            out[i] = 1.0 / (1.0 + age / 365.0)
    return out


def temporal_rerank(scores: np.ndarray, date_ints: np.ndarray, as_of: date, weight: float) -> np.ndarray:
    rec = recency(date_ints, as_of)
    dated = ~np.isnan(rec)
    if weight <= 0 or not dated.any():
        return scores.astype(np.float64)
    rec = np.where(dated, rec, float(np.median(rec[dated])))
    return (1.0 - weight) * scores + weight * rec


def rescale(values: np.ndarray) -> np.ndarray:
    lo, hi = float(values.min(initial=0.0)), float(values.max(initial=0.0))
    if values.size == 0 or hi - lo <= 1e-12:
        return np.zeros_like(values, dtype=np.float64)
    return (values - lo) / (hi - lo)


def fd_rerank(cosine: np.ndarray, fd_star: np.ndarray, weight: float = 0.5) -> np.ndarray:
    return (1.0 - weight) * cosine + weight * rescale(fd_star)


def adaptive_cutoff(scores: np.ndarray, alpha: float, tau_min: float) -> float:
    if scores.size == 0:
        return tau_min
    return max(tau_min, float(scores.mean() - alpha * scores.std()))


def above_cutoff(scores: np.ndarray, tau: float) -> list[int]:
    """Positions of the scores that reach tau, best first. A score at tau is kept whatever the float
    noise: with two candidates, mean - std is the lower one exactly, and bm25s and rank-bm25 (float32,
    scaled apart by k1 + 1) kept it or dropped it by a last bit."""
    return [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] >= tau - 1e-9]


def dedup(
    order: list[int],
    embeddings: np.ndarray,
    threshold: float,
    limit: int | None = None,
    same: Callable[[int, int], bool] | None = None,
) -> tuple[list[int], dict[int, int]]:
    """Positions kept (in rank order, at most `limit`) and, for each dropped one, the kept position it
    duplicates. `embeddings` rows are L2-normalised vectors indexed by position. With `same`, a near
    duplicate is dropped only if `same(kept, candidate)` says the two state the same values: two
    versions of one README that differ in a number are where sources disagree."""
    kept: list[int] = []
    dropped: dict[int, int] = {}
    for pos in order:
        if limit is not None and len(kept) >= limit:
            break
        if kept:
            sims = embeddings[kept] @ embeddings[pos]
            j = int(np.argmax(sims))
            if sims[j] > threshold and (same is None or same(kept[j], pos)):
                dropped[pos] = kept[j]
                continue
        kept.append(pos)
    return kept, dropped
