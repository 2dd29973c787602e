"""Choose the extractive engine's judge and abstention threshold on the dev halves of a mixture of the
cases users meet, then report them on the test halves, which choose nothing.

Each run is an `eval answers` or `eval documents` report folder made with `--abstain-threshold 0`:
every question whose facts cover it is answered, and its answers.jsonl keeps each judge's score
(support_parts), so any judge and threshold can be replayed without running the graph again: a
question is answered when some fact covers it and the judge's score reaches the threshold.

The choice maximises, averaged over the sets (each weighing the same), Youden's J of the abstention
decision: the share of unanswerable questions abstained on minus the share of answerable ones
abstained on. Abstaining on everything, or on nothing, scores 0. It does not look at whether the
answers are right (on SQuAD "right" means the gold string is in the quote, so a right answer quoting a
neighbouring sentence counts wrong); right answers are reported beside it.

A run from `eval documents` holds both halves; `--dev` takes its dev questions, `--test` its test ones.

    .venv/bin/python benchmarks/choose_judge.py --dev RUN... --test RUN...
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

JUDGES = {
    "lexical": lambda p: p.get("lexical", 0.0),
    "reader": lambda p: p.get("reader", 0.0),
    "mean": lambda p: (p.get("lexical", 0.0) + p.get("reader", 0.0)) / 2,
    "geometric": lambda p: math.sqrt(max(p.get("lexical", 0.0), 0.0) * max(p.get("reader", 0.0), 0.0)),
    "min": lambda p: min(p.get("lexical", 0.0), p.get("reader", 0.0)),
}
THRESHOLDS = [round(t, 2) for t in np.arange(0.0, 0.91, 0.025)]


def load(run: Path, half: str) -> list[dict]:
    rows = []
    for line in (run / "answers.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("split", half) != half:
            continue
        right = r.get("right", r.get("contains"))
        rows.append(
            {
                "answerable": bool(r["answerable"]),
                "covered": bool(r.get("covered", True)) and not (r["abstained"] and r["answerable"] is None),
                "answered_at_0": not r["abstained"],
                "right": bool(right),
                "parts": r.get("support_parts", {}),
            }
        )
    return rows


def outcome(rows: list[dict], judge: str, t: float) -> dict[str, float]:
    score = JUDGES[judge]
    right, wrong, abst_ok, abst_bad, n_ans, n_un = 0, 0, 0, 0, 0, 0
    for r in rows:
        answered = r["answered_at_0"] and r["covered"] and score(r["parts"]) >= t
        if r["answerable"]:
            n_ans += 1
            if not answered:
                abst_bad += 1
            elif r["right"]:
                right += 1
            else:
                wrong += 1
        else:
            n_un += 1
            abst_ok += not answered
    return {
        "youden_j": (abst_ok / n_un if n_un else 0.0) - (abst_bad / n_ans if n_ans else 0.0),
        "right": right / n_ans if n_ans else float("nan"),
        "wrong": wrong / n_ans if n_ans else float("nan"),
        "false_abstention": abst_bad / n_ans if n_ans else float("nan"),
        "correct_abstention": abst_ok / n_un if n_un else float("nan"),
    }


def area(rows: list[dict], judge: str) -> float:
    """Abstention trade-off area: the judge's score ranks answerable above unanswerable (an
    uncovered question scores 0: it is abstained on whatever the threshold)."""
    y = [0 if r["answerable"] else 1 for r in rows]
    s = [-(JUDGES[judge](r["parts"]) if r["covered"] and r["answered_at_0"] else -1.0) for r in rows]
    return float(roc_auc_score(y, s)) if len(set(y)) == 2 else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dev", nargs="+", type=Path, required=True)
    p.add_argument("--test", nargs="+", type=Path, default=[])
    a = p.parse_args()
    dev = {r.name: load(r, "dev") for r in a.dev}
    best = None
    for judge in JUDGES:
        print(f"  dev areas {judge:>9}: " + " ".join(f"{n} {area(rows, judge):.3f}" for n, rows in dev.items()))
        for t in THRESHOLDS:
            u = float(np.mean([outcome(rows, judge, t)["youden_j"] for rows in dev.values()]))
            if best is None or u > best[0] + 1e-9:
                best = (u, judge, t)
    assert best is not None
    _, judge, t = best
    print(f"chosen on dev: judge={judge} threshold={t} (mean Youden J {best[0]:.3f})")
    for name, rows in dev.items():
        print(f"  dev  {name}: " + fmt(outcome(rows, judge, t)) + f"  area {area(rows, judge):.3f}")
    for run in a.test:
        rows = load(run, "test")
        print(f"  test {run.name}: " + fmt(outcome(rows, judge, t)) + f"  area {area(rows, judge):.3f}")
        for other in JUDGES:
            print(f"       {other:>9} area {area(rows, other):.3f}")


def fmt(o: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.3f}" for k, v in o.items())


if __name__ == "__main__":
    main()
