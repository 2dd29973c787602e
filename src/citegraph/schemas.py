"""The hand-off records between the stages of citegraph (pydantic). Each carries its provenance: the
document, the passage (chunk) and the character span in the document's stored text, plus the page
for PDFs, so every citation can point at the exact text it rests on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


def locator(page: int | None, span: tuple[int, int]) -> str:
    """Where a passage or a quote is in its document, as a reference shows it: "p. 3, chars 120-184"."""
    where = f"chars {span[0]}-{span[1]}"
    return f"p. {page}, {where}" if page else where


class Evidence(BaseModel):
    """A retrieved passage with every score that shaped its rank."""

    chunk_id: str = Field(description="Passage id: <doc_id>:<version>:<index>")
    doc_id: str
    title: str = ""
    date: str | None = Field(default=None, description="ISO date of the document, if known")
    date_source: str = Field(
        default="", description="Where the date came from: record, front matter, html meta, text, file metadata"
    )
    source: str = Field(default="", description="File path or URL of the document")
    source_tier: str = "secondary"
    text: str
    span: tuple[int, int] = Field(description="Character span of the passage in the document text")
    page: int | None = Field(default=None, description="1-based page of the passage start (PDF)")
    section_id: str = ""
    section_span: tuple[int, int] | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    rank: int = 0
    sub_query: str | None = Field(default=None, description="The (sub-)query that retrieved it")
    release_of: str | None = Field(
        default=None, description="The passage this one was read beside: the same passage in another release"
    )

    @property
    def locator(self) -> str:
        """Where in the document: page and characters."""
        return locator(self.page, self.span)


class SearchResult(BaseModel):
    query: str
    results: list[Evidence]
    timings_ms: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


# -- the evidence graph's records ------------------------------------------------------------------
QueryClass = Literal["precise_fact", "broad_synthesis", "reasoning"]
Mode = Literal["recent", "corpus", "direct"]
Severity = Literal["minor", "major", "critical"]


class SubQuery(BaseModel):
    """A focused query the retriever runs; `facet` says what it probes."""

    text: str
    facet: str = Field(default="question", description="e.g. question, entity, mechanism, limitations, conflict")
    round: int = Field(default=0, description="0 for decomposition, n for the n-th reconcile round")


class Fact(BaseModel):
    """An atomic statement quoted verbatim from one passage."""

    @property
    def trusted_date(self) -> str | None:
        """The document's date, unless only its file's metadata gave it (when a file was made)."""
        return None if self.date_source == "file metadata" else self.date

    id: str = Field(description="Stable id: hash of chunk id and span")
    text: str = Field(description="The exact quote from the passage")
    doc_id: str
    chunk_id: str
    span: tuple[int, int] = Field(description="Character span of the quote in the document text")
    page: int | None = None
    title: str = ""
    date: str | None = None
    date_source: str = ""
    source_tier: str = "secondary"
    relevance: float = Field(default=0.0, description="How well the fact bears on the question, in [0, 1]")
    typed: bool = Field(default=True, description="Holds the kind of value the question asks for, if any")
    answer_p: float | None = Field(
        default=None,
        description="The answer-sentence scorer's probability that this sentence states the answer (None: not scored)",
    )
    under: str | None = Field(
        default=None, description="Id of the heading fact whose value this one takes (a changelog's release line)"
    )
    weight: float = Field(default=0.0, description="Trust in the fact: retrieval, density, recency, tier")
    numbers: list[str] = Field(default_factory=list)
    dates: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    negated: bool = False


class Contradiction(BaseModel):
    """Two facts about the same point that disagree."""

    id: str
    facts: tuple[str, str] = Field(description="Ids of the two facts")
    kind: Literal["number", "version", "date", "entity", "polarity", "wording"]
    severity: Severity
    point: str = Field(description="The subject and attribute they disagree on, in words")
    values: tuple[str, str] = Field(description="The two conflicting values, as written")
    resolved: bool = False
    winner: str | None = Field(default=None, description="Id of the fact that prevailed, if settled")
    resolution: str = Field(default="", description="How it was settled, or why it could not be")


class Reference(BaseModel):
    """One entry of the reference list; [n] in the answer points here and nowhere else."""

    n: int
    doc_id: str
    chunk_id: str
    title: str
    date: str | None = None
    source: str = ""
    locator: str = Field(description="Where in the document: page and character span")
    span: tuple[int, int]
    quote: str


class Sentence(BaseModel):
    text: str = Field(description="The sentence with its inline [n] markers")
    citations: list[int] = Field(default_factory=list)


class TraceEvent(BaseModel):
    node: str
    engine: Literal["llm", "extractive", "none"] = "extractive"
    ms: float = 0.0
    fallback: str | None = Field(default=None, description="Why the model's output was not used, if so")
    detail: str = ""
    decided: dict[str, Any] = Field(
        default_factory=dict,
        description="What the node decided, small enough to read in Studio: ids, scores, texts cut short",
    )


class Answer(BaseModel):
    """What citegraph returns: a cited answer or an abstention, with everything behind it."""

    question: str
    mode: Mode
    query_class: QueryClass
    sub_queries: list[str] = Field(default_factory=list)
    answer: str = ""
    abstained: bool = False
    abstain_reason: str = ""
    cited: bool = Field(default=True, description="False only for direct (no retrieval) answers")
    sentences: list[Sentence] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    reconcile_rounds: int = 0
    support: float = Field(default=0.0, description="How well the facts answer the question (abstain below)")
    support_source: Literal["lexical", "model", "reader", "sentences"] = Field(
        default="lexical",
        description=(
            "lexical: the facts' relevance; model: the model's probability that the passages answer; "
            "reader: the reader's (reader.py); sentences: the answer-sentence scorer's for the best sentence"
        ),
    )
    gaps: list[str] = Field(
        default_factory=list, description="Why no fact could answer: what no passage mentions, a missing kind of value"
    )
    support_parts: dict[str, float] = Field(
        default_factory=dict, description="Every judge's score computed for this question (lexical, reader, model)"
    )
    searched: list[str] = Field(default_factory=list, description="What was searched, for an abstention")
    dropped: list[str] = Field(
        default_factory=list,
        description="Sentences the model wrote that its cited facts do not support, each with why: not in the answer",
    )
    warnings: list[str] = Field(
        default_factory=list, description="Retrieved passages that read as instructions to a model (not used)"
    )
    engine: str = "extractive"
    timings_ms: dict[str, float] = Field(default_factory=dict)
    fallbacks: list[str] = Field(default_factory=list)
    model_use: dict[str, int] = Field(
        default_factory=dict,
        description="Model calls answered and their tokens: calls, input_tokens, output_tokens (empty without a model)",
    )

    def __str__(self) -> str:
        return self.render()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How a notebook shows an Answer: its rendered text, not every field."""
        printer.text(self.render())

    def render(self) -> str:
        """The answer as text: sentences, references, conflicts."""
        lines: list[str] = []
        if self.abstained:
            lines.append(self.answer)
        else:
            lines.append(" ".join(s.text for s in self.sentences) if self.sentences else self.answer)
            if not self.cited:
                lines.append("(answered without retrieval: no sources)")
        if self.references:
            lines += ["", "References"]
            for r in self.references:
                date = f", {r.date}" if r.date else ""
                quote = " ".join(r.quote.split())
                # Where a reader can check the quote: a web page (or a record with its URL) by its URL, a
                # file by its name (not the server's path to it, nor the code's id for it).
                web = r.source.startswith(("https://", "http://"))
                where = r.source if web else (r.source.replace("\\", "/").rsplit("/", 1)[-1] or r.doc_id)
                lines.append(f'[{r.n}] {r.title or where}{date} ({where}, {r.locator}): "{quote}"')
        if self.warnings:
            lines += ["", "Warnings"] + [f"- {w}" for w in self.warnings]
        if self.contradictions:
            lines += ["", "Conflicts"]
            for c in self.contradictions:
                state = "settled" if c.resolved else "UNRESOLVED"
                resolution = " ".join(c.resolution.split())
                lines.append(f"- [{c.severity}, {state}] {c.point}: {c.values[0]} vs {c.values[1]}. {resolution}")
        return "\n".join(lines)
