"""`citegraph eval documents`: the engine on a folder of real files and questions checked by reading.

A question file is JSONL, one question a line: `_id`, `text`, `answerable`, `kind` (fact, two-hop,
why-how, conflict, missing, off-topic), `answers` (short strings as the documents write them; an answer
is right when one of them appears in it as a whole value: "3.7" is not found in "13.7" or "3.7.1"),
`docs` (the files that hold the answer) and, for a conflict, `conflict: {docs, attribute, values}`.

Scores per question: right (answered, a gold value in the answer; when the answer leads with a value,
that value must be a gold one), wrong (answered, none), wrong
abstention, correct abstention, answered when it should have abstained. Every conflict the engine
reports is keyed by its two quotes; a labels file (JSONL of `{key, label: real|spurious, note}`, made
once by reading) says which are real, and unlabelled ones are listed for labelling.

Defaults are chosen on one half of the questions and reported on the other: `split_of` cuts each
kind in two by a hash of the id, so the halves never change and hold the same mix of kinds.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from citegraph.answer.compose import LEAD_WORDS  # a lead longer than this is a sentence
from citegraph.errors import InputError
from citegraph.schemas import Answer
from citegraph.text.releases import known_name

KINDS = ("fact", "two-hop", "why-how", "conflict", "missing", "off-topic")
Split = Literal["dev", "test", "all"]


@dataclass(frozen=True)
class DocQuestion:
    id: str
    text: str
    answerable: bool
    kind: str
    answers: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    conflict: dict[str, Any] | None = None


def load_questions(paths: list[str | Path]) -> list[DocQuestion]:
    out: list[DocQuestion] = []
    for path in paths:
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                rec = json.loads(line)
                q = DocQuestion(
                    id=str(rec["_id"]),
                    text=str(rec["text"]),
                    answerable=bool(rec["answerable"]),
                    kind=str(rec["kind"]),
                    answers=tuple(str(a) for a in rec.get("answers", [])),
                    docs=tuple(str(d) for d in rec.get("docs", [])),
                    conflict=rec.get("conflict"),
                )
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"{where}: not a question record ({exc})") from None
            if q.kind not in KINDS:
                raise InputError(f"{where}: unknown kind {q.kind!r} (use {', '.join(KINDS)})")
            if q.answerable and not q.answers:
                raise InputError(f"{where}: an answerable question needs its answers")
            if q.conflict is not None and not isinstance(q.conflict, dict):
                raise InputError(f"{where}: conflict must be an object with docs and values")
            c = q.conflict or {}
            if q.kind == "conflict" and (len(c.get("docs", [])) < 2 or len(c.get("values", [])) < 2):
                raise InputError(f"{where}: a conflict question needs conflict.docs and conflict.values, two each")
            out.append(q)
    ids = [q.id for q in out]
    if len(ids) != len(set(ids)):
        raise InputError("question ids repeat across the files")
    return out


def split_of(questions: list[DocQuestion]) -> dict[str, Literal["dev", "test"]]:
    """Each question's half: within each kind, ids ordered by their hash alternate dev, test."""
    out: dict[str, Literal["dev", "test"]] = {}
    for kind in KINDS:
        ids = sorted((q.id for q in questions if q.kind == kind), key=lambda i: hashlib.sha1(i.encode()).hexdigest())
        for n, qid in enumerate(ids):
            out[qid] = "dev" if n % 2 == 0 else "test"
    return out


def _norm(text: str) -> str:
    text = re.sub(r"\s*\[\d+\]", "", text).lower()
    text = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'").replace("‐", "-")
    return " ".join(text.split())


def matches(answer: str, gold: str) -> bool:
    """`gold` appears in `answer` as a whole value (case and spacing aside; "v11.2.0" holds "11.2.0")."""
    g = _norm(gold).strip().rstrip(".")  # a sentence's full stop is not the value's; a leading dot is
    if not g:
        return False
    # Whole value: no word character or dot glued on where the value itself ends in one ("3.7" is not
    # in "13.7" or "3.7.1"); a value that starts or ends with an operator may touch a name
    # ("MarkupSafe>=2.0" holds ">=2.0").
    before = (r"(?<![\w.])v?" if g[0].isdigit() else r"(?<![\w.])") if g[0].isalnum() or g[0] == "_" else ""
    after = r"(?!\w|\.\d)" if g[-1].isalnum() or g[-1] == "_" else ""
    return re.search(f"{before}{re.escape(g)}{after}", _norm(answer)) is not None


def answer_lead(answer: Answer) -> str | None:
    """The value an answer leads with ("3000 [1]. The default is 3000 [1]."), if it leads with one: a
    first sentence shorter than a sentence that is not its quote whole. "256 [1]" before a quote that
    also names 3000 is a wrong answer, whatever the quotes after it hold."""
    if not answer.sentences or not answer.sentences[0].citations:
        return None
    first = answer.sentences[0]
    said = re.sub(r"\s*\[\d+\]", "", first.text).strip(" .")
    quote = next((r.quote for r in answer.references if r.n == first.citations[0]), "")
    if not said or len(said.split()) > LEAD_WORDS or " ".join(said.split()) == " ".join(quote.split()).strip(" ."):
        return None
    return said


def lead_matches(lead: str, gold: str) -> bool:
    """A lead value is the gold one: one holds the other, or the lead holds the gold's number ("1.2+"
    for "TLS 1.2", "20" for "retry 20 times")."""
    numbers = re.findall(r"(?<![\w.-])\d+(?:[.,]\d+)*(?![\w-])", gold)  # not a date's parts
    return matches(lead, gold) or matches(gold, lead) or any(matches(lead, n) for n in numbers)


def conflict_key(a: str, b: str) -> str:
    pair = sorted(" ".join(t.split()) for t in (a, b))
    return hashlib.sha1("\n".join(pair).encode()).hexdigest()[:12]


@dataclass
class DocRow:
    qid: str
    kind: str
    split: str
    answerable: bool
    abstained: bool
    right: bool | None  # answerable and answered: a gold value is in the answer
    support: float
    support_parts: dict[str, float]
    covered: bool  # some fact covered what the question names (else no judge could answer)
    answer: str
    abstain_reason: str
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    conflict_found: bool | None = None  # for kind "conflict": the two documents' disagreement reported
    conflict_stated: bool | None = None  # for kind "conflict": both its values in the answer's text
    ms: float = 0.0
    node_ms: dict[str, float] = field(default_factory=dict)  # per node, summed over its parallel runs
    fallbacks: list[str] = field(default_factory=list)  # "node: why", each model call that fell back
    model_use: dict[str, int] = field(default_factory=dict)  # model calls answered, input/output tokens
    citations: int = 0  # citation markers in the answer's sentences
    quotes_found: int = 0  # of those, the ones whose quote is in the stored passage at its span


def score(q: DocQuestion, answer: Answer, split: str, ms: float, files: dict[str, str] | None = None) -> DocRow:
    """One question's outcome; `files` maps document ids to their file names (conflicts are matched
    to the question's documents by file)."""
    files = files or {}
    facts = {f.id: f for f in answer.facts}
    conflicts = []
    for c in answer.contradictions:
        a, b = facts.get(c.facts[0]), facts.get(c.facts[1])
        if a is None or b is None:
            continue
        conflicts.append(
            {
                "key": conflict_key(a.text, b.text),
                "point": c.point,
                "values": list(c.values),
                "severity": c.severity,
                "quotes": [" ".join(a.text.split()), " ".join(b.text.split())],
                "docs": [files.get(a.doc_id, a.title or a.doc_id), files.get(b.doc_id, b.title or b.doc_id)],
            }
        )
    row = DocRow(
        qid=q.id,
        kind=q.kind,
        split=split,
        answerable=q.answerable,
        abstained=answer.abstained,
        right=None,
        support=answer.support,
        support_parts=answer.support_parts,
        covered=not answer.gaps and answer.support_parts.get("lexical", 0.0) > 0,
        answer=answer.answer,
        abstain_reason=answer.abstain_reason,
        conflicts=conflicts,
        ms=ms,
        node_ms=dict(answer.timings_ms),
        fallbacks=list(answer.fallbacks),
        model_use=dict(answer.model_use),
    )
    text = answer.answer + " " + " ".join(r.quote for r in answer.references)
    if q.answerable and not answer.abstained:
        lead = answer_lead(answer)
        if lead is not None:  # what a reader takes for the answer must be a gold value (or within one)
            row.right = any(lead_matches(lead, g) for g in q.answers)
        else:
            row.right = any(matches(text, g) for g in q.answers)
    if q.kind == "conflict" and q.conflict:
        row.conflict_found = any(_is_the_disagreement(c, q.conflict, q.docs) for c in conflicts)
        # What the user reads: the record may list a disagreement the text never mentions.
        values = q.conflict.get("values") or []
        row.conflict_stated = bool(values) and all(matches(answer.answer, v) for v in values)
    return row


def _is_the_disagreement(reported: dict[str, Any], gold: dict[str, Any], holding: Sequence[str] = ()) -> bool:
    """A reported conflict is the question's disagreement when it pairs two documents that hold the
    answer (the conflict's own or the question's `docs`: requests' 2.31.0 METADATA says what its README
    says) and its two quotes state two different ones of the question's values. Matching the documents
    alone counted any conflict between those files (a grammar fix in the same pair) as found."""
    docs = {known_name(d) for d in [*gold.get("docs", []), *holding]}
    if len({known_name(d) for d in reported["docs"]} & docs) != 2:
        return False
    values = list(gold.get("values", []))
    a, b = reported["quotes"]
    return any(matches(a, x) and matches(b, y) for x, y in itertools.permutations(values, 2))


def run_documents(
    questions: list[DocQuestion], corpus_dir: str, settings: dict[str, Any] | None = None, progress: bool = False
) -> list[DocRow]:
    """Every question through the graph (warm, sequentially), scored."""
    from citegraph.api import ask
    from citegraph.embed import get_embedder
    from citegraph.eval.answers import check_citations
    from citegraph.retrievers.hybrid import shared_retriever
    from citegraph.store.corpus import Corpus

    with Corpus.open(corpus_dir, get_embedder().identity.as_dict()) as c:
        files = {d["doc_id"]: known_name(str(d["metadata"].get("path", ""))) for d in c.ledger.documents()}
    halves = split_of(questions)
    it: Any = questions
    if progress:
        from tqdm import tqdm

        it = tqdm(questions, desc="eval documents", unit="question", leave=False)
    if questions:
        ask(questions[0].text, corpus=corpus_dir, **(settings or {}))  # loads models and indexes
    rows = []
    for q in it:
        t = time.perf_counter()
        answer = ask(q.text, corpus=corpus_dir, **(settings or {}))
        row = score(q, answer, halves[q.id], (time.perf_counter() - t) * 1000, files)
        cited = check_citations(answer, shared_retriever(corpus_dir).corpus.ledger, None)
        row.citations, row.quotes_found = cited["citations"], cited["quotes_found"]
        rows.append(row)
    return rows


def load_labels(path: str | Path | None) -> dict[str, str]:
    if not path or not Path(path).exists():
        return {}
    labels = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            labels[rec["key"]] = rec["label"]
    return labels


def summarize_documents(rows: list[DocRow], labels: dict[str, str]) -> dict[str, Any]:
    """The figures of a documents run: overall and per kind."""
    answerable = [r for r in rows if r.answerable]
    unanswerable = [r for r in rows if not r.answerable]

    def rate(n: int, d: int) -> float | None:
        return round(n / d, 4) if d else None

    out: dict[str, Any] = {"n": len(rows), "n_answerable": len(answerable), "n_unanswerable": len(unanswerable)}
    right = sum(bool(r.right) for r in answerable)
    wrong = sum(r.right is False for r in answerable)
    wrong_abst = sum(r.abstained for r in answerable)
    correct_abst = sum(r.abstained for r in unanswerable)
    out["right"] = right
    out["wrong"] = wrong
    out["wrong_abstentions"] = wrong_abst
    out["correct_abstentions"] = correct_abst
    out["answered_should_abstain"] = len(unanswerable) - correct_abst
    # "Right" over the whole benchmark: an answerable question answered right or an unanswerable one
    # abstained on.
    out["right_overall"] = rate(right + correct_abst, len(rows))
    out["right_of_answerable"] = rate(right, len(answerable))
    out["correct_abstention_rate"] = rate(correct_abst, len(unanswerable))
    out["wrong_abstention_rate"] = rate(wrong_abst, len(answerable))
    reported = [c for r in rows for c in r.conflicts]
    unique = {c["key"]: c for c in reported}
    out["conflicts_reported"] = len(reported)
    out["conflicts_real"] = sum(labels.get(c["key"]) == "real" for c in reported)
    out["conflicts_spurious"] = sum(labels.get(c["key"]) == "spurious" for c in reported)
    out["conflicts_unlabelled"] = sorted(k for k in unique if k not in labels)
    with_conflict = [r for r in rows if r.kind == "conflict"]
    out["real_disagreements_reported"] = f"{sum(bool(r.conflict_found) for r in with_conflict)}/{len(with_conflict)}"
    out["disagreements_stated"] = f"{sum(bool(r.conflict_stated) for r in with_conflict)}/{len(with_conflict)}"
    by_kind: dict[str, Any] = {}
    for kind in KINDS:
        rs = [r for r in rows if r.kind == kind]
        if not rs:
            continue
        if kind in ("missing", "off-topic"):
            by_kind[kind] = {"n": len(rs), "abstained": sum(r.abstained for r in rs)}
        else:
            by_kind[kind] = {
                "n": len(rs),
                "right": sum(bool(r.right) for r in rs),
                "wrong": sum(r.right is False for r in rs),
                "abstained": sum(r.abstained for r in rs),
            }
    out["by_kind"] = by_kind
    citations = sum(r.citations for r in rows)
    # Citation validity: each citation's quote is still what its document says at that span.
    out["quotes_found"] = round(sum(r.quotes_found for r in rows) / citations, 4) if citations else None
    ms = sorted(r.ms for r in rows)
    out["latency_ms_p50"] = round(ms[len(ms) // 2], 1) if ms else None
    out["latency_ms_p90"] = round(ms[min(len(ms) - 1, int(0.9 * len(ms)))], 1) if ms else None
    nodes = sorted({n for r in rows for n in r.node_ms})
    out["node_ms_p50"] = {n: round(statistics.median(r.node_ms.get(n, 0.0) for r in rows), 1) for n in nodes}
    # With a model: how many of the model calls fell back to the extractive engine, by node.
    out["fallbacks_by_node"] = dict(sorted(Counter(f.split(":")[0] for r in rows for f in r.fallbacks).items()))
    out["fallbacks_by_cause"] = dict(Counter(fallback_cause(f) for r in rows for f in r.fallbacks).most_common())
    # What a question costs a model: calls and tokens, the median question's. The calls of one question
    # are made one after another (the read call holds every passage; concurrency only overlaps the
    # reconcile round's), so its calls are its sequential round trips.
    for key in ("calls", "input_tokens", "output_tokens"):
        if any(key in r.model_use for r in rows):
            out[f"model_{key}_p50"] = statistics.median(r.model_use.get(key, 0) for r in rows)
    if any("calls" in r.model_use for r in rows):
        calls = Counter(r.model_use.get("calls", 0) for r in rows)
        out["model_calls_per_question"] = {str(k): v for k, v in sorted(calls.items())}
        out["questions_over_3_calls"] = sum(v for k, v in calls.items() if k > 3)
    return out


def fallback_cause(fallback: str) -> str:
    """A fallback's cause without what is particular to the question: "read: output did not match
    Picks: 1 validation error …" -> "read: output did not match Picks"; "read: skipped: the run's
    deadline (300 s) has passed" -> "read: skipped: the run's deadline"."""
    node, _, why = fallback.partition(":")
    parts = re.sub(r"\s*\(.*$", "", why.strip()).split(": ")
    keep = parts[:2] if len(parts) > 1 and re.fullmatch(r"[a-z]+", parts[0]) else parts[:1]
    cause = ": ".join(keep).strip()
    return f"{node}: {cause}" if cause else node
