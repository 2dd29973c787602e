"""The models run with onnxruntime from ONNX exports made once and cached on disk, so a process that
answers a question never imports torch, transformers or sentence-transformers: those took ~10 s of a
cold `citegraph ask` on a busy 2-core machine (BENCHMARKS.md, "Cold start"), onnxruntime and the Rust
tokenizers well under one.

An export is made with torch the first time a model is needed, checked against the torch model on
probe inputs (max difference ≤ 1e-4), and recorded beside the .onnx file with its size and its probe
outputs. Later loads check the file's size and rerun the probe without torch: a damaged or foreign file
is exported again. If the export cannot be made, callers fall back to torch, the reference.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

TOLERANCE = 1e-4


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citegraph"


def session(path: Path) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = min(2, os.cpu_count() or 1)
    opts.log_severity_level = 3
    # No busy-waiting between kernels: ingest runs a writer thread beside the encoder, and spinning
    # intra-op threads then fight it for the two cores.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def load_or_export(
    path: Path,
    export: Callable[[Path], None],
    probe: Callable[[Any], np.ndarray],
    reference: Callable[[], np.ndarray],
) -> Any:
    """An onnxruntime session of `path`. `export(tmp_path)` writes the ONNX file (with torch); `probe(s)`
    runs a session on fixed inputs; `reference()` gives the torch model's outputs on the same inputs."""
    record = path.with_suffix(".json")
    if path.exists() and record.exists():
        try:
            known = json.loads(record.read_text())
            if known.get("size") == path.stat().st_size:
                s = session(path)
                if np.allclose(probe(s), np.asarray(known["probe"]), atol=TOLERANCE, rtol=0):
                    return s
        except Exception as exc:  # a damaged file or record: export again
            log.warning("cached model %s unusable (%s); exporting again", path, exc)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    try:
        export(tmp)
        s = session(tmp)
        got = probe(s)
        diff = float(np.abs(got - reference()).max())
        if diff > TOLERANCE:
            raise RuntimeError(f"the ONNX export disagrees with torch (max difference {diff:.2e})")
        os.replace(tmp, path)  # atomic: a concurrent process never sees half a file
    finally:
        tmp.unlink(missing_ok=True)
    # Written whole and then renamed, like the model: another process reads the old record or the new.
    tmp_record = record.with_suffix(f".tmp{os.getpid()}")
    tmp_record.write_text(json.dumps({"size": path.stat().st_size, "max_difference": diff, "probe": got.tolist()}))
    os.replace(tmp_record, record)
    log.info("exported %s (max difference from torch %.1e)", path, diff)
    return session(path)


def bert_feeds(tokenizer: Any, batch: list[Any]) -> dict[str, np.ndarray]:
    """A BERT model's inputs for texts or (question, passage) pairs, from a `tokenizers.Tokenizer`."""
    encodings = tokenizer.encode_batch(batch)
    return {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }


def bert_tokenizer(model_dir: Path, max_length: int | None) -> Any:
    """The model's own Rust tokenizer (tokenizer.json) with the truncation the model reads (none when
    `max_length` is None) and padding to the longest in a batch; the file's fixed 128 is not ours."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    if max_length is None:
        tok.no_truncation()
        tok.no_padding()
        return tok
    tok.enable_truncation(max_length, strategy="longest_first")
    pad = (tok.padding or {}).get("pad_token", "[PAD]")
    tok.enable_padding(pad_id=tok.token_to_id(pad) or 0, pad_token=pad)
    return tok


def export_bert(model: Any, output: str, feeds: dict[str, np.ndarray], path: Path) -> None:
    """Export a transformers BERT-type model to ONNX: the three BERT inputs, one output (`output`:
    "last_hidden_state", per word piece, or "logits", per text), batch and length dynamic."""
    import warnings

    import torch

    names = ["input_ids", "attention_mask", "token_type_ids"]

    class _Output(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return getattr(out, output)

    axes = {n: {0: "batch", 1: "seq"} for n in names}
    axes[output] = {0: "batch", 1: "seq"} if output == "last_hidden_state" else {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            # eval: export puts a wrapper back in its own mode, and a new Module trains (dropout on)
            _Output(model).eval(),
            tuple(torch.from_numpy(feeds[n]) for n in names),
            str(path),
            input_names=names,
            output_names=[output],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
