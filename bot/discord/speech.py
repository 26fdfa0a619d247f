"""The language of a public post: the server's (:mod:`bot.core.languages`).

An answer to a member is worded in their language, which the client sets
around each interaction (:meth:`bot.discord.client.BackgammonBot.language_of`);
what everyone in a channel reads (a board, a challenge, a tournament's or a
puzzle's post) is worded in the server's, inside ``with i18n.speaking(await
public(client, guild_id)):``.
"""

from __future__ import annotations

from typing import Any

import discord

import i18n


async def public(client: discord.Client, guild_id: int | None) -> str:
    """The server's language (its manager's choice, else its preferred locale when the bot speaks it)."""
    guild = client.get_guild(guild_id) if guild_id else None
    preferred = str(guild.preferred_locale) if guild is not None and guild.preferred_locale else None
    service: Any = getattr(client, "service", None)
    if service is None or guild_id is None:
        return i18n.language_of(preferred)
    return str(await service.languages.server(guild_id, preferred))


async def member(client: discord.Client, user_id: int) -> str:
    """A member's language for a message with no interaction to answer (a reminder, a direct message)."""
    service: Any = getattr(client, "service", None)
    if service is None:
        return i18n.ENGLISH
    return str(await service.languages.member(user_id))
