"""Every real-documents set at once: run them, then tabulate dev and held out apart.

`run` puts each set through `citegraph eval documents` at `--abstain-threshold 0` (every question
some fact covers is answered, and each answer keeps its judge's support), one report folder per set,
`OUT/NAME_<set>`; `table` replays those runs at a threshold (the default judge's, 0.55) without running
the graph again: a question is answered when it was answered at 0 and its support reaches the threshold.

    .venv/bin/python benchmarks/realdocs_all.py run dev NAME        # ~30 min on 2 cores, ingests first
    .venv/bin/python benchmarks/realdocs_all.py run held-out NAME [--sets realdocs7 …] [-- --judge reader]
    .venv/bin/python benchmarks/realdocs_all.py table NAME [--at 0.55] [--against OLDNAME]

Which halves are dev (defaults and rules are chosen on them; their failures may be read) and which are
held out (run only to report, their answers not read) is `SPLIT` below; docs/BENCHMARKS.md says when
each changed. realdocs8 and realdocs9 hold one dev and one held-out half: both halves run together and
the table takes each question to its half by its id's first letter.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# set -> (dev halves, held-out halves), by the first letter of the questions' ids.
SPLIT: dict[str, tuple[str, str]] = {
    "realdocs": ("ab", ""),
    "realdocs2": ("cd", ""),
    "realdocs3": ("ef", ""),
    "realdocs4": ("gh", ""),
    "realdocs5": ("ij", ""),
    "realdocs6": ("kl", ""),
    "realdocs7": ("", "mn"),
    "realdocs8": ("o", "p"),
    "realdocs9": ("q", "r"),
    "realdocs10": ("", "st"),
}
DEFAULT_AT = 0.55  # the sentence scorer's threshold (Context.threshold for judge "sentences")


def sets_of(part: str) -> list[str]:
    index = 0 if part == "dev" else 1
    return [s for s, halves in SPLIT.items() if halves[index]]


def run(part: str, name: str, out: Path, extra: list[str], only: list[str] | None = None) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANGGRAPH_STRICT_MSGPACK": "true"}
    for s in sets_of(part):
        if only and s not in only:
            continue
        bench = ROOT / "benchmarks" / s
        cmd = [
            sys.executable, "-m", "citegraph.cli", "eval", "documents",
            "--questions", *map(str, sorted(bench.glob("questions-*.jsonl"))),
            "--docs", str(bench / "corpus"), "--corpus", str(ROOT / ".citegraph" / "bench" / s),
            "--labels", str(bench / "conflict-labels.jsonl"), "--split", "all",
            "--abstain-threshold", "0", "--json", "--out", str(out / f"{name}_{s}"), *extra,
        ]  # fmt: skip
        print(f"{s} …", flush=True)
        with open(out / f"{name}_{s}.log", "w") as log:
            subprocess.run(cmd, check=True, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)


def figures(rows: list[dict], at: float) -> dict[str, int]:
    """Right / wrong / abstained of the answerable, and unanswerable ones answered, at threshold `at`."""
    out = dict.fromkeys(("right", "wrong", "abstained", "n", "unanswered_ok", "unanswerable"), 0)
    for r in rows:
        answered = not r["abstained"] and r["support"] >= at
        if r["answerable"]:
            out["n"] += 1
            key = "abstained" if not answered else ("right" if r["right"] else "wrong")
            out[key] += 1
        else:
            out["unanswerable"] += 1
            out["unanswered_ok"] += not answered
    return out


def half_rows(out: Path, name: str, s: str, halves: str) -> list[dict] | None:
    path = out / f"{name}_{s}" / "answers.jsonl"
    if not path.exists():
        return None
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [r for r in rows if r["qid"][0] in halves]


def cell(f: dict[str, int]) -> str:
    return f"{f['right']} / {f['wrong']} / {f['abstained']}; {f['unanswered_ok']} of {f['unanswerable']}"


def table(name: str, out: Path, at: float, against: str | None) -> None:
    runs = [against, name] if against else [name]
    for part, index in (("dev", 0), ("held out", 1)):
        total = {at: [0, 0, 0], 0.0: [0, 0, 0]}
        lines = []
        for s, halves in SPLIT.items():
            half = halves[index]
            rows = half_rows(out, name, s, half) if half else None
            if rows is None:
                continue
            cols = []
            for run_name in runs:
                rs = rows if run_name == name else half_rows(out, run_name, s, half)
                cols += ["-", "-"] if rs is None else [cell(figures(rs, at)), cell(figures(rs, 0.0))]
            for t in (at, 0.0):
                f = figures(rows, t)
                answered_wrongly = f["unanswerable"] - f["unanswered_ok"]
                total[t] = [total[t][0] + f["right"], total[t][1] + f["wrong"], total[t][2] + answered_wrongly]
            label = f"{s} half {half}" if halves[1 - index] else s
            lines.append(f"| {label} | " + " | ".join(cols) + " |")
        if not lines:
            continue
        heads = [f"{r}, {t}" for r in runs for t in (at, 0)] if against else [f"{at}", "0"]
        print(f"\n{part} (right / wrong / abstained of the answerable; unanswerable abstained)\n")
        print("| set | " + " | ".join(heads) + " |")
        print("|---|" + "---|" * len(heads))
        print("\n".join(lines))
        for t in (at, 0.0):
            r, w, u = total[t]
            print(f"\n{name} at {t}: {r} right / {w} wrong; {u} unanswerable answered")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the dev or held-out sets at threshold 0")
    r.add_argument("part", choices=["dev", "held-out"])
    r.add_argument("name", help="run name: reports go to OUT/NAME_<set>")
    r.add_argument("extra", nargs="*", help="more `eval documents` options, after --")
    r.add_argument("--sets", nargs="+", choices=list(SPLIT), help="only these sets (default: all of the part)")
    t = sub.add_parser("table", help="tabulate runs, replayed at a threshold")
    t.add_argument("name")
    t.add_argument("--at", type=float, default=DEFAULT_AT)
    t.add_argument("--against", help="an earlier run's name, shown beside")
    for p in (r, t):
        p.add_argument("--out", type=Path, default=ROOT / "bench-out", help="folder of the report folders")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    if a.command == "run":
        run(a.part, a.name, a.out, a.extra, a.sets)
    else:
        table(a.name, a.out, a.at, a.against)


if __name__ == "__main__":
    main()
