"""`citegraph eval contradictions`: the contradiction detector on labelled pairs of evidence sentences
(`a`, `b`, the `claim` they are judged against, `label` contradiction | consistent), scored with
scikit-learn. The extractive engine's detector is text/conflicts.py's `compare`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from citegraph.errors import InputError
from citegraph.text.conflicts import compare


def load_pairs(path: str | Path) -> list[dict[str, Any]]:
    rows = []
    with Path(path).open() as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            if not {"a", "b", "label"} <= set(rec):
                raise InputError(f"{path}:{i}: a pair needs a, b and label")
            rows.append(rec)
    return rows


def run_contradictions(pairs: list[dict[str, Any]], progress: bool = False) -> dict[str, Any]:
    from sklearn.metrics import accuracy_score, precision_recall_fscore_support

    y_true: list[int] = []
    y_pred: list[int] = []
    kinds: Counter[str] = Counter()
    it: Any = pairs
    if progress:
        from tqdm import tqdm

        it = tqdm(pairs, desc="eval contradictions", unit="pair", leave=False)
    for p in it:
        found = compare(p["a"], p["b"])
        y_true.append(int(p["label"] == "contradiction"))
        y_pred.append(int(found is not None))
        if found is not None:
            kinds[found.kind] += 1
    precision, recall, f1, _ = precision_recall_fscore_support(y_true, y_pred, average="binary", zero_division=0)
    return {
        "engine": "extractive",
        "n": len(pairs),
        "accuracy": round(float(accuracy_score(y_true, y_pred)), 4),
        "precision": round(float(precision), 4),
        "recall": round(float(recall), 4),
        "f1": round(float(f1), 4),
        "predicted_kinds": dict(kinds),
        "baseline_always_contradiction_accuracy": round(sum(y_true) / len(y_true), 4) if y_true else None,
    }
