"""Dense retrieval: nearest passages by cosine similarity of all-MiniLM-L6-v2 vectors in Chroma,
with date and metadata filters pushed down into Chroma's `where` clause."""

from __future__ import annotations

from typing import Any

import numpy as np

from citegraph.store.chroma import DenseStore


def chroma_where(since: int = 0, until: int = 0, metadata: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """A Chroma `where` for a date range (YYYYMMDD ints; 0 = open) and metadata equalities.
    Undated passages carry date 0, so any date bound excludes them: their date is unknown."""
    clauses: list[dict[str, Any]] = []
    if since:
        clauses.append({"date": {"$gte": since}})
    if until:
        clauses.append({"date": {"$lte": until}})
    if until and not since:  # date 0 (undated) would pass "<= until"
        clauses.append({"date": {"$gt": 0}})
    for key, value in (metadata or {}).items():
        clauses.append({f"m_{key}": {"$eq": value}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class DenseRetriever:
    def __init__(self, store: DenseStore):
        self.store = store

    def search(self, vector: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        return self.store.query(vector, k, where)
