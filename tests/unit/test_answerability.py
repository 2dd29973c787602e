"""What a question asks for, what a passage must mention to answer it, and the rules that keep the
answer on the question: answer types and their values, key terms, coverage, headings, antecedents."""

from citegraph.answer.compose import choose_facts
from citegraph.answer.subqueries import extractive_sub_queries
from citegraph.embed import known_words
from citegraph.nodes.extract import extractive_facts, heading_for, with_antecedent
from citegraph.nodes.judge import covered_facts, value_below_bar
from citegraph.schemas import Evidence, Fact
from citegraph.text import answerability as ans
from citegraph.text.claims import claims, text_kind


def test_the_question_decides_the_kind_of_value():
    assert ans.answer_type("How many instances does the wine dataset have?") == "number"
    assert ans.answer_type("What TCP port does the PostgreSQL server listen on?") == "number"
    # A compression level is a number; a log's level is a name ("notice"), as syslog's facility.level is.
    assert ans.answer_type("What compression level does gzip use by default?") == "number"
    assert ans.answer_type("What is the default log level?") is None
    assert ans.answer_type("If I call logger without -p, at what facility and level is my message recorded?") is None
    assert ans.answer_type("When was tar 1.34 released?") == "date"
    assert ans.answer_type("Which option makes tar filter the archive through gzip?") == "code"
    assert ans.answer_type("What Python version does click 8.1.7 require?") == "version"
    assert ans.answer_type("What kind of version numbering does packaging follow?") is None
    assert ans.answer_type("Who wrote bzip2?") == "person"
    assert ans.answer_type("What is the capital of France?") == "place"
    assert ans.answer_type("Why does ssh-agent drop LD_PRELOAD?") == "reason"
    assert ans.answer_type("Is the -z option deprecated?") == "yesno"
    # A leading condition is not the question: "When bc is started…, what is…" asks no date.
    assert ans.answer_type("When bc is started with the math library (-l), what is the scale set to?") is None
    assert ans.answer_type("If I run tar without -f, which environment variable does it read?") == "code"
    assert ans.answer_type("When was Python 3.8 released, and by whom?") == "date"
    # A question that opens with its preposition is not a condition ("On which platform …, when you
    # switch ABIs, …" asks no date; realdocs2 d12 gave "no passage states a date" as its reason).
    q = "On which CPU platform does libffi warn that, when you switch between ABIs, concurrent use is unsafe?"
    assert ans.answer_type(q) is None
    q = "On a system whose login.defs keeps the defaults, how many UIDs are kept for system accounts?"
    assert ans.answer_type(q) == "number"
    # A hyphenated word between "which" and what is asked is one word of the phrase.
    assert ans.answer_type("Which libffi-specific environment variable sets the directory?") == "code"
    assert ans.answer_type("Since which man-db version is section 3type searched?") == "version"


def test_values_of_the_asked_kind_beyond_those_the_question_names():
    q = "How many instances does the wine dataset have?"
    assert ans.answer_values("number", "Number of Instances: 178", q) == ["178"]
    assert ans.answer_values("number", "The wine dataset is popular.", q) == []
    # A scale word is part of the value: "310", for 310 million litres, would be wrong.
    q = "How much water does the Britannia plant process a day?"
    text = "Ottawa's water treatment plant at Britannia processes 310 million litres per day."
    assert ans.answer_values("number", text, q) == ["310 million"]
    assert ans.the_value("number", text, q) == "310 million"
    q = "How many people died in the fire?"
    assert ans.the_value("number", "In 1999 twelve people died in the fire.", q) == "twelve"
    assert ans.answer_values("number", "It seats 5\nhundred people.", "How many does it seat?") == ["5 hundred"]
    # A manual's section after a name is no count: "libxslt(3)" does not answer "how many levels deep".
    text = "Adjust the depth of the template stack before libxslt(3) concludes it is looping (default 3000)."
    assert ans.answer_values("number", text, "How many levels deep can templates nest?") == ["3000"]
    # A version is one of the product asked about: not HTTP/1.1, not the package's own release.
    q = "Which Python version does HTTPX need?"
    assert ans.answer_values("version", "HTTPX requires Python 3.8+.", q) == ["3.8+"]
    assert ans.answer_values("version", "HTTPX supports HTTP/1.1 and HTTP/2.", q) == []
    assert ans.answer_values("version", "Requires-Python: >=3.7, !=3.0.*", q) == [">=3.7"]
    # A name just before the product ("Linux kernel version") is the product too: changelogs write
    # "Update the syscall table for Linux v5.17"; another release's number stays out.
    q = "libseccomp 2.5.4 refreshed its syscall table to match which Linux kernel version?"
    assert ans.answer_values("version", "- Update the syscall table for Linux v5.17", q) == ["v5.17"]
    assert ans.answer_values("version", "- Fix issues with multiplexed syscalls introduced in v2.5.2", q) == []
    # A release the question gives ("Python 3.12") is not the one it asks for: a version written after
    # that name is the name's, and the release line over the entry answers.
    q = "Which arrow release first officially supported Python 3.12?"
    assert ans.answer_values("version", "[ADDED] Added official support for Python 3.11 and 3.12", q) == []
    assert ans.answer_values("version", "1.3.0 (2023-09-30)", q) == ["1.3.0"]
    # A major release alone gives one too ("Python 2"): "Python 2.7" is Python's, not Setuptools'.
    q = "Beginning with which Setuptools release was Python 2 dropped from the current line?"
    assert ans.answer_values("version", "Setuptools 45 declares its versions to exclude Python 2.7", q) == []
    assert ans.answer_values("version", "v45.0.0: Drop support for Python 2.", q) == ["v45.0.0"]
    q = "libseccomp 2.5.4 refreshed its syscall table to match which Linux kernel version?"
    assert ans.answer_values("version", "libseccomp 2.5.3 updated it to Linux v5.15", q) == ["v5.15"]
    q = "Which version of click is this?"
    assert ans.answer_values("version", "Version 8.1.7 was released.", q) == ["8.1.7"]
    # A series is a version ("libevent 2.x"), and "major version" names no product.
    q = "Which event-notification library, and which major version of it, does tmux need?"
    assert ans.answer_type(q) == "version" and ans.version_of(q) is None
    assert ans.answer_values("version", "tmux depends on libevent 2.x, available from:", q) == ["2.x"]
    assert ans.answer_values("version", "Files named 2.xml and hosts like 10.x86 are not.", q) == []
    # A release number counts nothing.
    q = "How many bytes of a file does the file command read at most?"
    text = "This manual page documents version 5.44 of the file command. bytes 1048576 max number of bytes"
    assert ans.answer_values("number", text, q) == ["1048576"]
    # A unit written onto its number is the value's: "8GB", not "8".
    q = "How much memory does a machine typically need to compile Node.js with make -j4?"
    text = "Memory: at least 8GB of RAM is typically required when compiling with 4 parallel jobs (e.g: make -j4)"
    assert ans.answer_values("number", text, q) == ["8GB"]
    assert ans.the_value("number", text, q) == "8GB"
    assert ans.answer_values("number", "wait 30s, read 64k blocks, then 10 more", "how many?") == ["30s", "64k", "10"]
    q = "Which environment variable does tar read for the archive name?"
    assert ans.answer_values("code", "tar will first examine the environment variable `TAPE'.", q) == ["TAPE"]
    q = "What exception does Mako's TemplateLookup raise?"
    assert ans.answer_values("code", "else raise a TopLevelNotFound exception", q) == ["TopLevelNotFound"]


def test_key_terms_are_what_a_passage_must_mention():
    english = known_words()
    assert ans.key_terms("What TCP port does the PostgreSQL server listen on?", english) == ["PostgreSQL"]
    # A short acronym may be spelled out in the passage ("US" for "United States").
    assert ans.key_terms("How many US beekeepers lost colonies?", english) == []
    # Possessives, sentence openers and apostrophes are not terms; unknown words (program names) are.
    q = "gzip's default level and zlib's Z_DEFAULT_COMPRESSION: do they match? Under which name?"
    assert ans.key_terms(q, english) == ["Z_DEFAULT_COMPRESSION", "gzip", "zlib"]
    assert ans.key_terms("My project has a lockfile. What does callable mean?", english) == []
    # The first person names no one, nor does a run of capitals carried over a sentence's end
    # (realdocs3 e01, e17, e19: "no passage mentions \"I'm\"").
    q = "I'm not root on this box. Can chage still show when my password runs out?"
    assert ans.key_terms(q, english) == ["chage"]
    assert ans.key_terms("Say I kill processes with fuser: which signal?", english) == ["fuser"]
    # A comparative or superlative of a dictionary word is a word (realdocs3 g03: "do not mention
    # 'riskier'"); a program named as an agent noun is still a name.
    q = "Why is scanning only the data sections riskier, and which is the safest and easiest way?"
    assert ans.key_terms(q, english) == []
    assert ans.key_terms("Which facility does logger use by default?", english) == ["logger"]
    # "i.e." and "e.g." are abbreviations, not file names (realdocs4 g01: "do not mention 'i.e'").
    q = "Does fuser kill by default, i.e. which signal, e.g. SIGKILL?"
    assert ans.key_terms(q, english) == ["SIGKILL", "fuser"]
    # A snake_case name is a setting's: a passage about another setting's default does not answer.
    q = "What is the default of clear_untrusted_proxy_headers?"
    assert ans.key_terms(q, english) == ["clear_untrusted_proxy_headers"]
    # Nor does a sentence in a passage that names it, when the sentence names another setting only.
    said = "If trusted_proxy is set, the default is x-forwarded-proto to match older versions of Waitress."
    assert ans.other_setting(q, said) == "trusted_proxy"
    assert ans.other_setting(q, "Default: False") is None  # under the setting's own heading
    assert ans.other_setting(q, "clear_untrusted_proxy_headers defaults to True, unlike trusted_proxy.") is None
    assert ans.key_terms("Unless I configure it, which proxies does Gunicorn trust?", english) == ["Gunicorn"]
    assert ans.key_terms("It has an HTTP API. If I call it twice, what happens?", english) == ["HTTP API"]
    assert ans.key_terms("What happened after World War I ended?", english) == ["World War I"]
    assert ans.key_terms("Who built the church of St. Nicholas?", english) == ["St. Nicholas"]
    assert ans.key_terms("Did George W. Bush sign it?", english) == ["George W. Bush"]
    assert ans.key_terms("Type I error rate: which test is it?", english) == ["Type I"]
    assert ans.uncovered(["PostgreSQL", "TCP"], "ssh forwards a TCP port") == ["PostgreSQL"]
    # A bare digit is how a question counts ("line 1"), not a name a passage must repeat.
    q = "Since which sed release does the 'r' command accept address 0, to insert a file ahead of line 1?"
    assert ans.key_terms(q, english) == ["sed"]
    assert ans.key_terms("Was the testing of the LM during Apollo 5 a failure?", english) == ["Apollo", "5"]
    assert "5" in ans.key_terms("Whose arms purchases became 5 times Israel's?", english)
    # A number that starts a word is that word, as a passage's tokens read it (realdocs2 c14: "section
    # 3type" asked for '3', which "3type" does not hold); an ordinal or a unit stays a number.
    q = "Since which man-db version is section 3type among the sections man looks in by default?"
    assert ans.key_terms(q, english) == ["3type"]
    assert ans.uncovered(["3type"], "man now searches section 3type by default") == []
    assert ans.key_terms("What does the 3rd argument of it mean?", english) == ["3"]
    assert ans.key_terms("Does it wait for 100ms?", english) == ["100"]
    # A version is there as written, give or take a "v" and trailing zeros; never a longer release.
    assert ans.uncovered(["2.39"], "git-2.39.0.RelNotes") == []
    assert ans.uncovered(["2.0"], "v2.0 Migration Guide") == []
    assert ans.uncovered(["3.7", "2.0"], "Python 3.7.1 and 12.0") == ["3.7", "2.0"]
    # British and American spellings are one word to coverage and to BM25.
    assert ans.uncovered(["licence", "organisation"], "Mozilla Public License of the Organization") == []
    assert ans.name_like("PostgreSQL", english) and not ans.name_like("rustc", english)


def _ev(text: str, chunk: str = "d:1:0", title: str = "Doc") -> Evidence:
    return Evidence(chunk_id=chunk, doc_id=chunk.split(":")[0], title=title, text=text, span=(0, len(text)))


def _fact(text: str, ev: Evidence, typed: bool = True) -> Fact:
    a = ev.text.index(text)
    return Fact(
        id=f"f{a}",
        text=text,
        doc_id=ev.doc_id,
        chunk_id=ev.chunk_id,
        span=(a, a + len(text)),
        title=ev.title,
        typed=typed,
    )


def test_a_number_the_question_writes_with_its_unit_is_mentioned_by_the_same():
    # "…not yet delivered 100K of data?": the man page says "at least 100K of data", not "100".
    assert ans.uncovered(["100"], "A server that fails to provide at least 100K of data is skipped.") == []
    assert ans.uncovered(["100"], "a timeout of 100 ms") == []
    assert ans.uncovered(["100"], "at most 1000 items") == ["100"]


def test_another_releases_line_does_not_state_the_named_releases_date():
    # glom's CHANGELOG stops at 23.4.0: its 18.0.0 line, or an entry under it, says nothing of 23.5.0.
    own = ans.covering_text("glom's CHANGELOG", "/x/glom-23.5.0/CHANGELOG.md", "")
    q = "On what date was glom 23.5.0 released?"
    assert ans.another_release(q, "## 18.0.0 (April 30, 2018)", None, own)
    assert ans.another_release(q, "Semi-public beta release.", "## 18.0.0 (April 30, 2018)", own)
    assert not ans.another_release(q, "## 23.5.0 (December 1, 2023)", None, own)
    assert not ans.another_release("When did glom 23.4 come out?", "## 23.4.0 (November 7, 2023)", None, own)
    # A release's line may open with the product's name (Jansi's changelog, Markdown under a plain name).
    own = ans.covering_text("Jansi changes", "/x/libjansi-java/changelog.gz", "")
    q = "On what date did Jansi 2.4.0 come out?"
    assert ans.another_release(q, "## Jansi 2.0.1, released 2020-10-28", None, own)
    assert not ans.another_release(q, "## Jansi 2.4.0, released 2021-10-14", None, own)
    # A sentence that names only other releases of the product, a series too, is about them.
    q = "Which Python versions does sqlparse 0.5.0 support?"
    own = "sqlparse-0.5.0.readme.rst sqlparse"
    assert ans.another_release(q, "sqlparse 0.2.x supports Python 2.7 and Python >= 3.3.", None, own)
    assert not ans.another_release(q, "sqlparse 0.5.x supports Python 3.8+.", None, own)
    assert not ans.another_release(q, "sqlparse 0.5.0 supports 3.8, unlike sqlparse 0.4.4.", None, own)
    assert not ans.another_release(q, "sqlparse 5 parsers are slow.", None, own)  # a count, no release
    assert ans.another_release(q, "Drop support for Python 3.5.", "Release 0.4.0 (Apr 13, 2021)", own)
    assert not ans.another_release(q, "Drop support for Python 3.5.", "Release 0.5.0 (Apr 13, 2024)", own)
    # A series named in the question holds its releases.
    q, own = "Which version was the final release of the transitions 0.8 series?", "transitions-0.9.2: changelog"
    assert not ans.another_release(q, "Release 0.8.11 is the last 0.8 release", "## 0.8.11 (February 2022)", own)
    assert ans.another_release(q, "Release 0.9.0 adds typing", "## 0.9.0 (September 2022)", own)
    # "Python 3.12" names no arrow release; a question that names no release refuses nothing.
    own = ans.covering_text("arrow-1.3.0.CHANGELOG", "/x/arrow-1.3.0.CHANGELOG.rst", "")
    assert not ans.another_release("Which arrow release first supported Python 3.12?", "1.3.0 (2023-09-30)", None, own)
    assert not ans.another_release("When was arrow first released?", "0.1.0 (2013-05-01)", None, own)


def test_a_fact_answers_only_if_its_passage_covers_the_question():
    ev = _ev("Port forwarding: ssh can forward TCP port 5432 to a remote host.", title="ssh")
    f = _fact("Port forwarding: ssh can forward TCP port 5432 to a remote host.", ev)
    q = "What TCP port does the PostgreSQL server listen on?"
    # Nothing in the corpus mentions PostgreSQL: say so.
    facts, gaps = covered_facts(q, [f], [ev], unseen={"postgresql"})
    assert facts == [] and gaps == ["no passage in the corpus mentions 'PostgreSQL'"]
    # The corpus mentions it somewhere, but not these passages.
    facts, gaps = covered_facts(q, [f], [ev], unseen=set())
    assert facts == [] and gaps == ["the passages found do not mention 'PostgreSQL'"]
    # A "how many" question is not answered by a sentence without a number.
    ev = _ev("The wine dataset is a classic.", title="Wine recognition dataset")
    facts, gaps = covered_facts(
        "How many instances does the wine dataset have?", [_fact(ev.text, ev, False)], [ev], set()
    )
    assert facts == [] and gaps == ["no passage found states a number for what is asked"]
    # ... unless one was found but judged too far from the question: name it, so the user can read it
    # (split(1): "default size is 1000 lines" is a clause of its own, cut from what it is the size of).
    man = _ev("Output pieces of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines.", title="split.1")
    below = _fact("default size is 1000 lines.", man).model_copy(update={"relevance": 0.32})
    q = "How many lines end up in each output piece of split by default?"
    said = value_below_bar(q, ["no passage found states a number for what is asked"], [below], [man], set(), 0.35)
    assert said == [
        "no passage close to the question states a number; the closest that does, “default size is 1000 lines.” "
        "(“split.1”), is not close enough to be taken for the answer (relevance 0.32, below 0.35)"
    ]
    # A sentence that does not cover the question, or gaps of another kind, are left as they were.
    other = "How many lines does csplit put in each piece by default?"
    assert value_below_bar(other, gaps, [below], [man], set(), 0.35) == gaps
    absent = ["the passages found do not mention 'PostgreSQL'"]
    assert value_below_bar(q, absent, [below], [man], set(), 0.35) == absent
    # Nor a "why" by a sentence that gives no reason (tomli's README: the mode, not why).
    ev = _ev("tomli.load() needs the TOML file opened in binary mode (with the rb flag).", title="tomli README")
    why = "Why does tomli.load() require the TOML file to be opened in binary mode?"
    facts, gaps = covered_facts(why, [_fact(ev.text, ev, False)], [ev], set())
    assert facts == [] and gaps == ["no passage found states a reason for what is asked"]
    because = _ev("tomli.load() needs binary mode because it decodes the TOML file as UTF-8 itself.", title="tomli")
    facts, _ = covered_facts(why, [_fact(because.text, because, True)], [because], set())
    assert len(facts) == 1


def test_changelog_entries_take_their_release_from_the_heading_above():
    text = "## 0.25.0 (11th September, 2023)\n\n### Removed\n\n* Drop support for Python 3.7. (#2813)"
    cs = claims(text)
    entry = next(c for c in cs if "Drop" in c.text)
    q = "In which HTTPX release was support for Python 3.7 dropped?"
    head = heading_for(entry, cs, "version", q)
    assert head is not None and head.text == "## 0.25.0 (11th September, 2023)"


def test_a_sentence_opening_with_a_pronoun_is_quoted_with_the_one_before():
    text = "ssh-agent is installed setgid to prevent ptrace() attacks. This has the side-effect of dropping LD_PRELOAD."
    cs = claims(text)
    got = with_antecedent(cs[1], cs, text)
    assert got.text == text and text[got.start : got.end] == got.text


def test_a_default_of_nothing_named_is_read_and_quoted_with_the_sentence_before():
    # libxslt's xsltproc manual: the option's default is a sentence of its own that names nothing.
    text = (
        "--maxdepth VALUE\n\nAdjust the maximum depth of the template stack before libxslt(3) concludes it "
        "is in an infinite loop. The default is 3000.\n\n--maxparserdepth VALUE\n\nMaximum element nesting "
        "level of parsed XML documents. The default is 256."
    )
    cs = claims(text)
    got = with_antecedent(next(c for c in cs if c.text == "The default is 3000."), cs, text)
    assert got.text.startswith("Adjust the maximum depth") and got.text.endswith("The default is 3000.")
    assert text[got.start : got.end] == got.text
    ev = Evidence(chunk_id="c1", doc_id="d1", text=text, title="xsltproc", source="xsltproc.html", span=(0, len(text)))
    question = "By default, how deep can the template stack of libxslt get before it decides it is in an infinite loop?"
    facts = extractive_facts(question, ev, {}, limit=2)
    best = facts[0][0]
    assert "3000" in best.text and "infinite loop" in best.text and facts[0][2]  # typed: holds the number


def test_a_default_after_a_semicolon_is_read_and_quoted_with_its_clause():
    # split(1): the clause before the semicolon says what the default size is of.
    text = (
        "DESCRIPTION\n       Output  pieces  of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines, and "
        "default PREFIX is 'x'.\n\n       With no FILE, or when FILE is -, read standard input."
    )
    cs = claims(text)
    default = next(c for c in cs if c.text.startswith("default size"))
    got = with_antecedent(default, cs, text)
    assert got.text.startswith("Output  pieces  of FILE") and got.text.endswith("default PREFIX is 'x'.")
    assert text[got.start : got.end] == got.text


def test_a_number_word_that_picks_out_of_a_group_counts_nothing():
    q = "How many hashing rounds does libc use?"
    assert ans.answer_values("number", "If only one of the SHA_CRYPT_MIN_ROUNDS values is set, it is used.", q) == []
    assert ans.answer_values("number", "Requests is one of the most downloaded packages.", q) == []
    assert ans.answer_values("number", "No one knows; the one with 5 rounds wins.", q) == ["5"]
    assert ans.answer_values("number", "It uses three rounds.", q) == ["three"]


def test_a_negated_word_is_mentioned_by_the_word():
    # "uncompressed" in the question, "is not compressed" in savelog's manual.
    assert ans.uncovered(["uncompressed"], "Version number 0 is not compressed because a process might") == []
    assert ans.uncovered(["uncompressed"], "The archive is written to standard output.") == ["uncompressed"]


def test_code_tables_and_markup_are_not_prose():
    assert text_kind("The default block size is 10240 bytes.") == "prose"
    assert text_kind("00000000  7f 45 4c 46 02 01 01 00") == "data"
    assert text_kind("-z, --gzip\n    Filter through gzip.\n-j, --bzip2\n    Filter through bzip2.") == "options"
    assert text_kind(">>> import requests") == "code"
    assert text_kind("------") == "markup"
    # A record's field states a fact, however many symbols its value holds.
    assert text_kind("Requires-Python: >=2.7, !=3.0.*, !=3.1.*, !=3.2.*") == "prose"
    assert text_kind("Note: x = {a: b}; y = [1, 2];") == "code"
    assert text_kind("// error: cannot borrow `i` as mutable more than once at a time }") == "code"
    # A call is code, however few symbols it holds (Rich's README: its table rows were quoted as prose);
    # a sentence about one is not, nor is a man page's justified line that ends in "(", nor its header.
    assert (
        text_kind('table.add_row(\n    "May 25, 2018",\n    "Solo: A Star Wars Story",\n    "$393,151,347",\n)')
        == "code"
    )
    assert text_kind('console.print("Hello", "World!", style="bold red")') == "code"
    assert text_kind("app = Flask(__name__, instance_relative_config=True)") == "code"
    assert text_kind("ParseResults.asXML() - if used for debugging, switch to using ParseResults.dump()") == "prose"
    justified = (  # ucf(1), as the man page justifies it
        "of installed emacsen by calling it with the proper values of new file (\n"
        "       /usr/share/emacs/site-lisp/<pkg>/<pkg-init.el  ),  and  dest   file   (\n"
        "       /etc/emacs21/site-start.d/50<pkg-init.el ), and it should do the rest."
    )
    assert text_kind(justified) == "prose"
    assert text_kind("If  this  option  is  given  (\n  and  the  file  exists\n  )  tar  overwrites  it.") == "prose"
    # An apostrophe opens no string, nor does "#123" a comment: the words around them are prose.
    assert text_kind("session.close() doesn't close the pool; it's the adapter's job (see below)") == "prose"
    assert text_kind("app.run() (see #123 for why this is not safe in production)") == "prose"
    assert text_kind("JOURNALD.CONF(5)                 journald.conf                JOURNALD.CONF(5)") == "prose"
    # Stage directions are left out of claims; long sentences are cut, quotes still exact.
    text = "Thank you all so much. (Applause.) The economy grew by 3 percent."
    assert [c.text for c in claims(text)] == ["Thank you all so much.", "The economy grew by 3 percent."]
    long = "This is a long clause about the archive format, " * 12
    assert all(len(c.text) <= 400 and long[c.start : c.end] == c.text for c in claims(long))


def test_a_hyphenated_compound_of_plain_words_is_no_name():
    english = known_words()
    # Question writers hyphenate descriptions ("resource-usage numbers", "a non-root user"); a manual
    # writes them apart or in other words, so they are left to relevance like any plain words.
    assert ans.key_terms("Which system call supplies the resource-usage numbers?", english) == []
    assert ans.key_terms("Which groups let a non-root user read the journal?", english) == []
    # The part no dictionary knows still names something: "libffi" of "libffi-specific".
    assert ans.key_terms("Which libffi-specific variable points at a directory?", english) == ["libffi"]
    assert ans.key_terms("What does systemd-oomd need?", english) != []
    # A compound the corpus writes is a name: "apt-get" over a corpus that has apt-get's manual.
    assert ans.key_terms("Which exit status does apt-get return?", english) == []
    assert ans.key_terms("Which exit status does apt-get return?", english, {"apt-get"}) == ["apt-get"]


def test_a_word_known_only_by_its_parts_is_a_name_when_a_file_is_named_for_it():
    english = known_words()
    q = "What is the minimum Python version that the itsdangerous package declares it needs?"
    # "its" + "dangerous": two dictionary words, so alone it is read as plain words...
    assert ans.key_terms(q, english) == ["Python"]
    # ...but over a corpus holding itsdangerous-2.2.0.METADATA.txt it names what is asked about, and a
    # packaging policy that never mentions it cannot answer.
    assert ans.key_terms(q, english, {"itsdangerous"}) == ["Python", "itsdangerous"]
    # A word of the dictionary itself stays a word, whatever a file is named ("split.1.pdf").
    assert ans.key_terms("How many lines does split put in each piece?", english, {"split"}) == []


def test_a_why_question_is_answered_by_a_sentence_that_gives_a_reason():
    q = "Why does shred leave the file in place unless I ask it to remove it?"
    because = claims("The default is not to remove the files because it is common to operate on device files.")[0]
    caution = claims("CAUTION: shred assumes the file system and hardware overwrite data in place.")[0]
    assert ans.has_answer_type("reason", because, q)
    assert not ans.has_answer_type("reason", caution, q)
    deprecated = claims("This function is deprecated, as it cannot handle separate writable and executable addresses.")
    assert ans.has_answer_type("reason", deprecated[0], "Why is ffi_prep_closure deprecated?")
    # "How does it work" asks for a mechanism, which needs no "because".
    assert ans.has_answer_type("reason", caution, "How does shred overwrite a file?")
    # A purpose, a consequence or a cause in other words (tomli's README, valgrind's and gunicorn's docs,
    # pidof(8)), and what is none: an obligation, a list's "and so on", "and soon", causes a charity
    # gives to, an example's "such as".
    for reason in (
        "Binary mode will enforce decoding the file as UTF-8, both of which are required to correctly parse TOML.",
        "This option slows Massif down greatly, and so is off by default.",
        "This resource bound assumption is why we require a buffering proxy in front of Gunicorn.",
        "Usually these processes are skipped as trying to deal with them can cause pidof to hang.",
    ):
        assert ans.has_answer_type("reason", claims(reason)[0], q), reason
    for none in (
        "The user is required to log in first.",
        "It reads tar, zip, cpio and so on.",
        "It got the ball back and soon faced a third down.",
        "A quarter of the money goes to charitable causes.",
        "It handles tasks such as using a mirror.",
    ):
        assert not ans.has_answer_type("reason", claims(none)[0], q), none


def test_a_question_about_what_happens_when_nothing_is_said_asks_for_the_default():
    for q in (
        "If I start a program through nice without saying how much, by how much does its niceness go up?",
        "When I give split no size option, how many lines go in each piece?",
        "If I don't configure its lifetime, how long does a permanent session last?",
        "In which directory is the file created when TMPDIR is not set?",
        "How many times does wget retry by default?",
    ):
        assert ans.asks_default(q), q
        assert "default" in ans.question_terms(q)
    assert not ans.asks_default("How many lines does split put in each piece with -l 50?")
    # Asked in other words, without a subject or as "leave it alone".
    for q in (
        "On Debian, if I create a system account with adduser and don't say where its home should be, what home?",
        "Adding a repository with add-apt-repository and not naming a component with -c: what component is used?",
        "What is mypy's follow_imports setting when I leave it alone?",
        "With gdbus call, how many seconds does it wait for the reply if I leave out --timeout?",
    ):
        assert ans.asks_default(q) and ans.asks_for_default(q), q


def test_a_default_is_answered_only_by_a_sentence_that_states_one():
    q = "Which quantum depth is ImageMagick 6 built with by default?"
    assert ans.asks_for_default(q)
    assert ans.states_default("If these options are prohibitive, you can reduce the quality. The default build is Q16.")
    assert not ans.states_default(
        "For a Q8 build of ImageMagick, use this configure script option: --with-quantum-depth=8"
    )
    for said in (
        "-a, --algorithm 1 (default), 224, 256",
        "If not specified, this will default to main.",
        "N defaults to 1",
        "unless -s is given",
        "Initially the history holds 500 entries",
    ):
        assert ans.states_default(said), said
    # The default only sets the scene, or a reason is asked: any sentence may answer.
    assert not ans.asks_for_default("llvm-ar stores zero timestamps by default. What do I add to keep the real ones?")
    assert not ans.asks_for_default("Why does shred leave the file in place unless I ask it to remove it?")
    assert "default" not in ans.question_terms("Which option sets the niceness?")


def test_a_question_about_the_versions_something_needs_looks_for_its_requirement():
    # "Requires-Python: >=3.7" answers these, and shares only "Python" with them.
    for q in (
        "Which Python versions does Jinja2 say it supports?",
        "What is the oldest Python version PyJWT says it can be installed on?",
        "What is the minimum Python version that the itsdangerous package declares it needs?",
        "What Python version does attrs 23.2.0 require?",  # in the metadata's own word: searched the same way
        # Without the word "version" (realdocs3-5's conflict questions, answered from other lines before):
        "What's the oldest Python that cloudpickle can be installed on?",
        "What's the oldest cryptography release paramiko works with?",
        "If I install networkx with its default extras, how new must numpy be?",
    ):
        assert ans.asks_requirement(q), q
        assert [s.facet for s in extractive_sub_queries(q, "precise_fact", 5)][-1] == "requires"
    # Given what the question names, the requirement is looked for by those names and the metadata's
    # word alone: the question's other words ("minimum", "declares", "package") match a packaging policy.
    q = "What is the minimum Python version that the itsdangerous package declares it needs?"
    sub = extractive_sub_queries(q, "precise_fact", 5, ["Python", "itsdangerous"])[-1]
    assert (sub.facet, sub.text) == ("requires", "Python itsdangerous requires-python")
    # "Python" alone names no package ("click", a plain word no file is named for): the question's words.
    q = "Which Python versions does click support?"
    sub = extractive_sub_queries(q, "precise_fact", 5, ["Python"])[-1]
    assert sub.text == "Python versions click support requires-python"
    # Another package's version is required by the field that lists dependencies.
    q = "What's the oldest cryptography release paramiko works with?"
    assert extractive_sub_queries(q, "precise_fact", 5, ["cryptography", "paramiko"])[-1].text == (
        "cryptography paramiko requires-dist"
    )
    # Not a requirement: no version asked, or a reason.
    for q in (
        "What is the oldest release in the changelog?",
        "What is the minimum password length?",
        "How old must you be to vote?",
        "Why does a --version option in Click have to be marked as eager?",
    ):
        assert not ans.asks_requirement(q), q
    # "default extras" names pip's extra called "default": no default is asked.
    assert not ans.asks_for_default("If I install networkx with its default extras, how new must numpy be?")
    # The metadata's field states what such a question asks, as "Author:" does for "Who is the author?".
    assert ans.field_match("Which Python versions does Markdown say it needs?", "Requires-Python: >=3.6")
    assert not ans.field_match("Which Python versions does Markdown say it needs?", "Requires: glibc >= 2.17")
    # A dependency's line states the version of the dependency the question names, not of another.
    q = "If I install networkx with its default extras, how new must numpy be?"
    assert ans.field_match(q, "Requires-Dist: numpy >=1.23 ; extra == 'default'")
    assert not ans.field_match(q, "Requires-Dist: scipy >=1.11")
    q = "What is the oldest attrs release that jsonschema will accept as a dependency?"
    assert ans.field_match(q, "Requires-Dist: attrs (>=17.4.0)")
    assert not ans.field_match(q, "Requires-Dist: jsonschema-specifications>=2023.03.6")
    assert ans.field_match("Who is the author of requests?", "Author: Kenneth Reitz")
    assert not ans.field_match("Which Python versions does Markdown mention?", "Requires-Python: >=3.6")
    # A line whose value the question gives restates it (realdocs5 i16), unless the question asks whether.
    q = "Which websocket-client release switched the project to the Apache 2.0 licence?"
    assert not ans.field_match(q, "License: Apache-2.0")
    assert ans.field_match("Which licence is websocket-client under?", "License: Apache-2.0")
    assert ans.field_match("Is websocket-client released under the Apache 2.0 licence?", "License: Apache-2.0")
    # Not about versions: nothing added.
    assert not ans.asks_requirement("What is the Requires-Python constraint of pluggy 1.5.0?")
    assert not ans.asks_requirement("Which option does tar need to read a compressed archive?")
    assert not ans.asks_requirement("How tall is Mount Etna?")
    assert not ans.asks_requirement("How do I install Python packages with pip?")
    assert not ans.asks_requirement("When was the earliest version released?")


def test_a_question_about_a_licence_is_answered_by_a_line_that_names_one():
    """realdocs: "Under what licence is the CA certificate bundle shipped in certifi distributed?" was
    answered with "This is a bundle of X.509 certificates of public Certificate Authorities (CA)"."""
    q = "Under what licence is the CA certificate bundle shipped in certifi distributed?"
    assert ans.answer_type(q) == "licence" and ans.answer_type("Which license does tomli use?") == "licence"
    assert ans.answer_type("How many licenses are listed?") == "number"
    # A licence key, a licence server, what a licence says: no licence's name asked for.
    assert ans.answer_type("What license key do I need to activate the server?") != "licence"
    assert ans.answer_type("What does the license say about redistribution?") != "licence"
    # A licence the question's own words hold only inside another word is not named by it ("submit").
    assert ans.answer_values("licence", "License: MIT", "Under what licence can I submit patches?") == ["MIT"]
    assert ans.answer_values("licence", "MPLS routing is configured per interface.", q) == []
    topical = "This is a bundle of X.509 certificates of public Certificate Authorities (CA)."
    assert not ans.has_answer_type("licence", claims(topical)[0], q)
    assert ans.answer_values("licence", "License: MPL-2.0", q) == ["MPL-2.0"]
    assert ans.answer_values("licence", "It is released under the Mozilla Public License 2.0.", q) == [
        "Mozilla Public License 2.0"
    ]
    assert ans.answer_values("licence", "Requests is released under the Apache License, Version 2.0.", q) == [
        "Apache License, Version 2.0"
    ]
    assert ans.answer_values("licence", "licensed under GPLv3+", q) == ["GPLv3+"]
    assert ans.answer_values("licence", "The license text is in LICENSE.", q) == []


def test_a_sections_number_is_a_label_not_a_value():
    """The Debian Python policy's HTML: "in which Debian release was Python 2 supposed to go away?" led
    with "2.6" from the heading "### 2.6. python-support (removed)"."""
    q = "According to the Debian Python policy, in which Debian release was Python 2 supposed to go away?"
    assert ans.answer_values("version", "### 2.6. python-support (removed)", q) == []
    assert ans.answer_values("number", "#### 3.5.1. Interpreter Name", "How many names?") == []
    # A release heading is a release: no dot between its number and its text.
    assert ans.answer_values("version", "## 2.6.0 (2024-01-01)", q) == ["2.6.0"]
    assert ans.answer_values("version", "### v1.1.35: Feb 16 2022", q) == ["v1.1.35"]
    # A number that ends a hard-wrapped line's sentence is no heading.
    assert ans.answer_values("number", "default size is\n1000. Set it with -l.", "How many lines?") == ["1000"]
    # Only the label: the heading's other numbers stay.
    assert ans.answer_values("number", "## 2. Completing the move to Python 3", "How many?") == ["3"]


def test_a_written_date_is_one_value():
    q = "When was Underscore.js 1.13.4 released?"
    assert ans.answer_values("date", "1.13.4 — June 2, 2022 — Diff — Docs", q) == ["June 2, 2022"]
    assert ans.the_value("date", "Release 3.19.0 (11 Apr 2022)", q) == "11 Apr 2022"
    assert ans.answer_values("date", "Opened in 1932, rebuilt in March 1990.", q) == ["March 1990", "1932"]


def test_the_latest_release_is_the_greatest_version_not_the_best_worded_line():
    q = "What is the latest release of libxslt?"
    assert ans.latest_kind(q) == "version" and ans.latest_kind("What is the latest Valgrind release?") == "version"
    assert ans.latest_kind("When was the latest libxslt version released?") == "date"
    assert ans.latest_kind("What version of libxslt added xsl:number?") is None  # no "latest": not by order
    assert ans.latest_kind("How tall is the newest tower?") is None  # neither a version nor a date
    assert ans.value_order("version", "### v1.1.35: Feb 16 2022", q) == (1, 1, 35)
    assert ans.value_order("version", "Candidate release 1 of libxslt 1.1.34", q) == (1, 1, 34)
    assert ans.value_order("date", "### 0.1.0: Feb 8 2001", q) < ans.value_order("date", "v1.1.35: Feb 16 2022", q)
    assert ans.value_order("version", "No release named here.", q) == ()
    assert ans.value_order("version", "68.4 KB, Uncompressed with Bountiful Comments", q) == ()  # a size
    # A release's line, not a bullet that names a standard's number (gzip's NEWS).
    assert ans.release_value("version", "* Noteworthy changes in release 1.12 (2022-04-07) [stable]", q) == (1, 12)
    assert ans.release_value("version", "* zgrep etc. scripts now port to POSIX 1003.1-2001 hosts", q) == ()
    assert ans.release_order("version", "* zgrep etc. scripts now port to POSIX 1003.1-2001 hosts", None, q) == ()

    # A news page's releases, newest first: the entries under 1.1.35 answer, not the older line that
    # names libxslt and "release" (and not an entry that names another product's later version).
    text = (
        "### v1.1.35: Feb 16 2022\n\nSecurity: Fix use-after-free in xsltApplyTemplates.\n\n"
        "### v1.1.34: Oct 30 2019\n\nCleanups: Candidate release 1 of libxslt 1.1.34 was made.\n\n"
        "Build: libxslt now requires libxml2-2.9.0 or later."
    )
    ev = _ev(text, title="libxslt News")
    cs = claims(text)
    heads = {c.text: heading_for(c, cs, "version", q) for c in cs}
    facts = []
    for c in cs:
        if c.text.startswith("#"):
            continue
        f = _fact(c.text, ev)
        head = heads[c.text]
        if head is not None:
            hf = _fact(head.text, ev)
            facts += [hf]
            f = f.model_copy(update={"under": hf.id})
        facts.append(f.model_copy(update={"relevance": 0.9 if "libxslt" in c.text else 0.5}))
    supported = [f.id for f in facts if f.under]
    chosen = choose_facts(facts, supported, set(), 2, question=q)
    assert [f.text for f in chosen] == ["Security: Fix use-after-free in xsltApplyTemplates."]


def test_a_thing_described_but_not_named_is_a_back_reference():
    q = "HTTPX's README credits another library for its API layout. Under which licence is that library released?"
    assert ans.back_reference(q) == "that library"
    q = "The getpcaps manual says its output is shared with another libcap tool. When that other tool runs, how deep?"
    assert ans.back_reference(q) == "that other tool"
    # The words that name it, as far as the earlier sentence uses them.
    q = "My msgfmt manual page is for a particular gettext-tools release. When did that gettext release come out?"
    assert ans.back_reference(q) == "that gettext release"
    q = "The tar NEWS mentions a new option. In which release was that new option added?"
    assert ans.back_reference(q) == "that new option"
    # A release referred back to whose number the question never gives.
    q = "wheel 0.43.0 updated its vendored copy of packaging. On what date was that packaging version released?"
    assert ans.back_reference(q) == "that packaging version"
    q = "Our CI broke yesterday. What did that release fix?"
    assert ans.back_reference(q) == "that release"
    # Another thing's number does not name it; one after its own name does, in any sentence.
    q = "We use pipenv 2023.12.1 and pip. When was that pip version released?"
    assert ans.back_reference(q) == "that pip version"
    q = "The inspiration for HTTPX's API was another library. Under which licence is that library released?"
    assert ans.back_reference(q) == "that library"
    # Named where it is brought in, named before ("The wine dataset"), brought in by the user or by a
    # question: nothing to look for first.
    for q in (
        "HTTPX credits another library, Requests, for its API. Under which licence is that library released?",
        "gzip accepts an option -9. What does that option do?",
        "Tar has an option named --strip-components. What does that option do?",
        "A user can set an environment variable HTTPS_PROXY. Does httpx honour that variable?",
        "Rich has a Table class. How do I add a row to that table?",
        "The wine dataset has 3 classes. How many instances does that dataset have?",
        "I set a timeout. Is that timeout in seconds?",
        "What is a zombie process? How can I kill that process?",
        "wheel 0.43.0 updated its vendored packaging to 24.0. On what date was that packaging version released?",
        "Django 4.2 is a long-term support release. Until when is that release supported?",
        "Django 4.2, a long-term support release, is popular. Until when is that release supported?",
        "wheel pins packaging==24.0. When was that packaging version released?",
        "We use Django. I upgraded to 4.2. When does support for that release end?",
        "We upgraded pip yesterday. What changed in that release, 24.0?",
        "Our CI moved to v2. What did that release fix?",
        "Node 20 became LTS. What changed in that release?",
        # "that" opening a clause, a compound, a pandas series: no release pointed back at.
        "Our CI broke yesterday. Is it true that version 2.0 dropped Python 3.7?",
        "We read the pip FAQ. Does it say that version pinning is recommended?",
        "The docs cover setuptools. Which tool writes this release notes file?",
        "A pandas DataFrame has a column age. How do I convert this series to a list?",
    ):
        assert ans.back_reference(q) is None, q


def test_a_compound_the_documents_also_write_apart_is_words():
    from citegraph.retrievers.hybrid import written_apart

    texts = ["Mount it read-only.", "The file is opened read only, and apt-get is not run."]
    assert written_apart({"read-only", "apt-get"}, texts) == {"read-only"}
    assert written_apart({"read-only"}, ["read, only"]) == set()
    # So a question's "read-only" is plain words to coverage, "apt-get" a name.
    english = known_words()
    q = "Which apt-get option mounts it read-only?"
    assert ans.key_terms(q, english, {"read-only", "apt-get"} - written_apart({"read-only"}, texts)) == ["apt-get"]


def test_a_date_asked_in_so_many_words_is_a_date_whatever_releases_the_question_names():
    assert ans.answer_type("On what date was the release that added timeout_at?") == "date"
    assert (
        ans.answer_type(
            "The mechanize FAQ lists Python versions. When was the release that first supported the newest?"
        )
        == "date"
    )
    assert ans.answer_type("Which tzlocal release removed the shim, and on what date did it come out?") == "date"
    # A condition clause that opens with "when" asks nothing itself.
    assert ans.answer_type("When bc is started with -l, what version of the library is loaded?") == "version"
    assert ans.answer_type("Which Requests release dropped Python 2.7?") == "version"


def test_a_release_line_of_the_products_own_document_states_its_version():
    q = "Starting with which async-timeout version is a timeout of 0 no longer equivalent to passing None?"
    own = "Changelog\nasync-timeout-4.0.3.CHANGES.rst"
    assert ans.answer_values("version", "## 2.0.0 (2017-10-09)", q, own) == ["2.0.0"]
    assert ans.answer_values(
        "version", "Version 2.5.4 - April 21, 2022", "Which libseccomp version…?", "libseccomp2.NEWS"
    ) == ["2.5.4"]
    # Another product's document, or an entry that only mentions a version: not the product's release.
    assert ans.answer_values("version", "## 2.0.0 (2017-10-09)", q, "Changelog\nother-1.0.CHANGES.rst") == []
    assert (
        ans.answer_values(
            "version", "* Update the syscall table for Linux v5.17", "Which libseccomp version…?", "libseccomp2.NEWS"
        )
        == []
    )
    # "Which Python version": a release of the document's product is no Python version.
    assert ans.answer_values("version", "## 3.8.0", "Which Python version does foo need?", "foo-3.8.0.CHANGES") == []
    entry = claims(
        "## 2.0.0 (2017-10-09)\n\nChanged timeout <= 0 behaviour, prior this version 0 was shortcut for None"
    )
    assert heading_for(entry[1], entry, "version", q, own) is entry[0]
    assert heading_for(entry[1], entry, "version", q) is None


def test_a_dependency_line_states_the_dependencys_versions_only():
    line = "Requires-Dist: python-dateutil>=2.7.0"
    assert (
        ans.answer_values("version", line, "Which Python versions does the arrow package declare in Requires-Python?")
        == []
    )
    assert ans.answer_values("version", line, "Which python-dateutil version does arrow need?")
    assert ans.answer_values("version", "Requires-Python: >=3.8", "Which Python versions does arrow need?") == [">=3.8"]


def test_a_dictionary_word_called_a_package_is_a_name_when_a_file_is_named_for_it():
    english = known_words()
    q = "Which Python versions does the arrow package declare in Requires-Python?"
    assert "arrow" in ans.key_terms(q, english, {"arrow"})
    assert "arrow" not in ans.key_terms(q, english)  # no file named for it: a word
    assert "schedule" in ans.key_terms("When did the schedule library drop Python 3.6?", english, {"schedule"})
    assert "schedule" not in ans.key_terms("What is the default schedule of the cron program?", english, {"schedule"})


def test_a_dictionary_word_a_release_number_follows_is_a_name():
    # realdocs8 p31: "Jansi 2.1.0, released 2020-12-07" was quoted for tree 2.1.0's date.
    english = known_words()
    assert "tree" in ans.key_terms("On what date was tree 2.1.0 released?", english)
    assert "six" in ans.key_terms("When was six 1.16.0 released?", english)
    ev = _ev("## Jansi 2.1.0, released 2020-12-07", title="Jansi changes")
    q = "On what date was tree 2.1.0 released?"
    assert ans.uncovered(ans.key_terms(q, english), ans.covering_text(ev.title, ev.source, ev.text)) == ["tree"]
    # A version, a bound or a quantity names no product.
    for q in (
        "Does it still work with version 2.0?",
        "Is anything above 3.8 supported?",
        "When did libpng reach its 1.0.0 release?",
        "Which song received 1.3 million views?",
        "Which race of 5.9 miles is run every year?",
    ):
        assert set(ans.key_terms(q, english)) <= {"2.0", "3.8", "1.0.0", "1.3", "5.9", "libpng"}, q


def test_code_quoted_inline_in_a_sentence_leaves_it_prose():
    # async-timeout's README (realdocs8 o21): the reason was read as code and never quoted.
    said = "Also it's much faster than ``asyncio.wait_for()``\nbecause ``timeout`` doesn't create a new task."
    assert text_kind(said) == "prose"
    assert text_kind("``timeout(1.5)``") == "code"
    assert text_kind("x = foo(`a`, `b`) ; y = {1: 2}") == "code"


def test_a_requirement_glued_to_its_name_keeps_its_operator():
    q = "Which python-dateutil version does arrow need?"
    assert ans.answer_values("version", "Requires-Dist: python-dateutil>=2.7.0", q) == [">=2.7.0"]
    assert ans.answer_values("version", "Requires-Dist: MarkupSafe>=2.0", "Which MarkupSafe version?") == [">=2.0"]
    assert ans.answer_values("version", "Requires-Python: >=3.7, !=3.0.*", "Which Python versions?")[0] == ">=3.7"


def test_a_file_name_with_underscores_names_the_hyphenated_package():
    # PyPI's names treat "_" and "-" alike: charset_normalizer-2.0.12.METADATA.txt is charset-normalizer's
    # (realdocs4 h10: its Requires-Python line was refused for not mentioning 'charset-normalizer').
    text = ans.covering_text("", "/x/charset_normalizer-2.0.12.METADATA.txt", "Requires-Python: >=3.5.0")
    assert ans.uncovered(["charset-normalizer"], text) == []
    assert ans.uncovered(["charset_normalizer"], text) == []
    assert ans.uncovered(["urllib3"], text) == ["urllib3"]


def test_a_licences_version_is_not_a_release():
    # realdocs5 i16 led with "2.1": the LGPL's version, in the entry of the release that changed licence.
    q = "Which websocket-client release switched the project to the Apache 2.0 licence?"
    assert ans.answer_values("version", "Fix #697: Transition from LGPL 2.1 license to Apache 2.0 license", q) == []
    assert ans.answer_values("version", "## v1.8.0 Fix #697: Transition from LGPL 2.1 license to Apache 2.0", q) == [
        "v1.8.0"
    ]
