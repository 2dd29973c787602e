"""Hierarchical chunking: a document becomes sections (~700 tokens, 100 overlapping, the context a fact
is extracted and cited from) and passages (the retrieval units, each inside one section and small
enough for the embedder's window, so nothing is ever silently truncated).

Both follow the text's structure: headings start sections and passages, paragraphs and sentences are
kept whole where they fit, and only a sentence longer than a passage is cut (at a word boundary).
Every piece is a character span into the document text; token counts are word pieces of the
embedder's own tokenizer, counted once per document from its offset mapping, so a span's count is
exact (BERT word pieces never cross whitespace or punctuation).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from citegraph.settings import ChunkingSettings
from citegraph.text.sentences import Sentence, Span, document_sentences


class TokenOffsets(Protocol):
    def __call__(self, texts: list[str]) -> list[Sequence[int]]:
        """Start character offset of every word piece of each text."""
        ...


@dataclass(frozen=True)
class Section:
    index: int
    start: int
    end: int
    n_tokens: int


@dataclass(frozen=True)
class Passage:
    index: int
    section: int
    start: int
    end: int
    n_tokens: int


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    n_tokens: int
    heading: bool
    new_block: bool


class _Counter:
    def __init__(self, starts: Sequence[int]):
        self.starts = starts

    def count(self, start: int, end: int) -> int:
        return bisect_left(self.starts, end) - bisect_left(self.starts, start)


def chunk_text(
    text: str, token_starts: Sequence[int], settings: ChunkingSettings, sents: list[Sentence] | None = None
) -> tuple[list[Section], list[Passage]]:
    """Sections and passages of one document, given the start offsets of its word pieces (and its
    sentences, if already split)."""
    counter = _Counter(token_starts)
    sents = document_sentences(text) if sents is None else sents
    units = _units(text, counter, settings.passage_tokens, sents)
    if not units:
        return [], []
    sections: list[Section] = []
    passages: list[Passage] = []
    i = 0
    overlap_from = 0  # index of the first unit of the current section (overlap included)
    while i < len(units):
        # The core of a section starts at unit i; the section itself starts `overlap_from` back.
        core_start = i
        tokens = sum(u.n_tokens for u in units[overlap_from:i])
        j = i
        while j < len(units):
            u = units[j]
            if j > core_start and tokens + u.n_tokens > settings.section_tokens:
                break
            if j > core_start and u.heading and tokens >= settings.section_tokens // 4:
                break  # a heading starts a new section once this one has some substance
            tokens += u.n_tokens
            j += 1
        sec_index = len(sections)
        sec_start, sec_end = units[overlap_from].start, units[j - 1].end
        sections.append(Section(sec_index, sec_start, sec_end, counter.count(sec_start, sec_end)))
        for a, b in _pack(units, core_start, j, settings.passage_tokens):
            start, end = units[a].start, units[b - 1].end
            passages.append(Passage(len(passages), sec_index, start, end, counter.count(start, end)))
        # The next section repeats the tail of this one, up to `section_overlap` tokens, unless a
        # heading starts it (a new topic needs no context from the previous one).
        nxt = j
        back, k = 0, j
        while k > core_start and back + units[k - 1].n_tokens <= settings.section_overlap:
            back += units[k - 1].n_tokens
            k -= 1
        overlap_from = nxt if (nxt < len(units) and units[nxt].heading) else k
        i = nxt
    return sections, passages


def _pack(units: list[_Unit], lo: int, hi: int, limit: int) -> list[tuple[int, int]]:
    """Greedy packing of units[lo:hi] into passages of at most `limit` tokens."""
    out: list[tuple[int, int]] = []
    start, tokens = lo, 0
    for k in range(lo, hi):
        u = units[k]
        full = tokens + u.n_tokens > limit
        heading_break = u.heading and k > start
        # Keep paragraphs together: a passage that is already well filled ends at a paragraph break.
        block_break = u.new_block and k > start and tokens >= 0.6 * limit and not units[k - 1].heading
        if k > start and (full or heading_break or block_break):
            out.append((start, k))
            start, tokens = k, 0
        tokens += u.n_tokens
    if hi > start:
        out.append((start, hi))
    return out


def _units(text: str, counter: _Counter, limit: int, sents: list[Sentence]) -> list[_Unit]:
    """Sentences in reading order, with the few that exceed `limit` cut at word boundaries."""
    out: list[_Unit] = []
    for s in sents:
        first = s.new_block
        for a, z in _fit(text, Span(s.start, s.end), counter, limit):
            out.append(_Unit(a, z, counter.count(a, z), s.heading, first))
            first = False
    return out


def _fit(text: str, s: Span, counter: _Counter, limit: int) -> list[tuple[int, int]]:
    if counter.count(s.start, s.end) <= limit:
        return [(s.start, s.end)]
    pieces: list[tuple[int, int]] = []
    start = s.start
    while counter.count(start, s.end) > limit:
        # The start offset of the token just past the limit, moved back to a whitespace boundary.
        first_tok = bisect_left(counter.starts, start)
        cut = counter.starts[first_tok + limit]
        ws = text.rfind(" ", start + 1, cut + 1)
        if ws > start and counter.count(start, ws) > limit // 4:
            cut = ws
        end = cut
        while end > start and text[end - 1].isspace():
            end -= 1
        pieces.append((start, end))
        start = cut
        while start < s.end and text[start].isspace():
            start += 1
    if start < s.end:
        pieces.append((start, s.end))
    return pieces


def page_of(offset: int, pages: list[int] | None) -> int | None:
    """1-based page number of a character offset, given each page's start offset."""
    if not pages:
        return None
    return bisect_left(pages, offset + 1)
