"""Bounded memory: a service keeps at most ``Limits.cached_games`` active games
in memory; a game that dropped out is read again from its row and log and is
the same game, and the locks of games no longer in memory are released."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import ChallengeOptions, GameService, Limits, PlayerRef
from bot.core.lru import Lru
from bot.store import open_store
from engine import SeededDice

from tests.bot.core.helpers import FakeClock, random_step, state_of

PLAYERS = [PlayerRef(100 + n, f"p{n}") for n in range(12)]


def test_lru_keeps_the_most_recently_used():
    dropped: list[int] = []
    lru: Lru[int, str] = Lru(2, dropped.append)
    lru[1], lru[2] = "a", "b"
    assert lru.get(1) == "a"  # 1 is now the newest
    lru[3] = "c"
    assert dropped == [2] and 2 not in lru and len(lru) == 2
    assert lru.pop(1) == "a" and lru.pop(1) is None


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.integers(10, 60))
async def test_evicted_games_come_back_the_same(tmp_path_factory, seed, steps):
    rng = random.Random(seed)
    path = tmp_path_factory.mktemp("lru") / "bg.sqlite3"
    clock = FakeClock()
    store = await open_store(str(path), clock=clock)
    try:
        small = GameService(store, dice=SeededDice(seed), clock=clock, limits=Limits(cached_games=2))
        games = []
        for n in range(5):  # more games than the cache holds
            a, b = PLAYERS[2 * n], PLAYERS[2 * n + 1]
            challenge = await small.challenges.create(1, 500 + n, a, b, ChallengeOptions(match_length=rng.choice([0, 3])))
            games.append((await small.challenges.accept(challenge.id, b.user_id)).view.id)
        for _ in range(steps):
            game_id = rng.choice(games)
            view = await small.get_game(game_id)
            if not view.is_active:
                continue
            await random_step(small, view, rng)
            assert len(small._cache) <= 2 and len(small._rows) <= 2
            assert len(small._locks) <= 4
        fresh = GameService(store, clock=clock)  # nothing in memory: everything from the store
        for game_id in games:
            mine, theirs = await small.get_game(game_id), await fresh.get_game(game_id)
            assert mine.version == theirs.version and mine.status == theirs.status
            if mine.is_active:
                assert state_of(mine.match) == state_of(theirs.match)
    finally:
        await store.close()
