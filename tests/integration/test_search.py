"""Hybrid search end to end on a small corpus: provenance, filters, recency, both BM25 backends, the
CLI's JSON, and a real Chroma server on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typing_extensions import TypedDict

from citegraph.ingest.pipeline import ingest
from citegraph.retrievers.hybrid import HybridRetriever
from citegraph.settings import RetrievalSettings
from conftest import run_cli


@pytest.fixture()
def corpus(doc_folder: Path, tmp_path: Path, embedder) -> Path:
    c = tmp_path / "corpus"
    ingest([doc_folder], c, embedder=embedder)
    return c


def test_results_carry_provenance(corpus: Path, doc_folder: Path, embedder):
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        res = r.search("How tall is Mount Etna?")
    top = res.results[0]
    assert "3,357 metres" in top.text
    source_text = (doc_folder / "volcano.txt").read_text()
    assert source_text[top.span[0] : top.span[1]] == top.text  # the span points at the exact text
    assert top.rank == 1 and top.title and top.section_id.startswith(top.doc_id)
    assert {"relevance", "cosine", "final", "bm25", "dense_rank", "sparse_rank"} <= set(top.scores)
    assert [e.rank for e in res.results] == list(range(1, len(res.results) + 1))
    finals = [e.scores["final"] for e in res.results]
    assert finals == sorted(finals, reverse=True)


def test_date_and_metadata_filters(corpus: Path, embedder):
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        q = "water treatment plant litres per day"
        all_docs = {e.title for e in r.search(q).results}
        assert {"Ottawa water report", "Ottawa water update"} <= all_docs
        since = r.search(q, since=date(2020, 1, 1)).results
        assert since and all(e.date and e.date >= "2020-01-01" for e in since)
        until = r.search(q, until=date(2019, 12, 31)).results
        assert until and all(e.date and e.date <= "2019-12-31" for e in until)  # undated ones excluded
        north = r.search(q, where={"region": "north"}).results
        assert {e.title for e in north} == {"Ottawa water report", "Ottawa water update"}


def test_recency_reorders_by_as_of(corpus: Path, embedder):
    q = "Britannia plant litres per day"
    s = RetrievalSettings(temporal_weight=0.9)
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        late = [e.title for e in r.search(q, settings=s, as_of=date(2021, 7, 1)).results if "Ottawa" in e.title]
        off = [e.title for e in r.search(q, settings=s.with_(temporal_weight=0.0)).results if "Ottawa" in e.title]
    # Without the temporal weight the report, which states the figure asked about, ranks first; with
    # it, as of mid-2021, the update dated 2021 moves above it.
    assert off[0] == "Ottawa water report" and late[0] == "Ottawa water update"


def test_both_bm25_backends_rank_alike(corpus: Path, embedder):
    queries = ["honeybee colonies lost", "Etna eruption lava", "water budget dollars"]
    with (
        HybridRetriever.open(corpus, embedder=embedder) as a,
        HybridRetriever.open(corpus, embedder=embedder, sparse_backend="rank-bm25") as b,
    ):
        assert a.index.sparse.backend == "bm25s" and b.index.sparse.backend == "rank-bm25"
        for q in queries:
            ra = [(e.chunk_id, round(e.scores["bm25"], 4)) for e in a.search(q, mode="sparse").results]
            rb = [(e.chunk_id, round(e.scores["bm25"], 4)) for e in b.search(q, mode="sparse").results]
            assert [c for c, _ in ra] == [c for c, _ in rb]


def test_ingest_with_rank_bm25_backend(doc_folder: Path, tmp_path: Path, embedder):
    c = tmp_path / "c2"
    ingest([doc_folder], c, embedder=embedder, sparse="rank-bm25")
    assert json.loads((c / "index" / "sparse" / "backend.json").read_text())["backend"] == "rank-bm25"
    with HybridRetriever.open(c, embedder=embedder) as r:
        assert r.index.sparse.backend == "rank-bm25"
        assert "45 percent" in r.search("percentage of bee colonies lost").results[0].text


def test_cli_search_json(corpus: Path):
    proc = run_cli("search", "How tall is Mount Etna?", "--corpus", str(corpus), "--json", "--top", "3")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["query"] == "How tall is Mount Etna?"
    first = out["results"][0]
    assert {"chunk_id", "doc_id", "title", "date", "text", "span", "scores", "rank"} <= set(first)
    assert len(out["results"]) <= 3 and first["rank"] == 1
    bad = run_cli("search", "x", "--corpus", str(corpus), "--since", "someday")
    assert bad.returncode == 2 and "--since" in bad.stderr
    from citegraph.cli import _parse_where
    from citegraph.errors import InputError

    for where in ("path=[1,2]", "path=null", "=x"):  # refused with a message (exit 2, as --since above)
        with pytest.raises(InputError, match="--where"):
            _parse_where([where])
    assert _parse_where(["year=2020", "tier=primary"]) == {"year": 2020, "tier": "primary"}
    missing = run_cli("search", "x", "--corpus", str(corpus.parent / "nope"))
    assert missing.returncode == 2 and "not a citegraph corpus" in missing.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def chroma_server(tmp_path: Path):
    port = _free_port()
    exe = Path(sys.executable).parent / "chroma"
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma run did not start")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=30)


def test_server_mode(doc_folder: Path, tmp_path: Path, embedder, chroma_server: str):
    c = tmp_path / "served"
    r1 = ingest([doc_folder], c, embedder=embedder, chroma_url=chroma_server)
    assert r1.ok and r1.documents_added == 4
    assert not (c / "chroma").exists()  # the vectors live in the server
    manifest = json.loads((c / "manifest.json").read_text())
    assert manifest["chroma"]["url"] == chroma_server
    with HybridRetriever.open(c, embedder=embedder) as r:  # the corpus remembers its server
        assert r.corpus.dense.count() == r1.passages_total
        assert "3,357" in r.search("How tall is Mount Etna?").results[0].text
    r2 = ingest([doc_folder], c, embedder=embedder)
    assert r2.passages_added == 0


def test_a_filter_that_matches_nothing_returns_nothing(corpus: Path, embedder):
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        res = r.search("water treatment", since=date(2090, 1, 1))
    assert res.results == [] and res.notes == ["no passage matched"]


def test_the_dense_store_ranks_every_passage_exactly_and_sees_new_ones(tmp_path: Path):
    """Chroma's HNSW graph is approximate; up to EXACT_SEARCH_MAX passages the store ranks all of them, so
    the nearest k are the nearest k (checked against brute force), date filters still apply, and passages
    added later, by this store or another process's, are found."""
    import numpy as np

    from citegraph.store.chroma import EMBEDDED_COLLECTION, DenseStore, open_client

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(20, 48))
    vectors = (centres[rng.integers(0, 20, 3000)] + 0.3 * rng.normal(size=(3000, 48))).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"p{i}" for i in range(len(vectors))]
    store = DenseStore(open_client(tmp_path, None), EMBEDDED_COLLECTION)
    store.add(ids, vectors, [{"date": 20200101 + i % 2} for i in range(len(ids))])
    for q in rng.normal(size=(10, 48)).astype(np.float32):
        q /= np.linalg.norm(q)
        exact = [ids[i] for i in np.argsort(-(vectors @ q))[:50]]
        got = store.query(q, 50)
        assert [cid for cid, _ in got] == exact
        assert np.allclose([s for _, s in got], np.sort(vectors @ q)[::-1][:50], atol=1e-5)
        odd = store.query(q, 50, where={"date": {"$gte": 20200102}})
        assert [cid for cid, _ in odd] == [c for c in (ids[i] for i in np.argsort(-(vectors @ q))) if int(c[1:]) % 2][
            :50
        ]
    q = rng.normal(size=48).astype(np.float32)
    store.add(["new"], q[None, :], [{"date": 20240101}])
    assert store.query(q, 1)[0][0] == "new"
    other = DenseStore(open_client(tmp_path, None), EMBEDDED_COLLECTION)  # another writer, same folder
    other.add(["newer"], (2 * q)[None, :], [{"date": 20240102}])
    assert {cid for cid, _ in store.query(q, 2)} == {"new", "newer"}
    assert DenseStore(open_client(tmp_path, None), EMBEDDED_COLLECTION, exact_up_to=0).query(q, 2)  # HNSW still answers


def _metadata(name: str, version: str, python: str) -> str:
    classifiers = "".join(f"Classifier: Programming Language :: Python :: 3.{n}\n" for n in range(6, 13))
    return (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: A package\n"
        + "".join(f"Project-URL: Page{n}, https://example.org/{name}/{n}\n" for n in range(8))
        + classifiers * 2
        + f"Requires-Python: >={python}\n"
        + "".join(f"Requires-Dist: dep{n}; extra == 'docs'\n" for n in range(12))
    )


def test_a_passage_is_found_by_the_document_it_belongs_to(tmp_path: Path, embedder):
    """A METADATA file's Requires-Python line sits hundreds of characters below its Name line, in
    another passage: BM25 sees each passage headed by its document's title and file name, so the
    question's package finds its own line, not another package's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alpha-1.0.METADATA.txt").write_text(_metadata("alpha", "1.0", "3.7"))
    (docs / "omega-2.0.METADATA.txt").write_text(_metadata("omega", "2.0", "3.9"))
    corpus = tmp_path / "corpus"
    ingest([docs], corpus, embedder=embedder)
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        for name, python in (("alpha", "3.7"), ("omega", "3.9")):
            hits = r.search(f"Which Python does {name} require?", mode="sparse").results
            line = next(e for e in hits if "Requires-Python" in e.text)
            assert f">={python}" in line.text and line.rank <= 2
            assert "Name:" not in line.text  # the line's own passage, not the one naming the package


def test_the_langchain_retriever_returns_passages_with_their_provenance(corpus: Path, doc_folder: Path):
    import asyncio

    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    from citegraph.langchain import CitegraphRetriever

    retriever = CitegraphRetriever(corpus_dir=str(corpus), k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("How tall is Mount Etna?")
    assert 0 < len(docs) <= 3 and all(isinstance(d, Document) for d in docs)
    top = docs[0]
    assert "3,357 metres" in top.page_content and top.metadata["title"]
    a, z = top.metadata["span"]
    assert (doc_folder / "volcano.txt").read_text()[a:z] == top.page_content
    assert top.metadata["rank"] == 1 and "final" in top.metadata["scores"] and top.id == top.metadata["chunk_id"]
    # The same filters as `citegraph search`, sync and async alike.
    north = CitegraphRetriever(corpus_dir=str(corpus), where={"region": "north"}, since="2020")
    got = asyncio.run(north.ainvoke("water treatment plant litres per day"))
    assert got and {d.metadata["title"] for d in got} == {"Ottawa water update"}
    assert all(d.metadata["date"] >= "2020" for d in got)
    # Mistakes are refused where they are made, by name.
    with pytest.raises(ValueError, match="is not a citegraph corpus"):
        CitegraphRetriever(corpus_dir=str(corpus.parent / "nowhere"))
    with pytest.raises(ValueError, match="since: 'last week' is not a date"):
        CitegraphRetriever(corpus_dir=str(corpus), since="last week")


def test_citegraph_as_a_tool_of_another_agent(corpus: Path):
    import asyncio

    from langchain_core.messages import ToolMessage

    from citegraph.langchain import answer_tool

    tool = answer_tool(str(corpus))
    assert tool.name == "citegraph" and "question" in tool.args
    # A model's tool call, as an agent sends it, comes back as a ToolMessage: the rendered answer for
    # the model to read, the Answer record as its artifact.
    call = {"type": "tool_call", "id": "call-1", "name": "citegraph", "args": {"question": "How tall is Mount Etna?"}}
    msg = tool.invoke(call)
    assert isinstance(msg, ToolMessage) and msg.tool_call_id == "call-1"
    assert "3,357" in msg.content and "References" in msg.content
    assert msg.artifact.references and not msg.artifact.abstained
    # Async, and a question the documents do not answer: the model is told so, with the reason.
    out = asyncio.run(tool.ainvoke({"question": "What is the capital of France?"}))
    assert "does not hold enough evidence" in out
    with pytest.raises(ValueError, match="unknown setting"):
        answer_tool(str(corpus), jugde="lexical")


class Parent(TypedDict, total=False):
    """Another program's graph state: its own names for the question and the answer."""

    topic: str
    evidence: Any
    summary: str


class Shared(TypedDict, total=False):
    """A parent graph's state that uses citegraph's own names."""

    question: str
    answer: Any
    notes: str


def test_citegraph_as_a_node_of_a_parent_graph(corpus: Path):
    import asyncio

    from langgraph.graph import END, START, StateGraph

    from citegraph.langchain import answer_node
    from citegraph.schemas import Answer

    def summarise(state: Parent) -> dict:
        answer: Answer = state["evidence"]
        return {"summary": f"{len(answer.references)} sources: {answer.answer[:40]}"}

    parent = StateGraph(Parent)
    parent.add_node("research", answer_node(str(corpus), question_key="topic", answer_key="evidence"))
    parent.add_node("summarise", summarise)
    parent.add_edge(START, "research")
    parent.add_edge("research", "summarise")
    parent.add_edge("summarise", END)
    out = asyncio.run(parent.compile().ainvoke({"topic": "How tall is Mount Etna?"}))
    assert isinstance(out["evidence"], Answer) and "3,357" in out["evidence"].answer
    assert out["summary"].startswith(f"{len(out['evidence'].references)} sources")
    with pytest.raises(ValueError, match="state\\['topic'\\]"):
        asyncio.run(parent.compile().ainvoke({"summary": "no topic"}))
    # Or the compiled graph itself as the node, where the parent shares its keys and its context.
    from citegraph.api import make_context
    from citegraph.context import Context
    from citegraph.graph import graph

    shared = StateGraph(Shared, context_schema=Context)
    shared.add_node("citegraph", graph)
    shared.add_edge(START, "citegraph")
    shared.add_edge("citegraph", END)
    out = asyncio.run(
        shared.compile().ainvoke({"question": "How tall is Mount Etna?"}, context=make_context(corpus_dir=str(corpus)))
    )
    assert "3,357" in out["answer"].answer and out["answer"].references


RELEASE_1 = """Metadata-Version: 2.1
Name: demo-cli
Version: 1.4.0
Summary: A toolkit for command line interfaces
Classifier: Programming Language :: Python :: 2
Requires-Python: >=2.7

demo-cli is a Python package for writing command line interfaces with little code.
"""
RELEASE_2 = """Metadata-Version: 2.1
Name: demo-cli
Version: 2.0.1
Summary: A toolkit for command line interfaces
Classifier: Programming Language :: Python
Requires-Python: >=3.8

demo-cli is a Python package for writing command line interfaces with little code.
It supports nested commands, generated help pages and prompts.
"""


def test_a_search_kept_to_one_document_and_its_other_releases(tmp_path: Path, doc_folder: Path, embedder):
    (doc_folder / "demo_cli-1.4.0.METADATA.txt").write_text(RELEASE_1)
    (doc_folder / "demo_cli-2.0.1.METADATA.txt").write_text(RELEASE_2)
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        ids = {e.title: e.doc_id for e in r.search("demo-cli Requires-Python", top_m=20).results}
        old, new = ids["demo_cli-1.4.0.METADATA"], ids["demo_cli-2.0.1.METADATA"]
        assert r.releases(old) == [new] and r.releases(new) == [old]
        assert r.releases(ids["Ottawa water report"]) == []
        kept = r.search("Requires-Python: >=2.7", doc_ids={new}).results
        assert kept and {e.doc_id for e in kept} == {new} and "Requires-Python: >=3.8" in kept[0].text
        assert r.search("Mount Etna", doc_ids={new}, mode="sparse").results == []  # no word in common


def test_another_release_a_sub_query_found_lower_down_is_moved_up_beside_its_release(
    tmp_path: Path, doc_folder: Path, embedder
):
    """The pool reads down each sub-query's list only as far as its budget: Flask 1.1.4's Requires-Dist
    line, third in the list 3.0.3's line led, was never read. It now ranks just below its release."""
    from citegraph.api import make_context
    from citegraph.nodes.retrieve import RELEASES_OF_TOP, with_other_releases
    from citegraph.schemas import SubQuery

    (doc_folder / "demo_cli-1.4.0.METADATA.txt").write_text(RELEASE_1)
    (doc_folder / "demo_cli-2.0.1.METADATA.txt").write_text(RELEASE_2)
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    with HybridRetriever.open(corpus, embedder=embedder) as r:
        found = r.search("demo-cli Requires-Python", top_m=20).results
    new = next(e for e in found if e.title == "demo_cli-2.0.1.METADATA")
    old = next(e for e in found if e.title == "demo_cli-1.4.0.METADATA")
    others = [e for e in found if e.doc_id not in (new.doc_id, old.doc_id)][:3]

    def scored(e, final):
        return e.model_copy(update={"scores": {**e.scores, "final": final}})

    top = [scored(new, 1.0), *(scored(e, 0.9 - i / 10) for i, e in enumerate(others)), scored(old, 0.1)]
    assert len(top) > RELEASES_OF_TOP + 1
    sub_query = SubQuery(text="demo-cli requires", facet="requires")
    task = {"question": "Which Python versions does demo-cli need?", "mode": "corpus",
            "query_class": "precise_fact", "sub_query": sub_query}  # fmt: skip
    got = with_other_releases(make_context(corpus_dir=str(corpus)), task, top)
    ranked = sorted((e for e in got if e.release_of is None), key=lambda e: -e.scores["final"])
    assert [e.chunk_id for e in ranked[:2]] == [new.chunk_id, old.chunk_id]
    assert len({e.chunk_id for e in got}) == len(got)  # moved, not copied beside
