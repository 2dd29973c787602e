"""Where a real-documents question's answer is lost, stage by stage (a diagnosis, not a score).

Runs each answerable question through the graph with `abstain_threshold=0` (every question some fact
covers is answered) and names the first stage that lacks a gold answer string:

- `retrieval (doc)`: no pooled passage comes from a file that holds the answer;
- `retrieval (passage)`: passages of the right file were pooled, none holds a gold string;
- `selection (read)`: a pooled passage holds it, but not one of those facts were read from;
- `extraction`: a passage read holds it, no fact does;
- `selection (answer)`: a fact holds it, the answer does not;
- `right`: the answer holds it (then `abstained` says whether the default threshold would refuse it).

    .venv/bin/python benchmarks/stages.py --questions benchmarks/realdocs2/questions-c.jsonl \
        benchmarks/realdocs2/questions-d.jsonl --corpus .citegraph/bench/realdocs2 [--ids c01 c02] [--show]

Use it on dev sets only: reading a held-out set's failures makes it dev.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path

# citegraph first: its process defaults (strict msgpack among them) are set before langgraph reads them.
import citegraph  # noqa: F401

# isort: split
from langgraph.checkpoint.memory import InMemorySaver

from citegraph.api import graph_input, make_context
from citegraph.eval.documents import load_questions, matches
from citegraph.graph import builder

GRAPH = builder.compile(checkpointer=InMemorySaver())


def has(text: str, answers: tuple[str, ...]) -> bool:
    return any(matches(text, g) for g in answers)


async def diagnose(q, corpus: str, settings: dict) -> dict:
    ctx = make_context(corpus_dir=corpus, abstain_threshold=0.0, **settings)
    config = {"configurable": {"thread_id": q.id}}
    await GRAPH.ainvoke(graph_input(q.text), config, context=ctx)
    out = (await GRAPH.aget_state(config)).values  # the whole state, not only the output keys
    answer = out["answer"]
    evidence = out.get("evidence", [])
    selected = set(out.get("selected", []))
    gold_files = {Path(d).name for d in q.docs}
    pooled_gold_doc = [e for e in evidence if Path(e.source).name in gold_files]
    pooled_gold = [e for e in evidence if has(e.text, q.answers)]
    read_gold = [e for e in pooled_gold if e.chunk_id in selected]
    facts_gold = [f for f in answer.facts if has(f.text, q.answers)]
    text = answer.answer + " " + " ".join(r.quote for r in answer.references)
    if not answer.abstained and has(text, q.answers):
        stage = "right"
    elif facts_gold:
        stage = "selection (answer)"
    elif read_gold:
        stage = "extraction"
    elif pooled_gold:
        stage = "selection (read)"
    elif pooled_gold_doc:
        stage = "retrieval (passage)"
    else:
        stage = "retrieval (doc)"
    return {
        "id": q.id,
        "kind": q.kind,
        "stage": stage,
        "question": q.text,
        "answers": list(q.answers),
        "docs": sorted(gold_files),
        "answer": answer.answer[:300],
        "abstained": answer.abstained,
        "support": answer.support,
        "sub_queries": answer.sub_queries,
        "pooled": [
            (Path(e.source).name, e.chunk_id in selected, round(e.scores.get("final", 0.0), 3)) for e in evidence
        ],
        "gold_fact_ranks": [i for i, f in enumerate(answer.facts) if has(f.text, q.answers)],
        "n_facts": len(answer.facts),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", nargs="+", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--ids", nargs="*")
    ap.add_argument("--show", action="store_true", help="print each question's record")
    ap.add_argument("--set", action="append", default=[], help="a run setting, NAME=VALUE")
    ap.add_argument("--out")
    args = ap.parse_args()
    settings = {}
    for item in args.set:
        k, v = item.split("=", 1)
        settings[k] = json.loads(v) if v[:1] in "0123456789-[{tfn" else v
    qs = [q for q in load_questions(args.questions) if q.answerable and (not args.ids or q.id in args.ids)]
    rows = []
    for q in qs:
        row = asyncio.run(diagnose(q, args.corpus, settings))
        rows.append(row)
        if args.show:
            print(json.dumps(row, ensure_ascii=False, indent=1))
        else:
            flag = "ABST" if row["abstained"] else "    "
            print(f"{row['id']:5} {row['kind']:8} {row['stage']:20} {flag} {q.text[:90]}")
    print(dict(Counter(r["stage"] for r in rows)))
    if args.out:
        Path(args.out).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")


if __name__ == "__main__":
    main()
