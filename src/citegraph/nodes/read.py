"""read (LLM engine): one model call over every passage pool selected. The passages' candidate
sentences (the extractive engine's split) are numbered "passage.sentence"; the model names the numbers
of those that bear on the question, and extract then quotes each passage's picks without a call of its
own. One sequential round trip instead of one per passage (a local server answers one request at a
time), the passages carried once, and no quote the model could mistype: the code copies them.

A no-op for the extractive engine and for `llm_picks="quotes"` (extract asks the model per passage).
No call either when the judge's coverage rule will refuse every fact of these passages. When the call
fails, no passage has picks and extract falls back to the extractive engine.
"""

from __future__ import annotations

import asyncio
import re

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from citegraph.context import Context
from citegraph.embed import known_words
from citegraph.llm import structured_call
from citegraph.nodes import corpus_words, timed, trace
from citegraph.prompts import READ, fence
from citegraph.schemas import Evidence
from citegraph.state import State
from citegraph.text import answerability as ans
from citegraph.text.candidates import candidate_claims


class Picks(BaseModel):
    sentences: list[str] = Field(
        description='Numbers of the sentences that bear on the question, as "passage.sentence" (e.g. "2.3"), best first'
    )


def numbered_passages(question: str, passages: list[Evidence]) -> tuple[str, list[int]]:
    """The passages as the model reads them (each fenced with its title, its candidate sentences
    numbered "[p.s]", one a line), and how many sentences each has."""
    blocks, sizes = [], []
    for p, ev in enumerate(passages, 1):
        found = candidate_claims(question, ev.text)
        lines = [f"[{p}.{s}] {' '.join(c.text.split())}" for s, c in enumerate(found, 1)]
        blocks.append(fence("passage", "\n".join(lines), f"Passage {p}: {ev.title or ev.doc_id}"))
        sizes.append(len(found))
    return "\n\n".join(blocks), sizes


_NUMBER = re.compile(r"^\s*\[?(\d+)\s*[.:,-]\s*(\d+)\]?\s*$")


def parse_picks(picked: list[str], ids: list[str], sizes: list[int], per_passage: int) -> dict[str, list[int]]:
    """Each passage's picked sentence numbers (1-based, in the model's order, at most `per_passage`),
    by passage id; every passage has an entry, empty when none of its sentences was picked. A number
    that names no passage, or no sentence of its passage (`sizes`), is dropped."""
    out: dict[str, list[int]] = {cid: [] for cid in ids}
    for item in picked:
        m = _NUMBER.match(str(item))
        if not m:
            continue
        p, s = int(m.group(1)), int(m.group(2))
        if 1 <= p <= len(ids) and 1 <= s <= sizes[p - 1]:
            chosen = out[ids[p - 1]]
            if s not in chosen and len(chosen) < per_passage:
                chosen.append(s)
    return out


def uncoverable(ctx: Context, question: str, passages: list[Evidence]) -> str | None:
    """Why no fact of these passages could answer, by the judge's coverage rule (a name no passage of
    the corpus mentions; key terms no passage here mentions), or None."""
    english = known_words()
    written, unseen = ans.corpus_words(question, english, corpus_words(ctx, passages))
    keys, named = ans.keys_to_cover(question, english, unseen, written)
    if named:
        return f"skipped: {ans.ABSENT_FROM_CORPUS} {', '.join(repr(k) for k in named)}"
    if all(ans.uncovered(keys, ans.covering_text(e.title, e.source, e.text)) for e in passages):
        return "skipped: no passage found mentions every key term of the question"
    return None


@timed
async def read_passages(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    by_id = {e.chunk_id: e for e in state.get("evidence", [])}
    passages = [by_id[c] for c in state.get("selected", []) if c in by_id]
    if state.get("engine") != "llm" or ctx.llm_picks != "numbers" or not passages:
        # Every node's update carries a trace entry: Studio and streamed updates show each step.
        why = "no passage to read" if not passages else "extract reads each passage"
        return {"picks": {}, "trace": [trace("read", "none", None, why)]}
    gap = await asyncio.to_thread(uncoverable, ctx, state["question"], passages)
    if gap:
        # The judge will refuse every fact of these passages: no model time is spent on them (half of
        # a realdocs2 sample's questions, 30 s each on the local model). Extract still quotes its own.
        return {"picks": {e.chunk_id: [] for e in passages}, "trace": [trace("read", "none", None, gap)]}
    shown, sizes = numbered_passages(state["question"], passages)
    prompt = READ.format(question=state["question"], max_facts=ctx.facts_per_passage, passages=shown)
    got, fallback = await structured_call(ctx, Picks, prompt, state.get("deadline"))
    ids = [e.chunk_id for e in passages]
    picks = parse_picks(got.sentences, ids, sizes, ctx.facts_per_passage) if got is not None else {}
    n = sum(len(v) for v in picks.values())
    detail = f"{n} sentences picked from {len(passages)} passages" if got is not None else "no picks"
    return {"picks": picks, "trace": [trace("read", "llm", fallback, detail, {"picks": picks})]}
