"""A server's settings: a change to one key never loses a change to another made meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from tests.bot.core.helpers import GUILD, Env, open_env


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url)
    yield e
    await e.store.close()


async def test_setting_the_vacation_allowance_keeps_what_was_set_meanwhile(env: Env) -> None:
    """The allowance used to be read, then written whole in a second transaction: a
    ``/bglearn puzzle daily:on`` or ``/bgtourney role`` committed in between was lost."""
    tournaments = env.service.tournaments
    for round_ in range(5):
        await asyncio.gather(
            env.service.members.set_allowance(GUILD, 10 + round_),
            env.store.servers.update(GUILD, {"puzzle_channel": 900 + round_}),
            tournaments.set_organiser_role(GUILD, 700 + round_),
        )
        assert await env.store.servers.get(GUILD) == {
            "vacation_days": 10 + round_,
            "puzzle_channel": 900 + round_,
            "tournament_role": 700 + round_,
        }
    assert await env.service.members.allowance(GUILD) == 14
    assert await tournaments.organiser_role(GUILD) == 704
    await tournaments.set_organiser_role(GUILD, None)
    assert await env.store.servers.get(GUILD) == {"vacation_days": 14, "puzzle_channel": 904}
