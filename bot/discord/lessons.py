"""The words and pictures of ``/bglearn``: the old masters' openings, puzzles, drills.

Pure presentation, like :mod:`bot.discord.presenter`: values from the core in,
embeds, lines and board scenes out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.core.model import GameState, GameSummary
from bot.core.openings import OpeningVerdict, ValuedPlay
from bot.core.progress import GameTimeline, RatingHistory, timeline
from bot.discord.limits import plain, visible
from engine import Position
from engine.openings import OpeningAdvice, opening_play
from renderer import BoardScene
from renderer.charts import GameChart, Mark, RatingChart

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


# -- charts ------------------------------------------------------------------------------------

MAX_CHARTS = 4
"""Game charts attached to one analysis (a long match's last games)."""


def game_chart(view: GameState | GameSummary, line: GameTimeline) -> GameChart:
    """The chart of one analysed game of ``view``'s match."""
    names = (view.players[0].name, view.players[1].name)
    which = f", game {line.number}" if view.game_count > 1 else ""
    title = f"Game #{view.id}{which} · {_name(names[0])} vs {_name(names[1])}"
    footer = "   ".join(
        f"{_name(names[seat])}: error rate {p.rate:.1f} · luck {p.luck:+.2f}"
        + (f" · {p.blunders} blunder{'s' if p.blunders != 1 else ''}" if p.blunders else "")
        for seat, p in enumerate(line.players)
    )
    return GameChart(
        title=title,
        names=names,
        moves=tuple(m.move for m in line.moves),
        movers=tuple(m.player for m in line.moves),
        win=tuple(m.win for m in line.moves),
        gammons=tuple(m.gammons for m in line.moves),
        luck=tuple(m.luck for m in line.moves),
        marks=tuple(Mark(m.move, m.player, m.kind, m.lost) for m in line.marks),
        footer=footer,
    )


def game_charts(view: GameState | GameSummary, details: dict[int, dict[str, Any]]) -> list[tuple[str, GameChart]]:
    """``(file name, chart)`` of the last :data:`MAX_CHARTS` analysed games with moves."""
    lines = [timeline(number, detail) for number, detail in sorted(details.items())]
    lines = [line for line in lines if line.moves][-MAX_CHARTS:]
    return [(f"analysis-{view.id}-{line.number}.png", game_chart(view, line)) for line in lines]


def rating_chart(name: str, place: str, history: RatingHistory) -> RatingChart | None:
    """The chart of a member's rated matches in a server (None before the first)."""
    if not history.matches:
        return None
    matches = history.matches
    best = history.best_win
    best_index = next((i for i, m in enumerate(matches) if m is best), None)
    best_label = ""
    subtitle = f"{history.wins} won · {history.losses} lost · {history.points:+d} points"
    if best is not None:
        best_label = f"beat {_name(best.opponent_name or 'someone', 14)} ({best.opponent_rating:.0f})"
        subtitle += f" · best win: {_name(best.opponent_name or 'someone', 14)} ({best.opponent_rating:.0f})"
    footer = ""
    if history.errors:
        recent = history.errors[-5:]
        footer = f"Error rate, last {len(recent)} analysed: {sum(e.rate for e in recent) / len(recent):.1f} (millipoints per decision)"
    return RatingChart(
        title=f"{_name(name)} · {_name(place, 24)}",
        times=tuple(m.at for m in matches),
        ratings=tuple(m.rating_after for m in matches),
        points=tuple(m.points or 0 for m in matches),
        won=tuple(m.won for m in matches),
        start_rating=history.start_rating,
        error_times=tuple(e.at for e in history.errors),
        error_rates=tuple(e.rate for e in history.errors),
        best_win=best_index,
        best_win_label=best_label,
        subtitle=subtitle,
        footer=footer,
    )


def _name(name: str, limit: int = 18) -> str:
    """A name for a chart: visible characters only, cut to ``limit``."""
    text = " ".join(visible(name).split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"
