"""Tournaments against a troublemaker in Discord (SimCord): made only where match threads
can be; a round whose matches cannot open is told to the channel and the organiser;
each match opening takes its turn at the dispatcher's pace."""

from __future__ import annotations

import discord
import pytest
from simcord.builders import ChannelHandle

from bot.discord.dispatcher import NotDelivered
from tests.bot.discord.test_hostile import pinged


@pytest.fixture
def world(world):
    world.bot.table.notes.available = lambda: False
    events = world.guild.create_role("Events", permissions=discord.Permissions(manage_events=True))
    world.olga = world.guild.add_member(world.env.create_user("olga"), roles=[events])
    return world


async def started(w, players):  # noqa: ANN001, ANN201
    made = await w.olga.slash(w.channel, "bgtourney create", name="Spring Cup")
    assert not made.ephemeral, w.private(made)
    announcement = w.channel.last_message
    for member in players:
        await member.click(announcement, label="Join")
    begun = await w.olga.slash(w.channel, "bgtourney start")
    assert "has started" in w.private(begun), w.private(begun)


async def test_no_tournament_in_a_thread(world):
    w = world
    backend = w.env.backend
    thread = ChannelHandle(w.env, w.guild, backend.create_thread(w.channel.id, "chat", w.olga.id))
    await w.env.settle()
    refused = await w.olga.slash(thread, "bgtourney create", name="Thread Cup")
    assert refused.ephemeral and "not in a thread" in w.private(refused), w.private(refused)
    assert await w.service.tournaments.in_guild(w.guild.id, everything=True) == []


async def test_each_match_opening_takes_a_turn_at_the_pace(world, monkeypatch):
    w = world
    turns = []

    async def paced():  # noqa: ANN202
        turns.append(1)

    monkeypatch.setattr(w.bot.dispatcher, "paced", paced, raising=False)
    await started(w, (w.alice, w.bob, w.carol, w.mod))
    await w.bot.dispatcher.idle()
    assert len(w.channel.threads) == 2 and len(turns) == 1  # the second match waited its turn


async def test_matches_that_cannot_open_are_told(world, monkeypatch):
    w = world

    async def no_thread(match):  # noqa: ANN001, ANN202
        raise NotDelivered("can't hold a match thread")

    monkeypatch.setattr(w.bot.tourneys, "_make_thread", no_thread)
    await started(w, (w.alice, w.bob))
    await w.bot.dispatcher.idle()
    told = [m for m in w.public() if "could not open" in m.content]
    assert len(told) == 1 and pinged(w, told[0]) == [w.olga.id]
    assert "better seed at the round's deadline" in told[0].content


async def test_a_round_notice_shows_its_deadline_as_a_timestamp(world):
    w = world
    await started(w, (w.alice, w.bob))
    await w.bot.dispatcher.idle()
    (notice,) = [m for m in w.public() if "has begun" in m.content]
    view = (await w.service.tournaments.in_guild(w.guild.id))[0]
    assert f"The round ends <t:{int(view.round_deadline.timestamp())}:f>: a match" in notice.content, notice.content
    assert "\\<t:" not in notice.content
