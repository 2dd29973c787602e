"""Ranking metrics through ranx (P@1, Recall@5, MRR@10, nDCG@10 by default), latency percentiles, and
the bootstrap interval of a ROC area."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from citegraph.errors import InputError

# ranx's metric names and the keys citegraph reports them under.
METRICS = {"precision@1": "p@1", "recall@5": "recall@5", "mrr@10": "mrr@10", "ndcg@10": "ndcg@10"}


def ranking_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    metrics: Mapping[str, str] = METRICS,
) -> dict[str, float]:
    """Mean metrics over the queries in `run` (ranked document ids per query). A query with no
    result counts as a miss (zero), not as absent."""
    from ranx import Qrels, Run, evaluate

    q = {qid: {d: int(s) for d, s in qrels[qid].items()} for qid in run if qid in qrels}
    if not q:
        raise InputError("no judged query in the run")
    r = {}
    for qid in q:
        docs = run[qid]
        # ranx needs a score per document: strictly decreasing with rank. An empty result list
        # gets a placeholder id that no qrel names, so the query still counts.
        r[qid] = {d: float(len(docs) - i) for i, d in enumerate(docs)} or {"__none__": 0.0}
    scores = evaluate(Qrels.from_dict(q), Run.from_dict(r), list(metrics), make_comparable=True)
    if isinstance(scores, float):
        scores = {next(iter(metrics)): scores}
    return {metrics[k]: round(float(v), 4) for k, v in scores.items()}


def roc_area(labels: np.ndarray, values: np.ndarray) -> float:
    """The ROC area of `values` against labels 1 (positive) and 0, from ranks (Mann-Whitney U, ties
    given their mean rank): sklearn's roc_auc_score, at a small part of its cost per call, which the
    bootstrap calls thousands of times."""
    from scipy.stats import rankdata

    positive = labels == 1
    n_pos = int(positive.sum())
    n_neg = len(labels) - n_pos
    ranks = rankdata(values)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def auc_interval(
    y: Sequence[int],
    score: Sequence[float],
    baseline: Sequence[float] | None = None,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the ROC area of `score` against the labels `y` (1 positive), or
    with a `baseline` score of the difference area(score) - area(baseline), the same questions drawn for
    both (paired: what tells two rankers apart). Questions are drawn again with replacement, `resamples`
    times (seeded, so a report reproduces). None when one class is missing. By hand rather than
    scipy.stats.bootstrap, which yields NaN for the whole interval as soon as one resample holds a single
    class; those resamples are redrawn here."""
    labels, values = np.asarray(y), np.asarray(score, dtype=float)
    base = None if baseline is None else np.asarray(baseline, dtype=float)
    if len(set(labels.tolist())) < 2:
        return None
    rng = np.random.default_rng(seed)
    areas: list[float] = []
    while len(areas) < resamples:
        idx = rng.integers(0, len(labels), len(labels))
        if labels[idx].min() != labels[idx].max():
            area = roc_area(labels[idx], values[idx])
            areas.append(area if base is None else area - roc_area(labels[idx], base[idx]))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(areas, [tail, 100 - tail])
    return round(float(low), 4), round(float(high), 4)


def latency(ms: Sequence[float]) -> dict[str, float]:
    if not ms:
        return {"latency_ms_p50": 0.0, "latency_ms_p95": 0.0}
    a = np.asarray(ms)
    return {
        "latency_ms_p50": round(float(np.percentile(a, 50)), 3),
        "latency_ms_p95": round(float(np.percentile(a, 95)), 3),
    }


def doc_ranking(chunk_doc_ids: Sequence[str], k: int) -> list[str]:
    """Documents in the order of their best passage, at most k."""
    out: list[str] = []
    seen: set[str] = set()
    for d in chunk_doc_ids:
        if d not in seen:
            seen.add(d)
            out.append(d)
            if len(out) == k:
                break
    return out
