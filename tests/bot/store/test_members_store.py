"""Members' preferences, digests and vacations, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import Store, open_store

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
GUILD, CHANNEL = 5 << 22, 77
ALICE, BOB = 11, 12


@pytest.fixture
async def store(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=lambda: T0)
    try:
        yield s
    finally:
        await s.close()


async def test_preferences_round_trip_and_create_the_player(store: Store) -> None:
    assert await store.members.prefs(ALICE) == {}
    await store.members.set_prefs(ALICE, {"turn": "dm", "tz": "Europe/Paris"}, T0 + timedelta(hours=1))
    assert await store.members.prefs(ALICE) == {"turn": "dm", "tz": "Europe/Paris"}
    assert (await store.players.get(ALICE)) is not None


async def test_a_digest_is_claimed_once(store: Store) -> None:
    due = T0 + timedelta(hours=1)
    await store.members.set_prefs(ALICE, {"digest_hour": 10}, due)
    await store.members.set_prefs(BOB, {}, None)
    assert await store.members.due_digests(T0) == []
    (row,) = await store.members.due_digests(due)
    assert row[0] == ALICE and row[1] == due and row[2] == {"digest_hour": 10}
    following = due + timedelta(days=1)
    claims = await asyncio.gather(*(store.members.claim_digest(ALICE, due, following) for _ in range(4)))
    assert sorted(claims) == [False, False, False, True]
    assert await store.members.due_digests(due + timedelta(hours=23)) == []


async def test_vacation_pauses_a_turn_and_an_early_return_gives_time_back(store: Store) -> None:
    game = await store.games.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        player0=ALICE,
        player1=BOB,
        turn_deadline=T0 + timedelta(days=1),
        reminder_at=T0 + timedelta(hours=18),
    )
    vacation = await store.members.start_vacation(GUILD, ALICE, T0, T0 + timedelta(days=7))
    assert [v.id for v in await store.members.current(T0 + timedelta(days=1))] == [vacation.id]
    assert await store.members.current(T0 + timedelta(days=7)) == []
    new_deadline = T0 + timedelta(days=8)
    assert await store.members.pause_turn(
        vacation.id, game.id, game.version, new_deadline, new_deadline - timedelta(hours=6), 7 * 86400.0
    )
    assert not await store.members.pause_turn(  # the game moved on: nothing changes
        vacation.id, game.id, game.version + 1, T0, T0, 1.0
    )
    row = await store.games.get(game.id)
    assert row.turn_deadline == new_deadline and row.reminder_at == new_deadline - timedelta(hours=6)
    # back after two days: the five unused days come off the deadline again
    moved = await store.members.end_vacation(vacation.id, T0 + timedelta(days=2), 5 * 86400.0)
    assert moved == [game.id]
    row = await store.games.get(game.id)
    assert row.turn_deadline == new_deadline - timedelta(days=5)
    assert await store.members.current(T0 + timedelta(days=3)) == []
    (taken,) = await store.members.taken(GUILD, ALICE, T0 - timedelta(days=1), T0 + timedelta(days=365))
    assert taken.ends_at == T0 + timedelta(days=2)
    assert await store.members.taken(GUILD + 1, ALICE, T0, T0 + timedelta(days=365)) == []
