"""Chunking: spans that map back to the source, windows never exceeded, structure followed."""

import itertools

import pytest

from citegraph.ingest.chunking import chunk_text
from citegraph.settings import ChunkingSettings


def starts(embedder, text):
    return embedder.token_starts([text])[0]


def long_document():
    paras = []
    for i in range(40):
        paras.append(
            f"Paragraph {i} opens with a claim about reactor {i}. It produced {i * 7} megawatts in {1990 + i}. "
            f"Engineers inspected the cooling loop and the turbine hall; the report lists {i + 3} defects."
        )
        if i % 10 == 0:
            paras.append(f"# Part {i // 10}")
    # One sentence far longer than any passage: it must be cut, not truncated.
    paras.append("This run-on sentence " + "keeps going and going " * 150 + "until it stops.")
    return "\n\n".join(paras)


def test_spans_map_back_and_fit_the_window(embedder):
    text = long_document()
    settings = ChunkingSettings(section_tokens=300, section_overlap=50, passage_tokens=120)
    sections, passages = chunk_text(text, starts(embedder, text), settings)
    assert len(sections) > 3 and len(passages) > len(sections)
    # Every passage, re-tokenized on its own, fits the window: nothing is silently truncated.
    lengths = embedder.count_tokens([text[p.start : p.end] for p in passages])
    assert max(lengths) <= settings.passage_tokens + 2 <= embedder.window - 2
    for p in passages:
        piece = text[p.start : p.end]
        assert piece == piece.strip() and piece
        sec = sections[p.section]
        assert sec.start <= p.start and p.end <= sec.end  # the passage lies inside its section
    # Passages cover every word of the document once, in order.
    assert all(a.end <= b.start for a, b in itertools.pairwise(passages))
    covered = " ".join(text[p.start : p.end] for p in passages).split()
    assert covered == text.split()


def test_sections_overlap_and_follow_headings(embedder):
    text = long_document()
    settings = ChunkingSettings(section_tokens=300, section_overlap=50, passage_tokens=120)
    sections, _ = chunk_text(text, starts(embedder, text), settings)
    overlaps = [a.end - b.start for a, b in itertools.pairwise(sections) if b.start < a.end]
    assert overlaps, "consecutive sections share their boundary text"
    for s in sections:
        assert s.n_tokens <= settings.section_tokens + settings.section_overlap
    heading_starts = [text.index(f"# Part {k}") for k in range(1, 4)]
    section_starts = {s.start for s in sections}
    assert any(h in section_starts for h in heading_starts)


def test_short_document_is_one_section_one_passage(embedder):
    text = "Mount Etna is 3,357 metres tall."
    sections, passages = chunk_text(text, starts(embedder, text), ChunkingSettings())
    assert len(sections) == 1 and len(passages) == 1
    assert (passages[0].start, passages[0].end) == (0, len(text))


def test_settings_refuse_passages_larger_than_the_window():
    with pytest.raises(ValueError, match="window"):
        ChunkingSettings(passage_tokens=300)


def test_word_pieces_counted_in_windows_are_those_of_one_pass(embedder):
    """A long file is tokenized in windows cut at whitespace (memory): the offsets must not change."""
    text = (
        long_document()
        + "\n\nNaïve café — 東京 señor\u00a0x; Überprüfung, don't 3.14e-5 [SEP] x[MASK]y " * 40
        + " "
        + "z" * 45
        + " "
        + "base64" * 30  # a run longer than the window: never cut inside
        + "=="
        + "ねこ" * 40
    )
    one_pass = [a for a, _ in embedder._backend_tokenizer.encode(text, add_special_tokens=False).offsets]
    for window in (7, 50, 257, 4096, 10**9):
        assert list(embedder.token_starts([text], window=window)[0]) == one_pass
