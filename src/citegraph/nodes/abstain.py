"""abstain: when the facts do not answer the question, say so (the one ABSTAIN phrase), say why, and
list what was searched, so the user can judge whether to look elsewhere or ask differently."""

from __future__ import annotations

from langgraph.runtime import Runtime

from citegraph.context import Context
from citegraph.nodes import reply, timed, trace
from citegraph.prompts import ABSTAIN
from citegraph.retrievers.hybrid import shared_retriever
from citegraph.schemas import Answer, Contradiction
from citegraph.state import State, resolved_mode
from citegraph.text import answerability as ans
from citegraph.text.conflicts import bearing
from citegraph.text.injection import source_label


def reason(state: State, ctx: Context) -> str:
    if state["mode"] == "direct":
        return (
            "direct answers (without documents) need a model, and none is configured: set --llm-base-url and "
            "--llm-model (CITEGRAPH_LLM_BASE_URL, CITEGRAPH_LLM_MODEL), or ask in corpus mode"
        )
    evidence, facts = state.get("evidence", []), state.get("facts", [])
    sources = {e.doc_id: e.source for e in evidence}
    if not evidence and len(shared_retriever(ctx.corpus_dir, ctx.chroma_url)) == 0:
        return f"the corpus {ctx.corpus_dir} holds no passages yet: add documents with `citegraph ingest`"
    if state.get("gaps"):
        return state["gaps"][0]
    if not evidence:
        return "no passage in the corpus matched the question"
    if not facts:
        return f"{len(evidence)} passages were retrieved, but none states a fact that bears on the question"
    best = max(facts, key=lambda f: f.relevance)
    named = source_label(best.title, sources.get(best.doc_id, ""))
    if not state.get("supported"):
        return (
            f"the closest fact (relevance {best.relevance:.2f}, below {ctx.min_fact_relevance:.2f}) does not "
            f"bear on the question: “{' '.join(best.text.split())[:160]}” ({named})"
        )
    judge = state.get("support_source")
    if judge in ("lexical", "sentences"):
        # The fact whose score is the support reported, not merely the most relevant one.
        supported = set(state.get("supported", []))
        best = ans.strongest([f for f in facts if f.id in supported], judge) or best
        named = source_label(best.title, sources.get(best.doc_id, ""))
    closest = " ".join(best.text.split())[:160]  # a quote's line breaks and indents are not the point here
    if judge in ("model", "reader"):
        return (
            f"the {judge} judged the passages not to state the answer (probability {state.get('support', 0.0):.2f}, "
            f"below {state.get('abstain_threshold', ctx.threshold(ctx.judge)):.2f}; closest: “{closest}”, {named})"
        )
    return (
        f"the best support for an answer is {state.get('support', 0.0):.2f}, below the threshold "
        f"{state.get('abstain_threshold', ctx.threshold(ctx.judge)):.2f}: the passages found are on the topic but "
        f"do not state what is asked (closest: “{closest}”, {named})"
    )


def searched(state: State) -> list[str]:
    out = [f"sub-query: {q.text}" for q in state.get("sub_queries", [])]
    out += [f"targeted query: {q.text}" for q in state.get("pending_queries", [])]
    evidence = state.get("evidence", [])
    if evidence:
        docs = {e.doc_id for e in evidence}
        top = max(evidence, key=lambda e: e.scores.get("final", 0.0))
        out.append(
            f"{len(evidence)} passages from {len(docs)} documents; best: {source_label(top.title, top.source)} "
            f"(score {top.scores.get('final', 0.0):.2f})"
        )
    return out


def conflicts_shown(state: State, ctx: Context) -> list[Contradiction]:
    """The conflicts an abstention lists: those that bear on the question (conflicts.bearing), none when
    a name the question gives is in no passage of the corpus (then nothing retrieved is about what was
    asked: "How many litres does the Toronto plant process?" listed Ottawa's two figures). Weaker
    signals were tried on dev and hid disagreements about what was asked (BENCHMARKS.md, session 13)."""
    if any(g.startswith(ans.ABSENT_FROM_CORPUS) for g in state.get("gaps", [])):
        return []
    return bearing(
        state.get("contradictions", []),
        state.get("facts", []),
        ctx.min_fact_relevance,
        question=state["question"],
    )


@timed
async def abstain(state: State, runtime: Runtime[Context]) -> dict:
    why = reason(state, runtime.context)
    answer = Answer(
        question=state["question"],
        mode=resolved_mode(state),
        query_class=state.get("query_class", "precise_fact"),
        sub_queries=[q.text for q in state.get("sub_queries", [])],
        answer=f"{ABSTAIN} Reason: {why}." if state["mode"] != "direct" else f"{why[0].upper()}{why[1:]}.",
        abstained=True,
        abstain_reason=why,
        facts=state.get("facts", []),
        contradictions=conflicts_shown(state, runtime.context),
        reconcile_rounds=state.get("reconcile_rounds", 0),
        searched=searched(state),
        support=state.get("support", 0.0),
        support_source=state.get("support_source", "lexical"),
        support_parts=state.get("support_parts", {}),
        gaps=state.get("gaps", []),
        warnings=state.get("warnings", []),
        engine=state.get("engine", "extractive"),
    )
    event = trace("abstain", "extractive", None, why[:120])
    return {"answer": answer, "trace": [event], **reply(state, answer)}
