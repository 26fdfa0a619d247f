"""The period words of backgammon, as engine data a player can be shown.

The old rule texts (Hoyle, the Britannica; ``shared/seeds``) name the games,
the dice and the board in words today's players rarely meet. :data:`GLOSSARY`
explains each in plain words; :func:`call` names a throw as those texts do
("six deuce", "double trois"). The meanings are ours (docs/rules.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.dice import Roll


@dataclass(frozen=True, slots=True)
class Term:
    """One word of the old texts."""

    word: str
    group: str
    """``game`` (what a game is worth), ``die`` (a number on a die, and the point of that number) or ``board``."""
    meaning: str
    said: str | None = None
    """How the period texts say it, where that is not how it is spelled."""


GLOSSARY: tuple[Term, ...] = (
    Term(
        "hit",
        "game",
        "A single game: the winner bore off all fifteen checkers after the loser had begun bearing off. "
        "It counts one. (To hit a blot is also to land on it and send it to the bar.)",
    ),
    Term(
        "gammon",
        "game",
        "A double game: the winner bore off everything before the loser bore off a single checker. It counts two.",
    ),
    Term(
        "backgammon",
        "game",
        "A triple game: a gammon where the loser still has a checker on the bar or in the winner's home table. "
        "It counts three, or four where the players have agreed so.",
    ),
    Term("ace", "die", "The one on a die, and a player's one-point, the farthest point of the home table."),
    Term("deuce", "die", "The two on a die, and the two-point."),
    Term("trois", "die", "The three on a die, and the three-point.", said="trey"),
    Term("quatre", "die", "The four on a die, and the four-point.", said="cater"),
    Term("cinque", "die", "The five on a die, and the five-point.", said="sink"),
    Term(
        "six", "die", "The six on a die, and the six-point, the point of the home table next to the bar.", said="size"
    ),
    Term(
        "blot",
        "board",
        "A checker standing alone on a point. The opponent may land on it: it goes to the bar and starts again.",
    ),
    Term(
        "point",
        "board",
        "One of the twenty-four narrow triangles a checker stands on. To make a point is to put two or more "
        "of your checkers on it: the opponent may then not land there.",
    ),
    Term(
        "table",
        "board",
        "One of the four quarters of the board, six points each: each player's home (inner) table, where the "
        "checkers are borne off from, and outer table.",
    ),
    Term(
        "bar",
        "board",
        "The ridge across the middle of the board. A checker that is hit waits on it until it enters the "
        "opponent's home table. The point next to it in the outer table is the bar point.",
    ),
)

DIE_NAMES = {1: "ace", 2: "deuce", 3: "trois", 4: "quatre", 5: "cinque", 6: "six"}
"""The period name of each number on a die."""


def term(word: str) -> Term:
    """The glossary entry for ``word`` (any case).

    :raises KeyError: if the glossary has no such word.
    """
    wanted = word.strip().lower()
    for entry in GLOSSARY:
        if entry.word == wanted:
            return entry
    raise KeyError(f"the glossary has no word {word[:40]!r}")


def call(roll: Roll) -> str:
    """A throw called as the old texts call it, the higher number first:
    ``six deuce``, ``cinque trois``; doublets ``aces``, ``deuces`` or
    ``double trois`` (Hoyle)."""
    if roll.is_double:
        return {1: "aces", 2: "deuces"}.get(roll.high, f"double {DIE_NAMES[roll.high]}")
    return f"{DIE_NAMES[roll.high]} {DIE_NAMES[roll.low]}"
