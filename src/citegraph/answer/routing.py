"""Routing by cue words: a question's mode (recent / corpus / direct) and query class (precise fact /
broad synthesis / reasoning) with its domain tags. Plain Python, no LangGraph: the `route` node
(nodes/route.py) calls it when no model routes.

"direct" (no retrieval) is only chosen when a model can answer. Recent by its words ("latest",
"current", "recently", "as of", "now"…), but not "the most recent rotated copy" or "the current
directory": the newest one of something a document describes is no question about time.
"""

from __future__ import annotations

import re

from citegraph.schemas import Mode, QueryClass
from citegraph.text.claims import extract_entities
from citegraph.text.tokens import QUESTION_WORDS, STOPWORDS

_RECENT = re.compile(
    r"\b(latest|current(ly)?|now|nowadays|today|recent(ly)?|this (year|month|week)|so far|as of|at present|"
    r"up to date|upcoming|newest|most recent)\b",
    re.IGNORECASE,
)


# "the most recent rotated copy", "the current directory", "the latest line": the newest or present one
# of something a document describes, not a question about what is new. Recent mode keeps to the newest
# documents, and savelog's manual was left out of "Why does savelog leave the most recent rotated copy
# uncompressed?" for a newer file about something else. ("still", as in "still has Python 2.7", is not
# about time either.)
_ADJECTIVE = frozenset(["current", "latest", "newest", "most recent", "recent"])


_NOT_TIME = re.compile(
    r"\W+(\w+\W+)?(directory|directories|dir|folder|working|user|file|files|copy|copies|backup|backups|buffer|"
    r"line|lines|process|session|locale|shell|terminal|window|page|position|entry|entries|item|selection|record|"
    r"log|snapshot|commit|branch|frame|call|thread|element|node|token|character|word|column|row|cell|one|"
    r"settings?|configuration|context|host|time ?zone|task|job|screen|cursor|key|message|command)\b",
    re.IGNORECASE,
)


def asks_recent(question: str) -> bool:
    """Whether the question asks what is new or current (recent mode), by its words."""
    for m in _RECENT.finditer(question):
        if m.group(1).lower() in _ADJECTIVE and _NOT_TIME.match(question, m.end()):
            continue
        return True
    return False


_REASONING = re.compile(
    r"^\s*(why|how (do|does|did|can|could|would|is|are|was|were|has|have)|explain|what (causes|caused|explains|"
    r"would|if)|in what way)\b|\b(because|lead to|leads to|led to|result in|results in|impact of|effect of|"
    r"effects of|cause of|causes of|reason for|reasons for|consequences?)\b",
    re.IGNORECASE,
)


_BROAD = re.compile(
    r"^\s*(describe|summari[sz]e|overview|discuss|compare|list|outline|tell me about|give an overview|"
    r"what (are|were) (the|some) (main|key|major|different|various))\b|\b(main|key|major|overall|various|"
    r"different) (points|aspects|themes|issues|factors|challenges|priorities|arguments|ideas)\b",
    re.IGNORECASE,
)


_DIRECT = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you)\b|^\s*(what is|compute|calculate)\s+[\d\s+*/().-]+\??$", re.IGNORECASE
)


_QWORDS = QUESTION_WORDS


def classify(question: str) -> tuple[QueryClass, list[str]]:
    """Query class and up to five domain tags (the question's entities, then its content words)."""
    if _REASONING.search(question):
        qclass: QueryClass = "reasoning"
    elif _BROAD.search(question):
        qclass = "broad_synthesis"
    else:
        qclass = "precise_fact"
    tags = [e.lower() for e in extract_entities(question)]
    for w in re.findall(r"[A-Za-z][\w-]+", question.lower()):
        if w not in STOPWORDS and w not in _QWORDS and len(w) > 3 and not any(w in t for t in tags):
            tags.append(w)
    return qclass, tags[:5]


def pick_mode(question: str, has_llm: bool) -> Mode:
    if has_llm and _DIRECT.search(question):
        return "direct"
    return "recent" if asks_recent(question) else "corpus"
