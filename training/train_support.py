"""Train the support check's weights (issue 19): do these quotes say what this sentence says?

    T=/tmp/bb/bigbench-1.0.0/bigbench/benchmark_tasks/vitaminc_fact_verification/task.json
    .venv/bin/python training/train_support.py $T \\
        --leave-out ../shared/data/contradictions/pairs.jsonl --out src/citegraph/models/support-minilm.safetensors

makes the shipped weights (2 CPU cores, ~30 minutes; docs/BENCHMARKS.md). Data: VitaminC (Schuster et
al. 2021, CC BY-SA 3.0) as BIG-bench packages it (`vitaminc_fact_verification/task.json` in the PyPI
sdist `bigbench==1.0.0`, see docs/DESIGN.md; `pip download --no-deps --no-binary :all: bigbench==1.0.0`):
54,668 claims, each with a Wikipedia sentence (its article's title first) and a verdict: True (the
sentence supports the claim), False (it refutes it) or Neither (it does not say). Most pairs were
written from Wikipedia revisions, so a claim and its evidence often differ by one number, date or
word: the kind of slip a model makes when it restates a quote. True is "supported" (1); False and
Neither are not (0).

Left out: every pair whose claim or evidence sentence is in the contradiction benchmark
(../shared/data/contradictions/pairs.jsonl, also VitaminC), so that benchmark stays unseen, and a dev
part (`--dev`, by a hash of the claim) that `--report` scores and thresholds are read on.

Model: all-MiniLM-L6-v2 from its package as a one-logit sequence classifier reading (sentence, quotes),
its top `--layers` layers (all six by default; three learnt VitaminC worse: AUC 0.768 against 0.852 on
the dev part), pooler and head trained (train_reader.train), fp16 tensors shipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

from train_reader import train

VERDICT = {"True": 1, "False": 0, "Neither": 0}


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


_DETOK = [
    (re.compile(r"-LRB-\s*"), "("),
    (re.compile(r"\s*-RRB-"), ")"),
    (re.compile(r"\s+([.,;:!?%)\]'])"), r"\1"),
    (re.compile(r"([(\[$])\s+"), r"\1"),
    (re.compile(r"\s+(n't|'s|'re|'ve|'d|'ll)\b"), r"\1"),
    (re.compile(r"`` ?| ?''"), '"'),
    (re.compile("\ufffd"), " "),
]


def detokenized(text: str) -> str:
    """VitaminC's text is tokenized ("Westlife 's sales ( BPI ) ."): written back the way documents and a
    model's sentences are ("Westlife's sales (BPI)."), so that spacing teaches nothing."""
    for pattern, repl in _DETOK:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def vitaminc_pairs(task: Path) -> list[dict]:
    """(claim, evidence, label) from BIG-bench's task: input is "Title: evidence\\nClaim: claim"."""
    out = []
    for ex in json.loads(task.read_text(encoding="utf-8"))["examples"]:
        evidence, _, claim = ex["input"].rpartition("\nClaim: ")
        verdict = max(ex["target_scores"], key=ex["target_scores"].get)
        if evidence and claim and verdict in VERDICT:
            raw = [_norm(claim), _norm(evidence)]  # as packaged: what the left-out texts are compared with
            out.append({"q": detokenized(claim), "p": detokenized(evidence), "y": VERDICT[verdict], "raw": raw})
    return out


def left_out_texts(path: Path | None) -> set[str]:
    if path is None:
        return set()
    texts: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            for k in ("claim", "a", "b"):
                texts |= {_norm(rec.get(k, "")), _norm(detokenized(rec.get(k, "")))}
    return texts - {""}


def is_dev(row: dict, share: float) -> bool:
    h = int(hashlib.sha1(_norm(row["q"]).encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < share


def split(rows: list[dict], left_out: set[str], dev_share: float) -> tuple[list[dict], list[dict], int]:
    kept = [r for r in rows if not left_out.intersection([*r["raw"], _norm(r["q"]), _norm(r["p"])])]
    dev = [r for r in kept if is_dev(r, dev_share)]
    return [r for r in kept if not is_dev(r, dev_share)], dev, len(rows) - len(kept)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("task", type=Path, help="BIG-bench vitaminc_fact_verification/task.json (see above)")
    ap.add_argument("--leave-out", type=Path, help="the contradiction benchmark's pairs.jsonl: never trained on")
    ap.add_argument("--out", type=Path, default=Path("src/citegraph/models/support-minilm.safetensors"))
    ap.add_argument("--pairs", type=int, default=24000, help="training pairs drawn")
    ap.add_argument("--dev", type=float, default=0.05, help="share of claims kept out for reading scores on")
    ap.add_argument("--layers", type=int, default=6, help="top transformer layers to train (6: all of them)")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dev-out", type=Path, help="write the dev pairs as JSONL here")
    a = ap.parse_args()
    rows, dev, gone = split(vitaminc_pairs(a.task), left_out_texts(a.leave_out), a.dev)
    print(f"{len(rows)} training pairs ({sum(r['y'] for r in rows)} supported), {len(dev)} dev, {gone} left out")
    if a.dev_out:
        a.dev_out.write_text("".join(json.dumps(r) + "\n" for r in dev))
    rows = random.Random(a.seed).sample(rows, min(a.pairs, len(rows)))
    import torch
    from safetensors.torch import save_file

    torch.set_num_threads(2)
    tensors = train(rows, a.layers, a.epochs, a.max_length, a.lr, a.seed)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(a.out), metadata={k: str(v) for k, v in vars(a).items()})
    print(f"wrote {a.out} ({a.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
