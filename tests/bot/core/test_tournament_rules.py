"""Tournaments against a troublemaker (bot/core/tournaments/service.py): a hidden
channel's tournament is not shown elsewhere, round deadlines decide only tables whose
player to move had a full turn, a Swiss withdrawal loses its remaining rounds and is
never champion."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.core.tournaments import TournamentError
from tests.bot.core.helpers import random_step
from tests.bot.core.test_tournaments import CHANNEL, GUILD, World, open_world, people

HIDDEN = 7777


@pytest.fixture
async def world(db_url: str) -> AsyncIterator[World]:
    w = await open_world(db_url)
    yield w
    await w.service.store.close()


def only(*channels: int):  # noqa: ANN201
    return lambda channel_id, players=(): channel_id in channels


async def test_a_hidden_channels_tournament_is_not_shown_where_it_is_not_seen(world: World) -> None:
    w = world
    shown = await w.tournament(2, match_length=1)
    await w.t.start(shown.id, people(1, start=1)[0], moderator=True)
    await w.play_round(shown.id, lambda table: table.a.user_id)
    made = await w.t.create(GUILD, HIDDEN, people(1, start=1)[0], "Staff Cup", shown.options)
    for player in people(2):
        await w.t.join(made.id, player)
    await w.t.start(made.id, people(1, start=1)[0], moderator=True)
    await w.play_round(made.id, lambda table: table.b.user_id)

    outside = only(CHANNEL)
    assert [v.id for v in await w.t.in_guild(GUILD, everything=True, sees=outside)] == [shown.id]
    assert {v.id for v in await w.t.in_guild(GUILD, everything=True)} == {shown.id, made.id}
    with pytest.raises(TournamentError, match=f"no tournament #{made.id}"):
        await w.t.current(GUILD, made.id, sees=outside)
    assert (await w.t.current(GUILD, made.id, sees=only(CHANNEL, HIDDEN))).id == made.id
    champion_b = (await w.t.get(made.id)).champion.user_id
    record = await w.t.record(GUILD, champion_b, sees=outside)
    assert record.best_name != "Staff Cup"
    assert (await w.t.record(GUILD, champion_b)).best_name == "Staff Cup"


# -- round deadlines: no sniping ------------------------------------------------------------------


async def test_the_round_deadline_does_not_decide_a_turn_that_had_no_full_time(world: World) -> None:
    """The player to move plays a minute before the round's deadline: the opponent keeps
    their own turn deadline (a full turn), not 60 seconds to lose a 7-point match."""
    w = world
    made = await w.tournament(2, match_length=7, round_days=7, move_days=2)
    await w.t.start(made.id, people(1, start=1)[0], moderator=True)
    await w.deliver()
    (table,) = await w.open_tables(made.id)
    deadline = (await w.t.get(made.id)).round_deadline
    assert deadline is not None
    state = await w.service.lookups.get_game(table.game_id)
    rng = random.Random(7)
    while True:
        left = deadline - w.clock.now
        step = min(left - timedelta(minutes=1), timedelta(days=1))
        if step <= timedelta(0):
            break
        w.clock.advance(seconds=step.total_seconds())
        mover = state.to_act()
        while state.is_active and state.to_act() == mover:
            outcome = await random_step(w.service, state, rng)
            w.service.deliveries.release(outcome.owed)
            state = outcome.state
        assert state.is_active
    victim = state.to_act()
    w.clock.now = deadline + timedelta(seconds=1)
    await w.service.deadlines.process_due(w.clock.now)
    await w.t.run_due(w.clock.now)
    assert (await w.service.lookups.get_game(table.game_id)).is_active, "the table goes on under its move deadline"
    assert (await w.t.get(made.id)).status == "running"
    # the victim's own turn deadline still decides, by the ordinary rule
    w.clock.advance(days=2, seconds=1)
    await w.service.deadlines.process_due(w.clock.now)
    await w.t.run_due(w.clock.now)
    view = await w.t.get(made.id)
    assert victim is not None
    assert view.status == "finished" and view.champion is not None and view.champion.user_id != victim.user_id


# -- Swiss withdrawals ----------------------------------------------------------------------------


async def test_a_swiss_withdrawal_loses_the_remaining_rounds_and_is_never_champion(world: World) -> None:
    w = world
    made = await w.tournament(4, fmt="swiss", swiss_rounds=3, match_length=1)
    await w.t.start(made.id, people(1, start=1)[0], moderator=True)
    leader = people(1)[0].user_id  # P1 wins every table it sits at
    first = lambda table: leader if leader in (table.a.user_id, table.b.user_id) else table.a.user_id  # noqa: E731
    view = await w.play_round(made.id, first)
    # round 2: the leader wins their table, then withdraws while the other table is going on
    await w.deliver()
    for table in await w.open_tables(made.id):
        if leader in (table.a.user_id, table.b.user_id):
            loser = table.b if table.a.user_id == leader else table.a
            await w.service.forfeit(table.game_id, loser.user_id)
    await w.t.withdraw(made.id, people(1)[0])
    for _ in range(3):
        view = await w.t.get(made.id)
        if view.status == "finished":
            break
        view = await w.play_round(made.id, lambda table: table.a.user_id)
    assert view.status == "finished"
    assert view.champion is not None and view.champion.user_id != leader
    line = next(s for s in view.standings if s.player.user_id == leader)
    assert line.standing.withdrawn and line.standing.losses >= 1  # round 3, lost by withdrawal
    assert line.standing.place > max(s.standing.place for s in view.standings if not s.standing.withdrawn)
    assert [t for t in view.round_tables(3) if t.a.user_id == leader and t.outcome == "void"]


async def test_a_withdrawal_racing_the_rounds_pairing_leaves_no_table_open(world: World) -> None:
    """The last result of a round and a withdrawal at once: the player is either not paired,
    or their new table is forfeited; never a match left open for someone who left."""
    import asyncio

    w = world
    made = await w.tournament(4, fmt="swiss", swiss_rounds=2, match_length=1)
    await w.t.start(made.id, people(1, start=1)[0], moderator=True)
    await w.deliver()
    first, last = await w.open_tables(made.id)
    await w.service.forfeit(first.game_id, first.b.user_id)
    quitter = first.a
    store = w.t.store.tournaments
    advance = store.advance
    pairing = asyncio.Event()

    async def slow_advance(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        pairing.set()  # the next round is paired (the quitter still in): written a moment later
        await asyncio.sleep(0.1)
        return await advance(*args, **kwargs)

    store.advance = slow_advance
    result = asyncio.create_task(w.service.forfeit(last.game_id, last.b.user_id))
    await pairing.wait()
    await w.t.withdraw(made.id, quitter)
    await result
    await w.deliver()
    view = await w.t.get(made.id)
    assert view.round == 2
    theirs = [t for t in view.round_tables(2) if quitter.user_id in (t.a.user_id, t.b and t.b.user_id)]
    assert theirs and all(t.decided and t.winner != quitter.user_id for t in theirs)


async def test_a_match_never_opened_is_decided_by_seed_with_a_word_why(world: World) -> None:
    w = world
    made = await w.tournament(2, round_days=1, move_days=1)
    await w.t.start(made.id, people(1, start=1)[0], moderator=True)  # its thread could never be made
    w.clock.advance(days=1, seconds=1)
    await w.t.run_due(w.clock.now)
    await w.deliver()
    view = await w.t.get(made.id)
    assert view.status == "finished" and view.tables[0].outcome == "forfeit"
    assert any("never opened" in n and "the better seed" in n for n in w.notices), w.notices
