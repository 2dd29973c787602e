"""The settings ingestion and the retrievers read, which know nothing of LangGraph or of a run:
how documents are chunked, how the hybrid retriever ranks, the source-tier weights; and `knob`, how a
setting a run may choose is declared (its description is what Studio and the CLI's help show). The
graph's settings (`Context`, `Deployment`) are in context.py, which repeats the retrieval knobs a run
may choose from here."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, get_args

from citegraph.errors import InputError

FusionMethod = Literal["rrf", "minmax", "zscore"]
SparseBackend = Literal["bm25s", "rank-bm25"]
# The values each Literal allows, spelled once (the checks below and the CLI's choices read them).
FUSIONS: tuple[str, ...] = get_args(FusionMethod)
SPARSE_BACKENDS: tuple[str, ...] = get_args(SparseBackend)

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


def knob(default: Any, description: str, bounds: tuple[float, float] | None = None) -> Any:
    """A setting a run may choose: its description is what Studio and the CLI's help show; `bounds` are
    checked for every run (Context.__post_init__)."""
    return field(default=default, metadata={"description": description, "bounds": bounds})


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
    k_dense: int = knob(50, "Candidates from the dense retriever before fusion.", (0, 500))
    k_sparse: int = knob(50, "Candidates from BM25 before fusion.", (0, 500))
    # Fusion. The seed's weighted RRF (0.9 dense / 0.1 sparse, K = 60) is available as
    # fusion="rrf" with w_dense=0.9, w_sparse=0.1. The default fuses the two scores of every candidate
    # (z-scored over the candidates, equal weights): it beat every RRF weighting and min-max on both
    # squad-dev and hotpotqa (sweep and reasons in docs/BENCHMARKS.md).
    fusion: FusionMethod = knob("zscore", "How dense and BM25 scores are fused: zscore, minmax or rrf.")
    w_dense: float = knob(0.5, "Weight of the dense (MiniLM) retriever in fusion.", (0, 1))
    w_sparse: float = knob(0.5, "Weight of the BM25 retriever in fusion.", (0, 1))
    rrf_k: int = knob(60, "The K of reciprocal-rank fusion.", (1, 1000))
    # Temporal-semantic rerank s' = (1-w)·s + w/(1 + age_days/365).
    temporal_weight: float = knob(0.3, "Weight w of recency in s' = (1-w)s + w/(1+age/365), with --as-of.", (0, 1))
    # Factual-density rerank of the cosine top-N: (1-fd_weight)·cos + fd_weight·FD*_rescaled.
    fd_rerank: bool = knob(False, "Rerank the top candidates by factual density (FD*).")
    fd_top: int = 20
    fd_weight: float = 0.5
    # Adaptive cutoff tau = max(tau_min, mu - alpha·sigma) over the candidates' final scores.
    cutoff: bool = knob(True, "Adaptive score cutoff: drop candidates below mean - alpha x std.")
    cutoff_alpha: float = knob(1.0, "The alpha of the adaptive cutoff.", (0, 5))
    cutoff_tau_min: float = 0.0
    # Near-duplicate removal: drop a passage whose cosine to a better-ranked kept one exceeds this.
    dedup_threshold: float = knob(0.85, "Drop a passage this similar (cosine) to a better one.", (0, 1))
    # How many passages to return.
    top_m: int = 10
    tier_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_TIER_WEIGHTS))

    def __post_init__(self) -> None:
        if self.fusion not in FUSIONS:
            raise InputError(f"unknown fusion {self.fusion!r}: use {', '.join(FUSIONS)}")
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


# The RetrievalSettings a run may choose (those with a description): Context repeats them by name, with
# their default, description and bounds from here (`_retrieval`), so that Studio shows them; the CLI
# offers them with the same help. Context.retrieval() and the CLI build RetrievalSettings from them.
RETRIEVAL_KNOBS = tuple(f.name for f in fields(RetrievalSettings) if "description" in f.metadata)


def describe(name: str) -> str:
    """A retrieval knob's description (the CLI's help)."""
    return str(RetrievalSettings.__dataclass_fields__[name].metadata["description"])
