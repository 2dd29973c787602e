"""Tell two runs of `citegraph eval documents` over the same questions apart (e.g. the LLM engine and the
extractive one): each run's right / wrong / abstained, and, paired question by question, how many
questions only one of them got right (or wrong), the exact McNemar test on those, and the 95 % paired
bootstrap interval of the difference in right answers per answerable question.

    .venv/bin/python benchmarks/compare_engines.py bench-out/llm-realdocs6 bench-out/extractive-realdocs6

A run folder holds `answers.jsonl` (one row per question: qid, answerable, abstained, right). Only the
questions both runs answered or abstained on are compared.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.stats import binomtest


def load(run: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (run / "answers.jsonl").read_text().splitlines() if line.strip()]
    return {r["qid"]: r for r in rows}


def outcome(r: dict) -> str:
    """right / wrong / abstained for an answerable question; abstained / answered for the others."""
    if not r["answerable"]:
        return "abstained" if r["abstained"] else "answered"
    if r["abstained"]:
        return "abstained"
    return "right" if r["right"] else "wrong"


def paired_interval(a: np.ndarray, b: np.ndarray, resamples: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile bootstrap interval of mean(a) - mean(b), the questions drawn again with replacement."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(resamples, len(a)))
    diffs = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return float(lo), float(hi)


def compare(a: dict[str, dict], b: dict[str, dict]) -> dict:
    common = sorted(set(a) & set(b))
    answerable = [q for q in common if a[q]["answerable"]]
    out: dict = {"questions": len(common), "answerable": len(answerable)}
    for name, run in (("a", a), ("b", b)):
        counts = {k: 0 for k in ("right", "wrong", "abstained")}
        for q in answerable:
            counts[outcome(run[q])] += 1
        un = [q for q in common if not run[q]["answerable"]]
        counts["unanswerable_abstained"] = sum(run[q]["abstained"] for q in un)
        counts["unanswerable"] = len(un)
        out[name] = counts
    for kind in ("right", "wrong"):
        only_a = sum(outcome(a[q]) == kind and outcome(b[q]) != kind for q in answerable)
        only_b = sum(outcome(b[q]) == kind and outcome(a[q]) != kind for q in answerable)
        p = binomtest(only_a, only_a + only_b).pvalue if only_a + only_b else 1.0
        xa = np.array([outcome(a[q]) == kind for q in answerable], dtype=float)
        xb = np.array([outcome(b[q]) == kind for q in answerable], dtype=float)
        lo, hi = paired_interval(xa, xb) if answerable else (float("nan"), float("nan"))
        out[kind] = {
            "only_a": only_a,
            "only_b": only_b,
            "mcnemar_p": round(p, 4),
            "diff_ci95": [round(lo, 3), round(hi, 3)],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="a run folder (answers.jsonl)")
    ap.add_argument("b", type=Path, help="another run folder over the same questions")
    args = ap.parse_args()
    result = compare(load(args.a), load(args.b))
    print(json.dumps({"run_a": str(args.a), "run_b": str(args.b), **result}, indent=1))


if __name__ == "__main__":
    main()
