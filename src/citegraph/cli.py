"""The `citegraph` command line: ingest | search | ask | chat | corpus | serve | eval.

Exit status: 0 when the work was done (`ingest` reports what it skipped and why, every run until it
is fixed); 1 when `ingest` skipped something and stored nothing, or skipped anything with --strict;
2 for a usage error or a corpus that cannot be used.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

import citegraph  # noqa: F401  (sets the offline/threading defaults before numpy is imported)
from citegraph.context import (
    JUDGE_THRESHOLDS_TEXT,
    JUDGES,
    LLM_PICKS,
    LLM_SCOPES,
    LLM_WRITES,
    SENTENCE_RANKERS,
    STRUCTURED_OUTPUT,
    SUPPORT_CHECK,
    WEB_PROVIDERS,
    configure_web,
)
from citegraph.errors import InputError
from citegraph.settings import FUSIONS, RETRIEVAL_KNOBS, SPARSE_BACKENDS, ChunkingSettings, RetrievalSettings, describe
from citegraph.text.dates import require_date


def _add_retrieval_options(p: argparse.ArgumentParser) -> None:
    """One option per retrieval knob (settings.RETRIEVAL_KNOBS), with the knob's description as its help."""
    d = RetrievalSettings()
    g = p.add_argument_group("retrieval")
    g.add_argument("--top", type=int, default=d.top_m, help=f"passages to return (default {d.top_m})")
    for name in RETRIEVAL_KNOBS:
        default = getattr(d, name)
        if isinstance(default, bool):
            # Off by default: --fd-rerank turns it on; on by default: --no-cutoff turns it off.
            flag, help_ = (f"--{name}", describe(name)) if not default else (f"--no-{name}", f"off: {describe(name)}")
            g.add_argument(flag.replace("_", "-"), action="store_true", help=help_)
            continue
        g.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(default),
            default=default,
            choices=FUSIONS if name == "fusion" else None,
            help=f"{describe(name)} (default {default})",
        )
    g.add_argument("--chroma-url", help="Chroma server URL (default: the corpus's own setting)")
    g.add_argument("--sparse", choices=SPARSE_BACKENDS, help="BM25 backend (default: the corpus's)")


def _settings(a: argparse.Namespace) -> RetrievalSettings:
    knobs = {name: getattr(a, name) for name in RETRIEVAL_KNOBS if name != "cutoff"}
    return RetrievalSettings(top_m=a.top, cutoff=not a.no_cutoff, **knobs)


def _add_answer_options(p: argparse.ArgumentParser) -> None:
    """The options of `ask` and `chat`: which corpus, engine, judge and threshold answer."""
    p.add_argument("--corpus", help="corpus folder (default $CITEGRAPH_CORPUS or .citegraph/demo)")
    p.add_argument("--as-of", help="measure document age from this date (default today)")
    p.add_argument("--mode", choices=["auto", "recent", "corpus", "direct"], default="auto")
    p.add_argument("--chroma-url", help="Chroma server URL (default: the corpus's own setting)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (default $CITEGRAPH_LLM_BASE_URL)")
    p.add_argument("--llm-model", help="model name (default $CITEGRAPH_LLM_MODEL); none: extractive engine")
    p.add_argument(
        "--llm-timeout", type=float, metavar="SECONDS", help="wait this long for one model call (default 120)"
    )
    p.add_argument(
        "--llm-concurrency",
        type=int,
        metavar="N",
        help="model requests in flight at once (default $CITEGRAPH_LLM_CONCURRENCY, else 1 for a server on "
        "this machine, 4 for any other)",
    )
    p.add_argument(
        "--llm-structured-output",
        choices=STRUCTURED_OUTPUT,
        help="how the model is asked for JSON: a forced tool call (function_calling, the default), "
        "a response format with the schema (json_schema: Ollama), JSON mode "
        "(default $CITEGRAPH_LLM_STRUCTURED_OUTPUT)",
    )
    p.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="no model call this long after a question starts; the rest is extractive "
        "(default $CITEGRAPH_RUN_DEADLINE_S or 600)",
    )
    p.add_argument(
        "--llm-scope",
        choices=LLM_SCOPES,
        help="with a model: it runs every node (all), or only judges whether the facts answer (judge)",
    )
    p.add_argument(
        "--llm-picks",
        choices=LLM_PICKS,
        help="with a model: it picks a passage's facts by sentence numbers, the code quoting them (default), "
        "or by quotes of its own",
    )
    p.add_argument(
        "--llm-write",
        choices=LLM_WRITES,
        help="with a model: it picks the facts that answer and the answer quotes them, its value first "
        "(quotes, default), or it writes sentences of its own, each support-checked (prose)",
    )
    p.add_argument(
        "--judge",
        choices=JUDGES,
        help="without a model: the sentence scorer (default; needs --sentence-ranker learned), the lexical "
        "score or the reader judges whether the facts answer",
    )
    p.add_argument(
        "--sentence-ranker",
        choices=SENTENCE_RANKERS,
        help="how each passage's answer sentences are picked: the learned scorer (default) or lexical "
        "relevance alone (then give --judge lexical or reader)",
    )
    p.add_argument(
        "--abstain-threshold",
        type=float,
        metavar="T",
        help="abstain below this support (default: the judge's own, chosen for right answers minus wrong "
        f"ones: {JUDGE_THRESHOLDS_TEXT}; lower it for more answers, and more wrong ones)",
    )
    p.add_argument(
        "--support-check",
        type=float,
        metavar="P",
        help="with a model: drop a sentence it writes when the learned support check gives its cited quotes less "
        f"than this probability of saying it (default {SUPPORT_CHECK}; 0: only its names and numbers are checked)",
    )
    w = p.add_argument_group("web search (recent mode; the key is read from BRAVE_API_KEY or TAVILY_API_KEY)")
    w.add_argument(
        "--web-search",
        choices=WEB_PROVIDERS,
        help="search the web in recent mode with this provider (default $CITEGRAPH_WEB_SEARCH, else no web search)",
    )
    w.add_argument(
        "--web-url", help="the provider's API base URL, or the SearxNG instance (default $CITEGRAPH_WEB_URL)"
    )
    w.add_argument("--web-pages", type=int, metavar="N", help="result pages read per sub-query (default 3; 0: none)")
    w.add_argument(
        "--web-cache", metavar="DIR", help="where searches and pages are kept (default ~/.cache/citegraph/web)"
    )
    w.add_argument(
        "--offline", action="store_true", help="send no web request: searches and pages come from the cache only"
    )
    p.add_argument("--quiet", action="store_true", help="no per-node progress on stderr")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="citegraph", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    sub = parser.add_subparsers(dest="command", required=True)

    c = ChunkingSettings()
    p = sub.add_parser("ingest", help="add files and folders to a corpus (idempotent, incremental)")
    p.add_argument(
        "paths",
        nargs="+",
        help=".txt .md .html .pdf .jsonl files or folders (with --remove: document ids or ingested paths)",
    )
    p.add_argument("--corpus", required=True, help="corpus folder (created if missing)")
    p.add_argument("--remove", action="store_true", help="drop the given documents instead")
    p.add_argument("--prune", action="store_true", help="also drop documents whose file under PATHS is gone")
    p.add_argument(
        "--replace", action="store_true", help="let a record replace a document of another file that has its id"
    )
    p.add_argument("--chroma-url", help="keep vectors in a Chroma server, e.g. http://127.0.0.1:8000")
    p.add_argument("--sparse", choices=SPARSE_BACKENDS, help="BM25 backend (default bm25s)")
    p.add_argument("--section-tokens", type=int, default=c.section_tokens)
    p.add_argument("--section-overlap", type=int, default=c.section_overlap)
    p.add_argument("--passage-tokens", type=int, default=c.passage_tokens)
    p.add_argument("--batch", type=int, default=512, help="passages embedded and written per step")
    p.add_argument("--max-file-mb", type=float, default=20.0, help="skip files larger than this (default 20)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--strict", action="store_true", help="exit with status 1 when any file or record was skipped")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    p = sub.add_parser("search", help="hybrid search over a corpus")
    p.add_argument("query")
    p.add_argument("--corpus", required=True)
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--since", help="only documents dated on or after this date")
    p.add_argument("--until", help="only documents dated on or before this date")
    p.add_argument("--as-of", help="measure document age from this date (default today)")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="only documents whose metadata KEY equals VALUE (repeatable)",
    )
    p.add_argument("--retriever", choices=["hybrid", "dense", "sparse"], default="hybrid")
    _add_retrieval_options(p)

    p = sub.add_parser("ask", help="answer a question from a corpus, every sentence cited (or abstain)")
    p.add_argument("question", nargs="?")
    p.add_argument(
        "--questions",
        metavar="FILE",
        help="answer every question of FILE (one per line, or JSONL with a 'question' field; - for stdin) "
        "with the models loaded once; prints one JSON answer per line",
    )
    p.add_argument("--json", action="store_true", help="print the whole answer record as JSON")
    _add_answer_options(p)

    p = sub.add_parser(
        "chat", help="ask questions one at a time, typed or piped, with the models loaded once (Ctrl-D ends)"
    )
    _add_answer_options(p)

    p = sub.add_parser("corpus", help="what a corpus holds: documents, dates and where they came from, passages")
    p.add_argument("corpus", help="corpus folder")
    p.add_argument("--json", action="store_true", help="print the whole listing as JSON")

    p = sub.add_parser(
        "serve",
        help="serve the graph for LangGraph Studio and the LangGraph API (`langgraph dev` with no analytics, "
        "no version check, no tracing)",
    )
    p.add_argument("--corpus", help="the default corpus (default $CITEGRAPH_CORPUS or .citegraph/demo)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=2125, help="port (default 2125)")
    p.add_argument("--browser", action="store_true", help="open Studio in a browser")
    p.add_argument("--reload", action="store_true", help="restart when the code changes")

    p = sub.add_parser("eval", help="measure citegraph on benchmarks (see `citegraph eval -h`)")
    esub = p.add_subparsers(dest="eval_command", required=True)
    from citegraph.eval.cli import add_parsers

    add_parsers(esub, _add_retrieval_options)
    return parser


def _parse_where(items: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--where {item!r}: use KEY=VALUE")
        k, v = item.split("=", 1)
        if not k.strip():
            raise InputError(f"--where {item!r}: the key is empty")
        try:
            value = json.loads(v)  # numbers and booleans compare as such
        except json.JSONDecodeError:
            value = v
        if value is None or isinstance(value, (list, dict)):
            # Chroma compares scalars only; a list or null would fail deep inside it.
            raise InputError(f"--where {item!r}: the value must be a string, number or true/false")
        out[k] = value
    return out or None


def cmd_ingest(a: argparse.Namespace) -> int:
    from citegraph.ingest.pipeline import ingest, remove

    if a.remove:
        report = remove(a.paths, a.corpus, chroma_url=a.chroma_url)
    else:
        missing = [p for p in a.paths if not Path(p).expanduser().exists() and not Path(p).expanduser().is_symlink()]
        if missing:  # a mistyped path: say so before loading anything or creating the corpus folder
            raise InputError(f"no such file or folder: {', '.join(missing)} (nothing was ingested)")
        from citegraph.ingest.loaders import SUPPORTED, discover

        files, problems, ignored = discover(a.paths)
        if not files and not problems and not a.prune:  # a folder of nothing readable: not an empty corpus
            seen = f"{len(ignored)} file(s) of other types, e.g. {ignored[0]}" if ignored else "no files"
            raise InputError(
                f"nothing to ingest in {', '.join(a.paths)}: {seen}; citegraph reads "
                f"{' '.join(sorted(SUPPORTED))}, documentation files by name (README, copyright, METADATA…) and "
                "any of them gzipped (nothing was ingested)"
            )
        chunking = ChunkingSettings(a.section_tokens, a.section_overlap, a.passage_tokens)
        report = ingest(
            a.paths,
            a.corpus,
            chunking=chunking,
            sparse=a.sparse,
            chroma_url=a.chroma_url,
            prune=a.prune,
            replace=a.replace,
            max_file_mb=a.max_file_mb,
            progress=not a.no_progress,  # a bar on a terminal, a line every 10 s in a log
            batch_passages=a.batch,
        )
    if a.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        r = report
        print(f"corpus {r.corpus}: {r.documents_total} documents, {r.passages_total} passages")
        print(f"  files: {r.files} seen, {r.files_unchanged} unchanged")
        print(
            f"  documents: {r.documents_added} added, {r.documents_updated} updated, "
            f"{r.documents_unchanged} unchanged, {r.documents_removed} removed"
        )
        print(f"  passages: {r.passages_added} added, {r.passages_removed} removed  ({r.seconds:.1f} s)")
        for note in r.notes:
            print(f"  note: {note}")
        for warning in r.warnings[:20]:
            print(f"  warning: {warning}")
        if len(r.warnings) > 20:
            print(f"  … and {len(r.warnings) - 20} more warnings (use --json for all)")
        if r.ignored:
            print(f"  ignored {len(r.ignored)} file(s) of unsupported type, e.g. {r.ignored[0]}")
        if r.skipped:
            print(f"  SKIPPED {len(r.skipped)}:")
            for s in r.skipped[:50]:
                print(f"    {s.source}: {s.reason}")
            if len(r.skipped) > 50:
                print(f"    … and {len(r.skipped) - 50} more (use --json for all)")
    # Skipped files are reported every run until fixed; they fail the run only when nothing else could
    # be stored, or with --strict (one bad file among thousands must not fail every later run).
    stored = report.documents_added + report.documents_updated + report.documents_unchanged
    if report.skipped and (getattr(a, "strict", False) or stored == 0):
        return 1
    return 0


def cmd_search(a: argparse.Namespace) -> int:
    from citegraph.retrievers.hybrid import HybridRetriever, result_json

    since = require_date(a.since, "--since") if a.since else None
    until = require_date(a.until, "--until") if a.until else None
    as_of = require_date(a.as_of, "--as-of") if a.as_of else None
    if since and until and since > until:
        raise InputError(f"--since {since} is after --until {until}")
    with HybridRetriever.open(a.corpus, _settings(a), chroma_url=a.chroma_url, sparse_backend=a.sparse) as r:
        if len(r) == 0:
            print(
                f"the corpus {a.corpus} holds no passages yet: add documents with `citegraph ingest`", file=sys.stderr
            )
            return 1
        res = r.search(a.query, mode=a.retriever, since=since, until=until, as_of=as_of, where=_parse_where(a.where))
    if a.json:
        print(result_json(res))
        return 0
    if not res.results:
        print("no passage matched")
    from citegraph.text.injection import clean_title, instruction_reason

    for e in res.results:
        date = f" ({e.date})" if e.date else ""
        title = clean_title(e.title) or e.doc_id
        print(f"[{e.rank}] {title}{date}  score {e.scores['final']:.3f}  {e.doc_id}, {e.locator}")
        text = " ".join(e.text.split())
        print(f"    {text[:300]}{'…' if len(text) > 300 else ''}")
        why = instruction_reason(e.text)
        if why:  # where it is retrieved, a poisoned passage says so
            print(
                f"    warning: this passage reads as instructions to a model ({why}); it is never quoted as an answer"
            )
    print(f"({res.timings_ms['total_ms']:.1f} ms)", file=sys.stderr)
    return 0


def answer_json(answer: Any, trace: list[Any]) -> dict[str, Any]:
    """The `citegraph ask --json` document."""
    facts = {f.id: f for f in answer.facts}
    return {
        "question": answer.question,
        "mode": answer.mode,
        "query_class": answer.query_class,
        "sub_queries": answer.sub_queries,
        "answer": answer.answer,
        "abstained": answer.abstained,
        "abstain_reason": answer.abstain_reason,
        "cited": answer.cited,
        "sentences": [{"text": s.text, "citations": s.citations} for s in answer.sentences],
        "references": [r.model_dump() for r in answer.references],
        "facts": [
            {
                "id": f.id,
                "text": f.text,
                "doc_id": f.doc_id,
                "chunk_id": f.chunk_id,
                "span": list(f.span),
                "weight": f.weight,
                "relevance": f.relevance,
            }
            for f in facts.values()
        ],
        "contradictions": [
            {
                "facts": list(c.facts),
                "kind": c.kind,
                "severity": c.severity,
                "point": c.point,
                "values": list(c.values),
                "resolved": c.resolved,
                "winner": c.winner,
                "resolution": c.resolution,
            }
            for c in answer.contradictions
        ],
        "reconcile_rounds": answer.reconcile_rounds,
        "support": answer.support,
        "searched": answer.searched,
        "trace": {
            "engine": answer.engine,
            "timings_ms": answer.timings_ms,
            "fallbacks": answer.fallbacks,
            "steps": [e.model_dump() for e in trace],
        },
    }


def cmd_ask(a: argparse.Namespace) -> int:
    import asyncio

    from citegraph.api import graph_input, make_context
    from citegraph.graph import graph

    chat = a.command == "chat"
    if not chat and (a.question is None) == (a.questions is None):
        raise InputError("give one QUESTION, or --questions FILE")
    if a.as_of:
        require_date(a.as_of, "--as-of")
    ctx = make_context(
        corpus_dir=a.corpus,
        as_of=a.as_of,
        chroma_url=a.chroma_url,
        llm_base_url=a.llm_base_url,
        llm_model=a.llm_model,
        llm_timeout_s=a.llm_timeout,
        llm_concurrency=a.llm_concurrency,
        llm_structured_output=a.llm_structured_output,
        run_deadline_s=a.deadline,
        llm_scope=a.llm_scope,
        llm_picks=a.llm_picks,
        llm_write=a.llm_write,
        judge=a.judge,
        sentence_ranker=a.sentence_ranker,
        abstain_threshold=a.abstain_threshold,
        support_check=a.support_check,
        web=configure_web(a.web_search, a.web_url, a.web_cache, a.offline),
        web_pages=a.web_pages,
    )
    from citegraph.store.corpus import require_corpus

    if a.mode != "direct":
        require_corpus(ctx.corpus_dir)

    async def run(question: str, quiet: bool) -> tuple[Any, list[Any]]:
        answer, steps = None, []
        async for update in graph.astream(graph_input(question, a.mode, a.as_of), context=ctx, stream_mode="updates"):
            for _node, delta in update.items():
                for event in (delta or {}).get("trace", []):
                    steps.append(event)
                    if not quiet:
                        fb = f"  [fallback: {event.fallback}]" if event.fallback else ""
                        print(f"· {event.node:<14} {event.ms:8.1f} ms  {event.detail}{fb}", file=sys.stderr)
                if (delta or {}).get("answer") is not None:
                    answer = delta["answer"]
        return answer, steps

    if chat:
        return _chat(lambda q: asyncio.run(run(q, a.quiet)))
    if a.questions:
        return _ask_many(a.questions, lambda q: asyncio.run(run(q, True)))
    answer, steps = asyncio.run(run(a.question, a.quiet))
    if answer is None:
        raise RuntimeError("the graph ended without an answer")
    if a.json:
        print(json.dumps(answer_json(answer, steps), ensure_ascii=False, indent=2))
    else:
        print(answer.render())
    return 0


def read_questions(path: str) -> list[str]:
    """Questions from a file: one per line, or JSONL records with a "question" (or "text") field."""
    text = sys.stdin.read() if path == "-" else _read_text(path)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: not JSON ({exc.msg})") from exc
            q = rec.get("question", rec.get("text")) if isinstance(rec, dict) else None
            if not isinstance(q, str):
                raise InputError(f'{path}:{n}: a JSON line needs a "question" string')
            line = q
        out.append(line)
    if not out:
        raise InputError(f"{path} holds no questions")
    return out


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--questions {path}: {exc.strerror or exc}") from exc


def _ask_many(path: str, answer_one: Any) -> int:
    """One JSON line per question, in order; a question the graph refuses gets its error, and the
    rest go on."""
    from tqdm import tqdm

    questions = read_questions(path)
    for q in tqdm(questions, desc="questions", unit="q", file=sys.stderr, disable=None):
        try:
            answer, steps = answer_one(q)
            record = answer_json(answer, steps)
        except InputError as exc:
            record = {"question": q, "error": str(exc)}
        print(json.dumps(record, ensure_ascii=False), flush=True)
    return 0


def _chat(answer_one: Any) -> int:
    """Questions one per line from a terminal or a pipe, each answered as `ask` prints it, with the
    models loaded once (each separate `ask` loads them again).
    A question the graph refuses gets its error and the chat goes on; Ctrl-D, "exit" or "quit" ends."""
    interactive = sys.stdin.isatty()
    if interactive:
        print("citegraph chat: type a question (Ctrl-D or 'exit' ends)", file=sys.stderr)
    while True:
        try:
            line = input("? " if interactive else "")
        except (EOFError, KeyboardInterrupt):
            break
        question = line.strip()
        if question.lower() in ("exit", "quit"):
            break
        if not question:
            continue
        try:
            answer, _ = answer_one(question)
            print(answer.render() if answer is not None else "(the graph ended without an answer)")
        except KeyboardInterrupt:  # Ctrl-C stops this answer, not the chat
            print("(stopped)", file=sys.stderr)
        except Exception as exc:  # one question's failure is reported; the models stay loaded
            print(f"citegraph: {exc}", file=sys.stderr)
        print(flush=True)
    return 0


def cmd_corpus(a: argparse.Namespace) -> int:
    """The corpus's manifest and documents, read from its ledger (no model is loaded)."""
    from collections import Counter

    from citegraph.store.corpus import require_corpus
    from citegraph.store.ledger import Ledger
    from citegraph.text.injection import clean_title

    d = Path(a.corpus)
    m = require_corpus(d)
    ledger = Ledger(d / "ledger.sqlite", readonly=True)
    try:
        docs = ledger.summaries()
    finally:
        ledger.close()
    formats = Counter(Path(doc["path"]).suffix.lower() or "(none)" for doc in docs)
    store = m.chroma.get("url") or "embedded Chroma"
    info = {
        "corpus": str(d),
        "documents": len(docs),
        "passages": sum(doc["passages"] for doc in docs),
        "formats": dict(formats.most_common()),
        "store": store,
        "embedder": m.embedder,
        "chunking": m.chunking,
        "sparse": m.sparse,
        "updated_at": m.updated_at,
        "items": docs,
    }
    if a.json:
        print(json.dumps(info, ensure_ascii=False, indent=2))
        return 0
    fmt = ", ".join(f"{n} {s}" for s, n in formats.most_common())
    print(f"corpus {d}: {info['documents']} documents, {info['passages']} passages ({fmt or 'no files'})")
    print(f"  store: {store}; embedder: {m.embedder.get('name', m.embedder)}; updated {m.updated_at}")
    for doc in docs:
        when = f"{doc['date']} ({doc['date_source'] or 'record'})" if doc["date"] else "undated"
        title = clean_title(doc["title"], 60)
        print(f"  {doc['doc_id']}  {title!r}  {when}  {doc['source_tier']}  {doc['passages']} passages")
    return 0


def cmd_eval(a: argparse.Namespace) -> int:
    from citegraph.eval.cli import run

    return run(a, _settings)


# What the server process needs before anything of citegraph is imported: `langgraph dev` posts CLI
# analytics and checks PyPI for a newer version before it loads the graph (langgraph-cli 0.4.40,
# langgraph-api); LangSmith tracing would send runs out. A value the user exported, or set in .env, wins.
SERVER_OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
}


def cmd_serve(a: argparse.Namespace) -> int:
    """Start `langgraph dev` on the packaged graph (`citegraph/langgraph.json`, by module, so it works
    from any folder and from an installed wheel), with the offline environment; replaces this process."""
    import importlib.util
    import os
    import shutil

    exe = Path(sys.executable).parent / "langgraph"
    langgraph = str(exe) if exe.exists() else shutil.which("langgraph")
    if langgraph is None or importlib.util.find_spec("langgraph_api") is None:
        raise InputError("serving needs the LangGraph server: pip install 'langgraph-cli[inmem]'")
    env = dict(os.environ)
    if Path(".env").is_file():  # what `langgraph dev` would read from langgraph.json's "env"
        from dotenv import dotenv_values

        for key, value in dotenv_values(".env").items():
            if value is not None:
                env.setdefault(key, value)
    for key, value in SERVER_OFFLINE_ENV.items():
        env.setdefault(key, value)
    if a.corpus:
        from citegraph.store.corpus import require_corpus

        require_corpus(a.corpus)  # a wrong folder is an error here, not in the first run
        env["CITEGRAPH_CORPUS"] = str(Path(a.corpus).expanduser().resolve())
    config = Path(__file__).with_name("langgraph.json")
    cmd = [langgraph, "dev", "--config", str(config), "--host", a.host, "--port", str(a.port)]
    cmd += [] if a.browser else ["--no-browser"]
    cmd += [] if a.reload else ["--no-reload"]
    sys.stdout.flush()
    os.execve(langgraph, cmd, env)
    return 0  # not reached


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    a.argv = sys.argv[1:] if argv is None else list(argv)  # what a report's "Reproduce:" line shows
    logging.basicConfig(level=logging.INFO if a.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not a.verbose:
        # pypdf's warnings ("Unexpected escaped string: v") name no file and change nothing a user can act on.
        for name in ("chromadb", "httpx", "sentence_transformers", "transformers", "pypdf"):
            logging.getLogger(name).setLevel(logging.ERROR)
    from citegraph.store.corpus import CorpusError

    try:
        if a.command == "ingest":
            return cmd_ingest(a)
        if a.command == "search":
            return cmd_search(a)
        if a.command in ("ask", "chat"):
            return cmd_ask(a)
        if a.command == "corpus":
            return cmd_corpus(a)
        if a.command == "serve":
            return cmd_serve(a)
        if a.command == "eval":
            return cmd_eval(a)
    except (CorpusError, InputError, FileNotFoundError) as exc:
        print(f"citegraph: error: {exc}", file=sys.stderr)
        return 2
    parser.error(f"unknown command {a.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
