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


def language_name(language: str) -> str:
    """A language's name in itself (``Ελληνικά``, ``Deutsch``): how its speakers find it in a list."""
    name = i18n.locale(language).get_display_name(language) or language
    return name[:1].upper() + name[1:]


CLIENT = "client"
"""``/bg settings language``'s choice for "the language of my Discord client"."""
SERVER = "server"
"""``/bgtools language``'s choice for "the server's preferred locale"."""
MEMBER_CHOICES = [
    discord.app_commands.Choice(name="Your Discord's language", value=CLIENT),
    *(discord.app_commands.Choice(name=language_name(language), value=language) for language in i18n.LANGUAGES),
]
SERVER_CHOICES = [
    discord.app_commands.Choice(name="The server's language (its Community settings)", value=SERVER),
    *(discord.app_commands.Choice(name=language_name(language), value=language) for language in i18n.LANGUAGES),
]
