"""The chouette: one player, the box, against a team of a captain and a crew.

Pure rules and bookkeeping, no dice and no board: the captain plays the team's
checkers in an ordinary :class:`~engine.Game` against the box; this module
keeps what that game does not know. Each team member has a cube of their own
with the box (:class:`Cube`); doubles, takes and drops are between the box and
one member at a time; a game's end is scored between the box and every member
still in it; the points go into a ledger between every pair of players that
sums to zero; the rotation after each game decides the next box and captain.
The rules and the options clubs argue about are in ``docs/rules.md``.

>>> session = Chouette(["ann", "bob", "cat", "dan"])
>>> session.box, session.captain, session.crew
('ann', 'bob', ('cat', 'dan'))
>>> session.box_doubles()                  # the box doubles the whole team
>>> session.take("bob")
>>> session.take("cat")
>>> session.drop("dan")
>>> session.end_game(team_won=True, kind=WinKind.GAMMON)
>>> session.totals()
{'ann': -7, 'bob': 4, 'cat': 4, 'dan': -1}
>>> session.order                          # the box lost to the captain: the captain is the box
('bob', 'cat', 'dan', 'ann')
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, TypeVar

from engine.game import WinKind
from engine.reasons import Reason

P = TypeVar("P", bound=Hashable)
"""A player, as the caller names them (a member id, a name)."""

MIN_PLAYERS = 2
MAX_PLAYERS = 8
"""A box and one to seven on the team."""


class ChouetteError(ValueError):
    """An action the chouette's rules refuse (who may double, take or drop, and when)."""


class CrewDoubles(Enum):
    """When a crew member may double the box."""

    INDEPENDENT = "independent"
    """Whenever their own cube allows, whatever the captain does."""
    WITH_CAPTAIN = "with captain"
    """Only together with the captain's double (the captain's cube must allow it too)."""


class Rotation(Enum):
    """Whose result decides whether the box keeps the box."""

    CAPTAIN = "captain"
    """The result against the player who started the game as captain (a captain who
    dropped lost)."""
    MAJORITY = "majority"
    """The box keeps the box when it won more points than it lost in the game."""


@dataclass(frozen=True, slots=True)
class ChouetteOptions:
    crew_doubles: CrewDoubles = CrewDoubles.INDEPENDENT
    rotation: Rotation = Rotation.CAPTAIN
    consultation: bool = True
    """The crew may advise the captain on the checker play (the captain decides)."""
    cube_limit: int = 64


@dataclass(slots=True)
class Cube:
    """One team member's cube with the box: its value and who owns it (None: centred)."""

    value: int = 1
    owner: str | None = None
    """``"box"``, ``"member"`` or None (centred)."""
    offered_by: str | None = None
    """A double waiting for its answer: who offered it (``"box"`` or ``"member"``)."""

    def may_double(self, side: str) -> bool:
        return self.offered_by is None and self.owner in (None, side)


@dataclass(slots=True)
class ChouetteGame(Generic[P]):
    """One game of the session: the team as it started, each member's cube, who is still in."""

    box: P
    team: tuple[P, ...]
    """The captain first, then the crew in order."""
    cubes: dict[P, Cube]
    still_in: list[P]
    """Members whose game is not settled yet, in team order; the first plays the checkers."""
    dropped: set[P] = field(default_factory=set)
    """Members who passed the box's double (they lost at the cube before it)."""
    beaten_by: set[P] = field(default_factory=set)
    """Members whose double the box passed (they won)."""

    @property
    def captain(self) -> P | None:
        """Who plays the team's checkers now (the next in line when the captain is out)."""
        return self.still_in[0] if self.still_in else None


class Chouette(Generic[P]):
    """A chouette session over ``players`` in their order of play: the first is the box,
    the second the captain, the rest the crew in line.

    :raises ChouetteError: fewer than 2 or more than 8 players, or a player twice.
    """

    def __init__(self, players: Sequence[P], options: ChouetteOptions | None = None) -> None:
        if len(set(players)) != len(players):
            raise ChouetteError(Reason("a player sits in a chouette once"))
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ChouetteError(
                Reason(
                    "a chouette is {MIN_PLAYERS} to {MAX_PLAYERS} players: a box and a team",
                    MIN_PLAYERS=MIN_PLAYERS,
                    MAX_PLAYERS=MAX_PLAYERS,
                )
            )
        self.options = options or ChouetteOptions()
        self._players: list[P] = list(players)
        """Everyone seated, in their first order (the ledger's order)."""
        self._order: list[P] = list(players)
        self._game_start_totals: dict[P, int] = {}
        self._ledger: dict[tuple[P, P], int] = {}
        """(winner, loser) -> points; each pair's net is read both ways (:meth:`owed`)."""
        self.games_played = 0
        self.ended = False
        self.game: ChouetteGame[P] | None = None
        self.new_game()

    # -- who is who ------------------------------------------------------------------------

    @property
    def order(self) -> tuple[P, ...]:
        """Everyone in order: the box, the captain, the crew."""
        return tuple(self._order)

    @property
    def box(self) -> P:
        return self._order[0]

    @property
    def captain(self) -> P:
        """Who plays the team's checkers now."""
        game = self._game()
        return game.captain if game.captain is not None else self._order[1]

    @property
    def crew(self) -> tuple[P, ...]:
        return tuple(self._order[2:])

    def _game(self) -> ChouetteGame[P]:
        if self.game is None:
            raise ChouetteError(Reason("the session is over") if self.ended else Reason("no game is being played"))
        return self.game

    def new_game(self) -> ChouetteGame[P]:
        """The next game, between the box and the team as the order stands, every cube centred."""
        if self.ended:
            raise ChouetteError(Reason("the session is over"))
        team = tuple(self._order[1:])
        self._game_start_totals = self.totals()
        self.game = ChouetteGame(self.box, team, {m: Cube() for m in team}, list(team))
        return self.game

    def cube(self, member: P) -> Cube:
        return self._game().cubes[self._member(member)]

    def _member(self, member: P) -> P:
        game = self._game()
        if member not in game.cubes:
            raise ChouetteError(Reason("{member!r} is not on the team", member=member))
        return member

    def _in(self, member: P) -> Cube:
        game = self._game()
        if self._member(member) not in game.still_in:
            raise ChouetteError(Reason("{member!r} is out of this game", member=member))
        return game.cubes[member]

    def waiting(self) -> bool:
        """Whether a double waits for its answer."""
        return any(c.offered_by is not None for c in self._game().cubes.values())

    # -- the cubes -------------------------------------------------------------------------

    def box_doubles(self, members: Iterable[P] | None = None) -> None:
        """The box doubles ``members`` (default: every member still in whose cube it may turn).
        Each answers on their own (:meth:`take`, :meth:`drop`)."""
        game = self._game()
        if self.waiting():
            raise ChouetteError(Reason("a double waits for its answer"))
        chosen = list(members) if members is not None else [m for m in game.still_in if game.cubes[m].may_double("box")]
        if not chosen:
            raise ChouetteError(Reason("the box has no cube it may turn"))
        for member in chosen:
            cube = self._in(member)
            if not cube.may_double("box") or cube.value * 2 > self.options.cube_limit:
                raise ChouetteError(
                    Reason("the box may not double {member!r}: that cube is theirs or at its limit", member=member)
                )
        for member in chosen:
            game.cubes[member].offered_by = "box"

    def team_doubles(self, members: Collection[P]) -> None:
        """Team members double the box, each with their own cube; more may join while the
        box has not answered yet (the crew deciding after the captain). Under
        :attr:`CrewDoubles.WITH_CAPTAIN` the captain must be among them, or have doubled."""
        game = self._game()
        if any(c.offered_by == "box" for c in game.cubes.values()):
            raise ChouetteError(Reason("a double waits for its answer"))
        if not members:
            raise ChouetteError(Reason("name who doubles"))
        captain = game.captain
        with_captain = captain in members or (captain is not None and game.cubes[captain].offered_by == "member")
        if self.options.crew_doubles is CrewDoubles.WITH_CAPTAIN and not with_captain:
            raise ChouetteError(Reason("the crew doubles only with the captain"))
        for member in members:
            cube = self._in(member)
            if not cube.may_double("member") or cube.value * 2 > self.options.cube_limit:
                raise ChouetteError(
                    Reason("{member!r} may not double: the box owns that cube, or it is at its limit", member=member)
                )
        for member in members:
            game.cubes[member].offered_by = "member"

    def take(self, member: P) -> None:
        """The double on ``member``'s cube is taken (by the member, or by the box when the member doubled)."""
        cube = self._in(member)
        if cube.offered_by is None:
            raise ChouetteError(Reason("no double waits on {member!r}'s cube", member=member))
        taker = "member" if cube.offered_by == "box" else "box"
        cube.value *= 2
        cube.owner = taker
        cube.offered_by = None

    def drop(self, member: P) -> None:
        """The double on ``member``'s cube is passed: the one who passed pays the cube's
        value before the double, and the member's game is over."""
        game = self._game()
        cube = self._in(member)
        if cube.offered_by is None:
            raise ChouetteError(Reason("no double waits on {member!r}'s cube", member=member))
        if cube.offered_by == "box":
            self._pay(member, game.box, cube.value)
            game.dropped.add(member)
        else:
            self._pay(game.box, member, cube.value)
            game.beaten_by.add(member)
        cube.offered_by = None
        game.still_in.remove(member)
        if not game.still_in:
            self._finish()

    # -- the end of a game -------------------------------------------------------------------

    def end_game(self, *, team_won: bool, kind: WinKind = WinKind.SINGLE) -> None:
        """The checkers' game is over: the box and every member still in settle at their
        own cube (``kind``: single, gammon or backgammon). Then the rotation, and the next game."""
        game = self._game()
        if self.waiting():
            raise ChouetteError(Reason("a double waits for its answer"))
        if not game.still_in:
            raise ChouetteError(Reason("nobody is left in this game"))
        for member in list(game.still_in):
            points = game.cubes[member].value * int(kind)
            if team_won:
                self._pay(game.box, member, points)
                game.beaten_by.add(member)
            else:
                self._pay(member, game.box, points)
                game.dropped.add(member)
        game.still_in.clear()
        self._finish()

    def _box_keeps(self, game: ChouetteGame[P]) -> bool:
        if self.options.rotation is Rotation.MAJORITY:
            return self.total(game.box) - self._game_start_totals[game.box] > 0
        return game.team[0] not in game.beaten_by

    def _finish(self) -> None:
        game = self._game()
        box, team = game.box, list(game.team)
        if self._box_keeps(game):
            self._order = [box, *team[1:], team[0]]  # the captain goes to the end of the line
        else:
            self._order = [team[0], *team[1:], box]  # the captain takes the box; the old box joins the end
        self.games_played += 1
        self.game = None
        self.new_game()

    # -- the ledger ----------------------------------------------------------------------------

    def _pay(self, payer: P, payee: P, points: int) -> None:
        if payer == payee or points < 0:
            raise ChouetteError(Reason("a payment is between two players, of a positive amount"))
        self._ledger[(payee, payer)] = self._ledger.get((payee, payer), 0) + points

    def owed(self, winner: P, loser: P) -> int:
        """What ``loser`` owes ``winner`` in all (negative: the other way round)."""
        return self._ledger.get((winner, loser), 0) - self._ledger.get((loser, winner), 0)

    def ledger(self) -> dict[tuple[P, P], int]:
        """Every pair that owes, once: (creditor, debtor) -> points, in the order of play."""
        players = list(self._seated)
        out: dict[tuple[P, P], int] = {}
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                net = self.owed(a, b)
                if net > 0:
                    out[(a, b)] = net
                elif net < 0:
                    out[(b, a)] = -net
        return out

    def total(self, player: P) -> int:
        return sum(self.owed(player, other) for other in self._seated if other != player)

    def totals(self) -> dict[P, int]:
        """Each player's net points (they sum to zero)."""
        return {p: self.total(p) for p in self._seated}

    def end(self) -> dict[tuple[P, P], int]:
        """End the session on request: the game in progress is abandoned unscored (its
        passed doubles stand, paid when passed), and the ledger is settled as it stands."""
        self.ended = True
        self.game = None
        return self.ledger()

    @property
    def _seated(self) -> list[P]:
        return self._players
