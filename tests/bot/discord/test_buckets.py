"""The one token bucket (bot.discord.buckets), which a member's cooldowns and the
dispatcher's pace both count with: over any window of t seconds, at most
burst + rate * t uses go ahead, whichever way they come."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.discord.buckets import TokenBucket

EPSILON = 1e-6

bursts = st.integers(1, 8).map(float)
rates = st.floats(0.1, 50.0)
gaps = st.lists(st.floats(0.0, 2.0), min_size=1, max_size=80)


def within_bound(starts: list[float], burst: float, rate: float) -> None:
    """Every window [starts[i], starts[j]] holds at most burst + rate * its length."""
    starts = sorted(starts)
    for i in range(len(starts)):
        for j in range(i, len(starts)):
            assert j - i + 1 <= burst + rate * (starts[j] - starts[i]) + EPSILON, (i, j, starts)


@given(burst=bursts, rate=rates, gaps=gaps)
def test_refusing_never_lets_more_than_burst_and_rate_through(burst: float, rate: float, gaps: list[float]) -> None:
    """As a cooldown: an empty bucket refuses, and says how long until a token."""
    now = 0.0
    bucket = TokenBucket(burst, now)
    went: list[float] = []
    for gap in gaps:
        now += gap
        wait = bucket.take(burst, rate, now)
        if wait == 0.0:
            went.append(now)
        else:
            assert wait > 0 and bucket.level(burst, rate, now + wait) >= 1.0 - EPSILON  # the wait it names is enough
    within_bound(went, burst, rate)


@given(burst=bursts, rate=rates, gaps=gaps, returned=st.lists(st.booleans(), max_size=80))
def test_promising_never_starts_more_than_burst_and_rate(
    burst: float, rate: float, gaps: list[float], returned: list[bool]
) -> None:
    """As the dispatcher's pace: every caller gets a turn, waiting for it; a turn given
    back (nothing to post) is not counted as a start."""
    now = 0.0
    bucket = TokenBucket(burst, now)
    starts: list[float] = []
    for n, gap in enumerate(gaps):
        now += gap
        wait = bucket.take(burst, rate, now, promise=True)
        assert wait >= 0.0
        if n < len(returned) and returned[n] and wait == 0.0:
            bucket.give_back(burst)
        else:
            starts.append(now + wait)
    within_bound(starts, burst, rate)


def test_a_full_bucket_lets_a_burst_go_then_one_per_interval() -> None:
    bucket = TokenBucket(3.0, 0.0)
    assert [bucket.take(3.0, 2.0, 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(3.0, 2.0, 0.0) == pytest.approx(0.5)  # refused: a token in half a second
    assert bucket.take(3.0, 2.0, 0.5) == 0.0
    assert bucket.take(3.0, 2.0, 0.5, promise=True) == pytest.approx(0.5)  # promised: wait for it
    assert bucket.take(3.0, 2.0, 0.5, promise=True) == pytest.approx(1.0)  # the next in turn after it
    assert bucket.level(3.0, 2.0, 100.0) == 3.0  # never more than the burst
