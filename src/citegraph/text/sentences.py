"""Structure-aware splitting of a document into blocks (headings, paragraphs) and sentences.

Every piece is a character span into the original text, so whatever is cut from it can be cited
back to the exact characters. Sentence boundaries come from blingfire (a compiled rule model, about
0.2 ms per paragraph); blocks come from blank lines and Markdown-style headings, which the loaders
produce for every format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import blingfire

_BLOCK_SEP = re.compile(r"\n[ \t]*\n+")
# A sentence-ending mark followed by more text: only then can a block hold several sentences.
_INNER_END = re.compile(r"[.!?…][\"'’”)\]]*\s+\S")
_HEADING = re.compile(r"^(#{1,6}\s+\S.*|[A-Z][A-Z0-9 ,.'&:-]{3,80})$")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    heading: bool = False  # a heading line: a natural place to start a new section


def blocks(text: str) -> list[Span]:
    """Paragraph-like blocks separated by blank lines, stripped of surrounding whitespace."""
    out: list[Span] = []
    pos = 0
    for m in [*_BLOCK_SEP.finditer(text), None]:
        end = m.start() if m else len(text)
        out.extend(_strip(text, pos, end))
        if m:
            pos = m.end()
    return out


def _strip(text: str, start: int, end: int) -> list[Span]:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    s, e = start + lead, end - trail
    if s >= e:
        return []
    first_line_end = text.find("\n", s, e)
    if first_line_end != -1 and _HEADING.match(text[s:first_line_end].strip()):
        # "# Title\nbody…" without a blank line: the heading is a block of its own.
        return [Span(s, first_line_end, heading=True), *_strip(text, first_line_end + 1, e)]
    return [Span(s, e, heading=bool(first_line_end == -1 and _HEADING.match(text[s:e])))]


# A line that starts a field ("Requires-Python: >=3.7") or a list item ("* Fix …", "- foo", "2. bar").
_ITEM_LINE = re.compile(r"^[ \t]*(?:[A-Za-z][\w.-]*:[ \t]+\S|[-*•+][ \t]+\S|\d+[.)][ \t]+\S)")


def _items(text: str, start: int, end: int) -> list[Span] | None:
    """A block of fields or list items (a METADATA header, a changelog's bullets) as one span per
    item, its continuation lines included; None when the block is prose."""
    lines = []
    pos = start
    for line in text[start:end].split("\n"):
        lines.append((pos, pos + len(line), bool(_ITEM_LINE.match(line))))
        pos += len(line) + 1
    if len(lines) < 2 or sum(m for _, _, m in lines) < max(2, 0.6 * len(lines)):
        return None
    spans: list[list[int]] = []
    for a, z, item in lines:
        if item or not spans:
            spans.append([a, z])
        else:
            spans[-1][1] = z
    out = []
    for a, z in spans:
        piece = text[a:z]
        lead = len(piece) - len(piece.lstrip())
        if piece.strip():
            out.append(Span(a + lead, a + len(piece.rstrip())))
    return out


def sentences(text: str, block: Span | None = None) -> list[Span]:
    """Sentences of one block (or of the whole text), as spans into `text`. A block of fields or list
    items gives one sentence per item (each may hold several sentences of its own)."""
    start, end = (block.start, block.end) if block else (0, len(text))
    piece = text[start:end]
    if not piece.strip():
        return []
    if block is not None and block.heading:
        return [block]
    items = _items(text, start, end)
    if items is not None:
        return [s for item in items for s in sentences(text, Span(item.start, item.end))]
    if not _INNER_END.search(piece):  # no sentence end before the last word: one sentence, no model call
        lead = len(piece) - len(piece.lstrip())
        return [Span(start + lead, start + len(piece.rstrip()))]
    _, offsets = blingfire.text_to_sentences_and_offsets(piece)
    spans = [Span(start + a, start + b) for a, b in offsets if piece[a:b].strip()]
    return spans or [Span(start, end)]


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    heading: bool  # the sentence is a heading line
    new_block: bool  # the first sentence of its block (paragraph or heading)


def document_sentences(text: str) -> list[Sentence]:
    """Every sentence of a document in reading order: computed once, shared by chunking and the
    claim model (sentence splitting is the costliest step of both)."""
    out = []
    for b in blocks(text):
        for i, s in enumerate(sentences(text, b)):
            out.append(Sentence(s.start, s.end, b.heading, i == 0))
    return out


def split_sentences(text: str) -> list[str]:
    """Convenience: the sentences of a plain string."""
    return [text[s.start : s.end] for b in blocks(text) for s in sentences(text, b)]
