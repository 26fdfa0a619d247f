"""Tests for bot.storage: schema, migrations, compare-and-set, reads, concurrency."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.storage as storage
from bot.ratings import Rating, rate_match
from bot.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ChallengeClosedError,
    ChannelBusyError,
    DatabaseBusyError,
    GameOverError,
    MatchOutcome,
    Migration,
    NewAction,
    NotFoundError,
    StaleVersionError,
    StorageError,
    Store,
    split_sql,
)

WORKER = Path(__file__).with_name("storage_worker.py")
T0 = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc)
GUILD = 111
CHANNEL = 222
ALICE, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004


class FakeClock:
    """A settable clock for deterministic timestamps."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(clock: FakeClock) -> AsyncIterator[Store]:
    s = await Store.open(":memory:", clock=clock)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def file_store(tmp_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    s = await Store.open(tmp_path / "db" / "bg.sqlite3", clock=clock)
    try:
        yield s
    finally:
        await s.close()


async def new_game(store: Store, channel: int = CHANNEL, p0: int = ALICE, p1: int = BOB, **kw: object):
    return await store.create_game(guild_id=GUILD, channel_id=channel, player0=p0, player1=p1, **kw)  # type: ignore[arg-type]


def roll(player: int, d1: int, d2: int) -> dict[str, object]:
    return {"kind": "roll", "player": player, "dice": [d1, d2]}


# --------------------------------------------------------------------------
# Opening, pragmas, migrations
# --------------------------------------------------------------------------


async def test_open_creates_folder_file_and_sets_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "bg.sqlite3"
    async with await Store.open(path) as s:
        assert path.exists()
        assert await s.schema_version() == SCHEMA_VERSION
        assert (await s._fetchone("PRAGMA journal_mode"))[0] == "wal"  # type: ignore[index]
        assert (await s._fetchone("PRAGMA foreign_keys"))[0] == 1  # type: ignore[index]
        assert (await s._fetchone("PRAGMA busy_timeout"))[0] == 5000  # type: ignore[index]
        assert (await s._fetchone("PRAGMA synchronous"))[0] == 1  # type: ignore[index]  # NORMAL
        assert await s.integrity_check() == "ok"
    with pytest.raises(StorageError, match="closed"):
        await s.get_game(1)
    await s.close()  # idempotent


def test_split_sql_keeps_triggers_whole() -> None:
    statements = split_sql(MIGRATIONS[0].sql)
    trigger = [s for s in statements if "CREATE TRIGGER" in s]
    assert len(trigger) == 1 and trigger[0].endswith("END;")
    assert all(sqlite3.complete_statement(s) for s in statements)


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
    assert SCHEMA_VERSION >= 2


def _seed_old_database(path: Path, version: int) -> None:
    """Insert rows valid at schema ``version`` using plain sqlite3."""
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == version
        if version >= 1:
            con.execute("INSERT INTO players (user_id, display_name) VALUES (?, ?)", (ALICE, "Alice"))
            con.execute("INSERT INTO players (user_id, display_name) VALUES (?, ?)", (BOB, "Bob"))
            con.execute(
                """
                INSERT INTO games (id, guild_id, channel_id, player0, player1, settings, version,
                                   match_length)
                VALUES (1, ?, ?, ?, ?, '{"cube": true}', 2, 5)
                """,
                (GUILD, CHANNEL, ALICE, BOB),
            )
            con.executemany(
                "INSERT INTO actions (game_id, seq, actor, kind, action) VALUES (1, ?, ?, ?, ?)",
                [
                    (1, ALICE, "roll", json.dumps(roll(0, 3, 1))),
                    (2, ALICE, "play", json.dumps({"kind": "play", "player": 0, "play": "8/5 6/5"})),
                ],
            )
            con.execute(
                """
                INSERT INTO challenges (id, guild_id, channel_id, challenger, challenged)
                VALUES (7, ?, 999, ?, ?)
                """,
                (GUILD, ALICE, BOB),
            )
        if version >= 2:
            con.execute(
                "INSERT INTO ratings (scope, user_id, rating, experience, games, wins) "
                "VALUES (0, ?, 1600, 40, 8, 6)",
                (ALICE,),
            )
        con.commit()
    finally:
        con.close()


@pytest.mark.parametrize("start", range(SCHEMA_VERSION))
async def test_migrate_from_every_earlier_version_keeps_data(tmp_path: Path, start: int) -> None:
    path = tmp_path / "old.sqlite3"
    old = await Store.open(path, migrate_to=start)
    assert await old.schema_version() == start
    await old.close()
    _seed_old_database(path, start)

    async with await Store.open(path) as s:
        assert await s.schema_version() == SCHEMA_VERSION
        assert await s.integrity_check() == "ok"
        # The newest schema is fully usable.
        game = await s.create_game(guild_id=GUILD, channel_id=555, player0=CAROL, player1=DAVE)
        await s.append_action(game.id, 0, roll(1, 6, 6))
        await s.set_guild_settings(GUILD, {"move_days": 2})
        assert (await s.get_player(CAROL)).prefs == {}  # type: ignore[union-attr]
        if start >= 1:
            old_game = await s.get_game(1)
            assert old_game.settings == {"cube": True}
            assert old_game.version == 2 and old_game.match_length == 5
            assert [a.kind for a in await s.actions(1)] == ["roll", "play"]
            assert (await s.get_player(ALICE)).display_name == "Alice"  # type: ignore[union-attr]
            assert (await s.get_challenge(7)).status == "pending"
            # Old data works with new operations.
            await s.append_action(1, 2, roll(1, 5, 2))
            assert (await s.get_game(1)).version == 3
        if start >= 2:
            alice = await s.get_rating(ALICE)
            assert alice is not None and alice.rating == 1600 and alice.wins == 6


async def test_open_existing_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with await Store.open(path) as s:
        assert await s.schema_version() == SCHEMA_VERSION
        game = await new_game(s)
        assert (await s.append_action(game.id, 0, roll(0, 2, 1))).version == 1


async def test_schema_with_all_migrations_matches_fresh(tmp_path: Path) -> None:
    """Stepwise migration (one open per version) yields the same schema as a fresh one."""
    stepped = tmp_path / "stepped.sqlite3"
    for k in range(SCHEMA_VERSION + 1):
        await (await Store.open(stepped, migrate_to=k)).close()
    await (await Store.open(tmp_path / "fresh.sqlite3")).close()

    def schema(p: Path) -> list[tuple[str, str]]:
        con = sqlite3.connect(p)
        try:
            return sorted(con.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
        finally:
            con.close()

    assert schema(stepped) == schema(tmp_path / "fresh.sqlite3")


async def test_failed_migration_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bg.sqlite3"
    await (await Store.open(path)).close()
    bad = Migration(SCHEMA_VERSION + 1, "bad", "CREATE TABLE half_done (x);\nINSERT INTO no_such_table VALUES (1);")
    monkeypatch.setattr(storage, "MIGRATIONS", MIGRATIONS + (bad,))
    monkeypatch.setattr(storage, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(sqlite3.OperationalError):
        await Store.open(path)
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0
    finally:
        con.close()


async def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bg.sqlite3"
    await (await Store.open(path)).close()
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    con.close()
    with pytest.raises(StorageError, match="newer"):
        await Store.open(path)


# --------------------------------------------------------------------------
# Games and the one-active-game-per-channel rule
# --------------------------------------------------------------------------


async def test_create_game_defaults(store: Store, clock: FakeClock) -> None:
    deadline = T0 + timedelta(days=3)
    game = await new_game(store, settings={"cube": True, "jacoby": False}, match_length=7, turn_deadline=deadline)
    assert game.status == "active" and game.is_active and not game.is_money_game
    assert game.version == 0 and (game.score0, game.score1) == (0, 0)
    assert game.players == (ALICE, BOB) and game.guild_id == GUILD and game.channel_id == CHANNEL
    assert game.settings == {"cube": True, "jacoby": False}
    assert game.turn_deadline == deadline and game.created_at == T0
    assert game.result is None and game.winner is None and game.finished_at is None
    assert game.seat_of(BOB) == 1 and game.seat_of(CAROL) is None and game.opponent_of(ALICE) == BOB
    assert await store.get_game(game.id) == game
    assert await store.active_game(CHANNEL) == game
    assert (await store.get_player(ALICE)) is not None  # player rows created on demand


async def test_second_active_game_in_channel_is_refused(store: Store) -> None:
    first = await new_game(store)
    with pytest.raises(ChannelBusyError) as info:
        await new_game(store, p0=CAROL, p1=DAVE)
    assert "already a game in progress" in str(info.value)
    assert info.value.channel_id == CHANNEL
    # Another channel (or thread) is fine.
    await new_game(store, channel=CHANNEL + 1, p0=CAROL, p1=DAVE)
    # Once the first game ends the channel is free again.
    await store.append_action(first.id, 0, {"kind": "abandon"}, updates={"status": "abandoned"})
    again = await new_game(store, p0=CAROL, p1=DAVE)
    assert (await store.active_game(CHANNEL)) == again


async def test_partial_unique_index_guards_the_table(file_store: Store) -> None:
    await new_game(file_store)
    con = sqlite3.connect(file_store.path)
    try:
        with pytest.raises(sqlite3.IntegrityError):
            con.execute(
                "INSERT INTO games (channel_id, player0, player1, status) VALUES (?, ?, ?, 'active')",
                (CHANNEL, CAROL, DAVE),
            )
        con.execute(
            "INSERT INTO games (channel_id, player0, player1, status) VALUES (?, ?, ?, 'finished')",
            (CHANNEL, ALICE, BOB),
        )
        con.commit()
    finally:
        con.close()


async def test_get_missing_game(store: Store) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        await store.get_game(42)
    assert await store.active_game(CHANNEL) is None
    with pytest.raises(NotFoundError):
        await store.append_action(42, 0, {"kind": "roll"})


# --------------------------------------------------------------------------
# Compare-and-set appends
# --------------------------------------------------------------------------


async def test_append_actions_sequence_actor_and_columns(store: Store, clock: FakeClock) -> None:
    game = await new_game(store)
    clock.advance(minutes=1)
    res = await store.append_actions(
        game.id,
        0,
        [roll(0, 6, 5), {"kind": "play", "player": 0, "play": "24/18 18/13"}],
    )
    assert res.version == 2 and res.game.updated_at == T0 + timedelta(minutes=1)
    assert [(a.seq, a.actor, a.kind, a.dice, a.play) for a in res.actions] == [
        (1, ALICE, "roll", (6, 5), None),
        (2, ALICE, "play", None, "24/18 18/13"),
    ]
    res = await store.append_actions(
        game.id,
        2,
        [
            roll(1, 3, 3),
            NewAction({"kind": "timeout", "player": 1}, actor=None),
            {"kind": "note", "text": "no seat"},
        ],
    )
    assert [(a.seq, a.actor) for a in res.actions] == [(3, BOB), (4, None), (5, None)]
    res = await store.append_action(game.id, 5, {"kind": "double", "player": 0}, actor=CAROL)
    assert res.actions[0].actor == CAROL
    log = await store.actions(game.id)
    assert [a.seq for a in log] == [1, 2, 3, 4, 5, 6]
    assert log[0].action == roll(0, 6, 5)  # given back exactly
    assert [a.seq for a in await store.actions(game.id, after_seq=4)] == [5, 6]
    assert (await store.get_game(game.id)).version == 6
    snap_game, snap_log = await store.game_with_actions(game.id)
    assert snap_game.version == len(snap_log) == 6 and snap_log == log
    with pytest.raises(NotFoundError):
        await store.game_with_actions(999)


async def test_stale_version_writes_nothing(store: Store) -> None:
    game = await new_game(store)
    await store.append_action(game.id, 0, roll(0, 4, 2), updates={"score0": 1})
    before = await store.get_game(game.id)
    for wrong in (0, 2, 7):
        with pytest.raises(StaleVersionError) as info:
            await store.append_actions(
                game.id, wrong, [roll(1, 1, 1), roll(0, 2, 2)], updates={"score0": 9, "status": "finished"}
            )
        assert str(info.value) == "the game has moved on"
        assert (info.value.expected, info.value.actual) == (wrong, 1)
    assert await store.get_game(game.id) == before
    assert len(await store.actions(game.id)) == 1


async def test_updates_are_applied_with_the_action(store: Store, clock: FakeClock) -> None:
    game = await new_game(store, reminder_at=T0 + timedelta(hours=1), turn_deadline=T0 + timedelta(hours=2))
    assert await store.claim_reminder(game.id, 0)
    deadline = T0 + timedelta(days=1)
    res = await store.append_action(
        game.id,
        0,
        roll(0, 2, 1),
        updates={
            "turn_deadline": deadline,
            "reminder_at": deadline - timedelta(hours=6),
            "score0": 2,
            "score1": 1,
            "settings": {"cube": False},
        },
    )
    g = res.game
    assert (g.score0, g.score1, g.settings) == (2, 1, {"cube": False})
    assert g.turn_deadline == deadline and g.reminder_at == deadline - timedelta(hours=6)
    assert g.reminder_sent is False  # a new deadline re-arms the reminder
    # Naive datetimes are UTC.
    res = await store.append_action(game.id, 1, roll(1, 6, 1), updates={"turn_deadline": datetime(2025, 2, 1)})
    assert res.game.turn_deadline == datetime(2025, 2, 1, tzinfo=timezone.utc)


async def test_bad_input_is_rejected_before_writing(store: Store) -> None:
    game = await new_game(store)
    with pytest.raises(ValueError, match="cannot update"):
        await store.append_action(game.id, 0, roll(0, 1, 2), updates={"version": 99})
    with pytest.raises(ValueError, match="status"):
        await store.append_action(game.id, 0, roll(0, 1, 2), updates={"status": "paused"})
    with pytest.raises(ValueError, match="kind"):
        await store.append_action(game.id, 0, {"player": 0})
    with pytest.raises(ValueError):
        await store.append_actions(game.id, 0, [])
    with pytest.raises(TypeError):
        await store.append_action(game.id, 0, {"kind": "x", "when": object()})
    assert (await store.get_game(game.id)).version == 0
    assert await store.actions(game.id) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(1, 3)), min_size=1, max_size=12))
def test_property_cas_keeps_version_equal_to_log_length(ops: list[tuple[int, int]]) -> None:
    """Any mix of fresh and stale appends: version == log length, seqs contiguous."""

    async def run() -> None:
        async with await Store.open(":memory:") as s:
            game = await new_game(s)
            version = 0
            for offset, size in ops:
                expected = max(0, version + offset)
                batch = [roll(i % 2, 1 + i % 6, 6 - i % 6) for i in range(size)]
                if expected == version:
                    assert (await s.append_actions(game.id, expected, batch)).version == version + size
                    version += size
                else:
                    with pytest.raises(StaleVersionError):
                        await s.append_actions(game.id, expected, batch)
            log = await s.actions(game.id)
            assert (await s.get_game(game.id)).version == version == len(log)
            assert [a.seq for a in log] == list(range(1, version + 1))

    asyncio.run(run())


async def test_locked_database_gives_busy_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "bg.sqlite3"
    async with await Store.open(path) as s:
        game = await new_game(s)
        blocker = sqlite3.connect(path, isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")
            with pytest.raises(DatabaseBusyError, match="busy"):
                await s.append_action(game.id, 0, roll(0, 1, 1))
            assert (await s.get_game(game.id)).version == 0  # reads still work under WAL
            blocker.execute("ROLLBACK")
        finally:
            blocker.close()
        assert (await s.append_action(game.id, 0, roll(0, 1, 1))).version == 1


async def test_actions_are_append_only(file_store: Store) -> None:
    game = await new_game(file_store)
    await file_store.append_action(game.id, 0, roll(0, 1, 2))
    con = sqlite3.connect(file_store.path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            con.execute("UPDATE actions SET kind = 'x'")
    finally:
        con.close()


async def test_finished_game_refuses_actions(store: Store, clock: FakeClock) -> None:
    game = await new_game(store, turn_deadline=T0 + timedelta(days=1), reminder_at=T0)
    clock.advance(hours=3)
    res = await store.append_action(
        game.id, 0, {"kind": "resign", "player": 1}, updates={"status": "finished", "result": {"winner": 0}}
    )
    g = res.game
    assert g.status == "finished" and g.finished_at == clock.now and g.result == {"winner": 0}
    assert g.turn_deadline is None and g.reminder_at is None
    assert await store.active_game(CHANNEL) is None
    with pytest.raises(GameOverError, match="already over"):
        await store.append_action(game.id, 1, roll(0, 1, 1))


# --------------------------------------------------------------------------
# Finishing with ratings in the same transaction
# --------------------------------------------------------------------------


async def test_outcome_updates_ratings_in_guild_and_global(store: Store, clock: FakeClock) -> None:
    await store.upsert_player(ALICE, "Alice")
    game = await new_game(store, match_length=5)
    await store.append_action(game.id, 0, roll(0, 6, 6))
    res = await store.append_action(
        game.id,
        1,
        {"kind": "resign", "player": 1, "points": 5},
        updates={"score0": 5, "score1": 2, "result": {"winner": 0, "points": 5, "kind": "resign"}},
        outcome=MatchOutcome(winner=ALICE, loser=BOB, winner_points=5, loser_points=2, winner_gammons=1),
    )
    g = res.game
    assert g.status == "finished" and g.winner == ALICE and g.result == {"winner": 0, "points": 5, "kind": "resign"}
    exp_w, exp_l = rate_match(Rating(), Rating(), 5)
    assert {(c.scope, c.user_id): round(c.delta, 2) for c in res.rating_changes} == {
        (GUILD, ALICE): 22.36,
        (GUILD, BOB): -22.36,
        (0, ALICE): 22.36,
        (0, BOB): -22.36,
    }
    for scope in (GUILD, 0):
        a = await store.get_rating(ALICE, scope)
        b = await store.get_rating(BOB, scope)
        assert a is not None and b is not None
        assert a.rating == pytest.approx(exp_w.rating) and a.experience == 5
        assert (a.games, a.wins, a.losses, a.gammons, a.points_won, a.points_lost) == (1, 1, 0, 1, 5, 2)
        assert (b.games, b.wins, b.losses, b.points_won, b.points_lost) == (1, 0, 1, 2, 5)
        assert b.rating == pytest.approx(exp_l.rating) and b.best_rating == 1500
        assert a.best_rating == pytest.approx(exp_w.rating)
        assert a.display_name == "Alice"
    history = await store.rating_history(BOB, GUILD)
    assert len(history) == 1 and history[0].game_id == game.id and not history[0].won

    # A second match uses the stored ratings and experience (and a money game counts as 1 point).
    game2 = await new_game(store, channel=CHANNEL + 1)
    res2 = await store.append_action(
        game2.id, 0, {"kind": "resign", "player": 0}, outcome=MatchOutcome(winner=BOB, loser=ALICE, winner_points=2)
    )
    w, l = rate_match(exp_l, exp_w, 0)
    bob = await store.get_rating(BOB, GUILD)
    assert bob is not None and bob.rating == pytest.approx(w.rating) and bob.experience == 6
    assert [c.user_id for c in res2.rating_changes if c.won] == [BOB, BOB]


async def test_outcome_in_dm_only_rates_globally(store: Store) -> None:
    game = await store.create_game(guild_id=0, channel_id=9, player0=ALICE, player1=BOB)
    res = await store.append_action(game.id, 0, {"kind": "resign", "player": 0}, outcome=MatchOutcome(BOB, ALICE))
    assert {c.scope for c in res.rating_changes} == {0}
    assert len(res.rating_changes) == 2


async def test_unrated_and_abandoned_outcomes(store: Store) -> None:
    game = await new_game(store)
    res = await store.append_action(
        game.id,
        0,
        {"kind": "timeout", "player": 1},
        actor=None,
        updates={"status": "abandoned"},
        outcome=MatchOutcome(winner=ALICE, loser=BOB, rated=False),
    )
    assert res.game.status == "abandoned" and res.game.winner == ALICE and res.rating_changes == []
    assert res.game.result == {"winner": ALICE, "loser": BOB, "winner_points": 1, "loser_points": 0}
    assert await store.get_rating(ALICE) is None


async def test_outcome_failure_rolls_back_the_action(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    game = await new_game(store)
    with pytest.raises(ValueError, match="two players"):
        await store.append_action(game.id, 0, {"kind": "resign"}, outcome=MatchOutcome(winner=ALICE, loser=CAROL))

    async def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Store, "_apply_outcome", boom)
    with pytest.raises(RuntimeError):
        await store.append_action(game.id, 0, {"kind": "resign"}, outcome=MatchOutcome(winner=ALICE, loser=BOB))
    g = await store.get_game(game.id)
    assert g.version == 0 and g.status == "active" and await store.actions(game.id) == []
    # The connection is still usable after the rollback.
    assert (await store.append_action(game.id, 0, roll(0, 1, 2))).version == 1


# --------------------------------------------------------------------------
# Reads: player games, scheduler queries, board message
# --------------------------------------------------------------------------


async def test_player_game_queries(store: Store, clock: FakeClock) -> None:
    g1 = await new_game(store, channel=1)
    g2 = await new_game(store, channel=2, p0=CAROL, p1=ALICE)
    await store.create_game(guild_id=GUILD + 1, channel_id=3, player0=ALICE, player1=DAVE)
    await new_game(store, channel=4, p0=CAROL, p1=DAVE)
    assert [g.id for g in await store.active_games_for_player(ALICE, GUILD)] == [g1.id, g2.id]
    assert len(await store.active_games_for_player(ALICE)) == 3

    for i, g in enumerate((g1, g2)):
        clock.advance(hours=1)
        await store.append_action(g.id, 0, {"kind": "resign", "player": 1}, updates={"status": "finished"})
    history = await store.finished_games_for_player(ALICE, GUILD)
    assert [g.id for g in history] == [g2.id, g1.id]  # newest first
    assert [g.id for g in await store.finished_games_for_player(ALICE, GUILD, offset=1, limit=1)] == [g1.id]
    assert [g.id for g in await store.finished_games_for_player(ALICE, opponent=BOB)] == [g1.id]
    assert await store.count_finished_games_for_player(ALICE, GUILD) == 2
    assert await store.count_finished_games_for_player(DAVE) == 0
    assert [g.channel_id for g in await store.active_games_for_player(ALICE)] == [3]


async def test_deadlines_and_reminders(store: Store, clock: FakeClock) -> None:
    g1 = await new_game(store, channel=1, turn_deadline=T0 + timedelta(hours=10), reminder_at=T0 + timedelta(hours=4))
    g2 = await new_game(store, channel=2, turn_deadline=T0 + timedelta(hours=5), reminder_at=T0 + timedelta(hours=2))
    await new_game(store, channel=3)  # no deadline
    assert await store.next_wakeup() == T0 + timedelta(hours=2)
    assert await store.due_deadlines(T0) == []
    assert [g.id for g in await store.due_reminders(T0 + timedelta(hours=4))] == [g2.id, g1.id]

    assert await store.claim_reminder(g2.id, 0) is True
    assert await store.claim_reminder(g2.id, 0) is False  # already sent
    assert await store.claim_reminder(g1.id, 5) is False  # stale version
    assert [g.id for g in await store.due_reminders(T0 + timedelta(hours=4))] == [g1.id]

    clock.now = T0 + timedelta(hours=6)
    assert [g.id for g in await store.due_deadlines()] == [g2.id]  # default now = clock
    assert [g.id for g in await store.due_deadlines(T0 + timedelta(days=1))] == [g2.id, g1.id]
    # Moving on re-arms: new deadline clears reminder_sent.
    await store.append_action(
        g2.id, 0, roll(0, 1, 1), updates={"turn_deadline": T0 + timedelta(days=2), "reminder_at": T0 + timedelta(days=1)}
    )
    assert [g.id for g in await store.due_reminders(T0 + timedelta(days=1))] == [g1.id, g2.id]
    assert [g.id for g in await store.due_deadlines()] == []


async def test_board_message(store: Store) -> None:
    game = await new_game(store)
    await store.set_board_message(game.id, 777, 888)
    g = await store.get_game(game.id)
    assert (g.board_channel_id, g.board_message_id, g.version) == (777, 888, 0)
    with pytest.raises(NotFoundError):
        await store.set_board_message(999, 1, 2)


# --------------------------------------------------------------------------
# Challenges
# --------------------------------------------------------------------------


async def test_challenge_lifecycle(store: Store, clock: FakeClock) -> None:
    c1 = await store.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=ALICE,
        challenged=BOB,
        settings={"cube": True},
        match_length=5,
        expires_at=T0 + timedelta(minutes=10),
    )
    c2 = await store.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=CAROL, challenged=None, expires_at=T0 + timedelta(hours=1)
    )
    assert c1.status == "pending" and c1.settings == {"cube": True} and c1.match_length == 5
    assert await store.get_challenge(c1.id) == c1
    assert [c.id for c in await store.pending_challenges(CHANNEL)] == [c1.id, c2.id]
    assert [c.id for c in await store.pending_challenges(user_id=BOB)] == [c1.id]
    await store.set_challenge_message(c1.id, 4242)
    assert (await store.get_challenge(c1.id)).message_id == 4242

    declined = await store.set_challenge_status(c2.id, "declined")
    assert declined.status == "declined"
    with pytest.raises(ChallengeClosedError, match="already declined"):
        await store.set_challenge_status(c2.id, "accepted")
    with pytest.raises(NotFoundError):
        await store.get_challenge(999)

    assert [c.id for c in await store.expired_challenges(T0 + timedelta(minutes=11))] == [c1.id]
    clock.advance(minutes=11)
    expired = await store.expire_challenges()
    assert [(c.id, c.status) for c in expired] == [(c1.id, "expired")]
    assert await store.pending_challenges(CHANNEL) == []
    assert await store.expire_challenges() == []


async def test_accepting_a_challenge_creates_the_game_atomically(store: Store) -> None:
    ch = await store.create_challenge(guild_id=GUILD, channel_id=CHANNEL, challenger=ALICE, challenged=BOB)
    game = await new_game(store, p0=BOB, p1=ALICE, challenge_id=ch.id)
    accepted = await store.get_challenge(ch.id)
    assert accepted.status == "accepted" and accepted.game_id == game.id
    # Accepting twice fails and creates nothing.
    with pytest.raises(ChallengeClosedError):
        await new_game(store, channel=CHANNEL + 1, challenge_id=ch.id)
    assert await store.active_game(CHANNEL + 1) is None
    # A busy channel leaves the challenge pending.
    ch2 = await store.create_challenge(guild_id=GUILD, channel_id=CHANNEL, challenger=CAROL, challenged=DAVE)
    with pytest.raises(ChannelBusyError):
        await new_game(store, p0=CAROL, p1=DAVE, challenge_id=ch2.id)
    assert (await store.get_challenge(ch2.id)).status == "pending"


# --------------------------------------------------------------------------
# Players, settings, leaderboard, stats
# --------------------------------------------------------------------------


async def test_players_prefs_and_guild_settings(store: Store, clock: FakeClock) -> None:
    p = await store.upsert_player(ALICE, "Alice", is_bot=False)
    assert (p.display_name, p.is_bot, p.prefs) == ("Alice", False, {})
    clock.advance(days=1)
    p = await store.upsert_player(ALICE, "Alice the Great")
    assert p.display_name == "Alice the Great" and p.created_at == T0 and p.updated_at == clock.now
    p = await store.set_player_prefs(ALICE, {"dm_reminders": False})
    assert p.prefs == {"dm_reminders": False}
    assert await store.get_player(CAROL) is None
    assert await store.get_guild_settings(GUILD) == {}
    await store.set_guild_settings(GUILD, {"move_days": 2})
    await store.set_guild_settings(GUILD, {"move_days": 5})
    assert await store.get_guild_settings(GUILD) == {"move_days": 5}


async def _play_match(store: Store, channel: int, winner: int, loser: int, length: int, points: int) -> None:
    game = await new_game(store, channel=channel, p0=winner, p1=loser, match_length=length)
    await store.append_action(
        game.id,
        0,
        {"kind": "resign", "player": 1},
        outcome=MatchOutcome(winner=winner, loser=loser, winner_points=points, loser_points=0),
    )


async def test_leaderboard_paging_orders_and_stats(store: Store) -> None:
    for uid, name in ((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")):
        await store.upsert_player(uid, name)
    await _play_match(store, 1, ALICE, BOB, 7, 7)
    await _play_match(store, 2, ALICE, CAROL, 7, 7)
    await _play_match(store, 3, DAVE, BOB, 1, 1)
    await _play_match(store, 4, CAROL, DAVE, 0, 4)  # money game, 4 points with the cube
    await store.create_game(guild_id=GUILD + 1, channel_id=5, player0=DAVE, player1=ALICE)

    page = await store.leaderboard(GUILD, limit=2)
    assert page.total == 4 and page.has_more
    assert [(e.rank, e.stats.display_name) for e in page.entries] == [(1, "Alice"), (2, "Dave")]
    page2 = await store.leaderboard(GUILD, offset=2, limit=2)
    assert [(e.rank, e.stats.display_name) for e in page2.entries] == [(3, "Carol"), (4, "Bob")]
    assert not page2.has_more
    ratings = [e.stats.rating for e in page.entries + page2.entries]
    assert ratings == sorted(ratings, reverse=True)

    by_points = await store.leaderboard(GUILD, order="points")
    assert [(e.stats.display_name, e.stats.points_won) for e in by_points.entries][:2] == [("Alice", 14), ("Carol", 4)]
    assert (await store.leaderboard(GUILD, min_games=2)).total == 4
    assert (await store.leaderboard(GUILD, min_games=3)).total == 0
    assert (await store.leaderboard(0)).total == 4  # global mirrors the only guild
    assert (await store.leaderboard(GUILD + 1)).total == 0
    with pytest.raises(ValueError):
        await store.leaderboard(GUILD, order="luck")  # type: ignore[arg-type]

    stats = await store.player_stats(BOB, GUILD)
    assert stats is not None and stats.rank == 4 and stats.ranked_players == 4
    assert stats.stats.games == 2 and stats.stats.wins == 0 and stats.stats.net_points == -8
    assert (await store.player_stats(ALICE, GUILD)).rank == 1  # type: ignore[union-attr]
    assert await store.player_stats(ALICE, GUILD + 1) is None


async def test_dice_stats_from_actions(store: Store) -> None:
    game = await new_game(store)
    await store.append_actions(
        game.id, 0, [roll(0, 6, 5), roll(1, 2, 2), roll(0, 5, 6), roll(0, 3, 3), {"kind": "play", "player": 0}]
    )
    alice = await store.dice_stats(ALICE)
    assert alice.counts == {(6, 5): 2, (3, 3): 1}
    assert (alice.rolls, alice.doubles, alice.pips) == (3, 1, 11 + 11 + 12)
    assert (await store.dice_stats(BOB, GUILD)).counts == {(2, 2): 1}
    assert (await store.dice_stats(BOB, GUILD + 1)).rolls == 0


# --------------------------------------------------------------------------
# Concurrency
# --------------------------------------------------------------------------


async def test_two_tasks_race_on_one_store(store: Store) -> None:
    game = await new_game(store)
    for version in range(5):
        results = await asyncio.gather(
            store.append_action(game.id, version, roll(0, 1, 2)),
            store.append_action(game.id, version, roll(1, 3, 4)),
            return_exceptions=True,
        )
        assert sum(isinstance(r, StaleVersionError) for r in results) == 1
        assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert [a.seq for a in await store.actions(game.id)] == [1, 2, 3, 4, 5]


async def test_two_connections_race_on_one_file(tmp_path: Path) -> None:
    path = tmp_path / "bg.sqlite3"
    async with await Store.open(path) as a, await Store.open(path) as b:
        game = await new_game(a)
        for version in range(10):
            results = await asyncio.gather(
                a.append_actions(game.id, version, [roll(0, 1, 2)]),
                b.append_actions(game.id, version, [roll(1, 3, 4)]),
                return_exceptions=True,
            )
            kinds = sorted(type(r).__name__ for r in results)
            assert kinds == ["AppendResult", "StaleVersionError"], results
        assert (await b.get_game(game.id)).version == 10
        assert [x.seq for x in await a.actions(game.id)] == list(range(1, 11))


@pytest.mark.parametrize("delay", [0, 0.0005, 0.001, 0.002, 0.003, 0.004, 0.006, 0.05])
async def test_cancelled_append_leaves_no_open_transaction(store: Store, delay: float) -> None:
    """Cancel at various points of a 50-action append: all or nothing, connection usable."""
    game = await new_game(store)
    task = asyncio.create_task(store.append_actions(game.id, 0, [roll(0, 1, 2)] * 50))
    await asyncio.sleep(delay)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    version = (await store.get_game(game.id)).version
    assert version in (0, 50)  # all or nothing
    assert len(await store.actions(game.id)) == version
    assert (await store.append_action(game.id, version, roll(1, 5, 5))).version == version + 1


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


async def test_processes_hammering_one_game(tmp_path: Path) -> None:
    path = tmp_path / "bg.sqlite3"
    async with await Store.open(path) as s:
        game = await new_game(s)
    workers, attempts = 3, 60
    start_at = time.time() + 1.0  # all workers start together once imported
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "hammer", str(path), str(game.id), str(attempts), str(w), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_child_env(),
        )
        for w in range(workers)
    ]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r["ok"] + r["stale"] == attempts for r in reports)
    successes = sum(r["ok"] for r in reports)
    assert sum(r["stale"] for r in reports) > 0  # the race really happened
    async with await Store.open(path) as s:
        log = await s.actions(game.id)
        assert (await s.get_game(game.id)).version == successes == len(log)
        assert [a.seq for a in log] == list(range(1, successes + 1))
        assert len({(a.action["worker"], a.action["i"]) for a in log}) == successes  # no duplicates
        assert await s.integrity_check() == "ok"


@pytest.mark.parametrize("acks_before_kill", [3, 40])
async def test_sigkill_mid_stream_loses_no_acknowledged_append(tmp_path: Path, acks_before_kill: int) -> None:
    path = tmp_path / "bg.sqlite3"
    async with await Store.open(path) as s:
        game = await new_game(s)
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), "stream", str(path), str(game.id)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_child_env(),
    )
    acked: list[int] = []
    try:
        assert proc.stdout is not None
        while len(acked) < acks_before_kill:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "child died"
            acked.append(int(line))
        proc.send_signal(signal.SIGKILL)  # while it is still appending
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert proc.returncode == -signal.SIGKILL
    assert acked == [3 * (i + 1) for i in range(len(acked))]

    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    async with await Store.open(path) as s:
        g = await s.get_game(game.id)
        log = await s.actions(game.id)
        assert g.version == len(log) and g.version % 3 == 0  # no half-applied batch
        assert [a.seq for a in log] == list(range(1, g.version + 1))
        assert g.version >= acked[-1]  # every acknowledged append survived
        assert g.score0 == g.version // 3 - 1  # row update is part of the same commit
