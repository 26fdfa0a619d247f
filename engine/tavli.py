"""Tavli: the Greek evening of three games in turn (docs/rules.md section 23).

A match to 3, 5 or 7 points that cycles **portes** (backgammon without the
cube, :meth:`engine.game.GameSettings.portes`), **plakoto**
(:mod:`engine.plakoto`) and **fevga** (:mod:`engine.fevga`), then portes
again, one score across them all. The first game opens with a throw of one
die each; from then on the winner of the previous game starts the next
without an opening throw. A game scores 1 or 2 points (no cube); the match
ends as soon as a player reaches the length, the winner's score stopping there.
"""

from __future__ import annotations

from typing import Any

from engine.dice import DiceSource
from engine.game import Action, Game, GameError, GameSettings, LogError, final_score
from engine.reasons import Reason, game_name
from engine.variants import TablesGame

CYCLE = ("portes", "plakoto", "fevga")
"""The order of the games, started again after fevga."""

LENGTHS = (3, 5, 7)
"""The lengths a tavli match is played to."""


class Tavli:
    """A tavli match to ``length`` points."""

    def __init__(self, length: int = 5, *, dice: DiceSource | None = None) -> None:
        if length not in LENGTHS:
            raise ValueError(f"tavli is played to 3, 5 or 7 points, not {length!r}")
        self.length = length
        self.dice_source = dice
        self.games: list[Game | TablesGame] = []

    @property
    def game(self) -> Game | TablesGame | None:
        return self.games[-1] if self.games else None

    def kind_of(self, number: int) -> str:
        """Which game the ``number``-th game (from 1) is."""
        return CYCLE[(number - 1) % len(CYCLE)]

    @property
    def score(self) -> tuple[int, int]:
        score = (0, 0)
        for game in self.games:
            if game.result is not None:
                score = final_score(score, game.result, self.length)
        return score

    @property
    def is_over(self) -> bool:
        return bool(self.games) and self.games[-1].is_over and max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        if not self.is_over:
            return None
        s0, s1 = self.score
        return 0 if s0 > s1 else 1

    def next_starter(self) -> int | None:
        """The winner of the last game, or None before the first (an opening throw)."""
        if not self.games or self.games[-1].result is None:
            return None
        return self.games[-1].result.winner

    def new_game(self) -> Game | TablesGame:
        """Start the next game of the cycle."""
        if self.games and not self.games[-1].is_over:
            raise GameError(Reason("the current game is not over"))
        if self.is_over:
            raise GameError(Reason("the match is over"))
        kind = self.kind_of(len(self.games) + 1)
        starter = self.next_starter()
        game: Game | TablesGame
        if kind == "portes":
            settings = GameSettings.portes(self.length)
            game = Game(settings, dice=self.dice_source, score=self.score, starter=starter)
        else:
            game = TablesGame(kind, dice=self.dice_source, starter=starter, score=self.score)
        self.games.append(game)
        return game

    @property
    def log(self) -> list[Action]:
        """Each game's log after a ``game`` marker (``value`` its number, ``text`` its kind)."""
        actions: list[Action] = []
        for number, game in enumerate(self.games, start=1):
            actions.append(Action("game", value=number, text=self.kind_of(number)))
            actions.extend(game.log)
        return actions

    def apply(self, action: Action | dict[str, Any]) -> None:
        if not isinstance(action, Action):
            action = Action.from_dict(action)
        if action.kind == "game":
            expected = self.kind_of(len(self.games) + 1)
            if action.text not in (None, expected):
                raise LogError(
                    Reason(
                        "game {value} of tavli is {expected}, not {text!r}",
                        value=len(self.games) + 1,
                        expected=game_name(expected),
                        text=action.text,
                    )
                )
            self.new_game()
            return
        if self.game is None:
            raise LogError(Reason("the log starts with an action before any game"))
        self.game.apply(action)

    @classmethod
    def replay(
        cls, actions: list[Action] | list[dict[str, Any]], length: int = 5, *, dice: DiceSource | None = None
    ) -> Tavli:
        """Rebuild a match from its log.

        :raises LogError: for an entry that is not an action.
        :raises GameError: for an action a game refuses at that point.
        """
        match = cls(length, dice=dice)
        for action in actions:
            match.apply(action)
        return match
