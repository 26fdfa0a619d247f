"""Tests for engine.ratings (FIBS formula)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.ratings import (
    Rating,
    effective_length,
    k_factor,
    rate_match,
    upset_probability,
    win_probability,
)


def test_defaults() -> None:
    assert Rating() == Rating(1500.0, 0)


def test_equal_newcomers_five_point() -> None:
    w, l = rate_match(Rating(), Rating(), 5)
    assert w.rating - 1500 == pytest.approx(22.36, abs=0.01)
    assert l.rating - 1500 == pytest.approx(-22.36, abs=0.01)
    assert w.experience == 5 and l.experience == 5


def test_equal_newcomers_one_point() -> None:
    w, l = rate_match(Rating(), Rating(), 1)
    assert w.rating - 1500 == pytest.approx(10.00, abs=0.01)
    assert l.rating - 1500 == pytest.approx(-10.00, abs=0.01)


def test_money_game_counts_as_one_point() -> None:
    assert rate_match(Rating(), Rating(), 0) == rate_match(Rating(), Rating(), 1)
    w, l = rate_match(Rating(), Rating(), 0)
    assert w.experience == 1 and l.experience == 1


def test_favourite_wins() -> None:
    w, l = rate_match(Rating(1650, 800), Rating(1500, 50), 7)
    assert w.rating - 1650 == pytest.approx(4.10, abs=0.01)
    assert l.rating - 1500 == pytest.approx(-18.46, abs=0.01)
    assert (w.experience, l.experience) == (807, 57)


def test_underdog_wins() -> None:
    w, l = rate_match(Rating(1500, 50), Rating(1650, 800), 7)
    assert w.rating - 1500 == pytest.approx(29.16, abs=0.01)
    assert l.rating - 1650 == pytest.approx(-6.48, abs=0.01)


def test_k_uses_experience_before_match() -> None:
    # At 395 experience K = 1.05 (before the match); MacFIBS would use 1.0.
    assert k_factor(395) == pytest.approx(1.05)
    assert k_factor(0) == 5.0
    assert k_factor(400) == 1.0
    assert k_factor(10_000) == 1.0


def test_upset_probability_worked_value() -> None:
    assert upset_probability(150, 7) == pytest.approx(0.3877, abs=1e-4)
    assert upset_probability(0, 9) == 0.5
    assert win_probability(1650, 1500, 7) == pytest.approx(0.6123, abs=1e-4)
    assert win_probability(1500, 1650, 7) == pytest.approx(0.3877, abs=1e-4)


def test_negative_length_rejected() -> None:
    with pytest.raises(ValueError):
        effective_length(-1)


ratings = st.floats(min_value=500, max_value=2500, allow_nan=False)
experiences = st.integers(min_value=0, max_value=5000)
lengths = st.integers(min_value=0, max_value=25)


@given(ratings, experiences, ratings, experiences, lengths)
def test_property_direction_and_experience(rw: float, ew: int, rl: float, el: int, n: int) -> None:
    w, l = rate_match(Rating(rw, ew), Rating(rl, el), n)
    assert w.rating >= rw
    assert l.rating <= rl
    assert w.experience == ew + max(1, n)
    assert l.experience == el + max(1, n)
    # Bounded: at most 4 * 5 * sqrt(n) points either way.
    bound = 20 * max(1, n) ** 0.5 + 1e-9
    assert w.rating - rw <= bound and rl - l.rating <= bound


@given(ratings, ratings, lengths)
def test_property_equal_experience_is_zero_sum(rw: float, rl: float, n: int) -> None:
    w, l = rate_match(Rating(rw, 100), Rating(rl, 100), n)
    assert (w.rating - rw) == pytest.approx(rl - l.rating)
