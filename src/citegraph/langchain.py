"""citegraph inside LangChain programs: the hybrid retriever as a LangChain retriever, and the whole
graph as a tool another agent can call.

    from citegraph.langchain import CitegraphRetriever

    retriever = CitegraphRetriever(corpus_dir="my-corpus", k=5, since="2020-01-01")
    docs = retriever.invoke("How tall is Mount Etna?")      # or: await retriever.ainvoke(...)
    docs[0].page_content                                       # the passage, exactly as stored
    docs[0].metadata["doc_id"], docs[0].metadata["span"]      # where it sits in its document

It runs the same search as `citegraph search` (BM25 and dense fused, temporal and factual-density
rerank, adaptive cutoff, dedup) with the same filters, so a chain built on it cites what citegraph would.
A passage's `metadata["span"]` indexes the document's text as citegraph read it (for a plain-text
file, the file itself), and `page` is set for PDFs.

    from citegraph.langchain import answer_tool

    tool = answer_tool("my-corpus")                             # a StructuredTool named "citegraph"
    agent = create_react_agent(model, [tool])                   # or bind it: model.bind_tools([tool])

The model reads the rendered answer (every sentence cited, the reference list with exact quotes, the
conflicts, or the abstention and why); the `Answer` record is the tool message's `artifact`.

    from citegraph.langchain import ingest_documents

    ingest_documents(PyPDFLoader("manual.pdf").load(), "my-corpus")   # any loader's Documents

Documents ingest like files: a second call with the same documents changes nothing, a changed one
replaces its passages, a crash mid-way is completed by the next run. A citation points at a character
span of the Document's `page_content` as stored (a loader gives no offsets into its file), with the
loader's metadata (`source`, `page`, ...) kept beside it.

    from citegraph.langchain import answer_node

    parent = StateGraph(MyState)                                # any state with a question field
    parent.add_node("research", answer_node("my-corpus", question_key="topic", answer_key="evidence"))

A node of another graph: it reads the parent's `question_key`, runs citegraph with its own settings
(its own Context, so the parent's context schema does not matter) and writes the `Answer` to
`answer_key`. A parent whose state has citegraph's `question` and `answer` keys and whose
`context_schema` is `citegraph.context.Context` can mount the compiled graph itself instead:
`parent.add_node("citegraph", citegraph.graph.graph)`.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import StructuredTool
from pydantic import BaseModel, ConfigDict, Field, model_validator

from citegraph.api import aask, ask, make_context
from citegraph.errors import InputError
from citegraph.ingest.loaders import load_records
from citegraph.ingest.pipeline import IngestReport, ingest
from citegraph.retrievers.hybrid import shared_retriever
from citegraph.schemas import Answer, Evidence
from citegraph.settings import RetrievalSettings
from citegraph.store.corpus import require_corpus
from citegraph.text.dates import require_date


def to_document(e: Evidence) -> Document:
    """A retrieved passage as a LangChain Document: its text, and its provenance and scores."""
    return Document(
        page_content=e.text,
        id=e.chunk_id,
        metadata={
            "doc_id": e.doc_id,
            "chunk_id": e.chunk_id,
            "title": e.title,
            "date": e.date,
            "date_source": e.date_source,
            "source": e.source,
            "source_tier": e.source_tier,
            "span": list(e.span),
            "page": e.page,
            "locator": e.locator,
            "rank": e.rank,
            "scores": dict(e.scores),
        },
    )


class CitegraphRetriever(BaseRetriever):
    """citegraph's hybrid search over a corpus folder (made by `citegraph ingest`), as a LangChain
    retriever: `invoke(query)` returns the best passages as Documents, best first."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    corpus_dir: str = Field(description="A corpus folder made by `citegraph ingest`")
    k: int = Field(default=RetrievalSettings().top_m, ge=1, le=200, description="Passages to return at most")
    mode: Literal["hybrid", "dense", "sparse"] = Field(default="hybrid", description="Which retrievers run")
    since: str | None = Field(default=None, description="Only documents dated on or after (YYYY[-MM[-DD]])")
    until: str | None = Field(default=None, description="Only documents dated on or before")
    as_of: str | None = Field(default=None, description="Measure document age from this date (default today)")
    where: dict[str, Any] | None = Field(default=None, description="Only documents whose metadata KEY equals VALUE")
    chroma_url: str | None = Field(default=None, description="A Chroma server instead of the corpus's own store")
    settings: RetrievalSettings | None = Field(default=None, description="Fusion, weights and cutoff (defaults)")

    @model_validator(mode="after")
    def _check(self) -> CitegraphRetriever:
        # Refused here, where the user wrote it, rather than at the first question.
        require_corpus(self.corpus_dir)
        since, until = self._dates()[:2]
        if since and until and since > until:
            raise InputError(f"since {since} is after until {until}")
        return self

    def _dates(self) -> tuple[date | None, date | None, date | None]:
        def parse(value: str | None, name: str) -> date | None:
            return require_date(value, name) if value else None

        return parse(self.since, "since"), parse(self.until, "until"), parse(self.as_of, "as_of")

    def _search(self, query: str) -> list[Document]:
        since, until, as_of = self._dates()
        settings = replace(self.settings or RetrievalSettings(), top_m=self.k)
        r = shared_retriever(self.corpus_dir, self.chroma_url)
        res = r.search(
            query, settings=settings, mode=self.mode, since=since, until=until, as_of=as_of, where=self.where
        )
        return [to_document(e) for e in res.results[: self.k]]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self._search(query)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        # The search reads SQLite and runs the encoder: off the event loop.
        return await asyncio.to_thread(self._search, query)


def _check(corpus_dir: str, settings: dict[str, Any]) -> None:
    """Refuse a folder that is no corpus, or settings `ask` would refuse, when the integration is made."""
    require_corpus(corpus_dir)
    make_context(corpus_dir=corpus_dir, **{k: v for k, v in settings.items() if k != "mode"})


class _Question(BaseModel):
    question: str = Field(description="The question to answer from the documents, in full (at most 2,000 characters)")


TOOL_DESCRIPTION = (
    "Answer a question from the user's documents. Every sentence of the answer cites a numbered reference "
    "with the exact quote it rests on; when the documents do not answer the question, it says so and why "
    "instead of guessing. Conflicts between documents are listed."
)


def answer_tool(
    corpus_dir: str, *, name: str = "citegraph", description: str = TOOL_DESCRIPTION, **settings: Any
) -> StructuredTool:
    """citegraph as a tool of another agent, answering from `corpus_dir` with `settings` (those of
    `citegraph.ask`: judge=…, llm_model=…, as_of=…). Wrong settings or a folder that is no corpus are
    refused here, not at the agent's first call."""
    _check(corpus_dir, settings)

    def run(question: str) -> tuple[str, Answer]:
        answer = ask(question, corpus=corpus_dir, **settings)
        return answer.render(), answer

    async def arun(question: str) -> tuple[str, Answer]:
        answer = await aask(question, corpus=corpus_dir, **settings)
        return answer.render(), answer

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=name,
        description=description,
        args_schema=_Question,
        response_format="content_and_artifact",
    )


def answer_node(
    corpus_dir: str, *, question_key: str = "question", answer_key: str = "answer", **settings: Any
) -> Callable[[Mapping[str, Any]], Awaitable[dict[str, Answer]]]:
    """citegraph as a node of another LangGraph graph: state[question_key] in, {answer_key: Answer}
    out. Settings are those of `citegraph.ask`, checked here."""
    _check(corpus_dir, settings)

    async def citegraph_answer(state: Mapping[str, Any]) -> dict[str, Answer]:
        question = state.get(question_key)
        if not isinstance(question, str) or not question.strip():
            got = f"state[{question_key!r}]"
            raise InputError(f"the citegraph node reads its question from {got}, which is {question!r}")
        return {answer_key: await aask(question, corpus=corpus_dir, **settings)}

    return citegraph_answer


def _record(doc: Document) -> dict[str, Any]:
    """A Document as a BEIR record (loaders.load_records): its id, or one made from where it came from
    (source, page, start index), so loading the same file again gives the same ids."""
    meta = dict(doc.metadata or {})
    source = str(meta.get("source") or meta.get("url") or "")
    where = [source, str(meta.get("page", "")), str(meta.get("start_index", ""))]
    if doc.id:
        doc_id = str(doc.id)
    elif source:
        stem = Path(source.rstrip("/")).stem or "doc"
        doc_id = f"{stem}-{hashlib.sha1('#'.join(where).encode()).hexdigest()[:10]}"
    else:  # nothing says where it came from: its text is its identity
        doc_id = "doc-" + hashlib.sha1(doc.page_content.encode()).hexdigest()[:10]
    title = meta.pop("title", None) or (Path(source).name if source else "")
    meta.pop("_id", None)
    meta.pop("text", None)
    return {**meta, "_id": doc_id, "text": doc.page_content, "title": title, "url": source}


def ingest_documents(
    documents: Iterable[Document], corpus_dir: str | Path, *, replace: bool = False, **options: Any
) -> IngestReport:
    """Ingest LangChain Documents into a corpus folder (created if needed), grouped by their
    `metadata["source"]`. A `date` in the metadata dates the document (as a record's date does), a
    `source_tier` sets its tier; other scalar metadata is kept and filterable (`where`). `options` are
    those of `citegraph.ingest.pipeline.ingest` (chunking, embedder, progress...)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for doc in documents:
        if not isinstance(doc, Document):
            raise InputError(f"ingest_documents takes LangChain Documents, got {type(doc).__name__}")
        rec = _record(doc)
        groups.setdefault(f"langchain:{rec['url'] or 'documents'}", []).append(rec)
    loaded = [load_records(recs, name) for name, recs in groups.items()]
    return ingest([], corpus_dir, replace=replace, records=loaded, **options)


__all__ = ["CitegraphRetriever", "answer_node", "answer_tool", "ingest_documents", "to_document"]
