"""Loaders: each format's text and metadata, and bad input reported rather than raised."""

import json
from pathlib import Path

from citegraph.ingest.chunking import page_of
from citegraph.ingest.loaders import Skipped, discover, load_file
from helpers import write_pdf


def test_markdown_front_matter(tmp_path: Path):
    p = tmp_path / "r.md"
    p.write_text(
        "---\ntitle: Report\ndate: 2019-05-01\nsource_tier: primary\nregion: north\n---\n# Intro\n\nBody text.\n"
    )
    (doc,) = load_file(p).docs
    assert doc.title == "Report"
    assert doc.date == "2019-05-01"
    assert doc.source_tier == "primary"
    assert doc.metadata["region"] == "north"
    assert doc.text.startswith("# Intro")


def test_html_keeps_headings_drops_scripts(tmp_path: Path):
    p = tmp_path / "b.html"
    p.write_text(
        "<html><head><title>T</title><meta property='article:published_time' content='2020-03-15T10:00Z'>"
        "</head><body><nav>menu</nav><h2>Decline</h2><p>Lost <b>45</b> percent.</p>"
        "<script>evil()</script></body></html>"
    )
    (doc,) = load_file(p).docs
    assert doc.title == "T" and doc.date == "2020-03-15"
    assert doc.text == "## Decline\n\nLost 45 percent."


def test_pdf_pages_are_kept(tmp_path: Path):
    p = write_pdf(tmp_path / "a.pdf", ["Page one text about reactors.", "Page two text about turbines."])
    (doc,) = load_file(p).docs
    assert doc.pages == [0, doc.text.index("Page two")]
    assert page_of(doc.text.index("turbines"), doc.pages) == 2
    assert page_of(0, doc.pages) == 1


def test_bad_files_are_skipped_with_a_reason(tmp_path: Path):
    (tmp_path / "empty.txt").write_text("  \n\n")
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / "fm.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    reasons = {}
    for name in ["empty.txt", "bin.txt", "bad.pdf", "fm.md"]:
        got = load_file(tmp_path / name)
        assert not got.docs
        (skip,) = got.skipped
        reasons[name] = skip.reason
    assert reasons["empty.txt"] == "empty file"
    assert "binary" in reasons["bin.txt"]
    assert "PDF" in reasons["bad.pdf"]
    assert "front matter" in reasons["fm.md"]


def test_jsonl_records_and_bad_lines(tmp_path: Path):
    p = tmp_path / "c.jsonl"
    lines = [
        json.dumps({"_id": "d1", "title": "One", "text": "First.", "date": "2020", "party": "x", "tags": ["a"]}),
        "{not json",
        json.dumps({"_id": "d2", "text": ""}),
        json.dumps({"title": "no id", "text": "x"}),
        json.dumps({"_id": "d3", "text": "Third.", "date": "someday"}),
        json.dumps({"_id": "d4", "text": "Fourth."}),
    ]
    p.write_text("\n".join(lines) + "\n")
    got = load_file(p)
    assert [d.doc_id for d in got.docs] == ["d1", "d4"]
    assert got.docs[0].date == "2020-01-01"
    assert got.docs[0].metadata == {"party": "x", "tags": '["a"]'}
    assert [s.source.rsplit(":", 1)[1] for s in got.skipped] == ["2", "3", "4", "5"]
    assert "invalid JSON" in got.skipped[0].reason


def test_discover(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.txt").write_text("x")
    files, problems, ignored = discover([tmp_path, tmp_path / "missing", tmp_path / "img.png"])
    assert [f.name for f in files] == ["a.txt"]
    assert [i.name for i in ignored] == ["img.png"]
    assert [p.reason for p in problems] == ["no such file or folder", "unsupported file type .png"]
    assert all(isinstance(p, Skipped) for p in problems)
