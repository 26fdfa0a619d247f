"""The store's part of patience (issue 21): daily deals, layouts saved with a
compare-and-set, one submission per member and daily deal, leaderboards and
streak days. Each test runs on SQLite and on PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import ConstraintError, GameOverError, NotFoundError, StaleVersionError, Store, open_store
from tests.narrowing import found

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
GUILD, OTHER = 111, 222
ALICE, BOB, CAROL = 1001, 1002, 1003
DEAL = "D6 S5 CQ DQ HQ H10 C10 H6 C3 HJ HA H5 H8 HK SQ H4 C2 D2 H7 SJ S3 H3 D3 S6 H2"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def store(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=Clock())
    for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        await s.players.upsert(user, name)
    try:
        yield s
    finally:
        await s.close()


async def test_the_first_daily_deal_of_a_day_is_kept(store: Store) -> None:
    assert await store.patience.daily(GUILD, "2026-03-02") is None
    first = await store.patience.create_daily(GUILD, "2026-03-02", seed="aa", commitment="c1", nonce="n", deal=DEAL)
    second = await store.patience.create_daily(GUILD, "2026-03-02", seed="bb", commitment="c2", nonce="n", deal="x")
    assert second == first and first.seed == "aa" and first.deal == DEAL
    assert await store.patience.daily(GUILD, "2026-03-02") == first
    other = await store.patience.create_daily(OTHER, "2026-03-02", seed="cc", commitment="c3", nonce="m", deal=DEAL)
    assert other.seed == "cc"  # each server has its own


async def test_racing_makers_of_a_daily_deal_agree(store: Store) -> None:
    made = await asyncio.gather(
        *(
            store.patience.create_daily(GUILD, "2026-03-03", seed=f"{n:02x}", commitment="c", nonce="n", deal=DEAL)
            for n in range(6)
        )
    )
    assert len({row.seed for row in made}) == 1


async def test_a_layout_is_saved_with_a_compare_and_set(store: Store) -> None:
    attempt = await store.patience.start(GUILD, ALICE, "hoyle", deal=DEAL, scoring="english")
    assert (attempt.path, attempt.version, attempt.submitted, attempt.day) == ("", 0, False, None)
    saved = await store.patience.save_path(attempt.id, 0, "D4")
    assert (saved.path, saved.version) == ("D4", 1)
    with pytest.raises(StaleVersionError):  # a click on what the player saw before
        await store.patience.save_path(attempt.id, 0, "A1")
    assert (await found(store.patience.get(attempt.id))).path == "D4"
    with pytest.raises(NotFoundError):
        await store.patience.save_path(999, 0, "A1")
    done = await store.patience.submit(attempt.id, 1, score=78, best=81)
    assert done.submitted and (done.score, done.best, done.version) == (78, 81, 2) and done.finished_at == T0
    with pytest.raises(GameOverError):
        await store.patience.save_path(attempt.id, 2, "D4 D5")
    with pytest.raises(GameOverError):
        await store.patience.submit(attempt.id, 2, score=80, best=81)
    assert (await found(store.patience.get(attempt.id))).score == 78


async def test_one_daily_layout_so_one_submission_per_member_and_day(store: Store) -> None:
    day = "2026-03-02"
    mine = await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day=day)
    with pytest.raises(ConstraintError):
        await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day=day)
    await store.patience.submit(mine.id, 0, score=70, best=81)
    with pytest.raises(ConstraintError):  # not even once the first is submitted
        await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day=day)
    # another day, another server, another member: each their own
    await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day="2026-03-03")
    await store.patience.start(OTHER, ALICE, "daily", deal=DEAL, scoring="english", day=day)
    await store.patience.start(GUILD, BOB, "daily", deal=DEAL, scoring="english", day=day)
    assert (await found(store.patience.daily_attempt(GUILD, ALICE, day))).id == mine.id
    with pytest.raises(ValueError):
        await store.patience.start(GUILD, CAROL, "daily", deal=DEAL, scoring="english", day=day, replace=True)


async def test_two_racing_daily_starts_make_one_layout(store: Store) -> None:
    results = await asyncio.gather(
        *(
            store.patience.start(GUILD, CAROL, "daily", deal=DEAL, scoring="english", day="2026-03-02")
            for _ in range(4)
        ),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, ConstraintError) for r in results if isinstance(r, BaseException))


async def test_one_unfinished_layout_per_kind_and_a_new_one_replaces_it(store: Store) -> None:
    first = await store.patience.start(GUILD, ALICE, "random", deal=DEAL, scoring="english", seed="ab")
    with pytest.raises(ConstraintError):
        await store.patience.start(GUILD, ALICE, "random", deal=DEAL, scoring="english", seed="cd")
    await store.patience.start(GUILD, ALICE, "hoyle", deal=DEAL, scoring="american")  # another kind
    again = await store.patience.start(GUILD, ALICE, "random", deal=DEAL, scoring="english", seed="cd", replace=True)
    assert again.id != first.id and again.seed == "cd"
    assert await store.patience.get(first.id) is None
    assert (await found(store.patience.open_attempt(GUILD, ALICE, "random"))).id == again.id
    await store.patience.save_path(again.id, 0, "A1")
    await store.patience.submit(again.id, 1, score=5, best=40)
    assert await store.patience.open_attempt(GUILD, ALICE, "random") is None
    later = await store.patience.start(GUILD, ALICE, "random", deal=DEAL, scoring="english")  # after submitting
    assert (await found(store.patience.open_attempt(GUILD, ALICE, "random"))).id == later.id


async def test_the_latest_open_layout_leaves_out_older_dailies(store: Store) -> None:
    clock: Clock = store.db.clock  # type: ignore[assignment]
    old = await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day="2026-03-01")
    clock.now += timedelta(minutes=1)
    hoyle = await store.patience.start(GUILD, ALICE, "hoyle", deal=DEAL, scoring="english")
    clock.now += timedelta(minutes=1)
    await store.patience.save_path(old.id, 0, "A1")  # touched last, but of a day gone by
    assert (await found(store.patience.latest_open(GUILD, ALICE, "2026-03-02"))).id == hoyle.id
    assert (await found(store.patience.latest_open(GUILD, ALICE, "2026-03-01"))).id == old.id
    assert await store.patience.latest_open(OTHER, ALICE, "2026-03-02") is None


async def test_leaderboard_rank_and_days(store: Store) -> None:
    clock: Clock = store.db.clock  # type: ignore[assignment]
    day = "2026-03-02"
    for user, score in ((ALICE, 70), (BOB, 75), (CAROL, 70)):
        attempt = await store.patience.start(GUILD, user, "daily", deal=DEAL, scoring="english", day=day)
        clock.now += timedelta(minutes=1)
        await store.patience.submit(attempt.id, 0, score=score, best=81)
    unsubmitted = await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day="2026-03-01")
    assert unsubmitted.id
    scores, total = await store.patience.daily_scores(GUILD, day)
    assert total == 3
    assert [(s.display_name, s.score) for s in scores] == [("bob", 75), ("alice", 70), ("carol", 70)]  # ties: first in
    assert [s.user_id for s in (await store.patience.daily_scores(GUILD, day, limit=1))[0]] == [BOB]
    assert await store.patience.daily_rank(GUILD, day, 70) == (1, 3)
    assert await store.patience.daily_rank(GUILD, day, 75) == (0, 3)
    assert await store.patience.daily_rank(GUILD, "2026-03-05", 10) == (0, 0)
    assert await store.patience.daily_scores(OTHER, day) == ([], 0)
    earlier = await store.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day="2026-02-27")
    await store.patience.submit(earlier.id, 0, score=1, best=81)
    days = await store.patience.daily_days(GUILD, [ALICE, BOB, ALICE], "2026-02-28")
    assert days == {ALICE: {day}, BOB: {day}}
    assert (await store.patience.daily_days(GUILD, [ALICE], "2026-01-01"))[ALICE] == {day, "2026-02-27"}
    assert await store.patience.daily_days(GUILD, [], day) == {}


async def test_the_copy_to_postgresql_takes_the_patience_tables(tmp_path, pg_server) -> None:
    from bot.store.copy import copy_sqlite_to_postgres

    lite = str(tmp_path / "bg.sqlite3")
    async with await open_store(lite, clock=Clock()) as s:
        await s.players.upsert(ALICE, "alice")
        await s.patience.create_daily(GUILD, "2026-03-02", seed="aa", commitment="c", nonce="n", deal=DEAL)
        attempt = await s.patience.start(GUILD, ALICE, "daily", deal=DEAL, scoring="english", day="2026-03-02")
        await s.patience.save_path(attempt.id, 0, "A1")
    name, url = pg_server.create_database()
    try:
        report = await copy_sqlite_to_postgres(lite, url)
        assert report.ok, report.summary()
        assert report.rows["patience_deals"] == 1 and report.rows["patience_attempts"] == 1
        async with await open_store(url, clock=Clock()) as pg:
            assert (await found(pg.patience.get(attempt.id))).path == "A1"
            new = await pg.patience.start(GUILD, ALICE, "hoyle", deal=DEAL, scoring="english")
            assert new.id == attempt.id + 1  # the identity moved past the copied ids
    finally:
        pg_server.drop_database(name)
