"""Chouette sessions in a channel: who may double, answer and report, each action stored and
replayed (a new service on the same store sees the same session), one session per channel."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.chouettes import Chouettes
from bot.core.model import ChallengeError, ServiceError
from bot.store import open_store
from engine import WinKind

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
