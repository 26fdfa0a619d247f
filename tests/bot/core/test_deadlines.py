"""Play over days: reminders at 75% of the time per move, timeouts, challenge expiry (fake clock; SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.core import ChallengeOptions, GameService
from bot.store import open_store
from engine import Phase, ScriptedDice, SeededDice
from tests.bot.core.helpers import (  # noqa: E402
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    Env,
    FakeClock,
    assert_replays,
    open_env,
    start_game,
    stored_state,
)
from tests.narrowing import found, present


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, dice=SeededDice(5))
    yield e
    await e.store.close()


def kinds(notices) -> list[str]:
    return [n.kind for n in notices]


async def test_reminder_once_at_75_percent_even_after_restart(env: Env) -> None:
    s, clock = env.service, env.clock
    state = await start_game(s, options=ChallengeOptions(move_days=4))
    start = clock.now
    assert state.deadline == start + timedelta(days=4)
    assert await s.deadlines.next_wakeup() == start + timedelta(days=3)
    clock.now = start + timedelta(days=3) - timedelta(seconds=1)
    assert await s.deadlines.process_due() == []
    clock.advance(seconds=1)
    notices = await s.deadlines.process_due()
    assert kinds(notices) == ["reminder"]
    assert notices[0].user_id == present(state.to_act()).user_id and f"game #{state.id}" in notices[0].text
    assert "1 day" in notices[0].text or "24 hours" in notices[0].text
    assert await s.deadlines.process_due() == []
    assert await s.deadlines.next_wakeup() == start + timedelta(days=4)
    # restart: a new connection and service on the same file
    await env.store.close()
    again = await open_env(env.path, clock=clock, dice=SeededDice(6))
    env.store = again.store
    clock.advance(hours=1)
    assert await again.service.deadlines.process_due() == []
    row, _, _ = await stored_state(again.service, again.store, state.id)
    assert row.version == state.version  # a reminder does not change the game


async def test_an_owed_reminder_is_worded_from_the_row_alone(env: Env, monkeypatch) -> None:
    """After a restart, a backlog of reminders (an outage) replays no game's log:
    a reminder needs the turn's text, its player and the board to link to."""
    s, clock = env.service, env.clock
    state = await start_game(s, options=ChallengeOptions(move_days=4))
    challenge = await s.challenges.create(GUILD, 200, ALICE, BOB, ChallengeOptions(move_days=4))
    other = (await s.challenges.accept(challenge.id, BOB.user_id)).state
    await s.deliveries.delivered([], state=state, board=(100, 7))  # the first game's board was posted
    clock.advance(days=3, seconds=1)
    assert kinds(await s.deadlines.process_due()) == ["reminder", "reminder"]
    again = await open_env(env.path, clock=clock, dice=SeededDice(6))  # a restart: nothing in memory
    try:

        def no_replay(*args, **kwargs):
            raise AssertionError("a reminder replayed a game's log")

        monkeypatch.setattr(again.service.cache, "rebuild", no_replay)
        owed = await again.service.deliveries.owed(kinds=("reminder",))
        by_game = {d.text.split("game #")[1].split(":")[0]: d for d in owed}
        first, second = by_game[str(state.id)], by_game[str(other.id)]
        assert first.board_message == (100, 7) and first.channel_id == 100
        assert second.board_message is None and second.channel_id == 200
        assert first.ping == (present(state.to_act()).user_id,) and second.ping == (present(other.to_act()).user_id,)
    finally:
        await again.store.close()


async def test_coming_back_the_games_clocks_move_when_there_is_room(env: Env) -> None:
    """The outage is written down with the beat; the games are credited a batch at a
    time, each once ``room()`` lets it (the Discord layer waits there for a quiet moment)."""
    s, clock = env.service, env.clock
    await s.deadlines.beat()
    views = [
        await start_game(s, channel=100 + n, a=a, b=b, options=ChallengeOptions(move_days=1))
        for n, (a, b) in enumerate([(ALICE, BOB), (CAROL, DAVE), (BOB, CAROL)])
    ]
    clock.advance(hours=2)
    assert await s.deadlines.beat(coming_back=True) == timedelta(hours=2)
    assert [(await s.lookups.get_game(v.id)).deadline for v in views] == [v.deadline for v in views]

    gate = asyncio.Event()
    asked: list[int] = []

    async def room() -> None:
        asked.append(len(asked))
        await gate.wait()

    settling = asyncio.create_task(s.deadlines.settle_outages(room=room, batch=2))
    await asyncio.sleep(0.05)
    assert not settling.done() and asked == [0]
    assert [(await s.lookups.get_game(v.id)).deadline for v in views] == [v.deadline for v in views]
    gate.set()
    assert await settling == 3
    assert asked == [0, 1]  # two batches; the second finished the outage
    assert [(await s.lookups.get_game(v.id)).deadline for v in views] == [
        present(v.deadline) + timedelta(hours=2) for v in views
    ]
    assert await s.deadlines.settle_outages(room=room) == 0 and asked == [0, 1]  # once; nothing owed: no wait
    clock.advance(seconds=30)
    assert await s.deadlines.beat(coming_back=True) == timedelta(0)  # a restart in time
    assert await s.deadlines.settle_outages(room=room) == 0 and asked == [0, 1]


async def test_reminder_once_across_two_services(env: Env) -> None:
    other = await open_store(env.path, clock=env.clock)
    try:
        s2 = GameService(other, dice=SeededDice(1), clock=env.clock)
        state = await start_game(env.service)
        env.clock.advance(days=3 * 0.75, seconds=1)
        a, b = await asyncio.gather(env.service.deadlines.process_due(), s2.deadlines.process_due())
        assert sorted(kinds(a) + kinds(b)) == ["reminder"]
        assert (await env.service.lookups.get_game(state.id)).version == state.version
    finally:
        await other.close()


async def test_an_action_resets_the_deadline_and_the_next_turn_gets_its_reminder(env: Env) -> None:
    s, clock = env.service, env.clock
    state = await start_game(s)
    clock.advance(days=2, hours=12)
    assert kinds(await s.deadlines.process_due()) == ["reminder"]
    actor = state.to_act()
    if state.game.phase is Phase.PLAY:
        assert actor is not None
        out = await s.play(state.id, actor.user_id, state.legal_play_texts()[0], version=state.version)
    else:
        assert actor is not None
        out = await s.roll(state.id, actor.user_id, version=state.version)
    acted_at = clock.now
    assert out.state.deadline == acted_at + timedelta(days=3)
    # the old deadline passes: no timeout, the clock started again
    clock.advance(days=1)
    assert await s.deadlines.process_due() == []
    assert await s.deadlines.next_wakeup() == acted_at + timedelta(days=2.25)
    clock.now = acted_at + timedelta(days=2.25)
    notices = await s.deadlines.process_due()
    assert kinds(notices) == ["reminder"] and notices[0].user_id == present(out.state.to_act()).user_id
    assert await s.deadlines.process_due() == []
    assert (await s.lookups.get_game(state.id)).is_active


async def test_time_per_move_of_one_day(env: Env) -> None:
    s, clock = env.service, env.clock
    await start_game(s, options=ChallengeOptions(move_days=1))
    clock.advance(hours=18, seconds=-1)
    assert await s.deadlines.process_due() == []
    clock.advance(seconds=1)
    assert kinds(await s.deadlines.process_due()) == ["reminder"]


async def test_timeout_forfeits_once_at_the_current_cube_across_two_services(db_url: str) -> None:
    clock = FakeClock()
    env = await open_env(db_url, clock=clock, dice=ScriptedDice([3, 1]))
    other = await open_store(env.path, clock=clock)
    try:
        s1, s2 = env.service, GameService(other, dice=SeededDice(2), clock=clock)
        state = await start_game(s1, options=ChallengeOptions(stake=3, opening_reroll=True))
        await s1.double(state.id, ALICE.user_id)
        out = await s1.take(state.id, BOB.user_id)
        assert out.state.to_act() == ALICE and out.state.game.cube_value == 2
        await s2.lookups.get_game(state.id)
        clock.advance(days=3, seconds=1)  # no reminder was sent: the timeout covers it
        a, b = await asyncio.gather(s1.deadlines.process_due(), s2.deadlines.process_due())
        notices = a + b
        assert kinds(notices) == ["timeout"], notices
        timeout = notices[0]
        assert timeout.user_id == ALICE.user_id and "ran out of time" in timeout.text
        assert timeout.state is not None
        assert timeout.state.status == "finished"
        result = timeout.state.game.result
        assert result is not None
        assert (result.winner, result.points, result.reason, int(result.kind)) == (1, 2, "timeout", 1)
        assert len(timeout.rating_changes) == 4
        row, log, _ = await stored_state(s1, env.store, state.id)
        assert sum(1 for x in log if x["kind"] == "forfeit") == 1 and row.winner == BOB.user_id
        for scope in (GUILD, None):
            bob = (await found(s1.lookups.stats(scope, BOB.user_id))).stats
            assert (bob.games, bob.wins, bob.points_won) == (1, 1, 6)
        assert await s1.deadlines.process_due() == [] and await s2.deadlines.process_due() == []
        assert await s1.deadlines.next_wakeup() is None
        await assert_replays(s1, env.store, state.id)
    finally:
        await other.close()
        await env.store.close()


async def test_timeout_in_a_match_forfeits_the_match(env: Env) -> None:
    s, clock = env.service, env.clock
    state = await start_game(s, options=ChallengeOptions(match_length=5, move_days=2))
    loser = state.to_act()
    clock.advance(days=1.5)
    assert kinds(await s.deadlines.process_due()) == ["reminder"]
    clock.advance(days=0.5)
    notices = await s.deadlines.process_due()
    assert loser is not None
    assert kinds(notices) == ["timeout"] and notices[0].user_id == loser.user_id
    assert notices[0].state is not None
    assert notices[0].state.result is not None
    assert notices[0].state.result["forfeited"] is True
    _, log, _ = await stored_state(s, env.store, state.id)
    assert log[-1] == {"kind": "match_forfeit"}
    await assert_replays(s, env.store, state.id)


async def test_challenge_expires_after_24_hours_once(env: Env) -> None:
    other = await open_store(env.path, clock=env.clock)
    try:
        s2 = GameService(other, clock=env.clock)
        ch = await env.service.challenges.create(GUILD, 100, ALICE, BOB, ChallengeOptions())
        assert await env.service.deadlines.next_wakeup() == env.clock.now + timedelta(hours=24)
        env.clock.advance(hours=23, minutes=59)
        assert await env.service.deadlines.process_due() == []
        env.clock.advance(minutes=1)
        a, b = await asyncio.gather(env.service.deadlines.process_due(), s2.deadlines.process_due())
        notices = a + b
        assert kinds(notices) == ["challenge_expired"]
        assert notices[0].challenge is not None
        assert notices[0].challenge.id == ch.id and notices[0].user_id == ALICE.user_id
        assert (await env.service.challenges.get(ch.id)).status == "expired"
        assert await env.service.deadlines.process_due() == [] and await s2.deadlines.process_due() == []
        assert await env.service.deadlines.next_wakeup() is None
    finally:
        await other.close()


async def test_a_failing_timeout_does_not_swallow_claimed_reminders(env: Env, monkeypatch) -> None:
    from bot.store import DatabaseBusyError

    s, clock = env.service, env.clock
    await start_game(s, channel=100, options=ChallengeOptions(move_days=1))
    clock.advance(hours=12)
    late = await start_game(s, channel=101, options=ChallengeOptions(move_days=3))
    clock.advance(hours=12, seconds=1)  # game 1 times out now; game 2 is at 12h of 3 days
    clock.advance(days=1, hours=21)  # game 2 reaches its reminder; game 1 is long overdue

    async def busy(*args, **kwargs):
        raise DatabaseBusyError()

    with monkeypatch.context() as m:
        m.setattr(env.store.games, "append", busy)
        try:
            first = await s.deadlines.process_due()
        except DatabaseBusyError:
            first = []
    later = await s.deadlines.process_due()
    reminders = [n for n in first + later if n.kind == "reminder"]
    assert [present(n.state).id for n in reminders] == [late.id]
