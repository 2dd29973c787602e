"""The hybrid retriever: from a query to ranked, deduplicated, provenance-carrying passages.

1. dense top-k (Chroma) and sparse top-k (BM25), in parallel (the query is embedded on a worker
   thread while BM25 scores on this one);
2. fusion into one score in [0, 1] (weighted RRF or weighted normalised scores, retrievers/fusion.py);
3. temporal-semantic rerank (retrievers/rerank.py), age counted from `as_of` (default today);
4. optional factual-density rerank of the top-N: s' = (1-w)·s + w·FD*_rescaled, where s is the
   relevance so far (the cosine itself with the dense retriever alone, as in the FD* paper); the
   rest keep (1-w)·s, so the N stay on top;
5. adaptive cutoff tau = max(tau_min, mu - alpha·sigma) over the candidates' scores;
6. near-duplicate removal at cosine > 0.85, keeping the better-ranked passage (unless the two state
   different numbers: two versions of a document that disagree are both kept);
7. the top-M passages, each with every score that shaped its rank and its full provenance.

No LangGraph here: the graph and the CLI both call `search`.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

import numpy as np

from citegraph.embed import Embedder, get_embedder, known_words
from citegraph.errors import InputError
from citegraph.resources import shared
from citegraph.retrievers import fusion, rerank
from citegraph.retrievers import index as corpus_index
from citegraph.retrievers.dense import DenseRetriever, chroma_where
from citegraph.retrievers.sparse import lucene_idf, top_k
from citegraph.schemas import Evidence, SearchResult
from citegraph.settings import RetrievalSettings
from citegraph.store.corpus import Corpus
from citegraph.text.dates import date_to_int
from citegraph.text.releases import document_name, known_name, releases
from citegraph.text.tokens import Vocabulary, sparse_tokens

Mode = Literal["hybrid", "dense", "sparse"]


class Scope(TypedDict, total=False):
    """Which passages a search may return: dated within [since, until], documents whose metadata has
    every key-value of `where`, or only the documents `doc_ids` (a few: their vectors are compared
    here, not in Chroma)."""

    since: date | None
    until: date | None
    where: dict[str, Any] | None
    doc_ids: Collection[str] | None


_VALUE = re.compile(r"\d+(?:[.,]\d+)*")
_COMPOUND = re.compile(r"\b[A-Za-z][a-z0-9]*(?:-[A-Za-z0-9]+)+\b")


def written_apart(compounds: Collection[str], texts: Iterable[str]) -> set[str]:
    """The two-word compounds ("read-only") that the texts also write as two words ("read only")."""
    pairs = {tuple(c.split("-")): c for c in compounds}
    out: set[str] = set()
    for text in texts:
        words = _WORD_OR_MARK.findall(text.lower())
        out.update(pairs[p] for p in pairwise(words) if p in pairs)
    return out


_WORD_OR_MARK = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


@dataclass
class Candidates:
    """What the two retrievers returned for one query, before fusion."""

    query: str
    mode: Mode
    qvec: np.ndarray
    dense: list[tuple[str, float]]  # (chunk id, cosine), best first
    sparse: list[tuple[str, float]]  # (chunk id, BM25), best first
    sparse_all: np.ndarray | None = None  # BM25 score of every passage (to score dense-only hits too)
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class Ranking:
    """The outcome of fusion and reranking: candidate ids and, for each, its scores; `kept` are the
    indexes of the returned passages in rank order."""

    ids: list[str]
    kept: list[int]
    score: np.ndarray
    relevance: np.ndarray
    cosine: np.ndarray
    recency: np.ndarray
    positions: np.ndarray
    tau: float
    notes: list[str]


class HybridRetriever:
    def __init__(
        self,
        corpus: Corpus,
        embedder: Embedder,
        settings: RetrievalSettings | None = None,
        sparse_backend: str | None = None,
    ):
        self.corpus = corpus
        self.embedder = embedder
        self.settings = settings or RetrievalSettings()
        self.index = corpus_index.load_current(corpus, sparse_backend)
        self.stem = bool(corpus.manifest.sparse.get("stem", True))
        self.dense = DenseRetriever(corpus.dense)
        self._docs = {d["doc_id"]: d for d in corpus.ledger.documents()}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-embed")
        self._vocabulary: Vocabulary | None = None  # built on first need (answerability checks)
        self._names: frozenset[str] | None = None  # likewise
        self._releases = releases({d: info["path"] for d, info in self._docs.items()})
        self._positions: dict[str, list[int]] | None = None  # doc id -> its passages' rows, on first need

    @classmethod
    def open(
        cls,
        corpus_dir: str | Path,
        settings: RetrievalSettings | None = None,
        *,
        chroma_url: str | None = None,
        sparse_backend: str | None = None,
        embedder: Embedder | None = None,
    ) -> HybridRetriever:
        emb = embedder or get_embedder()
        corpus = Corpus.open(corpus_dir, emb.identity.as_dict(), chroma_url)
        return cls(corpus, emb, settings, sparse_backend)

    def close(self) -> None:
        self._pool.shutdown(wait=False)
        self.corpus.close()

    def __enter__(self) -> HybridRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- vocabulary ---------------------------------------------------------------------------
    def __len__(self) -> int:
        """Passages in the corpus."""
        return len(self.index.table)

    def idf(self, tokens: list[str]) -> dict[str, float]:
        """The BM25 idf of each (tokenized) term over the live passages."""
        return self.index.sparse.idf(tokens)

    def unseen(self, tokens: list[str]) -> set[str]:
        """The tokens no live passage contains, in any spelling tokens.same_word takes for the same
        word ("beyonce" is seen in a corpus that writes "Beyoncé") or one typo away ("marrch")."""
        n = len(self.index.table)
        never = lucene_idf(n, 0)
        absent = {t for t, v in self.index.sparse.idf(tokens).items() if math.isclose(v, never)}
        if absent and self._vocabulary is None:
            self._vocabulary = Vocabulary(self.index.sparse.vocabulary())
        return {t for t in absent if self._vocabulary is None or not self._vocabulary.has(t, typos=True)}

    def name_words(self) -> frozenset[str]:
        """The words the corpus writes as names, lowercased: its hyphenated words ("apt-get",
        "run-parts": a question's compound of plain words names something only if the documents write
        it so) and what its files are named for ("itsdangerous" of itsdangerous-2.2.0.METADATA.txt).
        Built once, on first need (a scan of the passage texts)."""
        if self._names is None:
            found: set[str] = set()
            for text in self.corpus.ledger.live_texts():
                found.update(m.lower() for m in _COMPOUND.findall(text))
            # A compound of dictionary words the documents also write apart ("read-only" and "read only",
            # "command-line" and "command line") is words, as a user may write them either way; one they
            # never write apart ("apt-get", "run-parts") or with a part no dictionary holds
            # ("charset-normalizer") names something.
            english = known_words()
            plain = {w for w in found if w.count("-") == 1 and all(p in english for p in w.split("-"))}
            found -= written_apart(plain, self.corpus.ledger.live_texts())
            paths = (info["path"] or "" for info in self._docs.values())
            found.update(document_name(known_name(p)) for p in paths if p and "://" not in p)
            self._names = frozenset(w for w in found if len(w) >= 3)
        return self._names

    def releases(self, doc_id: str) -> list[str]:
        """The other releases of a document (text/releases.py), nearest version first."""
        return self._releases.get(doc_id, [])

    def passages_of(self, doc_id: str) -> list[Evidence]:
        """Every passage of a document, in its order, unscored (a changelog's latest release is read by
        its value, not found by the question's words: nodes/retrieve.py)."""
        ids = [self.index.table.chunk_ids[i] for i in self._rows_of({doc_id})]
        rows = self.corpus.ledger.get_chunks(ids)
        found = [_evidence(rows[cid], {}, 0, None) for cid in ids if cid in rows]
        return sorted(found, key=lambda e: e.span[0])

    # -- filters ------------------------------------------------------------------------------
    def _rows_of(self, doc_ids: Collection[str]) -> list[int]:
        positions = self._positions
        if positions is None:  # built whole, then published: sub-queries search from several threads
            positions = {}
            for i, d in enumerate(self.index.table.doc_ids):
                positions.setdefault(d, []).append(i)
            self._positions = positions
        return sorted(i for d in doc_ids for i in positions.get(d, []))

    def _mask(self, since: int, until: int, where: dict[str, Any] | None) -> np.ndarray | None:
        if not since and not until and not where:
            return None
        t = self.index.table
        mask = np.ones(len(t), dtype=bool)
        if since:
            mask &= t.date_int >= since
        if until:
            mask &= (t.date_int <= until) & (t.date_int > 0)
        if where:
            ok_docs = {
                d for d, info in self._docs.items() if all(info["metadata"].get(k) == v for k, v in where.items())
            }
            mask &= np.array([d in ok_docs for d in t.doc_ids], dtype=bool)
        return mask.astype(np.float32)

    # -- search -------------------------------------------------------------------------------
    def candidates(
        self, query: str, settings: RetrievalSettings | None = None, mode: Mode = "hybrid", **scope: Unpack[Scope]
    ) -> Candidates:
        """Step 1: dense top-k (worker thread: embedding + Chroma) and sparse top-k (this thread), within
        the `scope` (Scope)."""
        s = settings or self.settings
        since, until, where = scope.get("since"), scope.get("until"), scope.get("where")
        doc_ids = scope.get("doc_ids")
        if not query.strip():
            raise InputError("the query is empty")
        table = self.index.table
        since_i, until_i = date_to_int(since), date_to_int(until)
        timings: dict[str, float] = {}
        mask = self._mask(since_i, until_i, where)
        rows = self._rows_of(doc_ids) if doc_ids is not None else None
        if rows is not None:
            only = np.zeros(len(table), dtype=np.float32)
            only[rows] = 1.0
            mask = only if mask is None else mask * only

        def dense_side() -> tuple[np.ndarray, list[tuple[str, float]]]:
            a = time.perf_counter()
            vec = self.embedder.encode_query(query)
            b = time.perf_counter()
            want = mode != "sparse" and s.k_dense > 0 and len(table) > 0
            if want and rows is not None:
                allowed = [i for i in rows if mask is None or mask[i] > 0]
                sims = table.embeddings[allowed] @ vec if allowed else np.zeros(0, dtype=np.float32)
                order = np.argsort(-sims)[: s.k_dense]
                hits = [(table.chunk_ids[allowed[j]], float(sims[j])) for j in order]
            else:
                hits = self.dense.search(vec, s.k_dense, chroma_where(since_i, until_i, where)) if want else []
            timings["embed_ms"] = (b - a) * 1000
            timings["dense_ms"] = (time.perf_counter() - b) * 1000
            return vec, hits

        fut = self._pool.submit(dense_side)
        sparse_hits: list[tuple[str, float]] = []
        scores = None
        if mode != "dense" and s.k_sparse:
            a = time.perf_counter()
            scores = self.index.sparse.scores(sparse_tokens(query, self.stem), mask)
            sparse_hits = [(table.chunk_ids[i], sc) for i, sc in top_k(scores, s.k_sparse)]
            timings["sparse_ms"] = (time.perf_counter() - a) * 1000
        qvec, dense_raw = fut.result()
        # Only passages the index knows (Chroma may briefly hold vectors of an unfinished ingest).
        dense_hits = [(cid, c) for cid, c in dense_raw if cid in table.position]
        return Candidates(query, mode, qvec, dense_hits, sparse_hits, scores, timings)

    def rank(
        self,
        c: Candidates,
        settings: RetrievalSettings | None = None,
        as_of: date | None = None,
        top_m: int | None = None,
    ) -> Ranking:
        """Steps 2-7 over fetched candidates: fusion, temporal and FD* reranks, cutoff, dedup, top-M.
        Pure given the index: sweeps call it many times over one `candidates` call."""
        s = settings or self.settings
        m = top_m or s.top_m
        table = self.index.table
        dense_hits, sparse_hits = c.dense[: s.k_dense], c.sparse[: s.k_sparse]
        notes: list[str] = []
        # 2. fusion
        if c.mode == "dense":
            fused = dict(dense_hits)  # the cosine itself
        elif c.mode == "sparse":
            top = sparse_hits[0][1] if sparse_hits else 1.0
            fused = {cid: sc / top for cid, sc in sparse_hits}
        elif s.fusion == "rrf" or c.sparse_all is None:
            fused = fusion.fuse(dense_hits, sparse_hits, s.fusion, s.w_dense, s.w_sparse, s.rrf_k)
        elif not dense_hits and not sparse_hits:
            fused = {}
        else:  # both scores of every candidate are known: fuse them, nothing imputed
            union = list(dict.fromkeys([cid for cid, _ in dense_hits] + [cid for cid, _ in sparse_hits]))
            upos = np.array([table.position[cid] for cid in union], dtype=np.int64)
            full = fusion.fuse_full(
                table.embeddings[upos] @ c.qvec, c.sparse_all[upos], s.fusion, s.w_dense, s.w_sparse
            )
            fused = dict(zip(union, full.tolist(), strict=True))
        ids = list(fused)
        if not ids:
            return Ranking(
                ids=[],
                kept=[],
                score=np.zeros(0),
                relevance=np.zeros(0),
                cosine=np.zeros(0),
                recency=np.zeros(0),
                positions=np.zeros(0, dtype=np.int64),
                tau=0.0,
                notes=["no passage matched"],
            )
        pos = np.array([table.position[cid] for cid in ids])
        relevance = np.array([fused[cid] for cid in ids], dtype=np.float64)
        cosine = table.embeddings[pos] @ c.qvec

        # 3. temporal rerank
        ref = as_of or date.today()
        score = rerank.temporal_rerank(relevance, table.date_int[pos], ref, s.temporal_weight)
        rec = rerank.recency(table.date_int[pos], ref)
        dated = ~np.isnan(rec)
        if s.temporal_weight > 0 and dated.any() and not dated.all():
            notes.append("undated passages get the median recency of the dated ones (neither boosted nor dropped)")

        # 4. factual-density rerank of the top-N; the rest keep (1-w)·s and so stay below them
        if s.fd_rerank:
            top_n = np.argsort(-score, kind="stable")[: min(s.fd_top, len(ids))]
            rest = np.ones(len(ids), dtype=bool)
            rest[top_n] = False
            fd_scores = np.zeros(len(ids))
            fd_scores[top_n] = rerank.fd_rerank(score[top_n], table.fd_star[pos[top_n]], s.fd_weight)
            score = np.where(rest, (1.0 - s.fd_weight) * score, fd_scores)

        # 5. adaptive cutoff
        tau = rerank.adaptive_cutoff(score, s.cutoff_alpha, s.cutoff_tau_min) if s.cutoff else -np.inf
        order = rerank.above_cutoff(score, tau)

        # 6. dedup (near duplicates that state other values are kept: they may disagree), 7. top-M
        kept, _ = rerank.dedup(order, table.embeddings[pos], s.dedup_threshold, limit=m, same=self._same_values(ids))
        return Ranking(ids, kept, score, relevance, cosine, rec, pos, float(tau), notes)

    def _same_values(self, ids: list[str]) -> Callable[[int, int], bool]:
        """Whether two candidates (by index into `ids`) state the same numbers and versions; texts are
        read from the ledger only for the near duplicates asked about."""
        texts: dict[int, set[str]] = {}

        def values(i: int) -> set[str]:
            if i not in texts:
                row = self.corpus.ledger.get_chunks([ids[i]]).get(ids[i])
                texts[i] = set(_VALUE.findall(row["text"])) if row is not None else set()
            return texts[i]

        return lambda a, b: values(a) == values(b)

    def search(
        self,
        query: str,
        *,
        settings: RetrievalSettings | None = None,
        mode: Mode = "hybrid",
        as_of: date | None = None,
        top_m: int | None = None,
        **scope: Unpack[Scope],
    ) -> SearchResult:
        s = settings or self.settings
        t0 = time.perf_counter()
        c = self.candidates(query, s, mode, **scope)
        a = time.perf_counter()
        ranked = self.rank(c, s, as_of, top_m)
        timings = dict(c.timings)
        timings["rerank_ms"] = (time.perf_counter() - a) * 1000
        a = time.perf_counter()
        results = self.evidence(c, ranked, s)
        timings["fetch_ms"] = (time.perf_counter() - a) * 1000
        timings["total_ms"] = (time.perf_counter() - t0) * 1000
        return SearchResult(query=query, results=results, timings_ms=timings, notes=ranked.notes)

    def evidence(self, c: Candidates, ranked: Ranking, s: RetrievalSettings) -> list[Evidence]:
        """The kept passages with their provenance (from the ledger) and every score."""
        rows = self.corpus.ledger.get_chunks([ranked.ids[i] for i in ranked.kept])
        dense_rank = {cid: r for r, (cid, _) in enumerate(c.dense[: s.k_dense], 1)}
        sparse_rank = {cid: r for r, (cid, _) in enumerate(c.sparse[: s.k_sparse], 1)}
        sparse_score = dict(c.sparse)
        results: list[Evidence] = []
        for i in ranked.kept:
            cid = ranked.ids[i]
            r = rows.get(cid)
            if r is None:  # removed since the index was loaded
                continue
            sc: dict[str, float] = {
                "relevance": float(ranked.relevance[i]),
                "cosine": float(ranked.cosine[i]),
                "final": float(ranked.score[i]),
            }
            if cid in dense_rank:
                sc["dense_rank"] = float(dense_rank[cid])
            if cid in sparse_rank:
                sc["bm25"] = float(sparse_score[cid])
                sc["sparse_rank"] = float(sparse_rank[cid])
            if not np.isnan(ranked.recency[i]):
                sc["recency"] = float(ranked.recency[i])
            sc["fd_star"] = float(self.index.table.fd_star[ranked.positions[i]])
            if s.cutoff:
                sc["cutoff_tau"] = ranked.tau
            results.append(_evidence(r, sc, len(results) + 1, c.query))
        return results

    def ranked_doc_ids(self, ranked: Ranking) -> list[str]:
        """Document ids of the kept passages, in rank order (for evaluation)."""
        t = self.index.table
        return [t.doc_ids[ranked.positions[i]] for i in ranked.kept]


def _evidence(r: Any, scores: dict[str, float], rank: int, query: str | None) -> Evidence:
    """A passage as Evidence, from its ledger row."""
    section = (r["section_start"], r["section_end"]) if r["section_start"] is not None else None
    return Evidence(
        chunk_id=r["chunk_id"],
        doc_id=r["doc_id"],
        title=r["title"],
        date=r["date"],
        date_source=date_source(r["date"], r["metadata"]),
        source=r["source"],
        source_tier=r["source_tier"],
        text=r["text"],
        span=(r["start"], r["end"]),
        page=r["page"],
        section_id=r["section_id"],
        section_span=section,
        scores=scores,
        rank=rank,
        sub_query=query,
    )


def date_source(iso: str | None, metadata: str | None) -> str:
    """Where a stored document's date came from (loaders.py); a record's own date when it says none."""
    return str(json.loads(metadata or "{}").get("date_source", "record" if iso else ""))


def result_json(result: SearchResult) -> str:
    """The `citegraph search --json` document."""
    return json.dumps(
        {
            "query": result.query,
            "results": [
                {
                    "chunk_id": e.chunk_id,
                    "doc_id": e.doc_id,
                    "title": e.title,
                    "date": e.date,
                    "text": e.text,
                    "span": list(e.span),
                    "page": e.page,
                    "section_id": e.section_id,
                    "source": e.source,
                    "scores": e.scores,
                    "rank": e.rank,
                }
                for e in result.results
            ],
            "timings_ms": {k: round(v, 3) for k, v in result.timings_ms.items()},
            "notes": result.notes,
        },
        ensure_ascii=False,
    )


def shared_retriever(corpus_dir: str | Path, chroma_url: str | None = None) -> HybridRetriever:
    """One retriever per corpus per process (the graph's nodes share it), reloaded when an ingest
    has changed the corpus since it was opened."""
    return shared(
        "retriever",
        (str(Path(corpus_dir).resolve()), chroma_url),
        lambda: HybridRetriever.open(corpus_dir, chroma_url=chroma_url),
        stale=lambda r: r.corpus.ledger.generation != r.index.generation,
        close=lambda r: r.close(),
    )
