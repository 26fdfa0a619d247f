"""The tutor's private warning and its two buttons, "Play it anyway" and "Let me think again".

All the state is in the custom id (``bgtutor:go:<game>:<version>:<member>:<decision>:<play>``,
the play as its place among the legal plays at that version): a warning outlives a
restart, and one the game has moved past only says so. "Let me think again" never
calls the game service: the game is left exactly as it was.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.core.tutor import THRESHOLDS, TutorWarning, parse_threshold
from bot.discord.limits import shown
from bot.discord.refusals import UserError
from bot.discord.replies import table_of
from i18n import N_, _

DONE: dict[str, str] = {
    "play": N_("this play"),
    "roll": N_("rolling without doubling"),
    "double": N_("doubling"),
    "take": N_("taking"),
    "pass": N_("passing"),
    "beaver": N_("beavering"),
}
"""The decision warned about, in words (a play is named by its notation)."""
BEST: dict[str, str] = {
    "double": N_("double"),
    "no double": N_("no double"),
    "too good, play on": N_("too good to double: play on"),
    "take": N_("take"),
    "pass": N_("pass"),
}
"""The analysis's names of the better cube action, in words."""
NAMED: dict[str, str] = {"blunders": N_("blunders"), "errors": N_("errors")}
"""The named thresholds, in words."""


def warning_text(warning: TutorWarning) -> str:
    """The warning, in words."""
    if warning.kind == "play":
        chosen = f"**{shown(warning.chosen)}**"
        best = f"**{shown(warning.best)}**"
    else:
        chosen = f"**{_(DONE[warning.kind])}**"
        best = f"**{_(BEST.get(warning.best, warning.best))}**"
    return _(
        "🎓 Tutor: {chosen} gives up {lost} equity; the net prefers {best} (your threshold: {threshold}). "
        "Play it anyway, or think again?"
    ).format(chosen=chosen, lost=f"{warning.lost:.3f}", best=best, threshold=f"{warning.threshold:.3f}")


def tutor_threshold(typed: str) -> float | None:
    """The threshold ``/bg settings tutor:`` asks for (None: off).

    :raises UserError: for what is neither a name nor a figure from 0.001 to 1."""
    try:
        return parse_threshold(typed)
    except ValueError:
        raise UserError(
            _("The tutor takes off, blunders (0.08), errors (0.04), or an equity from 0.001 to 1, e.g. 0.06.")
        ) from None


def tutor_choices(current: str) -> list[app_commands.Choice[str]]:
    """The named thresholds, for autocomplete (a figure may be typed instead)."""
    named = [("off", _("off"))] + [(name, f"{_(NAMED[name])} (≥ {figure:.2f})") for name, figure in THRESHOLDS.items()]
    typed = current.strip().lower()
    return [app_commands.Choice(name=label, value=value) for value, label in named if value.startswith(typed)]


def thinking_again_text() -> str:
    return _("🎓 Nothing was played: the board is as you left it. Take your time.")


class TutorButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"bgtutor:(?P<choice>go|back):(?P<game>[0-9]+):(?P<version>[0-9]+):(?P<user>[0-9]+)"
        r":(?P<kind>play|roll|double|take|pass|beaver):(?P<index>[0-9]+)"
    ),
):
    """ "Play it anyway" (go) or "Let me think again" (back), under the tutor's warning."""

    def __init__(self, choice: str, game_id: int, version: int, user_id: int, kind: str, index: int) -> None:
        label = _("Play it anyway") if choice == "go" else _("Let me think again")
        style = discord.ButtonStyle.danger if choice == "go" else discord.ButtonStyle.success
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=f"bgtutor:{choice}:{game_id}:{version}:{user_id}:{kind}:{index}",
            )
        )
        self.choice = choice
        self.game_id = game_id
        self.version = version
        self.user_id = user_id
        self.kind = kind
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TutorButton:
        return cls(
            match["choice"],
            int(match["game"]),
            int(match["version"]),
            int(match["user"]),
            match["kind"],
            int(match["index"]),
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        await table_of(interaction).tutor_choice(
            interaction, self.choice, self.game_id, self.version, self.user_id, self.kind, self.index
        )


def tutor_controls(game_id: int, version: int, user_id: int, kind: str, index: int = 0) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    for choice in ("back", "go"):
        controls.add_item(TutorButton(choice, game_id, version, user_id, kind, index))
    return controls
