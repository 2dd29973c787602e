"""The rerank formulas, the adaptive cutoff and near-duplicate removal."""

from datetime import date

import numpy as np
import pytest

from citegraph.retrievers.rerank import above_cutoff, adaptive_cutoff, dedup, fd_rerank, recency, temporal_rerank


def test_recency_formula_and_future_dates():
    as_of = date(2021, 1, 1)
    r = recency(np.array([20210101, 20200101, 20230101, 0]), as_of)
    assert r[0] == pytest.approx(1.0)
    assert r[1] == pytest.approx(1 / (1 + 366 / 365))  # 2020 was a leap year
    assert r[2] == pytest.approx(1.0)  # dated after as_of: age 0
    assert np.isnan(r[3])


def test_temporal_rerank_exact():
    as_of = date(2021, 1, 1)
    s = np.array([0.8, 0.6])
    got = temporal_rerank(s, np.array([20110101, 20210101]), as_of, 0.3)
    age0 = (date(2021, 1, 1) - date(2011, 1, 1)).days
    assert got[0] == pytest.approx(0.7 * 0.8 + 0.3 / (1 + age0 / 365))
    assert got[1] == pytest.approx(0.7 * 0.6 + 0.3 * 1.0)
    assert got[1] > got[0]  # the recent passage overtakes the old one


def test_undated_passages_are_neither_boosted_nor_dropped():
    as_of = date(2021, 1, 1)
    dates = np.array([20210101, 20110101, 0])
    got = temporal_rerank(np.array([0.5, 0.5, 0.5]), dates, as_of, 0.3)
    rec = recency(dates[:2], as_of)
    assert got[2] == pytest.approx(0.7 * 0.5 + 0.3 * float(np.median(rec)))
    assert got[1] < got[2] < got[0]
    # Nothing dated at all: scores are unchanged.
    assert list(temporal_rerank(np.array([0.4, 0.2]), np.array([0, 0]), as_of, 0.3)) == [0.4, 0.2]


def test_fd_rerank_exact():
    cos = np.array([0.9, 0.7, 0.8])
    fd = np.array([-1.0, 3.0, 1.0])
    got = fd_rerank(cos, fd, 0.5)
    assert list(got) == pytest.approx([0.5 * 0.9 + 0.5 * 0.0, 0.5 * 0.7 + 0.5 * 1.0, 0.5 * 0.8 + 0.5 * 0.5])
    assert int(np.argmax(got)) == 1  # the dense-in-facts passage rises to the top


def test_adaptive_cutoff():
    s = np.array([0.9, 0.8, 0.5, 0.1])
    tau = adaptive_cutoff(s, alpha=1.0, tau_min=0.0)
    assert tau == pytest.approx(s.mean() - s.std())
    assert adaptive_cutoff(s, alpha=1.0, tau_min=0.6) == 0.6
    assert adaptive_cutoff(np.array([]), 1.0, 0.2) == 0.2


def test_a_score_at_the_cutoff_is_kept_whatever_the_float_noise():
    scores = np.array([0.4858353588317891, 0.8894878343490003])
    tau = adaptive_cutoff(scores, 1.0, 0.0)
    assert tau > scores.min()  # mean - std is the lower score, by arithmetic; 5.6e-17 above it in floats
    assert above_cutoff(scores, tau) == [1, 0]
    assert above_cutoff(np.array([0.9, 0.2, 0.5]), 0.45) == [0, 2]


def test_dedup_keeps_the_better_ranked_of_near_duplicates():
    e = np.array([[1.0, 0.0], [0.99, 0.141], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    kept, dropped = dedup([0, 1, 2, 3], e, threshold=0.85)
    assert kept == [0, 2, 3]
    assert dropped == {1: 0}
    # Ranked the other way round, the other copy survives.
    kept, dropped = dedup([1, 0, 2], e, threshold=0.85)
    assert kept == [1, 2] and dropped == {0: 1}
    assert dedup([0, 2, 3], e, 0.85, limit=2)[0] == [0, 2]
