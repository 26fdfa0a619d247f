"""Match equity in words and a table picture: ``/bglearn met``, and the button under
a match board that shows it for the game's score and cube, privately."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord

from bot.core.met import MatchEquity, afor_game
from bot.discord.errors import UserError, report
from bot.discord.limits import shown
from bot.discord.replies import send_private, table_of
from i18n import _
from renderer.met import MetPicture

COLOUR = 0x2E7D32


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def met_lines(equity: MatchEquity, names: tuple[str, str]) -> list[str]:
    """Each side's chance, take point and gammon value, in words."""
    lines = []
    cube = _(", cube at {value}").format(value=equity.cube) if equity.cube > 1 else ""
    when = (
        _(" (Crawford game: no double)") if equity.crawford else (_(" (post-Crawford)") if equity.post_crawford else "")
    )
    lines.append(
        _("{length}-point match, {score}-{score2}{cube}{when}: {names} {away}-away, {names2} {away2}-away.").format(
            length=equity.length,
            score=equity.score[0],
            score2=equity.score[1],
            cube=cube,
            when=when,
            names=shown(names[0]),
            away=equity.sides[0].away,
            names2=shown(names[1]),
            away2=equity.sides[1].away,
        )
    )
    for me in (0, 1):
        side = equity.sides[me]
        text = _("{name} wins the match {percent} of the time").format(
            name=f"**{shown(names[me])}**", percent=_percent(side.chance)
        )
        if side.take_point is not None:
            text += _("; takes {name}'s double to {value} with {percent} game winning chances or more").format(
                name=shown(names[1 - me]), value=2 * equity.cube, percent=_percent(side.take_point)
            )
        else:
            text += _("; no double to take")
        text += _("; a gammon is worth {value} of a single game.").format(value=f"{side.gammon_value:.2f}")
        lines.append(text)
    return lines


def met_embed(equity: MatchEquity, names: tuple[str, str], picture: str | None = None) -> discord.Embed:
    embed = discord.Embed(title=_("Match equity"), colour=COLOUR, description="\n".join(met_lines(equity, names)))
    embed.set_footer(
        text=_(
            "Table: {table_name} (gnubg-nn's match equity table). Take points: dead cube, gammons left out (risk ÷ (risk + gain) in match winning chances)."
        ).format(table_name=equity.table_name)
    )
    if picture:
        embed.set_image(url=f"attachment://{picture}")
    return embed


def met_picture(equity: MatchEquity, names: tuple[str, str]) -> MetPicture:
    return MetPicture(
        title=_("Match equity · {length}-point match · {score}-{score2}").format(
            length=equity.length, score=equity.score[0], score2=equity.score[1]
        ),
        names=names,
        grid=equity.grid,
        origin=equity.origin,
        marked=(equity.sides[0].away, equity.sides[1].away),
        footer=_("{name}'s chance to win the match, in % · {table_name} table (gnubg-nn)").format(
            name=names[0], table_name=equity.table_name
        ),
    )


async def met_message(interaction: discord.Interaction, equity: MatchEquity, names: tuple[str, str]) -> dict[str, Any]:
    """The embed and its picture. A table of at most 7 × 7 cells draws in a few milliseconds, in a
    thread: the drawing workers (:mod:`bot.discord.boards`) sit above the board's buttons, this one of them."""
    png = await asyncio.to_thread(met_picture(equity, names).draw)
    name = "match-equity.png"
    return {"embed": met_embed(equity, names, name), "file": discord.File(io.BytesIO(png), filename=name)}


class MetButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"bgmet:(?P<game>[0-9]+)"):
    """ "Match equity" under a match board: the table at the game's score and cube, privately."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Match equity"), style=discord.ButtonStyle.secondary, custom_id=f"bgmet:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> MetButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
            state = await table_of(interaction).service.lookups.get_game(self.game_id)
            if state.match.game is None or state.game.is_money:
                raise UserError(_("A money game has no match score: the table is for matches."))
            equity = await afor_game(state.game)
            names = (state.players[0].name, state.players[1].name)
            await send_private(interaction, **await met_message(interaction, equity, names))
        except Exception as error:  # the one error path: a private, clear answer
            await report(interaction, error)
