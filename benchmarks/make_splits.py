"""Build the abstention benchmarks of docs/BENCHMARKS.md from ../shared/data, each cut into a dev half
(used to choose the judge and its threshold) and a test half (reported, never used to choose):

- gold-removed: SQuAD 1.1 dev questions over its first N paragraphs, one question for each of a
  seeded sample of paragraphs; for half of them the gold paragraph is left out of the corpus, so those
  are unanswerable because the evidence is missing, the case users meet most. The other paragraphs of
  the same articles stay, so the topic is still there.
- unanswerable: the SQuAD 2.0-style adversarial set as it is (question written against the very
  paragraph that lacks the answer), its queries cut in two.

    .venv/bin/python benchmarks/make_splits.py ../shared/data --out .citegraph/data

writes OUT/{gold-removed,unanswerable}-{dev,test}/ in BEIR format (corpus.jsonl, queries.jsonl with
`answerable`, qrels.tsv); a half's corpus is the whole benchmark's corpus, so both halves ingest into
one corpus folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
from pathlib import Path


def half(qid: str) -> str:
    return "dev" if int(hashlib.sha1(qid.encode()).hexdigest(), 16) % 2 == 0 else "test"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(folder: Path, corpus: list[dict], queries: list[dict], qrels: list[tuple[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in qrels))


def gold_removed(data: Path, out: Path, paragraphs: int, questions: int, seed: int) -> None:
    corpus = read_jsonl(data / "squad-dev" / "corpus.jsonl")[:paragraphs]
    by_doc: dict[str, list[str]] = {}
    for line in (data / "squad-dev" / "qrels.tsv").read_text().splitlines()[1:]:
        qid, did, _ = line.split("\t")
        by_doc.setdefault(did, []).append(qid)
    texts = {q["_id"]: q for q in read_jsonl(data / "squad-dev" / "queries.jsonl")}
    rng = random.Random(seed)
    sampled = rng.sample([d for d in corpus if by_doc.get(d["_id"])], questions)
    removed = {d["_id"] for d in rng.sample(sampled, questions // 2)}
    kept = [d for d in corpus if d["_id"] not in removed]
    rows: dict[str, tuple[list[dict], list[tuple[str, str]]]] = {"dev": ([], []), "test": ([], [])}
    for d in sampled:
        q = texts[rng.choice(sorted(by_doc[d["_id"]]))]
        answerable = d["_id"] not in removed
        queries, qrels = rows[half(q["_id"])]
        queries.append({"_id": q["_id"], "text": q["text"], "answers": q["answers"], "answerable": answerable})
        if answerable:
            qrels.append((q["_id"], d["_id"]))
    for name, (queries, qrels) in rows.items():
        write(out / f"gold-removed-{name}", kept, queries, qrels)


def unanswerable(data: Path, out: Path) -> None:
    src = data / "unanswerable"
    qrels = [line.split("\t")[:2] for line in (src / "qrels.tsv").read_text().splitlines()[1:]]
    for name in ("dev", "test"):
        folder = out / f"unanswerable-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / "corpus.jsonl", folder / "corpus.jsonl")
        queries = [q for q in read_jsonl(src / "queries.jsonl") if half(q["_id"]) == name]
        ids = {q["_id"] for q in queries}
        write(folder, read_jsonl(src / "corpus.jsonl"), queries, [(q, d) for q, d in qrels if q in ids])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("data", type=Path, help="the shared data folder (squad-dev/, unanswerable/)")
    p.add_argument("--out", type=Path, default=Path(".citegraph/data"))
    p.add_argument("--paragraphs", type=int, default=1200, help="first N squad-dev paragraphs")
    p.add_argument("--questions", type=int, default=300, help="questions (one per sampled paragraph)")
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    gold_removed(a.data, a.out, a.paragraphs, a.questions, a.seed)
    unanswerable(a.data, a.out)
    for f in sorted(a.out.glob("*/queries.jsonl")):
        qs = read_jsonl(f)
        print(f"{f.parent.name}: {len(qs)} questions, {sum(not q['answerable'] for q in qs)} unanswerable")


if __name__ == "__main__":
    main()
