"""Ingestion against a real embedded Chroma: incremental, idempotent, crash-safe, consistent stores."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import InputError
from citegraph.ingest.pipeline import ingest, remove
from citegraph.retrievers import index as index_mod
from citegraph.store.corpus import Corpus, CorpusError
from conftest import run_cli


def store_ids(corpus_dir: Path, embedder) -> tuple[set[str], set[str], list[str]]:
    """(ledger live ids, Chroma ids, saved BM25 table ids) of a corpus."""
    with Corpus.open(corpus_dir, embedder.identity.as_dict()) as c:
        live = set(c.ledger.live_chunk_ids())
        chroma = c.dense.all_ids()
        assert c.ledger.unfinished_chunk_ids() == []
        saved = index_mod.load(c.index_dir)
        assert saved is not None and saved.generation == c.ledger.generation
        return live, chroma, saved.table.chunk_ids


def assert_consistent(corpus_dir: Path, embedder) -> set[str]:
    live, chroma, table = store_ids(corpus_dir, embedder)
    assert live == chroma == set(table)
    assert len(table) == len(set(table)), "no duplicate passage in the BM25 index"
    return live


def test_ingest_is_idempotent_and_incremental(doc_folder: Path, tmp_path: Path, embedder):
    corpus = tmp_path / "corpus"
    r1 = ingest([doc_folder], corpus, embedder=embedder)
    assert r1.ok and r1.documents_added == 4 and r1.passages_added >= 4
    ids1 = assert_consistent(corpus, embedder)

    r2 = ingest([doc_folder], corpus, embedder=embedder)
    assert (r2.documents_added, r2.documents_updated, r2.passages_added) == (0, 0, 0)
    assert r2.files_unchanged == 4 and r2.documents_unchanged == 4
    assert assert_consistent(corpus, embedder) == ids1

    # Touching a file without changing it re-reads it but re-embeds nothing.
    os.utime(doc_folder / "volcano.txt", None)
    r3 = ingest([doc_folder], corpus, embedder=embedder)
    assert r3.passages_added == 0 and r3.documents_unchanged == 4

    # A changed file replaces its passages in both stores.
    (doc_folder / "volcano.txt").write_text("Mount Etna stands 3,329 metres tall after the 2021 eruptions.\n")
    r4 = ingest([doc_folder], corpus, embedder=embedder)
    assert r4.documents_updated == 1 and r4.passages_removed >= 1
    ids4 = assert_consistent(corpus, embedder)
    assert ids4 != ids1 and len(ids4 - ids1) == r4.passages_added


def test_remove_and_prune(doc_folder: Path, tmp_path: Path, embedder):
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    r = remove([str(doc_folder / "bees.html")], corpus, embedder=embedder)
    assert r.documents_removed == 1
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert c.ledger.counts()["documents"] == 3
    assert_consistent(corpus, embedder)
    # Removing an unknown id is reported, not silently ignored.
    assert not remove(["no-such-doc"], corpus, embedder=embedder).ok

    (doc_folder / "volcano.txt").unlink()
    r = ingest([doc_folder], corpus, embedder=embedder, prune=True)
    # volcano.txt is gone from the folder: pruned; bees.html is still there: ingested again.
    assert (r.documents_removed, r.documents_added, r.documents_total) == (1, 1, 3)
    assert_consistent(corpus, embedder)


def test_jsonl_record_changes_are_tracked(tmp_path: Path, embedder):
    f = tmp_path / "c.jsonl"
    recs = [{"_id": f"d{i}", "title": f"T{i}", "text": f"Document {i} mentions the number {i * 11}."} for i in range(5)]
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    corpus = tmp_path / "corpus"
    ingest([f], corpus, embedder=embedder)
    recs[1]["text"] = "Document 1 now says something else entirely."
    del recs[3]
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    r = ingest([f], corpus, embedder=embedder)
    assert (r.documents_updated, r.documents_removed, r.documents_unchanged) == (1, 1, 3)
    assert_consistent(corpus, embedder)

    # A damaged line: the file is reported, nothing stored is lost.
    f.write_text(f.read_text() + "{broken\n")
    r = ingest([f], corpus, embedder=embedder)
    assert not r.ok and r.documents_total == 4 and r.documents_removed == 0


def test_skipped_files_do_not_stop_the_rest(tmp_path: Path, doc_folder: Path, embedder, capsys):
    (doc_folder / "empty.txt").write_text("")
    (doc_folder / "blob.txt").write_bytes(os.urandom(64) + b"\x00")
    corpus = tmp_path / "corpus"
    proc = run_cli("ingest", str(doc_folder), "--corpus", str(corpus), "--json")
    assert proc.returncode == 0, proc.stderr  # reported, but the rest was stored
    # stderr is not a terminal here: progress comes as lines a log can hold, from the start to the end.
    assert "loading: 6 file(s)" in proc.stderr and "embedding: done" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["documents_added"] == 4
    assert {Path(s["source"]).name: s["reason"] for s in report["skipped"]} == {
        "blob.txt": "binary or undecodable file (not text in any encoding found)",
        "empty.txt": "empty file",
    }
    # Reported again on the next run; --strict makes it fail, and so does storing nothing at all (the
    # CLI in-process: the embedder is loaded already).
    from citegraph.cli import main

    assert main(["ingest", str(doc_folder), "--corpus", str(corpus), "--strict", "--no-progress"]) == 1
    assert "SKIPPED 2" in capsys.readouterr().out
    only_bad = tmp_path / "bad"
    only_bad.mkdir()
    (only_bad / "empty.txt").write_text("")
    assert main(["ingest", str(only_bad), "--corpus", str(tmp_path / "c2"), "--no-progress"]) == 1


def test_settings_mismatches_are_refused(tmp_path: Path, doc_folder: Path, embedder):
    from citegraph.settings import ChunkingSettings

    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    with pytest.raises(CorpusError, match="chunked with"):
        ingest([doc_folder], corpus, embedder=embedder, chunking=ChunkingSettings(passage_tokens=100))
    # A corpus built with one embedder refuses queries from another.
    manifest = json.loads((corpus / "manifest.json").read_text())
    manifest["embedder"] = {"name": "other-model", "dim": 768, "fingerprint": "0123456789abcdef"}
    (corpus / "manifest.json").write_text(json.dumps(manifest))
    proc = run_cli("search", "water", "--corpus", str(corpus))
    assert proc.returncode == 2
    assert "was built with embedder 'other-model'" in proc.stderr and "all-MiniLM-L6-v2" in proc.stderr


def test_interrupted_write_is_completed_by_the_next_ingest(tmp_path: Path, doc_folder: Path, embedder):
    """A crash between the ledger's stage and commit (after Chroma got the vectors)."""
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    (doc_folder / "volcano.txt").write_text("Etna changed. It is now 3,320 metres tall.\n")
    (doc_folder / "new.txt").write_text("A brand new document about glaciers retreating 30 metres a year.\n")

    def crash_after_chroma(run):
        original = run.corpus.ledger.commit

        def boom(doc_ids):
            raise KeyboardInterrupt("killed")

        run.corpus.ledger.commit = boom  # type: ignore[method-assign]
        run._restore = original

    with pytest.raises(KeyboardInterrupt):
        ingest([doc_folder], corpus, embedder=embedder, on_start=crash_after_chroma)
    db = sqlite3.connect(corpus / "ledger.sqlite")
    assert db.execute("SELECT COUNT(*) FROM chunks WHERE status != 'live'").fetchone()[0] > 0
    db.close()

    r = ingest([doc_folder], corpus, embedder=embedder)
    assert r.recovered_documents == 2 and r.documents_total == 5
    assert_consistent(corpus, embedder)


def _live_count(db_path: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COUNT(*) FROM chunks WHERE status = 'live'").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("wait_for", [1, 60])
def test_sigkill_mid_ingest_leaves_a_corpus_the_next_ingest_completes(tmp_path: Path, embedder, wait_for):
    f = tmp_path / "many.jsonl"
    with f.open("w") as fh:
        for i in range(300):
            fh.write(
                json.dumps(
                    {
                        "_id": f"doc{i}",
                        "text": f"Record {i} reports {i * 3} units in district {i % 17}. "
                        f"The inspection on day {i} found {i % 5} faults.",
                    }
                )
                + "\n"
            )
    corpus = tmp_path / "corpus"
    exe = Path(sys.executable).parent / "citegraph"
    proc = subprocess.Popen(
        [str(exe), "ingest", str(f), "--corpus", str(corpus), "--batch", "20", "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and _live_count(corpus / "ledger.sqlite") < wait_for:
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    r = ingest([f], corpus, embedder=embedder)
    assert r.ok and r.documents_total == 300
    live = assert_consistent(corpus, embedder)
    assert len(live) == 300


def test_the_same_records_in_another_file_are_not_stored_twice(tmp_path: Path, embedder):
    recs = "".join(
        json.dumps({"_id": f"r{i}", "text": f"Record {i} says the tide was {i} metres."}) + "\n" for i in range(3)
    )
    (tmp_path / "a.jsonl").write_text(recs)
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "a.jsonl").write_text(recs)
    corpus = tmp_path / "c"
    first = ingest([tmp_path / "a.jsonl"], corpus, embedder=embedder)
    again = ingest([tmp_path / "copy" / "a.jsonl"], corpus, embedder=embedder)  # was: UNIQUE constraint failed
    assert first.documents_added == 3 and again.ok and again.passages_added == 0 and again.documents_unchanged == 3
    assert len(assert_consistent(corpus, embedder)) == 3


def test_an_id_that_another_file_holds_is_refused_unless_replace(tmp_path: Path, embedder):
    (tmp_path / "a.jsonl").write_text(json.dumps({"_id": "r1", "text": "The tide was 3 metres at noon."}) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps({"_id": "r1", "text": "The wind was 40 knots at dusk."}) + "\n")
    corpus = tmp_path / "c"
    ingest([tmp_path / "a.jsonl"], corpus, embedder=embedder)
    clash = ingest([tmp_path / "b.jsonl"], corpus, embedder=embedder)
    (why,) = clash.skipped
    assert not clash.ok and "already belongs to" in why.reason and "--replace" in why.reason
    assert clash.documents_updated == 0
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert "tide" in c.ledger.get_document("r1").text  # the first file's document is kept
    # Reported again on the next run (a file whose only record was skipped is not "ingested").
    assert not ingest([tmp_path / "b.jsonl"], corpus, embedder=embedder).ok
    replaced = ingest([tmp_path / "b.jsonl"], corpus, embedder=embedder, replace=True)
    assert replaced.ok and replaced.documents_updated == 1


def test_a_loader_upgrade_reads_every_file_again(tmp_path: Path, embedder):
    from citegraph.ingest.loaders import LOADERS_VERSION
    from citegraph.store.corpus import read_manifest, write_manifest

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "n.md").write_text("# Notes\n\n**Note**: keep it.\n")
    corpus = tmp_path / "c"
    ingest([tmp_path / "d"], corpus, embedder=embedder)
    m = read_manifest(corpus)
    assert m is not None and m.loaders == LOADERS_VERSION
    m.loaders = 0  # as if ingested by an older citegraph
    write_manifest(corpus, m)
    r = ingest([tmp_path / "d"], corpus, embedder=embedder)
    assert r.files_unchanged == 0 and r.documents_unchanged == 1  # read again, same text: not re-embedded
    assert read_manifest(corpus).loaders == LOADERS_VERSION


def test_bad_corpus_folders_and_leftovers(tmp_path: Path, doc_folder: Path, embedder, monkeypatch):
    from citegraph.store.corpus import CorpusError, lock_for_ingest

    # A regular file given as the corpus: a clear error (exit status 2), nothing written.
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("keep me")
    proc = run_cli("ingest", str(doc_folder), "--corpus", str(not_a_folder))
    assert proc.returncode == 2 and "is a file, not a corpus folder" in proc.stderr
    assert not_a_folder.read_text() == "keep me"
    # A second ingest is refused before it loads the embedder (which takes minutes on a busy machine).
    corpus = tmp_path / "corpus"
    held = lock_for_ingest(corpus)
    import citegraph.ingest.pipeline as pipeline

    def no_embedder():
        raise AssertionError("the embedder was loaded before the lock was tried")

    monkeypatch.setattr(pipeline, "get_embedder", no_embedder)
    with pytest.raises(CorpusError, match="another `citegraph ingest`"):
        ingest([doc_folder], corpus)
    held.close()
    monkeypatch.undo()
    # What a save killed half-way left beside the index is cleaned by the next save.
    ingest([doc_folder], corpus, embedder=embedder)
    stale = corpus / "index.tmp999999999"
    stale.mkdir()
    (doc_folder / "more.txt").write_text("A new file makes the index be saved again.\n")
    ingest([doc_folder], corpus, embedder=embedder)
    assert not stale.exists() and (corpus / "index").is_dir()


def test_links_that_lead_nowhere_or_loop_are_reported(tmp_path: Path, doc_folder: Path):
    from citegraph.ingest.loaders import discover

    (doc_folder / "gone.txt").symlink_to(tmp_path / "deleted.txt")
    (doc_folder / "again").symlink_to(doc_folder)
    files, problems, _ = discover([doc_folder])
    reasons = {Path(p.source).name: p.reason for p in problems}
    assert "broken symbolic link" in reasons["gone.txt"] and "loops back" in reasons["again"]
    assert files and all(f.parent == doc_folder for f in files)


def test_a_file_over_the_size_limit_is_skipped_with_the_reason(tmp_path: Path, doc_folder: Path, embedder):
    import gzip

    (doc_folder / "huge.txt").write_text("A line of a very large log file.\n" * 40_000)  # ~1.3 MB
    # 1.3 MB once inflated, a few KB on disk: the limit holds for what it holds.
    (doc_folder / "NEWS.gz").write_bytes(gzip.compress(b"A line of a very large changelog.\n" * 40_000))
    report = ingest([doc_folder], tmp_path / "c", embedder=embedder, max_file_mb=1.0)
    reasons = {Path(s.source).name: s.reason for s in report.skipped}
    assert "over the 1 MB limit" in reasons["huge.txt"] and "inflates to over the 1 MB limit" in reasons["NEWS.gz"]
    assert report.documents_added == len(list(doc_folder.iterdir())) - 2  # the rest is stored


def test_an_index_saved_by_an_older_release_is_rebuilt_and_saved_by_the_next_ingest(
    doc_folder: Path, tmp_path: Path, embedder, caplog
):
    """An index built another way (before BM25 saw titles, session 9) is not read as current: a
    reader rebuilds it in memory and says so; the next ingest, which changes nothing, saves it."""
    import json

    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    info_path = corpus / "index" / "index.json"
    info = json.loads(info_path.read_text())
    info_path.write_text(json.dumps({k: v for k, v in info.items() if k != "sparse_text"}))
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert not index_mod.is_current(c) and index_mod.load(c.index_dir) is None
        with caplog.at_level("WARNING", logger="citegraph.retrievers.index"):
            idx = index_mod.load_current(c)
        assert len(idx.table) == len(c.ledger.live_chunk_ids())
    assert "older citegraph" in caplog.text
    report = ingest([doc_folder], corpus, embedder=embedder)
    assert report.documents_added == 0 and json.loads(info_path.read_text())["sparse_text"] == index_mod.SPARSE_TEXT


def test_langchain_documents_ingest_like_files(tmp_path: Path, embedder):
    from langchain_core.documents import Document

    from citegraph.langchain import CitegraphRetriever, ingest_documents

    pages = [
        Document(
            page_content="The Quokka Valley dam holds 41 million cubic metres of water.",
            metadata={"source": "reports/dams.pdf", "page": 0, "date": "2021-03-04"},
        ),
        Document(
            page_content="The dam's spillway was rebuilt after the 2019 flood.",
            metadata={"source": "reports/dams.pdf", "page": 1},
        ),
        Document(page_content="Wombats produce cube-shaped droppings.", metadata={"source": "notes.txt"}),
    ]
    corpus = tmp_path / "c"
    first = ingest_documents(pages, corpus, embedder=embedder)
    assert first.documents_added == 3 and not first.skipped
    again = ingest_documents(pages, corpus, embedder=embedder)
    assert again.documents_added == 0 and again.documents_unchanged == 3  # idempotent, nothing re-embedded
    edited = [pages[0].model_copy(update={"page_content": pages[0].page_content.replace("41", "43")}), *pages[1:]]
    third = ingest_documents(edited, corpus, embedder=embedder)
    assert third.documents_updated == 1 and third.documents_added == 0
    docs = CitegraphRetriever(corpus_dir=str(corpus), k=3).invoke("How much water does the Quokka Valley dam hold?")
    top = docs[0]
    assert "43 million" in top.page_content and "41 million" not in " ".join(d.page_content for d in docs)
    a, z = top.metadata["span"]
    assert edited[0].page_content[a:z] == top.page_content  # the span is in the Document's text
    assert top.metadata["date"] == "2021-03-04" and top.metadata["title"] == "dams.pdf"
    # The loader's metadata is kept and filterable.
    page1 = CitegraphRetriever(corpus_dir=str(corpus), where={"page": 1}).invoke("dam spillway")
    assert page1 and all("spillway" in d.page_content for d in page1)
    # A bad date is reported, the rest stored; what is not a Document is refused by name.
    bad = Document(page_content="Text with a bad date.", metadata={"source": "x.txt", "date": "soon"})
    report = ingest_documents([bad], corpus, embedder=embedder)
    assert report.skipped and "unparseable date 'soon'" in report.skipped[0].reason
    with pytest.raises(InputError, match="takes LangChain Documents, got str"):
        ingest_documents(["just text"], corpus, embedder=embedder)


def test_a_record_moved_to_a_later_file_is_kept(tmp_path: Path, embedder):
    """A record that left a.jsonl for b.jsonl (read after it) is the same document in a new file: the
    removal of what vanished from a.jsonl must not take it."""
    d = tmp_path / "d"
    d.mkdir()
    rec = {k: json.dumps({"_id": k, "text": f"Record {k} says the tide was {n} metres."}) for n, k in enumerate("xyz")}
    (d / "a.jsonl").write_text(rec["x"] + "\n" + rec["y"] + "\n")
    (d / "b.jsonl").write_text(rec["z"] + "\n")
    corpus = tmp_path / "c"
    ingest([d], corpus, embedder=embedder)
    (d / "a.jsonl").write_text(rec["y"] + "\n")
    (d / "b.jsonl").write_text(rec["z"] + "\n" + rec["x"] + "\n")
    r = ingest([d], corpus, embedder=embedder)
    assert r.ok and r.documents_removed == 0 and r.documents_total == 3
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert c.ledger.get_document("x").path == str(d / "b.jsonl")
    assert len(assert_consistent(corpus, embedder)) == 3


def _long_report(n: int) -> str:
    return "\n\n".join(
        f"Section {i}. The survey of district {i} counted {i * 13 + 7} wells in {1950 + i}. "
        f"Inspectors found {i % 9} of them dry and {i % 4} polluted by the tannery upstream. "
        "The committee asked for a second survey before the council votes on the budget. " * 3
        for i in range(n)
    )


def _killed_at_stage(n: int, staged: list[tuple[int, int]]):
    """An on_start hook: the run is interrupted at its n-th ledger stage, after recording for each one
    (passages staged with their document's row, passages staged without it)."""

    def hook(run):
        stage = run.corpus.ledger.stage

        def counting(docs, more=(), sections=()):
            staged.append((len([c for d in docs for c in d.chunks]), len(more)))
            if len(staged) == n:
                raise KeyboardInterrupt("killed")
            return stage(docs, more, sections)

        run.corpus.ledger.stage = counting  # type: ignore[method-assign]

    return hook


def test_a_large_document_is_written_in_parts_and_a_kill_loses_no_embedding(tmp_path: Path, embedder):
    """A document larger than a batch is staged in parts and becomes visible only whole; a run killed
    between parts leaves nothing half-visible, and the next run embeds only what was not written."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "report.txt").write_text(_long_report(60))
    corpus = tmp_path / "c"
    batch = 8
    staged: list[tuple[int, int]] = []
    with pytest.raises(KeyboardInterrupt):
        ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=batch, on_start=_killed_at_stage(3, staged))
    assert [docs + more for docs, more in staged] == [batch, batch, batch]  # one document, in parts of a batch
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert c.ledger.live_chunk_ids() == [] and c.ledger.counts()["documents"] == 0  # nothing half-visible

    r = ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=batch)
    assert r.ok and r.recovered_documents == 1 and r.documents_added == 1
    assert r.passages_reused == 2 * batch and r.passages_added > 3 * batch
    live = assert_consistent(corpus, embedder)
    # The same passages and vectors as one clean run in a single batch.
    clean = tmp_path / "clean"
    ingest([tmp_path / "d"], clean, embedder=embedder)
    assert assert_consistent(clean, embedder) == live
    with Corpus.open(corpus, embedder.identity.as_dict()) as a, Corpus.open(clean, embedder.identity.as_dict()) as b:
        ids = sorted(live)
        va, vb = a.ledger.chunk_embeddings(ids), b.ledger.chunk_embeddings(ids)
        assert all(np.allclose(va[i], vb[i], atol=1e-6) for i in ids)
        assert a.ledger.spare_embeddings() == {}  # kept only until a run finishes


def test_progress_shows_within_one_large_file(tmp_path: Path, embedder, capsys, monkeypatch):
    from citegraph.ingest import pipeline

    monkeypatch.setattr(pipeline._LogProgress.__init__, "__defaults__", (0.0,))  # a line per update
    (tmp_path / "report.txt").write_text(_long_report(40))
    r = ingest([tmp_path / "report.txt"], tmp_path / "c", embedder=embedder, batch_passages=8, progress=True)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("embedding:")]
    counts = [int(m.group(1)) for x in lines if (m := re.search(r"([\d,]+) of ([\d,]+) passages", x))]
    assert r.passages_added > 16 and len(counts) >= r.passages_added // 8  # at least a line per batch
    assert counts == sorted(counts) and counts[-1] == r.passages_added


def test_a_large_document_being_updated_stays_searchable_until_its_new_version_is_whole(tmp_path: Path, embedder):
    """The new version of a document larger than a batch is staged in parts; the old one is searchable
    until the last part, and a kill before it leaves the old version whole (then the next run updates)."""
    (tmp_path / "d").mkdir()
    report = tmp_path / "d" / "report.txt"
    report.write_text(_long_report(60))
    corpus = tmp_path / "c"
    batch = 8
    ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=batch)
    before = assert_consistent(corpus, embedder)
    report.write_text(_long_report(60).replace("wells", "boreholes"))
    staged: list[tuple[int, int]] = []
    with pytest.raises(KeyboardInterrupt):
        ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=batch, on_start=_killed_at_stage(3, staged))
    # The first parts stage passages only (their document row is staged with the last part: the old one stands).
    assert [(0, batch), (0, batch)] == staged[:2]
    r = ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=batch)
    assert r.passages_reused == 2 * batch and r.documents_updated == 1
    after = assert_consistent(corpus, embedder)
    assert after.isdisjoint(before)
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        db = c.ledger.db
        (doc_id,) = {r[0] for r in db.execute("SELECT doc_id FROM documents")}
        assert "boreholes" in c.ledger.get_document(doc_id).text
        used = {r[0] for r in db.execute("SELECT DISTINCT section_id FROM chunks")}
        assert {r[0] for r in db.execute("SELECT section_id FROM sections")} == used  # no orphan section


def test_a_killed_update_leaves_the_old_version_whole(tmp_path: Path, embedder):
    (tmp_path / "d").mkdir()
    report = tmp_path / "d" / "report.txt"
    report.write_text(_long_report(60))
    corpus = tmp_path / "c"
    ingest([tmp_path / "d"], corpus, embedder=embedder, batch_passages=8)
    before = assert_consistent(corpus, embedder)
    report.write_text(_long_report(60).replace("wells", "boreholes"))
    exe = Path(sys.executable).parent / "citegraph"
    proc = subprocess.Popen(
        [str(exe), "ingest", str(tmp_path / "d"), "--corpus", str(corpus), "--batch", "8", "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 300
    db_path = corpus / "ledger.sqlite"
    while time.time() < deadline and proc.poll() is None:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            pending = db.execute("SELECT COUNT(*) FROM chunks WHERE status = 'pending'").fetchone()[0]
            live = {r[0] for r in db.execute("SELECT chunk_id FROM chunks WHERE status = 'live'")}
        finally:
            db.close()
        if pending >= 16:
            assert live == before, "the old version is searchable while the new one is written"
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the ingest finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert set(c.ledger.live_chunk_ids()) == before
        (doc_id,) = c.ledger.doc_ids_for_path(str(report))
        assert "boreholes" not in c.ledger.get_document(doc_id).text


def test_a_record_moved_and_edited_is_not_stuck(tmp_path: Path, embedder):
    """x leaves a.jsonl and comes back edited in b.jsonl: refused there while a.jsonl held it, so it is
    removed from a.jsonl, and the next run (b.jsonl had an error, so it is read again) adds it."""
    d = tmp_path / "d"
    d.mkdir()
    x_old = json.dumps({"_id": "x", "text": "Record x says the tide was 3 metres."})
    x_new = json.dumps({"_id": "x", "text": "Record x says the tide was 4 metres at noon."})
    y = json.dumps({"_id": "y", "text": "Record y says the wind was 40 knots."})
    (d / "a.jsonl").write_text(x_old + "\n" + y + "\n")
    corpus = tmp_path / "c"
    ingest([d], corpus, embedder=embedder)
    (d / "a.jsonl").write_text(y + "\n")
    (d / "b.jsonl").write_text(x_new + "\n")
    first = ingest([d], corpus, embedder=embedder)
    assert not first.ok and first.documents_removed == 1
    second = ingest([d], corpus, embedder=embedder)
    assert second.ok and second.documents_added == 1
    with Corpus.open(corpus, embedder.identity.as_dict()) as c:
        assert "4 metres" in c.ledger.get_document("x").text
    assert len(assert_consistent(corpus, embedder)) == 2
