"""Every knob of citegraph, with the defaults from DESIGN.md, in one place.

`ChunkingSettings` and `RetrievalSettings` are plain frozen dataclasses used by ingestion and the
retrievers (which know nothing of LangGraph). The graph's `Context` (added with the graph) carries
the same knobs for LangGraph's `context_schema`. Nothing else in the package reads the environment
for configuration.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, cast

from citegraph.errors import InputError

FusionMethod = Literal["rrf", "minmax", "zscore"]
SparseBackend = Literal["bm25s", "rank-bm25"]

# all-MiniLM-L6-v2 reads at most 256 word pieces, two of which are [CLS] and [SEP].
EMBEDDER_WINDOW = 256


@dataclass(frozen=True)
class ChunkingSettings:
    """How documents become sections (context for extraction) and passages (retrieval units)."""

    # NightFeats: ~700-token sections with 100 tokens of overlap, following the text's structure.
    section_tokens: int = 700
    section_overlap: int = 100
    # A passage must fit the embedder's window (nothing silently truncated). all-MiniLM-L6-v2 was
    # trained on 128-piece inputs; passages somewhat longer than that still embed well (measured in
    # docs/BENCHMARKS.md) and keep a paragraph together for BM25.
    passage_tokens: int = 200
    window_tokens: int = EMBEDDER_WINDOW

    def __post_init__(self) -> None:
        if not 16 <= self.passage_tokens <= self.window_tokens - 2:
            raise InputError(
                f"passage_tokens must be between 16 and {self.window_tokens - 2} "
                f"(the embedder's window minus [CLS]/[SEP]), got {self.passage_tokens}"
            )
        if self.section_tokens < self.passage_tokens:
            raise InputError("section_tokens must be at least passage_tokens")
        if not 0 <= self.section_overlap < self.section_tokens // 2:
            raise InputError("section_overlap must be between 0 and half of section_tokens")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# The RetrievalSettings fields that Context (so that Studio shows them) and the CLI options repeat
# under the same names; Context.retrieval() and the CLI build RetrievalSettings from them.
RETRIEVAL_KNOBS = (
    "k_dense",
    "k_sparse",
    "fusion",
    "w_dense",
    "w_sparse",
    "rrf_k",
    "temporal_weight",
    "fd_rerank",
    "cutoff",
    "cutoff_alpha",
    "dedup_threshold",
)

# Source-tier weights a_source for FD* (the FD* paper leaves them as placeholders to be fitted).
DEFAULT_TIER_WEIGHTS: dict[str, float] = {
    "primary": 1.2,  # peer-reviewed, official statistics, systematic reviews
    "secondary": 1.0,  # the default when a document says nothing
    "tertiary": 0.8,  # blogs, forums, press summaries
}


@dataclass(frozen=True)
class RetrievalSettings:
    """The hybrid retriever's knobs. See retrievers/hybrid.py for the order they apply in."""

    # Candidate depth of each retriever before fusion.
    k_dense: int = 50
    k_sparse: int = 50
    # Fusion. The seed's weighted RRF (0.9 dense / 0.1 sparse, K = 60) is available as
    # fusion="rrf" with w_dense=0.9, w_sparse=0.1. The default fuses the two scores of every candidate
    # (z-scored over the candidates, equal weights): it beat every RRF weighting and min-max on both
    # squad-dev and hotpotqa (sweep and reasons in docs/BENCHMARKS.md).
    fusion: FusionMethod = "zscore"
    w_dense: float = 0.5
    w_sparse: float = 0.5
    rrf_k: int = 60
    # Temporal-semantic rerank s' = (1-w)·s + w/(1 + age_days/365).
    temporal_weight: float = 0.3
    # Factual-density rerank of the cosine top-N: (1-fd_weight)·cos + fd_weight·FD*_rescaled.
    fd_rerank: bool = False
    fd_top: int = 20
    fd_weight: float = 0.5
    # Adaptive cutoff tau = max(tau_min, mu - alpha·sigma) over the candidates' final scores.
    cutoff: bool = True
    cutoff_alpha: float = 1.0
    cutoff_tau_min: float = 0.0
    # Near-duplicate removal: drop a passage whose cosine to a better-ranked kept one exceeds this.
    dedup_threshold: float = 0.85
    # How many passages to return.
    top_m: int = 10
    tier_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_TIER_WEIGHTS))

    def __post_init__(self) -> None:
        if self.fusion not in ("rrf", "minmax", "zscore"):
            raise InputError(f"unknown fusion {self.fusion!r}: use rrf, minmax or zscore")
        if self.w_dense < 0 or self.w_sparse < 0 or self.w_dense + self.w_sparse <= 0:
            raise InputError("fusion weights must be non-negative and not both zero")
        if not 0.0 <= self.temporal_weight <= 1.0:
            raise InputError("temporal_weight must be in [0, 1]")
        if not 0.0 <= self.fd_weight <= 1.0:
            raise InputError("fd_weight must be in [0, 1]")
        if self.top_m < 1 or self.k_dense < 0 or self.k_sparse < 0:
            raise InputError("top_m must be >= 1 and candidate depths >= 0")

    def with_(self, **changes: Any) -> RetrievalSettings:
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise InputError(f"unknown retrieval setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)


# The values Context accepts for llm_scope and judge; the CLIs offer the same.
LLM_SCOPES = ("all", "judge")
JUDGES = ("reader", "lexical")


def _env(name: str, default: str | None = None) -> str | None:
    import os

    return os.environ.get(name) or default


@dataclass
class Context:
    """The evidence graph's run-time configuration (LangGraph `context_schema`).

    Every field has a default; the model and corpus settings fall back to environment variables
    (CITEGRAPH_CORPUS, CITEGRAPH_CHROMA_URL, CITEGRAPH_LLM_BASE_URL, CITEGRAPH_LLM_MODEL,
    CITEGRAPH_LLM_API_KEY or OPENAI_API_KEY, CITEGRAPH_LLM_SCOPE) so that `langgraph dev` and Studio need no input
    beyond the question. This is the only place that reads the environment for configuration.
    """

    # Where the evidence lives.
    corpus_dir: str = field(default_factory=lambda: _env("CITEGRAPH_CORPUS", ".citegraph/demo") or "")
    chroma_url: str | None = field(default_factory=lambda: _env("CITEGRAPH_CHROMA_URL"))
    # The model. No base URL and no model: the extractive engine runs every node.
    llm_base_url: str | None = field(default_factory=lambda: _env("CITEGRAPH_LLM_BASE_URL"))
    llm_model: str | None = field(default_factory=lambda: _env("CITEGRAPH_LLM_MODEL"))
    llm_api_key: str | None = field(default_factory=lambda: _env("CITEGRAPH_LLM_API_KEY", _env("OPENAI_API_KEY")))
    llm_timeout_s: float = 120.0
    llm_max_retries: int = 1
    llm_temperature: float = 0.0
    # What the model does when there is one: "all" nodes, or only "judge" whether the facts answer
    # the question (one short call; retrieval, facts and the answer stay extractive, quotes exact).
    llm_scope: Literal["all", "judge"] = field(
        default_factory=lambda: cast(Literal["all", "judge"], _env("CITEGRAPH_LLM_SCOPE", "all"))
    )
    # Who reads the passages for the answer when no model does (nodes/judge.py): the "reader", a small
    # cross-encoder shipped with the package (reader.py), or only the "lexical" support score.
    judge: Literal["reader", "lexical"] = "reader"
    # Passages the judge reads: those of the best supported facts.
    judge_passages: int = 2
    # Decomposition (Agentic Hybrid RAG: at most 5 sub-queries).
    max_sub_queries: int = 5
    # Retrieval (see RetrievalSettings for the meaning of each).
    fusion: FusionMethod = "zscore"
    w_dense: float = 0.5
    w_sparse: float = 0.5
    rrf_k: int = 60
    k_dense: int = 50
    k_sparse: int = 50
    temporal_weight: float = 0.3
    # "recent" mode: a heavier temporal weight and, when enough passages fall in it, a date window.
    temporal_weight_recent: float = 0.6
    recent_window_days: int = 730
    fd_rerank: bool = False
    cutoff: bool = True
    cutoff_alpha: float = 1.0
    dedup_threshold: float = 0.85
    # Passages per sub-query by query class, and the pooled evidence handed to extraction.
    passages_precise: int = 5
    passages_broad: int = 8
    passages_reasoning: int = 6
    evidence_top_m: int = 8
    # Facts: at most this many per passage; a fact bears on the question from this relevance on.
    facts_per_passage: int = 3
    min_fact_relevance: float = 0.35
    # Abstain when the support for an answer falls below this: the probability that the passages state
    # the answer, the model's or the reader's, or with judge="lexical" the score of text/answerability.py
    # (nodes/judge.py). Chosen with the reader by Youden's J on the dev halves of a mixture (missing
    # evidence, SQuAD 2.0-style adversarial, real documents; benchmarks/choose_judge.py): 0.22. Most
    # abstentions now come from coverage (what the question names, the kind of value it asks), which
    # runs before any threshold; the reader's score then separates little, and a higher threshold
    # only refused real-document questions it could answer (docs/BENCHMARKS.md "Abstention").
    abstain_threshold: float = 0.22
    # The same for a model's judgement (its probability of "yes" runs on a scale of its own): the value
    # measured for the local model (docs/BENCHMARKS.md "Abstention").
    model_abstain_threshold: float = 0.45
    # Contradictions: numbers within this relative difference (or one a rounding of the other)
    # disagree only in a detail (minor).
    minor_relative_difference: float = 0.01
    max_reconcile_rounds: int = 2
    # Answer length by query class (sentences).
    sentences_precise: int = 2
    sentences_broad: int = 5
    sentences_reasoning: int = 4
    # Age is measured from this date (ISO); empty means today.
    as_of: str | None = None

    def __post_init__(self) -> None:
        if self.llm_scope not in LLM_SCOPES:
            choices = " or ".join(LLM_SCOPES)
            raise InputError(f"unknown llm_scope {self.llm_scope!r} (CITEGRAPH_LLM_SCOPE): use {choices}")
        if self.judge not in JUDGES:
            raise InputError(f"unknown judge {self.judge!r}: use {' or '.join(JUDGES)}")

    @property
    def has_llm(self) -> bool:
        return bool(self.llm_model and (self.llm_base_url or self.llm_api_key))

    def retrieval(self, top_m: int, temporal_weight: float | None = None) -> RetrievalSettings:
        knobs = {name: getattr(self, name) for name in RETRIEVAL_KNOBS}
        if temporal_weight is not None:
            knobs["temporal_weight"] = temporal_weight
        return RetrievalSettings(top_m=top_m, **knobs)
