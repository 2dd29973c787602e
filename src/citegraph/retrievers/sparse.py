"""Sparse retrieval: BM25 over the passages, through `bm25s` (the default: sparse matrices, saves and
loads its index, ~1.5 ms a query at 26k passages) or `rank-bm25` (the reference implementation,
linear in corpus size), behind one interface. Both read the same tokens (citegraph.text.tokens) and
score with the same k1 and b (K1, B below), so they rank alike.

Positions are indexes into the corpus's passage order; the caller maps them to chunk ids.
"""

from __future__ import annotations

import json
import logging
import math
import pickle
from pathlib import Path
from typing import Protocol

import numpy as np
from rank_bm25 import BM25Okapi

from citegraph.errors import InputError

# Anserini's BM25 parameters for BEIR-style passage collections. Measured here (docs/BENCHMARKS.md)
# against the textbook 1.5 / 0.75: +0.003 BM25 nDCG@10 on squad-dev, +0.010 on hotpotqa.
K1, B = 0.9, 0.4
PARAMS = {"k1": K1, "b": B}


def _bm25s():
    import bm25s

    # bm25s sets its logger to DEBUG when imported; its "Building index" lines are noise for users.
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


class SparseIndex(Protocol):
    backend: str

    def scores(self, query_tokens: list[str], mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score of every passage (0 where `mask` is False)."""
        ...

    def idf(self, tokens: list[str]) -> dict[str, float]:
        """Lucene idf of each token, log(1 + (N - df + 0.5)/(df + 0.5)); unseen tokens get df = 0."""
        ...

    def vocabulary(self) -> list[str]:
        """Every token some passage holds."""
        ...

    def save(self, folder: Path) -> None: ...


def lucene_idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Positions and scores of the k best passages with a positive score, best first."""
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return [(int(i), float(scores[i])) for i in idx if scores[i] > 0]


class Bm25sIndex:
    backend = "bm25s"

    def __init__(self, model: object):
        self.model = model

    @classmethod
    def build(cls, corpus_tokens: list[list[str]]) -> Bm25sIndex:
        model = _bm25s().BM25(k1=K1, b=B, method="lucene")
        # An empty passage (all stopwords) still needs a row: bm25s maps it to the empty token.
        model.index([t or [""] for t in corpus_tokens], show_progress=False)
        return cls(model)

    def scores(self, query_tokens: list[str], mask: np.ndarray | None = None) -> np.ndarray:
        m = self.model
        n = int(m.scores["num_docs"])  # type: ignore[attr-defined]
        ids = m.get_tokens_ids([t for t in query_tokens if t])  # type: ignore[attr-defined]
        if not ids:
            return np.zeros(n, dtype=np.float32)
        s = m.get_scores_from_ids(ids, weight_mask=None)  # type: ignore[attr-defined]
        return s * mask if mask is not None else s

    def idf(self, tokens: list[str]) -> dict[str, float]:
        m = self.model
        n = int(m.scores["num_docs"])  # type: ignore[attr-defined]
        indptr = m.scores["indptr"]  # type: ignore[attr-defined]
        vocab = m.vocab_dict  # type: ignore[attr-defined]
        out = {}
        for t in tokens:
            i = vocab.get(t)
            out[t] = lucene_idf(n, int(indptr[i + 1] - indptr[i]) if i is not None else 0)
        return out

    def vocabulary(self) -> list[str]:
        return [t for t in self.model.vocab_dict if t]  # type: ignore[attr-defined]

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save(str(folder), show_progress=False)  # type: ignore[attr-defined]
        (folder / "backend.json").write_text(json.dumps({"backend": self.backend, **PARAMS}))

    @classmethod
    def load(cls, folder: Path) -> Bm25sIndex:
        return cls(_bm25s().BM25.load(str(folder), mmap=False, show_progress=False, verbosity=0))


class LuceneIdfOkapi(BM25Okapi):
    """Okapi's idf, log((N-n+0.5)/(n+0.5)), turns negative for terms in over half the
    passages (rank-bm25 then floors it at a fraction of the mean): on small corpora it ranks
    unlike bm25s. Lucene's idf, log(1 + (N-n+0.5)/(n+0.5)), is what bm25s uses."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


class RankBm25Index:
    backend = "rank-bm25"

    def __init__(self, model: object, n: int):
        self.model = model
        self.n = n

    @classmethod
    def build(cls, corpus_tokens: list[list[str]]) -> RankBm25Index:
        # rank-bm25 divides by the mean document length: keep a placeholder token in empty rows.
        model = LuceneIdfOkapi([t or ["\x00"] for t in corpus_tokens], k1=K1, b=B)
        return cls(model, len(corpus_tokens))

    def scores(self, query_tokens: list[str], mask: np.ndarray | None = None) -> np.ndarray:
        if not query_tokens:
            return np.zeros(self.n, dtype=np.float32)
        s = np.asarray(self.model.get_scores(query_tokens), dtype=np.float32)  # type: ignore[attr-defined]
        return s * mask if mask is not None else s

    def idf(self, tokens: list[str]) -> dict[str, float]:
        known = self.model.idf  # type: ignore[attr-defined]
        return {t: float(known.get(t, lucene_idf(self.n, 0))) for t in tokens}

    def vocabulary(self) -> list[str]:
        return [t for t in self.model.idf if t != "\x00"]  # type: ignore[attr-defined]

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "rank_bm25.pkl").open("wb") as fh:
            pickle.dump({"model": self.model, "n": self.n}, fh)
        (folder / "backend.json").write_text(json.dumps({"backend": self.backend, **PARAMS}))

    @classmethod
    def load(cls, folder: Path) -> RankBm25Index:
        with (folder / "rank_bm25.pkl").open("rb") as fh:
            data = pickle.load(fh)  # our own file, written by save() above
        return cls(data["model"], data["n"])


class EmptyIndex:
    """The index of a corpus with no passages yet (every file skipped, or all removed): both BM25
    libraries fail on an empty corpus, and a user should get "no passages" rather than a traceback."""

    backend = "empty"

    def scores(self, query_tokens: list[str], mask: np.ndarray | None = None) -> np.ndarray:
        return np.zeros(0, dtype=np.float32)

    def idf(self, tokens: list[str]) -> dict[str, float]:
        return {t: lucene_idf(0, 0) for t in tokens}

    def vocabulary(self) -> list[str]:
        return []

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "backend.json").write_text(json.dumps({"backend": self.backend, **PARAMS}))

    @classmethod
    def load(cls, folder: Path) -> EmptyIndex:
        return cls()


BACKENDS: dict[str, type[Bm25sIndex] | type[RankBm25Index]] = {
    "bm25s": Bm25sIndex,
    "rank-bm25": RankBm25Index,
}


def build_index(backend: str, corpus_tokens: list[list[str]]) -> SparseIndex:
    if backend not in BACKENDS:
        raise InputError(f"unknown sparse backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if not corpus_tokens:
        return EmptyIndex()
    return BACKENDS[backend].build(corpus_tokens)


def load_index(folder: Path) -> SparseIndex | None:
    """The saved index, or None when it was built with other BM25 parameters (rebuild it)."""
    info = json.loads((folder / "backend.json").read_text())
    if {k: info.get(k) for k in PARAMS} != PARAMS:
        return None
    if info["backend"] == EmptyIndex.backend:
        return EmptyIndex()
    return BACKENDS[info["backend"]].load(folder)
