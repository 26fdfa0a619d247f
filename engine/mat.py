"""Export to the Jellyfish ``.mat`` match format that GNU Backgammon imports.

The text is laid out byte for byte as GNU Backgammon's own ``export match
mat`` writes it, because its reader splits rows by that layout: a header,
`` N point match``, then per game a score line and numbered rows with player
0's actions in the left column (``"%3d) %-27s "``, always padded) and player
1's in the right. A drop or a resignation writes ``Wins N points`` in the
winner's column. Moves are written one die at a time with ``25`` for the bar
and ``0`` for off, hits marked ``*`` (docs/rules.md section 13).

A game set up from a position carries it on a ``; Set Pos=`` line, the
eXtreme Gammon extension GNU Backgammon reads (1.07 and later). Where GNU
Backgammon's own layout would mislead its reader (a "Wins" after the
winner's dice, a beaver no roll follows) the text takes the form the reader
gets right. What the format cannot say: the skipped turn of ``closed_out =
skip`` (written as an empty cell), a centred cube above 1 in a set-up game,
automatic doubles and a backgammon worth 4 (each written as the points
scored), a resignation before any dice of a game from the start were shown
(the reader ignores it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from engine.game import Game, Phase
from engine.gnubgid import decode_match_id
from engine.match import Match
from engine.moves import legal_plays
from engine.play import Play
from engine.position import BAR, OFF, Position
from engine.xgid import board_text

_LEFT_WIDTH = 27
_RIGHT_COLUMN = 34
"""Where the right column's ``Wins`` starts: after ``"%3d) %-27s "`` and a space."""


def _name(name: str) -> str:
    # One word, no colon: the .mat reader splits the score line on " : ".
    cleaned = "".join(c if c.isprintable() and c not in ":;" else "_" for c in name.strip())
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


def xg_position(position: Position) -> str:
    """The 26-character board of an XGID, ``position`` seen from player 0.

    Character 0 is player 1's bar, 1-24 player 0's points 1-24, 25 player 0's
    bar; ``A``-``P`` count player 0's checkers, ``a``-``p`` player 1's. (In a
    ``.mat`` file player 0 is in capitals; in an XGID, :mod:`engine.xgid`,
    GNU Backgammon reads capitals as player 1.)
    """
    return board_text(position)


def set_pos_line(position: Position, cube: int, owner: int | None) -> str:
    """``; Set Pos=<board>/<cube>``: ``position`` seen from player 0; the cube
    is ``0`` in the middle (value 1: the line cannot say more), ``-n`` owned
    by player 0 at 2**n, ``n`` owned by player 1."""
    log = cube.bit_length() - 1
    cube_text = "0" if owner is None else (f"-{log}" if owner == 0 else str(log))
    return f"; Set Pos={xg_position(position)}/{cube_text}"


# -- one game as GNU Backgammon's records ----------------------------------------


@dataclass(frozen=True, slots=True)
class _Record:
    """One entry of GNU Backgammon's game record, as ``ExportGameJF`` sees it."""

    kind: str
    """``move``, ``dice`` (rolled, then resigned), ``double``, ``take``, ``beaver``,
    ``drop``, ``resign`` or ``skip``."""
    player: int
    text: str = ""
    points: int = 0
    """``drop``/``resign``: what the winner scores; ``move``: what a bear-off wins (0 if none)."""


def _records(game: Game) -> tuple[str | None, list[_Record]]:
    """The ``; Set Pos=`` line (None for a game from the start) and the records of one game."""
    replayed = Game(game.settings, score=game.score, crawford=game.crawford, starter=game.starter)
    records: list[_Record] = []
    set_pos: str | None = None
    rolled: tuple[int, int, int] | None = None  # (player, high, low) of dice not played yet
    for action in game.log:
        kind = action.kind
        if action.auto and kind != "play":
            replayed.apply(action)
            if kind == "closed_out" and action.player is not None:
                records.append(_Record("skip", action.player))
            continue
        offer = replayed.opening_offer
        # Several plays to choose from: a forced play is read back as played.
        choice = (
            kind in ("accept", "forfeit")
            and replayed.dice is not None
            and len(legal_plays(replayed.position, replayed.dice)) > 1
        )
        replayed.apply(action)
        if kind == "setup":
            set_pos = set_pos_line(replayed.position_for(0), replayed.cube_value, replayed.cube_owner)
            if replayed.phase is Phase.DOUBLED and replayed.offered_cube is not None:
                records.append(_Record("double", 1 - replayed.turn, f" Doubles => {replayed.offered_cube}"))
            # From the ID itself: a roll that cannot be played is already over.
            rolled = _setup_roll(action.text or "")
        elif kind == "roll" and action.dice is not None and action.player is not None:
            # Taken from the log: a roll that cannot be played is already over.
            rolled = (action.player, max(action.dice), min(action.dice))
        elif kind == "use_opening" and offer is not None and action.player is not None:
            rolled = (action.player, offer.high, offer.low)
        elif kind == "opening" and replayed.dice is not None:
            rolled = (replayed.player_on_roll, replayed.dice.high, replayed.dice.low)
        if kind == "play" and action.player is not None and rolled is not None:
            assert replayed.last_play is not None
            _, play = replayed.last_play
            plain = format_play_plain(play)
            # GNU Backgammon writes a space after each of the first three moves.
            if 0 < len(play.moves) < 4:
                plain += " "
            won = replayed.result.points if replayed.result and replayed.result.reason == "bearoff" else 0
            records.append(_Record("move", action.player, f"{rolled[1]}{rolled[2]}: {plain}", won))
            rolled = None
        elif kind == "double" and action.player is not None:
            records.append(_Record("double", action.player, f" Doubles => {action.value}"))
        elif kind == "take" and action.player is not None:
            records.append(_Record("take", action.player, " Takes"))
        elif kind == "beaver" and action.player is not None:
            records.append(_Record("beaver", action.player, f" Beavers => {action.value}"))
        elif kind == "pass" and action.player is not None:
            assert replayed.result is not None
            records.append(_Record("drop", action.player, points=replayed.result.points))
        elif kind in ("accept", "forfeit") and replayed.result is not None:
            loser = 1 - replayed.result.winner
            # The dice of a roll left unplayed, unless the play was forced
            # (GNU Backgammon's reader would play it).
            if rolled is not None and choice:
                records.append(_Record("dice", rolled[0], f"{rolled[1]}{rolled[2]}: "))
            records.append(_Record("resign", loser, points=replayed.result.points))
    return set_pos, _beavers_taken(records)


def _beavers_taken(records: list[_Record]) -> list[_Record]:
    """A beaver is written ``Beavers => N`` and the reader takes it for the
    doubler at their next roll; where no roll follows (the game ends, or is
    not over), ``Doubles => N`` and an explicit ``Takes`` instead: GNU
    Backgammon's reader would carry a pending beaver into the next game and
    lose that game's first roll."""
    out: list[_Record] = []
    for index, record in enumerate(records):
        follows = records[index + 1].kind if index + 1 < len(records) else None
        if record.kind == "beaver" and follows not in ("move", "dice"):
            out.append(_Record("double", record.player, record.text.replace("Beavers", "Doubles")))
            out.append(_Record("take", 1 - record.player, " Takes"))
        else:
            out.append(record)
    return out


def _setup_roll(gnubg_id: str) -> tuple[int, int, int] | None:
    """(player, high, low) of the dice thrown in a set-up game's Match ID, or None."""
    _, _, match_id = gnubg_id.partition(":")
    if not match_id:
        return None
    state = decode_match_id(match_id)
    if state.dice == (0, 0):
        return None
    return state.player_on_roll, max(state.dice), min(state.dice)


def _wins(points: int) -> str:
    return f"Wins {points} point{'s' if points != 1 else ''}"


def _layout(records: list[_Record]) -> str:
    """The rows of one game, as GNU Backgammon's ``ExportGameJF`` lays them out.

    ``column`` counts cells as it does (even: left, odd: right); a cell in
    the other player's column first gets an empty cell, so that each column
    is one player's (the reader takes the left column as player 0's).
    """
    out: list[str] = []
    column = 0
    dice_rolled = False

    def cell(text: str, kind: str = "") -> None:
        nonlocal column
        if column & 1:
            out.append(text)
            if kind != "dice":
                out.append("\n")
        elif kind == "dice":
            out.append(f"{(column >> 1) + 1:3d}) {text:<3}")
        else:
            out.append(f"{(column >> 1) + 1:3d}) {text:<{_LEFT_WIDTH}} ")
        column += 1

    previous: _Record | None = None
    for record in records:
        if record.kind == "resign":
            # Written wherever the row stands: "Wins" goes in the winner's column.
            shifted = bool(column & 1) ^ dice_rolled
            if previous is not None and previous.kind == "dice" and previous.player != record.player:
                # After the winner's dice GNU Backgammon writes "Wins" on the
                # dice's row, where its reader takes it for a play: a row of its own.
                indent = "\n      " if record.player == 1 else "\n" + " " * _RIGHT_COLUMN
            elif record.player == 1:  # player 0 wins: the left column
                indent = "\n      " if shifted else "      "
            elif shifted:  # player 1 wins, on the row player 0 opened
                indent = " "
            else:  # after player 0's dice ("%3d) %-3s") or on a row of its own
                indent = " " * (24 if column & 1 else _RIGHT_COLUMN)
            out.append(f"{indent}{_wins(record.points)}\n\n")
            column += 1
            previous = record
            continue
        previous = record
        while (column & 1) != record.player:
            cell("")
        if record.kind == "move":
            dice_rolled = False
            cell(record.text)
            if record.points:
                indent = " " * _RIGHT_COLUMN if (column - 1) & 1 else "\n      "
                out.append(f"{indent}{_wins(record.points)}\n\n")
        elif record.kind == "dice":
            dice_rolled = True
            cell(record.text, "dice")
        elif record.kind == "drop":
            if column & 1:
                cell(f" Drops\n      {_wins(record.points)}")
            else:
                cell(f" Drops{' ' * 23}{_wins(record.points)}")
                out.append("\n\n")
        else:  # double, take, beaver, skip
            cell(record.text)
    text = "".join(out)
    if text and not text.endswith("\n"):
        text += "\n"  # an unfinished game: close its last row
    return text


def export_game_lines(game: Game, number: int, names: tuple[str, str]) -> list[str]:
    """The lines of one game in a .mat file (``number`` counts from 1)."""
    left = f"{_name(names[0])} : {game.score[0]}"
    header = [f" Game {number}", f" {left:<31}{_name(names[1])} : {game.score[1]}"]
    set_pos, records = _records(game)
    if set_pos is not None:
        header.append(set_pos)
    return header + _layout(records).split("\n")[:-1]


def export_games(
    games: Sequence[Game],
    names: tuple[str, str],
    *,
    match_length: int = 0,
    site: str = "Discord",
    event: str | None = None,
    played: date | None = None,
) -> str:
    """Games as one .mat text: a match to ``match_length`` points, or with 0
    a money session (each game's score line says the running score)."""
    lines = [f'; [Site "{site}"]']
    if event:
        lines.append(f'; [Event "{event}"]')
    if played:
        lines.append(f'; [EventDate "{played:%Y.%m.%d}"]')
    lines += ["", f" {match_length} point match", ""]
    for number, game in enumerate(games, start=1):
        lines += export_game_lines(game, number, names)
    return "\n".join(lines) + "\n"


def export_match(
    match: Match,
    names: tuple[str, str],
    *,
    site: str = "Discord",
    event: str | None = None,
    played: date | None = None,
) -> str:
    """The whole match as .mat text (a money game is written as a 0 point match)."""
    return export_games(match.games, names, match_length=match.length, site=site, event=event, played=played)
