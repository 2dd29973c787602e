"""How many of the exact nearest passages Chroma's approximate (HNSW) index returns: for each question,
the share of the exact cosine top-k (all of the corpus's vectors, brute force in numpy) that a query of
the HNSW index gives back, and that the dense store's own query gives back (exact up to
`store.chroma.EXACT_SEARCH_MAX` passages, so 1.0 there). Below 1, dense candidates are lost before
fusion, and two ingests of the same files (the index is built by several threads) may retrieve
differently.

    .venv/bin/python benchmarks/dense_recall.py --corpus .citegraph/bench/realdocs6 \
        --questions benchmarks/realdocs6/questions-*.jsonl [--k 50] [--ef-search 400]

`--ef-search` sets the collection's search breadth first (Chroma's `modify`; it is kept in the corpus,
so point it at a copy). Questions are JSONL with a `text` field (the realdocs files, a BEIR queries.jsonl).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from citegraph.embed import get_embedder
from citegraph.store.chroma import EMBEDDED_COLLECTION, DenseStore, open_client


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, required=True)
    p.add_argument("--questions", type=Path, nargs="+", required=True)
    p.add_argument("--k", type=int, default=50, help="candidates asked for (the retriever's k_dense, 50)")
    p.add_argument("--ef-search", type=int, default=0, help="set the index's ef_search first (0: leave it)")
    p.add_argument("--limit", type=int, default=0, help="the first N questions only")
    a = p.parse_args()
    client = open_client(a.corpus, None)
    store = DenseStore(client, EMBEDDED_COLLECTION, exact_up_to=0)  # Chroma's HNSW index only
    default = DenseStore(client, EMBEDDED_COLLECTION)  # what the retriever asks
    if a.ef_search:
        store.collection.modify(configuration={"hnsw": {"ef_search": a.ef_search}})
    got = store.collection.get(include=["embeddings"])
    ids = np.array(got["ids"])
    vectors = np.asarray(got["embeddings"], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [json.loads(line)["text"] for f in a.questions for line in f.read_text().splitlines() if line.strip()]
    texts = texts[: a.limit] if a.limit else texts
    hnsw, ours = [], []
    for v in get_embedder().encode(texts):
        v = v / np.linalg.norm(v)
        exact = set(ids[np.argsort(-(vectors @ v))[: a.k]])
        hnsw.append(len(exact & {cid for cid, _ in store.query(v, a.k)}) / min(a.k, len(ids)))
        ours.append(len(exact & {cid for cid, _ in default.query(v, a.k)}) / min(a.k, len(ids)))
    config = store.collection.configuration.get("hnsw") or {}
    print(f"{a.corpus}: {len(ids)} passages, {len(texts)} questions, ef_search {config.get('ef_search')}")
    for name, r in (("HNSW", np.array(hnsw)), ("dense store", np.array(ours))):
        print(
            f"  {name}: recall@{a.k} mean {r.mean():.4f}, min {r.min():.2f}; {int((r < 1).sum())} questions miss some"
        )


if __name__ == "__main__":
    main()
