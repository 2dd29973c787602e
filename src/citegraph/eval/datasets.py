"""BEIR-format datasets: `corpus.jsonl`, `queries.jsonl`, `qrels.tsv` (query-id, corpus-id, score)."""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class Query:
    id: str
    text: str
    extra: dict[str, Any] = field(default_factory=dict)  # answers, answerable, …


@dataclass
class Dataset:
    folder: Path
    queries: list[Query]
    qrels: dict[str, dict[str, int]]

    @property
    def corpus_file(self) -> Path:
        return self.folder / "corpus.jsonl"

    def sample(self, limit: int | None, seed: int = 0, judged_only: bool = True) -> list[Query]:
        """A reproducible sample of queries (all of them when `limit` is None), file order kept."""
        return sample_in_order([q for q in self.queries if not judged_only or q.id in self.qrels], limit, seed)


def sample_in_order(items: list[T], limit: int | None, seed: int = 0) -> list[T]:
    """A reproducible sample of `limit` items (all of them when None or not fewer), in their order."""
    if limit is None or limit >= len(items):
        return items
    keep = set(random.Random(seed).sample(range(len(items)), limit))
    return [x for i, x in enumerate(items) if i in keep]


def load_dataset(folder: str | Path) -> Dataset:
    d = Path(folder)
    for name in ("corpus.jsonl", "queries.jsonl"):
        if not (d / name).exists():
            raise FileNotFoundError(f"{d} is not a BEIR folder: {name} is missing")
    queries = []
    with (d / "queries.jsonl").open() as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                qid, text = str(rec.pop("_id")), rec.pop("text")
                queries.append(Query(qid, text, rec))
    qrels: dict[str, dict[str, int]] = {}
    if (d / "qrels.tsv").exists():
        with (d / "qrels.tsv").open() as fh:
            reader = csv.reader(fh, delimiter="\t")
            header = next(reader, None)
            if header and header[0] != "query-id":  # no header: the first row is data
                qrels.setdefault(header[0], {})[header[1]] = int(header[2])
            for row in reader:
                if len(row) >= 3 and int(row[2]) > 0:
                    qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return Dataset(d, queries, qrels)
