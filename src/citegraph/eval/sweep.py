"""Fusion sweeps: fetch each query's dense and sparse candidates once, then rank them under many
retrieval settings (the ranking step is pure), so a sweep of dozens of configurations costs little
more than one run. Used by `citegraph eval ablations` (eval/ablations.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citegraph.eval.datasets import Dataset, Query
from citegraph.eval.metrics import doc_ranking, ranking_metrics
from citegraph.eval.retrieval import DOC_DEPTH, PASSAGE_DEPTH
from citegraph.retrievers.hybrid import Candidates, HybridRetriever, Mode
from citegraph.settings import RetrievalSettings


def fetch_candidates(
    retriever: HybridRetriever, queries: Sequence[Query], depth: int = 100, progress: bool = False
) -> dict[str, Candidates]:
    s = retriever.settings.with_(k_dense=depth, k_sparse=depth)
    it: Any = queries
    if progress:
        from tqdm import tqdm

        it = tqdm(queries, desc="candidates", unit="query", leave=False)
    return {q.id: retriever.candidates(q.text, s, "hybrid") for q in it}


def evaluate_settings(
    retriever: HybridRetriever,
    dataset: Dataset,
    cands: dict[str, Candidates],
    settings: RetrievalSettings,
    mode: Mode = "hybrid",
) -> dict[str, float]:
    s = settings.with_(top_m=PASSAGE_DEPTH)
    run = {}
    for qid, c in cands.items():
        c_mode = Candidates(c.query, mode, c.qvec, c.dense, c.sparse, c.sparse_all, c.timings)
        run[qid] = doc_ranking(retriever.ranked_doc_ids(retriever.rank(c_mode, s)), DOC_DEPTH)
    return ranking_metrics(dataset.qrels, run)


def sweep(
    retriever: HybridRetriever,
    dataset: Dataset,
    cands: dict[str, Candidates],
    configs: dict[str, tuple[Mode, RetrievalSettings]],
) -> dict[str, dict[str, float]]:
    return {name: evaluate_settings(retriever, dataset, cands, s, mode) for name, (mode, s) in configs.items()}
