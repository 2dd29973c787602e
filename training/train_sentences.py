"""Train the answer-sentence scorer's weights (src/citegraph/models/sentences-minilm.safetensors): of the
sentences of the passages found, which one states the answer?

    S=/tmp/bb/bigbench-1.0.0/bigbench/benchmark_tasks/squad_shifts
    .venv/bin/python training/train_sentences.py ../shared/data/squad-dev \
        --shifts $S/nyt_v1.0.json --shifts $S/reddit_v1.0.json \
        --shifts $S/amazon_reviews_v1.0.json --shifts $S/new_wiki_v1.0.json

(2 CPU cores: ~10 minutes to make the 85,714 pairs, ~70 to train; the pairs are reproduced exactly and
the training is seeded.)

The reader (training/train_reader.py) reads a whole passage and says whether it states the answer; on
the single sentences extraction has to choose between it ranks the answer's sentence first for 9 of
42 dev questions of benchmarks/realdocs (the lexical relevance: 25). This model is trained for that choice.

Data: questions with their answer's character offset, so the sentence that holds the answer is known:
- SQuAD 1.1 dev (../shared/data/squad-dev; its `answers` are strings, so a sentence holds the answer
  when it contains one) without the paragraphs of the benchmarks made from it: the `eval answers
  --limit 200` sample (seed 0) and the first `--leave-first` documents, which the gold-removed set of
  benchmarks/make_splits.py is drawn from;
- SQuAD Shifts (Miller et al. 2020, CC BY 4.0; `squad_shifts/*_v1.0.json` in the PyPI sdist
  `bigbench==1.0.0`): new Wikipedia, New York Times articles, Reddit posts and Amazon reviews, so that
  not every training sentence reads like an encyclopedia. Paragraphs that are near copies of a left-out
  squad-dev paragraph are left out too.
Each question's paragraph is split with citegraph's own claim splitter (the units extraction chooses
between); the claim at the answer's offset is the positive, and the paragraph's other claims that do
not contain an answer string are the negatives, the `--negatives` that share most words with the
question first (the topical sentence that is not the answer is the mistake to unlearn), plus the
`--other-negatives` claims of the article's other paragraphs that share most words with the question
(the evidence is missing and the topic is not: what a corpus without the answer offers instead). The
weights of session 10 had one claim of one random other paragraph; session 11's have two chosen so.
Each claim is read the way extraction reads it (`nodes/extract.reading`: a claim opening with a
pronoun is prefixed with its subject) after its document's title, `title: claim`.

Model: all-MiniLM-L6-v2 from its package as a one-logit sequence classifier, the top `--layers` layers,
pooler and head trained (train_reader.train); only those tensors ship, in fp16.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from make_doc_questions import keep
from train_reader import benchmark_paragraphs, contains_answer, overlapping, train

from citegraph.eval.datasets import load_dataset
from citegraph.nodes.extract import reading
from citegraph.reader import sentence_text as text_of
from citegraph.text.claims import claims

WORD = re.compile(r"\w+")


@cache
def paragraph_claims(text: str) -> tuple:
    return tuple(claims(text))


def question_pairs(
    question: str, title: str, paragraph: str, answers: list[str], starts: list[int], others: list[str],
    negatives: int, other_negatives: int,
) -> list[dict]:  # fmt: skip
    cs = paragraph_claims(paragraph)
    if len(cs) < 2:
        return []
    pos = [c for c in cs if any(c.start <= s < c.end for s in starts) and contains_answer(c.text, answers)]
    if not pos:
        return []
    qwords = set(WORD.findall(question.lower()))

    def overlap(c) -> int:
        return len(qwords & set(WORD.findall(c.text.lower())))

    neg = sorted((c for c in cs if not contains_answer(c.text, answers)), key=lambda c: -overlap(c))
    rows = [{"q": question, "p": text_of(title, reading(pos[0], list(cs), title)), "y": 1}]
    rows += [{"q": question, "p": text_of(title, reading(c, list(cs), title)), "y": 0} for c in neg[:negatives]]
    # The evidence is missing: the answer's paragraph is not among the passages found, and the article's
    # other paragraphs, on the same topic, are. Their claims that share most of the question's words are
    # what a user's corpus offers instead of the answer (the gold-removed benchmark's case).
    away = [(c, ocs) for o in others for ocs in [paragraph_claims(o)] for c in ocs]
    away = [(c, ocs) for c, ocs in away if not contains_answer(c.text, answers)]
    away.sort(key=lambda x: -overlap(x[0]))
    for c, ocs in away[:other_negatives]:
        rows.append({"q": question, "p": text_of(title, reading(c, list(ocs), title)), "y": 0})
    return rows


def squad_dev_pairs(
    folder: Path, leave_first: int, hold_out: int, limit: int, negatives: int, other_negatives: int, seed: int
):
    ds = load_dataset(folder)
    corpus = [json.loads(line) for line in ds.corpus_file.open()]
    by_id = {d["_id"]: d for d in corpus}
    left = {d["_id"] for d in corpus[:leave_first]} | benchmark_paragraphs(ds, hold_out)
    by_title: dict[str, list[str]] = {}
    for d in corpus:
        by_title.setdefault(d["title"], []).append(d["_id"])
    rng = random.Random(seed)
    qs = [q for q in ds.queries if q.id in ds.qrels]
    rng.shuffle(qs)
    rows, used = [], 0
    for q in qs:
        cid = next(iter(ds.qrels[q.id]))
        if cid in left or used >= limit:
            continue
        d = by_id[cid]
        answers = list(q.extra["answers"])
        starts = [m.start() for a in answers for m in re.finditer(re.escape(a), d["text"])]
        others = [by_id[o]["text"] for o in by_title[d["title"]] if o != cid and o not in left]
        got = question_pairs(q.text, d["title"], d["text"], answers, starts, others, negatives, other_negatives)
        rows += got
        used += bool(got)
    return rows, [by_id[c]["text"] for c in left]


def shifts_pairs(
    path: Path, left_texts: list[str], limit: int, negatives: int, other_negatives: int, seed: int
) -> list[dict]:
    data = json.loads(path.read_text())["data"]
    texts = [p["context"] for art in data for p in art["paragraphs"]]
    near = overlapping(texts, left_texts)
    rng = random.Random(seed)
    items = []
    for art in data:
        pars = [p["context"] for p in art["paragraphs"]]
        for par in art["paragraphs"]:
            if par["context"] in near:
                continue
            for qa in par["qas"]:
                others = [o for o in pars if o != par["context"] and o not in near]
                items.append((art["title"], par["context"], qa, others))
    rng.shuffle(items)
    rows, used = [], 0
    for title, ctx, qa, others in items:
        if used >= limit:
            break
        answers = sorted({a["text"] for a in qa["answers"]})
        starts = [a["answer_start"] for a in qa["answers"]]
        got = question_pairs(qa["question"], title, ctx, answers, starts, others, negatives, other_negatives)
        rows += got
        used += bool(got)
    print(f"{path.name}: {used} questions, {len(near)} paragraphs left out as near copies", flush=True)
    return rows


def doc_question_pairs(path: Path, texts: Path, negatives: int, other_negatives: int, seed: int) -> list[dict]:
    """Pairs from the questions a local model wrote about technical documents (make_doc_questions.py):
    the sentence asked about is the positive; the document's other claims that do not hold the answer,
    those sharing most words with the question first, and the claims of other documents sharing most
    words (the evidence is missing, a neighbouring manual's sentence is offered) are the negatives."""
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    recs = [r for r in recs if keep(r["question"], r["answer"], r["sentence"])]
    docs = {r["doc"]: (texts / f"{r['doc']}.loaded.txt").read_text(encoding="utf-8") for r in recs}
    doc_claims = {d: [c for c in paragraph_claims(t) if not c.question] for d, t in docs.items()}
    rng = random.Random(seed)
    rows = []
    for r in recs:
        cs = doc_claims[r["doc"]]
        pos = [c for c in cs if c.start <= r["start"] < c.end]
        if not pos:
            continue
        qwords = set(WORD.findall(r["question"].lower()))

        def overlap(c, qwords: set[str] = qwords) -> int:
            return len(qwords & set(WORD.findall(c.text.lower())))

        answers = [r["answer"]]
        rows.append({"q": r["question"], "p": text_of(r["title"], reading(pos[0], cs, r["title"])), "y": 1})
        neg = sorted(
            (c for c in cs if c is not pos[0] and not contains_answer(c.text, answers)), key=lambda c: -overlap(c)
        )
        rows += [
            {"q": r["question"], "p": text_of(r["title"], reading(c, cs, r["title"])), "y": 0} for c in neg[:negatives]
        ]
        others = [d for d in docs if d != r["doc"]]
        rng.shuffle(others)
        away = [(c, d) for d in others[:20] for c in doc_claims[d] if not contains_answer(c.text, answers)]
        away.sort(key=lambda x: -overlap(x[0]))
        for c, d in away[:other_negatives]:
            title = next(x["title"] for x in recs if x["doc"] == d)
            rows.append({"q": r["question"], "p": text_of(title, reading(c, doc_claims[d], title)), "y": 0})
    print(f"{path.name}: {sum(x['y'] for x in rows)} questions, {len(rows)} pairs", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("squad", type=Path, help="BEIR folder of SQuAD 1.1 dev (../shared/data/squad-dev)")
    ap.add_argument("--shifts", type=Path, action="append", default=[], help="SQuAD Shifts files (see above)")
    ap.add_argument("--out", type=Path, default=Path("src/citegraph/models/sentences-minilm.safetensors"))
    ap.add_argument("--per-source", type=int, default=3000, help="questions drawn from each source")
    ap.add_argument("--negatives", type=int, default=3, help="negative claims of the same paragraph per question")
    ap.add_argument(
        "--other-negatives", type=int, default=2,
        help="negative claims of the article's other paragraphs per question, those sharing most words first",
    )  # fmt: skip
    ap.add_argument("--leave-first", type=int, default=600, help="squad-dev documents never trained on")
    ap.add_argument("--hold-out", type=int, default=200, help="leave out the paragraphs of this benchmark sample")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs-only", type=Path, help="write the pairs as JSONL here and stop")
    ap.add_argument("--doc-questions", type=Path, help="questions about technical documents (make_doc_questions.py)")
    ap.add_argument("--doc-texts", type=Path, default=Path("training/data/doc-texts"))
    ap.add_argument("--init", type=Path, help="start from these weights (a further stage of shipped ones)")
    a = ap.parse_args()
    rows, left_texts = squad_dev_pairs(
        a.squad, a.leave_first, a.hold_out, a.per_source, a.negatives, a.other_negatives, a.seed
    )
    print(f"squad-dev: {len(rows)} pairs", flush=True)
    if a.doc_questions:
        rows += doc_question_pairs(a.doc_questions, a.doc_texts, a.negatives, a.other_negatives, a.seed)
    for path in a.shifts:
        rows += shifts_pairs(path, left_texts, a.per_source, a.negatives, a.other_negatives, a.seed)
    print(f"{len(rows)} pairs, {sum(r['y'] for r in rows)} positive", flush=True)
    if a.pairs_only:
        a.pairs_only.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return
    import torch
    from safetensors.torch import save_file

    torch.set_num_threads(2)
    tensors = train(rows, a.layers, a.epochs, a.max_length, a.lr, a.seed, a.init)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(a.out))
    print(f"wrote {a.out} ({sum(t.numel() for t in tensors.values())} parameters)")


if __name__ == "__main__":
    main()
