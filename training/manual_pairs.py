"""Questions about manuals written and checked by reading (training/data/manual-pairs.jsonl), made ready
for the answer-sentence scorer's training: training/train_sentences.py `--doc-questions`.

The scorer learnt from SQuAD and SQuAD Shifts and gives the answering line of a manual 0.05-0.6 (the
dev sets' stages, docs/BENCHMARKS.md, session 24); the questions a local model wrote about other
documents (make_doc_questions.py) made it worse on realdocs (session 12). These were written by a reader
over the text files of benchmarks/realdocs and realdocs2 (dev sets: their answers have been read for
failures anyway; realdocs3-7 stay documents the scorer never reads), about other facts than the
benchmarks' questions, each with the one sentence that states its answer, copied from the file.

Each sentence is found in the file's text as citegraph loads it (ingest/loaders.py, the text the claims
are cut from), whitespace aside, and written out in make_doc_questions.py's format (question, answer,
sentence, start, doc, title) with the loaded text beside it, so training reads the same claims as
extraction. A pair whose sentence the loader's text does not hold (markup the loader removes) is
reported and skipped.

    .venv/bin/python training/manual_pairs.py training/data/manual-pairs.jsonl \
        --out training/data/manual-questions.jsonl --texts training/data/manual-texts
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from citegraph.ingest.loaders import load_file

ROOT = Path(__file__).resolve().parent.parent


def locate(sentence: str, text: str) -> int | None:
    """Where `sentence` starts in `text`, any run of whitespace matching any other; failing that, where its
    letters and digits start, so a sentence the loader repaired (a PDF or man page hyphenation joined,
    Markdown emphasis or a reST role removed) is still found. Short sentences need the exact match: a
    handful of letters could start anywhere."""
    words = sentence.split()
    if not words:
        return None
    m = re.search(r"\s+".join(map(re.escape, words)), text)
    if m:
        return m.start()
    needle = "".join(c for c in sentence if c.isalnum())
    if len(needle) < 20:
        return None
    at = [i for i, c in enumerate(text) if c.isalnum()]
    found = "".join(text[i] for i in at).find(needle)
    return at[found] if found >= 0 else None


def convert(pairs: list[dict], root: Path, texts: Path) -> tuple[list[dict], list[str]]:
    """(records in make_doc_questions.py's format, ids of the pairs whose sentence the loaded text lacks);
    each document's loaded text is written to `texts` as NAME.loaded.txt."""
    texts.mkdir(parents=True, exist_ok=True)
    loaded: dict[str, tuple[str, str, str] | None] = {}
    rows, missing = [], []
    for p in pairs:
        if p["file"] not in loaded:
            got = load_file(root / p["file"])
            doc = got.docs[0] if got.docs else None
            name = p["file"].replace("/", "__")
            loaded[p["file"]] = (name, doc.title or Path(p["file"]).stem, doc.text) if doc else None
            if doc:
                (texts / f"{name}.loaded.txt").write_text(doc.text, encoding="utf-8")
        entry = loaded[p["file"]]
        start = locate(p["sentence"], entry[2]) if entry else None
        if entry is None or start is None:
            missing.append(p["id"])
            continue
        name, title, _ = entry
        rows.append(
            {
                "key": p["id"],
                "kept": True,
                "question": p["question"],
                "answer": p["answer"] or p["sentence"],  # a reason or a way: the whole sentence answers
                "sentence": p["sentence"],
                "start": start,
                "doc": name,
                "title": title,
            }
        )
    return rows, missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", type=Path)
    ap.add_argument("--root", type=Path, default=ROOT / "benchmarks", help="the folder the pairs' files are under")
    ap.add_argument("--out", type=Path, default=ROOT / "training/data/manual-questions.jsonl")
    ap.add_argument("--texts", type=Path, default=ROOT / "training/data/manual-texts")
    a = ap.parse_args()
    pairs = [json.loads(line) for line in a.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, missing = convert(pairs, a.root, a.texts)
    a.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} questions over {len({r['doc'] for r in rows})} documents -> {a.out}")
    if missing:
        print(f"{len(missing)} sentences not in the loaded text, skipped: {', '.join(missing)}")


if __name__ == "__main__":
    main()
