"""`citegraph eval ablations`: retrieval configurations side by side on the same queries, in one run:
sparse / dense / hybrid; the hybrid without each rerank step (temporal, cutoff, dedup) and with the
factual-density rerank; the fusion methods and an RRF weight sweep; and decomposition on / off
(full-support recall, which is what decomposition is for). Each query's candidates are fetched once
and re-ranked under every configuration (eval/sweep.py)."""

from __future__ import annotations

from typing import Any

from citegraph.eval.datasets import Dataset, Query
from citegraph.eval.multihop import run_multihop
from citegraph.eval.sweep import fetch_candidates, sweep
from citegraph.retrievers.hybrid import HybridRetriever, Mode
from citegraph.settings import RetrievalSettings


def configurations(base: RetrievalSettings) -> dict[str, tuple[Mode, RetrievalSettings]]:
    cfg: dict[str, tuple[Mode, RetrievalSettings]] = {
        "bm25": ("sparse", base),
        "dense": ("dense", base),
        "hybrid (default)": ("hybrid", base),
        "hybrid - temporal rerank": ("hybrid", base.with_(temporal_weight=0.0)),
        "hybrid + factual-density rerank": ("hybrid", base.with_(fd_rerank=True)),
        "hybrid - adaptive cutoff": ("hybrid", base.with_(cutoff=False)),
        "hybrid - dedup": ("hybrid", base.with_(dedup_threshold=1.01)),
        "minmax 0.5/0.5": ("hybrid", base.with_(fusion="minmax", w_dense=0.5, w_sparse=0.5)),
    }
    for wd in (0.9, 0.7, 0.5, 0.3, 0.1):
        cfg[f"rrf {wd:.1f}/{1 - wd:.1f}"] = ("hybrid", base.with_(fusion="rrf", w_dense=wd, w_sparse=round(1 - wd, 1)))
    for wd in (0.7, 0.3):
        cfg[f"minmax {wd:.1f}/{1 - wd:.1f}"] = (
            "hybrid",
            base.with_(fusion="minmax", w_dense=wd, w_sparse=round(1 - wd, 1)),
        )
    return cfg


def run_ablations(
    retriever: HybridRetriever, dataset: Dataset, queries: list[Query], multihop: bool, progress: bool = False
) -> dict[str, Any]:
    cands = fetch_candidates(
        retriever, queries, depth=max(retriever.settings.k_dense, retriever.settings.k_sparse), progress=progress
    )
    out: dict[str, Any] = {
        "n": len(queries),
        "configurations": sweep(retriever, dataset, cands, configurations(retriever.settings)),
    }
    if multihop:
        out["decomposition"] = run_multihop(retriever, dataset, queries, progress=progress)
    return out
