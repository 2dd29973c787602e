"""The support check on a model's sentences (issue 19), measured: every sentence the LLM engine's model
wrote, the facts it cites, and whether the check let it into the answer; then, against labels made by
reading (supported / unsupported by its cited quotes), how many unsupported sentences reach answers
before and after the check, and the check's precision and recall.

Collect (a model server must answer; one question at a time, ~40 s each with the local 1.5B model):

    .venv/bin/python benchmarks/support_check.py collect --set gold-removed-test \\
        --data .citegraph/data/gold-removed-test --corpus .citegraph/bench/gold-removed --limit 40 \\
        --llm-base-url http://127.0.0.1:8765/v1 --llm-model local --out benchmarks/support-check/sentences.jsonl
    .venv/bin/python benchmarks/support_check.py collect --set realdocs4 \\
        --questions benchmarks/realdocs4/questions-*.jsonl --corpus .citegraph/bench/realdocs4 --limit 30 …
        (the same --out: appended)

Each line: `id` (question id and sentence number), the question, the sentence as the check saw it
(the code's ids stripped), the quotes it cites, and `dropped` (the check's reason, or null: it reached
the answer). Label by reading, without looking at `dropped`: a labels file of `{id, label:
supported|unsupported, note}` lines. Then

    .venv/bin/python benchmarks/support_check.py score benchmarks/support-check/sentences.jsonl \\
        benchmarks/support-check/labels.jsonl

A sentence is "supported" when its cited quotes (with the question, which a sentence may restate) say
what it says; whether it answers the question is not this label's business (coverage and the judge
decide that before write).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from citegraph.answer.compose import declines, refusal
from citegraph.api import graph_input, make_context
from citegraph.eval.datasets import load_dataset
from citegraph.eval.documents import load_questions
from citegraph.graph import builder
from citegraph.nodes.write import write_answer
from citegraph.schemas import Fact

GRAPH = builder.compile(checkpointer=InMemorySaver())


def questions(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.data:
        qs = [(q.id, q.text) for q in load_dataset(args.data).queries]
    else:
        qs = [(q.id, q.text) for q in load_questions(args.questions)]
    qs.sort()
    if args.limit and args.limit < len(qs):
        qs = random.Random(args.seed).sample(qs, args.limit)
    return qs


async def sentences_of(qid: str, text: str, corpus: str, llm: dict) -> tuple[list[dict], dict]:
    """The model's sentences for one question: the extractive graph finds, settles and judges the facts
    (with no threshold, so every question some fact covers reaches write), then the LLM engine's write
    node writes from the facts it chose. The graph with the model everywhere takes ~80 s a question
    here; this takes ~15 s and gives the model the hard cases too (facts the judge would refuse)."""
    config = {"configurable": {"thread_id": qid}}
    await GRAPH.ainvoke(graph_input(text), config, context=make_context(corpus_dir=corpus, abstain_threshold=0.0))
    state = (await GRAPH.aget_state(config)).values
    if not state.get("supported"):
        return [], {"covered": False}
    # The lexical floor only: the learned check's probability is read afterwards (`score --checker`).
    ctx = make_context(corpus_dir=corpus, support_check=0.0, llm_write="prose", **llm)
    update = await write_answer({**state, "engine": "llm"}, Runtime(context=ctx))
    answer = update["answer"]
    facts = {f.id: f for f in answer.facts}
    decided = update["trace"][0].decided
    out = []
    for n, s in enumerate(decided.get("model_sentences", []), 1):
        out.append(
            {
                "id": f"{qid}#{n}",
                "question": text,
                "sentence": s["text"],
                "quotes": [{"title": facts[i].title, "text": facts[i].text} for i in s["facts"] if i in facts],
                "dropped": s["dropped"],
            }
        )
    return out, {"covered": True, "fallbacks": answer.fallbacks}


def collect(args: argparse.Namespace) -> None:
    llm = {"llm_base_url": args.llm_base_url, "llm_model": args.llm_model}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for qid, text in questions(args):
        rows, outcome = asyncio.run(sentences_of(qid, text, args.corpus, llm))
        with out.open("a", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"set": args.set, **r}, ensure_ascii=False) + "\n")
        kept = sum(r["dropped"] is None for r in rows)
        print(f"{qid[:24]:24} {len(rows)} written, {kept} kept; {outcome}", flush=True)


def floor(row: dict) -> str | None:
    """Why the checks before the learned one drop the sentence (write.refusal), or None."""
    cited = [
        Fact(id=str(i), text=q["text"], title=q["title"], doc_id="d", chunk_id="c", span=(0, len(q["text"])))
        for i, q in enumerate(row["quotes"])
    ]
    return refusal(row["sentence"], cited, True, row["question"])


def half(row: dict) -> str:
    """dev or test, by a hash of the question's id: a question's sentences stay in one half."""
    qid = row["id"].rsplit("#", 1)[0]
    return "dev" if int(hashlib.sha1(qid.encode()).hexdigest()[:8], 16) % 2 == 0 else "test"


def learned(rows: list[dict], weights: str | None) -> list[float]:
    """The learned check's probability for each sentence (reader.get_support_checker's reading)."""
    from citegraph.reader import SUPPORT_WEIGHTS, Reader, evidence_text

    checker = Reader(weights=Path(weights) if weights else SUPPORT_WEIGHTS)
    out = []
    for r in rows:
        evidence = evidence_text([(q["title"], q["text"]) for q in r["quotes"]])
        out.append(checker.probabilities(r["sentence"], [evidence])[0] if r["quotes"] else 0.0)
    return out


def tally(rows: list[dict], labels: dict[str, str], dropped: list[bool]) -> dict[str, int]:
    bad = [labels[r["id"]] == "unsupported" for r in rows]
    return {
        "sentences": len(rows),
        "unsupported": sum(bad),
        "kept": sum(not d for d in dropped),
        "kept_unsupported": sum(b and not d for b, d in zip(bad, dropped, strict=True)),
        "dropped": sum(dropped),
        "dropped_unsupported": sum(b and d for b, d in zip(bad, dropped, strict=True)),
        "dropped_supported": sum(d and not b for b, d in zip(bad, dropped, strict=True)),
        "supported": len(rows) - sum(bad),
    }


def line(name: str, t: dict[str, int]) -> str:
    return (
        f"{name:34} {t['sentences']:4} sentences, {t['unsupported']:3} unsupported; kept {t['kept']:3}, of them"
        f" unsupported {t['kept_unsupported']:2}; check precision {t['dropped_unsupported']}/{t['dropped']},"
        f" recall {t['dropped_unsupported']}/{t['unsupported']}; supported dropped"
        f" {t['dropped_supported']}/{t['supported']}"
    )


def score(args: argparse.Namespace) -> None:
    rows = [json.loads(x) for x in Path(args.sentences).read_text(encoding="utf-8").splitlines() if x.strip()]
    labels = {}
    for text in Path(args.labels).read_text(encoding="utf-8").splitlines():
        if text.strip():
            rec = json.loads(text)
            labels[rec["id"]] = rec["label"]
    # The model's "the corpus does not hold enough evidence" is its abstention (write.declines), not a
    # claim; and the lexical floor's verdict is read again with the code as it is now.
    rows = [r for r in rows if not declines(r["sentence"])]
    for r in rows:
        r["dropped"] = floor(r)
    missing = [r["id"] for r in rows if r["id"] not in labels]
    if missing:
        raise SystemExit(f"{len(missing)} sentences have no label, e.g. {missing[:3]}")
    probs = learned(rows, args.weights) if args.threshold is not None or args.choose else [1.0] * len(rows)
    for r, pr in zip(rows, probs, strict=True):
        r["p"] = pr
    parts = {name: [r for r in rows if r["set"] == name] for name in sorted({r["set"] for r in rows})}
    parts |= {"dev half": [r for r in rows if half(r) == "dev"], "test half": [r for r in rows if half(r) == "test"]}
    parts["all"] = rows
    print("before any check (every sentence the model wrote):")
    for name, part in parts.items():
        print(line(name, tally(part, labels, [False] * len(part))))
    print("the lexical floor:")
    for name, part in parts.items():
        print(line(name, tally(part, labels, [r["dropped"] is not None for r in part])))
    if args.choose:
        dev = parts["dev half"]
        print("the dev half, floor and learned check at each threshold:")
        for t in [x / 20 for x in range(1, 20)]:
            dropped = [r["dropped"] is not None or r["p"] < t for r in dev]
            print(line(f"  threshold {t:.2f}", tally(dev, labels, dropped)))
    if args.threshold is not None:
        print(f"the lexical floor and the learned check at {args.threshold}:")
        for name, part in parts.items():
            dropped = [r["dropped"] is not None or r["p"] < args.threshold for r in part]
            print(line(name, tally(part, labels, dropped)))
    t = args.threshold if args.threshold is not None else 2.0
    for r in rows:
        out = r["dropped"] is not None or (args.threshold is not None and r["p"] < t)
        if labels[r["id"]] == "unsupported" and not out:
            print(f"  kept, unsupported: {r['id']} [{half(r)}] p={r['p']:.2f}: {r['sentence'][:120]}")
        if labels[r["id"]] == "supported" and out:
            why = r["dropped"] or f"learned {r['p']:.2f}"
            print(f"  dropped, supported: {r['id']} [{half(r)}]: {r['sentence'][:100]} ({why})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--set", required=True, help="a name for the question set, kept with each sentence")
    c.add_argument("--data", help="a BEIR folder of questions (queries.jsonl)")
    c.add_argument("--questions", nargs="+", help="real-documents question files (JSONL)")
    c.add_argument("--corpus", required=True)
    c.add_argument("--limit", type=int, default=0)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--llm-base-url", required=True)
    c.add_argument("--llm-model", default="local")
    c.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("sentences")
    s.add_argument("labels")
    s.add_argument("--weights", help="the learned check's weights (default: the shipped ones)")
    s.add_argument("--threshold", type=float, help="score the floor and the learned check at this threshold")
    s.add_argument("--choose", action="store_true", help="the learned check at every threshold, on the dev half")
    args = ap.parse_args()
    if args.cmd == "collect":
        if bool(args.data) == bool(args.questions):
            ap.error("give --data or --questions")
        collect(args)
    else:
        score(args)


if __name__ == "__main__":
    main()
