"""Choose the extractive engine's judge and abstention threshold on the dev halves of a mixture of the
cases users meet, then report them on the test halves, which choose nothing.

Each run is an `eval answers` or `eval documents` report folder made with `--abstain-threshold 0`:
every question whose facts cover it is answered, and its answers.jsonl keeps each judge's score
(support_parts), so any judge and threshold can be replayed without running the graph again: a
question is answered when some fact covers it and the judge's score reaches the threshold.

The choice maximises, averaged over the sets (each weighing the same), one of two objectives:
- `--objective trust` (the default since session 9): right answers minus wrong ones, per question, a
  wrong one being an answerable question answered without its answer or an unanswerable one
  answered; an abstention scores 0. A user acts on what is answered, so a wrong answer costs what a
  right one earns, or `--wrong-cost` times that (precision first: 1.5 or 2). On the SQuAD-derived
  sets an answer without the gold string counts neither way (it may quote a neighbouring sentence
  that states the answer).
- `--objective youden`: Youden's J of the abstention decision, the share of unanswerable questions
  abstained on minus the share of answerable ones abstained on. It does not look at whether the
  answers are right: an answerable question answered wrongly counts as well answered. Used until
  session 9 (it chose the reader at 0.22).

With a model that picks the facts that answer (the LLM engine's default), the same replay chooses
`pick_threshold` (`--judge sentences --stand-in 0.55`, the scorer's default): a run at threshold 0 keeps the sentence
scorer's support and whether the model's pick answered; where the pick failed and the extractive
sentences stood in, they may only at the sentence scorer's own threshold.

A run from `eval documents` holds both halves; `--dev` takes its dev questions, `--test` its test ones,
and `RUN:all` all of them (benchmarks/realdocs is wholly dev since session 9, realdocs2 since session 12;
realdocs3-6 since session 34; realdocs7, realdocs8's half p, realdocs9's half r and realdocs10
are held out).

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
    # The answer-sentence scorer's probability (runs made with --sentence-ranker learned), alone and
    # with the lexical score.
    "sentences": lambda p: p.get("sentences", 0.0),
    "sentences-mean": lambda p: (p.get("lexical", 0.0) + p.get("sentences", 0.0)) / 2,
    "sentences-min": lambda p: min(p.get("lexical", 0.0), p.get("sentences", 0.0)),
    # A model's P("yes") (runs made with a model, --llm-scope judge): Context.model_abstain_threshold.
    "model": lambda p: p.get("model", 0.0),
}
THRESHOLDS = [round(t, 2) for t in np.arange(0.0, 0.91, 0.025)]


def load(run: Path, half: str) -> list[dict]:
    """The run's questions of one half; RUN:all takes all of them (a set that is wholly dev or test)."""
    if str(run).endswith(":all"):
        run, half = Path(str(run)[: -len(":all")]), "all"
    rows = []
    for line in (run / "answers.jsonl").read_text().splitlines():
        r = json.loads(line)
        if half != "all" and r.get("split", half) != half:
            continue
        # An `eval documents` row says right or wrong (answers checked by reading). An `eval answers`
        # row (SQuAD-derived) says whether the gold string is in the answer: a hit is right, a miss
        # unknown (the answer may quote a neighbouring sentence that states it), and a set without gold
        # strings (the adversarial one) cannot tell at all.
        right = r["right"] if "right" in r else (True if r.get("contains") else None)
        rows.append(
            {
                "answerable": bool(r["answerable"]),
                "covered": bool(r.get("covered", True)) and not (r["abstained"] and r["answerable"] is None),
                "answered_at_0": not r["abstained"],
                "right": right if right is None else bool(right),
                "parts": r.get("support_parts", {}),
                # With a model that picks the facts: its pick failed or could not be used, and the
                # extractive sentences stood in (at threshold 0 they always may).
                "stood_in": any(f.startswith("write") for f in r.get("fallbacks", [])),
            }
        )
    return rows


def outcome(rows: list[dict], judge: str, t: float, wrong_cost: float = 1.0, stand_in: float = 0.0) -> dict[str, float]:
    score = JUDGES[judge]
    right, wrong, unknown, abst_ok, abst_bad, n_ans, n_un = 0, 0, 0, 0, 0, 0, 0
    for r in rows:
        floor = max(t, stand_in) if r["stood_in"] else t  # a stand-in needs the extractive judge's own
        answered = r["answered_at_0"] and r["covered"] and score(r["parts"]) >= floor
        if r["answerable"]:
            n_ans += 1
            if not answered:
                abst_bad += 1
            elif r["right"] is None:
                unknown += 1  # answered, but the set cannot tell right from wrong: counts neither way
            elif r["right"]:
                right += 1
            else:
                wrong += 1
        else:
            n_un += 1
            abst_ok += not answered
    n = n_ans + n_un
    return {
        "trust": (right - wrong_cost * (wrong + n_un - abst_ok)) / n if n else 0.0,
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
    p.add_argument("--objective", choices=["trust", "youden"], default="trust")
    p.add_argument(
        "--wrong-cost",
        type=float,
        default=1.0,
        help="trust: what a wrong answer costs, in right answers (1: equal; 2: precision first)",
    )
    p.add_argument("--judge", action="append", choices=list(JUDGES), help="choose among these only (repeatable)")
    p.add_argument("--at", metavar="JUDGE=T", help="choose nothing: report this judge and threshold")
    p.add_argument(
        "--stand-in",
        type=float,
        default=0.0,
        metavar="T",
        help="runs with a model that picks the facts (pick_threshold): where its pick failed, the extractive "
        "sentences stand in only at this support (the sentence scorer's default threshold)",
    )
    a = p.parse_args()
    key = "trust" if a.objective == "trust" else "youden_j"
    dev = {run_name(r): load(r, "dev") for r in a.dev}
    best = None
    for judge in a.judge or JUDGES:
        print(f"  dev areas {judge:>9}: " + " ".join(f"{n} {area(rows, judge):.3f}" for n, rows in dev.items()))
        for t in THRESHOLDS:
            u = float(np.mean([outcome(rows, judge, t, a.wrong_cost, a.stand_in)[key] for rows in dev.values()]))
            if best is None or u > best[0] + 1e-9:
                best = (u, judge, t)
    assert best is not None
    if a.at:
        judge, _, given = a.at.partition("=")
        if judge not in JUDGES:
            p.error(f"--at: unknown judge {judge!r}")
        try:
            t = float(given)
        except ValueError:
            p.error(f"--at {a.at}: give JUDGE=THRESHOLD, e.g. sentences=0.6")
        u = float(np.mean([outcome(rows, judge, t, a.wrong_cost, a.stand_in)[key] for rows in dev.values()]))
        print(f"given: judge={judge} threshold={t} (mean {a.objective} on dev {u:.3f})")
    else:
        _, judge, t = best
        print(f"chosen on dev: judge={judge} threshold={t} (mean {a.objective} {best[0]:.3f})")
    for name, rows in dev.items():
        print(
            f"  dev  {name}: "
            + fmt(outcome(rows, judge, t, a.wrong_cost, a.stand_in))
            + f"  area {area(rows, judge):.3f}"
        )
    for run in a.test:
        rows = load(run, "test")
        print(
            f"  test {run_name(run)}: "
            + fmt(outcome(rows, judge, t, a.wrong_cost, a.stand_in))
            + f"  area {area(rows, judge):.3f}"
        )
        for other in JUDGES:
            print(f"       {other:>9} area {area(rows, other):.3f}")


def run_name(run: Path) -> str:
    return Path(str(run).removesuffix(":all")).name


def fmt(o: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.3f}" for k, v in o.items())


if __name__ == "__main__":
    main()
