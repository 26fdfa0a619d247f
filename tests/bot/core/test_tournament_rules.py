"""Tournaments against a troublemaker (bot/core/tournaments/service.py): a hidden
channel's tournament is not shown elsewhere, round deadlines decide only tables whose
player to move had a full turn, a Swiss withdrawal loses its remaining rounds and is
never champion."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.tournaments import TournamentError
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
