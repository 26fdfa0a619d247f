"""The store's part of issue 18: summaries written with the game's end, challenge
quotas counted in the creating transaction, expiries a few at a time.

Each test runs on SQLite and on PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import ChallengeLimitError, MatchOutcome, StaleVersionError, Store, open_store
from tests.narrowing import found

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
GUILD = 111
ALICE, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004
SUMMARY = {"card": {"score": [1, 0]}, "games": [{"number": 1, "actions": []}], "mat": "mat text", "export": "{}"}


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def store(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=Clock())
    try:
        yield s
    finally:
        await s.close()


async def new_game(store: Store, channel: int = 1) -> int:
    row = await store.games.create(guild_id=GUILD, channel_id=channel, player0=ALICE, player1=BOB)
    return row.id


# -- summaries -------------------------------------------------------------------------


async def test_the_summary_is_written_by_the_append_that_finishes_the_game(store: Store) -> None:
    game = await new_game(store)
    await store.games.append(game, 0, [{"kind": "roll", "player": 0, "dice": [3, 1]}])
    assert await store.summaries.part(game, "card") is None
    with pytest.raises(ValueError, match="ends the game"):  # a summary of a game going on is refused
        await store.games.append(game, 1, [{"kind": "roll", "player": 1, "dice": [2, 2]}], summary=SUMMARY)
    assert (await store.games.get(game)).version == 1
    with pytest.raises(StaleVersionError):  # a lost race writes neither the actions nor the summary
        await store.games.append(
            game, 0, [{"kind": "resign", "player": 1}], outcome=MatchOutcome(ALICE, BOB), summary=SUMMARY
        )
    assert await store.summaries.part(game, "mat") is None
    await store.games.append(
        game, 1, [{"kind": "resign", "player": 1}], outcome=MatchOutcome(ALICE, BOB), summary=SUMMARY
    )
    assert await store.summaries.part(game, "card") == {"score": [1, 0]}
    assert await store.summaries.part(game, "games") == [{"number": 1, "actions": []}]
    assert await store.summaries.part(game, "mat") == "mat text"
    assert await store.summaries.part(game, "export") == "{}"
    assert await store.summaries.cards([game, 999]) == {game: {"score": [1, 0]}}
    changes = (await store.summaries.rating_changes([game]))[game]
    assert {(c.scope, c.user_id, c.won) for c in changes} == {
        (GUILD, ALICE, True),
        (GUILD, BOB, False),
        (0, ALICE, True),
        (0, BOB, False),
    }


async def test_an_abandon_writes_its_summary_and_a_backfill_keeps_the_first(store: Store) -> None:
    game = await new_game(store)
    await store.games.append(game, 0, [{"kind": "abandon"}], updates={"status": "abandoned"}, summary=SUMMARY)
    assert await store.summaries.part(game, "mat") == "mat text"
    await store.summaries.save(game, {**SUMMARY, "mat": "another"})  # two backfills racing: the first stays
    assert await store.summaries.part(game, "mat") == "mat text"
    other = await new_game(store, channel=2)
    await store.games.append(other, 0, [{"kind": "abandon"}], updates={"status": "abandoned"})
    await store.summaries.save(other, SUMMARY)  # a game that ended without one gets it later
    assert await store.summaries.cards([game, other]) == {game: SUMMARY["card"], other: SUMMARY["card"]}
    with pytest.raises(ValueError, match="needs export"):
        await store.summaries.save(other, {"card": {}, "games": [], "mat": ""})


# -- challenge quotas ------------------------------------------------------------------


async def challenge(
    store: Store,
    challenger: int,
    challenged: int,
    *,
    expires: timedelta = timedelta(hours=24),
    limits: tuple[int, int] = (3, 5),
) -> int:
    row = await store.challenges.create(
        guild_id=GUILD,
        channel_id=7,
        challenger=challenger,
        challenged=challenged,
        expires_at=T0 + expires,
        max_by_challenger=limits[0],
        max_for_challenged=limits[1],
    )
    return row.id


async def test_a_challenger_has_a_few_challenges_waiting_at_most(store: Store) -> None:
    for target in (BOB, CAROL, DAVE):
        await challenge(store, ALICE, target)
    with pytest.raises(ChallengeLimitError) as refused:
        await challenge(store, ALICE, BOB)
    assert (refused.value.side, refused.value.limit) == ("challenger", 3)
    # an answered one, or one past its expiry (not yet tidied), no longer counts
    first = (await found(store.db.fetchone("SELECT MIN(id) FROM challenges")))[0]
    await store.challenges.set_status(first, "cancelled")
    await challenge(store, ALICE, BOB)
    await store.db.transact(
        lambda tx: tx.execute(
            "UPDATE challenges SET expires_at = ? WHERE id = ?", ((T0 - timedelta(minutes=1)).timestamp(), first + 1)
        )
    )
    await challenge(store, ALICE, CAROL)
    with pytest.raises(ChallengeLimitError):
        await challenge(store, ALICE, CAROL)


async def test_a_member_has_a_few_challenges_waiting_for_their_answer_at_most(store: Store) -> None:
    challengers = [2001, 2002, 2003]
    for who in challengers[:2]:
        await challenge(store, who, BOB, limits=(3, 2))
    with pytest.raises(ChallengeLimitError) as refused:
        await challenge(store, challengers[2], BOB, limits=(3, 2))
    assert (refused.value.side, refused.value.limit) == ("challenged", 2)
    await challenge(store, challengers[2], CAROL, limits=(3, 2))  # another target is free
    assert (await found(store.db.fetchone("SELECT COUNT(*) FROM challenges WHERE challenged = ?", (BOB,))))[0] == 2


async def test_without_limits_nothing_is_counted(store: Store) -> None:
    for _ in range(6):
        await store.challenges.create(guild_id=GUILD, channel_id=7, challenger=ALICE, challenged=BOB)


async def test_two_connections_racing_never_exceed_the_quotas(store_factory) -> None:
    """Many challenges by one member, and to one member, from two connections at
    once (two bot processes): the limits hold, counted in the creating transaction."""
    a, b = await store_factory(clock=Clock()), await store_factory(clock=Clock())
    results = await asyncio.gather(
        *(challenge(s, ALICE, 3000 + n) for n, s in enumerate([a, b] * 6)),
        return_exceptions=True,
    )
    assert sum(isinstance(r, int) for r in results) == 3, results
    assert all(isinstance(r, (int, ChallengeLimitError)) for r in results), results
    results = await asyncio.gather(
        *(challenge(s, 4000 + n, BOB) for n, s in enumerate([a, b] * 6)),
        return_exceptions=True,
    )
    assert sum(isinstance(r, int) for r in results) == 5, results
    # a challenges b while b challenges a, many times over: no deadlock, every one decided
    results = await asyncio.gather(
        *(challenge(s, x, y, limits=(50, 50)) for s, x, y in [(a, CAROL, DAVE), (b, DAVE, CAROL)] * 8),
        return_exceptions=True,
    )
    assert all(isinstance(r, int) for r in results), results


# -- expiries a few at a time -------------------------------------------------------------


async def test_expiries_are_tidied_a_few_at_a_time_oldest_first(store: Store) -> None:
    ids = [await challenge(store, 5000 + n, 6000 + n, expires=timedelta(minutes=n + 1)) for n in range(25)]
    later = T0 + timedelta(hours=1)
    batches = [await store.schedule.expire_challenges(later, limit=10) for _ in range(4)]
    assert [len(b) for b in batches] == [10, 10, 5, 0]
    assert [row.id for batch in batches for row in batch] == ids
    assert all(row.status == "expired" for batch in batches for row in batch)
    with pytest.raises(ValueError):
        await store.schedule.expire_challenges(later, limit=0)
