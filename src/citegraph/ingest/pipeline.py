"""The indexing pipeline behind `citegraph ingest`: files → documents → sections and passages →
factual density and embeddings → ledger + Chroma → BM25 index. Idempotent, incremental, crash-safe.

- Unchanged files (same size and mtime) are not even read; unchanged documents (same content hash)
  are not re-embedded. Ingesting the same files twice changes nothing.
- A changed document replaces its passages in both stores; a JSONL record that disappeared from
  its file is removed; `remove` drops documents; `prune` drops documents whose file is gone.
- Writes follow the ledger's stage → Chroma → commit protocol (see store/ledger.py). The next run
  first removes whatever a killed run left half-written (and re-adds to Chroma any vector it lost),
  then loads those files again, so BM25 and Chroma always end up holding the same passage ids.
- A file that cannot be read is reported and skipped; what was already stored for it is kept.
- Documents are written as they are read, in batches of passages, so memory stays bounded whatever
  the corpus; a document larger than a batch is staged in parts and committed whole with its last
  part. A run killed midway keeps the vectors it had computed for the passages it had written
  (the ledger's spare embeddings), so the next run embeds only the rest.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.embed import Embedder, get_embedder
from citegraph.ingest.chunking import chunk_text, page_of
from citegraph.ingest.loaders import LOADERS_VERSION, LoadedFile, Skipped, SourceDoc, discover, load_file
from citegraph.retrievers import index as corpus_index
from citegraph.settings import ChunkingSettings
from citegraph.store.corpus import Corpus, lock_for_ingest, write_manifest
from citegraph.store.ledger import ChunkRow, DocRow, SectionRow, StagedDoc
from citegraph.text.claims import claims
from citegraph.text.dates import date_to_int, parse_date
from citegraph.text.density import fd_raw_spans
from citegraph.text.injection import passage_warning
from citegraph.text.sentences import document_sentences

log = logging.getLogger(__name__)

# Passages embedded and written per step: large enough to keep the encoder busy, small enough that
# a crash loses little work.
BATCH_PASSAGES = 512
# A file is read and chunked whole (its passages are then embedded and written in batches), so its size
# still bounds the memory an ingest needs. Larger files are skipped with the reason; split them, or
# raise the limit knowingly.
MAX_FILE_MB = 20.0


@dataclass
class IngestReport:
    corpus: str
    files: int = 0
    files_unchanged: int = 0
    documents_added: int = 0
    documents_updated: int = 0
    documents_unchanged: int = 0
    documents_removed: int = 0
    passages_added: int = 0
    passages_removed: int = 0
    # Passages whose vectors a killed run had computed: written without embedding them again.
    passages_reused: int = 0
    recovered_documents: int = 0
    restored_vectors: int = 0
    removed_orphans: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Documents holding text addressed to a model ("SYSTEM: …", "ignore previous instructions"): stored,
    # since they are what the file says, but flagged (text/injection.py).
    warnings: list[str] = field(default_factory=list)
    documents_total: int = 0
    passages_total: int = 0
    seconds: float = 0.0
    # Where the time went: loading and chunking, encoding, waiting for writes, rebuilding the index.
    phases_s: dict[str, float] = field(default_factory=dict)

    def add_time(self, phase: str, seconds: float) -> None:
        self.phases_s[phase] = round(self.phases_s.get(phase, 0.0) + seconds, 3)

    @property
    def ok(self) -> bool:
        return not self.skipped

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["skipped"] = [{"source": s.source, "reason": s.reason} for s in self.skipped]
        d["ok"] = self.ok
        return d


@dataclass
class _Work:
    doc: SourceDoc
    path: str
    rows: StagedDoc
    is_update: bool


@dataclass
class _Part:
    """Passages [lo, hi) of one document, written in one batch; its first part stages the document,
    its last commits it."""

    work: _Work
    lo: int
    hi: int

    @property
    def first(self) -> bool:
        return self.lo == 0

    @property
    def last(self) -> bool:
        return self.hi == len(self.work.rows.chunks)


@dataclass
class _Pass:
    """What one ingest run keeps track of: the ids seen so far (and where), how many documents each
    file still has to write, the file stats to record once they are, and the documents to remove
    (with the stats of the files to record once they are removed)."""

    seen: dict[str, str] = field(default_factory=dict)
    file_docs: dict[str, int] = field(default_factory=dict)
    file_stats: dict[str, tuple[int, int]] = field(default_factory=dict)
    to_remove: list[str] = field(default_factory=list)
    after_removal: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Documents this run found in a file and keeps (written, moved or unchanged): not removed with
    # what vanished from another file, since they moved there.
    kept: set[str] = field(default_factory=set)


def _doc_row(doc: SourceDoc, path: str) -> DocRow:
    return DocRow(
        doc_id=doc.doc_id,
        title=doc.title,
        source=doc.source,
        path=path,
        date=doc.date,
        source_tier=doc.source_tier,
        metadata=doc.metadata,
        pages=doc.pages,
        content_hash=doc.content_hash,
        text=doc.text,
    )


def chunk_documents(docs: Sequence[SourceDoc], embedder: Embedder, settings: ChunkingSettings) -> list[StagedDoc]:
    """Sections and passages (without embeddings yet) for each document."""
    out = []
    for doc, starts in zip(docs, embedder.token_starts([d.text for d in docs]), strict=True):
        sents = document_sentences(doc.text)
        sections, passages = chunk_text(doc.text, starts, settings, sents)
        densities = fd_raw_spans(claims(doc.text, sents=sents), [(p.start, p.end, p.n_tokens) for p in passages])
        version = doc.content_hash[:8]
        date_int = ranking_date(doc.date, doc.metadata)
        sec_rows = [
            SectionRow(f"{doc.doc_id}:{version}:s{s.index}", doc.doc_id, s.index, s.start, s.end, s.n_tokens)
            for s in sections
        ]
        chunk_rows = []
        for p, density in zip(passages, densities, strict=True):
            text = doc.text[p.start : p.end]
            chunk_rows.append(
                ChunkRow(
                    chunk_id=f"{doc.doc_id}:{version}:{p.index}",
                    doc_id=doc.doc_id,
                    section_id=sec_rows[p.section].section_id,
                    idx=p.index,
                    start=p.start,
                    end=p.end,
                    page=page_of(p.start, doc.pages),
                    n_tokens=p.n_tokens,
                    text=text,
                    fd_raw=density,
                    date_int=date_int,
                    source_tier=doc.source_tier,
                    embedding=np.zeros(0, dtype=np.float32),
                )
            )
        out.append(StagedDoc(_doc_row(doc, ""), sec_rows, chunk_rows))
    return out


def ranking_date(iso: str | None, metadata: dict[str, Any]) -> int:
    """The date (YYYYMMDD) recency ranking and date filters use: none for a document dated only by
    its file's metadata (when the file was made says nothing of what it describes; loaders.py)."""
    if metadata.get("date_source") == "file metadata":
        return 0
    return date_to_int(parse_date(iso))


def chroma_metadata(doc_id: str, date_int: int, tier: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """What Chroma filters on: the document, its date (YYYYMMDD, a number: Chroma's range filters
    compare numbers only), its tier and its scalar metadata (prefixed m_)."""
    meta: dict[str, Any] = {"doc_id": doc_id, "date": date_int, "tier": tier}
    for k, v in metadata.items():
        if isinstance(v, bool | int | float | str) and v != "":
            meta[f"m_{k}"] = v
    return meta


def restored_metadata(row: Any) -> dict[str, Any]:
    """Chroma metadata rebuilt from a ledger row (to restore a vector Chroma lost)."""
    metadata = json.loads(row["metadata"])
    return chroma_metadata(row["doc_id"], ranking_date(row["date"], metadata), row["source_tier"], metadata)


class Ingestor:
    """One ingest run against an open corpus."""

    def __init__(
        self,
        corpus: Corpus,
        embedder: Embedder,
        chunking: ChunkingSettings,
        progress: bool,
        batch_passages: int = BATCH_PASSAGES,
        max_file_mb: float = MAX_FILE_MB,
    ):
        self.batch_passages = max(1, batch_passages)
        self.max_bytes = int(max_file_mb * 1024 * 1024)
        self.corpus = corpus
        self.embedder = embedder
        self.chunking = chunking
        self.progress = progress
        self.report = IngestReport(corpus=str(corpus.dir))

    # -- recovery -----------------------------------------------------------------------------
    def recover(self) -> None:
        """Finish what an interrupted run left: drop half-written rows from Chroma and the ledger,
        delete vectors the ledger does not know, restore vectors Chroma lost."""
        ledger, dense = self.corpus.ledger, self.corpus.dense
        unfinished = ledger.unfinished_chunk_ids()
        if unfinished:
            dense.delete(unfinished)
        paths = ledger.drop_unfinished()
        self.report.recovered_documents = len(paths)
        if paths:
            self.report.notes.append(f"completed an interrupted ingest ({len(paths)} file(s) to load again)")
        live = set(ledger.live_chunk_ids())
        stored = dense.all_ids()
        orphans = sorted(stored - live)
        if orphans:
            dense.delete(orphans)
            self.report.removed_orphans = len(orphans)
        missing = sorted(live - stored)
        if missing:
            rows = ledger.get_chunks(missing)
            vecs = ledger.chunk_embeddings(missing)
            metas = [restored_metadata(rows[c]) for c in missing]
            dense.upsert(missing, np.stack([vecs[c] for c in missing]), metas)
            self.report.restored_vectors = len(missing)

    # -- ingest -------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | Path],
        prune: bool = False,
        replace: bool = False,
        records: Sequence[LoadedFile] = (),
    ) -> None:
        """Load, chunk and write the files under `paths`, then `records`: documents that come from no
        file (LangChain loaders' output, citegraph.langchain), each group under its own source name."""
        files, problems, ignored = discover(paths)
        self.report.skipped += problems
        self.report.ignored += [str(p) for p in ignored]
        self.report.files = len(files)
        ledger = self.corpus.ledger
        run = _Pass()
        with _Writer(self, run) as writer:
            for f in self._bar(files, "loading", unit="file"):
                path = str(f)
                st = f.stat()
                stat = (st.st_size, st.st_mtime_ns)
                if ledger.source_stat(path) == stat and self.corpus.manifest.loaders == LOADERS_VERSION:
                    self.report.files_unchanged += 1
                    n = len(ledger.doc_ids_for_path(path))
                    self.report.documents_unchanged += n
                    for doc_id in ledger.doc_ids_for_path(path):
                        run.seen.setdefault(doc_id, path)
                        run.kept.add(doc_id)
                    continue
                if st.st_size > self.max_bytes:
                    size = st.st_size / 1024 / 1024
                    limit = self.max_bytes / 1024 / 1024
                    why = f"{size:.0f} MB, over the {limit:.0f} MB limit: split it, or pass --max-file-mb"
                    self.report.skipped.append(Skipped(path, why))
                    continue
                t = time.perf_counter()
                loaded = load_file(f, self.max_bytes)
                self.report.add_time("load_and_chunk", time.perf_counter() - t)
                writer.add(self._take(run, path, loaded, stat, replace))
            for group in records:
                # No file to stat: unchanged documents are told by their content hash, and a document
                # missing from a later call is kept (a caller may well ingest a source's documents in parts).
                writer.add(self._take(run, str(group.path), group, None, replace))
        pruned = []
        if prune:
            roots = [Path(p).expanduser().resolve() for p in paths]
            for src in ledger.source_paths():
                sp = Path(src)
                if not sp.exists() and any(sp.is_relative_to(r) for r in roots):
                    run.to_remove += ledger.doc_ids_for_path(src)
                    pruned.append(src)
        # A record that left one file for another read later this run is the same document, moved.
        gone = [d for d in run.to_remove if d not in run.kept]
        if gone:
            self.remove_docs(gone)
        for src in pruned:  # after the removal: a kill before it leaves the file to prune next time
            ledger.forget_source(src)
        # The files a killed run left unfinished were read again (recovery cleared their stats), so the
        # vectors kept for them were taken; any left are for files this run was not asked to read: dropped.
        ledger.clear_spare_embeddings()
        for path, stat in run.after_removal.items():
            ledger.record_source(path, *stat, len(ledger.doc_ids_for_path(path)))

    def _take(
        self, run: _Pass, path: str, loaded: LoadedFile, stat: tuple[int, int] | None, replace: bool
    ) -> list[_Work]:
        """What one file (or one group of records) brings: its new and changed documents chunked (to be
        written), its unchanged ones counted, the records gone from a file marked for removal."""
        ledger = self.corpus.ledger
        # Everything skipped in this file, its records' clashes too: a file with any is read (and
        # reported) again next time, never recorded as ingested.
        problems = list(loaded.skipped)
        self.report.notes += loaded.notes
        fresh: list[SourceDoc] = []
        for doc in loaded.docs:
            if doc.doc_id in run.seen:
                problems.append(
                    Skipped(doc.source, f"duplicate document id {doc.doc_id!r} (first in {run.seen[doc.doc_id]})")
                )
                continue
            run.seen[doc.doc_id] = path
            state = ledger.doc_state(doc.doc_id)
            if (
                state
                and state[1] == "live"
                and state[2] != path
                and state[0] != doc.content_hash
                and (Path(state[2]).exists() or stat is None)
                and not replace
            ):
                # Another file, still there, holds a different document under this id (two JSONL
                # files reusing "_id"s): replacing it silently would lose that document.
                problems.append(
                    Skipped(
                        doc.source,
                        f"document id {doc.doc_id!r} already belongs to {state[2]}; give the record another "
                        "id, or pass --replace to replace that document",
                    )
                )
                continue
            run.kept.add(doc.doc_id)
            if state and state[0] == doc.content_hash and state[1] == "live":
                if state[2] != path:  # moved or copied to another file: the text is stored already
                    ledger.move_document(doc.doc_id, path)
                self.report.documents_unchanged += 1
                continue
            fresh.append(doc)
            flagged = passage_warning(f"{doc.title}\n{doc.text}", doc.title, doc.source)
            if flagged:
                self.report.warnings.append(f"{path}: {flagged}")
        # Records that vanished from a file that loaded cleanly are removed; if some records were
        # unreadable we cannot tell a deleted record from a damaged one, so nothing is removed.
        vanished: list[str] = []
        if stat is not None and loaded.docs and not loaded.skipped:
            present = {d.doc_id for d in loaded.docs}
            vanished = [d for d in ledger.doc_ids_for_path(path) if d not in present]
            run.to_remove += vanished
        elif loaded.skipped and ledger.doc_ids_for_path(path):
            self.report.notes.append(f"{path}: kept the documents stored earlier (the file has errors)")
        t = time.perf_counter()
        staged = chunk_documents(fresh, self.embedder, self.chunking) if fresh else []
        self.report.add_time("load_and_chunk", time.perf_counter() - t)
        work = []
        for doc, rows in zip(fresh, staged, strict=True):
            rows.doc.path = path
            work.append(_Work(doc, path, rows, ledger.doc_state(doc.doc_id) is not None))
        run.file_docs[path] = run.file_docs.get(path, 0) + len(staged)
        self.report.skipped += problems
        if stat is None or problems:  # a file with errors is read again next time (and reported again)
            return work
        if vanished:
            run.after_removal[path] = stat  # recorded once its vanished records are removed
        elif staged:
            run.file_stats[path] = stat  # recorded once its last document is written
        else:
            ledger.record_source(path, *stat, len(loaded.docs))
        return work

    def remove_docs(self, doc_ids: Sequence[str]) -> int:
        ledger = self.corpus.ledger
        known = [d for d in doc_ids if ledger.doc_state(d) is not None]
        if not known:
            return 0
        ids = ledger.mark_removed(known)
        self.corpus.dense.delete(ids)
        ledger.drop_unfinished()
        self.report.documents_removed += len(known)
        self.report.passages_removed += len(ids)
        return len(known)

    def finish(self, started: float) -> IngestReport:
        t = time.perf_counter()
        if not corpus_index.is_current(self.corpus):
            corpus_index.rebuild(self.corpus)
        self.report.add_time("index", time.perf_counter() - t)
        counts = self.corpus.ledger.counts()
        self.report.documents_total = counts["documents"]
        self.report.passages_total = counts["chunks"]
        self.report.seconds = round(time.perf_counter() - started, 3)
        return self.report

    def _bar(self, it: Any, desc: str, unit: str, total: int | None = None) -> Any:
        if not self.progress:
            return it
        if not sys.stderr.isatty():  # a log file or CI: lines a log can hold, not a redrawn bar
            return _LogProgress(it, desc, unit, total)
        from tqdm import tqdm

        if it is None:
            return tqdm(total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True)
        return tqdm(it, desc=desc, unit=unit, leave=False, dynamic_ncols=True)


class _Writer:
    """Embeds and writes documents as they come, in batches of `batch_passages` passages: batch i+1
    is embedded while batch i is written (the writer thread, SQLite and Chroma, mostly waits on I/O
    and native code, so the encoder keeps the cores). Batches are written in order, one at a time,
    each with the stage → Chroma → commit protocol; a document larger than a batch is staged in parts
    and committed with its last one."""

    def __init__(self, ingestor: Ingestor, run: _Pass):
        self.ing, self.run = ingestor, run
        self.queue: list[_Part] = []  # parts not yet embedded, in order
        self.queued = 0
        self.pending: Future[None] | None = None
        self.bar: Any = None
        self.threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-write")
        # Vectors a killed run had computed and written for passages of documents it never committed.
        self.spares = ingestor.corpus.ledger.spare_embeddings()

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        try:
            if kind is None:
                self._flush(final=True)
                self._wait()
        finally:
            self.threads.shutdown(wait=True)
            if self.bar is not None:
                self.bar.close()

    def add(self, work: list[_Work]) -> None:
        n = 0
        for w in work:
            self.queue.append(_Part(w, 0, len(w.rows.chunks)))
            n += len(w.rows.chunks)
        self.queued += n
        if n and self.ing.progress:
            if self.bar is None:
                self.bar = self.ing._bar(None, "embedding", unit="passage", total=n)
            else:
                self.bar.total += n  # the total grows as files are read
        self._flush(final=False)

    def _flush(self, final: bool) -> None:
        while self.queue and (final or self.queued >= self.ing.batch_passages):
            self._write(self._next_batch())

    def _next_batch(self) -> list[_Part]:
        """The next `batch_passages` queued passages, as parts of the documents they belong to."""
        batch: list[_Part] = []
        room = self.ing.batch_passages
        while self.queue and (room > 0 or not batch):
            part = self.queue[0]
            take = min(room, part.hi - part.lo)
            if take < part.hi - part.lo:  # the document goes on in the next batch
                batch.append(_Part(part.work, part.lo, part.lo + take))
                part.lo += take
            else:
                batch.append(self.queue.pop(0))
            room -= take
            self.queued -= take
        return batch

    def _write(self, batch: list[_Part]) -> None:
        chunks = [c for p in batch for c in p.work.rows.chunks[p.lo : p.hi]]
        t = time.perf_counter()
        vecs = self._vectors([c.text for c in chunks], [c.chunk_id for c in chunks])
        self.ing.report.add_time("encode", time.perf_counter() - t)
        for c, v in zip(chunks, vecs, strict=True):
            c.embedding = v
        self._wait()  # re-raises a failed write before going on
        self.pending = self.threads.submit(self._write_batch, batch, vecs)

    def _vectors(self, texts: list[str], chunk_ids: list[str]) -> np.ndarray:
        vecs = np.zeros((len(texts), self.ing.embedder.identity.dim), dtype=np.float32)
        todo = []
        for i, (text, cid) in enumerate(zip(texts, chunk_ids, strict=True)):
            spare = self.spares.pop(cid, None)
            if spare is not None and spare[0] == text:
                vecs[i] = spare[1]
            else:
                todo.append(i)
        done = self.bar.update if self.bar is not None else None
        if done is not None and len(todo) < len(texts):
            done(len(texts) - len(todo))
        if todo:
            vecs[todo] = self.ing.embedder.encode([texts[i] for i in todo], done=done)
        self.ing.report.passages_reused += len(texts) - len(todo)
        return vecs

    def _wait(self) -> None:
        t = time.perf_counter()
        if self.pending is not None:
            self.pending.result()
            self.pending = None
        self.ing.report.add_time("wait_for_writes", time.perf_counter() - t)

    def _write_batch(self, batch: list[_Part], vecs: np.ndarray) -> None:
        ledger, dense, report, run = self.ing.corpus.ledger, self.ing.corpus.dense, self.ing.report, self.run
        starting: list[StagedDoc] = []
        sections: list[SectionRow] = []
        more: list[ChunkRow] = []
        for p in batch:
            rows, chunks = p.work.rows, p.work.rows.chunks[p.lo : p.hi]
            if p.first and (p.last or not p.work.is_update):
                starting.append(StagedDoc(rows.doc, rows.sections, chunks))
            elif p.last:  # an update's last part: now the old version goes (until here it was searchable)
                starting.append(StagedDoc(rows.doc, [], chunks))
            else:
                sections += rows.sections if p.first else []
                more += chunks
        replaced = ledger.stage(starting, more, sections)  # 1. ledger: pending
        dense.delete(replaced)  # 2. Chroma
        ids = [c.chunk_id for p in batch for c in p.work.rows.chunks[p.lo : p.hi]]
        if ids:
            metas = [
                chroma_metadata(c.doc_id, c.date_int, c.source_tier, p.work.doc.metadata)
                for p in batch
                for c in p.work.rows.chunks[p.lo : p.hi]
            ]
            dense.add(ids, vecs, metas)  # new ids: chunk ids carry a content hash
        done = [p.work for p in batch if p.last]
        ledger.commit([w.doc.doc_id for w in done])  # 3. ledger: live
        for w in done:
            if w.is_update:
                report.documents_updated += 1
            else:
                report.documents_added += 1
            run.file_docs[w.path] -= 1
            if run.file_docs[w.path] == 0 and w.path in run.file_stats:
                ledger.record_source(w.path, *run.file_stats[w.path], len(ledger.doc_ids_for_path(w.path)))
        report.passages_added += len(ids)
        report.passages_removed += len(replaced)


class _LogProgress:
    """Progress where stderr is not a terminal (a 12-minute ingest into a log printed nothing until the
    end): a line when it starts, then at most one every `every` seconds, and one at the end."""

    def __init__(self, it: Any, desc: str, unit: str, total: int | None, every: float = 10.0):
        self.it, self.desc, self.unit, self.every = it, desc, unit, every
        self.total = total if total is not None else (len(it) if hasattr(it, "__len__") else None)
        self.n, self.started = 0, time.monotonic()
        self.last = self.started
        self._line(f"{self.total:,} {unit}(s)" if self.total is not None else "started")

    def _line(self, what: str) -> None:
        print(f"{self.desc}: {what} ({time.monotonic() - self.started:.0f} s)", file=sys.stderr, flush=True)

    def __iter__(self) -> Any:
        for x in self.it:
            yield x
            self.update(1)
        self.close()

    def update(self, n: int) -> None:
        self.n += n
        if time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            share = f" ({100 * self.n / self.total:.0f} %)" if self.total else ""
            self._line(f"{self.n:,} of {self.total:,} {self.unit}s{share}" if self.total else f"{self.n:,}")

    def close(self) -> None:
        self._line(f"done, {self.n:,} {self.unit}(s)")


def _open(
    corpus_dir: str | Path,
    chunking: ChunkingSettings,
    sparse: str | None,
    chroma_url: str | None,
    embedder: Embedder | None,
    stem: bool,
) -> tuple[Corpus, Embedder]:
    lock = lock_for_ingest(corpus_dir)  # a second ingest is refused before the embedder loads
    try:
        emb = embedder or get_embedder()
        corpus = Corpus.open_for_ingest(
            corpus_dir, emb.identity.as_dict(), chunking, sparse, chroma_url, stem=stem, lock=lock
        )
    except BaseException:
        lock.close()
        raise
    return corpus, emb


def ingest(
    paths: Iterable[str | Path],
    corpus_dir: str | Path,
    *,
    chunking: ChunkingSettings | None = None,
    sparse: str | None = None,
    chroma_url: str | None = None,
    embedder: Embedder | None = None,
    prune: bool = False,
    replace: bool = False,
    progress: bool = False,
    stem: bool = True,
    batch_passages: int = BATCH_PASSAGES,
    max_file_mb: float = MAX_FILE_MB,
    on_start: Callable[[Ingestor], None] | None = None,
    records: Sequence[LoadedFile] = (),
) -> IngestReport:
    """Ingest files and folders into a corpus folder (created if needed). See the module docstring.
    `records` are documents from no file, in groups named by their source (citegraph.langchain)."""
    started = time.perf_counter()
    corpus, emb = _open(corpus_dir, chunking or ChunkingSettings(), sparse, chroma_url, embedder, stem)
    with corpus:
        run = Ingestor(corpus, emb, chunking or ChunkingSettings(), progress, batch_passages, max_file_mb)
        run.recover()
        if on_start:
            on_start(run)
        run.ingest(paths, prune=prune, replace=replace, records=records)
        if corpus.manifest.loaders != LOADERS_VERSION:
            corpus.manifest.loaders = LOADERS_VERSION
            write_manifest(corpus.dir, corpus.manifest)
        return run.finish(started)


def remove(
    targets: Iterable[str],
    corpus_dir: str | Path,
    *,
    chroma_url: str | None = None,
    embedder: Embedder | None = None,
) -> IngestReport:
    """Drop documents from a corpus, by document id or by source path (every document of a file)."""
    started = time.perf_counter()
    from citegraph.store.corpus import read_manifest

    m = read_manifest(Path(corpus_dir))
    if m is None:
        from citegraph.store.corpus import CorpusError

        raise CorpusError(f"{corpus_dir} is not a citegraph corpus (no manifest)")
    chunking = ChunkingSettings(**m.chunking)
    corpus, emb = _open(corpus_dir, chunking, None, chroma_url, embedder, bool(m.sparse.get("stem", True)))
    with corpus:
        run = Ingestor(corpus, emb, chunking, progress=False)
        run.recover()
        doc_ids: list[str] = []
        files: list[str] = []
        for t in targets:
            by_path = corpus.ledger.doc_ids_for_path(str(Path(t).expanduser().resolve()))
            if by_path:
                doc_ids += by_path
                files.append(str(Path(t).expanduser().resolve()))
            elif corpus.ledger.doc_state(t) is not None:
                doc_ids.append(t)
            else:
                run.report.skipped.append(Skipped(t, "no such document id or ingested path in this corpus"))
        run.remove_docs(doc_ids)
        for f in files:  # after the removal: a kill before it leaves the file's documents findable by path
            corpus.ledger.forget_source(f)
        return run.finish(started)
