"""Fusion scores, asserted exactly."""

import pytest

from citegraph.retrievers.fusion import fuse, minmax, rrf_max, weighted_rrf, weighted_scores


def test_weighted_rrf_exact_scores():
    dense = [("a", 0.9), ("b", 0.8), ("c", 0.7)]
    sparse = [("c", 12.0), ("x", 9.0), ("a", 3.0)]
    got = weighted_rrf([dense, sparse], [0.9, 0.1], k=60)
    assert got["a"] == pytest.approx(0.9 / (60 + 1) + 0.1 / (60 + 3), abs=1e-15)
    assert got["b"] == pytest.approx(0.9 / (60 + 2), abs=1e-15)
    assert got["c"] == pytest.approx(0.9 / (60 + 3) + 0.1 / (60 + 1), abs=1e-15)
    assert got["x"] == pytest.approx(0.1 / (60 + 2), abs=1e-15)


def test_rrf_fusion_is_scaled_into_unit_interval():
    dense = [("a", 0.9)]
    sparse = [("a", 5.0)]
    assert fuse(dense, sparse, "rrf", 0.9, 0.1, 60)["a"] == pytest.approx(1.0)
    assert rrf_max([0.9, 0.1], 60) == pytest.approx(1 / 61)
    # Only the dense list answered: a dense rank 1 is still the best possible score.
    assert fuse(dense, [], "rrf", 0.9, 0.1, 60)["a"] == pytest.approx(1.0)


def test_minmax_and_weighted_scores():
    assert minmax({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert minmax({"a": 7.0}) == {"a": 1.0}
    dense = [("a", 0.8), ("b", 0.6), ("c", 0.4)]
    sparse = [("b", 10.0), ("d", 5.0)]
    got = weighted_scores([dense, sparse], [0.5, 0.5], "minmax")
    # a: dense 1.0, missing from sparse -> sparse min (0.0)
    assert got["a"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert got["b"] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert got["c"] == pytest.approx(0.0)
    assert got["d"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.0)


def test_weights_change_the_winner():
    dense = [("a", 0.9), ("b", 0.1)]
    sparse = [("b", 20.0), ("a", 1.0)]
    assert max(fuse(dense, sparse, "minmax", 0.9, 0.1).items(), key=lambda kv: kv[1])[0] == "a"
    assert max(fuse(dense, sparse, "minmax", 0.1, 0.9).items(), key=lambda kv: kv[1])[0] == "b"


def test_unknown_method_is_an_error():
    with pytest.raises(ValueError, match="unknown fusion"):
        fuse([], [], "max", 1, 1)


def test_full_score_fusion_uses_both_scores_of_every_candidate():
    import numpy as np

    from citegraph.retrievers.fusion import fuse_full

    cos = np.array([0.9, 0.5, 0.8])
    bm25 = np.array([0.0, 10.0, 5.0])  # the first passage shares no term with the query
    got = fuse_full(cos, bm25, "minmax", 0.5, 0.5)
    assert list(got) == pytest.approx([0.5 * 1.0 + 0.0, 0.0 + 0.5 * 1.0, 0.5 * 0.75 + 0.5 * 0.5])
    z = fuse_full(cos, bm25, "zscore", 0.5, 0.5)
    # z-scores (population sd): cosine (5, -7, 2) / sqrt(26), BM25 (-1, 1, 0) * sqrt(1.5); their mean is
    # rescaled into [0, 1] (z-scores are unbounded).
    zc, zb = np.array([5, -7, 2]) / np.sqrt(26), np.array([-1, 1, 0]) * np.sqrt(1.5)
    mean = (zc + zb) / 2
    assert list(z) == pytest.approx(list((mean - mean.min()) / (mean.max() - mean.min())))
    assert list(z) == pytest.approx([0.0, 0.1510004, 1.0], abs=1e-7)
