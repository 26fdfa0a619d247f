"""The one token bucket: a member's cooldowns (:mod:`bot.discord.cooldowns`) and the
dispatcher's pace (:mod:`bot.discord.dispatcher`) both count with it.

A bucket holds at most ``burst`` tokens and refills at ``rate`` tokens a second;
each use takes one. Over any window of ``t`` seconds at most ``burst + rate * t``
uses go ahead. The burst and the rate are passed at each use, not kept: the
dispatcher's pace changes with the load, and thousands of members' buckets
share their family's.
"""

from __future__ import annotations


class TokenBucket:
    """Tokens as of a moment (seconds on the caller's clock); a new bucket is full."""

    __slots__ = ("tokens", "counted_at")

    def __init__(self, burst: float, now: float) -> None:
        self.tokens = burst
        self.counted_at = now

    def level(self, burst: float, rate: float, now: float) -> float:
        """The tokens there are at ``now``."""
        return min(burst, self.tokens + (now - self.counted_at) * rate)

    def take(self, burst: float, rate: float, now: float, *, promise: bool = False) -> float:
        """Take a token: 0.0 if there is one, else the seconds until there is.

        An empty bucket refuses (the caller tries again later), unless
        ``promise``: then the token is promised and the caller waits the
        seconds returned, so that those waiting go in turn.
        """
        tokens = self.level(burst, rate, now)
        self.counted_at = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return 0.0
        if promise:
            self.tokens = tokens - 1.0
            return -self.tokens / rate
        self.tokens = tokens
        return (1.0 - tokens) / rate

    def give_back(self, burst: float) -> None:
        """Return a token taken for nothing (a use that made no request)."""
        self.tokens = min(burst, self.tokens + 1.0)
