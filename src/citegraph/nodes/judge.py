"""judge: do the facts found answer the question? The router writes an answer when they do and
abstains when they do not.

Both engines first check coverage (text/answerability.py): a question whose names, code, numbers or
unknown words no passage of the corpus mentions is not answered ("no passage mentions PostgreSQL");
a fact can answer only if its passage (with its document's title) mentions every one of them, and,
when the question asks for a number, date, version or code, only if it holds one beyond those the
question names. Then support is scored lexically (the best such fact's relevance, discounted when it
lacks a name asked for), over the facts that survived contradiction settling; no fact relevant
enough means no answer. Questions written to look answerable from a passage
that lacks the answer (a swapped name, an added negation) defeat lexical scores, so the passages of the
best supported facts are then read:
- with a model that only judges (llm_scope "judge") or writes prose, it answers yes or no to "do these
  passages state the answer exactly as asked?" and its probability of "yes" is the support; a model
  that writes by naming the facts that answer (llm_write "quotes", the default) is not asked first:
  write's call is its judgement, and here the support need only reach `pick_threshold`;
- without one (or when its call fails), the reader (reader.py, a small cross-encoder shipped with the
  package) gives its probability that a passage states the answer; the best passage's is the support.
`judge="lexical"` keeps the lexical score.
"""

from __future__ import annotations

import asyncio
from collections.abc import Set
from typing import Literal

from langgraph.runtime import Runtime

from citegraph.answer.contradictions import losers
from citegraph.context import Context
from citegraph.embed import known_words
from citegraph.llm import model_judges, model_picks, yes_probability
from citegraph.nodes import corpus_words, timed, trace
from citegraph.prompts import JUDGE, fence
from citegraph.reader import get_reader
from citegraph.schemas import Evidence, Fact
from citegraph.state import State
from citegraph.text import answerability as ans
from citegraph.text.injection import source_label


def usable_facts(state: State) -> list[Fact]:
    """The facts an answer may rest on: all but the losers of settled contradictions."""
    lost = losers(state.get("contradictions", []))
    return [f for f in state.get("facts", []) if f.id not in lost]


def later_releases(question: str, relevant: list[Fact], facts: list[Fact]) -> list[Fact]:
    """For a question asking for the latest release (or its date), the facts of a later release of a
    document whose releases bear on it: the latest release's lines name nothing the question asks
    ("Security: Fix use-after-free …" under "### v1.1.35"), an older one's may ("Candidate release 1 of
    libxslt 1.1.34"). They bear as much as that document's best fact; the writer then quotes the latest."""
    kind = ans.latest_kind(question)
    if kind is None:
        return []
    by_id = {f.id: f for f in facts}

    def order(f: Fact) -> tuple[int, ...]:
        head = by_id.get(f.under or "")
        return ans.release_order(kind, f.text, head.text if head else None, question)

    best: dict[str, tuple[tuple[int, ...], float]] = {}
    for f in relevant:
        late, rel = best.get(f.doc_id, ((), 0.0))
        best[f.doc_id] = (max(late, order(f)), max(rel, f.relevance))
    have = {f.id for f in relevant}
    out = []
    for f in facts:
        if f.doc_id in best and f.id not in have and f.under and order(f) > best[f.doc_id][0]:
            out.append(f.model_copy(update={"relevance": best[f.doc_id][1]}))
    return out


def field_fact(question: str, supported: list[Fact], n: int) -> Fact | None:
    """A supported "Key: value" line whose key the question asks about: a requirement's field among all
    of them (the writer leads with it: answer/compose.choose_facts), else the first among the best `n`."""
    required = next((f for f in supported if ans.requirement_field(question, f.text)), None)
    return required or next((f for f in supported[:n] if ans.field_match(question, f.text)), None)


# The support of a requirement stated by the named package's own metadata field ("Requires-Dist: numpy
# >=1.23" for "how new must numpy be?"): it states exactly what is asked, where both learned judges read
# a field line low. On dev, all 25 such answers at threshold 0 were right, 7 of them under the sentence
# scorer's bar (session 35).
REQUIREMENT_FIELD_SUPPORT = 0.9


def judged_passages(supported: list[Fact], evidence: list[Evidence], n: int) -> list[Evidence]:
    """The passages of the best supported facts, one each, best first."""
    by_chunk = {e.chunk_id: e for e in evidence}
    out: dict[str, Evidence] = {}
    for f in supported:
        if f.chunk_id in by_chunk and f.chunk_id not in out:
            out[f.chunk_id] = by_chunk[f.chunk_id]
        if len(out) == n:
            break
    return list(out.values())


def read(question: str, passages: list[Evidence]) -> float:
    """The reader's probability that the best of the passages states the answer."""
    return max(get_reader().probabilities(question, [e.text for e in passages]))


def judge_prompt(question: str, passages: list[Evidence]) -> str:
    text = "\n\n".join(
        fence("passage", e.text, f"Passage {i}: {e.title or e.doc_id}") for i, e in enumerate(passages, 1)
    )
    return JUDGE.format(passages=text, question=question)


def covered_facts(
    question: str, facts: list[Fact], evidence: list[Evidence], unseen: set[str], written: Set[str] = frozenset()
) -> tuple[list[Fact], list[str]]:
    """The facts that can answer the question, and what keeps the others from it (the gaps an
    abstention names); `written` are the corpus's hyphenated words (answerability.key_terms)."""
    keys, named = ans.keys_to_cover(question, known_words(), unseen, written)
    if named:
        return [], [f"{ans.ABSENT_FROM_CORPUS} {', '.join(repr(k) for k in named)}"]
    kind = ans.answer_type(question)
    # A "why" is answered by a sentence that gives a reason, as a "how many" by one that holds a number.
    needs_value = kind in ans.VALUE_TYPES or (kind == "reason" and ans.asks_why(question))
    # A default is answered by a sentence that states one: "For a Q8 build, use --with-quantum-depth=8" is
    # no answer to "Which quantum depth is ImageMagick built with by default?" (realdocs6 l05).
    needs_default = ans.asks_for_default(question)
    by_chunk = {e.chunk_id: e for e in evidence}
    out: list[Fact] = []
    gaps: list[str] = []
    for f in facts:
        ev = by_chunk.get(f.chunk_id)
        missing = ans.uncovered(keys, ans.covering_text(f.title, ev.source if ev else "", ev.text if ev else f.text))
        if missing:
            gaps.append(f"the passages found do not mention {', '.join(repr(k) for k in missing)}")
        elif needs_value and not f.typed:
            gaps.append(f"no passage found states a {kind} for what is asked")
        elif needs_default and not ans.states_default(f.text):
            gaps.append("no passage found states the default asked for")
        elif other := ans.other_setting(question, f.text):
            gaps.append(f"the closest passages state {other!r}, another setting than the one asked")
        else:
            out.append(f)
    return out, list(dict.fromkeys(gaps))[:1] if not out else []


def value_below_bar(
    question: str,
    gaps: list[str],
    others: list[Fact],
    evidence: list[Evidence],
    unseen: set[str],
    min_relevance: float,
    written: Set[str] = frozenset(),
) -> list[str]:
    """The gaps an abstention names, corrected where they would mislead: "no passage found states a
    number" when a sentence that covers the question and states one was found but judged too far from it
    (split(1)'s "default size is 1000 lines, …", relevance 0.32) names that sentence, so a user can read
    it, and says why it was not taken. `others` are the facts below the relevance bar of the documents
    that bear on the question."""
    if not gaps or not gaps[0].startswith("no passage found states a"):
        return gaps
    typed = sorted((f for f in others if f.typed), key=lambda f: -f.relevance)
    near, _ = covered_facts(question, typed, evidence, unseen, written)
    if not near:
        return gaps
    f = near[0]
    ev = next((e for e in evidence if e.chunk_id == f.chunk_id), None)
    named = source_label(f.title or (ev.title if ev else "") or "", ev.source if ev else "")
    kind = ans.answer_type(question)
    return [
        f"no passage close to the question states a {kind}; the closest that does, “{' '.join(f.text.split())[:160]}” "
        f"({named}), is not close enough to be taken for the answer (relevance {f.relevance:.2f}, below "
        f"{min_relevance:.2f})"
    ]


@timed
async def judge_answerability(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    question = state["question"]
    evidence = state.get("evidence", [])
    words = await asyncio.to_thread(corpus_words, ctx, evidence)
    # In a worker thread: the first calls build the corpus vocabulary (a sort of every BM25 token) and
    # scan the passages for hyphenated words.
    written, unseen = await asyncio.to_thread(ans.corpus_words, question, known_words(), words)
    usable = usable_facts(state)
    relevant = [f for f in usable if ans.bears(f.relevance, f.answer_p, ctx.min_fact_relevance)]
    relevant = sorted(relevant + later_releases(question, relevant, usable), key=lambda f: -f.relevance)
    supported, gaps = covered_facts(question, relevant, evidence, unseen, written)
    if not supported:
        # A sentence of a document that bears on the question, not any number the passages hold.
        kept, docs = {f.id for f in relevant}, {f.doc_id for f in relevant}
        others = [f for f in usable if f.id not in kept and f.doc_id in docs]
        gaps = value_below_bar(question, gaps, others, evidence, unseen, ctx.min_fact_relevance, written)
    lexical = ans.support((f.relevance, f.typed) for f in supported)
    support, source, fallback = lexical, "lexical", None
    parts = {"lexical": lexical}
    # Both learned judges read prose; a "Key: value" line whose key is what the question asks
    # ("Requires-Python: >=3.8"), in a passage that covers the question, states the answer exactly: its
    # lexical relevance stands where they read it low (the reader 0.12, the sentence scorer 0.42).
    field = field_fact(question, supported, ctx.judge_passages)
    if field is not None:
        exact = ans.requirement_field(question, field.text)
        parts["field"] = max(round(field.relevance, 4), REQUIREMENT_FIELD_SUPPORT if exact else 0.0)
    if any(f.answer_p is not None for f in supported):
        # The learned sentence scorer's probability for the best covering sentence (no model call:
        # extraction computed it).
        parts["sentences"] = ans.support((f.answer_p or 0.0, f.typed) for f in supported)
        if ctx.judge == "sentences":
            support, source = max(parts["sentences"], parts.get("field", 0.0)), "sentences"
    passages = judged_passages(supported, evidence, ctx.judge_passages)
    if model_judges(ctx) and passages:
        p, fallback = await yes_probability(ctx, judge_prompt(state["question"], passages), state.get("deadline"))
        if p is not None:
            support, source = round(p, 4), "model"
            parts["model"] = support
    if source in ("lexical", "sentences") and ctx.judge == "reader" and passages:
        # In a worker thread: the first call loads the reader (~1 s) and each one is CPU-bound.
        support, source = round(await asyncio.to_thread(read, state["question"], passages), 4), "reader"
        parts["reader"] = support
        support = max(support, parts.get("field", 0.0))
    reference = ans.back_reference(question)
    if reference and supported and source != "model" and not model_picks(ctx):
        # Without a model's reading (none configured, or its call failed) the facts are those that mention
        # what the question names; the thing asked about is named by none of its words (realdocs b15:
        # "HTTPX is BSD licensed" for the licence of the library HTTPX credits).
        supported, gaps = [], [ans.BACK_REFERENCE_GAP.format(reference)]
    engine = "llm" if model_judges(ctx) and passages else "extractive"
    detail = f"support {support:.2f} ({source}; lexical {lexical:.2f})" + (f"; {gaps[0]}" if gaps else "")
    return {
        "support": support,
        "support_source": source,
        "support_parts": parts,
        "abstain_threshold": ctx.threshold(source, model_picks(ctx)),
        "supported": [f.id for f in supported],
        "gaps": gaps,
        "trace": [
            trace(
                "judge",
                engine,
                fallback,
                detail,
                {"support": support, "source": source, "supported": [f.id for f in supported], "gaps": gaps},
            )
        ],
    }


def route_after_judge(state: State) -> Literal["write", "abstain"]:
    if state.get("supported") and state.get("support", 0.0) >= state.get("abstain_threshold", 0.0):
        return "write"
    return "abstain"
