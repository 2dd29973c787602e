"""`citegraph eval retrieval`: rank a BEIR set's documents with one retriever configuration and score
the ranking (ranx) and the latency per query (query embedding included)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from citegraph.eval.datasets import Dataset, Query
from citegraph.eval.metrics import doc_ranking, latency, ranking_metrics
from citegraph.retrievers.hybrid import HybridRetriever, Mode
from citegraph.settings import RetrievalSettings

# Passages fetched per query before they are grouped into documents (a document can own several).
PASSAGE_DEPTH = 30
DOC_DEPTH = 10


def run_retrieval(
    retriever: HybridRetriever,
    dataset: Dataset,
    queries: list[Query],
    mode: Mode,
    settings: RetrievalSettings | None = None,
    progress: bool = False,
    warmup: int = 5,
) -> dict[str, Any]:
    s = (settings or retriever.settings).with_(top_m=PASSAGE_DEPTH)
    for q in queries[:warmup]:  # first calls pay for lazy initialisation, not for retrieval
        retriever.search(q.text, settings=s, mode=mode)
    run: dict[str, list[str]] = {}
    times: list[float] = []
    it: Any = queries
    if progress:
        from tqdm import tqdm

        it = tqdm(queries, desc=f"eval {mode}", unit="query", leave=False)
    for q in it:
        a = time.perf_counter()
        res = retriever.search(q.text, settings=s, mode=mode)
        times.append((time.perf_counter() - a) * 1000)
        run[q.id] = doc_ranking([e.doc_id for e in res.results], DOC_DEPTH)
    out: dict[str, Any] = dict(ranking_metrics(dataset.qrels, run))
    out.update(latency(times))
    out["n_queries"] = len(run)
    return out


def ensure_corpus(dataset: Dataset, corpus_dir: str | Path, progress: bool = False, **kwargs: Any) -> None:
    """Ingest the dataset's corpus.jsonl into the corpus folder (a no-op when it is already there)."""
    from citegraph.ingest.pipeline import ingest

    ingest([dataset.corpus_file], corpus_dir, progress=progress, **kwargs)
