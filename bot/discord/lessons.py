"""The words and pictures of ``/bglearn``: the old masters' openings, puzzles, drills.

Pure presentation, like :mod:`bot.discord.presenter`: values from the core in,
embeds, lines and board scenes out.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.core.openings import OpeningVerdict, ValuedPlay
from bot.discord.limits import plain
from engine import Position
from engine.openings import OpeningAdvice, opening_play
from renderer import BoardScene

COLOUR = discord.Colour(0x2E7D5B)
MAX_DESCRIPTION = 4096
EQUITY_NOTE = (
    "Equity: cubeless money, for the player who opens; gives up = the best play's equity less this one's. "
    "In the old texts' day the first player threw both dice, so a doublet could open."
)


# -- the old masters' openings -----------------------------------------------------------------


def _loss(valued: ValuedPlay) -> str:
    if valued.loss is None:
        return ""
    if valued.is_best:
        return "✅ still the neural net's best"
    return f"gives up **{valued.loss:.3f}**"


def _who(entry: OpeningAdvice) -> str:
    name = "Hoyle" if entry.source == "hoyle" else "the Britannica"
    return f"{name}, {entry.aim}" if entry.aim else name


def opening_embed(item: OpeningVerdict) -> discord.Embed:
    """One throw: each text's play with its words and what it gives up, and the net's best."""
    embed = discord.Embed(title=f"📜 The old masters' {item.roll_text}", colour=COLOUR)
    lines = []
    for entry, valued in item.old:
        loss = _loss(valued)
        lines.append(f"**{_who(entry)}**: `{entry.play}`" + (f" · {loss}" if loss else ""))
        lines.append(f"> *“{plain(entry.words, 400)}”*")
        if entry.note:
            lines.append(f"-# {plain(entry.note, 300)}")
    if item.best is not None:
        lines.append(f"**Neural net** ({item.ply}-ply): `{item.best.text}` ({item.best.equity:+.3f})")
    else:
        lines.append("*The neural net is not installed here: the texts' plays alone.*")
    embed.description = "\n".join(lines)[:MAX_DESCRIPTION]
    embed.set_footer(text=EQUITY_NOTE)
    return embed


def openings_embed(items: Sequence[OpeningVerdict]) -> discord.Embed:
    """Every throw the texts cover, a line each."""
    embed = discord.Embed(title="📜 The old masters' openings", colour=COLOUR)
    lines = []
    plays = best = 0
    for item in items:
        parts = []
        for entry, valued in item.old:
            plays += 1
            best += valued.is_best
            mark = "" if valued.loss is None else (" ✅" if valued.is_best else f" −{valued.loss:.3f}")
            who = "H" if entry.source == "hoyle" else "B"
            parts.append(f"{who} `{entry.play}`{mark}")
        net = f" · net `{item.best.text}`" if item.best is not None and not all(v.is_best for _, v in item.old) else ""
        lines.append(f"**{item.roll_text}** " + " · ".join(parts) + net)
    if items and items[0].best is not None:
        lines.insert(0, f"{best} of the texts' {plays} plays are still the neural net's best ({items[0].ply}-ply).")
    lines.append("H: Hoyle · B: the Britannica · `/bglearn openings roll:3-3` for one throw, the words and the board.")
    embed.description = "\n".join(lines)[:MAX_DESCRIPTION]
    embed.set_footer(text=EQUITY_NOTE)
    return embed


def opening_scene(item: OpeningVerdict, entry: OpeningAdvice | None = None) -> BoardScene:
    """The opening position after a text's play of the throw (the first one's, or
    ``entry``'s), the play drawn on it."""
    entry = entry or item.old[0][0]
    play = opening_play(entry)
    who = "Hoyle" if entry.source == "hoyle" else "Britannica"
    return BoardScene(
        play.position,
        names=(who, "Adversary"),
        last_play=play.moves,
        last_play_by=0,
        to_act_label=f"{who}'s {item.roll_text}: {entry.play}",
    )


def biggest_departure(items: Sequence[OpeningVerdict]) -> tuple[OpeningVerdict, OpeningAdvice]:
    """The throw and the text's play that gives up the most (the first without the neural net)."""
    item = max(items, key=lambda item: item.worst_loss)
    entry, _ = max(item.old, key=lambda pair: pair[1].loss or 0.0)
    return item, entry


def start_scene() -> BoardScene:
    return BoardScene(Position.start())
