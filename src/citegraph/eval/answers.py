"""`citegraph eval answers`: run the evidence graph on each query of a BEIR set and measure

- correctness: the gold answer contained in the answer (SQuAD-normalised) and token F1 (the best
  over the gold answers), on answered questions;
- abstention, for sets that mark questions `answerable`: the rate of correct abstentions on the
  unanswerable ones, of false abstentions on the answerable ones, and the whole trade-off as the
  abstention threshold moves (the graph's support score ranks questions; area under that curve,
  scikit-learn's ROC AUC: 0.5 is a random ranking) with its 95 % bootstrap interval;
- citations: the share of sentences with a citation, of citations whose quote is found in the
  cited passage at its span, and of cited passages that qrels judge relevant.

With `langsmith=True` the same run goes through LangSmith's `evaluate()`: each question is an
Example, the graph is the target, and each row's scores are its feedback. Without LANGSMITH_API_KEY
nothing leaves the machine (`upload_runs=False`); with one, the experiment is uploaded as well.
"""

from __future__ import annotations

import contextlib
import os
import re
import string
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from citegraph.eval.datasets import Dataset, Query
from citegraph.eval.metrics import auc_interval
from citegraph.schemas import Answer
from citegraph.store.ledger import Ledger
from citegraph.text.claims import quote_at

_MARKS = re.compile(r"\s*\[\d+\]")


def normalize(text: str) -> str:
    """SQuAD's answer normalisation: lowercase, no punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_gold(answer: str, golds: list[str]) -> bool:
    a = normalize(_MARKS.sub("", answer))
    return any(normalize(g) and normalize(g) in a for g in golds)


def token_f1(answer: str, golds: list[str]) -> float:
    pred = normalize(_MARKS.sub("", answer)).split()
    best = 0.0
    for g in golds:
        gold = normalize(g).split()
        common = Counter(pred) & Counter(gold)
        same = sum(common.values())
        if same == 0 or not pred or not gold:
            continue
        p, r = same / len(pred), same / len(gold)
        best = max(best, 2 * p * r / (p + r))
    return best


@dataclass
class Row:
    """One question's outcome."""

    qid: str
    question: str
    answerable: bool | None
    abstained: bool
    support: float
    answer: str
    support_source: str = ""  # which judge gave the support: lexical, reader or model
    support_parts: dict[str, float] = field(default_factory=dict)  # every judge's score computed
    covered: bool = True  # some fact covered what the question names (else no judge could answer)
    contains: bool | None = None
    f1: float | None = None
    sentences: int = 0
    cited_sentences: int = 0
    citations: int = 0
    quotes_found: int = 0
    cited_relevant: int = 0
    cited_judged: int = 0
    ms: float = 0.0
    node_ms: dict[str, float] = field(default_factory=dict)
    fallbacks: list[str] = field(default_factory=list)


def check_citations(answer: Answer, ledger: Ledger, relevant: set[str] | None) -> dict[str, int]:
    """Counts for the citation metrics of one answer."""
    chunks = ledger.get_chunks(list({r.chunk_id for r in answer.references}))
    by_n = {r.n: r for r in answer.references}
    out = {
        "sentences": len(answer.sentences),
        "cited_sentences": sum(1 for s in answer.sentences if s.citations),
        "citations": 0,
        "quotes_found": 0,
        "cited_relevant": 0,
        "cited_judged": 0,
    }
    for s in answer.sentences:
        for n in s.citations:
            out["citations"] += 1
            ref = by_n.get(n)
            row = chunks.get(ref.chunk_id) if ref else None
            if ref is not None and row is not None and quote_at(row["text"], row["start"], ref.span, ref.quote):
                out["quotes_found"] += 1
            if ref is not None and relevant is not None:
                out["cited_judged"] += 1
                out["cited_relevant"] += int(ref.doc_id in relevant)
    return out


def score_row(q: Query, answer: Answer, ledger: Ledger, relevant: set[str] | None, ms: float) -> Row:
    golds = [str(g) for g in q.extra.get("answers", []) if str(g).strip()]
    answerable = q.extra.get("answerable")
    row = Row(
        qid=q.id,
        question=q.text,
        answerable=None if answerable is None else bool(answerable),
        abstained=answer.abstained,
        support=answer.support,
        answer=answer.answer,
        support_source=answer.support_source,
        support_parts=answer.support_parts,
        covered=not answer.gaps and answer.support_parts.get("lexical", 0.0) > 0,
        ms=ms,
        node_ms=answer.timings_ms,
        fallbacks=answer.fallbacks,
    )
    if golds and not answer.abstained:
        row.contains = contains_gold(answer.answer, golds)
        row.f1 = token_f1(answer.answer, golds)
    for k, v in check_citations(answer, ledger, relevant).items():
        setattr(row, k, v)
    return row


def summarize(rows: list[Row]) -> dict[str, Any]:
    """The figures of an answers run (see the module docstring)."""
    import numpy as np

    out: dict[str, Any] = {"n": len(rows)}
    answered = [r for r in rows if not r.abstained]
    out["abstention_rate"] = round(1 - len(answered) / len(rows), 4) if rows else 0.0
    with_gold = [r for r in answered if r.contains is not None]
    if with_gold:
        out["answer_contains_gold"] = round(sum(bool(r.contains) for r in with_gold) / len(with_gold), 4)
        out["answer_token_f1"] = round(float(np.mean([r.f1 or 0.0 for r in with_gold])), 4)
        out["n_scored_answers"] = len(with_gold)
    sentences = sum(r.sentences for r in rows)
    citations = sum(r.citations for r in rows)
    judged = sum(r.cited_judged for r in rows)
    out["sentences_cited"] = round(sum(r.cited_sentences for r in rows) / sentences, 4) if sentences else None
    out["quotes_found"] = round(sum(r.quotes_found for r in rows) / citations, 4) if citations else None
    out["cited_passages_relevant"] = round(sum(r.cited_relevant for r in rows) / judged, 4) if judged else None
    labelled = [r for r in rows if r.answerable is not None]
    if labelled and {r.answerable for r in labelled} == {True, False}:
        from sklearn.metrics import roc_auc_score, roc_curve

        unans = [r for r in labelled if not r.answerable]
        ans = [r for r in labelled if r.answerable]
        out["correct_abstention_rate"] = round(sum(r.abstained for r in unans) / len(unans), 4)
        out["false_abstention_rate"] = round(sum(r.abstained for r in ans) / len(ans), 4)
        # Abstaining is predicting "unanswerable"; a low support score says so.
        y = [0 if r.answerable else 1 for r in labelled]
        score = [-r.support for r in labelled]
        out["abstention_auc"] = round(float(roc_auc_score(y, score)), 4)
        # 200 questions pin an area down to about ±0.07: say so beside it.
        out["abstention_auc_ci95"] = auc_interval(y, score)
        fpr, tpr, thr = roc_curve(y, score)
        out["abstention_curve"] = {
            "false_abstention": [round(float(x), 4) for x in fpr],
            "correct_abstention": [round(float(x), 4) for x in tpr],
            "support_threshold": [round(float(-t), 4) if np.isfinite(t) else None for t in thr],
        }
    ms = [r.ms for r in rows]
    out["latency_ms_p50"] = round(float(np.percentile(ms, 50)), 1) if ms else None
    out["latency_ms_p95"] = round(float(np.percentile(ms, 95)), 1) if ms else None
    # Per node: summed over its parallel runs (retrieve and extract run once per sub-query / passage).
    nodes = sorted({n for r in rows for n in r.node_ms})
    out["node_ms_p50"] = {n: round(float(np.percentile([r.node_ms.get(n, 0.0) for r in rows], 50)), 1) for n in nodes}
    out["fallbacks"] = sum(1 for r in rows if r.fallbacks)
    # The abstention figures mix scales when the judge differed between questions (a model call that
    # failed falls back to the reader): say how many came from each.
    out["support_sources"] = dict(sorted(Counter(r.support_source for r in rows if r.support_source).items()))
    return out


@contextlib.contextmanager
def answerer(
    dataset: Dataset, queries: list[Query], corpus_dir: str, settings: dict[str, Any] | None
) -> Iterator[Callable[[Query], Row]]:
    """A function that runs the graph on one query and scores the answer, warm: the first query is
    run once beforehand, since the first run loads models and indexes (kept out of the latencies)."""
    from citegraph.api import ask
    from citegraph.embed import get_embedder
    from citegraph.store.corpus import Corpus

    corpus = Corpus.open(corpus_dir, get_embedder().identity.as_dict())

    def one(q: Query) -> Row:
        t = time.perf_counter()
        answer = ask(q.text, corpus=corpus_dir, **(settings or {}))
        ms = (time.perf_counter() - t) * 1000
        relevant = set(dataset.qrels[q.id]) if q.id in dataset.qrels else None
        return score_row(q, answer, corpus.ledger, relevant, ms)

    try:
        if queries:
            ask(queries[0].text, corpus=corpus_dir, **(settings or {}))
        yield one
    finally:
        corpus.close()


def run_answers(
    dataset: Dataset,
    queries: list[Query],
    corpus_dir: str,
    settings: dict[str, Any] | None = None,
    progress: bool = False,
) -> list[Row]:
    """Run the graph on every query (sequentially, warm) and score each answer."""
    it: Any = queries
    if progress:
        from tqdm import tqdm

        it = tqdm(queries, desc="eval answers", unit="question", leave=False)
    with answerer(dataset, queries, corpus_dir, settings) as one:
        return [one(q) for q in it]


def feedback(row: Row) -> list[dict[str, Any]]:
    """One answer's scores as LangSmith feedback (keys left out where they do not apply)."""
    scores: dict[str, float | None] = {
        "contains_gold": None if row.contains is None else float(row.contains),
        "token_f1": row.f1,
        "correct_abstention": None if row.answerable is None else float(row.abstained != row.answerable),
        "sentences_cited": row.cited_sentences / row.sentences if row.sentences else None,
        "quotes_found": row.quotes_found / row.citations if row.citations else None,
        "support": row.support,
    }
    return [{"key": k, "score": v} for k, v in scores.items() if v is not None]


def run_answers_langsmith(
    dataset: Dataset,
    queries: list[Query],
    corpus_dir: str,
    settings: dict[str, Any] | None = None,
    experiment_prefix: str = "citegraph-answers",
) -> tuple[list[Row], dict[str, Any]]:
    """The answers run through `langsmith.evaluate`; returns the rows and where the experiment went."""
    from langsmith import Client, evaluate, tracing_context
    from langsmith.schemas import Example, LangSmithInfo

    upload = bool(os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY"))
    # Offline, an empty server description spares the client its lookup of a server it cannot reach.
    client = Client() if upload else Client(api_key="offline", info=LangSmithInfo())
    dataset_id = uuid.uuid5(uuid.NAMESPACE_URL, f"citegraph:{dataset.folder}")
    examples = [
        Example(
            id=uuid.uuid5(dataset_id, q.id),
            dataset_id=dataset_id,
            inputs={"qid": q.id, "question": q.text},
            outputs={"answers": q.extra.get("answers", []), "answerable": q.extra.get("answerable")},
        )
        for q in queries
    ]
    by_id = {q.id: q for q in queries}

    def scores(outputs: dict[str, Any]) -> dict[str, Any]:
        return {"results": feedback(Row(**outputs))}

    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        if upload:
            return one(by_id[inputs["qid"]]).__dict__
        # Offline, evaluate() keeps its own runs local, but its "local" tracing mode reads as "on" to
        # LangChain's tracer inside the graph, which then posts every node's run to LangSmith's
        # public endpoint (a user's questions and passages leaving the machine; found in session 9).
        with tracing_context(enabled=False):
            return one(by_id[inputs["qid"]]).__dict__

    # evaluate() prints its experiment banner on stdout, which belongs to --json.
    with answerer(dataset, queries, corpus_dir, settings) as one, contextlib.redirect_stdout(sys.stderr):
        results = evaluate(
            target,
            data=examples,
            evaluators=[scores],
            experiment_prefix=experiment_prefix,
            metadata={"corpus": corpus_dir, "data": str(dataset.folder), **(settings or {})},
            max_concurrency=0,
            upload_runs=upload,
            client=client,
        )
        runs = [r["run"] for r in results]
    if not upload:
        client.flush()  # whatever a tracer queued goes (or fails) now, not at the interpreter's exit
    failed = [r for r in runs if r.error or not r.outputs]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(runs)} questions failed; first: {failed[0].error}")
    rows = [Row(**(r.outputs or {})) for r in runs]
    return rows, {"experiment": results.experiment_name, "uploaded": upload}
