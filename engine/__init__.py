"""The rules of backgammon, pure and synchronous (docs/rules.md).

One obvious entry point per job::

    >>> from engine import Position, Roll, legal_plays, parse_play, format_play
    >>> position = Position.start()
    >>> play = parse_play(position, Roll(3, 1), "8/5 6/5")
    >>> format_play(play)
    '8/5 6/5'
    >>> play.position.swap().position_id()
    'sGfwATDgc/ABMA'
"""

from engine.analysis import all_rolls, blot_exposure, blots, direct_shots, pip_count, shot_count, total_exposure
from engine.dice import DiceSource, Roll, ScriptedDice, SecureDice, SeededDice, roll
from engine.game import (
    UNLIMITED,
    Action,
    Game,
    GameError,
    GameResult,
    GameSettings,
    LogError,
    Phase,
    SetupError,
    WinKind,
)
from engine.glossary import GLOSSARY, Term, call
from engine.gnubgid import MatchState, decode_match_id, encode_match_id
from engine.mat import export_games, export_match
from engine.match import Match
from engine.moves import legal_plays
from engine.notation import IllegalPlayError, NotationError, parse_moves, parse_play
from engine.play import Move, Play, Step, format_moves, format_play, format_point, next_steps
from engine.position import BAR, CHECKERS, OFF, IdError, Position, PositionError, decode_position_id, encode_position_id
from engine.snapshot import SnapshotError, format_snapshot, parse_snapshot
from engine.xgid import Xgid, XgidError, format_xgid, parse_xgid

__all__ = [
    "BAR",
    "CHECKERS",
    "GLOSSARY",
    "OFF",
    "UNLIMITED",
    "Action",
    "DiceSource",
    "Game",
    "GameError",
    "GameResult",
    "GameSettings",
    "IdError",
    "IllegalPlayError",
    "LogError",
    "Match",
    "MatchState",
    "Move",
    "NotationError",
    "Phase",
    "Play",
    "Position",
    "PositionError",
    "Roll",
    "ScriptedDice",
    "SecureDice",
    "SeededDice",
    "SetupError",
    "SnapshotError",
    "Step",
    "Term",
    "WinKind",
    "Xgid",
    "XgidError",
    "all_rolls",
    "blot_exposure",
    "blots",
    "call",
    "decode_match_id",
    "decode_position_id",
    "direct_shots",
    "encode_match_id",
    "encode_position_id",
    "export_games",
    "export_match",
    "format_moves",
    "format_play",
    "format_point",
    "format_snapshot",
    "format_xgid",
    "legal_plays",
    "next_steps",
    "parse_moves",
    "parse_play",
    "parse_snapshot",
    "parse_xgid",
    "pip_count",
    "roll",
    "shot_count",
    "total_exposure",
]
