"""Stored snapshots of game state (issue 24, bounded memory): a long game is rebuilt
from its snapshot and the actions after it, never from a snapshot it can't trust.

Each test runs on SQLite and on PostgreSQL (the ``db_url`` fixture). The
property test (snapshot + tail == the whole log replayed, the same next action
accepted) is tests/bot/core/test_memory.py."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator

import pytest

from bot.core import ChallengeOptions, GameService, Limits, game_cache
from bot.core.game_cache import GameCache
from engine import SeededDice
from engine.snapshot import FORMAT
from tests.bot.core.helpers import Env, open_env, random_step, start_game, state_of

EVERY = 10


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url)
    e.service = GameService(e.store, dice=SeededDice(7), clock=e.clock, limits=Limits(snapshot_every=EVERY))
    yield e
    await e.store.close()


async def play_to(env: Env, version: int, rng: random.Random):
    state = await start_game(env.service, options=ChallengeOptions(match_length=7))
    while state.version < version:
        assert state.is_active
        state = (await random_step(env.service, state, rng)).state
    return state


def spy(env: Env) -> dict[str, list]:
    """What a service reads of the logs: the snapshot and tail, or a whole log."""
    reads: dict[str, list] = {"tails": [], "whole": []}
    tail_of, whole_of = env.store.games.snapshot_and_tail, env.store.games.actions

    async def tail(*args, **kwargs):
        found = await tail_of(*args, **kwargs)
        reads["tails"].append(found)
        return found

    async def whole(*args, **kwargs):
        reads["whole"].append(args)
        return await whole_of(*args, **kwargs)

    env.store.games.snapshot_and_tail = tail  # type: ignore[method-assign]  # counts the reads
    env.store.games.actions = whole  # type: ignore[method-assign]
    return reads


@pytest.mark.parametrize("in_thread", [False, True])
async def test_a_long_game_is_rebuilt_from_its_snapshot_and_the_tail(env, in_thread, monkeypatch):
    if in_thread:  # as a long match's snapshot: written and read off the event loop
        monkeypatch.setattr(game_cache, "SNAPSHOT_ON_LOOP", 0)
        monkeypatch.setattr(game_cache, "SNAPSHOT_CHARACTERS_ON_LOOP", 0)
        off_loop = GameCache.off_loop
        works = []

        async def counted(self, work, *args, **kwargs):
            works.append(work.__name__)
            return await off_loop(self, work, *args, **kwargs)

        monkeypatch.setattr(GameCache, "off_loop", counted)
    state = await play_to(env, 4 * EVERY + 3, random.Random(3))
    snapshot = await env.store.games.snapshot(state.id)
    assert snapshot.format == FORMAT and state.version - EVERY < snapshot.version <= state.version
    reads = spy(env)
    other = GameService(env.store, clock=env.clock, limits=Limits(snapshot_every=EVERY))  # another process
    theirs = await other.lookups.get_game(state.id)
    ((found, tail),) = reads["tails"]
    assert found == snapshot and [a.seq for a in tail] == list(range(snapshot.version + 1, state.version + 1))
    assert reads["whole"] == []
    assert state_of(theirs.match) == state_of(state.match) and theirs.legal_play_texts() == state.legal_play_texts()
    # and it plays on from there, storing the next snapshot in its turn
    rng = random.Random(4)
    while theirs.version < snapshot.version + EVERY:
        theirs = (await random_step(other, theirs, rng)).state
    assert (await env.store.games.snapshot(state.id)).version > snapshot.version
    if in_thread:
        assert "format_snapshot" in works and "rebuild" in works


@pytest.mark.parametrize(
    "spoil",
    [
        'UPDATE game_snapshots SET state = \'{"format": 1, "settings": {}, "games": [7]}\'',
        "UPDATE game_snapshots SET state = 'garbage'",
        "UPDATE game_snapshots SET version = version - 1",  # the snapshot does not hold what it says
    ],
)
async def test_a_snapshot_that_does_not_hold_together_is_replaced_by_the_log(env, spoil, caplog):
    state = await play_to(env, 2 * EVERY + 1, random.Random(5))

    async def spoilt(tx):
        await tx.execute(spoil)

    await env.store.db.transact(spoilt)
    reads = spy(env)
    with caplog.at_level(logging.WARNING, logger="bot.core.games"):
        theirs = await GameService(env.store, clock=env.clock).lookups.get_game(state.id)
    assert state_of(theirs.match) == state_of(state.match)
    assert len(reads["whole"]) == 1 and "not used" in caplog.text


async def test_a_snapshot_of_another_format_is_never_read(env):
    state = await play_to(env, 2 * EVERY + 1, random.Random(6))

    async def older(tx):
        await tx.execute("UPDATE game_snapshots SET format = ?, state = 'from an older engine'", (FORMAT - 1,))

    await env.store.db.transact(older)
    reads = spy(env)
    theirs = await GameService(env.store, clock=env.clock).lookups.get_game(state.id)
    assert state_of(theirs.match) == state_of(state.match)
    ((found, tail),) = reads["tails"]
    assert found is None and len(tail) == state.version  # the whole log, in the same read


async def test_a_finished_game_keeps_no_snapshot(env):
    state = await play_to(env, EVERY + 1, random.Random(8))
    assert await env.store.games.snapshot(state.id) is not None
    state = (await env.service.forfeit(state.id, state.players[0].user_id)).state
    assert not state.is_active and await env.store.games.snapshot(state.id) is None
    count = await env.store.db.fetchone("SELECT COUNT(*) AS n FROM game_snapshots")
    assert count["n"] == 0
