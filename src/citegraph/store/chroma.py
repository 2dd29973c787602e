"""Chroma access: the embedded `PersistentClient` in the corpus folder (the default) or a Chroma
server (`chroma run`) through `HttpClient`. The collection is created without an embedding function
and we always pass vectors: Chroma's default function would try to download an ONNX model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from citegraph.errors import InputError

EMBEDDED_COLLECTION = "citegraph"
# Up to this many passages the dense retriever ranks every vector exactly (numpy, the vectors held in
# memory: 150 MB at 100,000 passages of 384 dimensions) instead of asking Chroma's HNSW graph, which is
# approximate: over the realdocs corpora (2-6 thousand passages) it missed 1-3 % of the exact top 50
# for a third of the questions, and up to 3 of a question's exact top 10 (benchmarks/dense_recall.py).
# A graph built by several threads can also differ between two ingests of the same files; exact ranking
# cannot. Above it, and for a Chroma server (whose vectors would cross the network), HNSW answers.
EXACT_SEARCH_MAX = 100_000


def open_client(corpus_dir: Path, url: str | None) -> Any:
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    if not url:
        return chromadb.PersistentClient(path=str(corpus_dir / "chroma"), settings=settings)
    u = urlparse(url if "://" in url else f"http://{url}")
    if not u.hostname:
        raise InputError(f"--chroma-url {url!r} is not a URL like http://127.0.0.1:8000")
    return chromadb.HttpClient(
        host=u.hostname,
        port=u.port or (443 if u.scheme == "https" else 8000),
        ssl=u.scheme == "https",
        settings=settings,
    )


def open_dense(corpus_dir: Path, url: str | None, name: str) -> DenseStore:
    """The corpus's vectors: in its embedded Chroma, searched exactly (up to EXACT_SEARCH_MAX), or in
    a Chroma server at `url`, searched by its HNSW index."""
    return DenseStore(open_client(corpus_dir, url), name, 0 if url else EXACT_SEARCH_MAX)


class DenseStore:
    """The passages' vectors in a Chroma collection, keyed by chunk id."""

    def __init__(self, client: Any, name: str, exact_up_to: int = EXACT_SEARCH_MAX):
        self.client = client
        self.name = name
        self.collection = client.get_or_create_collection(
            name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        try:
            self.batch = int(client.get_max_batch_size())
        except Exception:
            self.batch = 1000
        self.exact_up_to = exact_up_to
        self._vectors: tuple[list[str], dict[str, int], np.ndarray] | None = None  # exact search's, read on need

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        self._vectors = None
        for i in range(0, len(ids), self.batch):
            self.collection.upsert(
                ids=list(ids[i : i + self.batch]),
                embeddings=embeddings[i : i + self.batch],
                metadatas=list(metadatas[i : i + self.batch]),
            )

    def add(self, ids: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        self._vectors = None
        for i in range(0, len(ids), self.batch):
            self.collection.add(
                ids=list(ids[i : i + self.batch]),
                embeddings=embeddings[i : i + self.batch],
                metadatas=list(metadatas[i : i + self.batch]),
            )

    def delete(self, ids: Sequence[str]) -> None:
        self._vectors = None
        for i in range(0, len(ids), self.batch):
            self.collection.delete(ids=list(ids[i : i + self.batch]))

    def all_ids(self) -> set[str]:
        out: set[str] = set()
        offset, page = 0, 10000
        while True:
            got = self.collection.get(include=[], limit=page, offset=offset)["ids"]
            out.update(got)
            if len(got) < page:
                return out
            offset += page

    def count(self) -> int:
        return int(self.collection.count())

    def query(self, vector: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """The k nearest passages as (chunk id, cosine similarity), best first: exact up to
        `exact_up_to` passages, from Chroma's approximate index above."""
        if k <= 0:
            return []
        exact = self._exact_vectors()
        if exact is not None:
            ids, rows, vectors = exact
            if not ids:
                return []
            scores = vectors @ (vector / (np.linalg.norm(vector) or 1.0)).astype(np.float32)
            if where:  # Chroma decides which passages the filter keeps; the ranking stays exact
                kept = np.full(len(ids), -np.inf, dtype=np.float32)
                at = [rows[cid] for cid in self.collection.get(where=where, include=[])["ids"] if cid in rows]
                kept[at] = scores[at]
                scores = kept
            order = np.argsort(-scores, kind="stable")[:k]
            return [(ids[i], float(scores[i])) for i in order if np.isfinite(scores[i])]
        # No count() first: Chroma returns what it has when asked for more (one round trip saved).
        res = self.collection.query(
            query_embeddings=[vector.astype(np.float32)],
            n_results=k,
            where=where or None,
            include=["distances"],
        )
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    def _exact_vectors(self) -> tuple[list[str], dict[str, int], np.ndarray] | None:
        """All ids, their rows and unit vectors, read once and again when the collection's size changes
        (another process ingested), or None above `exact_up_to` passages."""
        n = self.count()
        if n > self.exact_up_to:
            return None
        if self._vectors is None or len(self._vectors[0]) != n:
            ids: list[str] = []
            chunks: list[np.ndarray] = []
            for offset in range(0, n, 10_000):
                got = self.collection.get(include=["embeddings"], limit=10_000, offset=offset)
                ids.extend(got["ids"])
                chunks.append(np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1))
            vectors = np.concatenate(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            rows = {cid: i for i, cid in enumerate(ids)}
            self._vectors = (ids, rows, vectors / np.where(norms == 0, 1.0, norms))
        return self._vectors
