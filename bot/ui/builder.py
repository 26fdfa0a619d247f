"""Building a play checker by checker: a private panel of buttons, one per next step.

The panel is an ephemeral message for the player on roll. Every button's
custom id carries the game, its version and the steps chosen so far
(``bg:b:7:12:13-7.8-7``), so the panel needs no memory and survives a
restart. A step is offered when some legal play still contains it after the
steps already chosen; **Confirm** appears when the steps make a whole legal
play, and sends its canonical notation to the service.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import discord

from engine import Play, format_play

Step = tuple[int, int]
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


def point_name(point: int, *, source: bool) -> str:
    if source and point == 25:
        return "bar"
    if not source and point == 0:
        return "off"
    return str(point)


def step_label(step: Step, hit: bool = False) -> str:
    return f"{point_name(step[0], source=True)}/{point_name(step[1], source=False)}{'*' if hit else ''}"


def _steps_of(play: Play) -> Counter[Step]:
    return Counter((m.source, m.destination) for m in play.moves)


def options(plays: Sequence[Play], chosen: Sequence[Step]) -> tuple[list[tuple[Step, bool]], Play | None]:
    """The next steps (with whether they hit) and the play the chosen steps complete, if any."""
    done = Counter(chosen)
    steps: dict[Step, bool] = {}
    complete: Play | None = None
    for play in plays:
        have = _steps_of(play)
        if any(have[step] < count for step, count in done.items()):
            continue
        left = have - done
        if not left:
            complete = complete or play
            continue
        hits = {(m.source, m.destination) for m in play.moves if m.hit}
        for step in left:
            steps[step] = steps.get(step, False) or step in hits
    ordered = sorted(steps.items(), key=lambda item: (-item[0][0], -item[0][1]))
    return ordered, complete


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
        label: str = "Move checker by checker",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        tag: str = "",
        row: int | None = None,
        disabled: bool = False,
    ) -> None:
        custom_id = f"bg:{kind}:{game_id}:{version}:{encode(steps)}{':' + tag if tag else ''}"
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row, disabled=disabled)
        )
        self.kind = kind
        self.game_id = game_id
        self.version = version
        self.steps = list(steps)
        self.tag = tag

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /) -> BuildButton:
        tag = (match["tag"] or "")[1:]
        return cls(match["kind"], int(match["game"]), int(match["version"]), decode(match["steps"]), tag=tag)

    async def callback(self, interaction: discord.Interaction) -> None:
        table = interaction.client.table  # type: ignore[attr-defined]
        if self.kind == "bc":
            await table.confirm_built_play(interaction, self.game_id, self.version, self.steps)
        else:
            await table.show_builder(interaction, self.game_id, self.version, self.steps, opened=self.tag == "open")


def start_button(game_id: int, version: int) -> BuildButton:
    """The entry on the board: opens the private builder."""
    return BuildButton("b", game_id, version, [], label="Move checker by checker", tag="open")


def panel(game_id: int, version: int, plays: Sequence[Play], chosen: Sequence[Step], dice_text: str) -> tuple[str, discord.ui.View]:
    """The builder's text and buttons for the steps chosen so far."""
    steps, complete = options(plays, chosen)
    so_far = " ".join(step_label(s) for s in chosen) or "nothing yet"
    lines = [f"Building your play of {dice_text}: **{so_far}**"]
    view = discord.ui.View(timeout=None)
    shown = steps[:MAX_STEP_BUTTONS]
    for index, (step, hit) in enumerate(shown):
        view.add_item(
            BuildButton("b", game_id, version, [*chosen, step], label=step_label(step, hit),
                        style=discord.ButtonStyle.primary, row=index // 5)
        )
    if len(steps) > len(shown):
        lines.append("More steps than buttons: type the play with `/bg move` if yours is missing.")
    if chosen:
        view.add_item(BuildButton("b", game_id, version, chosen[:-1], label="Undo", tag="undo", row=4))
        view.add_item(BuildButton("b", game_id, version, [], label="Start over", tag="reset", row=4,
                                  style=discord.ButtonStyle.danger))
    if complete is not None:
        lines.append(f"That makes **{format_play(complete)}**. Confirm to play it.")
        view.add_item(BuildButton("bc", game_id, version, chosen, label="Confirm", row=4,
                                  style=discord.ButtonStyle.success))
    elif not steps:
        lines.append("No legal play continues from here: Undo or Start over.")
    else:
        lines.append("Pick the next checker to move.")
    return "\n".join(lines), view


def complete_play(plays: Sequence[Play], chosen: Sequence[Step]) -> Play | None:
    return options(plays, chosen)[1]
