"""`citegraph eval …`: the evaluation commands. Each takes --json (print one JSON object) and --out
(the report folder: results.json, summary.md, PNG plots; default eval-out/<command>-<time>)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from citegraph.context import JUDGES, LLM_PICKS, LLM_SCOPES, LLM_WRITES, SENTENCE_RANKERS
from citegraph.errors import InputError
from citegraph.eval import report


def add_parsers(esub: Any, add_retrieval_options: Any) -> None:
    def common(p: argparse.ArgumentParser, data: bool = True, corpus: bool = True, limit: bool = True) -> None:
        if data:
            p.add_argument("--data", required=True, help="BEIR folder: corpus.jsonl, queries.jsonl[, qrels.tsv]")
        if corpus:
            p.add_argument("--corpus", required=True, help="corpus folder (the data's corpus is ingested into it)")
        if limit:
            p.add_argument("--limit", type=int, help="a reproducible sample of N queries (default: all)")
            p.add_argument("--seed", type=int, default=0, help="seed of the query sample")
        p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
        p.add_argument("--out", help="report folder (default eval-out/<command>-<time>)")

    e = esub.add_parser("retrieval", help="P@1, Recall@5, MRR@10, nDCG@10 and latency on a BEIR folder")
    common(e)
    e.add_argument("--retriever", choices=["bm25", "dense", "hybrid"], default="hybrid")
    add_retrieval_options(e)

    e = esub.add_parser("answers", help="answer correctness, abstention trade-off and citation quality")
    common(e)
    e.add_argument("--llm-base-url")
    e.add_argument("--llm-model")
    e.add_argument("--llm-scope", choices=LLM_SCOPES, help="the model runs every node, or only judges")
    e.add_argument("--llm-picks", choices=LLM_PICKS, help="the model picks facts by sentence numbers or quotes")
    e.add_argument("--llm-write", choices=LLM_WRITES, help="the answer quotes the facts the model picks, or its prose")
    e.add_argument("--judge", choices=JUDGES, help="without a model: who judges (default sentences)")
    e.add_argument("--sentence-ranker", choices=SENTENCE_RANKERS, help="how answer sentences are picked")
    e.add_argument("--abstain-threshold", type=float, help="support below which to abstain (0: answer whatever covers)")
    e.add_argument(
        "--langsmith",
        action="store_true",
        help="run through LangSmith's evaluate(): local without LANGSMITH_API_KEY, uploaded with one",
    )

    e = esub.add_parser("documents", help="right values and abstentions on real files and checked questions")
    e.add_argument("--questions", required=True, nargs="+", help="question JSONL file(s) (eval/documents.py)")
    e.add_argument("--docs", required=True, nargs="+", help="the files or folders the questions are about")
    e.add_argument("--corpus", required=True, help="corpus folder (the docs are ingested into it)")
    e.add_argument("--split", choices=["dev", "test", "all"], default="all", help="which half of the questions")
    e.add_argument("--labels", help="JSONL of conflict labels {key, label: real|spurious}")
    e.add_argument("--limit", type=int, help="a reproducible sample of N of those questions (default: all)")
    e.add_argument("--seed", type=int, default=0, help="seed of the question sample")
    e.add_argument("--judge", choices=JUDGES, help="without a model: who judges (default sentences)")
    e.add_argument("--sentence-ranker", choices=SENTENCE_RANKERS, help="how answer sentences are picked")
    e.add_argument("--abstain-threshold", type=float, help="support below which to abstain")
    e.add_argument("--llm-base-url")
    e.add_argument("--llm-model")
    e.add_argument("--llm-scope", choices=LLM_SCOPES)
    e.add_argument("--llm-picks", choices=LLM_PICKS)
    e.add_argument("--llm-write", choices=LLM_WRITES)
    e.add_argument("--json", action="store_true")
    e.add_argument("--out")

    e = esub.add_parser("multihop", help="full-support Recall@5/@10 with and without decomposition")
    common(e)
    add_retrieval_options(e)

    e = esub.add_parser("contradictions", help="accuracy, precision, recall, F1 on labelled sentence pairs")
    e.add_argument("--pairs", required=True, help="JSONL of {a, b, claim, label}")
    e.add_argument("--limit", type=int)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--json", action="store_true")
    e.add_argument("--out")

    e = esub.add_parser("coverage", help="share of questions some passage covers (cosine >= 0.75, >= 2 keywords)")
    common(e)

    e = esub.add_parser("density", help="Pearson r of raw and binned factual density against passage length")
    common(e, data=False, limit=False)

    e = esub.add_parser("ablations", help="retrieval configurations and the RRF weight sweep side by side")
    common(e)
    e.add_argument("--multihop", action="store_true", help="also decomposition on/off (full-support recall)")
    add_retrieval_options(e)


def answer_settings(a: argparse.Namespace) -> dict[str, Any]:
    """The graph settings the answer-running commands take from their options (those given)."""
    given = {
        "llm_base_url": a.llm_base_url,
        "llm_model": a.llm_model,
        "llm_scope": a.llm_scope,
        "llm_picks": a.llm_picks,
        "llm_write": a.llm_write,
        "judge": a.judge,
        "sentence_ranker": a.sentence_ranker,
        "abstain_threshold": a.abstain_threshold,
    }
    return {k: v for k, v in given.items() if v is not None}


def _finish(a: argparse.Namespace, title: str, out: dict[str, Any], markdown: str = "", folder: Any = None) -> int:
    folder = folder or report.out_dir(a.out, a.eval_command)
    report.write(folder, title, out, markdown, getattr(a, "argv", None))
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in report.flat(out).items():
            print(f"{k:>34}: {v}")
        if markdown:
            print(markdown)
        print(f"(report: {folder}/summary.md)", file=sys.stderr)
    return 0


def run(a: argparse.Namespace, retrieval_settings: Any) -> int:
    from citegraph.eval.datasets import load_dataset

    progress = sys.stderr.isatty() and not a.json
    cmd = a.eval_command

    if cmd == "contradictions":
        from citegraph.eval.contradictions import load_pairs, run_contradictions

        pairs = load_pairs(a.pairs)
        if a.limit and a.limit < len(pairs):
            pairs = random.Random(a.seed).sample(pairs, a.limit)
        return _finish(a, "Contradiction detection", {"pairs": a.pairs, **run_contradictions(pairs, progress)})

    if cmd == "density":
        from citegraph.embed import get_embedder
        from citegraph.eval.density import run_density
        from citegraph.retrievers import index as corpus_index
        from citegraph.store.corpus import Corpus

        with Corpus.open(a.corpus, get_embedder().identity.as_dict()) as c:
            idx = corpus_index.load_current(c)
            raw = c.ledger.index_table()["fd_raw"]
        out = {"corpus": a.corpus, **run_density(idx, raw)}
        folder = report.out_dir(a.out, cmd)
        report.scatter_plot(
            folder,
            "density_vs_length",
            idx.table.n_tokens.tolist(),
            {"FD_raw": raw.tolist(), "FD*": idx.table.fd_star.tolist()},
            "Factual density against passage length",
        )
        md = (
            "```json\n"
            + json.dumps({k: out[k] for k in ("fd_raw_vs_length", "fd_star_vs_length", "within_bins")}, indent=2)
            + "\n```"
        )
        return _finish(a, "Factual density: the length confound", out, md, folder)

    if cmd == "documents":
        from citegraph.eval.datasets import sample_in_order
        from citegraph.eval.documents import load_labels, load_questions, run_documents, split_of, summarize_documents
        from citegraph.ingest.pipeline import ingest

        questions = load_questions(a.questions)
        if a.split != "all":
            halves = split_of(questions)
            questions = [q for q in questions if halves[q.id] == a.split]
        questions = sample_in_order(questions, a.limit, a.seed)  # the draw of the other evals' --limit
        ingest(a.docs, a.corpus)
        settings = answer_settings(a)
        doc_rows = run_documents(questions, a.corpus, settings, progress=progress)
        out = {
            "questions": a.questions,
            "docs": a.docs,
            "split": a.split,
            "sample": None if a.limit is None else {"limit": a.limit, "seed": a.seed},
            **settings,
            **summarize_documents(doc_rows, load_labels(a.labels)),
        }
        folder = report.out_dir(a.out, cmd)
        (folder / "answers.jsonl").write_text("".join(json.dumps(r.__dict__) + "\n" for r in doc_rows))
        return _finish(a, "Real documents", out, folder=folder)

    ds = load_dataset(a.data)
    from citegraph.eval.retrieval import ensure_corpus

    ensure_corpus(ds, a.corpus, progress=progress)
    queries = ds.sample(a.limit, a.seed, judged_only=cmd not in ("answers", "coverage"))
    head = {"data": str(a.data), "corpus": a.corpus, "n_queries": len(queries)}

    if cmd == "answers":
        from citegraph.eval.answers import run_answers, run_answers_langsmith, summarize

        settings = answer_settings(a)
        if a.langsmith:
            rows, where = run_answers_langsmith(ds, queries, a.corpus, settings)
            head["langsmith"] = where
        else:
            rows = run_answers(ds, queries, a.corpus, settings, progress=progress)
        out = {**head, **summarize(rows)}
        folder = report.out_dir(a.out, cmd)
        (folder / "answers.jsonl").write_text("".join(json.dumps(r.__dict__) + "\n" for r in rows))
        curve = out.get("abstention_curve")
        if curve:
            report.curve_plot(
                folder,
                "abstention_tradeoff",
                curve["false_abstention"],
                curve["correct_abstention"],
                out["abstention_auc"],
                "Abstention trade-off",
                out.get("abstention_auc_ci95"),
            )
        return _finish(a, "Answers", out, folder=folder)

    if cmd == "coverage":
        from citegraph.embed import get_embedder
        from citegraph.eval.coverage import run_coverage
        from citegraph.retrievers import index as corpus_index
        from citegraph.store.corpus import Corpus

        emb = get_embedder()
        with Corpus.open(a.corpus, emb.identity.as_dict()) as c:
            idx = corpus_index.load_current(c)
            texts = c.ledger.index_table()["texts"]
        return _finish(
            a, "Corpus coverage pre-check", {**head, **run_coverage(idx, texts, emb, queries, progress=progress)}
        )

    from citegraph.retrievers.hybrid import HybridRetriever, Mode

    with HybridRetriever.open(a.corpus, retrieval_settings(a), chroma_url=a.chroma_url, sparse_backend=a.sparse) as r:
        if cmd == "retrieval":
            from citegraph.eval.retrieval import run_retrieval

            mode: Mode = {"bm25": "sparse", "dense": "dense", "hybrid": "hybrid"}[a.retriever]  # type: ignore[assignment]
            out = {**head, "retriever": a.retriever, **run_retrieval(r, ds, queries, mode, progress=progress)}
            return _finish(a, f"Retrieval: {a.retriever}", out)
        if cmd == "multihop":
            from citegraph.eval.multihop import run_multihop

            return _finish(
                a, "Multi-hop: full-support recall", {**head, **run_multihop(r, ds, queries, progress=progress)}
            )
        if cmd == "ablations":
            from citegraph.eval.ablations import run_ablations

            res = run_ablations(r, ds, queries, a.multihop, progress=progress)
            folder = report.out_dir(a.out, cmd)
            rows = res["configurations"]
            report.bar_plot(
                folder,
                "ablations",
                rows,
                ["p@1", "recall@5", "mrr@10", "ndcg@10"],
                f"Retrieval ablations ({len(queries)} queries)",
            )
            md = report.table(rows, ["p@1", "recall@5", "mrr@10", "ndcg@10"])
            if "decomposition" in res:
                md += "\n\n" + report.table(
                    {"decomposition": res["decomposition"]}, [k for k in res["decomposition"] if k.startswith("full")]
                )
            return _finish(a, "Retrieval ablations", {**head, **res}, md, folder)
    raise InputError(f"unknown eval command {cmd}")
