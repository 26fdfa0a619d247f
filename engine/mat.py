"""Export to the Jellyfish ``.mat`` match format that GNU Backgammon imports.

The layout follows GNU Backgammon's own export: a header, `` N point match``,
then per game a score line and numbered rows with player 0's actions in the
left column and player 1's in the right. Moves are written one die at a time
with ``25`` for the bar and ``0`` for off, hits marked ``*`` (docs/rules.md
section 13).
"""

from __future__ import annotations

from datetime import date

from engine.game import Game
from engine.match import Match
from engine.play import Play
from engine.position import BAR, OFF

_LEFT_WIDTH = 27


def _name(name: str) -> str:
    # One word, no colon: the .mat reader splits the score line on " : ".
    cleaned = "".join(c if c.isprintable() and c not in ":" else "_" for c in name.strip())
    return "_".join(cleaned.split()) or "player"


def format_play_plain(play: Play) -> str:
    """A play one die at a time, sources descending, ``25``/``0`` for bar/off."""
    hops = sorted(play.moves, key=lambda m: (m.source, m.destination), reverse=True)
    hit_points = {m.destination for m in play.moves if m.hit}
    marked: set[int] = set()
    parts = []
    for move in hops:
        text = f"{move.source if move.source != BAR else 25}/{move.destination if move.destination != OFF else 0}"
        if move.destination in hit_points and move.destination not in marked:
            text += "*"
            marked.add(move.destination)
        parts.append(text)
    return " ".join(parts)


def _game_cells(game: Game) -> list[tuple[int, str]]:
    """(player, text) for each column entry of one game, in order."""
    replayed = Game(game.settings, score=game.score, crawford=game.crawford)
    cells: list[tuple[int, str]] = []
    dice = ""
    for action in game.log:
        kind = action.kind
        if kind in ("roll", "opening") and action.dice is not None:
            high, low = max(action.dice), min(action.dice)
            dice = f"{high}{low}"
        if kind == "play" and action.player is not None:
            replayed.apply(action)  # an automatic lost turn was already made by the roll
            assert replayed.last_play is not None
            _, play = replayed.last_play
            cells.append((action.player, f"{dice}: {format_play_plain(play)}".rstrip()))
            continue
        replayed.apply(action)
        if kind == "closed_out" and action.player is not None:
            cells.append((action.player, ""))
        elif kind == "double" and action.player is not None:
            cells.append((action.player, f" Doubles => {action.value}"))
        elif kind == "take" and action.player is not None:
            cells.append((action.player, " Takes"))
        elif kind == "beaver" and action.player is not None:
            cells.append((action.player, f" Beavers => {action.value}"))
        elif kind == "pass" and action.player is not None:
            cells.append((action.player, " Drops"))
    return cells


def _wins(points: int) -> str:
    return f"Wins {points} point{'s' if points != 1 else ''}"


def export_game_lines(game: Game, number: int, names: tuple[str, str]) -> list[str]:
    """The lines of one game in a .mat file (``number`` counts from 1)."""
    left = f"{_name(names[0])} : {game.score[0]}"
    lines = [f" Game {number}", f" {left:<31}{_name(names[1])} : {game.score[1]}"]
    row, current = 1, None
    for player, text in _game_cells(game):
        if player == 0:
            if current is not None:
                lines.append(current.rstrip())
                row += 1
            current = f"{row:3d}) {text:<{_LEFT_WIDTH}} "
        else:
            if current is None:
                current = f"{row:3d}) {'':<{_LEFT_WIDTH}} "
            lines.append(current + text)
            row += 1
            current = None
    if current is not None:
        lines.append(current.rstrip())
    if game.result is not None:
        indent = " " * 6 if game.result.winner == 0 else " " * 34
        lines.append(f"{indent}{_wins(game.result.points)}")
    lines.append("")
    return lines


def export_match(
    match: Match,
    names: tuple[str, str],
    *,
    site: str = "Discord",
    event: str | None = None,
    played: date | None = None,
) -> str:
    """The whole match as .mat text (a money game is written as a 0 point match)."""
    lines = [f'; [Site "{site}"]']
    if event:
        lines.append(f'; [Event "{event}"]')
    if played:
        lines.append(f'; [EventDate "{played:%Y.%m.%d}"]')
    lines += ["", f" {match.length} point match", ""]
    for number, game in enumerate(match.games, start=1):
        lines += export_game_lines(game, number, names)
    return "\n".join(lines) + "\n"
