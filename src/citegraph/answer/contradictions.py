"""Contradictions among the facts found: which pairs disagree on the same point (a number, a date, a
name, polarity), how severe that is, and how each is settled. Plain Python, no LangGraph: the
`contradictions` node (nodes/contradictions.py) calls `detect` with what the run's corpus says.

Severity: minor (a detail: rounding within Context.minor_relative_difference, wording, or a point
no relevant fact rests on), major (a conflicting value on a point the answer uses), critical
(opposite polarity on the core of the answer: both facts bear on the question).

Settling: a minor one is settled by fact weight at once, recording which fact won and why. Major and
critical ones go to `reconcile` for targeted retrieval; after each round they are settled by
corroboration when the new evidence sides with one value, and after the last round by weight when one
fact clearly outweighs the other. What is left is reported unresolved, never hidden.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

from citegraph.context import Context
from citegraph.schemas import Contradiction, Evidence, Fact, Severity
from citegraph.text.claims import is_heading, text_kind
from citegraph.text.conflicts import (
    ALIGNED,
    Conflict,
    compare,
    is_rounding,
    relative_difference,
    same_subject,
    similarity,
)
from citegraph.text.injection import source_label
from citegraph.text.releases import known_name, series

# A fact outweighs another when its weight is higher by at least this much.
CLEAR_MARGIN = 0.05
TIER_RANK = {"primary": 2, "secondary": 1, "tertiary": 0}


def severity(c: Conflict, a: Fact, b: Fact, ctx: Context) -> Severity:
    relevant = a.relevance >= ctx.min_fact_relevance or b.relevance >= ctx.min_fact_relevance
    if not relevant or c.kind == "wording":
        return "minor"
    if c.kind == "number":
        diff = relative_difference(*c.values)
        # A rounding ("about 300" for 310) is a detail only while it stays close (5%).
        rounded = is_rounding(*c.values) and diff is not None and diff <= 0.05
        if rounded or (diff is not None and diff <= ctx.minor_relative_difference):
            return "minor"
    if c.kind == "polarity" and a.relevance >= ctx.min_fact_relevance and b.relevance >= ctx.min_fact_relevance:
        return "critical"
    return "major"


def why_heavier(w: Fact, loser: Fact) -> str:
    reasons = []
    wd, ld = w.trusted_date, loser.trusted_date
    if wd and ld and wd > ld:
        reasons.append(f"more recent ({wd[:10]} vs {ld[:10]})")
    if w.source_tier != loser.source_tier and w.source_tier == "primary":
        reasons.append("a primary source")
    if w.relevance > loser.relevance + 0.05:
        reasons.append("closer to the question")
    return ", ".join(reasons) or "better retrieved and denser in facts"


def corroboration(value: str, fact: Fact, others: list[Fact]) -> int:
    """How many other documents state the same value on the same point: a statement of the same
    subject, worded much like this one, that holds the value and does not contradict it."""
    # Independent sources: a document repeating itself, or a passage of either side's own
    # document, is not agreement.
    docs: set[str] = set()
    for o in others:
        if o.doc_id == fact.doc_id or o.doc_id in docs or value.lower() not in o.text.lower():
            continue
        if not same_subject(fact.title, o.title) or similarity(fact.text, o.text) < ALIGNED:
            continue
        c = compare(fact.text, o.text, fact.title, o.title)
        if c is None or value.lower() not in " ".join(c.values).lower():
            docs.add(o.doc_id)
    return len(docs)


def better_tier(a: Fact, b: Fact) -> tuple[Fact, Fact] | None:
    """(the fact from the better source tier, the other), or None when their tiers are equal."""
    ra, rb = TIER_RANK.get(a.source_tier, 1), TIER_RANK.get(b.source_tier, 1)
    if ra == rb:
        return None
    return (a, b) if ra > rb else (b, a)


def settle(
    con: Contradiction, a: Fact, b: Fact, facts: list[Fact], rounds: int, max_rounds: int, releases: bool = False
) -> Contradiction:
    """Decide a contradiction if the rules allow it now; otherwise leave it open with the reason.
    `releases`: the two facts come from two releases of one document (text/releases.py)."""

    def won(w: Fact, loser: Fact, how: str) -> Contradiction:
        return con.model_copy(
            update={
                "resolved": True,
                "winner": w.id,
                "resolution": f"{how}: kept “{w.text}” ({source_label(w.title)}) over "
                f"“{loser.text}” ({source_label(loser.title)})",
            }
        )

    heavier, lighter = (a, b) if a.weight >= b.weight else (b, a)
    margin = heavier.weight - lighter.weight
    by_tier = better_tier(a, b)
    if con.severity == "minor":
        if by_tier:  # even a detail is not settled against the better source by weight (recency in it)
            w, loser = by_tier
            return won(
                w, loser, f"minor, settled by source tier, a {w.source_tier} source over a {loser.source_tier} one"
            )
        return won(
            heavier,
            lighter,
            f"minor, settled by weight {heavier.weight:.2f} vs {lighter.weight:.2f}, {why_heavier(heavier, lighter)}",
        )
    if rounds >= 1:
        others = [f for f in facts if f.id not in (a.id, b.id)]
        ca, cb = corroboration(con.values[0], a, others), corroboration(con.values[1], b, others)
        if ca != cb:
            w, loser = (a, b) if ca > cb else (b, a)
            return won(w, loser, f"corroborated by {max(ca, cb)} other passage(s) against {min(ca, cb)}")
    if rounds >= max_rounds:
        # Tier before recency: a date is what a document claims for itself, so a newer secondary page
        # does not overrule a primary source (a poisoned page need only claim to be recent).
        if by_tier:
            w, loser = by_tier
            dated_later = " (the other is dated later)" if (loser.trusted_date or "") > (w.trusted_date or "") else ""
            return won(
                w,
                loser,
                f"settled by source tier, a {w.source_tier} source over a {loser.source_tier} one{dated_later}",
            )
        # Dated sources that still disagree after the targeted retrieval: the later one supersedes
        # the earlier (figures get revised, counts go up); the resolution says so, so a reader can
        # disagree with the rule.
        ad, bd = a.trusted_date, b.trusted_date
        if ad and bd and ad[:10] != bd[:10]:
            newer, older = (a, b) if ad > bd else (b, a)
            when = f"{(newer.trusted_date or '')[:10]} supersedes {(older.trusted_date or '')[:10]}"
            return won(newer, older, f"settled by recency after {rounds} reconcile round(s): {when}")
        if releases:
            # Weight says which passage the retrieval matched better, not which release is right: a value
            # that changed between two releases is the change a user must see ("Requires-Python: >=3.8"
            # in urllib3 2.2.1, ">=2.7, …" in 1.26.18, "settled" 0.93 to 0.86 as closer to the question).
            return con.model_copy(
                update={
                    "resolution": f"unresolved after {rounds} reconcile round(s): two releases of one document "
                    "state different values, and neither is dated later"
                }
            )
        if margin >= CLEAR_MARGIN:
            return won(
                heavier,
                lighter,
                f"after {rounds} reconcile round(s), by weight {heavier.weight:.2f} vs "
                f"{lighter.weight:.2f}: {why_heavier(heavier, lighter)}",
            )
        return con.model_copy(
            update={
                "resolution": f"unresolved after {rounds} reconcile round(s): no other passage "
                f"sides with either, neither is dated later, and they weigh the same ({heavier.weight:.2f} vs "
                f"{lighter.weight:.2f})"
            }
        )
    return con.model_copy(update={"resolution": "pending: targeted retrieval"})


def repeated_field(fact: Fact, value: str, passage: str | None) -> bool:
    """Whether the fact is one line of a field its document repeats ("Classifier: … :: Python ::
    3.9", then "… :: 3.10"): a list of values, of which another document listing others says nothing
    contrary."""
    i = fact.text.find(value)
    key = fact.text[:i].strip() if i > 0 else ""
    return bool(passage) and len(key) >= 3 and (passage or "").count(key) >= 2


# Whether a document (by id) states a sentence somewhere, as written (whitespace and case aside).
States = Callable[[str, str], bool]


def document_states(passages_of: Callable[[str], list[Evidence]]) -> States:
    """`States` over the documents' passages (HybridRetriever.passages_of), each document read once."""
    texts: dict[str, list[str]] = {}

    def states(doc_id: str, sentence: str) -> bool:
        if doc_id not in texts:
            texts[doc_id] = [" ".join(p.text.split()).lower() for p in passages_of(doc_id)]
        wanted = " ".join(sentence.split()).lower()
        return any(wanted in t for t in texts[doc_id])

    return states


def _release_pair(a: Evidence | None, b: Evidence | None) -> bool:
    """Whether two passages come from two releases of one document (text/releases.series)."""
    if a is None or b is None or not a.source or not b.source:
        return False
    sa, sb = series(known_name(a.source)), series(known_name(b.source))
    return sa is not None and sa == sb


def detect(
    facts: list[Fact],
    ctx: Context,
    rounds: int,
    max_rounds: int,
    evidence: list[Evidence] | None = None,
    states: States | None = None,
) -> list[Contradiction]:
    """Contradictions between facts of different documents (a document's own entries, a
    changelog's releases, are different things). `evidence` gives each fact's passage and file name,
    for the subject (title and file name) and for repeated fields; `states` says whether a document
    states a sentence anywhere (the other side's sentence in both is no disagreement)."""
    out = []
    by_chunk = {e.chunk_id: e for e in evidence or []}
    ordered = sorted(facts, key=lambda f: f.id)
    # Statements only: two lines of code or of an option table, two headings, differ without contradicting.
    ordered = [f for f in ordered if text_kind(f.text) == "prose" and not is_heading(f.text)]

    def named(f: Fact) -> str:
        ev = by_chunk.get(f.chunk_id)
        return f"{f.title} {Path(ev.source).stem if ev and ev.source else ''}".strip()

    # One disagreement once: the same two sentences quoted from overlapping passages, or read again in
    # a reconcile round, are other facts (other ids) but not another conflict (realdocs2's Jinja2
    # MarkupSafe bounds were reported 3 to 13 times in one answer). The same two lines about another
    # subject are another disagreement: requests', click's and Jinja2's METADATA all changed from
    # "Requires-Python: >=2.7, !=3.0.*, …" to ">=3.7", and only the first pair compared was kept.
    # Nor is one sentence quoted alone and with the sentence after it (paramiko's "pure-Python (2.7, 3.4+)"
    # against "(3.6+)" was reported three times): two documents that differ on one point by the same
    # values disagree once.
    said: set[tuple[frozenset[str], str]] = set()
    differ: set[tuple[frozenset[str], str, frozenset[str]]] = set()
    for a, b in combinations(ordered, 2):
        if a.doc_id == b.doc_id or a.text == b.text:
            continue
        texts = frozenset((" ".join(a.text.split()), " ".join(b.text.split())))
        c = compare(a.text, b.text, named(a), named(b))
        if c is None or (texts, c.point) in said:
            continue
        how = (frozenset((a.doc_id, b.doc_id)), c.point, frozenset(c.values))
        if how in differ:
            continue
        ea, eb = by_chunk.get(a.chunk_id), by_chunk.get(b.chunk_id)
        if repeated_field(a, c.values[0], ea.text if ea else None) or repeated_field(
            b, c.values[1], eb.text if eb else None
        ):
            continue
        # Both documents say both: a changelog carried into a package's metadata lists "Drop support
        # for Python 3.6" (v3.3.0) and "… 3.2" (v1.1.0), and a manual's two releases describe two
        # settings alike; a pair of those lines, one from each file, is two entries, not a disagreement
        # (realdocs6: 4 of 10 reported conflicts).
        if states is not None and (states(b.doc_id, a.text) or states(a.doc_id, b.text)):
            continue
        # Between two releases of one document, other words for the same thing ("Python wrapper" /
        # "Python extension") are an edit: only a changed value is a change a user must see.
        if c.kind == "wording" and _release_pair(ea, eb):
            continue
        cid = hashlib.sha1(f"{a.id}:{b.id}".encode()).hexdigest()[:12]
        con = Contradiction(
            id=cid, facts=(a.id, b.id), kind=c.kind, severity=severity(c, a, b, ctx), point=c.point, values=c.values
        )
        said.add((texts, c.point))
        differ.add(how)
        out.append(settle(con, a, b, facts, rounds, max_rounds, _release_pair(ea, eb)))
    return out


def losers(contradictions: list[Contradiction]) -> set[str]:
    out: set[str] = set()
    for c in contradictions:
        if c.resolved and c.winner:
            out.update(f for f in c.facts if f != c.winner)
    return out
