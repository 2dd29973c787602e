"""The evidence graph, wiring only: `builder` (uncompiled, so tests compile it with their own saver)
and `graph` (compiled, no checkpointer: `langgraph dev` and the platform bring their own), which the
server reaches through `served`.

START → route ─┬─ direct ─────────────────────────────────────────────→ write → END
               └─ recent | corpus → decompose → retrieve (Send per sub-query) → pool
                                      [recent, web search on] → web (Send per sub-query) ↗
                    → read (LLM engine: one call picks every passage's sentences; else nothing)
                    → extract (Send per passage) → contradictions
                    → [major/critical open, rounds left] reconcile → retrieve (targeted) → …
                    → judge → [the facts answer it] write → END   |   [else] abstain → END
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from citegraph.context import Context, check_run_settings
from citegraph.nodes.abstain import abstain
from citegraph.nodes.contradictions import detect_contradictions, route_after_contradictions
from citegraph.nodes.decompose import decompose_question
from citegraph.nodes.extract import extract_facts
from citegraph.nodes.judge import judge_answerability, route_after_judge
from citegraph.nodes.read import read_passages
from citegraph.nodes.reconcile import reconcile_conflicts
from citegraph.nodes.retrieve import fan_out_extraction, fan_out_retrieval, pool_evidence, retrieve, search_web
from citegraph.nodes.route import route_after_route, route_question
from citegraph.nodes.write import write_answer
from citegraph.state import ExtractTask, InputState, OutputState, RetrieveTask, State

if TYPE_CHECKING:  # the server's runtime; langgraph_api resolves the annotation by name
    from langgraph_sdk.runtime import ServerRuntime

builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
builder.add_node("route", route_question)
builder.add_node("decompose", decompose_question)
builder.add_node("retrieve", retrieve, input_schema=RetrieveTask)
builder.add_node("web", search_web, input_schema=RetrieveTask)
builder.add_node("pool", pool_evidence)
builder.add_node("read", read_passages)
builder.add_node("extract", extract_facts, input_schema=ExtractTask)
builder.add_node("contradictions", detect_contradictions)
builder.add_node("judge", judge_answerability)
builder.add_node("reconcile", reconcile_conflicts)
builder.add_node("write", write_answer)
builder.add_node("abstain", abstain)

builder.add_edge(START, "route")
builder.add_conditional_edges("route", route_after_route, ["decompose", "write", "abstain"])
builder.add_conditional_edges("decompose", fan_out_retrieval, ["retrieve", "web", "pool"])
builder.add_edge("retrieve", "pool")
builder.add_edge("web", "pool")
builder.add_edge("pool", "read")
builder.add_conditional_edges("read", fan_out_extraction, ["extract", "contradictions"])
builder.add_edge("extract", "contradictions")
builder.add_conditional_edges("contradictions", route_after_contradictions, ["reconcile", "judge"])
builder.add_conditional_edges("judge", route_after_judge, ["write", "abstain"])
builder.add_conditional_edges("reconcile", fan_out_retrieval, ["retrieve", "web", "pool"])
builder.add_edge("write", END)
builder.add_edge("abstain", END)

graph = builder.compile()
graph.name = "citegraph"


def served(runtime: ServerRuntime) -> CompiledStateGraph[State, Context, InputState, OutputState]:
    """The graph as `langgraph dev` serves it (langgraph.json names this factory). The server calls it
    for every access, and for a run with the run's context as the client sent it, before it drops the
    keys the context schema lacks: so a misspelt or forbidden setting is refused by name here instead
    of being ignored. The graph itself is the one compiled above."""
    run = getattr(runtime, "execution_runtime", None)  # None where the server only reads the graph
    if run is not None and isinstance(run.context, Mapping):
        check_run_settings(run.context)
    return graph
