"""Answering interactions within Discord's rules: who sees what, and the permissions a post needs.

Every interaction is answered once within 3 seconds (a message, a deferral,
an edit of the clicked message), then by followups. These helpers send the
right kind of answer whatever state the interaction is in.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

import discord
from discord import app_commands

from bot.core.model import PlayerRef
from bot.discord.limits import fit, quote
from bot.discord.refusals import UserError
from i18n import N_, _, ngettext

log = logging.getLogger(__name__)

BOARD_PERMISSIONS = ("send_messages", "attach_files", "embed_links")
CHANNEL_PERMISSIONS = ("send_messages", "attach_files", "embed_links")
THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")


class HasTable(Protocol):
    table: Any


def table_of(interaction: discord.Interaction) -> Any:
    """The Table that answers this bot's persistent buttons: the one place a
    component (rebuilt by discord.py from its custom id, with no constructor of
    ours) finds the parts it hands the click to."""
    client: HasTable = interaction.client  # type: ignore[assignment]
    return client.table


def tourneys_of(interaction: discord.Interaction) -> Any:
    """The tournaments' Discord side (:class:`bot.discord.tourneys.Tourneys`) that
    answers their persistent buttons, as :func:`table_of` does for games."""
    return interaction.client.tourneys  # type: ignore[attr-defined]


def asked_at(interaction: discord.Interaction) -> float:
    """When the player clicked or typed: Discord's timestamp in the interaction's id."""
    return interaction.created_at.timestamp()


def player_ref(user: discord.abc.User) -> PlayerRef:
    return PlayerRef(user.id, getattr(user, "display_name", None) or user.name, bool(user.bot))


def permission_name(flag: str) -> str:
    return flag.replace("_", " ").title()


def require_permissions(interaction: discord.Interaction, flags: Sequence[str]) -> None:
    """:raises UserError: naming the permissions the bot lacks in this channel."""
    have = interaction.app_permissions
    if isinstance(interaction.channel, discord.Thread):
        flags = ["send_messages_in_threads" if f == "send_messages" else f for f in flags]
    missing = [f for f in dict.fromkeys(flags) if not getattr(have, f, False)]
    if missing:
        names = ", ".join(permission_name(f) for f in missing)
        raise UserError(
            ngettext(
                "I'm missing the {names} permission in this channel. Ask a moderator to grant it (I need Send Messages,"
                " Attach Files, Embed Links and Use Application Commands; Create Public Threads for thread games).",
                "I'm missing the {names} permissions in this channel. Ask a moderator to grant it (I need Send Messages,"
                " Attach Files, Embed Links and Use Application Commands; Create Public Threads for thread games).",
                len(missing),
            ).format(names=names)
        )


def require_option_lengths(interaction: discord.Interaction) -> None:
    """:raises UserError: if a text option is longer than the command declares.

    Discord's apps keep to the declared lengths; a crafted request need not,
    and nothing should parse (or quote back) 6,000 characters of it."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return
    for parameter in command.parameters:
        if parameter.type is not discord.AppCommandOptionType.string or parameter.max_value is None:
            continue
        value = getattr(interaction.namespace, parameter.display_name, None)
        if isinstance(value, str) and len(value) > parameter.max_value:
            raise UserError(
                _("`{display_name}` takes at most {max_value} characters, not {count}: {value}").format(
                    display_name=parameter.display_name,
                    max_value=int(parameter.max_value),
                    count=len(value),
                    value=quote(value, 40),
                )
            )


async def defer(interaction: discord.Interaction, *, ephemeral: bool = False) -> None:
    """A "thinking..." answer (private or public), unless the interaction is answered."""
    if not interaction.response.is_done():
        interaction.extras["ephemeral_defer"] = ephemeral
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)


POSTED_BELOW = N_("⬇️ Posted below.")
"""What a private "thinking..." says once the public answer it stood for follows."""


async def send_public(interaction: discord.Interaction, **payload: Any) -> discord.Message:
    """Post a message everyone sees, however the interaction was acknowledged so far.

    It pings only the members its ``allowed_mentions`` names (nobody by default)."""
    kwargs = fit(**{k: v for k, v in payload.items() if v is not None})
    message: discord.Message
    if not interaction.response.is_done():
        callback = await interaction.response.send_message(**kwargs)
        resource = callback.resource
        message = resource if isinstance(resource, discord.Message) else await interaction.original_response()
    elif interaction.extras.get("ephemeral_defer") and not interaction.extras.get("answered"):
        # The private "thinking..." can't become public, and the first follow-up
        # would only fill it: it says where the answer went, and the answer follows
        # through the interaction. Not in the channel: Discord's global limit (50
        # requests a second) counts the channel's routes, not the interaction's,
        # and a busy bot defers every command (200 challenges at once: 200 posts).
        await interaction.edit_original_response(**fit(content=_(POSTED_BELOW)))
        message = await interaction.followup.send(wait=True, **kwargs)
    else:
        message = await interaction.followup.send(wait=True, **kwargs)
    interaction.extras["answered"] = True
    return message


async def send_private(interaction: discord.Interaction, **payload: Any) -> None:
    """A message only the person who acted sees."""
    kwargs = fit(**{k: v for k, v in payload.items() if v is not None})
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(ephemeral=True, **kwargs)
    interaction.extras["answered"] = True


async def edit_clicked(interaction: discord.Interaction, **fields: Any) -> None:
    """Edit the clicked message; this is the first answer to the click if there was none yet."""
    fields = fit(**fields)
    if interaction.response.is_done():
        await interaction.edit_original_response(**fields)
    else:
        await interaction.response.edit_message(**fields)


async def take_buttons_off(interaction: discord.Interaction) -> None:
    """Remove the clicked message's controls (best effort)."""
    try:
        await edit_clicked(interaction, view=None)
    except discord.HTTPException as error:
        log.debug("could not take the buttons off %s: %s", interaction.message, error)
