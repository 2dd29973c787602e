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


class DenseStore:
    """The passages' vectors in a Chroma collection, keyed by chunk id."""

    def __init__(self, client: Any, name: str):
        self.client = client
        self.name = name
        self.collection = client.get_or_create_collection(
            name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        try:
            self.batch = int(client.get_max_batch_size())
        except Exception:
            self.batch = 1000

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        for i in range(0, len(ids), self.batch):
            self.collection.upsert(
                ids=list(ids[i : i + self.batch]),
                embeddings=embeddings[i : i + self.batch],
                metadatas=list(metadatas[i : i + self.batch]),
            )

    def add(self, ids: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[dict[str, Any]]) -> None:
        for i in range(0, len(ids), self.batch):
            self.collection.add(
                ids=list(ids[i : i + self.batch]),
                embeddings=embeddings[i : i + self.batch],
                metadatas=list(metadatas[i : i + self.batch]),
            )

    def delete(self, ids: Sequence[str]) -> None:
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
        """The k nearest passages as (chunk id, cosine similarity), best first."""
        if k <= 0:
            return []
        # No count() first: Chroma returns what it has when asked for more (one round trip saved).
        res = self.collection.query(
            query_embeddings=[vector.astype(np.float32)],
            n_results=k,
            where=where or None,
            include=["distances"],
        )
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0], strict=True)]
