"""Chouette sessions in a channel or thread: the box against a captain and crew, each
with their own cube (the rules: :mod:`engine.chouette`, ``docs/rules.md``).

A session is stored as its players and every action since
(:mod:`bot.store.chouettes`), and rebuilt by replaying them through the
engine: a restart loses nothing, and each action is one compare-and-set, so
two clicks racing have one winner. Who may do what:

- **double**: the box doubles every member whose cube it may turn; a member
  doubles the box with their own cube.
- **take** / **drop**: a member answers the box's double on their cube; the
  box answers a member's double (naming the member).
- **result**: the checkers' game is reported by the side that lost it (the box
  when the team won, the captain when the box won): a concession, which the
  winner has no reason to dispute.
- **end**: any player ends the session; the ledger is settled as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.core.model import ChallengeError, ServiceError, StaleGameError
from bot.store import ChannelBusyError, StaleVersionError, Store
from bot.store.chouettes import ChouetteRow, ChouetteStore
from engine import WinKind
from engine.chouette import MAX_PLAYERS, MIN_PLAYERS, Chouette, ChouetteError, ChouetteOptions, CrewDoubles, Rotation
from i18n import _, worded

__all__ = ["ChouetteSession", "Chouettes"]


@dataclass(frozen=True, slots=True)
class ChouetteSession:
    """A session as it stands: its stored row and the rules' state rebuilt from it."""

    row: ChouetteRow
    state: Chouette[int]

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def ended(self) -> bool:
        return self.row.status == "ended"


def options_of(data: dict[str, Any]) -> ChouetteOptions:
    return ChouetteOptions(
        crew_doubles=CrewDoubles(data.get("crew_doubles", CrewDoubles.INDEPENDENT.value)),
        rotation=Rotation(data.get("rotation", Rotation.CAPTAIN.value)),
        consultation=bool(data.get("consultation", True)),
    )


def replay(row: ChouetteRow) -> Chouette[int]:
    """The session's state: its players and options, every logged action applied."""
    state = Chouette(list(row.players), options_of(row.options))
    for action in row.log:
        _apply(state, action)
    return state


def _apply(state: Chouette[int], action: dict[str, Any]) -> None:
    kind = action.get("kind")
    members = [int(m) for m in action.get("members") or []]
    if kind == "box_doubles":
        state.box_doubles(members or None)
    elif kind == "team_doubles":
        state.team_doubles(members)
    elif kind == "take":
        state.take(int(action["member"]))
    elif kind == "drop":
        state.drop(int(action["member"]))
    elif kind == "end_game":
        state.end_game(team_won=bool(action["team_won"]), kind=WinKind(int(action["win"])))
    elif kind == "end":
        state.end()
    else:
        raise ChouetteError(f"unknown chouette action {kind!r}")


class Chouettes:
    """The chouette sessions of one bot process."""

    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self.sessions = ChouetteStore(store.db)
        self.clock = clock

    async def start(
        self, guild_id: int, channel_id: int, players: Sequence[int], options: ChouetteOptions | None = None
    ) -> ChouetteSession:
        """A session in ``channel_id``: ``players`` in their order (the box first, then the captain).

        :raises ChallengeError: a player twice, too few or too many, a session going on there."""
        options = options or ChouetteOptions()
        try:
            Chouette(list(players), options)
        except ChouetteError:
            raise ChallengeError(
                _("a chouette is {low} to {high} different players: the box first, then the team").format(
                    low=MIN_PLAYERS, high=MAX_PLAYERS
                )
            ) from None
        stored = {
            "crew_doubles": options.crew_doubles.value,
            "rotation": options.rotation.value,
            "consultation": options.consultation,
        }
        try:
            row = await self.sessions.create(guild_id, channel_id, players, stored)
        except ChannelBusyError:
            raise ChallengeError(_("a chouette is going on here already: end it first")) from None
        return ChouetteSession(row, replay(row))

    async def in_channel(self, channel_id: int) -> ChouetteSession:
        """:raises ServiceError: no session going on there."""
        row = await self.sessions.active_in(channel_id)
        if row is None:
            raise ServiceError(_("no chouette is going on here: start one with `/bgclub chouette`"))
        return ChouetteSession(row, replay(row))

    async def _act(
        self, session: ChouetteSession, action: dict[str, object], *, ended: bool = False
    ) -> ChouetteSession:
        state = replay(session.row)
        try:
            _apply(state, action)  # the rules' refusal, before anything is written
        except ChouetteError as error:
            raise ServiceError(worded(error)) from None
        try:
            row = await self.sessions.append(session.row, action, ended=ended)
        except StaleVersionError:
            raise StaleGameError(_("the chouette has moved on: look at its last message")) from None
        return ChouetteSession(row, replay(row))

    def _seated(self, session: ChouetteSession, user_id: int) -> None:
        if user_id not in session.row.players:
            raise ServiceError(_("you are not in this chouette"))

    async def double(self, channel_id: int, user_id: int) -> ChouetteSession:
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        if user_id == session.state.box:
            return await self._act(session, {"kind": "box_doubles", "members": []})
        return await self._act(session, {"kind": "team_doubles", "members": [user_id]})

    async def answer(self, channel_id: int, user_id: int, take: bool, member: int | None = None) -> ChouetteSession:
        """``user_id`` takes or drops the double that waits on ``member``'s cube (a member:
        their own; the box: the member named, else the only one waiting)."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        state = session.state
        game = state.game
        assert game is not None
        if user_id == state.box:
            waiting = [m for m, c in game.cubes.items() if c.offered_by == "member"]
            if member is None:
                if len(waiting) != 1:
                    raise ServiceError(_("name the member whose double you answer"))
                member = waiting[0]
            if member not in waiting:
                raise ServiceError(_("no double of that member waits for your answer"))
        else:
            if member not in (None, user_id):
                raise ServiceError(_("you answer only the double on your own cube"))
            member = user_id
            if game.cubes[member].offered_by != "box":
                raise ServiceError(_("no double of the box waits for your answer"))
        return await self._act(session, {"kind": "take" if take else "drop", "member": member})

    async def result(self, channel_id: int, user_id: int, team_won: bool, kind: WinKind) -> ChouetteSession:
        """The checkers' game is over, conceded by the side that lost it."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        loser = session.state.box if team_won else session.state.captain
        if user_id != loser:
            raise ServiceError(_("the side that lost reports the result: the box when the team won, else the captain"))
        return await self._act(session, {"kind": "end_game", "team_won": team_won, "win": int(kind)})

    async def end(self, channel_id: int, user_id: int) -> ChouetteSession:
        """End the session on a player's request; the ledger is settled as it stands."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        return await self._act(session, {"kind": "end"}, ended=True)
