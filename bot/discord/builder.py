"""Building a play checker by checker: a private panel of buttons, one per next step.

The panel is an ephemeral message for the player on roll. Every button's
custom id carries the game, its version and the steps chosen so far
(``bg:b:7:12:13-7.8-7``), so the panel needs no memory and survives a
restart. Which steps to offer is the engine's rule
(:func:`engine.play.next_steps`); **Confirm** appears when the steps make a
whole legal play, and sends its canonical notation to the service.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord

from bot.discord.replies import table_of
from engine import Move, Play, Step, format_play, format_point, next_steps
from i18n import _

MAX_STEP_BUTTONS = 20
"""Four rows of five; the fifth row holds Undo / Start over / Confirm."""


def encode(steps: Sequence[Step]) -> str:
    return ".".join(f"{a}-{b}" for a, b in steps)


def decode(text: str) -> list[Step]:
    if not text:
        return []
    steps = []
    for part in text.split("."):
        a, _, b = part.partition("-")
        steps.append((int(a), int(b)))
    return steps


def step_label(step: Step | Move) -> str:
    """A step as the notation writes it: ``13/7``, ``bar/22``, ``6/off``, ``13/7*``."""
    hit = isinstance(step, Move) and step.hit
    return f"{format_point(step[0])}/{format_point(step[1])}{'*' if hit else ''}"


class BuildButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<kind>b|bc):(?P<game>[0-9]+):(?P<version>[0-9]+):(?P<steps>(?:[0-9]{1,2}-[0-9]{1,2})(?:\.[0-9]{1,2}-[0-9]{1,2}){0,3}|)(?P<tag>:[a-z]+)?",
):
    """One button of the builder (a step, Undo, Start over, or Confirm)."""

    def __init__(
        self,
        kind: str,
        game_id: int,
        version: int,
        steps: Sequence[Step],
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        tag: str = "",
        row: int | None = None,
        disabled: bool = False,
    ) -> None:
        custom_id = f"bg:{kind}:{game_id}:{version}:{encode(steps)}{':' + tag if tag else ''}"
        label = label or _("Move checker by checker")
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row, disabled=disabled))
        self.kind = kind
        self.game_id = game_id
        self.version = version
        self.steps = list(steps)
        self.tag = tag

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BuildButton:
        tag = (match["tag"] or "")[1:]
        return cls(match["kind"], int(match["game"]), int(match["version"]), decode(match["steps"]), tag=tag)

    async def callback(self, interaction: discord.Interaction) -> None:
        table = table_of(interaction)
        if self.kind == "bc":
            await table.confirm_built_play(interaction, self.game_id, self.version, self.steps)
        else:
            await table.show_builder(interaction, self.game_id, self.version, self.steps, opened=self.tag == "open")


def start_button(game_id: int, version: int) -> BuildButton:
    """The entry on the board: opens the private builder."""
    return BuildButton("b", game_id, version, [], label=_("Move checker by checker"), tag="open")


def panel(
    game_id: int, version: int, plays: Sequence[Play], chosen: Sequence[Step], dice_text: str
) -> tuple[str, discord.ui.View]:
    """The builder's text and buttons for the steps chosen so far."""
    steps, complete = next_steps(plays, chosen)
    so_far = " ".join(step_label(s) for s in chosen) or _("nothing yet")
    lines = [_("Building your play of {dice}: {so_far}").format(dice=dice_text, so_far=f"**{so_far}**")]
    view = discord.ui.View(timeout=None)
    shown = steps[:MAX_STEP_BUTTONS]
    for index, step in enumerate(shown):
        view.add_item(
            BuildButton(
                "b",
                game_id,
                version,
                [*chosen, (step.source, step.destination)],
                label=step_label(step),
                style=discord.ButtonStyle.primary,
                row=index // 5,
            )
        )
    if len(steps) > len(shown):
        lines.append(_("More steps than buttons: type the play with `/bg move` if yours is missing."))
    if chosen:
        view.add_item(BuildButton("b", game_id, version, chosen[:-1], label=_("Undo"), tag="undo", row=4))
        view.add_item(
            BuildButton(
                "b", game_id, version, [], label=_("Start over"), tag="reset", row=4, style=discord.ButtonStyle.danger
            )
        )
    if complete is not None:
        lines.append(_("That makes **{format_play}**. Confirm to play it.").format(format_play=format_play(complete)))
        view.add_item(
            BuildButton("bc", game_id, version, chosen, label=_("Confirm"), row=4, style=discord.ButtonStyle.success)
        )
    elif not steps:
        lines.append(_("No legal play continues from here: Undo or Start over."))
    else:
        lines.append(_("Pick the next checker to move."))
    return "\n".join(lines), view


def complete_play(plays: Sequence[Play], chosen: Sequence[Step]) -> Play | None:
    return next_steps(plays, chosen)[1]
