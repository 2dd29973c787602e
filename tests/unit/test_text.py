"""Sentences, BM25 tokens, dates and the claim model."""

from datetime import date

import pytest

from citegraph.text.claims import claims, extract_numbers, score_claim
from citegraph.text.dates import date_to_int, int_to_date, parse_date, require_date
from citegraph.text.density import fd_raw, fd_star, fit_stats
from citegraph.text.sentences import blocks, split_sentences
from citegraph.text.tokens import tokenize


def test_sentences_and_blocks_are_spans_into_the_text():
    text = "# Title\nDr. Smith paid $3.5 million on Jan. 5, 2020. Then he left.\n\nNew para."
    bs = blocks(text)
    assert [text[b.start : b.end] for b in bs] == [
        "# Title",
        "Dr. Smith paid $3.5 million on Jan. 5, 2020. Then he left.",
        "New para.",
    ]
    assert bs[0].heading and not bs[1].heading
    assert split_sentences(text) == [
        "# Title",
        "Dr. Smith paid $3.5 million on Jan. 5, 2020.",
        "Then he left.",
        "New para.",
    ]


def test_tokenize_lowercases_drops_stopwords_and_stems():
    assert tokenize("The Running of the Bulls", stem=False) == ["running", "bulls"]
    assert tokenize("The Running of the Bulls") == ["run", "bull"]


def test_dates():
    assert parse_date("2021") == date(2021, 1, 1)
    assert parse_date("2021-03-04T10:00:00Z") == date(2021, 3, 4)
    assert parse_date("yesterday") is None
    assert date_to_int(date(2021, 3, 4)) == 20210304 and int_to_date(20210304) == date(2021, 3, 4)
    assert date_to_int(None) == 0
    with pytest.raises(ValueError, match="--since"):
        require_date("soon", "--since")


def test_numbers_are_normalised():
    assert extract_numbers("It cost $1,200 and 3.5 million people, 45% of them.") == [
        "1200",
        "3500000",
        "45%",
    ]


def test_prob_fact_ranks_specific_over_vague():
    specific = score_claim("The Britannia plant processed 310 million litres per day in 2018.")
    vague = score_claim("We believe things might get better.")
    question = score_claim("What is the budget?")
    assert 0.2 <= vague.prob_fact < specific.prob_fact <= 1.0
    assert question.prob_fact == 0.2
    assert vague.hedged and vague.opinion and specific.numbers


def test_claims_split_at_semicolons_with_spans():
    text = "Revenue rose 5% in 2020; costs fell by 2 million dollars. Short."
    cs = claims(text)
    assert [c.text for c in cs] == ["Revenue rose 5% in 2020", "costs fell by 2 million dollars."]
    assert all(text[c.start : c.end] == c.text for c in cs)


def test_fd_star_removes_the_length_confound():
    import numpy as np

    raw = np.array([0.05, 0.06, 0.02, 0.03, 0.01, 0.012])
    n = np.array([10, 12, 100, 110, 200, 210])
    stats = fit_stats(raw, n)
    z = fd_star(raw, n, np.ones(6), stats)
    # Within each length bin the z-scores are centred: raw density no longer predicts length.
    assert z[0] < z[1] and z[2] < z[3] and z[4] < z[5]
    assert abs(z[:2].mean()) < 1e-9 and abs(z[2:4].mean()) < 1e-9
    assert fd_raw("", 0) == 0.0


def test_a_quote_is_checked_at_its_span():
    from citegraph.text.claims import quote_at

    passage = "Mount Etna stands 3,357 metres tall."  # starts at 100 in its document
    assert quote_at(passage, 100, (100, 136), passage)
    assert quote_at(passage, 100, (118, 123), "3,357")
    assert not quote_at(passage, 100, (117, 122), "3,357")  # one character off
    assert not quote_at(passage, 100, (90, 95), "Mount")  # before the passage: never wraps around


def test_a_quote_leaves_the_markup_around_its_words_out():
    """Seen in realdocs answers: "## 2.28.0 (2022-06-09)", a NEWS heading with its "=====" underline, a
    rule line before "Sed 4.0.4". The quote shown is the words, still the document's text at its span."""
    from citegraph.text.claims import quotable

    def shown(text: str) -> str:
        a, z = quotable(text)
        return text[a:z]

    assert shown("## 2.28.0 (2022-06-09)") == "2.28.0 (2022-06-09)"
    assert shown("Noteworthy changes in release 4.14 (2016-10-04)\n" + "=" * 47) == (
        "Noteworthy changes in release 4.14 (2016-10-04)"
    )
    assert shown("-" * 76 + "\nSed 4.0.4") == "Sed 4.0.4"
    assert shown("* When using -p option, strace exits") == "When using -p option, strace exits"
    assert shown("### Title ##") == "Title"
    # An option, a C# name, a dash inside the words: words, not markup.
    assert shown("-n, --[no-]verify By default") == "-n, --[no-]verify By default"
    assert shown("Written in C#") == "Written in C#"
    assert shown("x - y") == "x - y"
    assert shown("=====") == "====="  # nothing but markup: left whole


def test_plain_text_headings_are_headings_not_statements():
    from citegraph.text.claims import is_heading

    # Two entries of a Debian changelog, or two underlined titles of two READMEs, differ without disagreeing.
    assert is_heading("libcap-ng (0.8.3-1+b3) sid")
    assert is_heading("alsa-lib (1.2.8-1) unstable; urgency=medium")
    assert is_heading("Makefile.pre.in issues ----------------------")
    assert is_heading("## 2.0.0 (2017-10-09)")
    assert not is_heading("Requires-Python: >=3.8")
    assert not is_heading("The default is 3 (see below).")
    assert not is_heading("arrow (1.3.0) is required by foo.")


def test_bm25_reads_a_version_and_a_dotted_name_whole():
    from citegraph.retrievers.sparse import build_index
    from citegraph.text.tokens import dotted, sparse_tokens

    assert dotted("lm-sensors (1:3.6.0-7), v5.17, /etc/login.defs, arrow-1.3.0.dist-info") == [
        "3.6.0",
        "5.17",
        "login.defs",
        "1.3.0",
    ]
    passages = [
        "Version 3.0.6: fixed 3 drivers, 6 chips and 0 regressions; 3.0.6 kept 6 of 3 branches going.",
        "Version 3.6.0: libsensors learns the new chips.",
        "Version 2.1.9: documentation only.",
    ]
    query = "What changed in lm-sensors version 3.6.0?"
    split = build_index("bm25s", [tokenize(p) for p in passages]).scores(tokenize(query))
    whole = build_index("bm25s", [sparse_tokens(p) for p in passages]).scores(sparse_tokens(query))
    assert split.argmax() == 0  # digits anywhere match the digits asked
    assert whole.argmax() == 1
