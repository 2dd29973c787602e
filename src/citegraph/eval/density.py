"""`citegraph eval density`: the FD* length-confound check. FD_raw (claims per token) rewards short
passages by its denominator; FD* z-scores it within length bins. Pearson r (with p, scipy) of each
against passage length: FD* should show no significant correlation, overall or within a bin."""

from __future__ import annotations

from typing import Any

import numpy as np

from citegraph.retrievers.index import CorpusIndex
from citegraph.text.density import BINS, length_bins


def _pearson(x: np.ndarray, y: np.ndarray) -> dict[str, float | None]:
    from scipy.stats import pearsonr

    if len(x) < 3 or float(np.std(x)) == 0 or float(np.std(y)) == 0:
        return {"r": None, "p": None}
    res = pearsonr(x, y)
    return {"r": round(float(res.statistic), 4), "p": float(f"{float(res.pvalue):.4g}")}


def run_density(index: CorpusIndex, fd_raw: np.ndarray) -> dict[str, Any]:
    n_tokens = index.table.n_tokens.astype(np.float64)
    fd_star = index.table.fd_star
    bins = length_bins(index.table.n_tokens, index.density.edges)
    out: dict[str, Any] = {
        "n": len(n_tokens),
        "bin_edges_tokens": list(index.density.edges),
        "fd_raw_vs_length": _pearson(fd_raw, n_tokens),
        "fd_star_vs_length": _pearson(fd_star, n_tokens),
        "within_bins": {},
    }
    for b, name in enumerate(BINS):
        sel = bins == b
        out["within_bins"][name] = {
            "n": int(sel.sum()),
            "fd_raw_vs_length": _pearson(fd_raw[sel], n_tokens[sel]),
            "fd_star_vs_length": _pearson(fd_star[sel], n_tokens[sel]),
        }
    return out
