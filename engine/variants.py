"""Plakoto, fevga and long nardy as games: each game's rules by name, and a
game with an action log (docs/rules.md sections 20-22).

The positions, the move generator and the notation are :mod:`engine.tables`;
each game's own rules are :mod:`engine.plakoto`, :mod:`engine.fevga` and
:mod:`engine.nardy`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.dice import DiceSource, Roll, SecureDice
from engine.fevga import FEVGA
from engine.game import Action, Game, GameError, GameResult, GameSettings, LogError, Phase, WinKind
from engine.match import BaseMatch
from engine.nardy import NARDY
from engine.notation import IllegalPlayError
from engine.plakoto import PLAKOTO
from engine.reasons import Reason, game_name
from engine.tables import (
    CHECKERS,
    GAMES,
    Rules,
    TablesIdError,
    TablesPlay,
    TablesPosition,
    decode_tables_id,
    format_tables_play,
    legal_tables_plays,
    match_tables_play,
)

RULES: dict[str, Rules] = {"plakoto": PLAKOTO, "fevga": FEVGA, "nardy": NARDY}
"""Each game's rules by name (:data:`engine.tables.GAMES`)."""

assert tuple(RULES) == GAMES


TablesPhase = Phase
"""A game here passes through backgammon's phases (opening, roll, play, over), never a cube's or a resignation's."""

PRESETS = ("backgammon", "nackgammon", "tavla", "takhteh", "portes")
"""The games played with backgammon's movement (:class:`engine.game.Game` under preset settings)."""

VARIANTS = (*PRESETS, "plakoto", "fevga", "nardy", "tavli")
"""Every game a challenge may name."""

FAMILIES = ("backgammon", "plakoto", "fevga", "nardy", "tavli")
"""The rating families: backgammon's presets share backgammon's; each other game has its own."""


def family(variant: str) -> str:
    """The rating family of ``variant`` (``tavla`` -> ``backgammon``)."""
    return "backgammon" if variant in PRESETS else variant


def preset_settings(variant: str, match_length: int, **overrides: Any) -> GameSettings:
    """The settings of a backgammon preset (docs/rules.md sections 16-19).

    :raises ValueError: for a variant that is no preset, or a length it is not played to.
    """
    if variant == "tavla":
        return GameSettings.tavla(match_length or 5)
    if variant == "takhteh":
        return GameSettings.takhteh(match_length or 7)
    if variant == "portes":
        return GameSettings.portes(match_length or 5)
    if variant == "nackgammon":
        return GameSettings(match_length=match_length, start="nackgammon", **overrides)
    if variant == "backgammon":
        return GameSettings(match_length=match_length, **overrides)
    raise ValueError(f"{variant!r} is no preset of backgammon")


class TablesGame:
    """One game of plakoto, fevga or nardy, from the opening throw to the result.

    The opening: each player throws one die, a tie is thrown again, and the
    higher throws both dice for the first play (the Greek and the Russian
    custom alike). With ``starter`` given (the winner of the previous game,
    :class:`engine.tavli.Tavli`) there is no opening throw. Every accepted
    action is appended to :attr:`log` (:class:`engine.game.Action`);
    :meth:`replay` rebuilds the game from it. No cube, no resignations
    short of a forfeit.
    """

    def __init__(
        self,
        game: str,
        *,
        dice: DiceSource | None = None,
        starter: int | None = None,
        score: tuple[int, int] = (0, 0),
    ) -> None:
        if game not in RULES:
            raise GameError(Reason("no such game {game!r}: one of {value}", game=game, value=", ".join(GAMES)))
        self.rules = RULES[game]
        self.game = game
        self.dice_source: DiceSource = dice or SecureDice()
        self.score = score
        self.phase = TablesPhase.OPENING
        self.player_on_roll = self.turn = 0
        self.position = self.rules.start()
        self.dice: Roll | None = None
        self.opening_dice: tuple[int, int] | None = None
        self.plays_made = [0, 0]
        self.result: GameResult | None = None
        self.last_play: tuple[int, TablesPlay] | None = None
        self.log: list[Action] = []
        self._plays: list[TablesPlay] | None = None
        self._cursor = 0
        self.starter = starter
        if starter is not None:
            if starter not in (0, 1):
                raise GameError(Reason("there is no player {starter}", starter=starter))
            self.log.append(Action("throws_first", starter, auto=True))
            self.player_on_roll = self.turn = starter
            self.phase = TablesPhase.ROLL

    @classmethod
    def from_position(cls, position: TablesPosition, player: int = 0, *, dice: DiceSource | None = None) -> TablesGame:
        """A game set up at ``position`` (seen from ``player``, to roll), logged as ``setup``.

        :raises GameError: for a finished position or one of another game's kind.
        """
        game = cls(position.game, dice=dice)
        game._setup(position.position_id(), player)
        return game

    def _setup(self, text: str, player: int) -> None:
        if self.log:
            raise GameError(Reason("a game can only be set up before it starts"))
        position = decode_tables_id(text)
        if position.game != self.game:
            raise GameError(
                Reason(
                    "that is a position of {game}, not {game2}",
                    game=game_name(position.game),
                    game2=game_name(self.game),
                )
            )
        if CHECKERS in position.off or self.rules.result(position) or self.rules.result(position.swap()):
            raise GameError(Reason("that position is a finished game"))
        self.log.append(Action("setup", player, text=text))
        self.position = position
        self.player_on_roll = self.turn = _player(player)
        self.plays_made = [1, 1]  # past the first turns
        self.phase = TablesPhase.ROLL

    @property
    def is_over(self) -> bool:
        return self.phase is TablesPhase.OVER

    # What a service asks of every game (:class:`engine.game.Game`'s names): no cube here.
    settings = GameSettings(cube=False)
    crawford = False
    cube_value = 1
    cube_owner: int | None = None
    offered_cube: int | None = None
    resignation: tuple[int, int] | None = None
    opening_offer: Roll | None = None
    unplayed_dice: Roll | None = None

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def is_money(self) -> bool:
        return False

    def can_double(self, player: int) -> bool:
        return False

    def can_beaver(self, player: int) -> bool:
        return False

    def points_for(self, kind: WinKind) -> int:
        return int(kind)

    def forget_legal_plays(self) -> None:
        """Nothing kept to forget beyond the plays themselves (a few dozen at most)."""
        self._plays = None

    def double(self, player: int) -> int:
        raise GameError(Reason("there is no doubling cube in {game}", game=game_name(self.game)))

    take = beaver = drop = use_opening = double

    def offer_resignation(self, player: int, level: int = 1) -> None:
        raise GameError(Reason("{game} has no resignations: forfeit to give up", game=game_name(self.game)))

    accept_resignation = reject_resignation = offer_resignation

    def position_id(self) -> str:
        return self.position.position_id()

    def position_for(self, player: int) -> TablesPosition:
        return self.position if player == self.player_on_roll else self.position.swap()

    def pip_counts(self) -> tuple[int, int]:
        ours, theirs = self.position.pip_counts()
        return (ours, theirs) if self.player_on_roll == 0 else (theirs, ours)

    def opening_roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """One die each (player 0's, player 1's); a tie is thrown again (with
        ``dice`` given, only that throw is made). The higher then rolls."""
        self._expect(TablesPhase.OPENING, None)
        while True:
            throw = dice or (self.dice_source.die(), self.dice_source.die())
            Roll(*throw)
            self.log.append(Action("opening", dice=(throw[0], throw[1])))
            self.opening_dice = (throw[0], throw[1])
            if throw[0] != throw[1]:
                self.player_on_roll = self.turn = 0 if throw[0] > throw[1] else 1
                self.phase = TablesPhase.ROLL
                return throw
            if dice is not None:
                return throw

    def roll(self, player: int, dice: Roll | tuple[int, int] | None = None) -> Roll:
        """Throw both dice; a roll with no legal play is a lost turn, logged."""
        self._expect(TablesPhase.ROLL, player)
        thrown = (
            dice
            if isinstance(dice, Roll)
            else Roll(*dice)
            if dice
            else Roll(self.dice_source.die(), self.dice_source.die())
        )
        self.log.append(Action("roll", player, dice=(thrown.die1, thrown.die2)))
        self.dice = thrown
        self.phase = TablesPhase.PLAY
        self._plays = None
        plays = self.legal_plays()
        if len(plays) == 1 and not plays[0].moves:
            self.log.append(Action("play", player, text="", auto=True))
            self._after_play(player, plays[0])
        return thrown

    def legal_plays(self) -> list[TablesPlay]:
        if self.phase is not TablesPhase.PLAY or self.dice is None:
            return []
        if self._plays is None:
            first = self.plays_made[self.player_on_roll] == 0
            self._plays = legal_tables_plays(self.rules, self.position, self.dice, first_turn=first)
        return self._plays

    def legal_play_texts(self) -> tuple[str, ...]:
        return tuple(sorted(format_tables_play(play) for play in self.legal_plays()))

    def play(self, player: int, play: str | TablesPlay) -> TablesPlay:
        """Play the dice: notation (any spelling of a legal play) or a legal :class:`TablesPlay`.

        :raises GameError: out of turn or phase.
        :raises NotationError: unreadable notation.
        :raises IllegalPlayError: readable but not legal here.
        """
        self._expect(TablesPhase.PLAY, player)
        assert self.dice is not None
        plays = self.legal_plays()
        if isinstance(play, TablesPlay):
            if play not in plays:
                raise IllegalPlayError(str(play), Reason("that is not a legal play of these dice"))
            chosen = play
        else:
            chosen = match_tables_play(self.position, self.dice, play, plays)
        self.log.append(Action("play", player, text=format_tables_play(chosen)))
        self._after_play(player, chosen)
        return chosen

    def _after_play(self, player: int, chosen: TablesPlay) -> None:
        self.last_play = (player, chosen)
        self.plays_made[player] += 1
        self.position = chosen.position
        self.dice = None
        self._plays = None
        won = self.rules.result(self.position)
        if won is not None:
            multiplier, reason = won
            self._finish(player, multiplier, reason)
            return
        self.player_on_roll = self.turn = 1 - player
        self.position = self.position.swap()
        self.phase = TablesPhase.ROLL

    def forfeit(self, player: int, multiplier: int = 1, reason: str = "forfeit") -> GameResult:
        """``player`` gives up (or runs out of time): the opponent wins ``multiplier`` points."""
        if player not in (0, 1):
            raise GameError(Reason("there is no player {player}", player=player))
        if self.is_over:
            raise GameError(Reason("the game is over"))
        if multiplier not in (1, 2, 3):
            raise GameError(Reason("a game is won single (1), double (2) or triple (3)"))
        self.log.append(Action("forfeit", player, text=reason, value=multiplier))
        return self._finish(1 - player, multiplier, reason)

    def _finish(self, winner: int, multiplier: int, reason: str) -> GameResult:
        self.result = GameResult(winner=winner, kind=WinKind(multiplier), cube=1, points=multiplier, reason=reason)
        self.phase = TablesPhase.OVER
        self.dice = None
        self._plays = None
        return self.result

    def _expect(self, phase: TablesPhase, player: int | None) -> None:
        if self.phase is not phase:
            raise GameError(self._phase_message())
        if player is not None and player != self.turn:
            raise GameError(Reason("it is player {turn}'s turn, not player {player}'s", turn=self.turn, player=player))

    def _phase_message(self) -> Reason:
        """What the game waits for, in a whole sentence (backgammon's, without its cube)."""
        return {
            TablesPhase.OPENING: Reason("the game has not started: the opening throw comes first"),
            TablesPhase.ROLL: Reason("the dice have not been thrown yet: roll first"),
            TablesPhase.PLAY: Reason("the dice are thrown: play them first"),
        }.get(self.phase, Reason("the game is over"))

    # -- the log ----------------------------------------------------------------

    def apply(self, action: Action | dict[str, Any]) -> None:
        """Apply one logged action; an ``auto`` entry must be the one the game made itself."""
        if not isinstance(action, Action):
            action = Action.from_dict(action)
        if action.auto:
            if self._cursor < len(self.log) and self.log[self._cursor] == action:
                self._cursor += 1
                return
            if action.kind == "throws_first" and not self.log and action.player in (0, 1):
                self.__init__(self.game, dice=self.dice_source, starter=action.player, score=self.score)  # type: ignore[misc]
                self._cursor = len(self.log)
                return
            raise GameError(Reason("the log says {kind!r} happened by itself here, but it did not", kind=action.kind))
        start = len(self.log)
        kind, player = action.kind, action.player
        if kind == "opening":
            if action.dice is None:
                raise LogError(Reason("a logged opening needs its dice"))
            self.opening_roll(action.dice)
        elif kind == "roll":
            self.roll(_player(player), action.dice)
        elif kind == "play":
            self.play(_player(player), action.text or "")
        elif kind == "forfeit":
            self.forfeit(_player(player), action.value or 1, action.text or "forfeit")
        elif kind == "setup":
            try:
                self._setup(action.text or "", _player(player))
            except TablesIdError as error:
                raise LogError(str(error)) from None
        else:
            raise LogError(Reason("{kind!r} is no action of {game}", kind=kind, game=game_name(self.game)))
        self._cursor = start + 1

    @classmethod
    def replay(
        cls, game: str, actions: Iterable[Action | dict[str, Any]], *, dice: DiceSource | None = None
    ) -> TablesGame:
        """Rebuild a game from its log.

        :raises LogError: for an entry that is not an action.
        :raises GameError: for an action the game refuses at that point.
        """
        rebuilt = cls(game, dice=dice)
        for action in actions:
            rebuilt.apply(action)
        return rebuilt


def _player(player: int | None) -> int:
    if player not in (0, 1):
        raise GameError(Reason("the action names no player (got {player!r})", player=player))
    return player


class VariantMatch(BaseMatch):
    """A match of plakoto, fevga or nardy (every game that game), or of tavli
    (portes, plakoto, fevga in turn: :data:`engine.tavli.CYCLE`), to ``length``
    points; length 0 is one game. :class:`engine.match.Match`'s names, so a
    service keeps and replays it as it does a backgammon match. The first game
    opens with a throw of one die each; the winner of a game starts the next."""

    games: list[Game | TablesGame]

    def __init__(self, kind: str, length: int = 0, *, dice: DiceSource | None = None) -> None:
        if kind not in (*GAMES, "tavli"):
            raise GameError(Reason("no such game {kind!r}", kind=kind))
        if kind == "tavli" and length not in (3, 5, 7):
            raise GameError(Reason("tavli is played to 3, 5 or 7 points"))
        if length < 0:
            raise GameError(Reason("the match length cannot be negative"))
        self.kind = kind
        self.settings = GameSettings(match_length=length, cube=False, winner_throws_first=True)
        self.dice_source = dice
        self.games = []

    @property
    def is_money(self) -> bool:
        """No cube in these games: even a single game is not a money game."""
        return False

    @property
    def game(self) -> Game | TablesGame | None:
        return self.games[-1] if self.games else None

    def kind_of(self, number: int) -> str:
        """Which game the ``number``-th game (from 1) is."""
        if self.kind == "tavli":
            return ("portes", "plakoto", "fevga")[(number - 1) % 3]
        return self.kind

    is_post_crawford = False
    crawford_played = False

    def next_game_is_crawford(self) -> bool:
        return False

    def next_starter(self) -> int | None:
        """The winner of the last game throws first in the next."""
        if not self.games or self.games[-1].result is None:
            return None
        return self.games[-1].result.winner

    def new_game(self) -> Game | TablesGame:
        self._check_new_game()
        kind = self.kind_of(len(self.games) + 1)
        starter = self.next_starter()
        game: Game | TablesGame
        if kind == "portes":
            game = Game(GameSettings.portes(self.length), dice=self.dice_source, score=self.score, starter=starter)
        else:
            game = TablesGame(kind, dice=self.dice_source, starter=starter, score=self.score)
        self.games.append(game)
        return game

    @classmethod
    def replay(
        cls, kind: str, actions: Iterable[Action | dict[str, Any]], length: int = 0, *, dice: DiceSource | None = None
    ) -> VariantMatch:
        match = cls(kind, length, dice=dice)
        for action in actions:
            match.apply(action)
        return match
