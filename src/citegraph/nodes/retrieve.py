"""retrieve: one run of the hybrid retriever per sub-query (a `Send` each, in parallel); pool: the
evidence of all sub-queries merged, deduplicated and cut to the passages facts are extracted from.

The retrieval budget follows the query class; "recent" mode weighs recency more and, when enough
passages fall inside the recent window, keeps to it; "corpus" mode weighs recency only when an as-of
date is given (a file's age is not evidence of its relevance). Retrieval runs in a worker thread: it reads
SQLite and runs the encoder, which would block the server's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Set
from datetime import date, timedelta

from langgraph.runtime import Runtime
from langgraph.types import Send

from citegraph.context import Context
from citegraph.embed import known_words
from citegraph.nodes import searches_web, short, timed, trace
from citegraph.retrievers.hybrid import HybridRetriever, Mode, shared_retriever
from citegraph.schemas import Evidence
from citegraph.state import ExtractTask, RetrieveTask, State, resolved_mode
from citegraph.text import answerability as ans
from citegraph.text.claims import claims
from citegraph.text.dates import parse_date
from citegraph.text.releases import known_name
from citegraph.text.tokens import tokenize
from citegraph.web.branch import Gathered, gather, web_corpus_lock
from citegraph.web.search import Query

log = logging.getLogger(__name__)


def as_of_date(ctx: Context, state_as_of: str | None) -> date:
    return parse_date(state_as_of) or parse_date(ctx.as_of) or date.today()


def fan_out_retrieval(state: State, runtime: Runtime[Context] | None = None) -> list[Send] | str:
    """After decompose: one `Send` per sub-query to retrieve (and, searching the web, one to web).
    After reconcile: one per targeted query (none left to ask: straight to pool, which then finds
    nothing new); the web is searched in the first round only."""
    round_ = state.get("reconcile_rounds", 0)
    queries = state["pending_queries"] if round_ > 0 else state["sub_queries"]
    web = round_ == 0 and searches_web(runtime.context if runtime else None, resolved_mode(state))
    tasks = []
    for sq in queries:
        task: RetrieveTask = {
            "question": state["question"],
            "mode": resolved_mode(state),
            "query_class": state["query_class"],
            "sub_query": sq,
        }
        if state.get("as_of"):
            task["as_of"] = state["as_of"]
        tasks.append(Send("retrieve", task))
        if web:
            tasks.append(Send("web", task))
    return tasks or "pool"


def answer_first(question: str, results: list[Evidence], m: int, written: Set[str] = frozenset()) -> list[Evidence]:
    """The m best passages once those that could hold the answer are moved up (answerability.py:
    the asked kind of value, every name the question gives): a topical passage without either
    cannot answer, however well it matches. The bonus is added to the passage's final score (and
    kept apart as `answer_bonus`), so pooling and fact weights see the same order."""
    keys = ans.key_terms(question, known_words(), written)
    out = []
    for e in results:
        bonus = ans.answer_bonus(question, keys, e.text, f"{e.title} {known_name(e.source)}")
        final = e.scores.get("final", 0.0) + bonus
        out.append(e.model_copy(update={"scores": {**e.scores, "answer_bonus": bonus, "final": final}}))
    # The bonus is added, not ranked first: ranking by it first found attrs' "Requires-Python: >=3.7"
    # (ninth of 15) but, where the evidence is missing, read topical passages holding some number and
    # answered from them (session 9: +1 right on real documents, 3 more wrong answers on the mixture).
    out.sort(key=lambda e: -e.scores["final"])
    return [e.model_copy(update={"rank": i}) for i, e in enumerate(out[:m], 1)]


# The top passages whose other releases are read (text/releases.py): where a value changed between two
# releases of a document, both must reach extraction for the change to be reported.
RELEASES_OF_TOP = 2
RELEASES_READ = 2  # passages of other releases read beyond the pool's budget


def with_other_releases(ctx: Context, task: RetrieveTask, top: list[Evidence]) -> list[Evidence]:
    """`top` with, for each of its top passages, the best-matching passage of each other release of its
    document ranked just below it: marked `release_of` that passage, or, when the sub-query found it
    lower down itself, moved up (pool reads down each sub-query's list only as far as its budget goes:
    Flask 1.1.4's "Requires-Dist: Werkzeug (<2.0,>=0.15)" was third for a sub-query that 3.0.3's led,
    and never read)."""
    retriever = shared_retriever(ctx.corpus_dir, ctx.chroma_url)
    settings = ctx.retrieval(1, 0.0)
    place = {e.chunk_id: i for i, e in enumerate(top)}
    top = list(top)
    seen = set(place)
    out: list[Evidence] = []
    for e in top[:RELEASES_OF_TOP]:
        line = _line_to_match(task["sub_query"].text, e.text)
        for other in retriever.releases(e.doc_id):
            for hit in retriever.search(line, settings=settings, doc_ids={other}).results[:1]:
                # Ranked just below its passage and weighed like it: one release's value is as credible
                # as the other's, so a change between them stays unresolved rather than "settled" by
                # retrieval rank (the search kept to one document scores its best passage 1.0).
                final = e.scores.get("final", 0.0) - 1e-6
                i = place.get(hit.chunk_id)
                if i is not None and i >= RELEASES_OF_TOP and top[i].scores.get("final", 0.0) < final:
                    top[i] = top[i].model_copy(update={"scores": {**top[i].scores, "final": final}})
                if hit.chunk_id in seen:
                    continue
                seen.add(hit.chunk_id)
                scores = {**hit.scores, "final": final, "answer_bonus": 0.0}
                out.append(hit.model_copy(update={"release_of": e.chunk_id, "scores": scores}))
    return top + out


def latest_release(retriever: HybridRetriever, question: str, top: list[Evidence]) -> list[Evidence]:
    """For a question asking for the latest release (or its date), the passage of each of the top two
    documents whose release lines name the latest one, when it is not among `top` already: its lines
    hold no word of the question ("### v1.1.35: Feb 16 2022"), so the search finds older releases' lines
    that do ("Candidate release 1 of libxslt 1.1.34"). Ranked just below the document's best passage."""
    kind = ans.latest_kind(question)
    if kind is None:
        return []
    have = {e.chunk_id for e in top}
    out: list[Evidence] = []
    for doc_id in list(dict.fromkeys(e.doc_id for e in top))[:RELEASES_OF_TOP]:
        # Among passages naming the same latest release, the changelog's (most release lines) over a
        # download box's ("## v1.13.4 Downloads").
        scored = [
            ((ans.latest_release_line(kind, p.text, question), ans.release_lines(kind, p.text, question)), p)
            for p in retriever.passages_of(doc_id)
        ]
        (late, _), best = max(scored, key=lambda t: t[0], default=(((), 0), None))
        if best is None or not late or best.chunk_id in have:
            continue
        lead = next(e for e in top if e.doc_id == doc_id)
        final = lead.scores.get("final", 0.0) - 1e-6
        out.append(
            best.model_copy(update={"scores": {"final": final, "answer_bonus": lead.scores.get("answer_bonus", 0.0)}})
        )
    return out


# The top passages whose packages' requirement lines are read (requirement_lines).
REQUIREMENTS_OF_TOP = 3
_REQUIRES = re.compile("requir", re.IGNORECASE)


def requirement_lines(retriever: HybridRetriever, question: str, top: list[Evidence]) -> list[Evidence]:
    """For a question asking which versions something requires, the passage of each of the top
    documents, and of their other releases, that holds the field stating it ("Requires-Python: >=3.5.0",
    "Requires-Dist: numpy >=1.23" for numpy), when it is not among `top` already: the search finds the
    package's long description, which says "Python" and its name over and over, and not the field line
    among its classifiers (realdocs4 h10, realdocs5 i07). Ranked just below the document's best passage."""
    if not ans.asks_requirement(question):
        return []
    have = {e.chunk_id for e in top}
    out: list[Evidence] = []
    for lead in list({e.doc_id: e for e in reversed(top[:REQUIREMENTS_OF_TOP])}.values())[::-1]:
        final = lead.scores.get("final", 0.0) - 1e-6
        for doc_id in [lead.doc_id, *retriever.releases(lead.doc_id)]:
            for p in retriever.passages_of(doc_id):
                # Only a passage with a "Requires…" key can state it: the rest are not read line by line.
                states = _REQUIRES.search(p.text) is not None and any(
                    ans.requirement_field(question, line) for line in p.text.splitlines()
                )
                if states and p.chunk_id not in have:
                    have.add(p.chunk_id)
                    bonus = lead.scores.get("answer_bonus", 0.0)
                    out.append(p.model_copy(update={"scores": {"final": final, "answer_bonus": bonus}}))
                    break
    return out


def _line_to_match(query: str, passage: str) -> str:
    """What to look for in another release: the passage's claim that shares most words with the query,
    one holding a number first among equals ("Requires-Python: >=2.7, …" over "Click is a Python
    package …" for "What Python version does Click require?"); the query itself if none shares any."""
    asked = set(tokenize(query))
    scored = [(len(asked & set(tokenize(c.text))), bool(re.search(r"\d", c.text)), c.text) for c in claims(passage)]
    best = max(scored, default=(0, False, query), key=lambda t: t[:2])
    return best[2] if best[0] else query


def _ranked(
    ctx: Context, task: RetrieveTask, retriever: HybridRetriever, doc_ids: Set[str] | None = None
) -> tuple[list[Evidence], str]:
    """A sub-query's passages from one corpus (the user's, or the web's kept to `doc_ids`): the
    candidates, answer-first within the class's budget, and a document's latest release beside them."""
    results, note = _candidates(ctx, task, retriever, doc_ids)
    written = shared_retriever(ctx.corpus_dir, ctx.chroma_url).name_words() | retriever.name_words()
    top = answer_first(task["question"], results, ctx.passages(task["query_class"]), written)
    extra = latest_release(retriever, task["question"], top) + requirement_lines(retriever, task["question"], top)
    return top + extra, note


def _search(ctx: Context, task: RetrieveTask) -> tuple[list[Evidence], str]:
    top, note = _ranked(ctx, task, shared_retriever(ctx.corpus_dir, ctx.chroma_url))
    if task["mode"] == "recent":  # another release is older or newer, not inside the recent window
        return top, note
    return with_other_releases(ctx, task, top), note


def _candidates(
    ctx: Context, task: RetrieveTask, retriever: HybridRetriever, doc_ids: Set[str] | None = None
) -> tuple[list[Evidence], str]:
    """Three times the class's budget, for answer_first to choose from (kept to `doc_ids`, if given)."""
    ref = as_of_date(ctx, task.get("as_of"))
    m = 3 * ctx.passages(task["query_class"])
    query = task["sub_query"].text
    # A requirement is a field of package metadata ("Requires-Python: >=3.7" among classifier lines): a
    # lookup by its words, which the dense encoder reads as a list of noise (attrs 23.2.0's line ranked
    # first by BM25 and out of the fused top 15).
    mode: Mode = "sparse" if task["sub_query"].facet == "requires" else "hybrid"
    if task["mode"] == "recent":
        settings = ctx.retrieval(m, ctx.temporal_weight_recent)
        since = ref - timedelta(days=ctx.recent_window_days)
        recent = retriever.search(query, settings=settings, mode=mode, as_of=ref, since=since, doc_ids=doc_ids)
        if len(recent.results) >= min(3, m):
            return recent.results, f"recent window: since {since}"
        # Too little inside the window: search everything, still weighing recency heavily.
        everything = retriever.search(query, settings=settings, mode=mode, as_of=ref, doc_ids=doc_ids)
        return everything.results, "recent window too thin: all dates"
    # A corpus question is about what the documents say, not how new they are: recency weighs in only
    # when the caller gives a reference date.
    weight = None if task.get("as_of") or ctx.as_of else 0.0
    return retriever.search(query, settings=ctx.retrieval(m, weight), mode=mode, as_of=ref).results, ""


@timed
async def retrieve(state: RetrieveTask, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    results, note = await asyncio.to_thread(_search, ctx, state)
    if state["mode"] == "recent" and not searches_web(ctx, "recent"):
        why = "no web search configured (CITEGRAPH_WEB_SEARCH)" if ctx.deployment.web is None else "web_pages is 0"
        note = f"{note}; the web was not searched: {why}" if note else f"the web was not searched: {why}"
    sq = state["sub_query"]
    evidence = [e.model_copy(update={"sub_query": sq.text}) for e in results]
    detail = f"{sq.facet}: {len(evidence)} passages" + (f" ({note})" if note else "")
    decided = {
        "sub_query": sq.text,
        "passages": [
            {"chunk_id": e.chunk_id, "score": round(e.scores.get("final", 0.0), 4), "text": short(e.text)}
            for e in evidence
        ],
    }
    return {"evidence": evidence, "trace": [trace("retrieve", "extractive", None, detail, decided)]}


def _web(ctx: Context, task: RetrieveTask) -> tuple[list[Evidence], Gathered]:
    """Search the web for the sub-query, store the pages read, and rank their passages as retrieve
    ranks the corpus's (the same hybrid retriever, recent window and answer-first order)."""
    cfg = ctx.deployment.web
    assert cfg is not None
    ref = as_of_date(ctx, task.get("as_of"))
    since = ref - timedelta(days=ctx.recent_window_days)
    until = ref if (task.get("as_of") or ctx.as_of) else None
    query = Query(task["sub_query"].text, count=2 * ctx.web_pages, since=since, until=until)
    try:
        got = gather(cfg, query, ctx.web_pages)
    except Exception as e:  # web input is untrusted: whatever it breaks, the run goes on from the corpus
        log.exception("the web search for %r failed", query.text)
        return [], Gathered(notes=[f"the web search failed ({type(e).__name__}: {e}); answered from the corpus"])
    if not got.doc_ids:
        return [], got
    with web_corpus_lock:
        top, note = _ranked(ctx, task, shared_retriever(cfg.corpus_dir), set(got.doc_ids))
    got.notes.append(note)
    return top, got


@timed
async def search_web(state: RetrieveTask, runtime: Runtime[Context]) -> dict:
    """web: recent mode's web half for one sub-query (web/branch.py), its passages pooled with the
    corpus's. A dead or slow provider, or a page that cannot be read, leaves the run to the corpus;
    the trace says why."""
    results, got = await asyncio.to_thread(_web, runtime.context, state)
    sq = state["sub_query"]
    evidence = [e.model_copy(update={"sub_query": sq.text}) for e in results]
    detail = (
        f"{sq.facet}: {len(got.results)} results, {len(got.doc_ids)} pages read, {len(evidence)} passages; "
        f"requests sent: {got.requests}, answered from the cache: {got.cached}"
    )
    decided = {
        "sub_query": sq.text,
        "results": [r.url for r in got.results],
        "pages": got.doc_ids,
        "notes": [n for n in got.notes if n],
        "seconds": got.seconds,
        "phases_s": got.phases_s,
        "passages": [
            {"chunk_id": e.chunk_id, "url": e.source, "date": e.date, "text": short(e.text)} for e in evidence
        ],
    }
    return {"evidence": evidence, "trace": [trace("web", "extractive", None, detail, decided)]}


def pool(evidence: list[Evidence], sub_queries: list[str], top_m: int, already: set[str]) -> list[str]:
    """Pick the passages to read: first those that could hold the answer (the highest answer bonus
    of answer_first, best first, leaving a place for each facet), then round-robin over the
    sub-queries' own rankings (each facet gets its best passages in before any facet gets its
    third), skipping ones already read. Each chosen passage then brings its other releases' passages
    (`release_of`), beyond `top_m`, at most RELEASES_READ of them."""
    by_query: dict[str, list[Evidence]] = {}
    ranked = sorted((e for e in evidence if e.release_of is None), key=lambda e: -e.scores.get("final", 0.0))
    for e in ranked:
        by_query.setdefault(e.sub_query or "", []).append(e)
    order = [q for q in sub_queries if q in by_query] + [q for q in by_query if q not in sub_queries]
    chosen: list[str] = []
    best = max((e.scores.get("answer_bonus", 0.0) for e in ranked), default=0.0)
    if best > 0:
        room = max(0, top_m - len(order))
        chosen = [e.chunk_id for e in ranked if e.scores.get("answer_bonus", 0.0) == best and e.chunk_id not in already]
        chosen = chosen[:room]
    depth = 0
    while len(chosen) < top_m and any(depth < len(by_query[q]) for q in order):
        for q in order:
            if depth < len(by_query[q]):
                cid = by_query[q][depth].chunk_id
                if cid not in chosen and cid not in already:
                    chosen.append(cid)
                    if len(chosen) == top_m:
                        break
        depth += 1
    place = {cid: i for i, cid in enumerate(chosen)}
    beside = sorted(
        (e for e in evidence if e.release_of in place and e.chunk_id not in place and e.chunk_id not in already),
        key=lambda e: place[e.release_of or ""],
    )
    return chosen + list(dict.fromkeys(e.chunk_id for e in beside))[:RELEASES_READ]


@timed
async def pool_evidence(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    round_ = state.get("reconcile_rounds", 0)
    queries = [q.text for q in (state["pending_queries"] if round_ > 0 else state["sub_queries"])]
    already = set(state.get("extracted", []))
    # A reconcile round reads a few new passages per targeted query; the first round fills the budget.
    top_m = ctx.evidence_top_m if round_ == 0 else max(2, len(queries) * 2)
    chosen = pool(state.get("evidence", []), queries, top_m, already)
    return {
        "selected": chosen,
        "trace": [trace("pool", "extractive", None, f"{len(chosen)} new passages to read", {"selected": chosen})],
    }


def fan_out_extraction(state: State) -> list[Send] | str:
    """One `Send` to extract per newly selected passage; straight to contradictions if none."""
    by_id = {e.chunk_id: e for e in state.get("evidence", [])}
    tasks = []
    for cid in state.get("selected", []):
        if cid in by_id:
            task: ExtractTask = {
                "question": state["question"],
                "query_class": state["query_class"],
                "engine": state.get("engine", "extractive"),
                "evidence": by_id[cid],
            }
            if "deadline" in state:
                task["deadline"] = state["deadline"]
            if cid in state.get("picks", {}):
                task["picked"] = state["picks"][cid]
            tasks.append(Send("extract", task))
    return tasks or "contradictions"
