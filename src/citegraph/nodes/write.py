"""write: the answer, every sentence of it cited, with a one-to-one reference list and the conflicts
(how it is composed and checked: answer/compose.py). With a model, one call: it names the facts that
state the answer ("quotes", the default) or writes sentences of its own ("prose")."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from citegraph.answer.compose import (
    PICK_CANDIDATES,
    Checked,
    Picked,
    Written,
    check_plan,
    choose_facts,
    cite,
    declines,
    extractive_plan,
    facts_prompt,
    plan_from_picks,
    stand_in_refused,
    supported_by,
    validate,
)
from citegraph.answer.contradictions import losers
from citegraph.context import Context
from citegraph.llm import structured_call, text_call
from citegraph.nodes import reply, timed, trace
from citegraph.prompts import ABSTAIN, DIRECT, PICK, WRITE
from citegraph.schemas import Answer
from citegraph.state import State, resolved_mode
from citegraph.text.conflicts import bearing


@timed
async def write_answer(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    question, engine = state["question"], state.get("engine", "extractive")
    base: dict[str, Any] = {
        "question": question,
        "mode": resolved_mode(state),
        "query_class": state["query_class"],
        "sub_queries": [q.text for q in state.get("sub_queries", [])],
        "engine": engine,
        "reconcile_rounds": state.get("reconcile_rounds", 0),
        "support": state.get("support", 0.0),
        "support_source": state.get("support_source", "lexical"),
        "support_parts": state.get("support_parts", {}),
        "gaps": state.get("gaps", []),
        "warnings": state.get("warnings", []),
    }
    if state["mode"] == "direct":
        text, fallback = await text_call(ctx, DIRECT.format(question=question), state.get("deadline"))
        answer = Answer(
            **base,
            answer=text or ABSTAIN,
            abstained=text is None,
            cited=False,
            abstain_reason="" if text else f"the model did not answer ({fallback})",
        )
        event = trace("write", engine, fallback, "direct, uncited")
        return {"answer": answer, "trace": [event], **reply(state, answer)}

    facts, contradictions = state.get("facts", []), state.get("contradictions", [])
    lost = losers(contradictions)
    limit = ctx.sentences(state["query_class"])
    supported = set(state.get("supported", []))
    chosen = choose_facts(facts, state.get("supported", []), lost, limit, question=question)
    plan = extractive_plan(chosen, facts, contradictions, question, supported=supported)
    from_model, picked_by_model, fallback = False, False, None
    model_sentences: list[dict[str, Any]] = []
    checked: list[Checked] = []
    declined: str | None = None
    unusable: str | None = None
    decided: dict[str, Any] = {}
    if engine == "llm" and ctx.llm_write == "quotes":
        candidates = choose_facts(facts, state.get("supported", []), lost, PICK_CANDIDATES, 0.0, question)
        if candidates:
            prompt, numbered = facts_prompt(PICK, question, candidates, contradictions, limit)
            got_picks, fallback = await structured_call(ctx, Picked, prompt, state.get("deadline"))
            if got_picks is not None:
                picked_plan, declined, decided = plan_from_picks(
                    got_picks, numbered, facts, contradictions, question, limit, supported
                )
                if picked_plan or not decided["picked"]:
                    # Its pick is its judgement: the facts it named, or none of them answers.
                    picked_by_model, plan = True, picked_plan or plan
                else:
                    # It named facts but gave an answer they do not say: a pick the code cannot use,
                    # as if the call had failed (realdocs2 d25: the extractive answer, support 0.64,
                    # was right).
                    unusable, declined = declined, None
                    fallback = f"its pick could not be used: {unusable}"
    elif engine == "llm" and chosen:
        prompt, numbered = facts_prompt(WRITE, question, chosen, contradictions, limit)
        got, fallback = await structured_call(ctx, Written, prompt, state.get("deadline"))
        written = [s for s in got.sentences if not declines(s.text)] if got is not None else []
        if got is not None and not written:
            # Asked to write nothing when the facts do not answer, the model wrote nothing (or only the
            # sentence the system says then): the facts it was given do not answer, and no quote of
            # them should stand in as if they did.
            declined = "the model found that the facts do not answer the question"
        if written:
            model_plan = [(s.text, [numbered[i].id for i in s.fact_ids if i in numbered]) for s in written]
            # In a worker thread: the learned check reads each sentence with its quotes (CPU-bound).
            checked = await asyncio.to_thread(
                check_plan,
                model_plan,
                facts,
                state.get("evidence", []),
                True,
                question,
                supported_by if ctx.support_check > 0 else None,
                ctx.support_check,
            )
            # Every sentence the model wrote, with the facts it cites and why it was dropped, if it was:
            # what a user stepping through the run sees, and what the support check is measured on.
            model_sentences = [
                {"text": c.text, "facts": ids, "dropped": c.why}
                for c, (_, ids) in zip(checked, model_plan, strict=True)
            ]
            decided = {"model_sentences": model_sentences}
            if any(c.why is None for c in checked):
                plan, from_model = model_plan, True
            else:
                fallback = "every sentence the model wrote failed validation: " + "; ".join(
                    f"{c.why}: {c.text[:80]}" for c in checked[:3]
                )
    refused = declined
    if engine == "llm" and not (from_model or picked_by_model) and not refused:
        # The model's call failed, its pick could not be used or its sentences were refused (llm_scope
        # "judge" runs the extractive writer and never gets here): the extractive sentences stand in only
        # where its judge would answer.
        refused = stand_in_refused(ctx, state.get("support_source", ""), base["support_parts"], unusable)
    if refused:
        plan = []  # the model judged the facts to answer, but wrote nothing they support
    if from_model:  # checked above, the learned check included
        sentences, refs, dropped = cite(checked, state.get("evidence", []))
    else:
        sentences, refs, dropped = validate(plan, facts, state.get("evidence", []), from_model=False)
    answer = Answer(
        **base,
        answer=" ".join(s.text for s in sentences),
        sentences=sentences,
        references=refs,
        facts=facts,
        contradictions=bearing(
            contradictions, facts, ctx.min_fact_relevance, {i for _, ids in plan for i in ids}, question
        ),
        dropped=[f"{s['dropped']}: {s['text']}" for s in model_sentences if s["dropped"]],
    )
    if not sentences:  # nothing survived validation: say so rather than return an empty answer
        answer = answer.model_copy(
            update={
                "abstained": True,
                "answer": ABSTAIN,
                "abstain_reason": refused or "no sentence could be cited to retrieved evidence",
            }
        )
    detail = f"{len(sentences)} sentences, {len(refs)} references" + (f"; dropped {len(dropped)}" if dropped else "")
    event = trace("write", engine, fallback, detail, decided)
    return {"answer": answer, "trace": [event], **reply(state, answer)}
