"""The hand-off records between the stages of citegraph (pydantic). Each carries its provenance: the
document, the passage (chunk) and the character span in the document's stored text, plus the page
for PDFs, so every citation can point at the exact text it rests on.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Evidence(BaseModel):
    """A retrieved passage with every score that shaped its rank."""

    chunk_id: str = Field(description="Passage id: <doc_id>:<version>:<index>")
    doc_id: str
    title: str = ""
    date: str | None = Field(default=None, description="ISO date of the document, if known")
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

    @property
    def locator(self) -> str:
        """Where in the document: page and characters."""
        where = f"chars {self.span[0]}-{self.span[1]}"
        return f"p. {self.page}, {where}" if self.page else where


class SearchResult(BaseModel):
    query: str
    results: list[Evidence]
    timings_ms: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
