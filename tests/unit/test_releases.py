"""Which documents are releases of one another (text/releases.py), on file names from the real-documents
benchmarks."""

from citegraph.text.releases import document_name, releases, series


def test_a_file_is_named_for_its_name_before_the_first_dot_less_its_version():
    assert document_name("itsdangerous-2.2.0.METADATA.txt") == "itsdangerous"
    assert document_name("nice.1.pdf") == "nice"
    assert document_name("python-dateutil-2.9.0.post0.NEWS") == "python-dateutil"
    assert document_name("tune2fs.8.pdf") == "tune2fs"  # a digit inside the name stays
    assert document_name("Markdown-3.6.METADATA.txt") == "markdown"
    assert document_name("manual-v2.3.pdf") == "manual"


def test_a_release_is_a_file_name_with_a_dotted_version():
    assert series("click-7.1.2.METADATA.txt") == series("click-8.1.7.METADATA.txt") == "click-#.metadata.txt"
    assert series("Jinja2-2.11.3.METADATA.txt") == series("jinja2-3.1.4.METADATA.txt")  # case aside
    assert series("manual-v2.3.pdf") == series("manual-v3.0.pdf")
    # A README and a METADATA of one release are two documents, not two releases of one.
    assert series("requests-2.25.1.METADATA.txt") != series("requests-2.31.0.README.md")
    # No dotted version: a man page section, a year, a plain name.
    assert series("tar.1.txt") is None and series("report-2023.pdf") is None and series("wine.rst") is None


def test_releases_are_other_files_of_the_series_nearest_version_first():
    paths = {
        "a": "/c/cachetools-4.2.4.METADATA.txt",
        "b": "/c/cachetools-5.5.0.METADATA.txt",
        "c": "/c/cachetools-5.3.3.METADATA.txt",
        "d": "/c/cachetools-1.0.0.METADATA.txt",
        "r1": "/c/records.jsonl",  # records of one file are never releases of one another
        "r2": "/c/records.jsonl",
        "w": "/c/wine.rst",
    }
    found = releases(paths)
    assert found["b"] == ["c", "a"] and found["a"] == ["c", "b"]  # at most two, nearest first
    assert "r1" not in found and "w" not in found


def test_a_generic_file_name_goes_by_its_folder():
    from citegraph.text.releases import known_name

    assert known_name("/usr/share/doc/libelf1/changelog.Debian.gz") == "libelf1.changelog.Debian"
    assert known_name("/x/arrow-1.3.0.dist-info/METADATA") == "arrow-1.3.0.dist-info.METADATA"
    assert known_name("/x/arrow-1.3.0.METADATA.txt") == "arrow-1.3.0.METADATA.txt"
    assert known_name("/x/README.md.gz") == "x.README.md"
    assert document_name(known_name("/usr/share/doc/libelf1/copyright")) == "libelf1"
    # Two wheels' METADATA are two releases of one document, though both files are called METADATA.
    paths = {
        "a": "/x/arrow-0.15.5.dist-info/METADATA",
        "b": "/x/arrow-1.3.0.dist-info/METADATA",
        "c": "/x/bidict-0.23.1.dist-info/METADATA",
    }
    assert releases(paths) == {"a": ["b"], "b": ["a"]}
