"""The models run through onnxruntime from exports cached on disk (onnx_cache.py): the same word pieces,
the same vectors and probabilities as the torch reference, a damaged cache file exported again, and a
process that asks a question with the exports in place never imports torch (the cold start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from citegraph.embed import Embedder, default_model_path
from citegraph.ingest.pipeline import ingest
from citegraph.onnx_cache import bert_feeds, default_cache_dir
from citegraph.reader import SENTENCE_WEIGHTS, SUPPORT_WEIGHTS, Reader, get_sentence_scorer, get_support_checker

LONG_QUESTION = ("How tall is Mount Etna, the volcano on the east coast of Sicily? " * 32)[:2000]
PAIRS = [
    ("How tall is Mount Etna?", "Mount Etna is an active stratovolcano, standing 3,357 metres tall."),
    (LONG_QUESTION, "A short passage."),  # the question is cut
    ("Who drones?", "A honeybee colony contains a queen, workers and drones. " * 40),  # the passage is cut
    ("Naïve café — “quoted”?", "Héllo wörld\u00a0with\ttabs and ümlauts."),
]


def test_the_rust_tokenizer_gives_the_word_pieces_transformers_gives():
    """The ONNX path tokenizes with `tokenizers` alone; transformers' tokenizer is the reference."""
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(str(default_model_path()))
    scorer = get_sentence_scorer()
    ref = hf([q for q, _ in PAIRS], [p for _, p in PAIRS], truncation="longest_first", max_length=256, padding=True)
    ours = bert_feeds(scorer._tokenizer, PAIRS)
    texts = [p for _, p in PAIRS]
    ref_texts = hf(texts, truncation=True, max_length=256, padding=True)
    ours_texts = bert_feeds(Embedder()._tokenizer, texts)
    for key in ("input_ids", "attention_mask", "token_type_ids"):
        assert np.array_equal(np.array(ref[key]), ours[key]), key
        assert np.array_equal(np.array(ref_texts[key]), ours_texts[key]), key


def test_onnx_and_torch_agree_on_vectors_and_probabilities(embedder):
    assert embedder._session is not None, "the default embedder runs through onnxruntime"
    texts = [p for _, p in PAIRS]
    torch_vecs = Embedder(use_onnx=False).encode(texts)
    assert np.allclose(embedder.encode(texts), torch_vecs, atol=1e-5)
    for scorer, weights in [(get_sentence_scorer(), SENTENCE_WEIGHTS), (get_support_checker(), SUPPORT_WEIGHTS)]:
        assert scorer._session is not None, f"{weights.name} runs through onnxruntime"
        reference = Reader(weights=weights, use_onnx=False)
        for question, passage in PAIRS:
            ours = scorer.probabilities(question, [passage, "Bees."])
            assert np.allclose(ours, reference.probabilities(question, [passage, "Bees."]), atol=1e-5)


def test_a_damaged_export_is_made_again(tmp_path: Path):
    Embedder(cache_dir=tmp_path)
    (onnx,) = tmp_path.glob("*.onnx")
    size = onnx.stat().st_size
    onnx.write_bytes(b"\0" * size)  # same size: only the probe can tell
    again = Embedder(cache_dir=tmp_path)
    assert again._session is not None and onnx.read_bytes()[:1] != b"\0"
    record = json.loads(onnx.with_suffix(".json").read_text())
    assert record["size"] == onnx.stat().st_size and record["max_difference"] <= 1e-4


def test_asking_with_the_exports_in_place_imports_no_torch(tmp_path: Path, doc_folder: Path, embedder):
    get_sentence_scorer()  # the exports exist in the default cache (this process made or checked them)
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    code = (
        "import sys\n"
        "from citegraph import ask\n"
        f"a = ask('How tall is Mount Etna?', corpus={str(corpus)!r})\n"
        "print(a.answer)\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(default_cache_dir().parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    answer, imported = out.stdout.strip().splitlines()[-2:]
    assert "3,357" in answer
    assert imported == "[]", f"loaded for a question: {imported}"


@pytest.mark.parametrize("broken", ["record", "size", "probe"])
def test_a_stale_record_sends_the_file_back_to_export(tmp_path: Path, broken: str):
    Reader(weights=SENTENCE_WEIGHTS, cache_dir=tmp_path)
    (record,) = tmp_path.glob("*.json")
    known = json.loads(record.read_text())
    if broken == "record":
        record.write_text("{not json")
    elif broken == "size":
        record.write_text(json.dumps({**known, "size": known["size"] + 1}))
    else:  # a model that loads but answers otherwise than the export recorded: only the probe can tell
        record.write_text(json.dumps({**known, "probe": [p + 0.5 for p in known["probe"]]}))
    reader = Reader(weights=SENTENCE_WEIGHTS, cache_dir=tmp_path)
    assert reader._session is not None
    again = json.loads(record.read_text())
    assert again["size"] == known["size"] and again["probe"] == pytest.approx(known["probe"], abs=1e-6)


def test_encoding_reports_progress_as_each_batch_is_done(embedder):
    """Ingest's progress moves every 32 passages, not once per 512-passage write batch (a bar sat at 0 %
    for ~80 s)."""
    done: list[int] = []
    vecs = embedder.encode([f"passage number {i}" for i in range(70)], done=done.append)
    assert done == [32, 32, 6] and vecs.shape == (70, embedder.identity.dim)
