"""A refusal worded for the player: raised anywhere in the Discord layer, answered
privately by :func:`bot.discord.errors.report` (it stands apart from the error path,
so that the modules that refuse need not import what the error path needs)."""

from __future__ import annotations

from discord import app_commands


class UserError(app_commands.AppCommandError):
    """A refusal worded for the player (no game here, missing permission, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
