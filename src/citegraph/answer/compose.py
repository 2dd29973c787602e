"""How an answer is composed from the facts found, and checked, whatever wrote it. Plain Python, no
LangGraph: the `write` node (nodes/write.py) calls it.

Extractive engine: the best supported facts (relevance first, then weight; near-repeats skipped),
each quoted as a sentence with its citation. Facts that lost a contradiction are not used; an
unresolved contradiction on a used fact becomes a sentence that states both sides, each cited.
LLM engine, `llm_write` "quotes": the model reads more candidate facts than the answer holds, names
those that state the answer, best first, and copies the answer's words from them; the code quotes the
named facts as the extractive engine would, led by those words when a named fact holds them exactly
(else by the value the rules find). Every sentence is then a document's own. "prose": the model writes
sentences and names the facts each rests on, and each must pass the support check.

Whatever wrote them, `validate` checks every sentence before the answer leaves the graph: a sentence
with no citation, or citing a fact that was never extracted from retrieved evidence, is dropped; a
model's sentence must not bring a number its cited facts do not hold; each quote must still be found
in its passage at its span. References are numbered in order of first citation, one per quoted fact."""

from __future__ import annotations

import re
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from citegraph.context import Context
from citegraph.llm import model_picks
from citegraph.prompts import ABSTAIN, fence
from citegraph.reader import evidence_text, get_support_checker
from citegraph.schemas import Contradiction, Evidence, Fact, Reference, Sentence, locator
from citegraph.text import answerability as ans
from citegraph.text.claims import extract_numbers, quotable, quote_at
from citegraph.text.injection import clean_title, source_label
from citegraph.text.releases import document_name
from citegraph.text.support import unsupported_terms
from citegraph.text.tokens import tokenize

_MARK = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def _similar(a: str, b: str) -> bool:
    ta, tb = set(tokenize(a)), set(tokenize(b))
    return bool(ta and tb) and len(ta & tb) / len(ta | tb) > 0.6


# A further sentence must be nearly as relevant as the best one: a short answer beats a padded one.
KEEP_RELATIVE = 0.75


def fact_score(f: Fact) -> float:
    return ans.answer_score(f.relevance, f.answer_p, f.typed)


# A value leads the answer only when its fact scores this much above every quoted fact that gives
# another value: xsltproc's "The default is 256" (0.527) over "… infinite loop. The default is 3000"
# (0.513), xargs's "124 if the command exited with status 255" over "123 if any invocation … exited
# with status 1-125" (0.012 apart) were leads a reader takes for the answer, and wrong; quoted side by
# side without a lead, both facts are the documents' words and the reader sees there are two.
LEAD_MARGIN = 0.05


def rival_value(chosen: list[Fact], question: str, value: str) -> bool:
    """Whether a quoted fact other than the first gives another value of the asked kind, scoring within
    LEAD_MARGIN of the first."""
    kind = ans.answer_type(question)
    top = fact_score(chosen[0])
    for f in chosen[1:]:
        other = ans.the_value(kind, f.text, question)
        if other and other != value and fact_score(f) > top - LEAD_MARGIN:
            return True
    return False


def choose_facts(
    facts: list[Fact],
    supported: list[str],
    excluded: set[str],
    limit: int,
    relative: float = KEEP_RELATIVE,
    question: str = "",
) -> list[Fact]:
    """The best supported facts, at most `limit`, each at least `relative` times as good as the first;
    for a question asking for the latest version or date, the latest release's facts first."""
    by_id = {f.id: f for f in facts}

    ranked = sorted(
        (by_id[i] for i in supported if i in by_id and i not in excluded), key=lambda f: (-fact_score(f), -f.weight)
    )
    latest = ans.latest_kind(question)
    if latest:

        def lateness(f: Fact) -> tuple[int, ...]:
            head = by_id.get(f.under or "")  # the release line a changelog entry sits under
            return ans.release_order(latest, f.text, head.text if head else None, question)

        ranked.sort(key=lateness, reverse=True)
        if ranked and lateness(ranked[0]):
            # Only the latest release's facts, however their wording scores: an older release's line
            # beside them would read as the answer too.
            ranked = [f for f in ranked if lateness(f) == lateness(ranked[0])]
            relative = 0.0
    required = [f for f in ranked if ans.requirement_field(question, f.text)]
    if required:
        # Which versions a package needs is what its own requirement field states ("Requires-Python:
        # >=3.8", in each release read): those lines, not "pip install cloudpickle" beside them, nor
        # another package's ("xxhash-3.5.0.METADATA" beside mock's; realdocs6 l26).
        package = document_name(required[0].title or "")
        ranked, relative = [f for f in required if document_name(f.title or "") == package], 0.0
    chosen: list[Fact] = []
    for f in ranked:
        if chosen and fact_score(f) < relative * fact_score(chosen[0]):
            break
        if not any(_similar(f.text, c.text) for c in chosen):
            chosen.append(f)
        if len(chosen) == limit:
            break
    return chosen


def lead_value(question: str, fact: Fact) -> str | None:
    """The value the answer leads with, when the question asks for a number, date, version or code and
    the fact holds one that is plainly it (answerability.the_value; else the quote stands alone)."""
    kind = ans.answer_type(question)
    if kind not in ans.VALUE_TYPES:
        return None
    return ans.the_value(kind, fact.text, question, ans.covering_text(fact.title, "", fact.doc_id))


# A model's short answer longer than this is a sentence, not a value.
LEAD_WORDS = 12


def model_lead(answer: str, picked: list[Fact], question: str) -> tuple[tuple[str, Fact] | None, str | None]:
    """The model's short answer checked against the facts it picked: (the lead and its fact, None) when
    it is a picked fact's exact words (whole words, any case; the document's spelling is kept), says
    more than the question and, when the question asks for a number, date, version or code, holds one
    of the fact's (answerability.answer_values: not the "3" of "libxslt(3)"); (None, None) when it is
    empty or a whole sentence of a picked fact (the quotes answer alone); (None, why) when the facts it
    picked do not say it."""
    words = " ".join(answer.split()).strip(" .,;")
    if not re.search(r"\w", words):
        return None, None
    if set(tokenize(words)) <= set(tokenize(question)):
        return None, "is only the question's words"
    pattern = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, words.split())) + r"(?!\w)", re.I)
    found = [(m.group(0), f) for f in picked if (m := pattern.search(" ".join(f.text.split())))]
    if not found:
        return None, "is not in the facts it picked"
    kind = ans.answer_type(question)
    for said, f in found:
        if kind in ans.VALUE_TYPES and not any(v in said for v in ans.answer_values(kind, f.text, question)):
            continue
        if len(said.split()) > LEAD_WORDS or said == " ".join(f.text.split()).rstrip(" ."):
            return None, None  # a sentence: the quotes answer alone
        return (said, f), None
    return None, f"holds no {kind} of the facts it picked"


def extractive_plan(
    chosen: list[Fact],
    facts: list[Fact],
    contradictions: list[Contradiction],
    question: str = "",
    lead: tuple[str, Fact] | None = None,
    supported: Set[str] = frozenset(),
) -> list[tuple[str, list[str]]]:
    """(sentence without markers, fact ids it cites) for each sentence of the answer: the asked value
    first when there is one (`lead`, else answerability's rules) and the sources do not disagree on it,
    then the quoted facts, then the conflicts still open (stated_conflicts)."""
    by_id = {f.id: f for f in facts}
    plan = [(shown(f)[0], [f.id]) for f in chosen]
    open_ = stated_conflicts(contradictions, {f.id for f in chosen}, supported)
    if chosen and question:
        top = chosen[0]
        heading = by_id.get(top.under) if top.under else None
        source = heading or top  # a changelog entry takes its release number from the line it is under
        value = lead_value(question, source)
        if value and heading is None and rival_value(chosen, question, value):
            value = None
        if lead is not None:
            value, source = lead
        if value and any(set(c.facts) <= supported for c in open_):
            # The sources disagree on what is asked (both sides could answer): no one value leads, the
            # user reads both. A release the question does not ask about ("of demo-pkg 2.0") is only a
            # side note: the asked release's value still leads.
            value = None
        if value:
            plan.insert(0, (value, [source.id]))
        if heading is not None:
            plan.insert(1 if value else 0, (shown(heading)[0], [heading.id]))
    for c in open_:
        a, b = (by_id.get(i) for i in c.facts)
        if a and b:
            plan.append(
                (
                    f"The sources disagree here: {source_name(a)} says {c.values[0]}, "
                    f"{source_name(b)} says {c.values[1]}",
                    [a.id, b.id],
                )
            )
    return plan


# At most this many disagreements are stated that no quoted fact takes a side in.
MORE_CONFLICTS = 2


def stated_conflicts(contradictions: list[Contradiction], used: Set[str], supported: Set[str]) -> list[Contradiction]:
    """The open conflicts an answer states: those a quoted fact takes a side in, then those between two
    facts that could each answer the question (`supported`: the judge's): a disagreement on what is
    asked is the answer even when other sentences scored higher ("Which versions of Werkzeug does Flask
    depend on?": two METADATA files' Requires-Dist lines disagree, and changelog lines were quoted)."""
    open_ = [c for c in contradictions if not c.resolved]
    taken = [c for c in open_ if set(c.facts) & used]
    more = [c for c in open_ if c not in taken and set(c.facts) <= supported]
    return taken + more[:MORE_CONFLICTS]


def shown(f: Fact) -> tuple[str, tuple[int, int]]:
    """The fact's quote as a user reads it, and its document span: without the heading hashes, bullet or
    rule lines around its words (text/claims.quotable), so still exactly the document's text there."""
    a, z = quotable(f.text)
    return f.text[a:z], (f.span[0] + a, f.span[0] + z)


def source_name(f: Fact) -> str:
    """A document as the answer text names it: its title is the document's to choose, so it is cleaned
    and quoted (text/injection.py), like any text taken from a document."""
    return source_label(f.title) + (f" ({f.date[:10]})" if f.date else "")


def _with_marks(text: str, marks: list[int]) -> str:
    text = " ".join(_MARK.sub("", text).split())  # one line: quotes may span source line breaks
    cite = "".join(f"[{n}]" for n in marks)
    m = re.search(r"[.!?]+$", text)
    if m:  # "… grew [1]."
        return f"{text[: m.start()]} {cite}{text[m.start() :]}"
    if re.search(r"[.!?][\"'’”)\]]+$", text):  # a sentence ended inside a quote or bracket: '… us." [2]'
        return f"{text} {cite}"
    return f"{text} {cite}."


# "(fact 2)", "[passages 1 and 3]": the numbers a prompt gave the facts, not the documents' words.
_NUMBERED = re.compile(r"\s*[(\[]\s*(?:facts?|passages?|sources?)\s*#?\d+(?:\s*(?:,|and|&)\s*#?\d+)*\s*[)\]]", re.I)


def without_bookkeeping(text: str, facts: list[Fact]) -> str:
    """A model's sentence without the ids and numbers our prompts and records carry ("Cleopatra
    (cdd4db097c387)" was written once): a fact's or passage's id anywhere, a document's id or a fact's
    number in brackets. Stripped, not refused: the rest of the sentence is still checked."""
    hashes = sorted({x for f in facts for x in (f.id, f.chunk_id)}, key=len, reverse=True)
    docs = sorted({f.doc_id for f in facts} | set(hashes), key=len, reverse=True)
    if docs:
        any_id = "|".join(map(re.escape, docs))
        text = re.sub(
            rf"\s*[(\[]\s*(?:(?:facts?|passages?|ids?)\s*:?\s*)?(?:{any_id})(?:\s*,\s*(?:{any_id}))*\s*[)\]]",
            "",
            text,
            flags=re.I,
        )
        text = re.sub(rf"(?<![\w:.-])(?:{'|'.join(map(re.escape, hashes))})(?![\w:-])", "", text)
    text = _NUMBERED.sub("", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split()))


@dataclass
class Checked:
    """One planned sentence after the checks: its text (a model's without our ids), the facts it may
    cite, and why it is dropped (None: it stays)."""

    text: str
    cited: list[Fact]
    why: str | None = None


def check_plan(
    plan: list[tuple[str, list[str]]],
    facts: list[Fact],
    evidence: list[Evidence],
    from_model: bool,
    question: str = "",
    supports: Callable[[str, list[Fact]], float] | None = None,
    floor: float = 0.0,
) -> list[Checked]:
    """Each planned sentence checked: it must cite a fact extracted from retrieved evidence, whose
    quote is still at its span; a model's sentence must also bring no number, name, quoted term or id
    its cited facts (or the question) lack, must not be a question, and, with `supports` (the learned
    check: P(the cited facts say it)), must score at least `floor`."""
    by_id = {f.id: f for f in facts}
    passages = {e.chunk_id: e for e in evidence}
    out: list[Checked] = []
    for text, ids in plan:
        if from_model:
            text = without_bookkeeping(text, facts)
        cited = []
        for fid in dict.fromkeys(ids):
            f = by_id.get(fid)
            ev = passages.get(f.chunk_id) if f else None
            if f is None or ev is None:
                continue  # a citation to evidence that was never retrieved
            if not quote_at(ev.text, ev.span[0], f.span, f.text):
                continue  # the quote is not where it claims to be
            cited.append(f)
        why = refusal(text, cited, from_model, question)
        if why is None and from_model and supports is not None:
            p = supports(_MARK.sub("", text), cited)
            if p < floor:
                why = f"its cited facts do not say it (support check {p:.2f} < {floor:.2f})"
        out.append(Checked(text, cited, why))
    return out


def refusal(text: str, cited: list[Fact], from_model: bool, question: str) -> str | None:
    """Why a planned sentence with these valid citations is dropped before the learned check, or None."""
    if not cited:
        return "no valid citation"
    if not from_model:
        return None
    bare = _MARK.sub("", text)
    if bare.rstrip().endswith("?"):  # the question asked back (seen from a 1.5B model)
        return "a question, not an answer"
    held = {n for f in cited for n in extract_numbers(f.text)}
    extra = [n for n in extract_numbers(bare) if n not in held]
    if extra:
        return f"number(s) {', '.join(extra)} not in the cited facts"
    names = unsupported_terms(bare, [f"{f.title} {f.text}" for f in cited], question)
    if names:
        return f"{', '.join(names)}: not in the cited facts"
    return None


def supported_by(sentence: str, cited: list[Fact]) -> float:
    """The learned support check: P(the cited facts' quotes say what the sentence says)."""
    evidence = evidence_text([(f.title, f.text) for f in cited])
    return get_support_checker().probabilities(sentence, [evidence])[0]


def validate(
    plan: list[tuple[str, list[str]]],
    facts: list[Fact],
    evidence: list[Evidence],
    from_model: bool,
    question: str = "",
) -> tuple[list[Sentence], list[Reference], list[str]]:
    """Sentences with [n] markers and their reference list; plus what was dropped and why."""
    return cite(check_plan(plan, facts, evidence, from_model, question), evidence)


def cite(checked: list[Checked], evidence: list[Evidence]) -> tuple[list[Sentence], list[Reference], list[str]]:
    """The sentences that passed, numbered by first citation, one reference per quoted fact."""
    passages = {e.chunk_id: e for e in evidence}
    refs: dict[str, Reference] = {}
    sentences: list[Sentence] = []
    dropped: list[str] = []
    for c in checked:
        if c.why:
            dropped.append(f"{c.why}: {c.text[:80]}")
            continue
        marks = []
        for f in c.cited:
            if f.id not in refs:
                quote, span = shown(f)
                refs[f.id] = Reference(
                    n=len(refs) + 1,
                    doc_id=f.doc_id,
                    chunk_id=f.chunk_id,
                    title=clean_title(f.title),  # the document's own words: no control characters
                    date=f.date,
                    source=passages[f.chunk_id].source,
                    span=span,
                    quote=quote,
                    locator=locator(f.page, span),
                )
            marks.append(refs[f.id].n)
        sentences.append(Sentence(text=_with_marks(c.text, marks), citations=marks))
    return sentences, list(refs.values()), dropped


def declines(text: str) -> bool:
    """A model's sentence that only says the facts do not answer (the prompt's abstention sentence)."""
    return " ".join(_MARK.sub("", text).lower().split()).rstrip(".") == ABSTAIN.lower().rstrip(".")


def stand_in_refused(ctx: Context, source: str, parts: dict[str, float], unusable: str | None = None) -> str | None:
    """Why the extractive engine's sentences may not stand in for a model's, or None when they may.
    The model judged (source "model") that the facts answer; when its own sentences then fail
    validation or its call fails, the extractive sentences are quoted only if the extractive judge
    would have answered too: on real documents they were otherwise topical sentences that do not
    answer ("What's the oldest Python cloudpickle can be installed on?" quoted "… the exact same
    version of Python")."""
    if source == "model":
        own = "sentences" if "sentences" in parts else "lexical"
        why = "the model's own sentences were not supported by the facts they cite"
    elif model_picks(ctx):
        # The judge let the question through at pick_threshold for the model to pick the facts that
        # answer; its call failed or its pick could not be used (`unusable`: why), so the extractive
        # judge's own threshold applies.
        own, why = source, "the model's call to pick the facts that answer failed"
        if unusable:
            why = unusable
    else:
        return None
    support, threshold = parts.get(own, 0.0), ctx.threshold(own)
    if support >= threshold:
        return None
    return f"{why}, and the best support for an extractive answer is {support:.2f}, below the threshold {threshold:.2f}"


class Picked(BaseModel):
    fact_ids: list[int] = Field(
        default_factory=list, description="Numbers of the facts that state the answer, best first; empty if none does"
    )
    answer: str = Field(
        default="",
        description="The words of those facts that are the answer (a value with its unit, a name, a date, a "
        "version), copied exactly; empty when the answer is a whole sentence",
    )


# With llm_write "quotes" the model chooses among more facts than an answer holds: the choice of the
# fact that answers, where the extractive ranking put a topical one first, is what the model adds.
PICK_CANDIDATES = 8


def facts_prompt(
    template: str, question: str, facts: list[Fact], contradictions: list[Contradiction], limit: int
) -> tuple[str, dict[int, Fact]]:
    """The prompt that shows the model these facts numbered (fenced: they are the documents' words), and
    the facts by number."""
    numbered = {i + 1: f for i, f in enumerate(facts)}
    conflicts = "".join(
        f"Sources disagree on {c.point}: {c.values[0]} vs {c.values[1]} ({c.resolution}).\n"
        for c in contradictions
        if c.severity != "minor"
    )
    prompt = template.format(
        question=question,
        max_sentences=limit,
        abstain=ABSTAIN,
        conflicts=("\n" + fence("facts", conflicts.strip()) + "\n") if conflicts else "",
        facts=fence(
            "facts",
            "\n".join(
                f"{i}. {f.text} ({clean_title(f.title) or f.doc_id}{', ' + f.date if f.date else ''})"
                for i, f in numbered.items()
            ),
        ),
    )
    return prompt, numbered


def plan_from_picks(
    picks: Picked,
    numbered: dict[int, Fact],
    facts: list[Fact],
    contradictions: list[Contradiction],
    question: str,
    limit: int,
    supported: Set[str] = frozenset(),
) -> tuple[list[tuple[str, list[str]]], str | None, dict[str, Any]]:
    """The answer's plan from the facts the model named (quoted as the extractive engine would, led by
    its words when they pass `model_lead`), or no plan and why the answer abstains; plus what was decided
    (write's trace)."""
    picked = [numbered[i] for i in dict.fromkeys(picks.fact_ids) if i in numbered][:limit]
    lead, unsaid = model_lead(picks.answer, picked, question)
    decided = {"picked": [f.id for f in picked], "answer": picks.answer, "lead": lead[0] if lead else None}
    if not picked:
        # The model read the candidates and found none that states the answer: no quote of them should
        # stand in as if one did.
        return [], "the model found that none of the facts states the answer", decided
    if unsaid:
        # The model named the answer in words the facts it picked do not say: quoting them would present
        # a topical sentence as the answer ("Tornado" for which extra pulls in tornado; a paraphrase of
        # its own for a "why").
        return [], f"the model's answer {' '.join(picks.answer.split())[:80]!r} {unsaid}", decided
    return extractive_plan(picked, facts, contradictions, question, lead, supported), None, decided


class Written(BaseModel):
    class Item(BaseModel):
        text: str = Field(description="One sentence of the answer, without citation markers")
        fact_ids: list[int] = Field(description="Numbers of the facts this sentence rests on")

    sentences: list[Item] = Field(default_factory=list)
