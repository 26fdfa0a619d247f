"""Snapshots of game state (table game_snapshots): written with the actions in the
append's transaction, read with only the actions after them, gone when the game ends.

Each test runs on SQLite and on PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.store import MatchOutcome, StaleVersionError, Store, open_store

GUILD = 111
ALICE, BOB = 1001, 1002


class Clock:
    def __call__(self) -> datetime:
        return datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=Clock())
    try:
        yield s
    finally:
        await s.close()


def roll(n: int) -> dict:
    return {"kind": "roll", "player": n % 2, "dice": [1 + n % 6, 1 + (n // 6) % 6]}


async def new_game(store: Store, channel: int = 1) -> int:
    game = await store.games.create(guild_id=GUILD, channel_id=channel, player0=ALICE, player1=BOB)
    return game.id


async def test_a_snapshot_is_written_with_the_actions_and_read_with_the_tail_only(store):
    game_id = await new_game(store)
    await store.games.append(game_id, 0, [roll(n) for n in range(3)])
    assert await store.games.snapshot(game_id) is None
    snap, tail = await store.games.snapshot_and_tail(game_id, format=1)
    assert snap is None and [a.seq for a in tail] == [1, 2, 3]  # no snapshot: the whole log

    await store.games.append(game_id, 3, [roll(3), roll(4)], snapshot=(1, '{"state": 5}'))
    stored = await store.games.snapshot(game_id)
    assert (stored.version, stored.format, stored.state) == (5, 1, '{"state": 5}')
    await store.games.append(game_id, 5, [roll(5), roll(6)])
    snap, tail = await store.games.snapshot_and_tail(game_id, format=1)
    assert snap.version == 5 and [a.seq for a in tail] == [6, 7] and tail[0].action == roll(5)

    # "as of" an older version: the snapshot is past it, so the whole log up to it
    snap, tail = await store.games.snapshot_and_tail(game_id, format=1, upto=4)
    assert snap is None and [a.seq for a in tail] == [1, 2, 3, 4]
    snap, tail = await store.games.snapshot_and_tail(game_id, format=1, upto=6)
    assert snap.version == 5 and [a.seq for a in tail] == [6]

    # a snapshot of another format is never given
    snap, tail = await store.games.snapshot_and_tail(game_id, format=2)
    assert snap is None and len(tail) == 7

    # a newer one replaces it (one per game)
    await store.games.append(game_id, 7, [roll(7)], snapshot=(2, "eight"))
    snap, tail = await store.games.snapshot_and_tail(game_id, format=2)
    assert (snap.version, snap.state, tail) == (8, "eight", [])
    count = await store.db.fetchone("SELECT COUNT(*) AS n FROM game_snapshots WHERE game_id = ?", (game_id,))
    assert count["n"] == 1


async def test_a_refused_append_writes_no_snapshot(store):
    game_id = await new_game(store)
    await store.games.append(game_id, 0, [roll(0)])
    with pytest.raises(StaleVersionError):
        await store.games.append(game_id, 0, [roll(1)], snapshot=(1, "stale"))
    assert await store.games.snapshot(game_id) is None


async def test_a_game_that_ends_loses_its_snapshot(store):
    game_id = await new_game(store)
    other = await new_game(store, channel=2)
    await store.games.append(game_id, 0, [roll(0)], snapshot=(1, "one"))
    await store.games.append(other, 0, [roll(0)], snapshot=(1, "other"))
    outcome = MatchOutcome(winner=ALICE, loser=BOB, winner_points=1, loser_points=0, rated=False)
    await store.games.append(game_id, 1, [roll(1)], outcome=outcome, snapshot=(1, "not kept"))
    assert await store.games.snapshot(game_id) is None
    assert (await store.games.snapshot(other)).state == "other"  # only that game's
    await store.games.append(other, 1, [{"kind": "abandon"}], actor=None, updates={"status": "abandoned"})
    assert await store.games.snapshot(other) is None
