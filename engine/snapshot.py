"""A match's whole state as one text, read back without replaying its log.

Rebuilding a :class:`~engine.match.Match` from its log replays every action:
each roll finds the legal plays again, each play is read against them. A
snapshot holds what that replay leaves behind, so a long match comes back at
the cost of reading one JSON document::

    >>> from engine import Match, SeededDice
    >>> match = Match(dice=SeededDice(1))
    >>> game = match.new_game(); _ = game.opening_roll()
    >>> text = format_snapshot(match)
    >>> again = parse_snapshot(text)
    >>> format_snapshot(again) == text and again.log == match.log
    True

The text is JSON: ``{"format": 1, "settings": {...}, "games": [...]}``, one
entry per game of the match in order, each with every field a game's rules
read (phase, turn, player on roll, position as a GNU Backgammon Position ID,
dice, opening throw and offer, cube, pending double and resignation, result,
last play, unplayed dice) and **its whole action log**. The logs stay in the
snapshot because a match keeps its history: exports (``.mat``), replays,
analyses, the summary written when the match ends and the narration of each
step read the earlier games' logs, so a match parsed from a snapshot must hold
them exactly as a replay would (the price: a snapshot grows with the log, about
50 bytes an action; it is still read without replaying anything).

A snapshot is taken between actions, where a replay has read every entry its
log holds (the automatic entries an action made included). The dice source is
not part of it: the caller gives the one the match goes on with.

:data:`FORMAT` changes whenever this layout changes *or* the rules would
replay a log differently; a snapshot of another format is refused with
:class:`SnapshotError` (whoever stored it should replay the log instead).
"""

from __future__ import annotations

import json
from typing import Any

from engine.dice import DiceSource, Roll
from engine.game import Action, Game, GameError, GameResult, GameSettings, Phase, WinKind, _Snapshot
from engine.match import Match
from engine.play import Move, Play
from engine.position import IdError, PositionError, decode_position_id

FORMAT = 1
"""The snapshot layout (and rules) version written by :func:`format_snapshot`."""

__all__ = ["FORMAT", "SnapshotError", "format_snapshot", "parse_snapshot", "snapshot_format"]


class SnapshotError(ValueError):
    """Raised when a text is not a snapshot this engine can read: not JSON, another
    :data:`FORMAT`, a missing field or a value of the wrong kind, or a state
    that does not hold together (a position that is no position, a log shorter
    than the game it describes)."""


# -- writing ------------------------------------------------------------------------


def format_snapshot(match: Match) -> str:
    """The snapshot of ``match`` as it stands (compact JSON, keys in a fixed order)."""
    return json.dumps(
        {
            "format": FORMAT,
            "settings": match.settings.to_dict(),
            "games": [_game_to_dict(game, match.settings) for game in match.games],
        },
        separators=(",", ":"),
    )


def _game_to_dict(game: Game, settings: GameSettings) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if game.settings != settings:  # a set-up position or an old log's rule
        data["settings"] = game.settings.to_dict()
    data["score"] = list(game.score)
    data["crawford"] = game.crawford
    data["starter"] = game.starter
    data["phase"] = game.phase.value
    data["turn"] = game.turn
    data["on_roll"] = game.player_on_roll
    data["position"] = game.position.position_id()
    data["dice"] = _roll_to_list(game.dice)
    data["opening_dice"] = list(game.opening_dice) if game.opening_dice is not None else None
    data["opening_offer"] = _roll_to_list(game.opening_offer)
    data["cube"] = [game.cube_value, game.cube_owner, game.cube_turned, game.offered_cube]
    data["resignation"] = list(game.resignation) if game.resignation is not None else None
    before = game._before_resignation
    data["before_resignation"] = [before.phase.value, before.turn] if before is not None else None
    data["result"] = game.result.to_dict() if game.result is not None else None
    if game.last_play is not None:
        player, play = game.last_play
        data["last_play"] = {
            "player": player,
            "moves": [[m.source, m.destination, int(m.hit)] for m in play.moves],
            "position": play.position.position_id(),
        }
    else:
        data["last_play"] = None
    data["unplayed_dice"] = _roll_to_list(game.unplayed_dice)
    data["log"] = [action.to_dict() for action in game.log]
    return data


def _roll_to_list(roll: Roll | None) -> list[int] | None:
    return [roll.die1, roll.die2] if roll is not None else None


# -- reading ------------------------------------------------------------------------


def snapshot_format(text: str) -> int | None:
    """The :data:`FORMAT` a snapshot says it was written in (None if it says none
    or is not JSON): a cheap look before :func:`parse_snapshot`."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return None
    value = data.get("format") if isinstance(data, dict) else None
    return value if _whole(value) else None


def parse_snapshot(text: str, *, dice: DiceSource | None = None) -> Match:
    """The match a snapshot holds, going on with ``dice`` (as :meth:`Match.replay`
    would be given them: every game of the match shares the source).

    :raises SnapshotError: if ``text`` is not a snapshot of :data:`FORMAT` or
        does not describe a state a match can be in.
    """
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise SnapshotError(f"a snapshot is JSON: {error}") from None
    if not isinstance(data, dict):
        raise SnapshotError("a snapshot is a JSON object")
    if data.get("format") != FORMAT:
        raise SnapshotError(f"snapshot format {data.get('format')!r}; this engine reads format {FORMAT}")
    settings = _settings(_field(data, "settings", dict), "the match")
    match = Match(settings, dice=dice)
    games = _field(data, "games", list)
    for number, entry in enumerate(games, start=1):
        if not isinstance(entry, dict):
            raise SnapshotError(f"game {number} of a snapshot is a JSON object")
        try:
            match.games.append(_game_from_dict(entry, settings, dice, number))
        except SnapshotError:
            raise
        except (GameError, IdError, PositionError, ValueError, TypeError) as error:
            raise SnapshotError(f"game {number} of the snapshot: {error}") from None
    for game in match.games[:-1]:
        if not game.is_over:
            raise SnapshotError("only the last game of a match may still be in play")
    return match


def _game_from_dict(data: dict[str, Any], settings: GameSettings, dice: DiceSource | None, number: int) -> Game:
    where = f"game {number}"
    if "settings" in data:
        settings = _settings(_field(data, "settings", dict, where), where)
    score = _pair(_field(data, "score", list, where), where, "score")
    game = Game(settings, dice=dice, score=score, crawford=_field(data, "crawford", bool, where))
    starter = data.get("starter")
    if starter is not None and starter not in (0, 1):
        raise SnapshotError(f"{where}: the starter is player 0 or 1, not {starter!r}")
    game.starter = starter
    game.phase = Phase(_field(data, "phase", str, where))
    game.turn = _seat(data.get("turn"), where, "turn")
    game.player_on_roll = _seat(data.get("on_roll"), where, "player on roll")
    game.position = decode_position_id(_field(data, "position", str, where))
    game.dice = _roll(data.get("dice"), where, "dice")
    opening = data.get("opening_dice")
    game.opening_dice = None if opening is None else _pair(opening, where, "opening throw")
    game.opening_offer = _roll(data.get("opening_offer"), where, "opening offer")
    cube = _field(data, "cube", list, where)
    if len(cube) != 4:
        raise SnapshotError(f"{where}: the cube is [value, owner, turned, offered], not {cube!r}")
    value, owner, turned, offered = cube
    if not (_whole(value) and value >= 1) or owner not in (None, 0, 1) or not isinstance(turned, bool):
        raise SnapshotError(f"{where}: the cube is [value, owner, turned, offered], not {cube!r}")
    if offered is not None and not _whole(offered):
        raise SnapshotError(f"{where}: the cube offered is a whole number, not {offered!r}")
    game.cube_value, game.cube_owner, game.cube_turned, game.offered_cube = value, owner, turned, offered
    resignation = data.get("resignation")
    if resignation is not None:
        player, level = _pair(resignation, where, "resignation")
        game.resignation = (_seat(player, where, "resigning player"), WinKind(level))
    before = data.get("before_resignation")
    if before is not None:
        if not (isinstance(before, list) and len(before) == 2 and isinstance(before[0], str)):
            raise SnapshotError(f"{where}: the state before a resignation is [phase, turn], not {before!r}")
        game._before_resignation = _Snapshot(Phase(before[0]), _seat(before[1], where, "turn"))
    result = data.get("result")
    if result is not None:
        if not isinstance(result, dict):
            raise SnapshotError(f"{where}: a result is a JSON object, not {result!r}")
        game.result = GameResult(
            winner=_seat(result.get("winner"), where, "winner"),
            kind=WinKind(_number(result.get("kind"), where, "result's kind")),
            cube=_number(result.get("cube"), where, "result's cube"),
            points=_number(result.get("points"), where, "result's points"),
            reason=_field(result, "reason", str, where),
        )
    last = data.get("last_play")
    if last is not None:
        if not isinstance(last, dict):
            raise SnapshotError(f"{where}: the last play is a JSON object, not {last!r}")
        moves = []
        for move in _field(last, "moves", list, where):
            if not (isinstance(move, list) and len(move) == 3 and all(_whole(x) for x in move)):
                raise SnapshotError(f"{where}: a move is [from, to, hit], not {move!r}")
            if not (0 <= move[0] <= 25 and 0 <= move[1] <= 25):
                raise SnapshotError(f"{where}: a move goes between points 0 and 25, not {move!r}")
            moves.append(Move(move[0], move[1], bool(move[2])))
        play = Play(tuple(moves), decode_position_id(_field(last, "position", str, where)))
        game.last_play = (_seat(last.get("player"), where, "last player"), play)
    game.unplayed_dice = _roll(data.get("unplayed_dice"), where, "unplayed dice")
    game.log = [Action.from_dict(entry) for entry in _field(data, "log", list, where)]
    game._cursor = len(game.log)
    if game.phase is Phase.OVER and game.result is None or game.phase is not Phase.OVER and game.result is not None:
        raise SnapshotError(f"{where}: a game has a result exactly when it is over")
    if game.phase is Phase.PLAY and game.dice is None:
        raise SnapshotError(f"{where}: dice to play are missing")
    if game.phase is Phase.RESIGNATION and (game.resignation is None or game._before_resignation is None):
        raise SnapshotError(f"{where}: a resignation is pending without its offer")
    if game.phase is Phase.DOUBLED and game.offered_cube is None:
        raise SnapshotError(f"{where}: a double is pending without the cube offered")
    if not game.log and game.phase is not Phase.OPENING:
        raise SnapshotError(f"{where}: a game under way has a log")
    return game


def _field(data: dict[str, Any], name: str, kind: type, where: str = "the snapshot") -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise SnapshotError(f"{where}: {name!r} is a {kind.__name__}, not {_short(value)}")
    return value


def _settings(data: dict[str, Any], where: str) -> GameSettings:
    try:
        return GameSettings.from_dict(data)
    except (TypeError, ValueError) as error:
        raise SnapshotError(f"{where}: settings no game can be played by: {error}") from None


def _pair(value: Any, where: str, what: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2 and all(_whole(x) for x in value)):
        raise SnapshotError(f"{where}: the {what} is two whole numbers, not {_short(value)}")
    return value[0], value[1]


def _roll(value: Any, where: str, what: str) -> Roll | None:
    if value is None:
        return None
    die1, die2 = _pair(value, where, what)
    return Roll(die1, die2)


def _seat(value: Any, where: str, what: str) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise SnapshotError(f"{where}: the {what} is player 0 or 1, not {_short(value)}")
    return int(value)


def _number(value: Any, where: str, what: str) -> int:
    if not _whole(value):
        raise SnapshotError(f"{where}: the {what} is a whole number, not {_short(value)}")
    return int(value)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
