"""A team vote's reminder in the store: due halfway, claimed once (a second claim, a
restart's, owes nothing), none once a member has voted, and nothing to post once the
vote has closed. On both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.consultations import Consultations
from bot.store.consultations import REMINDER_KIND
from engine import SeededDice
from tests.bot.core.helpers import Env, open_env, start_game


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, dice=SeededDice(5))
    yield e
    await e.store.close()


async def test_a_vote_is_reminded_once_and_only_if_nobody_voted(env: Env) -> None:
    state = await start_game(env.service)
    consultations = Consultations(env.store, env.clock, env.service, env.service.lookups.get_game)
    votes = consultations.votes
    now = env.clock().timestamp()
    for version in (1, 2):
        opened = await votes.open(
            game_id=state.id,
            version=version,
            seat=0,
            guild_id=state.guild_id,
            thread_id=6000,
            kind="cube",
            answers=("no double", "double"),
            deadline=now + 100,
            remind_at=now + 50,
        )
        assert opened
    assert await votes.ballot(state.id, 2, 1001, "double")
    assert await votes.reminders_due(now + 49) == []
    assert await votes.next_reminder() == now + 50
    due = await votes.reminders_due(now + 50)
    assert [v.version for v in due] == [1, 2]

    assert [await votes.claim_reminder(v, {"role": 5000}) for v in due] == [True, False]  # version 2 has a ballot
    assert [await votes.claim_reminder(v, {"role": 5000}) for v in due] == [False, False]  # claimed once
    assert await votes.reminders_due(now + 99) == [] and await votes.next_reminder() is None
    owed = [e for e in await env.store.outbox.owed() if e.kind == REMINDER_KIND]
    assert [(e.channel_id, e.payload) for e in owed] == [(6000, {"game": state.id, "version": 1, "role": 5000})]

    delivery = await consultations._word(owed[0])
    assert delivery is not None and delivery.data["kind_of_vote"] == "cube" and delivery.data["role"] == 5000
    (vote,) = [v for v in due if v.version == 1]
    assert await votes.close(vote, None, {})
    assert await consultations._word(owed[0]) is None  # closed meanwhile: nothing left to remind
