"""Who may read a game by its number: its players, and whoever can see where it is played.

A game lives in a channel or a thread. Reading it by number (``/bg export``,
``/bg analysis``, ``/bgtools verify``, ``/bgtools replay``, another member's
``/bg history``) follows Discord's permissions: a player always; anyone else
only if they can view that channel, and for a private thread only if they
are in it or may manage threads. A channel the bot does not have in its cache
(deleted, an archived thread, another shard's server) shows the game to its
players only. To everyone else the game does not exist: the refusal reads
exactly like the answer for a number nobody played. A member who may read it
but asks where not everyone could see its channel gets the answer privately.

:func:`may_read` is the rule, pure; :func:`sight` gathers what it needs from
discord.py's cache (the guild's channels and threads, ``permissions_for``).

The same rule, for everyone who reads an answer: a position from a game (a
puzzle), a tournament, shown to a member privately follows what that member may
read; shown in a channel, it also needs the game's channel to be at least as
visible as the channel the answer is read in (:func:`as_visible`). The core gets
the decision as a predicate (:func:`for_member`, :func:`for_channel`), never a
Discord type.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import discord

from bot.core.audience import Sees


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


def _base(channel: object) -> object:
    """A thread's parent (whose permissions it takes), else the channel itself."""
    return channel.parent if isinstance(channel, discord.Thread) else channel


def _everyone_views(channel: object, guild: discord.Guild) -> bool:
    """``@everyone`` may view ``channel`` and no role or member is kept out by an overwrite."""
    try:
        if not channel.permissions_for(guild.default_role).view_channel:  # type: ignore[attr-defined]
            return False
    except (AttributeError, discord.ClientException):
        return False
    overwrites = getattr(channel, "overwrites", {}) or {}
    return not any(o.view_channel is False for o in overwrites.values())


def as_visible(guild: discord.Guild | None, channel_id: int, than: int | None) -> bool:
    """Whether everyone who can read channel ``than`` can see channel or thread ``channel_id``.

    The same channel; a public thread and its channel (either way); or a channel
    every member can view. A private thread only for itself; a channel the bot does
    not know, never. (Conservative: without the members intent the bot cannot
    list who reads a channel, so a hidden channel counts only for itself.)
    """
    if guild is None:
        return False
    if channel_id == than:
        return True
    channel = guild.get_channel_or_thread(channel_id)
    if channel is None:
        return False
    if isinstance(channel, discord.Thread) and channel.type is discord.ChannelType.private_thread:
        return False
    base = _base(channel)
    if base is None:
        return False
    where = guild.get_channel_or_thread(than) if than is not None else None
    if where is not None and _base(where) is base:
        return True  # read where it was played, or in a thread of it (whose readers all see it)
    return _everyone_views(base, guild)


def for_member(
    guild: discord.Guild | None, member: discord.abc.User, *, asked_in: int | None = None, public: bool = False
) -> Sees:
    """Who reads an answer to ``member``: only them (a private answer), or, ``public``, also
    everyone who reads ``asked_in``."""

    def sees(channel_id: int, players: Collection[int] = ()) -> bool:
        if not may_read(players, member.id, sight(guild, channel_id, member, asked_in=asked_in)):
            return False
        return not public or as_visible(guild, channel_id, asked_in)

    return sees


def for_interaction(interaction: discord.Interaction, *, public: bool) -> Sees:
    """:func:`for_member` for the member who asked, where they asked."""
    return for_member(interaction.guild, interaction.user, asked_in=interaction.channel_id, public=public)


def for_channel(guild: discord.Guild | None, channel_id: int) -> Sees:
    """Who reads a post in ``channel_id``: everyone who can view it."""

    def sees(game_channel: int, players: Collection[int] = ()) -> bool:
        return as_visible(guild, game_channel, channel_id)

    return sees
