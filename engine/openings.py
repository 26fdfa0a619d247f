"""The old masters' opening plays, in today's notation, with their own words.

Hoyle (*Hoyle's Games Modernized*, seed 004) goes through the opening throws
1-1 to 4-1, often with two plays: one "for a hit" (playing safe for a single
game) and one "for a gammon" (a bolder play). The Britannica (seed 001) gives
a play for more throws. In their day the first player threw both dice, so a
doublet could open the game: every play here starts from the opening position
and is played by the engine like any other (:func:`opening_play`).

Each entry keeps the text's words (:attr:`OpeningAdvice.words`, quoted as the
seed has them but for page marks and italics) and, where the words needed
reading, how they were read (:attr:`OpeningAdvice.note`). Points are the
mover's own: the adversary's ace point is our 24, his outer table's five men
our 13, our bar point 7, and the outer table's points count from the bar
(ace = 7, deuce = 8, ... cinque = 11).

Seed 000 (the Britannica's ninth edition) has the rules and the odds table
but no opening plays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.dice import Roll
from engine.notation import parse_play
from engine.play import Play
from engine.position import Position


@dataclass(frozen=True, slots=True)
class Source:
    """A text the plays come from."""

    key: str
    title: str
    seed: str
    """The seed file it was read from (in the project's ``shared/seeds``)."""


HOYLE = Source("hoyle", "Hoyle's Games Modernized (Hoffmann)", "004_f226e37189d6b098.txt")
BRITANNICA = Source("britannica", "Encyclopædia Britannica", "001_4c1fc3edc74b5f8f.txt")
SOURCES = {source.key: source for source in (HOYLE, BRITANNICA)}


@dataclass(frozen=True, slots=True)
class OpeningAdvice:
    """One recommended play of an opening throw, as an old text gives it."""

    roll: tuple[int, int]
    """(high die, low die)."""
    play: str
    """Today's notation, as the engine writes it (:func:`engine.format_play`)."""
    source: str
    """``hoyle`` or ``britannica`` (:data:`SOURCES`)."""
    aim: str
    """What the text plays it for: ``for a hit``, ``for a gammon``, ``bolder``, ...; empty for its one play."""
    words: str
    """The text's own words."""
    note: str = ""
    """How the words were read, where they needed reading."""

    @property
    def roll_text(self) -> str:
        return f"{self.roll[0]}-{self.roll[1]}"

    @property
    def title(self) -> str:
        return SOURCES[self.source].title


def _h(roll: tuple[int, int], play: str, aim: str, words: str, note: str = "") -> OpeningAdvice:
    return OpeningAdvice(roll, play, HOYLE.key, aim, words, note)


def _b(roll: tuple[int, int], play: str, words: str, aim: str = "", note: str = "") -> OpeningAdvice:
    return OpeningAdvice(roll, play, BRITANNICA.key, aim, words, note)


OPENINGS: tuple[OpeningAdvice, ...] = (
    # -- Hoyle ---------------------------------------------------------------------------------
    _h(
        (1, 1),
        "8/7(2) 6/5(2)",
        "",
        '(The best possible throw at starting.) Play two men on your "bar" point, and two on your cinque point.',
    ),
    _h(
        (2, 1),
        "24/23 13/11",
        "for a hit",
        "For a hit, play the deuce from the five men in your adversary's outer-table, "
        "and the ace from the ace point in his inner table.",
    ),
    _h(
        (2, 1),
        "13/11 6/5",
        "for a gammon",
        "For a gammon, play the ace from the six to the ace point in your own table.",
        "An ace from the six-point lands on the cinque point (the text's 'to the ace point' can't be an ace); "
        "the deuce is played from the five men as before.",
    ),
    _h(
        (2, 2),
        "24/22(2) 6/4(2)",
        "for a hit",
        "For a hit, play two from the six to the quatre point in your own table, and the other two from the ace "
        "to the trois point in your opponent's inner table.",
    ),
    _h(
        (2, 2),
        "13/11(2) 6/4(2)",
        "for a gammon",
        "For a gammon, play the second pair from the five men in his outer table.",
    ),
    _h((3, 1), "8/5 6/5", "", "TROIS ACE.--Make your cinque point."),
    _h(
        (3, 2),
        "13/11 13/10",
        "bolder (preferred)",
        "The approved play is to carry two men from the five in your adversary's outer table to the quatre and "
        "cinque points in your own outer table.",
    ),
    _h(
        (3, 2),
        "13/8",
        "for a hit",
        "To avoid this, some, for a hit, play one man from the same point to the deuce point in the "
        "above-mentioned table, but the bolder play is to be preferred.",
    ),
    _h((3, 3), "13/7(2)", "some players", "Some players make the bar point."),
    _h(
        (3, 3),
        "24/21(2) 8/5(2)",
        "for a hit",
        "The more usual play is, for a hit, to play two to the cinque point in the player's own, and the other "
        "two to the quatre point in the adversary's table.",
    ),
    _h(
        (3, 3),
        "8/5(2) 6/3(2)",
        "for a gammon",
        "For a gammon, play the last two from the six to the trois point in your own table.",
    ),
    _h(
        (4, 1),
        "24/23 13/9",
        "",
        "Play the quatre from the five men in your opponent's outer table, and the ace from his ace point.",
    ),
    _h(
        (4, 1),
        "13/8",
        "timid (not recommended)",
        "Timid players, fearing to leave two blots, sometimes play the whole throw from the first-mentioned "
        "point, but the plan is not to be recommended.",
    ),
    # -- the Britannica ------------------------------------------------------------------------
    _b(
        (1, 1), "8/7(2) 6/5(2)", "Aces (the best of all throws), move two on your bar-point and two on your five-point."
    ),
    _b((3, 1), "8/5 6/5", "Ace, trey: make the five-point in your inner table."),
    _b((6, 1), "13/7 8/7", "Ace, six: make your bar-point."),
    _b(
        (2, 2),
        "24/22(2) 6/4(2)",
        "Deuces: move two on the four-point in your inner table, and two on the trey-point in your "
        "opponent's inner table.",
    ),
    _b((4, 2), "8/4 6/4", "Deuce, four: make the four-point in your own table."),
    _b(
        (3, 3),
        "24/21(2) 8/5(2)",
        "Threes: play two on the five-point in your inner table, and two on the four-point of your "
        "adversary's inner table",
    ),
    _b((3, 3), "13/7(2)", "or make your bar-point.", aim="or"),
    _b((5, 3), "8/3 6/3", "Trey, five: make the trey-point in your own table."),
    _b((6, 3), "24/15", "Trey, six: bring a man from your adversary's ace-point as far as he will go."),
    _b(
        (4, 4),
        "24/20(2) 13/9(2)",
        "Fours: move on two on the five-point in your adversary's inner table, and two from the five in "
        "his outer table.",
    ),
    _b((5, 4), "24/15", "Four, five and four, six: carry a man from your adversary's ace-point as far as he will go."),
    _b((6, 4), "24/14", "Four, five and four, six: carry a man from your adversary's ace-point as far as he will go."),
    _b(
        (5, 5),
        "13/3(2)",
        "Fives: move two men from the five in your adversary's outer table to the trey-point in your inner table.",
    ),
    _b((6, 5), "24/13", "Five, six: move a man from your adversary's ace-point as far as he will go."),
    _b(
        (6, 6),
        "24/18(2) 13/7(2)",
        "Sixes (the second-best throw): move two on your adversary's bar-point and two on your own bar-point.",
    ),
)
"""Every play the texts recommend, Hoyle's first."""


def covered_rolls() -> tuple[tuple[int, int], ...]:
    """The opening throws the texts give a play for, as ``(high, low)``, 1-1 first."""
    return tuple(sorted({entry.roll for entry in OPENINGS}, key=lambda r: (r[0], r[1])))


def advice_for(roll: tuple[int, int] | Roll) -> tuple[OpeningAdvice, ...]:
    """The texts' plays of one throw (either order of the dice), Hoyle's first."""
    if isinstance(roll, Roll):
        key = (roll.high, roll.low)
    else:
        key = (max(roll), min(roll))
    return tuple(entry for entry in OPENINGS if entry.roll == key)


def opening_play(entry: OpeningAdvice) -> Play:
    """The entry's play from the opening position, as the engine plays it.

    :raises engine.NotationError: if the notation is not a legal play of the throw
        (never, for :data:`OPENINGS`: the tests play each one).
    """
    return parse_play(Position.start(), Roll(*entry.roll), entry.play)


_ROLL = re.compile(r"^\s*([1-6])\s*[-/ ,x]?\s*([1-6])\s*$")


def parse_roll(text: str) -> tuple[int, int]:
    """``"6-1"``, ``"16"``, ``"1 6"`` -> ``(6, 1)``.

    :raises ValueError: for anything else.
    """
    match = _ROLL.match(text)
    if match is None:
        raise ValueError(f"a throw is two dice like 6-1, not {text!r}")
    a, b = int(match[1]), int(match[2])
    return (max(a, b), min(a, b))


__all__ = [
    "BRITANNICA",
    "HOYLE",
    "OPENINGS",
    "SOURCES",
    "OpeningAdvice",
    "Source",
    "advice_for",
    "covered_rolls",
    "opening_play",
    "parse_roll",
]
