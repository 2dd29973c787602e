"""The derived in-memory index of a corpus: the BM25 index and a table of every live passage (chunk
id, document id, embedding, date, factual density), aligned by position.

It is rebuilt from the ledger after each ingest that changed something (`rebuild`, when `is_current`
says so) and saved in `index/` beside the ledger with the ledger generation it was built at; a reader
that finds it missing or older than the ledger rebuilds it in memory (`load_current`; never
half-written: saves go to a temporary folder renamed into place).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from citegraph.retrievers.sparse import PARAMS, SparseIndex, build_index, load_index
from citegraph.settings import DEFAULT_TIER_WEIGHTS
from citegraph.store.corpus import Corpus
from citegraph.store.ledger import Ledger
from citegraph.text.density import DensityStats, fd_star, fit_stats
from citegraph.text.releases import known_name
from citegraph.text.tokens import sparse_tokens, tokenize

log = logging.getLogger(__name__)


@dataclass
class PassageTable:
    chunk_ids: list[str]
    doc_ids: list[str]
    embeddings: np.ndarray  # (n, dim) float32, L2-normalised
    date_int: np.ndarray  # YYYYMMDD, 0 = undated
    fd_star: np.ndarray
    n_tokens: np.ndarray

    def __post_init__(self) -> None:
        self.position = {cid: i for i, cid in enumerate(self.chunk_ids)}

    def __len__(self) -> int:
        return len(self.chunk_ids)


@dataclass
class CorpusIndex:
    generation: int
    table: PassageTable
    sparse: SparseIndex
    density: DensityStats


def tier_weights(tiers: list[str], weights: dict[str, float] | None = None) -> np.ndarray:
    w = weights or DEFAULT_TIER_WEIGHTS
    return np.array([w.get(t, 1.0) for t in tiers], dtype=np.float64)


def build(ledger: Ledger, backend: str, stem: bool, weights: dict[str, float] | None = None) -> CorpusIndex:
    """Build the index from the ledger's live passages; also refreshes FD* in the ledger."""
    generation = ledger.generation
    t = ledger.index_table()
    stats = fit_stats(t["fd_raw"], t["n_tokens"])
    fds = fd_star(t["fd_raw"], t["n_tokens"], tier_weights(t["tiers"], weights), stats)
    table = PassageTable(t["chunk_ids"], t["doc_ids"], t["embeddings"], t["date_int"], fds, t["n_tokens"])
    texts = [sparse_text(*row) for row in zip(t["titles"], t["files"], t["texts"], strict=True)]
    sparse = build_index(backend, [sparse_tokens(t, stem) for t in texts])
    return CorpusIndex(generation, table, sparse, stats)


# What BM25 indexes for a passage; saved with the index, so an index built another way is rebuilt.
SPARSE_TEXT = "title+file+passage; us-spelling; dotted words"


def sparse_text(title: str, file: str, text: str) -> str:
    """A passage as BM25 sees it: headed by its document's title and file name. A passage from the
    middle of a document rarely repeats what the document is ("Requires-Python: >=3.7" sits among
    classifier lines, 500 characters below "Name: attrs"), and a question names it ("attrs 23.2.0"):
    without its heading such a passage ranked below 40 others of the wrong packages."""
    head = _heading(title, file)
    return f"{head}\n{text}" if head else text


@lru_cache(maxsize=4096)
def _heading(title: str, file: str) -> str:
    """The title, and the file name where it says more (worked out once per document, not per passage)."""
    name = known_name(file)
    return title if not name or set(tokenize(name)) <= set(tokenize(title)) else f"{title} {name}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale(folder: Path) -> None:
    """Remove what a save killed half-way left beside the index (`index.tmp<pid>`, `index.old<pid>`)
    when that process is gone: otherwise it stays for good."""
    for p in folder.parent.glob(f"{folder.name}.*"):
        m = re.fullmatch(rf"{re.escape(folder.name)}\.(tmp|old)(\d+)", p.name)
        if m and int(m.group(2)) != os.getpid() and not _pid_alive(int(m.group(2))):
            shutil.rmtree(p, ignore_errors=True)


def save(index: CorpusIndex, folder: Path) -> None:
    remove_stale(folder)
    tmp = folder.with_name(f"{folder.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    index.sparse.save(tmp / "sparse")
    tb = index.table
    np.savez(
        tmp / "table.npz",
        chunk_ids=np.array(tb.chunk_ids, dtype=object),
        doc_ids=np.array(tb.doc_ids, dtype=object),
        embeddings=tb.embeddings,
        date_int=tb.date_int,
        fd_star=tb.fd_star,
        n_tokens=tb.n_tokens,
    )
    (tmp / "index.json").write_text(
        json.dumps(
            {
                "generation": index.generation,
                "n": len(tb),
                "density": index.density.as_dict(),
                "sparse_text": SPARSE_TEXT,
            }
        )
    )
    old = folder.with_name(f"{folder.name}.old{os.getpid()}")
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)


def load(folder: Path) -> CorpusIndex | None:
    """The saved index, or None if there is none (or it cannot be read)."""
    try:
        info = json.loads((folder / "index.json").read_text())
        if info.get("sparse_text") != SPARSE_TEXT:
            return None  # built by an older release: the caller rebuilds it
        with np.load(folder / "table.npz", allow_pickle=True) as z:  # our own file (object arrays of ids)
            table = PassageTable(
                list(z["chunk_ids"]),
                list(z["doc_ids"]),
                z["embeddings"],
                z["date_int"],
                z["fd_star"],
                z["n_tokens"],
            )
        sparse = load_index(folder / "sparse")
        if sparse is None:
            return None
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    d = info["density"]
    stats = DensityStats(tuple(d["edges"]), tuple(d["mean"]), tuple(d["std"]))
    return CorpusIndex(int(info["generation"]), table, sparse, stats)


def load_current(corpus: Corpus, sparse_backend: str | None = None) -> CorpusIndex:
    """The corpus's saved index if it is current; otherwise one built in memory from the ledger."""
    backend = sparse_backend or corpus.manifest.sparse["backend"]
    idx = load(corpus.index_dir)
    if idx is not None and idx.generation == corpus.ledger.generation and idx.sparse.backend == backend:
        return idx
    if idx is None and (corpus.index_dir / "index.json").exists():
        log.warning(
            "%s could not be used (built by an older citegraph, or damaged): rebuilt in memory for this process; "
            "`citegraph ingest` on this corpus saves the new one",
            corpus.index_dir,
        )
    return build(corpus.ledger, backend, bool(corpus.manifest.sparse.get("stem", True)))


def rebuild(corpus: Corpus) -> CorpusIndex:
    """Build the index from the ledger, store each passage's FD* in the ledger, and save the index."""
    idx = build(corpus.ledger, corpus.manifest.sparse["backend"], bool(corpus.manifest.sparse.get("stem", True)))
    corpus.ledger.set_fd_star(idx.table.chunk_ids, idx.table.fd_star)
    save(idx, corpus.index_dir)
    return idx


def is_current(corpus: Corpus) -> bool:
    """Whether the saved index was built at the ledger's generation, by this release's sparse text and
    with the manifest's backend and BM25 parameters."""
    p = corpus.index_dir / "index.json"
    if not p.exists():
        return False
    try:
        info = json.loads(p.read_text())
        sparse = json.loads((corpus.index_dir / "sparse" / "backend.json").read_text())
    except (OSError, json.JSONDecodeError, KeyError):
        return False
    return bool(
        info.get("generation") == corpus.ledger.generation
        and info.get("sparse_text") == SPARSE_TEXT
        and sparse.get("backend") == corpus.manifest.sparse["backend"]
        and {k: sparse.get(k) for k in PARAMS} == PARAMS
    )
