"""Shared helpers for the game-service tests (not a test module).

The service tests run on both backends: their ``env`` fixtures open the
``db_url`` fixture (a SQLite file path or a PostgreSQL URL, see
``tests/conftest.py``).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.core import (
    SERVICE_ACTIONS,
    ChallengeOptions,
    GameService,
    GameState,
    Outcome,
    PlayerRef,
)
from bot.store import Store, open_store
from engine import DiceSource, Match, Phase, SeededDice

ALICE = PlayerRef(1001, "Alice")
BOB = PlayerRef(1002, "Bob")
CAROL = PlayerRef(1003, "Carol")
DAVE = PlayerRef(1004, "Dave")
ROBOT = PlayerRef(1999, "Robo", is_bot=True)

GUILD = 555
OTHER_GUILD = 777


class FakeClock:
    """A mutable 'now' for Store.open(clock=...) and GameService(clock=...)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2024, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> datetime:
        self.now = self.now + timedelta(**kwargs)
        return self.now


@dataclass
class Env:
    store: Store
    service: GameService
    clock: FakeClock
    path: str
    """The database: a SQLite path or a ``postgresql://`` URL (a str: ``Path()`` would mangle a URL)."""

    @property
    def backend(self) -> str:
        return self.store.backend


async def open_env(path: str | os.PathLike[str], clock: FakeClock | None = None, dice: DiceSource | None = None) -> Env:
    """A store and a service on ``path`` (SQLite path or ``DATABASE_URL``)."""
    clock = clock or FakeClock()
    url = os.fspath(path)
    store = await open_store(url, clock=clock)
    service = GameService(store, dice=dice or SeededDice(7), clock=clock)
    return Env(store, service, clock, url)


async def start_game(
    service: GameService,
    *,
    guild: int = GUILD,
    channel: int = 100,
    a: PlayerRef = ALICE,
    b: PlayerRef = BOB,
    options: ChallengeOptions | None = None,
) -> GameState:
    challenge = await service.challenges.create(guild, channel, a, b, options or ChallengeOptions())
    outcome = await service.challenges.accept(challenge.id, b.user_id)
    return outcome.state


def state_of(match: Match) -> dict[str, Any]:
    """Everything that must survive a rebuild from the log."""
    game = match.game
    assert game is not None
    return {
        "log": [a.to_dict() for a in match.log],
        "version": match.version,
        "score": match.score,
        "games": len(match.games),
        "position": game.position,
        "player_on_roll": game.player_on_roll,
        "turn": game.turn,
        "phase": game.phase,
        "dice": game.dice,
        "cube": (game.cube_value, game.cube_owner, game.offered_cube, game.cube_turned),
        "resignation": game.resignation,
        "result": game.result,
        "crawford": game.crawford,
    }


async def stored_state(service: GameService, store: Store, game_id: int) -> tuple[Any, list[dict[str, Any]], Match]:
    """(row, stored log, match rebuilt from the stored log) from one snapshot."""
    row, actions = await store.games.with_actions(game_id)
    log = [a.action for a in actions]
    assert row.version == len(log), (row.version, len(log))
    assert [a.seq for a in actions] == list(range(1, len(log) + 1))
    return row, log, service.cache.rebuild(row.settings, log)


async def assert_replays(service: GameService, store: Store, game_id: int, live: Match | None = None) -> Match:
    """The stored log rebuilds the live state (the service's own view unless given)."""
    row, log, rebuilt = await stored_state(service, store, game_id)
    engine_log = [a for a in log if a.get("kind") not in SERVICE_ACTIONS]
    assert engine_log == [a.to_dict() for a in rebuilt.log]
    if live is None:
        state = await service.lookups.get_game(game_id)
        assert state.version == row.version
        live = state.match
    assert state_of(rebuilt) == state_of(live)
    assert (row.score0, row.score1) == rebuilt.score
    return rebuilt


async def random_step(service: GameService, state: GameState, rng: random.Random) -> Outcome:
    """One plausible legal action by whoever is to act (doubles/takes now and then)."""
    player = state.to_act()
    assert player is not None
    game = state.game
    gid, uid, ver = state.id, player.user_id, state.version
    if game.phase is Phase.ROLL:
        if game.can_double(game.turn) and game.cube_value < 4 and rng.random() < 0.08:
            return await service.double(gid, uid, version=ver)
        return await service.roll(gid, uid, version=ver)
    if game.phase is Phase.PLAY:
        return await service.play(gid, uid, rng.choice(state.legal_play_texts()), version=ver)
    if game.phase is Phase.DOUBLED:
        if game.can_beaver(game.turn) and rng.random() < 0.2:
            return await service.beaver(gid, uid, version=ver)
        if rng.random() < 0.15:
            return await service.pass_double(gid, uid, version=ver)
        return await service.take(gid, uid, version=ver)
    if game.phase is Phase.RESIGNATION:
        if rng.random() < 0.5:
            return await service.accept_resignation(gid, uid, version=ver)
        return await service.reject_resignation(gid, uid, version=ver)
    raise AssertionError(f"no action in phase {game.phase}")


async def play_out(service: GameService, state: GameState, rng: random.Random, max_actions: int = 2000) -> GameState:
    """Play random legal actions until the match is over."""
    for _ in range(max_actions):
        if not state.is_active:
            return state
        state = (await random_step(service, state, rng)).state
    raise AssertionError("the game did not finish")
