"""Who may read a game by its number: its players, and whoever can see where it is played.

A game lives in a channel or a thread. Reading it by number (``/bg export``,
``/bg analysis``, ``/bgtools verify``, ``/bgtools replay``, another member's
``/bg history``) follows Discord's permissions: a player always; anyone else
only if they can view that channel, and for a private thread only if they
are in it or may manage threads. A channel the bot does not have in its cache
(deleted, an archived thread, another shard's server) shows the game to its
players only. To everyone else the game does not exist: the refusal reads
exactly like the answer for a number nobody played.

:func:`may_read` is the rule, pure; :func:`sight` gathers what it needs from
discord.py's cache (the guild's channels and threads, ``permissions_for``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import discord


@dataclass(frozen=True, slots=True)
class Sight:
    """What Discord says about one member and the channel of a game."""

    known: bool = False
    """The channel is in the bot's cache (else nothing below is known)."""
    can_view: bool = False
    """View Channel there (for a thread: in its parent)."""
    private_thread: bool = False
    manages_threads: bool = False
    in_thread: bool = False
    """A member of that (private) thread, as far as the bot can tell."""


NOTHING = Sight()


def may_read(players: Collection[int], viewer: int, sight: Sight) -> bool:
    """Whether ``viewer`` may read a game of ``players`` played where ``sight`` describes."""
    if viewer in players:
        return True
    if not (sight.known and sight.can_view):
        return False
    if sight.private_thread:
        return sight.manages_threads or sight.in_thread
    return True


def sight(
    guild: discord.Guild | None, channel_id: int, member: discord.abc.User, *, asked_in: int | None = None
) -> Sight:
    """What the cache of ``guild`` says about ``member`` and the channel or thread ``channel_id``.

    ``asked_in``: the channel the member asked from; asking from inside a
    private thread proves membership (Discord shows a private thread only to its
    members and those who manage threads), which the cache cannot always tell
    (the bot has no members intent).
    """
    channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
    if channel is None or not isinstance(member, discord.Member):
        return NOTHING
    try:
        permissions = channel.permissions_for(member)
    except discord.ClientException:  # a thread whose parent is not cached
        return NOTHING
    private = isinstance(channel, discord.Thread) and channel.type is discord.ChannelType.private_thread
    in_thread = private and (channel.id == asked_in or any(m.id == member.id for m in channel.members))  # type: ignore[union-attr]
    return Sight(
        known=True,
        can_view=permissions.view_channel,
        private_thread=private,
        manages_threads=permissions.manage_threads,
        in_thread=in_thread,
    )
