"""`citegraph eval coverage`: the corpus↔benchmark pre-check of the FD* paper. A question is covered
when some passage has cosine ≥ 0.75 to it and shares at least 2 keywords with it. Run on the full
set: the paper found a 12-passage sample claiming 39% coverage where the whole corpus gave 14%."""

from __future__ import annotations

from typing import Any

import numpy as np

from citegraph.embed import Embedder
from citegraph.eval.datasets import Query
from citegraph.retrievers.index import CorpusIndex
from citegraph.text.answerability import question_terms
from citegraph.text.tokens import tokenize


def run_coverage(
    index: CorpusIndex,
    texts: list[str],
    embedder: Embedder,
    queries: list[Query],
    min_cosine: float = 0.75,
    min_keywords: int = 2,
    progress: bool = False,
) -> dict[str, Any]:
    """`texts` are the passages' texts in the index's order."""
    emb = index.table.embeddings
    token_sets: list[set[str] | None] = [None] * len(texts)  # tokenized on demand: few pass the cosine
    covered = 0
    best_cos: list[float] = []
    batch = 256
    it: Any = range(0, len(queries), batch)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc="eval coverage", unit="batch", leave=False)
    for start in it:
        part = queries[start : start + batch]
        sims = embedder.encode([q.text for q in part], batch_size=64) @ emb.T
        for q, row in zip(part, sims, strict=True):
            best_cos.append(float(row.max()) if row.size else 0.0)
            terms = set(question_terms(q.text))
            for i in np.flatnonzero(row >= min_cosine):
                if token_sets[i] is None:
                    token_sets[i] = set(tokenize(texts[i]))
                if len(terms & token_sets[i]) >= min_keywords:  # type: ignore[operator]
                    covered += 1
                    break
    n = len(queries)
    return {
        "n": n,
        "covered": covered,
        "coverage": round(covered / n, 4) if n else 0.0,
        "min_cosine": min_cosine,
        "min_keywords": min_keywords,
        "best_cosine_p50": round(float(np.median(best_cos)), 4) if best_cos else None,
    }
