"""The graph's settings, with the defaults from DESIGN.md. What ingestion and the retrievers read
(`ChunkingSettings`, `RetrievalSettings`) is in settings.py; the retrieval knobs a run may choose are
repeated here by name, from there, so that Studio shows them. The graph's settings are split at the
trust boundary: `Context` (LangGraph's `context_schema`) holds what a caller may choose for one run,
within bounds; `Deployment` holds what only the operator sets (corpora, model endpoint and key,
timeouts). Nothing else in the package reads the environment for configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast, get_args
from urllib.parse import urlsplit

from pydantic.json_schema import SkipJsonSchema

from citegraph.errors import InputError
from citegraph.schemas import QueryClass
from citegraph.settings import (
    FUSIONS,
    RETRIEVAL_KNOBS,
    FusionMethod,
    RetrievalSettings,
    knob,
)


def _retrieval(name: str) -> Any:
    """A Context field that is the RetrievalSettings knob of this name: same default, description, bounds."""
    f = RetrievalSettings.__dataclass_fields__[name]
    return field(default=f.default, metadata=f.metadata)


# The values Context accepts for these settings, spelled once: the checks and the CLIs' choices read them.
LlmScope = Literal["all", "judge"]
Judge = Literal["reader", "lexical", "sentences"]
SentenceRanker = Literal["learned", "lexical"]
LlmPicks = Literal["numbers", "quotes"]
LlmWrite = Literal["quotes", "prose"]
LLM_SCOPES: tuple[str, ...] = get_args(LlmScope)
JUDGES: tuple[str, ...] = get_args(Judge)
SENTENCE_RANKERS: tuple[str, ...] = get_args(SentenceRanker)
LLM_PICKS: tuple[str, ...] = get_args(LlmPicks)
LLM_WRITES: tuple[str, ...] = get_args(LlmWrite)
# Each judge's scores run on a scale of their own, so each has the threshold chosen for it: the sentence
# scorer's on session 11's dev mixture, the lexical score's on session 9's (with the lexical ranker),
# the reader's in session 8 (docs/BENCHMARKS.md). `abstain_threshold` overrides them all. Chosen again
# on session 20's dev mixture, the sentence scorer's depended on what a wrong answer is taken to cost (0.5
# if what a right one earns, 0.55 at 1.5 times, 0.68 at twice) and 0.62 stayed. On session 28's, after
# the coverage rules that keep wrong answers out of real documents, 0.55 beats 0.62 at each cost (1, 1.5
# and 2): more manuals' lines answered, no wrong one more on dev.
JUDGE_THRESHOLDS = {"sentences": 0.55, "lexical": 0.58, "reader": 0.22}
# How the defaults read in help texts (Studio's description, the CLI's --abstain-threshold).
JUDGE_THRESHOLDS_TEXT = ", ".join(f"{judge} {t}" for judge, t in JUDGE_THRESHOLDS.items())
SUPPORT_CHECK = 0.4

# How a model is asked for JSON (langchain-openai's with_structured_output methods): a tool call the
# model must make (OpenAI, vLLM, llama.cpp's server), or a response_format with the schema (OpenAI,
# vLLM, Ollama, which does not honour a forced tool choice), or plain JSON mode.
STRUCTURED_OUTPUT = ("function_calling", "json_schema", "json_mode")

# The design's bound on the reconcile loop: a caller may ask for fewer rounds, never more.
MAX_RECONCILE_ROUNDS = 2

# Web search providers for recent mode (web/search.py) and the environment variable holding each key.
WEB_PROVIDERS = ("brave", "tavily", "searxng")
WEB_KEYS = {"brave": ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"), "tavily": ("TAVILY_API_KEY",), "searxng": ()}


def _default_web_cache() -> str:
    import os

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "citegraph", "web")


@dataclass(frozen=True, kw_only=True)
class WebSettings:
    """The web half of recent mode (web/), the operator's to set: which provider, where, with which key,
    and how carefully pages are read. Off unless a provider is named."""

    provider: str
    base_url: str = ""  # the provider's API base (Brave, Tavily: their public one) or a SearxNG instance
    api_key: str = field(default="", repr=False)
    cache_dir: str = field(default_factory=_default_web_cache)
    cache_hours: float = 24.0
    offline: bool = False  # no request at all: search results and pages come from the cache only
    timeout_s: float = 10.0  # per request: the search, robots.txt, each page
    max_page_mb: float = 2.0
    allow_private: bool = False  # read result pages on loopback or private addresses (an intranet)

    def __post_init__(self) -> None:
        if self.provider not in WEB_PROVIDERS:
            raise InputError(
                f"unknown web search provider {self.provider!r} (CITEGRAPH_WEB_SEARCH): use {', '.join(WEB_PROVIDERS)}"
            )
        if self.provider == "searxng" and not self.base_url:
            raise InputError("web search 'searxng' needs the instance's URL (CITEGRAPH_WEB_URL)")
        if self.provider in ("brave", "tavily") and not self.api_key and not self.offline:
            names = " or ".join(WEB_KEYS[self.provider])
            raise InputError(f"web search {self.provider!r} needs its API key in {names}")
        if not (self.timeout_s > 0 and self.max_page_mb > 0 and self.cache_hours >= 0):
            raise InputError("web timeout and page size must be positive, the cache age not negative")

    @property
    def corpus_dir(self) -> str:
        """Where fetched pages are stored, chunked and indexed, like a corpus of files."""
        import os

        return os.path.join(os.path.expanduser(self.cache_dir), "corpus")


def _env(name: str, default: str | None = None) -> str | None:
    import os

    return os.environ.get(name) or default


def _env_seconds(name: str, default: float) -> float:
    value = _env(name)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise InputError(f"{name} must be a number of seconds, got {value!r}") from None


def _env_count(name: str) -> int | None:
    value = _env(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{name} must be a whole number, got {value!r}") from None


def _corpora_from_env() -> dict[str, str]:
    """The operator's corpora by name: "default" is CITEGRAPH_CORPUS (or .citegraph/demo), and
    CITEGRAPH_CORPORA adds more as comma-separated name=path pairs."""
    corpora = {"default": _env("CITEGRAPH_CORPUS", ".citegraph/demo") or ""}
    for item in (_env("CITEGRAPH_CORPORA") or "").split(","):
        if not item.strip():
            continue
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InputError(f"CITEGRAPH_CORPORA: {item.strip()!r} is not name=path")
        corpora[name.strip()] = path.strip()
    return corpora


def _truthy(name: str) -> bool:
    return (_env(name) or "").strip().lower() in ("1", "true", "yes", "on")


def configure_web(
    provider: str | None = None, base_url: str | None = None, cache_dir: str | None = None, offline: bool = False
) -> WebSettings | None:
    """The operator's web search: CITEGRAPH_WEB_SEARCH names the provider (unset or "off": no web search),
    CITEGRAPH_WEB_URL its base URL, CITEGRAPH_WEB_CACHE the cache folder, CITEGRAPH_OFFLINE=1 forbids
    requests, CITEGRAPH_WEB_ALLOW_PRIVATE=1 lets result pages on private addresses be read; the key comes
    from the provider's own variable (BRAVE_API_KEY, TAVILY_API_KEY). Arguments given (the CLI's) win."""
    chosen = (provider or _env("CITEGRAPH_WEB_SEARCH") or "").strip().lower()
    if chosen in ("", "off", "none"):
        return None
    key = next((v for v in (_env(n) for n in WEB_KEYS.get(chosen, ())) if v), "")
    return WebSettings(
        provider=chosen,
        base_url=base_url or _env("CITEGRAPH_WEB_URL", "") or "",
        api_key=key,
        cache_dir=cache_dir or _env("CITEGRAPH_WEB_CACHE") or _default_web_cache(),
        offline=offline or _truthy("CITEGRAPH_OFFLINE"),
        allow_private=_truthy("CITEGRAPH_WEB_ALLOW_PRIVATE"),
        timeout_s=_env_seconds("CITEGRAPH_WEB_TIMEOUT_S", 10.0),
    )


@dataclass(frozen=True, kw_only=True)
class Deployment:
    """What only the operator sets: where the corpora are, which model is called with which key, and
    how long to wait for it. Read from the environment (or given by a Python caller or the CLI, who
    are the operator); never from a run's context, so that a client of `langgraph dev` cannot send
    the server's key to a host of its choice or read a folder the operator did not name."""

    corpora: dict[str, str] = field(default_factory=_corpora_from_env)
    chroma_url: str | None = field(default_factory=lambda: _env("CITEGRAPH_CHROMA_URL"))
    # The model. No base URL and no model: the extractive engine runs every node.
    llm_base_url: str | None = field(default_factory=lambda: _env("CITEGRAPH_LLM_BASE_URL"))
    llm_model: str | None = field(default_factory=lambda: _env("CITEGRAPH_LLM_MODEL"))
    llm_api_key: str | None = field(
        default_factory=lambda: _env("CITEGRAPH_LLM_API_KEY", _env("OPENAI_API_KEY")), repr=False
    )
    llm_timeout_s: float = 120.0
    # Retries of a rate-limited or failed (5xx) call; a timeout is never retried (it trips the breaker).
    llm_max_retries: int = 1
    llm_temperature: float = 0.0
    # How structured output is asked for (STRUCTURED_OUTPUT): "json_schema" for Ollama.
    llm_structured_output: str = field(
        default_factory=lambda: _env("CITEGRAPH_LLM_STRUCTURED_OUTPUT", "function_calling") or "function_calling"
    )
    # Model requests in flight at once (within one event loop: one question, or one server). None: 1
    # for a server on this machine, 4 for any other. llama.cpp's and Ollama's servers answer one
    # request at a time, and a request sent while another runs waits in their queue with its timeout
    # running: extract's one request per passage, sent at once, timed out there after 120 s, 5 of 8.
    llm_concurrency: int | None = field(default_factory=lambda: _env_count("CITEGRAPH_LLM_CONCURRENCY"))
    # After a timeout or a refused connection, calls to the endpoint are skipped for this long.
    llm_breaker_s: float = 60.0
    # A run's model calls stop this long after it started (route sets the time); what is left runs on
    # the extractive engine. A slow model that answers every call cost 150-310 s a question here.
    run_deadline_s: float = field(default_factory=lambda: _env_seconds("CITEGRAPH_RUN_DEADLINE_S", 600.0))
    # Recent mode's web search (WebSettings); None: recent mode re-weights the corpus only, no request.
    web: WebSettings | None = field(default_factory=configure_web)

    def __post_init__(self) -> None:
        if not self.corpora or "default" not in self.corpora:
            raise InputError("a deployment needs a corpus named 'default'")
        if self.llm_timeout_s <= 0 or self.llm_max_retries < 0:
            raise InputError("llm_timeout_s must be positive and llm_max_retries non-negative")
        if self.llm_concurrency is not None and self.llm_concurrency < 1:
            raise InputError(
                f"llm_concurrency (CITEGRAPH_LLM_CONCURRENCY) must be 1 or more, got {self.llm_concurrency}"
            )
        if self.llm_structured_output not in STRUCTURED_OUTPUT:
            raise InputError(
                f"unknown llm_structured_output {self.llm_structured_output!r} (CITEGRAPH_LLM_STRUCTURED_OUTPUT): "
                f"use {', '.join(STRUCTURED_OUTPUT)}"
            )
        if not self.run_deadline_s > 0:
            raise InputError(f"run_deadline_s (CITEGRAPH_RUN_DEADLINE_S) must be positive, got {self.run_deadline_s!r}")

    @classmethod
    def configure(cls, corpus_dir: str | None = None, **settings: Any) -> Deployment:
        """The environment's deployment with the given settings instead (None keeps the environment's);
        `corpus_dir` replaces the default corpus."""
        known = {f.name for f in fields(cls)}
        unknown = set(settings) - known
        if unknown:
            raise InputError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        given = {k: v for k, v in settings.items() if v is not None}
        if corpus_dir is not None:
            given["corpora"] = {**given.get("corpora", _corpora_from_env()), "default": str(corpus_dir)}
        return cls(**given)

    @property
    def has_llm(self) -> bool:
        return bool(self.llm_model and (self.llm_base_url or self.llm_api_key))

    @property
    def concurrency(self) -> int:
        """Model requests in flight at once: llm_concurrency, or 1 on a loopback endpoint, else 4."""
        if self.llm_concurrency is not None:
            return self.llm_concurrency
        host = urlsplit(self.llm_base_url or "").hostname or ""
        return 1 if host in ("localhost", "::1") or host.startswith("127.") else 4


# A query class's budgets are the Context fields with this suffix (passages_precise, sentences_broad, …).
_CLASS_SUFFIX: dict[str, str] = {"precise_fact": "precise", "broad_synthesis": "broad", "reasoning": "reasoning"}


@dataclass(kw_only=True)
class Context:
    """What a caller may choose for one run (LangGraph `context_schema`, Studio's configuration panel).

    Every field has a default, so `langgraph dev` and Studio need nothing beyond the question; each is
    checked against its bounds, so a client of the server cannot make a run unbounded. The operator's
    settings (corpora, model endpoint and key, timeouts) are the `deployment`, which is not part of the
    schema a client sees or can set.
    """

    corpus: str = knob("", "Which of the operator's corpora to answer from, by name; empty: the default one.")
    # What the model does when there is one: "all" nodes, or only "judge" whether the facts answer
    # the question (one short call; retrieval, facts and the answer stay extractive, quotes exact).
    llm_scope: LlmScope = field(
        default_factory=lambda: cast(LlmScope, _env("CITEGRAPH_LLM_SCOPE", "all")),
        metadata={"description": "With a model: 'all' nodes use it, or it only 'judge's whether the facts answer."},
    )
    # How the model gives a passage's facts (nodes/extract.py): the "numbers" of sentences the code
    # split and numbered (the code copies each quote, so no quote can be mistyped), or "quotes" it
    # copies itself (a small model's quotes were often not found in the passage: issue 16).
    llm_picks: LlmPicks = knob(
        "numbers", "With a model: it picks a passage's facts by sentence numbers (the code quotes) or by quotes."
    )
    # How the model writes the answer (nodes/write.py): it picks the facts that answer and the code
    # quotes them, the answer's value first ("quotes": every sentence is the documents' own), or it
    # writes sentences of its own, each kept only if the support check passes ("prose": a third of a
    # small model's kept sentences were still unsupported, issue 19).
    llm_write: LlmWrite = knob(
        "quotes",
        "With a model: it picks the facts that answer and the answer quotes them, or it writes 'prose' of its "
        "own (each sentence support-checked).",
    )
    # How extraction picks each passage's answer sentences (nodes/extract.py): the "learned"
    # answer-sentence scorer (reader.get_sentence_scorer, training/train_sentences.py), its probability
    # averaged with lexical relevance, or "lexical" relevance alone.
    sentence_ranker: SentenceRanker = knob(
        "learned", "How extraction picks a passage's answer sentences: learned scorer or lexical relevance."
    )
    # Who judges whether the facts answer when no model does (nodes/judge.py): "sentences", the learned
    # scorer's probability for the best covering sentence (extraction computed it: no further model
    # run; needs sentence_ranker="learned"), the "lexical" support score, or the "reader", a
    # cross-encoder that reads the best facts' whole passages (reader.py).
    judge: Judge = knob(
        "sentences", "Without a model, who judges whether the passages state the answer: sentences, lexical or reader."
    )
    judge_passages: int = knob(2, "Passages the judge reads: those of the best supported facts.", (1, 10))
    max_sub_queries: int = knob(5, "At most this many sub-queries (Agentic Hybrid RAG: 5).", (1, 5))
    # Retrieval: RetrievalSettings' knobs (their default, description and bounds are defined there).
    fusion: FusionMethod = _retrieval("fusion")
    w_dense: float = _retrieval("w_dense")
    w_sparse: float = _retrieval("w_sparse")
    rrf_k: int = _retrieval("rrf_k")
    k_dense: int = _retrieval("k_dense")
    k_sparse: int = _retrieval("k_sparse")
    temporal_weight: float = _retrieval("temporal_weight")
    # "recent" mode: a heavier temporal weight and, when enough passages fall in it, a date window.
    temporal_weight_recent: float = knob(0.6, "The temporal weight in recent mode.", (0, 1))
    recent_window_days: int = knob(
        730, "Recent mode keeps passages this many days old at most, when enough are.", (1, 36500)
    )
    fd_rerank: bool = _retrieval("fd_rerank")
    cutoff: bool = _retrieval("cutoff")
    cutoff_alpha: float = _retrieval("cutoff_alpha")
    dedup_threshold: float = _retrieval("dedup_threshold")
    # Passages per sub-query by query class, and the pooled evidence handed to extraction.
    passages_precise: int = knob(5, "Passages per sub-query for a precise-fact question.", (1, 20))
    passages_broad: int = knob(8, "Passages per sub-query for a broad-synthesis question.", (1, 20))
    passages_reasoning: int = knob(6, "Passages per sub-query for a reasoning question.", (1, 20))
    evidence_top_m: int = knob(8, "Pooled passages that facts are extracted from.", (1, 30))
    facts_per_passage: int = knob(3, "At most this many facts from one passage.", (1, 10))
    min_fact_relevance: float = knob(0.35, "A fact bears on the question from this relevance on.", (0, 1))
    # Abstain when the support for an answer falls below this: with judge="sentences" the sentence
    # scorer's probability, with "lexical" the score of text/answerability.py, with "reader" the
    # reader's probability that the passages state the answer (nodes/judge.py). Ranker, judge and
    # threshold chosen together on dev data of a mixture (missing evidence, SQuAD 2.0-style
    # adversarial, real documents; benchmarks/choose_judge.py) for what a user gets: right answers
    # minus wrong ones (session 10: the learned ranker and judge at 0.6, mean 0.105 against the lexical
    # score's 0.070 at 0.58; session 11's scorer, trained with missing-evidence negatives, 0.110 at
    # 0.62; chosen again in session 28, 0.55; docs/BENCHMARKS.md).
    abstain_threshold: float | None = knob(
        None,
        f"Abstain below this support, whoever judges (a model too); empty: the judge's own ({JUDGE_THRESHOLDS_TEXT}, "
        "a model model_abstain_threshold).",
        (0, 1),
    )
    # The same for a model's judgement (its probability of "yes" runs on a scale of its own): the value
    # measured for the local model (docs/BENCHMARKS.md "Abstention").
    # Chosen on the dev mixture with the judge prompt that fences its passages (session 13,
    # BENCHMARKS.md "The model judge's threshold"): 0.58, where 0.45 (chosen before the fence) let the
    # local model answer more missing-evidence questions.
    model_abstain_threshold: float = knob(0.58, "Abstain below this probability when a model judges.", (0, 1))
    # With llm_write "quotes" the model is not asked to judge: it is shown the facts and names those that
    # state the answer, or none (answer/compose.py). Below this support by the extractive judge the
    # question abstains without asking it; above, the model's choice decides. Chosen on the dev mixture
    # with the local model (realdocs2, SQuAD gold-removed and adversarial dev samples, 70 questions; right
    # minus 1.5 x wrong answers, the same choice at 1 and 2): 0.43-0.45 best, the upper end kept
    # (precision first); 0.3 let in two wrong answers on realdocs2 and three unanswerable ones
    # (docs/BENCHMARKS.md, session 23).
    pick_threshold: float = knob(
        0.45,
        "With a model that picks the facts that answer (llm_write 'quotes'): abstain below this support "
        "(the judge's score) without asking it; above, its pick decides.",
        (0, 1),
    )
    # A model's sentence passes the lexical floor (every name, number and quoted term in its cited facts or
    # the question), then the learned support check (reader.get_support_checker, trained on VitaminC) must
    # give it at least this (issue 19; chosen on one half of the labelled model sentences, docs/BENCHMARKS.md).
    support_check: float = knob(
        SUPPORT_CHECK,
        "With a model: a sentence it writes needs at least this probability that its cited quotes say it "
        "(the learned support check); 0: the lexical floor only.",
        (0, 1),
    )
    # Contradictions: numbers within this relative difference (or one a rounding of the other)
    # disagree only in a detail (minor).
    minor_relative_difference: float = knob(
        0.01, "Numbers this close (relative) disagree only in a detail (a minor conflict).", (0, 0.5)
    )
    max_reconcile_rounds: int = knob(
        MAX_RECONCILE_ROUNDS, "Targeted re-retrieval rounds for open conflicts (at most 2).", (0, MAX_RECONCILE_ROUNDS)
    )
    # Answer length by query class (sentences).
    sentences_precise: int = knob(2, "Answer sentences for a precise-fact question.", (1, 10))
    sentences_broad: int = knob(5, "Answer sentences for a broad-synthesis question.", (1, 10))
    sentences_reasoning: int = knob(4, "Answer sentences for a reasoning question.", (1, 10))
    as_of: str | None = knob(None, "Measure ages from this date (YYYY, YYYY-MM or YYYY-MM-DD); empty: today.")
    # Recent mode with the operator's web search on: pages read per sub-query (each one request).
    web_pages: int = knob(
        3, "Recent mode with web search on: result pages read per sub-query; 0: the corpus only.", (0, 10)
    )
    # The operator's settings. Not in the JSON schema (so the server drops it from a client's context)
    # and never printed (it holds the model's key).
    deployment: SkipJsonSchema[Deployment] = field(default_factory=Deployment, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.deployment, Deployment):
            raise InputError("deployment is the operator's and cannot be set in a run's context")
        if self.llm_scope not in LLM_SCOPES:
            choices = " or ".join(LLM_SCOPES)
            raise InputError(f"unknown llm_scope {self.llm_scope!r} (CITEGRAPH_LLM_SCOPE): use {choices}")
        if self.judge not in JUDGES:
            raise InputError(f"unknown judge {self.judge!r}: use {', '.join(JUDGES)}")
        if self.llm_picks not in LLM_PICKS:
            raise InputError(f"unknown llm_picks {self.llm_picks!r}: use {' or '.join(LLM_PICKS)}")
        if self.llm_write not in LLM_WRITES:
            raise InputError(f"unknown llm_write {self.llm_write!r}: use {' or '.join(LLM_WRITES)}")
        if self.sentence_ranker not in SENTENCE_RANKERS:
            choices = " or ".join(SENTENCE_RANKERS)
            raise InputError(f"unknown sentence_ranker {self.sentence_ranker!r}: use {choices}")
        if self.judge == "sentences" and self.sentence_ranker != "learned":
            raise InputError(
                "judge 'sentences' reads the learned scorer's probabilities: "
                "set sentence_ranker='learned', or judge='lexical' with it"
            )
        if self.fusion not in FUSIONS:
            raise InputError(f"unknown fusion {self.fusion!r}: use {', '.join(FUSIONS)}")
        for f in fields(self):
            value, bounds = getattr(self, f.name), f.metadata.get("bounds")
            if f.type == "bool" and not isinstance(value, bool):
                raise InputError(f"{f.name} must be true or false, got {value!r}")
            if bounds is None or (value is None and f.default is None):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"{f.name} must be a number, got {value!r}")
            if f.type == "int" and not isinstance(value, int):
                raise InputError(f"{f.name} must be a whole number, got {value!r}")
            lo, hi = bounds
            if not lo <= value <= hi:
                raise InputError(f"{f.name} must be between {lo} and {hi}, got {value!r}")
        for name in ("corpus", "as_of"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise InputError(f"{name} must be a string, got {getattr(self, name)!r}")
        if self.corpus and self.corpus not in self.deployment.corpora:
            names = ", ".join(sorted(self.deployment.corpora))
            raise InputError(f"unknown corpus {self.corpus!r}: the server has {names}")

    def threshold(self, source: str, model_picks: bool = False) -> float:
        """Support below which to abstain, for the judge whose score it is (`source`): the one given, else
        that judge's own; `pick_threshold` when a model then picks the facts that answer (or none)."""
        if self.abstain_threshold is not None:
            return self.abstain_threshold
        if source == "model":
            return self.model_abstain_threshold
        if model_picks:
            return self.pick_threshold
        return JUDGE_THRESHOLDS.get(source, JUDGE_THRESHOLDS[self.judge])

    def passages(self, qclass: QueryClass) -> int:
        """Passages per sub-query for a question of this class (passages_precise, _broad, _reasoning)."""
        return int(getattr(self, f"passages_{_CLASS_SUFFIX[qclass]}"))

    def sentences(self, qclass: QueryClass) -> int:
        """At most this many answer sentences for a question of this class (sentences_precise, …)."""
        return int(getattr(self, f"sentences_{_CLASS_SUFFIX[qclass]}"))

    @property
    def corpus_dir(self) -> str:
        return self.deployment.corpora[self.corpus or "default"]

    @property
    def chroma_url(self) -> str | None:
        return self.deployment.chroma_url

    @property
    def has_llm(self) -> bool:
        return self.deployment.has_llm

    def retrieval(self, top_m: int, temporal_weight: float | None = None) -> RetrievalSettings:
        knobs = {name: getattr(self, name) for name in RETRIEVAL_KNOBS}
        if temporal_weight is not None:
            knobs["temporal_weight"] = temporal_weight
        return RetrievalSettings(top_m=top_m, **knobs)


# What the LangGraph server itself puts beside a client's settings when it builds a run's context from
# `config["configurable"]` (a client of the older API): ids and its own bookkeeping, not settings.
_SERVER_KEYS = frozenset(
    {"thread_id", "run_id", "graph_id", "assistant_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "user_id"}
    | {"cron_id"}
)


def check_run_settings(given: Mapping[str, Any]) -> None:
    """Refuse, by name, a run setting `Context` does not have. The LangGraph server drops such keys
    before the graph sees them, so `context={"corpus_name": "vault"}` would quietly answer from the
    default corpus, and `{"llm_base_url": ...}` would look accepted."""
    settable = {f.name for f in fields(Context) if f.name != "deployment"}
    prefixes = ("__", "langgraph_", "langsmith-", "x-")  # the server's and LangSmith's own
    unknown = sorted(k for k in given if k not in settable and k not in _SERVER_KEYS and not k.startswith(prefixes))
    if not unknown:
        return
    operator_keys = {f.name for f in fields(Deployment)} | {"deployment", "corpus_dir"}
    operator = [k for k in unknown if k in operator_keys]
    why = " (the operator's settings, set where the server starts, not per run)" if operator else ""
    raise InputError(f"unknown run setting(s): {', '.join(unknown)}{why}; a run may set: {', '.join(sorted(settable))}")
