"""Patience as Discord shows it: the private panel's words and buttons, the
reveal, the public line of a daily result, the leaderboard.

The panel is an ephemeral message: the layout's picture (drawn by the
drawing workers, :class:`renderer.patience.PatiencePicture`) and a button for
each square the next card may go on. For the first card that is a 5 by 5 grid
of buttons, one per square, those the rule forbids disabled (Discord's five
rows of five); after it, at most four squares a rook's step from the last
card, with Undo below; once all 25 cards are laid, Submit and Undo.

Every button is a :class:`PatienceButton`, persistent with its state in its
custom id (``pt:<action>:<attempt>:<version>[:<square>]``): the layout and
the version the player saw, so a click on an old panel reaches the core with
that version and is shown the layout as it stands instead of acting on it.
Nothing here sends: :mod:`bot.discord.cogs.patience` does.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.core.patience import Attempt, DailyBoard, PatienceResult
from bot.discord.errors import answer_privately
from bot.discord.limits import in_code, plain, shown
from bot.discord.presenter import COLOUR, WIN_COLOUR, ordinal
from engine.patience import CELLS
from i18n import N_, _, ngettext

COMMAND_HINT = N_("or type the squares: {command}")
"""Translated where used, with the command (the same in every language) filled in."""
SCORING_NAMES = (N_("English"), N_("American"))
"""The score tables' names as shown (engine/patience/hands.py's, capitalised), for the catalogue."""
ARROWS = {(-1, 0): "⬆️", (1, 0): "⬇️", (0, -1): "⬅️", (0, 1): "➡️"}
"""The step from the last card to a square: up, down, left, right."""


def patience_of(interaction: discord.Interaction) -> Any:
    """The patience cog, which answers the panel's buttons (None if it is not loaded)."""
    client: Any = interaction.client
    return client.get_cog("PatienceCog")


class PatienceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pt:(?P<action>p|u|s):(?P<attempt>[0-9]{1,20}):(?P<version>[0-9]{1,9})(?::(?P<square>[A-E][1-5]))?",
):
    """Lay the next card on a square (``p``), Undo (``u``), Submit (``s``)."""

    def __init__(
        self,
        action: str,
        attempt_id: int,
        version: int,
        square: str | None = None,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        emoji: str | None = None,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        custom_id = f"pt:{action}:{attempt_id}:{version}" + (f":{square}" if square else "")
        super().__init__(
            discord.ui.Button(
                label=label or square or action,
                style=style,
                emoji=emoji,
                custom_id=custom_id,
                disabled=disabled,
                row=row,
            )
        )
        self.action = action
        self.attempt_id = attempt_id
        self.version = version
        self.square = square

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PatienceButton:
        return cls(match["action"], int(match["attempt"]), int(match["version"]), match["square"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = patience_of(interaction)
        if cog is None:
            await answer_privately(interaction, _("Patience is not available right now."))
            return
        await cog.click(interaction, self.action, self.attempt_id, self.version, self.square)


# -- the panel ----------------------------------------------------------------------------------


def controls(attempt: Attempt) -> discord.ui.View | None:
    """The panel's buttons (None once submitted)."""
    if attempt.submitted:
        return None
    view = discord.ui.View(timeout=None)
    legal = set(attempt.legal_cells)
    if attempt.placed == 0:
        for cell in CELLS:  # row by row: the grid as it is drawn
            view.add_item(
                PatienceButton(
                    "p",
                    attempt.id,
                    attempt.version,
                    str(cell),
                    row=cell.row,
                    disabled=cell not in legal,
                    style=discord.ButtonStyle.primary if cell in legal else discord.ButtonStyle.secondary,
                )
            )
        return view
    last = attempt.layout.last_cell
    assert last is not None
    for cell in attempt.legal_cells:
        view.add_item(
            PatienceButton(
                "p",
                attempt.id,
                attempt.version,
                str(cell),
                row=0,
                emoji=ARROWS[(cell.row - last.row, cell.col - last.col)],
            )
        )
    if attempt.complete:
        view.add_item(
            PatienceButton(
                "s", attempt.id, attempt.version, label=_("Submit"), style=discord.ButtonStyle.success, row=0
            )
        )
    view.add_item(
        PatienceButton("u", attempt.id, attempt.version, label=_("Undo"), style=discord.ButtonStyle.secondary, row=1)
    )
    return view


def heading(attempt: Attempt) -> str:
    return _("**{title}** · {capitalize} scoring").format(
        title=attempt.title, capitalize=_(attempt.scoring.name.capitalize())
    )


def panel_text(attempt: Attempt, note: str | None = None) -> str:
    """The panel's words: the deal, where the layout stands, what to do next."""
    lines = [f"{note}" if note else "", heading(attempt)]
    if attempt.commitment:
        lines.append(
            _("Deal committed: `{in_code}` (its seed is shown when the day is over, UTC).").format(
                in_code=in_code(attempt.commitment)
            )
        )
    card = attempt.next_card
    if card is None:
        lines.append(
            _("All 25 cards are laid, for **{points}** points. **Submit** it, or **Undo** to change it.").format(
                points=attempt.points
            )
        )
    elif attempt.placed == 0:
        lines.append(
            _(
                "Card 1 of 25 is **{label}**: put it on any marked square (a rook's path starts on a corner's colour), {command_hint}."
            ).format(label=card.label, command_hint=_(COMMAND_HINT).format(command="`/patience play squares:C3 C4 D4`"))
        )
    else:
        lines.append(
            _(
                "{placed} of 25 laid, **{points}** points so far. Card {number} is **{label}**: put it on a marked square next to the last card, {command_hint}."
            ).format(
                placed=attempt.placed,
                points=attempt.points,
                number=attempt.placed + 1,
                label=card.label,
                command_hint=_(COMMAND_HINT).format(command="`/patience play squares:C3 C4 D4`"),
            )
        )
    return "\n".join(line for line in lines if line)


def picture_name(attempt: Attempt, which: str | None = None) -> str:
    return f"patience-{attempt.id}-{which or attempt.version}.png"


# -- the reveal ----------------------------------------------------------------------------------


def streak_text(days: int) -> str:
    if days > 1:
        return "🔥 " + ngettext("{count}-day streak", "{count}-day streak", days).format(count=days)
    return _("a 1-day streak: come back tomorrow")


def reveal_text(result: PatienceResult) -> str:
    """The answer to a submission: the player's score and the best possible one
    (the pictures: theirs first, a best layout second)."""
    attempt = result.attempt
    lines = [heading(attempt)]
    if result.best is None:
        lines.append(
            _(
                "You scored **{score}** points. The deal's best score and a best layout are shown once the day is over (UTC): `/patience leaderboard` then."
            ).format(score=result.score)
        )
    elif result.score >= result.best:
        lines.append(
            _(
                "You scored **{score}** points: the best possible score! 🎉 (Another best layout is beside yours.)"
            ).format(score=result.score)
        )
    else:
        lines.append(
            _(
                "You scored **{score}** points. The best possible score is **{best}**: your layout is first, a best layout second."
            ).format(score=result.score, best=result.best)
        )
    if result.rank is not None and result.entrants is not None:
        place = _("Your place today: {place} of {entrants} so far").format(
            place=ordinal(result.rank), entrants=result.entrants
        )
        lines.append(place + (f" · {streak_text(result.streak)}." if result.streak is not None else "."))
    if not result.just_submitted:
        lines.append(
            _("You have submitted this layout already: each daily deal is laid once.")
            if attempt.kind == "daily"
            else _("You have submitted this layout already.")
        )
    if result.best_layout is not None:
        lines.append(_("A best path: `{in_code}`").format(in_code=in_code(str(result.best_layout))))
    if attempt.seed:
        lines.append(
            _("This deal came from the seed `{in_code}` (nonce `patience:random`).").format(
                in_code=in_code(attempt.seed)
            )
        )
    return "\n".join(lines)


def daily_line(name: str, result: PatienceResult) -> str:
    """One public line for a daily result: no pings, no spoiler of the best score."""
    where = ""
    if result.rank is not None and result.entrants is not None:
        where = " " + _("({place} of {entrants} so far)").format(place=ordinal(result.rank), entrants=result.entrants)
    streak = f" · {streak_text(result.streak)}" if result.streak and result.streak > 1 else ""
    return _(
        "🃏 **{name}** laid today's patience deal for **{score}** points{where}{streak}. Try it: `/patience daily`"
    ).format(name=shown(name), score=result.score, where=where, streak=streak)


# -- the leaderboard --------------------------------------------------------------------------------


def leaderboard_embed(board: DailyBoard, guild_name: str | None = None) -> discord.Embed:
    where = f" · {plain(guild_name, 100)}" if guild_name else ""
    embed = discord.Embed(
        title=_("Patience · daily deal {day}{where}").format(day=board.day, where=where),
        colour=WIN_COLOUR if board.over else COLOUR,
    )
    if board.standings:
        embed.description = "\n".join(
            f"`{s.rank:>3}` **{shown(s.name)}** · {s.score} points" + (f" · 🔥 {s.streak}" if s.streak > 1 else "")
            for s in board.standings
        )
    elif board.deal is None:
        embed.description = (
            _("Nobody asked for the daily deal of {day} here.").format(day=board.day)
            if board.over
            else _("Nobody has dealt today's deal yet: `/patience daily` deals it.")
        )
    else:
        embed.description = _("Nobody has submitted this deal yet.") + (
            "" if board.over else " " + _("Play it: `/patience daily`.")
        )
    if board.deal is not None and board.over:
        embed.add_field(name=_("Best possible"), value=_("**{best}** points").format(best=board.best), inline=True)
        embed.add_field(name=_("The deal"), value=" ".join(card.label for card in board.deal), inline=False)
        embed.add_field(
            name=_("Fair deal"),
            value=(
                _(
                    "Seed `{in_code}`, nonce `{in_code2}`: its SHA-256 is the commitment `{in_code3}` shown all day, and `engine.patience.deal_from_seed(bytes.fromhex(seed), nonce)` deals these cards."
                ).format(
                    in_code=in_code(board.seed or ""),
                    in_code2=in_code(board.nonce or ""),
                    in_code3=in_code(board.commitment or ""),
                )
            ),
            inline=False,
        )
    elif board.commitment:
        embed.add_field(
            name=_("Fair deal"),
            value=_("Committed: `{in_code}`. The seed is shown when the day is over (UTC).").format(
                in_code=in_code(board.commitment)
            ),
            inline=False,
        )
    embed.set_footer(
        text=_(
            "{entrants} submitted · one deal a day per server, the same for everyone · a streak counts consecutive days (UTC)"
        ).format(entrants=board.entrants)
    )
    return embed


__all__ = [
    "ARROWS",
    "PatienceButton",
    "controls",
    "daily_line",
    "leaderboard_embed",
    "ordinal",
    "panel_text",
    "patience_of",
    "picture_name",
    "reveal_text",
    "streak_text",
]
