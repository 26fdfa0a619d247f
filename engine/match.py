"""Matches to N points (docs/rules.md section 10); a money game is a match of length 0."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from engine.dice import DiceSource, SecureDice
from engine.game import Action, Game, GameError, GameSettings, LogError, WinKind, final_score
from engine.reasons import Reason


class BaseMatch:
    """What every match shares, whatever its games: the games in order, the
    score, the end, the log (each game preceded by a ``game`` marker) and the
    version. :class:`Match` (backgammon) and
    :class:`engine.variants.VariantMatch` (the tables games and tavli) differ in
    how the next game starts (:meth:`new_game`, :meth:`next_starter`).
    A match of length 0 is a single game."""

    settings: GameSettings
    dice_source: DiceSource | None
    games: list[Any]

    def __deepcopy__(self, memo: dict[int, object]) -> Any:
        """An independent copy: its games copied (:meth:`Game.__deepcopy__`) and
        its dice source too, still shared with them; the settings are immutable.
        A service copies the match for every action."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        clone.__dict__.update(self.__dict__)
        clone.dice_source = copy.deepcopy(self.dice_source, memo)
        clone.games = [copy.deepcopy(game, memo) for game in self.games]
        return clone

    @property
    def length(self) -> int:
        return self.settings.match_length

    @property
    def is_money(self) -> bool:
        return self.length == 0

    @property
    def game(self) -> Any:
        """The current (latest) game, or None before the first."""
        return self.games[-1] if self.games else None

    @property
    def score(self) -> tuple[int, int]:
        """Points won by players 0 and 1 in finished games; in a match, the
        winner's score stops at the match length (a 5-point match ends 5-3,
        however big the last cube)."""
        score = (0, 0)
        for game in self.games:
            if game.result is not None:
                score = final_score(score, game.result, self.length)
        return score

    @property
    def is_over(self) -> bool:
        if not self.games or not self.games[-1].is_over:
            return False
        return not self.length or max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        """The player who won the match (or the single game), once it is over."""
        if not self.is_over:
            return None
        if not self.length:
            result = self.games[-1].result
            return result.winner if result else None
        s0, s1 = self.score
        return 0 if s0 > s1 else 1

    def new_game(self) -> Any:
        raise NotImplementedError

    def _check_new_game(self) -> None:
        """Refuse a new game while one is on or once the match is over."""
        if self.games and not self.games[-1].is_over:
            raise GameError(Reason("the current game is not over"))
        if self.is_over:
            raise GameError(Reason("the match is over"))

    def use_dice(self, dice: DiceSource | None) -> None:
        """Go on with ``dice`` from now on, in the current game and the next ones
        (a match read from a snapshot learns here where its dice go on from)."""
        self.dice_source = dice
        for game in self.games:
            game.dice_source = dice or SecureDice()

    @property
    def log(self) -> list[Action]:
        actions: list[Action] = []
        for number, game in enumerate(self.games, start=1):
            actions.append(Action("game", value=number))
            actions.extend(game.log)
        return actions

    @property
    def version(self) -> int:
        """Changes with every action of every game."""
        return sum(len(game.log) + 1 for game in self.games)

    def apply(self, action: Action | dict[str, Any]) -> None:
        """Apply one logged action: a ``game`` marker starts the next game."""
        if not isinstance(action, Action):
            action = Action.from_dict(action)
        if action.kind == "game":
            self.new_game()
            return
        if self.game is None:
            raise LogError(Reason("the log starts with an action before any game"))
        self.game.apply(action)
        self._applied()

    def _applied(self) -> None:
        """After a game's action: what the match learns from it (nothing here)."""


class Match(BaseMatch):
    """A series of games to ``settings.match_length`` points, with the Crawford rule.

    The first game after either player reaches N-1 points is the Crawford
    game (no cube); later games are post-Crawford. A match of length 0 is a
    single money game. The log of a match is the logs of its games, each
    preceded by a ``game`` marker. Under ``hit_winner_throws_first`` the
    winner of a single game throws first in the next one.
    """

    games: list[Game]

    def __init__(self, settings: GameSettings | None = None, *, dice: DiceSource | None = None) -> None:
        self.settings = settings or GameSettings()
        self.dice_source = dice
        self.games = []

    @property
    def game(self) -> Game | None:
        """The current (latest) game, or None before the first."""
        return self.games[-1] if self.games else None

    @property
    def crawford_played(self) -> bool:
        return any(game.crawford for game in self.games)

    @property
    def is_post_crawford(self) -> bool:
        return not self.is_money and self.crawford_played and not (self.game and self.game.crawford)

    def next_game_is_crawford(self) -> bool:
        """Whether a game started now would be the Crawford game."""
        if self.is_money or self.length == 1 or self.crawford_played:
            return False
        return self.length - 1 in self.score

    def new_game(self) -> Game:
        """Start the next game (the opening throw is then the game's first action)."""
        self._check_new_game()
        game = Game(
            self.settings,
            dice=self.dice_source,
            score=self.score,
            crawford=self.next_game_is_crawford(),
            starter=self.next_starter(),
        )
        self.games.append(game)
        return game

    def next_starter(self) -> int | None:
        """Who throws first in the next game without an opening throw: under
        ``hit_winner_throws_first``, the winner of a single game (a hit), after
        a gammon or backgammon None (both throw); under ``winner_throws_first``
        the winner of the last game, whatever it won; in the first game None."""
        settings = self.settings
        if not (settings.hit_winner_throws_first or settings.winner_throws_first) or not self.games:
            return None
        result = self.games[-1].result
        if result is None or (settings.hit_winner_throws_first and result.kind is not WinKind.SINGLE):
            return None
        return result.winner

    def _applied(self) -> None:
        assert self.game is not None
        if self.game.settings.closed_out == "skip" and self.settings.closed_out != "skip":
            # The game met a logged skipped turn (Game.apply): the log was
            # written under the period rule, and the rest of the match is too.
            self.settings = replace(self.settings, closed_out="skip")

    @classmethod
    def replay(
        cls,
        actions: list[Action] | list[dict[str, Any]],
        settings: GameSettings | None = None,
        *,
        dice: DiceSource | None = None,
    ) -> Match:
        """Rebuild a match from its log.

        :raises LogError: for an entry that is not an action.
        :raises GameError: for an action a game refuses at that point.
        """
        match = cls(settings, dice=dice)
        for action in actions:
            match.apply(action)
        return match
