"""Chouette sessions in a channel: who may double, answer and report, each action stored and
replayed (a new service on the same store sees the same session), one session per channel."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.core import GameService
from bot.core.chouettes import LEDGER_KIND, Chouettes
from bot.core.model import ChallengeError, ServiceError
from bot.store import open_store
from bot.store.rows import dump_json
from engine import ScriptedDice, WinKind
from engine.chouette import ChouetteOptions
from tests.bot.core.helpers import FakeClock

BOX, CAPTAIN, CREW1, CREW2 = 11, 12, 13, 14
CHANNEL = 500


async def test_a_session_by_its_rules_and_after_a_restart(tmp_path):
    store = await open_store(tmp_path / "bg.sqlite3")
    clock = lambda: datetime(2026, 3, 2, tzinfo=UTC)  # noqa: E731
    chouettes = Chouettes(store, clock)
    await chouettes.start(1, CHANNEL, [BOX, CAPTAIN, CREW1, CREW2])
    with pytest.raises(ChallengeError):
        await chouettes.start(1, CHANNEL, [1, 2])  # one session per channel
    with pytest.raises(ServiceError):
        await chouettes.double(CHANNEL, 99)  # not seated
    await chouettes.double(CHANNEL, BOX)  # the box doubles the whole team
    with pytest.raises(ServiceError):
        await chouettes.answer(CHANNEL, CREW1, take=True, member=CREW2)  # only one's own cube
    await chouettes.answer(CHANNEL, CAPTAIN, take=True)
    await chouettes.answer(CHANNEL, CREW1, take=True)
    await chouettes.answer(CHANNEL, CREW2, take=False)
    with pytest.raises(ServiceError):
        await chouettes.result(CHANNEL, CAPTAIN, team_won=True, kind=WinKind.GAMMON)  # the winner may not report
    session = await chouettes.result(CHANNEL, BOX, team_won=True, kind=WinKind.GAMMON)
    assert session.state.totals() == {BOX: -7, CAPTAIN: 4, CREW1: 4, CREW2: -1}
    assert session.state.order == (CAPTAIN, CREW1, CREW2, BOX)

    again = Chouettes(store, clock)  # a restart: the session is read back and replayed
    session = await again.in_channel(CHANNEL)
    assert session.state.order == (CAPTAIN, CREW1, CREW2, BOX) and session.state.totals()[BOX] == -7
    await again.double(CHANNEL, CREW1)  # a crew double
    with pytest.raises(ServiceError):
        await again.answer(CHANNEL, CREW2, take=True)  # not CREW2's cube
    await again.answer(CHANNEL, CAPTAIN, take=False)  # the new box passes: pays CREW1 one point
    ended = await again.end(CHANNEL, CREW2)
    assert ended.ended and ended.state.ledger() == {
        (CAPTAIN, BOX): 4,
        (CREW1, BOX): 4,
        (BOX, CREW2): 1,
        (CREW1, CAPTAIN): 1,
    }
    assert sum(ended.state.totals().values()) == 0
    with pytest.raises(ServiceError):
        await again.in_channel(CHANNEL)
    await store.close()


# -- the games on the board ------------------------------------------------------------------

GUILD, THREAD = 7, 600


async def owed_ledgers(service) -> list[int]:
    """The running ledgers the outbox owes (each settled as read): the game numbers after which."""
    deliveries = service.deliveries
    numbers = []
    for delivery in await deliveries.owed(service.clock() + timedelta(seconds=1), limit=100):
        if delivery.kind == LEDGER_KIND:
            numbers.append(delivery.session.state.games_played)
        await deliveries.delivered(delivery.entries)
    return numbers


async def test_each_game_is_a_board_between_the_box_and_the_captain(db_url):
    """The board is an ordinary game in the thread, box at seat 0 against the captain, with no
    cube of its own; nobody rolls while a double waits; the captain's drop passes the checkers
    down the line; a game nobody is left in is conceded and the next one starts; a board's end
    is scored once, with its running ledger owed once."""
    clock = FakeClock()
    store = await open_store(db_url, clock=clock)
    service = GameService(store, dice=ScriptedDice([1, 3] + [6, 5, 4, 2] * 30), clock=clock)
    chouettes = Chouettes(store, clock, service)
    session = await chouettes.start(GUILD, THREAD, [BOX, CAPTAIN, CREW1, CREW2])
    outcome = await chouettes.ensure_board(session.id)
    assert outcome is not None and await chouettes.ensure_board(session.id) is None  # one board
    state = outcome.state
    assert [p.user_id for p in state.players] == [BOX, CAPTAIN] and state.channel_id == THREAD
    assert not state.options.rated and not state.game.settings.cube
    # the captain opened with 3-1 (seat 1): the box's turn to roll
    await service.play(state.id, CAPTAIN, "8/5 6/5")
    with pytest.raises(ServiceError, match="team doubles on its own turn"):
        await chouettes.double(THREAD, CREW1)
    await chouettes.double(THREAD, BOX)
    with pytest.raises(ServiceError, match="double waits"):
        await service.roll(state.id, BOX)
    await chouettes.answer(THREAD, CAPTAIN, take=False)  # the captain passes: the checkers pass to CREW1
    assert [p.user_id for p in (await service.lookups.get_game(state.id)).players] == [BOX, CREW1]
    await chouettes.answer(THREAD, CREW1, take=True)
    await chouettes.answer(THREAD, CREW2, take=False)
    rolled = await service.roll(state.id, BOX)  # answered: the box rolls
    assert rolled.state.game.dice is not None
    assert await owed_ledgers(service) == []

    # the board ends (the team's player resigns a gammon): scored at CREW1's cube of 2
    await service.resign(state.id, BOX, level=2)  # the box on roll offers; CREW1 accepts
    await service.accept_resignation(state.id, CREW1)
    session = await chouettes.in_channel(THREAD)
    assert session.state.totals() == {BOX: -2, CAPTAIN: -1, CREW1: 4, CREW2: -1}
    assert await owed_ledgers(service) == [1]
    second = session.board
    assert second is not None and second != state.id
    assert [p.user_id for p in (await service.lookups.get_game(second)).players] == [BOX, CREW1]
    assert await chouettes.catch_up() == 0 and await owed_ledgers(service) == []  # nothing twice

    # everyone passes the box's double: the board is conceded, the next game starts at once
    await service.play(second, CREW1, "8/5 6/5")  # each board's dice start the script again: 3-1
    await chouettes.double(THREAD, BOX)  # before its own roll
    for member in (CREW1, CREW2, CAPTAIN):
        await chouettes.answer(THREAD, member, take=False)
    assert (await service.store.games.get(second)).status == "finished"
    session = await chouettes.in_channel(THREAD)
    assert session.state.games_played == 2 and session.board not in (None, second)
    assert await owed_ledgers(service) == [2]
    await store.close()


async def test_a_crash_between_a_board_and_its_scoring_is_caught_up_once(db_url):
    """A board ended while the chouette did not hear of it (the process died): the scheduler's
    pass scores it, owes its ledger and starts the next board, once; a board started but not
    logged is adopted, not doubled."""
    clock = FakeClock()
    store = await open_store(db_url, clock=clock)
    service = GameService(store, dice=ScriptedDice([3, 1] + [6, 5, 4, 2] * 30), clock=clock)
    chouettes = Chouettes(store, clock, service)
    session = await chouettes.start(GUILD, THREAD, [BOX, CAPTAIN, CREW1])
    first = await chouettes.ensure_board(session.id)
    assert first is not None
    chouettes.close()  # deaf: as if the process died right after the board's end was stored
    await service.forfeit(first.state.id, BOX)
    assert (await chouettes.in_channel(THREAD)).state.games_played == 0

    again = Chouettes(store, clock, service)  # the restart
    assert await again.catch_up() == 1
    assert await again.catch_up() == 0
    session = await again.in_channel(THREAD)
    assert session.state.games_played == 1 and session.state.totals() == {BOX: -2, CAPTAIN: 1, CREW1: 1}
    assert await owed_ledgers(service) == [1]

    # the next board was started, and the process died before logging it: adopted
    board = session.board
    assert board is not None
    unlogged = replace(session.row, log=session.row.log[:-1], version=session.row.version - 1)
    await store.db.transact(
        lambda tx: tx.execute(
            "UPDATE chouettes SET log = ?, version = ? WHERE id = ?",
            (dump_json(list(unlogged.log)), unlogged.version, session.id),
        )
    )
    assert await again.catch_up() == 0
    session = await again.in_channel(THREAD)
    assert session.board == board and len(session.boards) == 2
    await store.close()


async def test_consultation_is_an_option(db_url):
    store = await open_store(db_url)
    clock = lambda: datetime(2026, 3, 2, tzinfo=UTC)  # noqa: E731
    chouettes = Chouettes(store, clock)
    await chouettes.start(1, CHANNEL, [BOX, CAPTAIN, CREW1, CREW2])
    await chouettes.suggest(CHANNEL, CREW1)
    for who in (BOX, CAPTAIN):
        with pytest.raises(ServiceError):
            await chouettes.suggest(CHANNEL, who)
    await chouettes.start(1, CHANNEL + 1, [BOX, CAPTAIN, CREW1], ChouetteOptions(consultation=False))
    with pytest.raises(ServiceError, match="without consultation"):
        await chouettes.suggest(CHANNEL + 1, CREW1)
    await store.close()
