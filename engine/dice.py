"""Dice: a roll value type, dice sources, and the opening throw."""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Roll:
    """Two dice as thrown. ``Roll(6, 5)`` and ``Roll(5, 6)`` are different throws
    of the same roll; :attr:`high` and :attr:`low` order them."""

    die1: int
    die2: int

    def __deepcopy__(self, memo: dict[int, object]) -> Roll:
        return self  # immutable: copies of a game share it

    def __post_init__(self) -> None:
        for die in (self.die1, self.die2):
            # bool is an int to Python, but True is no die.
            if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
                raise ValueError(f"a die shows 1 to 6, not {die!r}")

    @property
    def high(self) -> int:
        return max(self.die1, self.die2)

    @property
    def low(self) -> int:
        return min(self.die1, self.die2)

    @property
    def is_double(self) -> bool:
        return self.die1 == self.die2

    def moves(self) -> tuple[int, ...]:
        """The dice to be played: four of a number for doubles, else both dice."""
        return (self.die1,) * 4 if self.is_double else (self.die1, self.die2)

    @property
    def pips(self) -> int:
        return sum(self.moves())

    def __str__(self) -> str:
        """``"65"``, high die first, as GNU Backgammon writes a roll."""
        return f"{self.high}{self.low}"

    @classmethod
    def parse(cls, text: str) -> Roll:
        """Read ``"65"``, ``"6-5"``, ``"6 5"`` or ``"6,5"``."""
        digits = [c for c in text if c.isdigit()]
        if len(digits) != 2:
            raise ValueError(f"a roll is two dice, like 6-5, not {text!r}")
        return cls(int(digits[0]), int(digits[1]))


class DiceSource(Protocol):
    """Anything that throws one die at a time."""

    def die(self) -> int:
        """A uniformly random integer from 1 to 6."""
        ...


class SecureDice:
    """Dice from the operating system's cryptographically secure generator."""

    def die(self) -> int:
        return secrets.randbelow(6) + 1


class SeededDice:
    """Reproducible dice for tests and simulations (not for players)."""

    def __init__(self, seed: int | float | str | bytes = 0) -> None:
        self._random = random.Random(seed)

    def die(self) -> int:
        return self._random.randint(1, 6)


class ScriptedDice:
    """Dice that come out in a given order (for scripted tests)."""

    def __init__(self, dice: list[int] | tuple[int, ...]) -> None:
        self._dice = list(dice)

    def die(self) -> int:
        if not self._dice:
            raise IndexError("the scripted dice have run out")
        return self._dice.pop(0)


def roll(source: DiceSource) -> Roll:
    """Throw two dice."""
    return Roll(source.die(), source.die())
