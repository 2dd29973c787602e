"""The ledger: a SQLite database in the corpus folder, the source of truth for what the corpus holds.

It keeps every document (text and metadata), section and passage (span, page, tokens, factual
density, embedding), and the state of each write. The other stores (Chroma, the BM25 index) are
derived from it, which is what makes ingestion crash-safe:

1. `stage`: one transaction writes the new passages as `pending` and marks replaced ones `deleting`;
2. the caller then writes Chroma (deletes and upserts by id, both idempotent);
3. `commit`: one transaction drops the `deleting` rows and makes the `pending` ones `live`.

A process killed anywhere in between leaves rows that are not `live`; `unfinished_chunk_ids` and
`drop_unfinished` let the next ingest remove them from Chroma and from here, then load those files
again. Searches only ever see `live` rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, n_docs INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, source TEXT NOT NULL, path TEXT NOT NULL,
    date TEXT, source_tier TEXT NOT NULL, metadata TEXT NOT NULL, pages TEXT,
    content_hash TEXT NOT NULL, text TEXT NOT NULL, status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);
CREATE TABLE IF NOT EXISTS sections (
    section_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, idx INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, n_tokens INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(doc_id);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, section_id TEXT NOT NULL, idx INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, page INTEGER, n_tokens INTEGER NOT NULL,
    text TEXT NOT NULL, fd_raw REAL NOT NULL, fd_star REAL NOT NULL DEFAULT 0,
    date_int INTEGER NOT NULL, source_tier TEXT NOT NULL, embedding BLOB NOT NULL, status TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS spare_embeddings (
    chunk_id TEXT PRIMARY KEY, text TEXT NOT NULL, embedding BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_status ON chunks(status);
"""


@dataclass
class ChunkRow:
    chunk_id: str
    doc_id: str
    section_id: str
    idx: int
    start: int
    end: int
    page: int | None
    n_tokens: int
    text: str
    fd_raw: float
    date_int: int
    source_tier: str
    embedding: np.ndarray


@dataclass
class SectionRow:
    section_id: str
    doc_id: str
    idx: int
    start: int
    end: int
    n_tokens: int


@dataclass
class DocRow:
    doc_id: str
    title: str
    source: str
    path: str
    date: str | None
    source_tier: str
    metadata: dict[str, Any]
    pages: list[int] | None
    content_hash: str
    text: str


@dataclass
class StagedDoc:
    doc: DocRow
    sections: list[SectionRow]
    chunks: list[ChunkRow]


class Ledger:
    def __init__(self, path: Path, readonly: bool = False):
        self.path = path
        self._lock = threading.RLock()
        if readonly:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        else:
            self.db = sqlite3.connect(path, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL: a committed transaction survives the process being killed
            # (only a power cut can lose the last ones), and commits do not wait for fsync.
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        self.db.row_factory = sqlite3.Row

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        # One connection serves ingest's reader thread and its writer thread: a transaction must not
        # be committed by another thread's halfway through (reads need no lock: SQLite serializes them).
        with self._lock, self.db:  # commits on success, rolls back on an exception
            yield self.db

    # -- meta ---------------------------------------------------------------------------------
    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value: Any, db: sqlite3.Connection | None = None) -> None:
        (db or self.db).execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    @property
    def generation(self) -> int:
        """Bumped by every committed change; derived indexes record the generation they were built at."""
        return int(self.get_meta("generation", 0))

    def _bump(self, db: sqlite3.Connection) -> None:
        self.set_meta("generation", self.generation + 1, db)

    # -- sources (fast skipping of unchanged files) -------------------------------------------
    def source_stat(self, path: str) -> tuple[int, int] | None:
        row = self.db.execute("SELECT size, mtime_ns FROM sources WHERE path = ?", (path,)).fetchone()
        return (row[0], row[1]) if row else None

    def record_source(self, path: str, size: int, mtime_ns: int, n_docs: int) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sources VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "size = excluded.size, mtime_ns = excluded.mtime_ns, n_docs = excluded.n_docs",
                (path, size, mtime_ns, n_docs),
            )

    def forget_source(self, path: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM sources WHERE path = ?", (path,))

    def source_paths(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT path FROM sources")]

    # -- documents ----------------------------------------------------------------------------
    def doc_state(self, doc_id: str) -> tuple[str, str, str] | None:
        """(content_hash, status, path) of a document, or None."""
        row = self.db.execute("SELECT content_hash, status, path FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def move_document(self, doc_id: str, path: str) -> None:
        """The same document (same id and content) now comes from another file."""
        with self.transaction() as db:
            db.execute("UPDATE documents SET path = ? WHERE doc_id = ?", (path, doc_id))

    def doc_ids_for_path(self, path: str) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT doc_id FROM documents WHERE path = ?", (path,))]

    def get_document(self, doc_id: str) -> DocRow | None:
        r = self.db.execute("SELECT * FROM documents WHERE doc_id = ? AND status = 'live'", (doc_id,)).fetchone()
        if r is None:
            return None
        return DocRow(
            doc_id=r["doc_id"],
            title=r["title"],
            source=r["source"],
            path=r["path"],
            date=r["date"],
            source_tier=r["source_tier"],
            metadata=json.loads(r["metadata"]),
            pages=json.loads(r["pages"]) if r["pages"] else None,
            content_hash=r["content_hash"],
            text=r["text"],
        )

    def documents(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT doc_id, title, date, source_tier, metadata, path FROM documents WHERE status = 'live'"
        )
        keys = ("doc_id", "title", "date", "source_tier", "metadata", "path")
        return [{**dict(zip(keys, r, strict=True)), "metadata": json.loads(r[4])} for r in rows]

    def summaries(self) -> list[dict[str, Any]]:
        """Each live document with where it came from and how many passages it has (`citegraph corpus`)."""
        rows = self.db.execute(
            "SELECT d.doc_id, d.title, d.date, d.source_tier, d.metadata, d.path, COUNT(c.chunk_id) "
            "FROM documents d LEFT JOIN chunks c ON c.doc_id = d.doc_id AND c.status = 'live' "
            "WHERE d.status = 'live' GROUP BY d.doc_id ORDER BY d.path, d.doc_id"
        )
        out = []
        for doc_id, title, date, tier, meta, path, n in rows:
            metadata = json.loads(meta)
            out.append(
                {
                    "doc_id": doc_id,
                    "title": title,
                    "date": date,
                    "date_source": metadata.get("date_source", ""),
                    "source_tier": tier,
                    "path": path,
                    "passages": int(n),
                }
            )
        return out

    def counts(self) -> dict[str, int]:
        docs = self.db.execute("SELECT COUNT(*) FROM documents WHERE status = 'live'").fetchone()[0]
        chunks = self.db.execute("SELECT COUNT(*) FROM chunks WHERE status = 'live'").fetchone()[0]
        return {"documents": int(docs), "chunks": int(chunks)}

    # -- the three-step write -----------------------------------------------------------------
    def stage(
        self, staged: Sequence[StagedDoc], more: Sequence[ChunkRow] = (), sections: Sequence[SectionRow] = ()
    ) -> list[str]:
        """Write new documents' rows as pending; mark the passages they replace `deleting`. Returns the
        ids of the replaced passages (the caller deletes them from Chroma).

        A large document is staged in parts: `more` (and `sections`) are passages (and sections) of a
        document whose row is staged with another part, earlier or, for a new version of a stored
        document, with its last part, so that the old version stays searchable until then."""
        replaced: list[str] = []
        with self.transaction() as db:
            existing = self._existing([s.doc.doc_id for s in staged], db)
            for doc_id in existing:  # replacements: the old passages go once the new ones are live
                replaced += [
                    r[0]
                    for r in db.execute("SELECT chunk_id FROM chunks WHERE doc_id = ? AND status = 'live'", (doc_id,))
                ]
                db.execute("UPDATE chunks SET status = 'deleting' WHERE doc_id = ? AND status = 'live'", (doc_id,))
                # The old version's sections (every section has a passage; the new ones have other ids).
                db.execute(
                    "DELETE FROM sections WHERE section_id IN "
                    "(SELECT section_id FROM chunks WHERE doc_id = ? AND status = 'deleting')",
                    (doc_id,),
                )
            db.executemany(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending') "
                "ON CONFLICT(doc_id) DO UPDATE SET title = excluded.title, source = excluded.source, "
                "path = excluded.path, date = excluded.date, source_tier = excluded.source_tier, "
                "metadata = excluded.metadata, pages = excluded.pages, "
                "content_hash = excluded.content_hash, text = excluded.text, status = 'pending'",
                [
                    (
                        d.doc_id,
                        d.title,
                        d.source,
                        d.path,
                        d.date,
                        d.source_tier,
                        json.dumps(d.metadata),
                        json.dumps(d.pages) if d.pages else None,
                        d.content_hash,
                        d.text,
                    )
                    for d in (s.doc for s in staged)
                ],
            )
            db.executemany(
                "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (x.section_id, x.doc_id, x.idx, x.start, x.end, x.n_tokens)
                    for x in [x for s in staged for x in s.sections] + list(sections)
                ],
            )
            db.executemany(
                "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 'pending')",
                [
                    (
                        c.chunk_id,
                        c.doc_id,
                        c.section_id,
                        c.idx,
                        c.start,
                        c.end,
                        c.page,
                        c.n_tokens,
                        c.text,
                        c.fd_raw,
                        c.date_int,
                        c.source_tier,
                        c.embedding.astype(np.float32).tobytes(),
                    )
                    for c in [c for s in staged for c in s.chunks] + list(more)
                ],
            )
        return replaced

    @staticmethod
    def _existing(doc_ids: Sequence[str], db: sqlite3.Connection) -> list[str]:
        out: list[str] = []
        for i in range(0, len(doc_ids), 500):
            part = list(doc_ids[i : i + 500])
            marks = ",".join("?" * len(part))
            out += [r[0] for r in db.execute(f"SELECT doc_id FROM documents WHERE doc_id IN ({marks})", part)]
        return out

    def commit(self, doc_ids: Iterable[str]) -> None:
        ids = [(d,) for d in doc_ids]
        with self.transaction() as db:
            db.executemany("DELETE FROM chunks WHERE doc_id = ? AND status = 'deleting'", ids)
            db.executemany("UPDATE chunks SET status = 'live' WHERE doc_id = ? AND status = 'pending'", ids)
            db.executemany("UPDATE documents SET status = 'live' WHERE doc_id = ?", ids)
            self._bump(db)

    def mark_removed(self, doc_ids: Iterable[str]) -> list[str]:
        """Step 1 of a removal: the documents' passages become `deleting`. Returns their ids."""
        ids: list[str] = []
        with self.transaction() as db:
            for doc_id in doc_ids:
                ids += [r[0] for r in db.execute("SELECT chunk_id FROM chunks WHERE doc_id = ?", (doc_id,))]
                db.execute("UPDATE chunks SET status = 'deleting' WHERE doc_id = ?", (doc_id,))
                db.execute("UPDATE documents SET status = 'deleting' WHERE doc_id = ?", (doc_id,))
        return ids

    def unfinished_chunk_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT chunk_id FROM chunks WHERE status != 'live'")]

    def drop_unfinished(self) -> list[str]:
        """Delete every row an interrupted write left behind. Returns the paths of the documents that
        were pending (their files must be loaded again)."""
        with self.transaction() as db:
            # The vectors of passages written but never committed: the run that loads these files
            # again takes them instead of embedding the same text twice (a kill late in a large file).
            db.execute(
                "INSERT OR REPLACE INTO spare_embeddings SELECT chunk_id, text, embedding FROM chunks "
                "WHERE status = 'pending'"
            )
            paths = [r[0] for r in db.execute("SELECT DISTINCT path FROM documents WHERE status != 'live'")]
            doc_ids = [r[0] for r in db.execute("SELECT doc_id FROM documents WHERE status != 'live'")]
            db.execute("DELETE FROM chunks WHERE status != 'live'")
            for doc_id in doc_ids:
                db.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
                db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM documents WHERE status != 'live'")
            # The sections of a new version whose passages were still pending (its old version is kept).
            db.execute("DELETE FROM sections WHERE section_id NOT IN (SELECT section_id FROM chunks)")
            for p in paths:  # make sure the next ingest reloads these files instead of skipping them
                db.execute("DELETE FROM sources WHERE path = ?", (p,))
            if doc_ids:
                self._bump(db)
        return paths

    def spare_embeddings(self) -> dict[str, tuple[str, np.ndarray]]:
        """chunk id → (text, vector) of the passages an interrupted run had embedded (drop_unfinished)."""
        rows = self.db.execute("SELECT chunk_id, text, embedding FROM spare_embeddings")
        return {r[0]: (r[1], np.frombuffer(r[2], dtype=np.float32)) for r in rows}

    def clear_spare_embeddings(self) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM spare_embeddings")

    def drop_documents(self, doc_ids: Iterable[str]) -> None:
        """Delete documents (and their rows) outright, e.g. ones Chroma lost."""
        with self.transaction() as db:
            for doc_id in doc_ids:
                path = db.execute("SELECT path FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
                db.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
                db.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
                db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
                if path:
                    db.execute("DELETE FROM sources WHERE path = ?", (path[0],))
            self._bump(db)

    # -- reads for the indexes and the retriever ----------------------------------------------
    def live_chunk_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT chunk_id FROM chunks WHERE status = 'live' ORDER BY rowid")]

    def live_texts(self) -> Iterator[str]:
        """The text of every live passage (for a corpus-wide scan), one at a time."""
        for (text,) in self.db.execute("SELECT text FROM chunks WHERE status = 'live'"):
            yield text

    def chunk_doc_ids(self, chunk_ids: Iterable[str]) -> set[str]:
        out = set()
        for cid in chunk_ids:
            r = self.db.execute("SELECT doc_id FROM chunks WHERE chunk_id = ?", (cid,)).fetchone()
            if r:
                out.add(r[0])
        return out

    def index_table(self) -> dict[str, Any]:
        """Everything the in-memory index needs, in one pass over the live passages."""
        rows = self.db.execute(
            "SELECT c.chunk_id, c.doc_id, c.text, c.n_tokens, c.fd_raw, c.date_int, c.source_tier, c.embedding, "
            "d.title, CASE WHEN d.source = d.path THEN d.source ELSE '' END "
            "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id WHERE c.status = 'live' ORDER BY c.rowid"
        ).fetchall()
        dim = len(rows[0][7]) // 4 if rows else 0
        emb = (
            np.frombuffer(b"".join(r[7] for r in rows), dtype=np.float32).reshape(len(rows), dim)
            if rows
            else np.zeros((0, 0), dtype=np.float32)
        )
        return {
            "chunk_ids": [r[0] for r in rows],
            "doc_ids": [r[1] for r in rows],
            "texts": [r[2] for r in rows],
            "n_tokens": np.array([r[3] for r in rows], dtype=np.int32),
            "fd_raw": np.array([r[4] for r in rows], dtype=np.float64),
            "date_int": np.array([r[5] for r in rows], dtype=np.int64),
            "tiers": [r[6] for r in rows],
            "embeddings": emb,
            "titles": [r[8] for r in rows],
            "files": [r[9] for r in rows],  # the file a passage comes from ('' for a JSONL record)
        }

    def chunk_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(f"SELECT chunk_id, embedding FROM chunks WHERE chunk_id IN ({marks})", list(chunk_ids))
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in rows}

    def set_fd_star(self, chunk_ids: Sequence[str], values: np.ndarray) -> None:
        with self.transaction() as db:
            db.executemany(
                "UPDATE chunks SET fd_star = ? WHERE chunk_id = ?",
                [(float(v), cid) for cid, v in zip(chunk_ids, values, strict=True)],
            )

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, sqlite3.Row]:
        # "+c.status" keeps SQLite on the primary key: with the status index it would scan every
        # live passage (29 ms instead of 0.3 ms at 26k passages).
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        rows = self.db.execute(
            'SELECT c.chunk_id, c.doc_id, c.section_id, c.start, c."end", c.page, c.n_tokens, c.text, '
            "c.fd_raw, c.fd_star, c.source_tier, d.title, d.date, d.source, d.metadata, "
            's.start AS section_start, s."end" AS section_end '
            "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
            "LEFT JOIN sections s ON s.section_id = c.section_id "
            f"WHERE c.chunk_id IN ({marks}) AND +c.status = 'live'",
            list(chunk_ids),
        ).fetchall()
        return {r["chunk_id"]: r for r in rows}

    def get_section_text(self, section_id: str) -> tuple[str, int, int] | None:
        r = self.db.execute(
            'SELECT substr(d.text, s.start + 1, s."end" - s.start), s.start, s."end" FROM sections s '
            "JOIN documents d ON d.doc_id = s.doc_id WHERE s.section_id = ?",
            (section_id,),
        ).fetchone()
        return (r[0], r[1], r[2]) if r else None
