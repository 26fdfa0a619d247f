"""The tournaments' store (bot/store/tournaments.py): sign-up, the start, tables
decided with their games' end, a round advanced exactly once under racing
stores, withdrawals, due work, records.

Each test runs on SQLite and on PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import (
    EntrantsChangedError,
    Finish,
    MatchOutcome,
    NewPairing,
    Owed,
    PairingTakenError,
    Store,
    TournamentClosedError,
    TournamentFullError,
)

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
GUILD = 111
CHANNEL = 222
ALICE, BOB, CAROL, DAVE, ERIN = 1001, 1002, 1003, 1004, 1005


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def store(store_factory) -> Store:
    return await store_factory(clock=Clock())


async def new_tournament(store: Store, *players: int, starts_at: datetime | None = None, fmt: str = "knockout") -> int:
    row = await store.tournaments.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser=ALICE,
        name="Spring Cup",
        format=fmt,
        settings={"match_length": 3},
        starts_at=starts_at,
    )
    for player in players:
        assert await store.tournaments.join(row.id, player, max_players=64)
    return row.id


async def started(store: Store, *players: int, pairings: list[NewPairing] | None = None) -> int:
    tid = await new_tournament(store, *players)
    seeds = [(p, n + 1, 1500.0) for n, p in enumerate(players)]
    if pairings is None:
        pairings = [NewPairing(k, players[2 * k], players[2 * k + 1]) for k in range(len(players) // 2)]
    row = await store.tournaments.start(
        tid, seeds=seeds, rounds=2, pairings=pairings, round_deadline=T0 + timedelta(days=7)
    )
    assert row is not None and row.status == "running" and row.round == 1
    return tid


async def test_sign_up_join_leave_full_and_closed(store: Store) -> None:
    tid = await new_tournament(store)
    assert await store.tournaments.join(tid, ALICE, max_players=2)
    assert not await store.tournaments.join(tid, ALICE, max_players=2)  # in already
    assert await store.tournaments.join(tid, BOB, max_players=2)
    with pytest.raises(TournamentFullError):
        await store.tournaments.join(tid, CAROL, max_players=2)
    assert await store.tournaments.leave(tid, BOB)
    assert not await store.tournaments.leave(tid, BOB)
    assert await store.tournaments.join(tid, CAROL, max_players=2)
    assert [e.user_id for e in await store.tournaments.entrants(tid)] == [ALICE, CAROL]
    assert [t.id for t in await store.tournaments.playing(CAROL, GUILD)] == [tid]
    await store.tournaments.cancel(tid)
    with pytest.raises(TournamentClosedError):
        await store.tournaments.join(tid, DAVE, max_players=9)
    with pytest.raises(TournamentClosedError):
        await store.tournaments.leave(tid, ALICE)
    assert await store.tournaments.cancel(tid) is None  # once
    assert await store.tournaments.playing(CAROL, GUILD) == []


async def test_start_seeds_exactly_the_entrants_once(store: Store) -> None:
    tid = await new_tournament(store, ALICE, BOB, CAROL)
    pairings = [NewPairing(0, ALICE, None, ALICE, "bye"), NewPairing(1, BOB, CAROL)]
    with pytest.raises(EntrantsChangedError):  # Carol is left out: someone joined meanwhile
        await store.tournaments.start(
            tid, seeds=[(ALICE, 1, None), (BOB, 2, None)], rounds=2, pairings=pairings, round_deadline=None
        )
    seeds = [(ALICE, 1, 1700.0), (BOB, 2, 1600.0), (CAROL, 3, None)]
    owed = [Owed("tourney_update", GUILD, CHANNEL, payload={"tournament": tid})]
    row = await store.tournaments.start(tid, seeds=seeds, rounds=2, pairings=pairings, round_deadline=T0, owed=owed)
    assert row is not None and (row.status, row.round, row.rounds, row.round_deadline) == ("running", 1, 2, T0)
    assert await store.tournaments.start(tid, seeds=seeds, rounds=2, pairings=pairings, round_deadline=None) is None
    entrants = await store.tournaments.entrants(tid)
    assert [(e.user_id, e.seed, e.rating) for e in entrants] == seeds
    tables = await store.tournaments.pairings(tid, 1)
    assert [(p.table_no, p.players, p.outcome, p.winner) for p in tables] == [
        (0, (ALICE,), "bye", ALICE),
        (1, (BOB, CAROL), None, None),
    ]
    assert [e.kind for e in await store.outbox.owed(T0 + timedelta(seconds=1))] == ["tourney_update"]


async def test_a_game_claims_its_table_once_and_its_end_decides_it(store: Store) -> None:
    tid = await started(store, ALICE, BOB, CAROL, DAVE)
    first, second = await store.tournaments.pairings(tid, 1)
    game = await store.games.create(guild_id=GUILD, channel_id=5001, player0=ALICE, player1=BOB, pairing_id=first.id)
    with pytest.raises(PairingTakenError):
        await store.games.create(guild_id=GUILD, channel_id=5002, player0=ALICE, player1=BOB, pairing_id=first.id)
    assert await store.games.active_in(5002) is None  # the refused game was not written
    assert (await store.tournaments.pairing_of_game(game.id)).id == first.id  # type: ignore[union-attr]
    await store.games.append(game.id, 0, [{"kind": "roll", "player": 0, "dice": [3, 1]}])
    assert not (await store.tournaments.pairing(first.id)).decided
    await store.games.append(game.id, 1, [{"kind": "resign", "player": 0}], outcome=MatchOutcome(BOB, ALICE))
    decided = await store.tournaments.pairing(first.id)
    assert (decided.winner, decided.outcome, decided.game_id) == (BOB, "won", game.id)
    # an abandoned game decides its table for nobody
    other = await store.games.create(guild_id=GUILD, channel_id=5003, player0=CAROL, player1=DAVE, pairing_id=second.id)
    await store.games.append(other.id, 0, [{"kind": "abandon"}], updates={"status": "abandoned"})
    void = await store.tournaments.pairing(second.id)
    assert (void.winner, void.outcome) == (None, "void")
    # a decided table takes no game
    with pytest.raises(PairingTakenError):
        await store.games.create(guild_id=GUILD, channel_id=5004, player0=CAROL, player1=DAVE, pairing_id=second.id)
    assert await store.tournaments.decide(second.id, CAROL, "won") is None  # decided once


async def test_set_thread_keeps_the_first(store: Store) -> None:
    tid = await started(store, ALICE, BOB)
    (table,) = await store.tournaments.pairings(tid, 1)
    assert await store.tournaments.set_thread(table.id, 900) == 900
    assert await store.tournaments.set_thread(table.id, 901) == 900


async def test_a_round_advances_only_when_every_table_is_decided(store: Store) -> None:
    tid = await started(store, ALICE, BOB, CAROL, DAVE)
    first, second = await store.tournaments.pairings(tid, 1)
    final = [NewPairing(0, ALICE, CAROL)]
    await store.tournaments.decide(first.id, ALICE, "won")
    assert await store.tournaments.advance(tid, 1, pairings=final) is None  # a table is still open
    assert await store.tournaments.complete_rounds() == []
    await store.tournaments.decide(second.id, CAROL, "won")
    assert [t.id for t in await store.tournaments.complete_rounds()] == [tid]
    row = await store.tournaments.advance(tid, 1, pairings=final, round_deadline=T0 + timedelta(days=3))
    assert row is not None and row.round == 2 and row.round_deadline == T0 + timedelta(days=3)
    assert await store.tournaments.advance(tid, 1, pairings=final) is None  # once
    (table,) = await store.tournaments.pairings(tid, 2)
    await store.tournaments.decide(table.id, CAROL, "won")
    finish = Finish(CAROL, {CAROL: 1, ALICE: 2, BOB: 3, DAVE: 3})
    done = await store.tournaments.advance(tid, 2, finish=finish)
    assert done is not None and (done.status, done.champion, done.round_deadline) == ("finished", CAROL, None)
    assert {e.user_id: e.place for e in await store.tournaments.entrants(tid)} == finish.places
    assert await store.tournaments.advance(tid, 2, finish=finish) is None


async def test_two_stores_racing_advance_a_round_exactly_once(store_factory) -> None:
    """Two bot processes (two stores, two connections or pools on one database) race
    the last two results of a round and both try to start the next: one round 2."""
    one = await store_factory(clock=Clock())
    two = await store_factory(clock=Clock())
    for attempt in range(8):
        tid = await started(one, ALICE, BOB, CAROL, DAVE)
        first, second = await one.tournaments.pairings(tid, 1)
        await asyncio.gather(
            one.tournaments.decide(first.id, ALICE, "won"), two.tournaments.decide(second.id, DAVE, "won")
        )
        rounds = await asyncio.gather(
            *(
                store.tournaments.advance(
                    tid,
                    1,
                    pairings=[NewPairing(0, ALICE, DAVE)],
                    owed=[Owed("tourney_update", GUILD, CHANNEL, payload={"tournament": tid, "by": n})],
                )
                for n, store in enumerate((one, two, one, two))
            )
        )
        assert sum(r is not None for r in rounds) == 1, attempt
        assert len(await one.tournaments.pairings(tid, 2)) == 1
        assert (await two.tournaments.get(tid)).round == 2
    updates = [e for e in await one.outbox.owed(T0 + timedelta(seconds=1)) if e.kind == "tourney_update"]
    assert len(updates) == 8  # each round's advance owed its update once


async def test_racing_results_and_games_decide_each_table_once(store_factory) -> None:
    one = await store_factory(clock=Clock())
    two = await store_factory(clock=Clock())
    tid = await started(one, ALICE, BOB)
    (table,) = await one.tournaments.pairings(tid, 1)
    results = await asyncio.gather(
        one.tournaments.decide(table.id, ALICE, "won"),
        two.tournaments.decide(table.id, BOB, "forfeit"),
    )
    assert sum(r is not None for r in results) == 1
    winner = next(r for r in results if r is not None).winner
    assert (await two.tournaments.pairing(table.id)).winner == winner


async def test_withdraw_forfeits_the_open_tables(store: Store) -> None:
    tid = await started(store, ALICE, BOB, CAROL, DAVE)
    first, second = await store.tournaments.pairings(tid, 1)
    assert await store.tournaments.withdraw(tid, BOB, forfeits=[(first.id, ALICE, "forfeit")])
    assert not await store.tournaments.withdraw(tid, BOB, forfeits=[(first.id, BOB, "forfeit")])
    table = await store.tournaments.pairing(first.id)
    assert (table.winner, table.outcome) == (ALICE, "forfeit")
    entrants = {e.user_id: e for e in await store.tournaments.entrants(tid)}
    assert entrants[BOB].withdrawn and entrants[BOB].left_round == 1
    assert not (await store.tournaments.pairing(second.id)).decided
    signup = await new_tournament(store, ALICE)
    with pytest.raises(TournamentClosedError):
        await store.tournaments.withdraw(signup, ALICE)


async def test_due_starts_and_round_deadlines(store: Store) -> None:
    soon = await new_tournament(store, ALICE, BOB, starts_at=T0 + timedelta(hours=2))
    await new_tournament(store, CAROL, starts_at=T0 + timedelta(hours=5))
    assert await store.tournaments.next_wakeup() == T0 + timedelta(hours=2)
    assert await store.tournaments.due_starts(T0 + timedelta(hours=1)) == []
    assert [t.id for t in await store.tournaments.due_starts(T0 + timedelta(hours=2))] == [soon]
    running = await started(store, DAVE, ERIN)
    assert await store.tournaments.next_wakeup() == T0 + timedelta(hours=2)
    assert [t.id for t in await store.tournaments.due_rounds(T0 + timedelta(days=7))] == [running]
    claims = await asyncio.gather(*(store.tournaments.claim_round_deadline(running, 1) for _ in range(3)))
    assert claims.count(True) == 1
    assert await store.tournaments.due_rounds(T0 + timedelta(days=8)) == []
    assert await store.tournaments.next_wakeup(shard=(1, (0,))) == T0 + timedelta(hours=2)


async def test_downtime_moves_sign_up_closes_and_round_deadlines(store: Store) -> None:
    opening = await new_tournament(store, ALICE, starts_at=T0 + timedelta(hours=2))
    running = await started(store, BOB, CAROL)
    await store.schedule.beat(None, T0, stale_after=90)
    await store.schedule.beat(None, T0 + timedelta(hours=1), stale_after=90, credit=True)  # away an hour
    assert (await store.tournaments.get(opening)).starts_at == T0 + timedelta(hours=3)
    assert (await store.tournaments.get(running)).round_deadline == T0 + timedelta(days=7, hours=1)


async def test_records_count_titles_and_the_best_place(store: Store) -> None:
    for champion, places in ((ALICE, {ALICE: 1, BOB: 2}), (BOB, {BOB: 1, ALICE: 2})):
        tid = await started(store, ALICE, BOB)
        (table,) = await store.tournaments.pairings(tid, 1)
        await store.tournaments.decide(table.id, champion, "won")
        await store.tournaments.advance(tid, 1, finish=Finish(champion, places))
    cancelled = await started(store, ALICE, CAROL)
    await store.tournaments.cancel(cancelled)
    alice = await store.tournaments.record(ALICE, GUILD)
    assert (alice.played, alice.titles, alice.best_place, alice.best_name, alice.best_field) == (
        2,
        1,
        1,
        "Spring Cup",
        2,
    )
    carol = await store.tournaments.record(CAROL)
    assert (carol.played, carol.titles, carol.best_place) == (0, 0, None)
    assert (await store.tournaments.record(BOB, GUILD + 1)).played == 0
