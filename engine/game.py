"""One game of backgammon as a state machine with an append-only action log.

A :class:`Game` knows whose turn it is, what they may do (roll, double, play,
take, pass, beaver, resign), and refuses everything else with a
:class:`GameError` that changes nothing. Every accepted action is appended to
:attr:`Game.log`; :meth:`Game.replay` rebuilds the same game from that log.

Players are 0 and 1, as in GNU Backgammon's Match ID. The rules are those of
docs/rules.md: the opening (section 2), the bar and the closed board (4),
winning (7), the cube (8), resigning (9).
"""

from __future__ import annotations

import copy
import enum
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, overload

from engine.dice import DiceSource, Roll, SecureDice
from engine.gnubgid import MatchState, decode_match_id, encode_match_id
from engine.moves import legal_plays, pack_moves, play_of_moves, unpack_moves
from engine.notation import IllegalPlayError, match_play
from engine.play import Play, format_play
from engine.position import CHECKERS, STARTS, Position, decode_position_id
from engine.reasons import Reason
from engine.xgid import MAX_CUBE, format_xgid, parse_xgid


class GameError(ValueError):
    """Raised for an action out of turn or out of phase; the game is unchanged."""


class LogError(GameError):
    """Raised when a stored action log cannot be read: an entry that is not an
    action, misses a field or holds a value of the wrong kind."""


class SetupError(GameError):
    """Raised when a GNU Backgammon ID names a state no game can start from: a
    finished game, both players closed out on the bar, a cube past the limit."""


class Phase(enum.Enum):
    """Where a game stands."""

    OPENING = "opening"
    """Nobody has thrown yet: each player throws one die to decide who starts."""
    ROLL = "roll"
    """The player on roll may double (if the cube allows) or roll."""
    PLAY = "play"
    """The dice are thrown; the player on roll must play them."""
    DOUBLED = "doubled"
    """A double is offered; the other player takes, passes or (money) beavers."""
    RESIGNATION = "resignation"
    """A resignation is offered; the other player accepts or rejects it."""
    OVER = "over"
    """The game has a result."""


class WinKind(enum.IntEnum):
    """How big a win is, before the cube."""

    SINGLE = 1
    """The loser has borne off at least one checker (or passed a double)."""
    GAMMON = 2
    """The loser has borne off none."""
    BACKGAMMON = 3
    """The loser has borne off none and has a checker on the bar or in the winner's home board."""

    @property
    def word(self) -> str:
        """``single``, ``gammon`` or ``backgammon``: how players name it (``/bg resign gammon``)."""
        return self.name.lower()

    @property
    def phrase(self) -> str:
        """``a single game``, ``a gammon`` or ``a backgammon``: what is won or resigned."""
        return "a single game" if self is WinKind.SINGLE else f"a {self.word}"


CLOSED_OUT_RULES = ("roll", "skip")
"""The values of :attr:`GameSettings.closed_out`."""

UNLIMITED = -1
"""``automatic_doubles = UNLIMITED``: every tie of the opening throw doubles the cube, up to ``cube_limit``."""


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The rules a game is played by (docs/rules.md section 14; money-only options are refused in matches)."""

    match_length: int = 0
    """Points to win the match; 0 for a money game."""
    jacoby: bool = False
    """Money: gammons and backgammons count single while the cube was never turned."""
    beavers: bool = False
    """Money: a doubled player may take and at once redouble, keeping the cube."""
    automatic_doubles: int = 0
    """Money: how many ties in the opening throw double the cube (0 = none, :data:`UNLIMITED` = every tie)."""
    opening_reroll: bool = False
    """The opening throw only decides who starts; the winner throws both dice again."""
    cube_limit: int = 64
    """The highest value the cube may reach (automatic doubles included)."""
    backgammon_value: int = 3
    """What a backgammon multiplies by (Hoyle allows 4 by agreement)."""
    cube: bool = True
    """Whether the doubling cube is used at all."""
    closed_out: str = "roll"
    """A player on the bar against a closed board: ``roll`` (they still roll,
    may double first, and dance; GNU Backgammon and the servers) or ``skip``
    (they do not throw and the opponent throws again; the period texts).
    A ``.mat`` file cannot express ``skip``: GNU Backgammon replays such a
    game differently from the skipped turn on."""
    opening_choice: bool = False
    """The winner of the opening throw chooses each time: play the opening dice
    (:meth:`Game.use_opening`) or throw again (:meth:`Game.roll`) (Hoyle, the Britannica)."""
    hit_winner_throws_first: bool = False
    """In a match, the winner of a single game (a "hit") throws first in the
    next game without an opening throw; after a gammon or backgammon both throw
    again (Hoyle, the Britannica)."""
    double_before_first_play: bool = True
    """False: nobody may double until the game's first play is made (seed 003:
    "at any time after the first turn")."""
    winner_throws_first: bool = False
    """In a match, the winner of every game (single, gammon or backgammon)
    throws first in the next game without an opening throw (Turkey, Iran,
    Greece: docs/rules.md section 16)."""
    start: str = "standard"
    """The starting position: ``standard`` or ``nackgammon`` (:data:`engine.position.STARTS`)."""

    def __post_init__(self) -> None:
        if self.match_length < 0:
            raise ValueError("the match length cannot be negative")
        if self.match_length and (self.jacoby or self.beavers or self.automatic_doubles):
            raise ValueError("Jacoby, beavers and automatic doubles are for money games only")
        if self.cube_limit < 1 or self.cube_limit & (self.cube_limit - 1):
            raise ValueError(f"the cube limit must be a power of two, not {self.cube_limit}")
        if self.backgammon_value not in (2, 3, 4):
            raise ValueError("a backgammon counts 3 (4 by agreement, 2 where it counts as a gammon)")
        if self.automatic_doubles < UNLIMITED:
            raise ValueError("automatic doubles are a count of ties, or UNLIMITED (-1) for every tie")
        if self.closed_out not in CLOSED_OUT_RULES:
            raise ValueError(f"closed_out is 'roll' or 'skip', not {self.closed_out!r}")
        if self.opening_reroll and self.opening_choice:
            raise ValueError("opening_reroll always throws again; opening_choice lets the winner choose: pick one")
        if self.hit_winner_throws_first and self.winner_throws_first:
            raise ValueError("hit_winner_throws_first and winner_throws_first both say who starts: pick one")
        if self.start not in STARTS:
            raise ValueError(f"the start is one of {', '.join(STARTS)}, not {self.start!r}")

    def __deepcopy__(self, memo: dict[int, object]) -> GameSettings:
        return self  # immutable: copies of a game share it

    @classmethod
    def hoyle(cls, backgammon_value: int = 3) -> GameSettings:
        """Hoyle's rubber: the best of three games, no cube, a gammon counting
        two games (a match to 2 points); a backgammon counts 3 or 4 "as may
        have been agreed"; the winner of a hit throws first in the next game;
        the opening winner chooses to play the opening dice or throw again."""
        return cls(
            match_length=2,
            cube=False,
            backgammon_value=backgammon_value,
            hit_winner_throws_first=True,
            opening_choice=True,
        )

    @classmethod
    def tavla(cls, match_length: int = 5, *, backgammon_value: int = 2) -> GameSettings:
        """Turkish tavla (docs/rules.md section 16): no cube; a gammon (*mars*)
        counts two and there is no backgammon (it counts as a gammon:
        ``backgammon_value = 2``); the winner of the opening throw throws both
        dice again; the winner of a game starts the next; a match to 5."""
        return cls._traditional(match_length, backgammon_value)

    @classmethod
    def takhteh(cls, match_length: int = 7, *, backgammon_value: int = 2) -> GameSettings:
        """Iranian takhteh (takhteh nard, docs/rules.md section 17): tavla's
        rules (no cube, a gammon two, no backgammon, the opening winner throws
        again, the winner starts the next game), customarily to 7."""
        return cls._traditional(match_length, backgammon_value)

    @classmethod
    def portes(cls, match_length: int = 5, *, backgammon_value: int = 2) -> GameSettings:
        """Greek portes, the first game of tavli (docs/rules.md section 18): no
        cube; a gammon (*diplo*) counts two and a backgammon counts as a
        gammon (``backgammon_value = 3`` where it is agreed); the opening
        winner throws both dice again; the winner starts the next game;
        matches to 3, 5 or 7 (5 by default)."""
        return cls._traditional(match_length, backgammon_value)

    @classmethod
    def _traditional(cls, match_length: int, backgammon_value: int) -> GameSettings:
        if match_length < 1:
            raise ValueError("these games are played as matches: the length is at least 1")
        return cls(
            match_length=match_length,
            cube=False,
            backgammon_value=backgammon_value,
            opening_reroll=True,
            winner_throws_first=True,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameSettings:
        """Settings as :meth:`to_dict` wrote them. Settings stored before
        ``closed_out`` existed were played under ``skip`` and load so; unknown
        keys are ignored.

        :raises ValueError: for a value no game can be played by.
        """
        known = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in known}
        values.setdefault("closed_out", "skip")
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Action:
    """One entry of the action log.

    ``kind`` is one of: ``setup`` (``text`` = GNU Backgammon ID), ``opening``
    (``dice`` = player 0's die, player 1's die), ``throws_first`` (the winner
    of the last hit starts without an opening throw), ``use_opening`` (the
    opening winner plays the opening dice), ``roll``, ``closed_out`` (under
    ``closed_out = skip``: on the bar against a closed board, no roll, the
    turn passes), ``play`` (``text`` = canonical notation, empty for a lost
    turn), ``double`` (``value`` = the cube offered), ``take``, ``pass``,
    ``beaver``, ``resign`` (``value`` = 1, 2 or 3), ``accept``, ``reject``,
    ``forfeit`` (``value`` = the win kind awarded to the opponent, ``text`` =
    reason). ``auto`` marks actions the game made itself (a lost turn, a
    closed-out turn, who throws first).
    """

    kind: str
    player: int | None = None
    dice: tuple[int, int] | None = None
    text: str | None = None
    value: int | None = None
    auto: bool = False

    def __deepcopy__(self, memo: dict[int, object]) -> Action:
        return self  # immutable: copies of a game share it

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.player is not None:
            data["player"] = self.player
        if self.dice is not None:
            data["dice"] = list(self.dice)
        if self.text is not None:
            data["text"] = self.text
        if self.value is not None:
            data["value"] = self.value
        if self.auto:
            data["auto"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Action:
        """An action as :meth:`to_dict` wrote it.

        :raises LogError: if ``data`` is not such a dictionary.
        """
        if not isinstance(data, dict):
            raise LogError(Reason("a logged action is a dictionary, not {data}", data=_short(data)))
        kind = data.get("kind")
        if not isinstance(kind, str):
            raise LogError(Reason("a logged action needs a kind: {data}", data=_short(data)))
        for name in ("player", "value"):
            if data.get(name) is not None and not _whole(data[name]):
                raise LogError(
                    Reason(
                        "the {name} of a logged {kind} is a whole number: {data}",
                        name=name,
                        kind=_short(kind, 20),
                        data=_short(data),
                    )
                )
        if data.get("text") is not None and not isinstance(data["text"], str):
            raise LogError(
                Reason("the text of a logged {kind} is a string: {data}", kind=_short(kind, 20), data=_short(data))
            )
        dice = data.get("dice")
        if dice is not None and not (
            isinstance(dice, (list, tuple)) and len(dice) == 2 and all(_whole(d) for d in dice)
        ):
            raise LogError(
                Reason(
                    "the dice of a logged {kind} are two whole numbers: {data}",
                    kind=_short(kind, 20),
                    data=_short(data),
                )
            )
        return cls(
            kind=kind,
            player=data.get("player"),
            dice=(dice[0], dice[1]) if dice is not None else None,
            text=data.get("text"),
            value=data.get("value"),
            auto=bool(data.get("auto", False)),
        )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters: error messages never echo a whole log."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended."""

    winner: int
    kind: WinKind
    """The win as it counts (after Jacoby)."""
    cube: int
    points: int
    """kind multiplier x cube: what the winner scores."""
    reason: str
    """``bearoff``, ``pass``, ``resign`` or ``forfeit``/a forfeit reason such as ``timeout``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "kind": int(self.kind),
            "cube": self.cube,
            "points": self.points,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class _Forgotten:
    """A turn's legal plays reduced to their spellings and moves (:meth:`Game.forget_legal_plays`)."""

    position: Position
    dice: Roll
    moves: dict[str, bytes]
    """Spelling -> that play's moves (:func:`engine.moves.pack_moves`), in the order
    of the spellings. Never changed. Strings and bytes: the collector skips them."""


@dataclass
class _Snapshot:
    phase: Phase
    turn: int


class Game:
    """One game, from the opening throw to the result.

    :param settings: the rules.
    :param dice: where dice come from when an action does not bring its own
        (secure by default; tests pass a seeded source).
    :param score: the match score before this game (players 0 and 1).
    :param crawford: this is the Crawford game: no doubling.
    :param starter: the player who throws first without an opening throw (the
        winner of the last hit under ``hit_winner_throws_first``; a
        :class:`~engine.match.Match` passes it), or None for an opening throw.
    """

    def __init__(
        self,
        settings: GameSettings | None = None,
        *,
        dice: DiceSource | None = None,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        starter: int | None = None,
    ) -> None:
        self.settings = settings or GameSettings()
        self.dice_source: DiceSource = dice or SecureDice()
        self.score = score
        self.crawford = crawford
        self.phase = Phase.OPENING
        self.turn = 0
        """The player who must act now."""
        self.player_on_roll = 0
        """The player whose turn it is to roll and play (differs from :attr:`turn` during a cube or resignation decision)."""
        self.position = STARTS[self.settings.start]
        """The board seen from :attr:`player_on_roll`."""
        self.dice: Roll | None = None
        """The dice to play now (phase PLAY), else None."""
        self.opening_dice: tuple[int, int] | None = None
        """The last opening throw: (player 0's die, player 1's die)."""
        self.opening_offer: Roll | None = None
        """Under ``opening_choice``: the opening dice the winner may still play instead of throwing again."""
        self.starter = starter
        """Who threw first without an opening throw, or None."""
        self.cube_value = 1
        self.cube_owner: int | None = None
        self.cube_turned = False
        """A double has been taken (or beavered) this game."""
        self.offered_cube: int | None = None
        self.resignation: tuple[int, int] | None = None
        """(player offering, level 1-3) while a resignation is pending."""
        self.result: GameResult | None = None
        self.last_play: tuple[int, Play] | None = None
        """The latest play: (player, play in that player's numbering)."""
        self.unplayed_dice: Roll | None = None
        """Once over: the dice thrown and not played (the game ended by a resignation or forfeit after a roll)."""
        self._before_resignation: _Snapshot | None = None
        self._plays: list[Play] | None = None
        self._forgotten: _Forgotten | None = None
        self._cursor = 0  # replay: where the next logged action belongs in self.log
        self.log: list[Action] = []
        if starter is not None:
            self._throw_first(starter)

    def _throw_first(self, starter: int) -> None:
        """The winner of the last hit starts: no opening throw (docs/rules.md section 2)."""
        if starter not in (0, 1):
            raise GameError(Reason("there is no player {starter}", starter=starter))
        self.starter = starter
        self.log.append(Action("throws_first", starter, auto=True))
        self.player_on_roll = self.turn = starter
        self.phase = Phase.ROLL

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        """An independent copy. Every value a game holds is immutable except its
        lists (copied) and its dice source (deep-copied, shared with the match),
        so this is a shallow copy plus those: a service copies a game per action."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        memo[id(self)] = clone
        clone.dice_source = copy.deepcopy(self.dice_source, memo)
        clone.log = list(self.log)
        clone._plays = None if self._plays is None else list(self._plays)
        return clone  # _forgotten is never changed: shared

    # -- queries --------------------------------------------------------------

    @property
    def version(self) -> int:
        """How many actions have been applied; changes with every action."""
        return len(self.log)

    @property
    def is_money(self) -> bool:
        return self.settings.match_length == 0

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def position_for(self, player: int) -> Position:
        """The board seen from ``player``'s side."""
        return self.position if player == self.player_on_roll else self.position.swap()

    def pip_counts(self) -> tuple[int, int]:
        """Pip counts of players 0 and 1."""
        ours, theirs = self.position.pip_counts()
        return (ours, theirs) if self.player_on_roll == 0 else (theirs, ours)

    def legal_plays(self) -> list[Play]:
        """The legal plays of the dice thrown (phase PLAY), else an empty list."""
        if self.phase is not Phase.PLAY or self.dice is None:
            return []
        if self._plays is None:
            self._plays = legal_plays(self.position, self.dice)
        return self._plays

    def forget_legal_plays(self) -> None:
        """Drop the legal plays kept since the dice were thrown, keeping only their
        spellings and moves (:meth:`legal_play_texts`; :meth:`play` of one of those
        spellings needs no search). For a game left waiting for its player: kept,
        its few dozen plays, their positions and tuples are that many more objects
        for the garbage collector to scan until the player acts."""
        plays = self._plays
        if plays is not None and self.dice is not None and self.phase is Phase.PLAY:
            spelt = {format_play(play): pack_moves(play.moves) for play in plays}
            if len(spelt) == len(plays):  # one spelling per play, as it must be (else: search again)
                self._forgotten = _Forgotten(self.position, self.dice, dict(sorted(spelt.items())))
        self._plays = None

    def legal_play_texts(self) -> tuple[str, ...]:
        """The canonical spelling of every legal play of the dice thrown, sorted
        (empty unless a play is due)."""
        if self.phase is not Phase.PLAY or self.dice is None:
            return ()
        forgotten = self._still_forgotten()
        if forgotten is not None:
            return tuple(forgotten.moves)
        # found without keeping them: a game that forgot its plays stays without
        plays = self._plays if self._plays is not None else legal_plays(self.position, self.dice)
        return tuple(sorted(format_play(play) for play in plays))

    def _still_forgotten(self) -> _Forgotten | None:
        """The plays forgotten, if they are still this turn's (same position, same dice)."""
        forgotten = self._forgotten
        if forgotten is None or self._plays is not None:
            return None
        if forgotten.position is not self.position or forgotten.dice != self.dice or self.phase is not Phase.PLAY:
            return None
        return forgotten

    def can_double(self, player: int) -> bool:
        """Whether ``player`` may offer a double now."""
        return (
            self.phase is Phase.ROLL
            and self.turn == player
            and self._cube_available(player)
            and self.cube_value * 2 <= self.settings.cube_limit
            and (self.settings.double_before_first_play or self.first_play_made)
        )

    @property
    def first_play_made(self) -> bool:
        """Whether the game's first play (a lost turn included) has been made;
        a game set up from a position is past it."""
        return self.last_play is not None or (bool(self.log) and self.log[0].kind == "setup")

    def can_beaver(self, player: int) -> bool:
        return (
            self.phase is Phase.DOUBLED
            and self.turn == player
            and self.settings.beavers
            and self.is_money
            and self.offered_cube is not None
            and self.offered_cube * 2 <= self.settings.cube_limit
        )

    def _cube_available(self, player: int) -> bool:
        return self.settings.cube and not self.crawford and (self.cube_owner is None or self.cube_owner == player)

    def loss_value(self, player: int) -> WinKind:
        """What ``player`` would lose if the game ended now with the opponent winning."""
        board = self.position_for(player)
        if board.off[0] > 0:
            return WinKind.SINGLE
        # Our checkers on the bar or in the opponent's home board (our 19..24).
        if board.bar[0] > 0 or any(n > 0 for n in board.board[18:]):
            return WinKind.BACKGAMMON
        return WinKind.GAMMON

    def points_for(self, kind: WinKind) -> int:
        """What a win of ``kind`` scores now, with the cube, Jacoby and the backgammon value."""
        multiplier = {WinKind.SINGLE: 1, WinKind.GAMMON: 2, WinKind.BACKGAMMON: self.settings.backgammon_value}[kind]
        if self.is_money and self.settings.jacoby and not self.cube_turned:
            multiplier = 1
        return multiplier * self.cube_value

    def counted_kind(self, kind: WinKind) -> WinKind:
        """``kind`` as it counts: single under Jacoby while the cube was never
        turned; a gammon where a backgammon counts two (tavla, portes)."""
        if self.is_money and self.settings.jacoby and not self.cube_turned:
            return WinKind.SINGLE
        if kind is WinKind.BACKGAMMON and self.settings.backgammon_value == 2:
            return WinKind.GAMMON
        return kind

    # -- the opening ----------------------------------------------------------

    def opening_roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """Throw one die each to decide who starts (ties are thrown again).

        With ``dice`` given (player 0's die, player 1's die) only that throw is
        made, a tie included. The higher die starts and plays both dice just
        thrown, unless ``opening_reroll`` is set: then the winner throws again;
        under ``opening_choice`` the winner chooses (:meth:`use_opening` or
        :meth:`roll`). With ``automatic_doubles`` each tie doubles the cube (in
        the middle), up to that many times (every tie with ``UNLIMITED``), and
        never past ``cube_limit``.
        """
        self._expect(Phase.OPENING, None)
        while True:
            throw = dice or (self.dice_source.die(), self.dice_source.die())
            self._opening(throw)
            if dice is not None or self.phase is not Phase.OPENING:
                return throw

    def _opening(self, throw: tuple[int, int]) -> None:
        die0, die1 = throw
        Roll(die0, die1)  # validates both dice
        self.log.append(Action("opening", dice=(die0, die1)))
        self.opening_dice = (die0, die1)
        if die0 == die1:
            ties = sum(1 for a in self.log if a.kind == "opening" and a.dice and a.dice[0] == a.dice[1])
            limit = self.settings.automatic_doubles
            if (
                self.is_money
                and (limit == UNLIMITED or ties <= limit)
                and self.cube_value * 2 <= self.settings.cube_limit
            ):
                self.cube_value *= 2
            return
        winner = 0 if die0 > die1 else 1
        self.player_on_roll = self.turn = winner
        high, low = (die0, die1) if winner == 0 else (die1, die0)
        if self.settings.opening_reroll or self.settings.opening_choice:
            self.phase = Phase.ROLL
            if self.settings.opening_choice:
                self.opening_offer = Roll(high, low)
            return
        self._start_play(Roll(high, low))

    def use_opening(self, player: int) -> Roll:
        """Under ``opening_choice``: the opening winner plays the two dice of the
        opening throw instead of throwing again (docs/rules.md section 2)."""
        self._expect(Phase.ROLL, player)
        if self.opening_offer is None:
            raise GameError(Reason("there are no opening dice to play: roll"))
        dice = self.opening_offer
        self.log.append(Action("use_opening", player))
        self.opening_offer = None
        self._start_play(dice)
        return dice

    # -- the turn -------------------------------------------------------------

    def roll(self, player: int, dice: Roll | tuple[int, int] | None = None) -> Roll:
        """Throw the dice for ``player`` (phase ROLL). A roll that cannot be
        played (a dance, on the bar against a closed board too) is recorded as
        a lost turn and the turn passes."""
        self._expect(Phase.ROLL, player)
        if dice is None:
            thrown = Roll(self.dice_source.die(), self.dice_source.die())
        elif isinstance(dice, Roll):
            thrown = dice
        else:
            thrown = Roll(*dice)
        self.opening_offer = None
        self.log.append(Action("roll", player, dice=(thrown.die1, thrown.die2)))
        self._start_play(thrown)
        return thrown

    def _start_play(self, dice: Roll) -> None:
        self.dice = dice
        self.phase = Phase.PLAY
        self._plays = self._forgotten = None
        plays = self.legal_plays()
        if len(plays) == 1 and not plays[0].moves:
            self.log.append(Action("play", self.player_on_roll, text="", auto=True))
            self.last_play = (self.player_on_roll, plays[0])
            self._end_turn()

    def play(self, player: int, play: str | Play) -> Play:
        """Play the dice: ``play`` is notation (any accepted spelling) or a legal :class:`Play`.

        :raises GameError: out of turn or phase.
        :raises NotationError: unreadable notation.
        :raises IllegalPlayError: readable but not legal here.
        """
        self._expect(Phase.PLAY, player)
        assert self.dice is not None
        forgotten = self._still_forgotten() if isinstance(play, str) else None
        packed = forgotten.moves.get(play) if forgotten is not None else None  # type: ignore[arg-type]
        if packed is not None:  # a spelling kept from the plays found (the menu's): no search
            chosen = play_of_moves(self.position, unpack_moves(packed))
        elif isinstance(play, Play):
            if play not in self.legal_plays():
                raise IllegalPlayError(format_play(play), Reason("that is not a legal play of these dice"))
            chosen = play
        else:
            chosen = match_play(self.position, self.dice, play, self.legal_plays())
        self.log.append(Action("play", player, text=format_play(chosen)))
        self.last_play = (player, chosen)
        self.position = chosen.position
        if self.position.off[0] == CHECKERS:
            opponent = self.position.swap()
            if opponent.off[0] > 0:
                kind = WinKind.SINGLE
            elif opponent.bar[0] > 0 or any(n > 0 for n in opponent.board[18:]):
                kind = WinKind.BACKGAMMON
            else:
                kind = WinKind.GAMMON
            self._finish(player, kind, "bearoff")
        else:
            self._end_turn()
        return chosen

    def _end_turn(self) -> None:
        self.dice = None
        self._plays = self._forgotten = None
        self.player_on_roll = 1 - self.player_on_roll
        self.turn = self.player_on_roll
        self.position = self.position.swap()
        self.phase = Phase.ROLL
        if self.settings.closed_out == "skip" and self._skips_turn():
            self._skip_closed_out()

    def _skips_turn(self) -> bool:
        # Both closed out cannot arise in play (a player on the bar moves
        # nothing else), but someone would have to roll.
        return self.position.is_closed_out() and not self.position.swap().is_closed_out()

    def _skip_closed_out(self) -> None:
        """``closed_out = skip``: no roll at all; the turn passes straight back."""
        self.log.append(Action("closed_out", self.player_on_roll, auto=True))
        self.player_on_roll = 1 - self.player_on_roll
        self.turn = self.player_on_roll
        self.position = self.position.swap()

    # -- the cube -------------------------------------------------------------

    def double(self, player: int) -> int:
        """Offer a double before rolling; returns the cube value offered."""
        self._expect(Phase.ROLL, player)
        if not self.settings.cube:
            raise GameError(Reason("this game is played without the doubling cube"))
        if self.crawford:
            raise GameError(Reason("no doubling in the Crawford game"))
        if self.cube_owner is not None and self.cube_owner != player:
            raise GameError(Reason("only the cube's owner may redouble"))
        if self.cube_value * 2 > self.settings.cube_limit:
            raise GameError(Reason("the cube is at its limit ({cube_limit})", cube_limit=self.settings.cube_limit))
        if not (self.settings.double_before_first_play or self.first_play_made):
            raise GameError(Reason("no doubling before the game's first play"))
        self.offered_cube = self.cube_value * 2
        self.log.append(Action("double", player, value=self.offered_cube))
        self.phase = Phase.DOUBLED
        self.turn = 1 - player
        return self.offered_cube

    def take(self, player: int) -> None:
        """Accept the double: the cube doubles and the taker owns it."""
        self._expect(Phase.DOUBLED, player)
        assert self.offered_cube is not None
        self.log.append(Action("take", player))
        self.cube_value = self.offered_cube
        self.cube_owner = player
        self._after_cube()

    def beaver(self, player: int) -> None:
        """Money only: take and at once redouble, keeping the cube."""
        self._expect(Phase.DOUBLED, player)
        if not (self.settings.beavers and self.is_money):
            raise GameError(Reason("beavers are not allowed in this game"))
        assert self.offered_cube is not None
        if self.offered_cube * 2 > self.settings.cube_limit:
            raise GameError(
                Reason("a beaver would pass the cube limit ({cube_limit})", cube_limit=self.settings.cube_limit)
            )
        self.log.append(Action("beaver", player, value=self.offered_cube * 2))
        self.cube_value = self.offered_cube * 2
        self.cube_owner = player
        self._after_cube()

    def _after_cube(self) -> None:
        self.cube_turned = True
        self.offered_cube = None
        self.phase = Phase.ROLL
        self.turn = self.player_on_roll

    def drop(self, player: int) -> GameResult:
        """Pass (drop) the double: the doubler wins the cube's value before the double."""
        self._expect(Phase.DOUBLED, player)
        self.log.append(Action("pass", player))
        self.offered_cube = None
        return self._finish(1 - player, WinKind.SINGLE, "pass", points=self.cube_value)

    # -- resigning ------------------------------------------------------------

    def offer_resignation(self, player: int, level: int = 1) -> None:
        """Offer to resign at single (1), gammon (2) or backgammon (3) value."""
        if player not in (0, 1):
            raise GameError(Reason("there is no player {player}", player=player))
        if self.phase not in (Phase.ROLL, Phase.PLAY):
            raise GameError(self._phase_message())
        if level not in tuple(WinKind):
            raise GameError(Reason("resign at single (1), gammon (2) or backgammon (3)"))
        self.log.append(Action("resign", player, value=level))
        self._before_resignation = _Snapshot(self.phase, self.turn)
        self.resignation = (player, level)
        self.phase = Phase.RESIGNATION
        self.turn = 1 - player

    def accept_resignation(self, player: int) -> GameResult:
        self._expect(Phase.RESIGNATION, player)
        assert self.resignation is not None
        _, level = self.resignation
        self.log.append(Action("accept", player))
        self.resignation = None
        return self._finish(player, WinKind(level), "resign")

    def reject_resignation(self, player: int) -> None:
        self._expect(Phase.RESIGNATION, player)
        assert self._before_resignation is not None
        self.log.append(Action("reject", player))
        self.resignation = None
        self.phase = self._before_resignation.phase
        self.turn = self._before_resignation.turn
        self._before_resignation = None

    def forfeit(self, player: int, kind: WinKind = WinKind.SINGLE, reason: str = "forfeit") -> GameResult:
        """``player`` loses now (gives up, runs out of time): the opponent wins ``kind`` x cube."""
        if player not in (0, 1):
            raise GameError(Reason("there is no player {player}", player=player))
        if self.phase is Phase.OVER:
            raise GameError(Reason("the game is over"))
        self.log.append(Action("forfeit", player, text=reason, value=int(kind)))
        self.offered_cube = None
        self.resignation = None
        return self._finish(1 - player, kind, reason)

    def _finish(self, winner: int, kind: WinKind, reason: str, points: int | None = None) -> GameResult:
        counted = self.counted_kind(kind)
        self.result = GameResult(
            winner=winner,
            kind=counted,
            cube=self.cube_value,
            points=points if points is not None else self.points_for(kind),
            reason=reason,
        )
        self.phase = Phase.OVER
        self.unplayed_dice = self.dice
        self.dice = None
        self._plays = self._forgotten = None
        return self.result

    # -- checks ---------------------------------------------------------------

    def _expect(self, phase: Phase, player: int | None) -> None:
        if self.phase is not phase:
            raise GameError(self._phase_message())
        if player is not None and player != self.turn:
            raise GameError(
                Reason("it is player {turn}'s turn to act, not player {player}'s", turn=self.turn, player=player)
            )

    def _phase_message(self) -> Reason:
        return {
            Phase.OPENING: Reason("the game has not started: the opening throw comes first"),
            Phase.ROLL: Reason("the dice have not been thrown yet: roll (or double) first"),
            Phase.PLAY: Reason("the dice are thrown: play them first"),
            Phase.DOUBLED: Reason("a double is waiting for an answer: take or pass"),
            Phase.RESIGNATION: Reason("a resignation is waiting for an answer: accept or reject"),
            Phase.OVER: Reason("the game is over"),
        }[self.phase]

    # -- log and interchange ----------------------------------------------------

    def apply(self, action: Action | dict[str, Any]) -> None:
        """Apply one logged action (as :meth:`replay` does); auto actions are
        checked against what the game did itself."""
        if not isinstance(action, Action):
            action = Action.from_dict(action)
        if action.auto:
            # It must be the very entry the game made after the previous action.
            if self._cursor < len(self.log) and self.log[self._cursor] == action:
                self._cursor += 1
                return
            if self._old_skip(action) or self._logged_starter(action):
                return
            raise GameError(
                Reason("the log says {kind} happened by itself here, but it did not", kind=_short(action.kind, 20))
            )
        start = len(self.log)
        self._apply_action(action)
        self._cursor = start + 1

    def _logged_starter(self, action: Action) -> bool:
        """A game replayed without its ``starter`` (by code that only has the
        log): the log's first entry says who threw first."""
        if action.kind != "throws_first" or self.log or self.phase is not Phase.OPENING:
            return False
        self._throw_first(_player(action.player))
        self._cursor = len(self.log)
        return True

    def _old_skip(self, action: Action) -> bool:
        """A logged closed-out turn the game did not make: the log was written
        under ``closed_out = skip`` (every game before the setting existed), so
        the game goes on under that rule."""
        if not (
            action.kind == "closed_out"
            and self._cursor == len(self.log)
            and self.phase is Phase.ROLL
            and action.player == self.player_on_roll == self.turn
            and self._skips_turn()
        ):
            return False
        self.settings = replace(self.settings, closed_out="skip")
        self._skip_closed_out()
        self._cursor = len(self.log)
        return True

    def _apply_action(self, action: Action) -> None:
        kind, player = action.kind, action.player
        if kind == "opening":
            self._expect(Phase.OPENING, None)
            self._opening(_logged_dice(action, required=True))
        elif kind == "roll":
            self.roll(_player(player), _logged_dice(action))
        elif kind == "use_opening":
            self.use_opening(_player(player))
        elif kind == "play":
            self.play(_player(player), action.text or "")
        elif kind == "double":
            self.double(_player(player))
        elif kind == "take":
            self.take(_player(player))
        elif kind == "beaver":
            self.beaver(_player(player))
        elif kind == "pass":
            self.drop(_player(player))
        elif kind == "resign":
            self.offer_resignation(_player(player), _logged_kind(action))
        elif kind == "accept":
            self.accept_resignation(_player(player))
        elif kind == "reject":
            self.reject_resignation(_player(player))
        elif kind == "forfeit":
            self.forfeit(_player(player), _logged_kind(action), action.text or "forfeit")
        elif kind == "setup":
            self._setup(action.text or "")
        else:
            raise LogError(Reason("unknown action {kind}", kind=_short(kind, 20)))

    @classmethod
    def replay(
        cls,
        actions: list[Action] | list[dict[str, Any]],
        settings: GameSettings | None = None,
        *,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        dice: DiceSource | None = None,
        starter: int | None = None,
    ) -> Game:
        """Rebuild a game from its action log.

        :raises LogError: for an entry that is not an action.
        :raises GameError: for an action the game refuses at that point.
        """
        game = cls(settings, score=score, crawford=crawford, dice=dice, starter=starter)
        for action in actions:
            game.apply(action)
        return game

    def match_state(self) -> MatchState:
        """The fields of this game's GNU Backgammon Match ID.

        Once the game is over, as GNU Backgammon shows it: the score after the
        game; after a bear-off the loser on roll (the turn has passed), after
        a resignation the player on roll to act, the dice left unplayed and the
        level (the win as it counted; a forfeit is a resignation). Unlike GNU Backgammon, a match score stops
        at the match length, so that the ID still reads back (docs/rules.md 13).
        """
        game_state = 1
        score = self.score
        on_roll, turn = self.player_on_roll, self.turn
        resignation = self.resignation[1] if self.resignation else 0
        if self.phase is Phase.OPENING:
            game_state = 0
        elif self.result is not None:
            game_state = {"pass": 4, "bearoff": 2}.get(self.result.reason, 3)
            if game_state == 3:
                resignation = int(self.result.kind)
                turn = on_roll
            elif game_state == 2:
                on_roll = turn = 1 - self.result.winner
            score = final_score(self.score, self.result, self.settings.match_length)
        shown = self.dice or self.unplayed_dice
        dice = (shown.high, shown.low) if shown else (0, 0)
        return MatchState(
            cube=self.cube_value,
            cube_owner=self.cube_owner,
            player_on_roll=on_roll,
            crawford=self.crawford,
            game_state=game_state,
            turn=turn,
            double_offered=self.phase is Phase.DOUBLED,
            resignation=resignation,
            dice=dice,
            match_length=self.settings.match_length,
            score=score,
            jacoby=self.settings.jacoby if self.is_money else False,
        )

    def match_id(self) -> str:
        return encode_match_id(self.match_state())

    def gnubg_id(self) -> str:
        """``PositionID:MatchID`` as GNU Backgammon shows it: the position seen
        from the Match ID's player on roll."""
        state = self.match_state()
        return f"{self.position_for(state.player_on_roll).position_id()}:{encode_match_id(state)}"

    def xgid(self) -> str:
        """The XGID of the game as it stands (:mod:`engine.xgid`): player 1 at
        the bottom, as GNU Backgammon's ``set xgid`` reads it; money games with
        their Jacoby and beaver rules; the max cube is ``cube_limit`` (1 when
        the game has no cube).

        :raises XgidError: when an XGID cannot show the game: before its
            opening throw, while a resignation waits, once it is over.
        """
        state = self.match_state()
        return format_xgid(
            self.position_for(state.player_on_roll),
            state,
            beavers=self.settings.beavers and self.is_money,
            max_cube=min(self.settings.cube_limit, MAX_CUBE) if self.settings.cube else 1,
        )

    @classmethod
    def from_xgid(cls, xgid: str, settings: GameSettings | None = None, *, dice: DiceSource | None = None) -> Game:
        """Set up a game from an XGID, as :meth:`from_gnubg_id` does from the
        GNU Backgammon ID it means (the same checks, the same ``setup`` entry
        in the log).

        The XGID's rules win over ``settings``: its match length, and for money
        its Jacoby and beaver rules. The cube limit is the lower of
        ``settings.cube_limit`` and the XGID's max cube.

        :raises XgidError: if the XGID is malformed.
        :raises SetupError: if it names a state no game can go on from.
        """
        read = parse_xgid(xgid)
        settings = settings or GameSettings()
        money = read.state.match_length == 0
        settings = replace(
            settings,
            match_length=read.state.match_length,
            jacoby=money and read.state.jacoby,
            beavers=money and read.beavers,
            automatic_doubles=settings.automatic_doubles if money else 0,
            cube_limit=min(settings.cube_limit, read.max_cube),
        )
        game = cls(settings, dice=dice)
        game._setup(read.gnubg_id())
        return game

    @classmethod
    def from_gnubg_id(
        cls, gnubg_id: str, settings: GameSettings | None = None, *, dice: DiceSource | None = None
    ) -> Game:
        """Set up a game from ``PositionID:MatchID`` (or a Position ID alone: money, player 0 to roll).

        The position and state must be one a game can go on from, as GNU
        Backgammon would accept it: at most 15 checkers a side (the rest are
        borne off), both sides still with checkers to bear off, not both on
        the bar against closed boards, a game in play (not over), a match
        score below the match length, a cube no higher than ``cube_limit``,
        and a pending double that the cube allows (docs/rules.md section 13).

        :raises IdError: if either ID is malformed.
        :raises SetupError: if the IDs name a state no game can go on from.
        """
        game = cls(settings, dice=dice)
        game._setup(gnubg_id)
        return game

    def _setup(self, gnubg_id: str) -> None:
        if self.log:
            raise GameError(Reason("a game can only be set up before it starts"))
        position_id, _, match_id = gnubg_id.strip().partition(":")
        position = decode_position_id(position_id)
        state = decode_match_id(match_id) if match_id else MatchState(game_state=1)
        settings = self.settings
        if state.match_length != settings.match_length:
            settings = replace(
                settings,
                match_length=state.match_length,
                jacoby=settings.jacoby and state.match_length == 0,
                beavers=settings.beavers and state.match_length == 0,
                automatic_doubles=0 if state.match_length else settings.automatic_doubles,
            )
        _check_setup(position, state, settings)
        self.settings = settings
        self.log.append(Action("setup", text=f"{position_id.strip()}:{encode_match_id(state)}"))
        self.position = position
        self.player_on_roll = state.player_on_roll
        self.turn = state.turn
        self.score = state.score
        self.crawford = state.crawford
        self.cube_value = state.cube
        self.cube_owner = state.cube_owner
        # A cube in the middle was never turned (automatic doubles leave it there).
        self.cube_turned = state.cube_owner is not None
        if state.double_offered:
            self.offered_cube = state.cube * 2
            self.phase = Phase.DOUBLED
            self.turn = 1 - self.player_on_roll
        elif state.dice != (0, 0):
            self._start_play(Roll(*state.dice))
        else:
            self.phase = Phase.ROLL
            self.turn = self.player_on_roll
            if self.settings.closed_out == "skip" and self._skips_turn():
                self._skip_closed_out()
        if state.resignation and not state.double_offered and self.phase is not Phase.OVER:
            # The resigning player is the one not to act (fTurn answers).
            self._before_resignation = _Snapshot(self.phase, self.turn)
            self.resignation = (1 - state.turn, state.resignation)
            self.phase = Phase.RESIGNATION
            self.turn = state.turn


def final_score(before: tuple[int, int], result: GameResult, match_length: int) -> tuple[int, int]:
    """The score after a game: ``before`` plus the winner's points, which in a
    match stop at the match length (points past it win nothing more)."""
    score = list(before)
    score[result.winner] += result.points
    if match_length:
        score[result.winner] = min(score[result.winner], match_length)
    return score[0], score[1]


def _check_setup(position: Position, state: MatchState, settings: GameSettings) -> None:
    """:raises SetupError: unless a game can go on from ``position`` and ``state``."""
    if state.game_state not in (0, 1):
        raise SetupError(Reason("that Match ID shows a finished game: there is nothing left to play"))
    if CHECKERS in position.off:
        raise SetupError(Reason("a side has borne off all 15 checkers: that game is over"))
    if position.is_closed_out() and position.swap().is_closed_out():
        raise SetupError(Reason("both sides are on the bar against closed boards: neither could ever move"))
    if state.match_length and max(state.score) >= state.match_length:
        score, length = state.score, state.match_length
        raise SetupError(
            Reason(
                "a score of {value}-{value2} has already won a {length}-point match",
                value=score[0],
                value2=score[1],
                length=length,
            )
        )
    if state.crawford and not state.match_length:
        raise SetupError(Reason("a money game has no Crawford game"))
    if state.cube > settings.cube_limit:
        raise SetupError(
            Reason(
                "the cube shows {cube}, past this game's limit of {cube_limit}",
                cube=state.cube,
                cube_limit=settings.cube_limit,
            )
        )
    if state.double_offered:
        doubler = state.player_on_roll
        if state.dice != (0, 0):
            raise SetupError(Reason("a double is offered before rolling, not with dice on the board"))
        if not settings.cube or state.crawford:
            raise SetupError(Reason("no double can be offered in this game"))
        if state.cube_owner not in (None, doubler):
            raise SetupError(Reason("only the cube's owner may redouble"))
        if state.cube * 2 > settings.cube_limit:
            raise SetupError(
                Reason("a double would pass this game's cube limit of {cube_limit}", cube_limit=settings.cube_limit)
            )
    elif state.dice != (0, 0) and state.turn != state.player_on_roll and not state.resignation:
        raise SetupError(Reason("the dice are thrown, so the player on roll is the one to act"))


@overload
def _logged_dice(action: Action, *, required: Literal[True]) -> tuple[int, int]: ...
@overload
def _logged_dice(action: Action, *, required: bool = False) -> tuple[int, int] | None: ...
def _logged_dice(action: Action, *, required: bool = False) -> tuple[int, int] | None:
    if action.dice is None:
        if required:
            raise LogError(Reason("a logged {kind} needs its dice", kind=_short(action.kind, 20)))
        return None
    if not all(1 <= die <= 6 for die in action.dice):
        raise LogError(Reason("a die shows 1 to 6, not {value}-{value2}", value=action.dice[0], value2=action.dice[1]))
    return action.dice


def _logged_kind(action: Action) -> WinKind:
    value = action.value or 1
    if value not in (1, 2, 3):
        kind = _short(action.kind, 20)
        raise LogError(
            Reason(
                "a logged {kind} is at single (1), gammon (2) or backgammon (3), not {value}", kind=kind, value=value
            )
        )
    return WinKind(value)


def _player(player: int | None) -> int:
    if player not in (0, 1):
        raise GameError(Reason("the action names no player (got {player!r})", player=player))
    return player
