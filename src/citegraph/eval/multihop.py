"""`citegraph eval multihop`: full-support recall — the share of questions whose gold passages are
all among the top k documents — with and without decomposition (hotpotqa: most questions need two
documents). With decomposition, each sub-query is retrieved on its own and the results pooled the way
the graph pools them (round-robin over the sub-queries' rankings)."""

from __future__ import annotations

from typing import Any

from citegraph.answer.routing import classify
from citegraph.answer.subqueries import extractive_sub_queries
from citegraph.eval.datasets import Dataset, Query
from citegraph.eval.metrics import doc_ranking
from citegraph.retrievers.hybrid import HybridRetriever


def pooled_docs(rankings: list[list[str]], k: int) -> list[str]:
    """Round-robin over document rankings, skipping repeats, until k documents."""
    out: list[str] = []
    depth = 0
    while len(out) < k and any(depth < len(r) for r in rankings):
        for r in rankings:
            if depth < len(r) and r[depth] not in out:
                out.append(r[depth])
                if len(out) == k:
                    break
        depth += 1
    return out


def full_support_recall(run: dict[str, list[str]], qrels: dict[str, dict[str, int]], k: int) -> float:
    hits = [set(qrels[q]) <= set(docs[:k]) for q, docs in run.items() if q in qrels]
    return round(sum(hits) / len(hits), 4) if hits else 0.0


def run_multihop(
    retriever: HybridRetriever, dataset: Dataset, queries: list[Query], max_sub_queries: int = 5, progress: bool = False
) -> dict[str, Any]:
    settings = retriever.settings.with_(top_m=30)
    plain: dict[str, list[str]] = {}
    decomposed: dict[str, list[str]] = {}
    n_subs = 0
    it: Any = queries
    if progress:
        from tqdm import tqdm

        it = tqdm(queries, desc="eval multihop", unit="question", leave=False)
    for q in it:
        base = doc_ranking([e.doc_id for e in retriever.search(q.text, settings=settings).results], 10)
        plain[q.id] = base
        qclass, _ = classify(q.text)
        subs = extractive_sub_queries(q.text, qclass, max_sub_queries)
        n_subs += len(subs)
        rankings = [base] + [
            doc_ranking([e.doc_id for e in retriever.search(s.text, settings=settings).results], 10) for s in subs[1:]
        ]
        decomposed[q.id] = pooled_docs(rankings, 10)
    qrels = dataset.qrels
    return {
        "n": len(plain),
        "mean_sub_queries": round(n_subs / len(plain), 2) if plain else 0.0,
        "full_support_recall@5": full_support_recall(plain, qrels, 5),
        "full_support_recall@10": full_support_recall(plain, qrels, 10),
        "full_support_recall@5_decomposed": full_support_recall(decomposed, qrels, 5),
        "full_support_recall@10_decomposed": full_support_recall(decomposed, qrels, 10),
    }
