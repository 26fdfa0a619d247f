"""One place that turns every failure into a private answer.

Player mistakes (:class:`bot.core.model.ServiceError`, engine rule errors, our
own :class:`~bot.discord.refusals.UserError`) are answered ephemerally with their message. Anything
else is logged with its traceback and the player gets a private "something
went wrong". Both the command tree's ``on_error`` and the buttons (whose
errors discord.py would otherwise only log) come here.
"""

from __future__ import annotations

import logging
import math

import discord
from discord import app_commands

from bot.core.advice import UNAVAILABLE_DETAIL
from bot.core.model import (
    AnalysisUnavailableError,
    BusyError,
    RuleError,
    SavingPausedError,
    ServiceError,
    StaleGameError,
)
from bot.discord.limits import fit, plain, quote, reason
from bot.discord.presenter import sentence, state_summary
from bot.discord.refusals import UserError
from engine import GameError, IllegalPlayError, NotationError
from i18n import N_, _, worded

log = logging.getLogger("bot.errors")

SOMETHING_WRONG = N_(
    "Something went wrong on my side. Please try again in a moment; if it keeps happening, tell a moderator."
)


def unwrap(error: BaseException) -> BaseException:
    while isinstance(error, (app_commands.CommandInvokeError, app_commands.TransformerError)) and error.__cause__:
        error = error.__cause__
    original = getattr(error, "original", None)
    if isinstance(error, app_commands.CommandInvokeError) and original is not None:
        return original
    return error


def player_message(error: BaseException) -> str | None:
    """The private answer for a player mistake, or None for a bug.

    The core's and the engine's messages are plain text that may hold names or
    what the player typed: they are shown through :func:`~bot.discord.limits.plain`
    and :func:`~bot.discord.limits.quote` (clipped, markdown and mentions
    neutralised, never re-capitalised where a player's words come first).
    """
    if isinstance(error, RuleError) and isinstance(error.__context__, (NotationError, IllegalPlayError, GameError)):
        error = error.__context__  # the core re-raises the engine's error as text: quote from the original
    if isinstance(error, AnalysisUnavailableError):
        return f"{plain(sentence(error.message))}: {_(UNAVAILABLE_DETAIL)}"
    if isinstance(error, UserError):
        return error.message  # our own words, written as shown (names through limits.shown)
    if isinstance(error, ServiceError):
        text = plain(sentence(error.message))
        if isinstance(error, StaleGameError) and error.state is not None:
            text = f"{text.rstrip('.')}. {state_summary(error.state)}"
        return text
    if isinstance(error, NotationError):
        return _("I can't read {text} at character {position}: {reason}.").format(
            text=quote(error.text, around=error.position),
            position=error.position + 1,
            reason=reason(worded(error.reason)),
        )
    if isinstance(error, IllegalPlayError):
        if not error.text:
            return plain(sentence(worded(error.reason)))
        return _("You can't play {play}: {reason}.").format(play=quote(error.text), reason=reason(worded(error.reason)))
    if isinstance(error, GameError):
        return plain(sentence(worded(error)))
    if isinstance(error, app_commands.BotMissingPermissions):
        missing = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return _("I'm missing the {permission} permission in this channel. Ask a moderator to grant it.").format(
            permission=missing
        )
    if isinstance(error, app_commands.MissingPermissions):
        missing = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return _("You need the {permission} permission for that.").format(permission=missing)
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("Backgammon is played in a server channel, not in direct messages.")
    if isinstance(error, app_commands.CommandOnCooldown):
        return _("Slow down: try again in {seconds} s.").format(seconds=max(math.ceil(error.retry_after), 1))
    if isinstance(error, app_commands.CheckFailure):
        return plain(sentence(str(error))) or _("You can't use that here.")
    if isinstance(error, app_commands.TransformerError):
        return _("I couldn't read {text}: check the option and try again.").format(text=quote(str(error.value)))
    return None


async def answer_privately(interaction: discord.Interaction, text: str) -> None:
    """Send ``text`` only to the person who acted, whatever state the interaction is in."""
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(**fit(content=text, ephemeral=True))
            return
        if (
            interaction.response.type is discord.InteractionResponseType.deferred_channel_message
            and not interaction.extras.get("answered")
            and not interaction.extras.get("ephemeral_defer")
        ):
            # a public "thinking..." (only while rendering a board) would make the first
            # followup public: remove it first
            try:
                await interaction.delete_original_response()
            except discord.HTTPException:
                pass
        await interaction.followup.send(**fit(content=text, ephemeral=True))
    except discord.HTTPException as error:
        log.warning("could not answer interaction %s privately: %s", interaction.id, error)


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer a failed command or click (the single error path of the bot)."""
    error = unwrap(error)
    text = player_message(error)
    if isinstance(error, SavingPausedError):
        pass  # the store logged it once when saving stopped working
    elif isinstance(error, BusyError):
        if (metrics := getattr(interaction.client, "metrics", None)) is not None:
            metrics.database_errors.inc()
        log.warning("database trouble in interaction %s: %s", interaction.id, error)
    elif text is None:
        command = (
            interaction.command.qualified_name
            if interaction.command
            else interaction.data and interaction.data.get("custom_id")
        )
        log.error("unexpected error in %s by user %s", command, interaction.user.id, exc_info=error)
        text = _(SOMETHING_WRONG)
    await answer_privately(interaction, text if text is not None else _(SOMETHING_WRONG))
