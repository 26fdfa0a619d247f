"""The outbox and the heartbeats, on SQLite and PostgreSQL.

A message owed is written in the transaction of the change that owes it
(nothing owed if the change is refused), delivered entries disappear, a
board settles every older board of its game, retries wait, and downtime
moves every running clock of the shard's games and challenges on by the gap.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import Owed, StaleVersionError, Store, open_store

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
GUILD, CHANNEL = 5 << 22, 77  # guild on shard 5 % n
ALICE, BOB = 11, 12


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(backend: str, clock: Clock, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    url = ":memory:" if backend == "sqlite" else request.getfixturevalue("db_url")
    s = await open_store(url, clock=clock)
    try:
        yield s
    finally:
        await s.close()


def board(game, version: int, **payload: object) -> Owed:
    return Owed("board", game.guild_id, game.channel_id, game_id=game.id, version=version, payload=payload)


async def new_game(store: Store, channel: int = CHANNEL, guild: int = GUILD, **kw: object):
    return await store.games.create(guild_id=guild, channel_id=channel, player0=ALICE, player1=BOB, **kw)  # type: ignore[arg-type]


ROLL = {"kind": "roll", "player": 0, "dice": [6, 5]}


async def test_owed_with_the_change_and_not_without_it(store: Store) -> None:
    game = await new_game(store)
    result = await store.games.append(game.id, 0, [ROLL], owed=[board(game, 1, since=0)])
    (entry,) = await store.outbox.owed()
    assert result.owed == [entry.id]
    assert (entry.kind, entry.game_id, entry.version, entry.payload) == ("board", game.id, 1, {"since": 0})
    with pytest.raises(StaleVersionError):  # a refused change owes nothing
        await store.games.append(game.id, 0, [ROLL], owed=[board(game, 1, since=0)])
    assert [e.id for e in await store.outbox.owed()] == [entry.id]


async def test_a_delivered_board_settles_older_boards_and_records_itself(store: Store) -> None:
    game = await new_game(store)
    first = (await store.games.append(game.id, 0, [ROLL], owed=[board(game, 1, since=0)])).owed
    second = (await store.games.append(game.id, 1, [ROLL], owed=[board(game, 2, since=1)])).owed
    await store.outbox.delivered(second, game_id=game.id, board=(CHANNEL, 900), version=2)
    assert await store.outbox.owed() == []  # the first board is settled by the second
    row = await store.games.get(game.id)
    assert (row.board_message_id, row.board_version) == (900, 2)
    # an older board delivered late does not take the place of the newer one
    await store.outbox.delivered(first, game_id=game.id, board=(CHANNEL, 800), version=1)
    assert (await store.games.get(game.id)).board_message_id == 900


async def test_retries_wait_for_their_time(store: Store, clock: Clock) -> None:
    game = await new_game(store)
    (entry_id,) = (await store.games.append(game.id, 0, [ROLL], owed=[board(game, 1, since=0)])).owed
    await store.outbox.retry_later(entry_id, T0 + timedelta(seconds=20))
    assert await store.outbox.owed(T0 + timedelta(seconds=19)) == []
    (entry,) = await store.outbox.owed(T0 + timedelta(seconds=20))
    assert entry.attempts == 1
    assert await store.outbox.next_attempt() == T0 + timedelta(seconds=20)


async def test_reminders_and_expiries_owe_their_message_in_the_same_transaction(store: Store) -> None:
    game = await new_game(store, reminder_at=T0, turn_deadline=T0 + timedelta(days=1))
    owed = Owed("reminder", GUILD, CHANNEL, game_id=game.id, version=0, payload={"user_id": ALICE, "text": "go"})
    entry_id = await store.schedule.claim_reminder(game.id, 0, owed)
    assert entry_id is not None
    assert await store.schedule.claim_reminder(game.id, 0, owed) is None
    challenge = await store.challenges.create(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ALICE, challenged=BOB, expires_at=T0
    )
    (expired,) = await store.schedule.expire_challenges(T0 + timedelta(seconds=1))
    entries = await store.outbox.owed()
    assert [(e.kind, e.game_id, e.challenge_id) for e in entries] == [
        ("reminder", game.id, None),
        ("challenge_expired", None, challenge.id),
    ]
    assert expired.id == challenge.id
    assert [e.kind for e in await store.outbox.owed(kinds=("challenge_expired",))] == ["challenge_expired"]


async def test_only_the_shards_own_entries_until_they_are_long_overdue(store: Store, clock: Clock) -> None:
    mine = await new_game(store, channel=1, guild=(1 << 22))  # shard 1 of 2
    theirs = await new_game(store, channel=2, guild=(2 << 22))  # shard 0 of 2
    await store.games.append(mine.id, 0, [ROLL], owed=[board(mine, 1, since=0)])
    await store.games.append(theirs.id, 0, [ROLL], owed=[board(theirs, 1, since=0)])
    assert [e.game_id for e in await store.outbox.owed(shard=(2, (1,)))] == [mine.id]
    later = T0 + timedelta(minutes=6)
    assert [e.game_id for e in await store.outbox.owed(later, shard=(2, (1,)))] == [mine.id, theirs.id]


async def come_back(store: Store, shard, at: datetime, **kw: object) -> float:
    """A beat coming back, then every batch of the games' clocks (as ``Deadlines.beat`` does)."""
    gap = await store.schedule.beat(shard, at, stale_after=90, **kw)  # type: ignore[arg-type]
    while await store.schedule.credit_games(shard) is not None:
        pass
    return gap


async def test_downtime_moves_running_clocks_on(store: Store, clock: Clock) -> None:
    deadline = T0 + timedelta(hours=10)
    running = await new_game(store, channel=1, turn_deadline=deadline, reminder_at=T0 + timedelta(hours=5))
    finished_long_ago = await new_game(store, channel=2, turn_deadline=T0 - timedelta(hours=1))
    pending = await store.challenges.create(
        guild_id=GUILD, channel_id=3, challenger=ALICE, challenged=BOB, expires_at=T0 + timedelta(hours=2)
    )
    assert await store.schedule.beat(None, T0, stale_after=90) == 0.0  # the first beat: nothing to credit
    assert await store.schedule.beat(None, T0 + timedelta(seconds=30), stale_after=90) == 0.0
    gap = await come_back(store, None, T0 + timedelta(hours=3, seconds=30))
    assert gap == pytest.approx(3 * 3600)
    row = await store.games.get(running.id)
    assert row.turn_deadline == deadline + timedelta(hours=3)
    assert row.reminder_at == T0 + timedelta(hours=8)
    assert (await store.games.get(finished_long_ago.id)).turn_deadline == T0 - timedelta(hours=1)  # was due before
    assert (await store.challenges.get(pending.id)).expires_at == T0 + timedelta(hours=5)
    assert await come_back(store, None, T0 + timedelta(hours=3, seconds=60)) == 0.0  # once
    assert (await store.games.get(running.id)).turn_deadline == deadline + timedelta(hours=3)


async def test_a_shards_downtime_moves_only_its_guilds(store: Store) -> None:
    deadline = T0 + timedelta(hours=10)
    on_1 = await new_game(store, channel=1, guild=(1 << 22), turn_deadline=deadline)
    on_0 = await new_game(store, channel=2, guild=(2 << 22), turn_deadline=deadline)
    for shard in ((2, (0,)), (2, (1,))):
        await store.schedule.beat(shard, T0, stale_after=90)
    await come_back(store, (2, (0,)), T0 + timedelta(minutes=1))
    await come_back(store, (2, (1,)), T0 + timedelta(hours=1))  # shard 1 was away an hour
    assert (await store.games.get(on_1.id)).turn_deadline == deadline + timedelta(hours=1)
    assert (await store.games.get(on_0.id)).turn_deadline == deadline


async def test_a_beat_of_a_running_bot_credits_nothing(store: Store) -> None:
    """Only coming back (start-up, a lost connection) credits a gap: a running
    bot whose clock jumps (or whose beats failed) is not taken for absent."""
    deadline = T0 + timedelta(hours=10)
    game = await new_game(store, turn_deadline=deadline)
    await store.schedule.beat(None, T0, stale_after=90)
    assert await store.schedule.beat(None, T0 + timedelta(hours=2), stale_after=90, credit=False) == 0.0
    assert (await store.games.get(game.id)).turn_deadline == deadline
    # ... but the beat is recorded: coming back later credits only the time since
    assert await come_back(store, None, T0 + timedelta(hours=3)) == pytest.approx(3600)
    assert (await store.games.get(game.id)).turn_deadline == deadline + timedelta(hours=1)


async def test_an_outage_is_credited_to_the_games_a_batch_at_a_time_and_resumes_after_a_crash(store: Store) -> None:
    deadline = T0 + timedelta(hours=10)
    games = [await new_game(store, channel=n, turn_deadline=deadline) for n in range(1, 8)]
    await store.schedule.beat(None, T0, stale_after=90)
    assert await store.schedule.beat(None, T0 + timedelta(hours=2), stale_after=90) == pytest.approx(7200)
    assert [(await store.games.get(g.id)).turn_deadline for g in games] == [deadline] * 7  # owed, not yet moved
    assert await store.schedule.credit_games(None, batch=3) == 3
    moved = [(await store.games.get(g.id)).turn_deadline == deadline + timedelta(hours=2) for g in games]
    assert moved == [True] * 3 + [False] * 4
    # the bot dies here; the next one coming back finishes the outage first, then credits nothing new
    assert await come_back(store, None, T0 + timedelta(hours=2, seconds=30)) == 0.0
    assert [(await store.games.get(g.id)).turn_deadline for g in games] == [deadline + timedelta(hours=2)] * 7
    assert await store.schedule.credit_games(None) is None


async def test_a_game_acted_on_while_its_outage_is_credited_keeps_its_new_clocks(store: Store, clock: Clock) -> None:
    deadline = T0 + timedelta(hours=10)
    acted, waiting = [await new_game(store, channel=n, turn_deadline=deadline) for n in (1, 2)]
    await store.schedule.beat(None, T0, stale_after=90)
    back = T0 + timedelta(hours=2)
    await store.schedule.beat(None, back, stale_after=90)
    clock.now = back + timedelta(seconds=1)  # a player moves before the batch reaches the game
    fresh = clock.now + timedelta(hours=24)
    await store.games.append(acted.id, 0, [ROLL], updates={"turn_deadline": fresh})
    while await store.schedule.credit_games(None) is not None:
        pass
    assert (await store.games.get(acted.id)).turn_deadline == fresh
    assert (await store.games.get(waiting.id)).turn_deadline == deadline + timedelta(hours=2)


async def test_an_outage_left_under_another_shard_count_is_finished_by_whoever_comes_back(store: Store) -> None:
    deadline = T0 + timedelta(hours=10)
    on_1 = await new_game(store, channel=1, guild=(1 << 22), turn_deadline=deadline)  # shard 1 of 2
    on_0 = await new_game(store, channel=2, guild=(2 << 22), turn_deadline=deadline)  # shard 0 of 2
    await store.schedule.beat((2, (1,)), T0, stale_after=90)
    await store.schedule.beat((2, (1,)), T0 + timedelta(hours=1), stale_after=90)  # shard 1 back after an hour...
    # ... and it dies before crediting; the bot restarts unsharded
    await come_back(store, None, T0 + timedelta(hours=1, seconds=10))
    assert (await store.games.get(on_1.id)).turn_deadline == deadline + timedelta(hours=1)
    assert (await store.games.get(on_0.id)).turn_deadline == deadline  # that outage was shard 1's alone
    assert await store.schedule.credit_games(None) is None


async def test_a_sibling_shards_outage_is_its_own(store: Store) -> None:
    deadline = T0 + timedelta(hours=10)
    on_1 = await new_game(store, channel=1, guild=(1 << 22), turn_deadline=deadline)
    await store.schedule.beat((2, (1,)), T0, stale_after=90)
    await store.schedule.beat((2, (1,)), T0 + timedelta(hours=1), stale_after=90)
    assert await store.schedule.credit_games((2, (0,))) is None  # shard 0's process leaves it to shard 1's
    assert (await store.games.get(on_1.id)).turn_deadline == deadline
    while await store.schedule.credit_games((2, (1,))) is not None:
        pass
    assert (await store.games.get(on_1.id)).turn_deadline == deadline + timedelta(hours=1)


async def test_a_second_outage_before_the_first_is_credited_adds_up(store: Store) -> None:
    deadline = T0 + timedelta(hours=10)
    first, second = [await new_game(store, channel=n, turn_deadline=deadline) for n in (1, 2)]
    await store.schedule.beat(None, T0, stale_after=90)
    await store.schedule.beat(None, T0 + timedelta(hours=1), stale_after=90)  # away an hour
    assert await store.schedule.credit_games(None, batch=1) == 1  # the first game, then the bot dies
    await come_back(store, None, T0 + timedelta(hours=3))  # away two more hours
    assert (await store.games.get(first.id)).turn_deadline == deadline + timedelta(hours=3)
    assert (await store.games.get(second.id)).turn_deadline == deadline + timedelta(hours=3)
