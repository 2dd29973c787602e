"""A corpus folder: `manifest.json` (embedder, chunking, BM25 and Chroma settings), `ledger.sqlite`
(documents and passages), `chroma/` (the embedded Chroma store, unless a server is used) and
`index/` (the derived BM25 index and passage table).

Opening a corpus checks its manifest against the settings in use: a corpus built with one embedder
refuses queries embedded by another, and one chunked one way refuses to be extended with passages
chunked another way, each with a message that says what to do.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.errors import InputError
from citegraph.settings import ChunkingSettings
from citegraph.store.chroma import EMBEDDED_COLLECTION, DenseStore, open_dense
from citegraph.store.ledger import Ledger

MANIFEST_FORMAT = 1


class CorpusError(Exception):
    """A corpus that cannot be used as asked; the message says why and what to do."""


def lock_for_ingest(directory: str | Path) -> Any:
    """Take the corpus folder's ingest lock (creating the folder), or fail at once if another ingest
    holds it: before anything slow, such as loading the embedder. Returns the open lock file."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise CorpusError(f"{d} is a file, not a corpus folder: give --corpus a folder (new or made by ingest)")
    d.mkdir(parents=True, exist_ok=True)
    lock_fh = (d / ".lock").open("w")
    try:
        fcntl.flock(lock_fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        lock_fh.close()
        raise CorpusError(f"another `citegraph ingest` is writing to {d}; wait for it to finish") from exc
    return lock_fh


@dataclass
class Manifest:
    embedder: dict[str, Any]
    chunking: dict[str, Any]
    sparse: dict[str, Any]
    chroma: dict[str, Any]
    created_at: str
    updated_at: str
    format: int = MANIFEST_FORMAT
    # The loaders' version (ingest/loaders.py) the files were last read with: when the loaders improve,
    # the next ingest reads every file again (unchanged texts are still not re-embedded).
    loaders: int = 0

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def read_manifest(corpus_dir: Path) -> Manifest | None:
    p = corpus_dir / "manifest.json"
    if not p.exists():
        return None
    try:
        data = json.loads(p.read_text())
        return Manifest(**data)
    except (json.JSONDecodeError, TypeError) as exc:
        raise CorpusError(f"{p} is damaged ({exc}); rebuild the corpus into a new folder") from exc


def require_corpus(corpus_dir: str | Path) -> Manifest:
    """The manifest of a corpus folder a command or an integration is pointed at; an InputError saying
    how to make one if the folder holds none."""
    m = read_manifest(Path(corpus_dir))
    if m is None:
        raise InputError(f"{corpus_dir} is not a citegraph corpus; create it with `citegraph ingest`")
    return m


def write_manifest(corpus_dir: Path, m: Manifest) -> None:
    m.updated_at = _now()
    tmp = corpus_dir / f"manifest.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(m.as_dict(), indent=2, sort_keys=True))
    os.replace(tmp, corpus_dir / "manifest.json")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def check_embedder(m: Manifest, identity: dict[str, Any], corpus_dir: Path) -> None:
    if m.embedder.get("fingerprint") != identity["fingerprint"] or m.embedder.get("dim") != identity["dim"]:
        raise CorpusError(
            f"corpus {corpus_dir} was built with embedder {m.embedder.get('name')!r} "
            f"(dim {m.embedder.get('dim')}, fingerprint {m.embedder.get('fingerprint')}), but this run uses "
            f"{identity['name']!r} (dim {identity['dim']}, fingerprint {identity['fingerprint']}). "
            "Query it with the embedder it was built with, or ingest into a new corpus folder."
        )


class Corpus:
    """An open corpus folder. Use `Corpus.open` for reading and `Corpus.open_for_ingest` for writing."""

    def __init__(self, directory: Path, manifest: Manifest, ledger: Ledger, dense: DenseStore):
        self.dir = directory
        self.manifest = manifest
        self.ledger = ledger
        self.dense = dense
        self._lock_fh: Any = None

    # -- opening ------------------------------------------------------------------------------
    @classmethod
    def open(cls, directory: str | Path, embedder_identity: dict[str, Any], chroma_url: str | None = None) -> Corpus:
        d = Path(directory)
        m = read_manifest(d)
        if m is None or not (d / "ledger.sqlite").exists():
            raise CorpusError(f"{d} is not a citegraph corpus (no manifest); create it with `citegraph ingest`")
        check_embedder(m, embedder_identity, d)
        url = chroma_url or m.chroma.get("url")
        ledger = Ledger(d / "ledger.sqlite")
        return cls(d, m, ledger, open_dense(d, url, m.chroma["collection"]))

    @classmethod
    def open_for_ingest(
        cls,
        directory: str | Path,
        embedder_identity: dict[str, Any],
        chunking: ChunkingSettings,
        sparse_backend: str | None,
        chroma_url: str | None,
        stem: bool = True,
        lock: Any = None,
    ) -> Corpus:
        """The corpus opened for writing, under its ingest lock (`lock`, if the caller took it first)."""
        d = Path(directory)
        lock_fh = lock if lock is not None else lock_for_ingest(d)
        m = read_manifest(d)
        if m is None:
            collection = (
                EMBEDDED_COLLECTION
                if not chroma_url
                else ("citegraph-" + hashlib.sha1(str(d.resolve()).encode()).hexdigest()[:12])
            )
            m = Manifest(
                embedder=embedder_identity,
                chunking=chunking.as_dict(),
                sparse={"backend": sparse_backend or "bm25s", "stem": stem},
                chroma={"url": chroma_url, "collection": collection},
                created_at=_now(),
                updated_at=_now(),
            )
        else:
            check_embedder(m, embedder_identity, d)
            if m.chunking != chunking.as_dict():
                raise CorpusError(
                    f"corpus {d} was chunked with {m.chunking}, this run asks for {chunking.as_dict()}; "
                    "mixed chunking would make scores incomparable. Use the same settings or a new folder."
                )
            if chroma_url and chroma_url != m.chroma.get("url"):
                raise CorpusError(
                    f"corpus {d} keeps its vectors in {m.chroma.get('url') or 'its embedded Chroma'}, "
                    f"not {chroma_url}; use a new corpus folder for another Chroma"
                )
            if sparse_backend and sparse_backend != m.sparse["backend"]:
                m.sparse = {**m.sparse, "backend": sparse_backend}  # cheap: the BM25 index is rebuilt
        corpus = cls(d, m, Ledger(d / "ledger.sqlite"), open_dense(d, m.chroma.get("url"), m.chroma["collection"]))
        corpus._lock_fh = lock_fh
        write_manifest(d, m)
        return corpus

    def close(self) -> None:
        self.ledger.close()
        if self._lock_fh is not None:
            self._lock_fh.close()
            self._lock_fh = None

    # -- the derived index --------------------------------------------------------------------
    @property
    def index_dir(self) -> Path:
        return self.dir / "index"

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
