"""Questions about technical documents, written by a local model, to train the answer-sentence scorer
on the kind of text users ask citegraph about (training/train_sentences.py `--doc-questions`).

The scorer learnt from SQuAD and SQuAD Shifts (encyclopedia, news, Reddit, reviews). Real documents
are man pages, READMEs, changelogs and manuals: "-n, --adjustment=N add integer N to the niceness
(default 10)" answers "by how much does nice raise the niceness if I don't say?", and the scorer gave
that line 0.07. No question-answer set of such documents installs here, so this script makes one, the
way InPars and Promptagator do: it samples sentences from documentation on this machine, asks a local
model (Qwen2.5-Coder-1.5B-Instruct through llama.cpp's server, tools/local-model.sh) for a question a
user who has not read the document would ask and the sentence answers, and keeps a question only when
the answer it names is in the sentence word for word, the question does not contain that answer, and
the question does not copy the sentence (at most half of its content words are the sentence's).

Sources: man pages of sections 1, 5 and 8 (rendered `MANWIDTH=80 man -P cat`), the READMEs, NEWS and
FAQs under /usr/share/doc, and the METADATA long descriptions of the installed Python packages. Never
a program or package that any benchmarks/realdocs* set has a document of (their SOURCES files list
them): the benchmarks must stay documents the scorer has never read.

    tools/local-model.sh serve /tmp/llmvenv /tmp/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf 8765 &
    .venv/bin/python training/make_doc_questions.py --out training/data/doc-questions.jsonl --n 1500

Each line: {question, answer, sentence, start, doc, title, text_path}; the document's text is saved
beside (`--texts DIR`) so that training reads the same claims. Resumable: a rerun appends to --out and
skips the sentences already asked about. Seeded: the same machine gives the same sentence sample.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from citegraph.ingest.loaders import load_file
from citegraph.text.claims import claims
from citegraph.text.tokens import STOPWORDS, tokenize

ROOT = Path(__file__).resolve().parent.parent
WORD = re.compile(r"[A-Za-z][\w.+-]*")
_VALUE = re.compile(r"\d|\bdefault|\bbecause\b|\bso that\b|\bin order to\b|--?\w|\b[A-Z_]{3,}\b")

# A question about the text rather than the software ("What does the sentence about tokenizers
# suggest?", "What does this document list?") is no user's question.
_META = re.compile(
    r"\b(the|this) (sentence|document|text|passage|paragraph|section|software|package|program|tool)\b|"
    r"\bmentioned\b|\bthe (author|sender)\b",
    re.IGNORECASE,
)

PROMPT = """Document: {title}
Sentence from it: "{sentence}"

Write ONE question that a user of this software, who has NOT read the document, would ask, and that \
this sentence answers. Use your own words, not the sentence's phrases. Say which program or package \
the question is about. Then give the answer: the few words of the sentence, copied exactly, that \
answer it (at most 8 words).
Reply with JSON only: {{"question": "...", "answer": "..."}}"""


def excluded_names() -> set[str]:
    """Programs and packages the real-documents benchmarks have a document of (from their SOURCES)."""
    names: set[str] = set()
    for src in ROOT.glob("benchmarks/realdocs*/SOURCES-*.md"):
        for m in re.finditer(r"`?([A-Za-z0-9][\w.+-]*)\.(?:txt|pdf|html|md|rst|docx)`?", src.read_text()):
            stem = m.group(1)
            names.add(re.split(r"[-_.](?=\d)|\.", stem)[0].lower())
            names.add(stem.split("-")[0].lower())
        for m in re.finditer(r"/usr/share/(?:man/man\d|doc)/([\w.+-]+?)(?:\.\d\w*)?(?:\.gz)?[/ |`]", src.read_text()):
            names.add(m.group(1).lower())
    return {n for n in names if len(n) >= 2}


def same_program(name: str, excluded: set[str]) -> bool:
    base = re.split(r"[-_.](?=\d)", name.lower())[0]
    return base in excluded or name.lower() in excluded or base.split("-")[0] in excluded


def man_pages(excluded: set[str], rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(name, rendered text) of up to n man pages, sampled."""
    pages = []
    for section in ("1", "5", "8"):
        for p in sorted(Path(f"/usr/share/man/man{section}").glob("*.gz")):
            name = p.name[: -len(f".{section}.gz")] if p.name.endswith(f".{section}.gz") else p.stem
            if not same_program(name, excluded) and p.stat().st_size > 1500:
                pages.append((name, section))
    rng.shuffle(pages)
    # One page per family: the Google Cloud SDK alone ships thousands of gcloud-* pages.
    families: set[str] = set()
    varied = []
    for name, section in pages:
        family = re.split(r"[-_.]", name)[0]
        if family not in families:
            families.add(family)
            varied.append((name, section))
    out = []
    for name, section in varied[: n * 2]:
        try:
            text = subprocess.run(
                f"MANWIDTH=80 man -P cat {section} {name} 2>/dev/null | col -b",
                shell=True, capture_output=True, text=True, timeout=30, check=False,
            ).stdout  # fmt: skip
        except subprocess.TimeoutExpired:
            continue
        if len(text) > 1500:
            out.append((f"{name}.{section}.txt", text))
        if len(out) == n:
            break
    return out


def doc_files(excluded: set[str], rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(name, text) of READMEs, NEWS and FAQs under /usr/share/doc."""
    found = []
    for d in sorted(Path("/usr/share/doc").iterdir()):
        if not d.is_dir() or same_program(d.name, excluded):
            continue
        for f in sorted(d.iterdir()):
            if re.match(r"(README|NEWS|FAQ)(\.md|\.txt|\.Debian)?(\.gz)?$", f.name) and f.is_file():
                found.append((d.name, f))
    rng.shuffle(found)
    out = []
    for pkg, f in found:
        data = f.read_bytes()
        if f.suffix == ".gz":
            data = gzip.decompress(data)
        text = data.decode("utf-8", errors="replace")
        if 1000 < len(text) < 400_000:
            suffix = ".md" if ".md" in f.name else ".txt"
            out.append((f"{pkg}.{f.name.replace('.gz', '').replace('.md', '')}{suffix}", text))
        if len(out) == n:
            break
    return out


def package_docs(excluded: set[str], rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(name, long description) of installed Python packages' METADATA."""
    found = []
    for meta in sorted(Path(sys.prefix).glob("lib/python*/site-packages/*.dist-info/METADATA")):
        pkg = meta.parent.name.split("-")[0]
        if same_program(pkg, excluded):
            continue
        text = meta.read_text(encoding="utf-8", errors="replace")
        head, _, body = text.partition("\n\n")
        ctype = re.search(r"^Description-Content-Type:\s*text/(\w+)", head, re.M)
        if len(body) > 1500:
            kind = ctype.group(1) if ctype else "plain"
            suffix = {"markdown": "md", "x-rst": "rst"}.get(kind, "txt")
            found.append(
                (
                    f"{meta.parent.name.removesuffix('.dist-info')}.README.{suffix}",
                    body,
                )
            )
    rng.shuffle(found)
    return found[:n]


def sentences(text: str) -> list:
    """The claims a question may be asked about: prose of 6-60 words."""
    return [c for c in claims(text) if c.kind == "prose" and not c.question and 6 <= len(c.text.split()) <= 60]


def content(text: str) -> set[str]:
    return {t for t in tokenize(text) if t not in STOPWORDS}


def ask_model(client: httpx.Client, url: str, title: str, sentence: str) -> dict | None:
    body = {
        "model": "local",
        "messages": [{"role": "user", "content": PROMPT.format(title=title, sentence=" ".join(sentence.split()))}],
        "temperature": 0.7,
        "max_tokens": 90,
        "response_format": {"type": "json_object"},
    }
    r = client.post(f"{url}/chat/completions", json=body, timeout=120)
    r.raise_for_status()
    raw = r.json()["choices"][0]["message"]["content"]
    m = re.search(r"\{.*\}", raw, re.S)
    try:
        got = json.loads(m.group(0)) if m else None
    except json.JSONDecodeError:
        return None
    return got if isinstance(got, dict) else None


def keep(q: str, a: str, sentence: str) -> bool:
    """The checks a generated question must pass (see the module docstring)."""
    q, a = " ".join(str(q).split()), " ".join(str(a).split())
    if not q.endswith("?") or not 5 <= len(q.split()) <= 35 or not a:
        return False
    # The answer the model names comes from the sentence: word for word, or two thirds of its content
    # words (a small model paraphrases; "Use white space in place of the equals sign." is right).
    ac = content(a)
    if a.lower() not in " ".join(sentence.split()).lower() and (
        not ac or len(ac & content(sentence)) < 2 / 3 * len(ac)
    ):
        return False
    if a.lower() in q.lower() or _META.search(q):
        return False
    qc = content(q)
    return bool(qc) and len(qc & content(sentence)) <= 0.5 * len(qc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "training/data/doc-questions.jsonl")
    ap.add_argument("--texts", type=Path, default=ROOT / "training/data/doc-texts")
    ap.add_argument("--url", default="http://127.0.0.1:8765/v1")
    ap.add_argument("--n", type=int, default=1500, help="questions to keep")
    ap.add_argument("--docs", type=int, default=600, help="documents to sample sentences from")
    ap.add_argument("--per-doc", type=int, default=4, help="sentences asked about per document")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    excluded = excluded_names()
    third = args.docs // 3
    sources = man_pages(excluded, rng, third) + doc_files(excluded, rng, third) + package_docs(excluded, rng, third)
    print(f"{len(sources)} documents ({len(excluded)} benchmark programs and packages left out)", flush=True)
    args.texts.mkdir(parents=True, exist_ok=True)
    previous = (
        [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()] if args.out.exists() else []
    )
    done = {r["key"] for r in previous}
    tasks = []
    for name, raw in sources:
        path = args.texts / name
        path.write_text(raw, encoding="utf-8")
        loaded = load_file(path)
        if not loaded.docs:
            continue
        doc = loaded.docs[0]
        (args.texts / f"{name}.loaded.txt").write_text(doc.text, encoding="utf-8")
        cands = sentences(doc.text)
        # Sentences holding a value, an option, a default or a reason first (what users ask for), some
        # plain ones too.
        valued = [c for c in cands if _VALUE.search(c.text)]
        plain = [c for c in cands if not _VALUE.search(c.text)]
        rng.shuffle(valued)
        rng.shuffle(plain)
        k = args.per_doc
        picked = valued[: k - k // 4] + plain[: k // 4]
        for c in picked:
            key = hashlib.sha1(f"{name}\n{c.start}".encode()).hexdigest()[:16]
            if key not in done:
                tasks.append((key, name, doc.title, c))
    rng.shuffle(tasks)
    kept = sum(r["kept"] for r in previous)
    started = time.time()
    with httpx.Client() as client, args.out.open("a", encoding="utf-8") as out:
        for i, (key, name, title, c) in enumerate(tasks):
            if kept >= args.n:
                break
            try:
                got = ask_model(client, args.url, title, c.text)
            except httpx.HTTPError as exc:
                print(f"model call failed: {exc}", file=sys.stderr)
                continue
            ok = bool(got) and keep(got.get("question", ""), got.get("answer", ""), c.text)
            rec = {
                "key": key,
                "kept": ok,
                "question": " ".join(str((got or {}).get("question", "")).split()),
                "answer": " ".join(str((got or {}).get("answer", "")).split()),
                "sentence": c.text,
                "start": c.start,
                "doc": name,
                "title": title,
            }
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            kept += ok
            if i % 20 == 0:
                rate = (time.time() - started) / (i + 1)
                print(f"{i + 1} asked, {kept} kept, {rate:.1f} s a question", flush=True)


if __name__ == "__main__":
    main()
