"""Recent mode's web half on saved pages: answers and the latency the web branch adds.

A web server on loopback plays the search provider (Brave's documented JSON, the results of each
question listed in benchmarks/web/questions.jsonl) and the sites (real HTML pages that ship on Debian,
benchmarks/web/pages/, described in pages.json). Each question runs in recent mode three ways: with an
empty web cache (search, robots.txt and pages fetched, read, embedded and ranked), again with the cache
(no request), and without web search (the corpus only), so the time the web branch adds is measured
side by side. Answers are scored against the strings checked by reading the pages: right (an accepted
answer in the answer text), wrong (answered without one, or answered a question the pages do not
answer), abstained.

    python benchmarks/web_recent.py [--corpus .citegraph/demo] [--llm-base-url URL --llm-model NAME]
        [--out bench-out/web]

The search results are chosen by hand (the answering page and a distractor), so this measures what the
pipeline makes of the pages a search returns, not a provider's ranking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent / "web"
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))  # the loopback site the tests use

from citegraph.api import graph_input, make_context  # noqa: E402
from citegraph.context import WebSettings  # noqa: E402
from citegraph.graph import graph  # noqa: E402
from helpers import fixture_site  # noqa: E402


def brave_answer(question: dict, pages: dict) -> bytes:
    """The provider's answer for this question, in Brave's documented format."""
    results = [
        {
            "type": "search_result",
            "title": pages[name]["title"],
            "url": "{base}/pages/" + name,
            "description": pages[name]["title"],
            **({"page_age": pages[name]["page_age"] + "T00:00:00"} if pages[name].get("page_age") else {}),
        }
        for name in question["results"]
    ]
    return json.dumps({"type": "search", "web": {"type": "search", "results": results}}).encode()


def score(q: dict, answer) -> str:
    if answer.abstained:
        return "abstained"
    text = " ".join(answer.answer.split()).lower()
    return "right" if any(a.lower() in text for a in q["answers"]) else "wrong"


def run(ctx, question: str) -> tuple[object, float, float, int, dict]:
    """(answer, seconds, web node seconds (the slowest sub-query's), requests sent, that node's phases)."""
    started = time.perf_counter()
    out = asyncio.run(graph.ainvoke(graph_input(question, "recent"), context=ctx))
    seconds = time.perf_counter() - started
    web = [e for e in out["trace"] if e.node == "web"]
    requests = sum(int(e.detail.split("requests sent: ")[1].split(",")[0]) for e in web)
    slowest = max(web, key=lambda e: e.ms, default=None)
    phases = slowest.decided.get("phases_s", {}) if slowest else {}
    return out["answer"], seconds, (slowest.ms / 1000 if slowest else 0.0), requests, phases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpus", default=".citegraph/demo", help="the user's corpus beside the web (make demo builds it)"
    )
    ap.add_argument("--llm-base-url")
    ap.add_argument("--llm-model")
    ap.add_argument("--out", default="bench-out/web")
    ap.add_argument("--cold-only", action="store_true", help="one run a question (with a model: the slow part)")
    ap.add_argument("--split", choices=["dev", "test"], help="only this split's questions")
    a = ap.parse_args()
    questions = [json.loads(line) for line in (HERE / "questions.jsonl").read_text().splitlines() if line.strip()]
    questions = [q for q in questions if a.split in (None, q.get("split", "dev"))]
    pages = json.loads((HERE / "pages.json").read_text())
    current: dict = {}

    def search(_req):
        return 200, {"Content-Type": "application/json"}, brave_answer(current["q"], pages)

    routes = {"/res/v1/web/search": search, "/robots.txt": (200, {"Content-Type": "text/plain"}, b"User-agent: *\n")}
    for name, page in pages.items():
        ctype = page.get("type", "text/html")
        # A page some realdocs corpus already holds is read from there ("file"), not kept twice.
        routes[f"/pages/{name}"] = (
            200,
            {"Content-Type": ctype},
            (HERE / page.get("file", f"pages/{name}")).read_bytes(),
        )
    llm = {"llm_base_url": a.llm_base_url, "llm_model": a.llm_model} if a.llm_model else {}
    rows = []
    with fixture_site(routes) as (base, _), tempfile.TemporaryDirectory() as tmp:
        for n, q in enumerate(questions):
            current["q"] = q
            web = WebSettings(
                provider="brave", base_url=base, api_key="bench", cache_dir=f"{tmp}/{n}", allow_private=True
            )
            answer, cold_s, cold_web_s, cold_req, phases = run(
                make_context(corpus_dir=a.corpus, web=web, **llm), q["question"]
            )
            warm_s = warm_web_s = corpus_s = 0.0
            warm_req = 0
            if not a.cold_only:
                _, warm_s, warm_web_s, warm_req, _ = run(
                    make_context(corpus_dir=a.corpus, web=web, **llm), q["question"]
                )
                _, corpus_s, _, _, _ = run(make_context(corpus_dir=a.corpus, web=None, **llm), q["question"])
            row = {
                "id": q["id"],
                "split": q.get("split", "dev"),
                "question": q["question"],
                "outcome": score(q, answer),
                "answerable": bool(q["answers"]),
                "answer": answer.answer,
                "sources": [r.source.replace(base, "") for r in answer.references],
                "cold_s": round(cold_s, 2),
                "cold_web_s": round(cold_web_s, 2),
                "cold_requests": cold_req,
                **{f"cold_{k}_s": v for k, v in phases.items()},
                "warm_s": round(warm_s, 2),
                "warm_web_s": round(warm_web_s, 2),
                "warm_requests": warm_req,
                "corpus_only_s": round(corpus_s, 2),
            }
            rows.append(row)
            print(
                f"{q['id']} {row['outcome']:<9} cold {cold_s:5.1f}s (web {cold_web_s:4.1f}s) warm {warm_s:5.1f}s "
                f"corpus {corpus_s:5.1f}s  {' '.join(answer.answer.split())[:90]}",
                flush=True,
            )

    def p50(key: str, subset=rows) -> float | None:
        return round(statistics.median(r[key] for r in subset), 2) if subset else None

    def outcomes(subset: list[dict]) -> dict:
        answerable = [r for r in subset if r["answerable"]]
        unanswerable = [r for r in subset if not r["answerable"]]
        return {
            "n": len(subset),
            "answerable": {k: sum(r["outcome"] == k for r in answerable) for k in ("right", "wrong", "abstained")},
            "unanswerable": {k: sum(r["outcome"] == k for r in unanswerable) for k in ("abstained", "wrong")},
        }

    summary = {
        "engine": "llm" if llm else "extractive",
        **outcomes(rows),
        "by_split": {s: outcomes([r for r in rows if r["split"] == s]) for s in sorted({r["split"] for r in rows})},
        "p50_s": {"cold": p50("cold_s"), "warm": p50("warm_s"), "corpus_only": p50("corpus_only_s")},
        "p50_web_node_s": {"cold": p50("cold_web_s"), "warm": p50("warm_web_s")},
        "p50_cold_web_phases_s": {
            k: p50(f"cold_{k}_s", [r for r in rows if f"cold_{k}_s" in r]) for k in ("search", "pages", "store")
        },
        "requests": {"cold": sum(r["cold_requests"] for r in rows), "warm": sum(r["warm_requests"] for r in rows)},
    }
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
