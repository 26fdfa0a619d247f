"""Which bot process serves which guilds: Discord's shard rule, in Python and in SQL."""

from __future__ import annotations

from typing import Final

Shard = tuple[int, tuple[int, ...]]
"""(shard count, shard ids): the Discord shards one bot process serves."""

ORPHAN_AFTER: Final = 300.0
"""Seconds after which due work of other shards is taken over (their process may be down)."""

SHARD_SQL: Final = "(guild_id / 4194304) % ?"
""":func:`shard_of` in SQL (``guild_id >> 22`` is ``guild_id / 2**22`` for ids, which are positive)."""


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events, as Discord assigns them:
    ``(guild_id >> 22) % shard_count`` (direct messages, guild 0, go to shard 0)."""
    return (guild_id >> 22) % shard_count


def serves(shard: Shard | None, guild_id: int | None) -> bool:
    """Whether a process running ``shard`` (None: all of them) receives this guild's events."""
    return shard is None or shard_of(guild_id or 0, shard[0]) in shard[1]


def shard_clause(shard: Shard | None, column: str, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """SQL keeping rows of guilds on ``shard``, and rows of other shards overdue
    by :data:`ORPHAN_AFTER` on ``column`` (claims keep the work to once)."""
    if shard is None:
        return "", ()
    count, ids = shard
    if count < 1 or not ids:
        raise ValueError("a shard filter needs a shard count and at least one shard id")
    marks = ", ".join("?" for _ in ids)
    return (
        f" AND (({SHARD_SQL}) IN ({marks}) OR {column} <= ?)",
        (count, *ids, ts - ORPHAN_AFTER),
    )
