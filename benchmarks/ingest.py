"""Ingest throughput against the raw encoder's throughput on the same passages.

    .venv/bin/python benchmarks/ingest.py ../shared/data/hotpotqa/corpus.jsonl [--corpus DIR]

Ingests the file into a fresh corpus folder (timing the whole `ingest`), then encodes exactly the
passages that ingest produced with the bare embedder (same batch size), and reports both
throughputs and the overhead: everything ingest does beyond encoding (loading, chunking, factual
density, SQLite, Chroma, BM25) as a share of the encoding time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import citegraph  # noqa: F401
from citegraph.embed import get_embedder
from citegraph.ingest.pipeline import ingest
from citegraph.store.ledger import Ledger


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--corpus", help="corpus folder to (re)create; default a temporary one")
    a = ap.parse_args()
    corpus = Path(a.corpus) if a.corpus else Path(tempfile.mkdtemp(prefix="cg-bench-")) / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    emb = get_embedder()
    emb.encode(["warm up the encoder"])
    t = time.perf_counter()
    report = ingest([a.file], corpus, embedder=emb)
    t_ingest = time.perf_counter() - t
    ledger = Ledger(corpus / "ledger.sqlite")
    texts = [r[0] for r in ledger.db.execute("SELECT text FROM chunks WHERE status = 'live' ORDER BY rowid")]
    t = time.perf_counter()
    for i in range(0, len(texts), 512):  # the same batches as ingest
        emb.encode(texts[i : i + 512])
    t_encode = time.perf_counter() - t
    t = time.perf_counter()
    again = ingest([a.file], corpus, embedder=emb)
    t_again = time.perf_counter() - t
    out = {
        "file": a.file,
        "documents": report.documents_total,
        "passages": report.passages_total,
        "ingest_s": round(t_ingest, 2),
        "encode_only_s": round(t_encode, 2),
        "ingest_passages_per_s": round(len(texts) / t_ingest, 1),
        "encode_passages_per_s": round(len(texts) / t_encode, 1),
        "overhead_pct": round(100 * (t_ingest / t_encode - 1), 1),
        "reingest_unchanged_s": round(t_again, 2),
        "reingest_added": again.passages_added,
        "phases_s": report.phases_s,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
