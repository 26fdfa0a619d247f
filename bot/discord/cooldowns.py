"""Cooldowns: one token bucket per member and command family, so nobody floods the bot.

Every command and button that costs CPU, database time or messages belongs to
a family (:data:`bot.config.COOLDOWN_FAMILIES`: ``challenge``, ``turn``,
``board``, ``lookup``, ``review``, ``hint``). A member's bucket of a family
(:class:`~bot.discord.buckets.TokenBucket`) holds ``uses`` tokens and refills at ``uses`` per ``seconds``: a burst of
``uses`` at once, then one every ``seconds / uses``. An empty bucket refuses
with how long until the next token ("Slow down: try again in 4 s.").

:class:`Cooldowns` is the rule, pure and synchronous (a clock is passed in).
:func:`hold` is the glue: it raises discord.py's
:class:`~discord.app_commands.CommandOnCooldown`, which the one error path
(:func:`bot.discord.errors.report`) answers privately. The cogs call it from
their ``interaction_check`` (slash commands name their family in
``@cooldown``), the table for button clicks. discord.py's own
``app_commands.checks.dynamic_cooldown`` keeps one bucket per command and
a fixed window; a family spans several commands and the buttons too.
Bots (and so the computer) are never held.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import discord
from discord import app_commands

from bot.discord.buckets import TokenBucket

T = TypeVar("T")

PRUNE_AT = 10_000
"""Buckets kept before the full (idle) ones are dropped: a crowd leaves no lasting memory."""


@dataclass(frozen=True, slots=True)
class Rate:
    """``uses`` in a burst, refilled at ``uses`` per ``seconds``."""

    uses: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.uses / self.seconds


class Cooldowns:
    """Token buckets per (family, member). Families without a rate are never held.

    :param rates: ``{family: Rate}``.
    :param clock: seconds, monotonic (tests pass their own).
    """

    def __init__(
        self, rates: dict[str, Rate] | Iterable[tuple[str, int, float]], clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not isinstance(rates, dict):
            rates = {family: Rate(uses, seconds) for family, uses, seconds in rates}
        self.rates: dict[str, Rate] = dict(rates)
        self.clock = clock
        self._buckets: dict[tuple[str, int], TokenBucket] = {}
        """(family, member) -> their bucket."""

    def take(self, family: str | None, member: int) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there is."""
        rate = self.rates.get(family or "")
        if rate is None:
            return 0.0
        now = self.clock()
        key = (family or "", member)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(float(rate.uses), now)
        wait = bucket.take(float(rate.uses), rate.per_second, now)
        if wait == 0.0 and len(self._buckets) > PRUNE_AT:
            self.prune()
        return wait

    def prune(self) -> None:
        """Forget the buckets that have refilled (they would start full anyway)."""
        now = self.clock()
        for key, bucket in list(self._buckets.items()):
            rate = self.rates.get(key[0])
            if rate is None or bucket.level(float(rate.uses), rate.per_second, now) >= rate.uses:
                del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


def hold(cooldowns: Cooldowns, family: str | None, user: discord.abc.User) -> None:
    """Take ``user``'s token of ``family``.

    :raises app_commands.CommandOnCooldown: when the bucket is empty.
    """
    if user.bot:
        return
    wait = cooldowns.take(family, user.id)
    if wait > 0:
        rate = cooldowns.rates[family or ""]
        raise app_commands.CommandOnCooldown(app_commands.Cooldown(rate.uses, rate.seconds), wait)


def cooldown(family: str) -> Callable[[T], T]:
    """Put a slash command in a family: ``@cooldown("turn")`` above ``@app_commands.command``."""

    def decorate(command: T) -> T:
        command.extras["cooldown"] = family  # type: ignore[attr-defined]
        return command

    return decorate


def family_of(interaction: discord.Interaction) -> str | None:
    """The family a slash command declared with :func:`cooldown`, None for none."""
    command = interaction.command
    return command.extras.get("cooldown") if command is not None else None
