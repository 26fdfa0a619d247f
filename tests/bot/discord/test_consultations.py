"""Consultation games through Discord: a team of three (the members of a role) plays the
computer by vote to the end of the game; a tie goes to the captain; a member outside
the team is refused privately; nobody outside the team reads its thread or its
ballots; a restart mid-vote loses nothing and posts nothing twice; the result goes
to the team's record, and the members' ratings are untouched."""

from __future__ import annotations

import discord
import pytest

pytest.importorskip("gnubg_nn")

from simcord import SetupError  # noqa: E402

from bot.core.consultations import decide  # noqa: E402
from bot.store.consultations import PROMPT_KIND, TALLY_KIND  # noqa: E402
from engine import ScriptedDice  # noqa: E402
from engine.position import Position  # noqa: E402
from tests.bot.conftest import ROLLS, all_components  # noqa: E402

TEAM_VOTE = "bgcv:"
START = Position.from_counts({6: 1, 5: 1, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5}).position_id()
"""The team (player 0, on roll, the cube in the middle) bears off its last three checkers;
the computer has not started: it resigns when it sees it."""


@pytest.fixture
def dice():
    return ScriptedDice([2, 1] + ROLLS)  # the team's roll after its cube vote: 2-1


@pytest.fixture
def team(world):
    w = world
    w.bot.table.computer.pause = 0
    crew = w.guild.create_role("Crew")
    for member in (w.alice, w.bob, w.carol):
        w.env.backend.add_member_role(w.guild.id, member.id, crew.id)
    return crew


def vote_button(message: discord.Message) -> str:
    (custom_id,) = [c.custom_id for c in all_components(message) if str(c.custom_id or "").startswith(TEAM_VOTE)]
    return custom_id


async def settle(w) -> None:
    club = w.bot.get_cog("ClubCog")
    for _ in range(3):
        await club.idle()
        await w.bot.table.computer.wait()
        await w.bot.dispatcher.drain()


async def ballot(w, member, board, answer) -> None:
    asked = await member.click(board, custom_id=vote_button(board))
    assert asked.ephemeral and "Only you see it" in asked.response.content, w.private(asked)
    voted = await member.select(asked.response, [answer])
    assert "Your vote:" in w.private(voted) and "votes" not in w.private(voted)  # no count, no hint


async def close_vote(w, clock) -> None:
    clock.advance(days=2)  # past the vote's deadline (half of the 3 days per move)
    await w.bot.scheduler.run_once()
    await settle(w)


def thread_texts(thread) -> list[str]:
    return [m.content for m in thread.history() if not m.flags.ephemeral]


async def test_a_team_plays_the_computer_by_vote_to_the_end(world, team, clock, make_bot):
    w = world
    dave = w.guild.add_member(w.env.create_user("dave"))  # not in the team
    started = await w.alice.slash(w.channel, "bgclub consult", role=team, level="beginner", position=START)
    assert not started.ephemeral, w.private(started)
    await settle(w)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.players[0].name == "Crew" and state.players[0].user_id == team.id
    assert not state.options.rated and state.options.teams[0].captain_id == w.alice.id
    (thread,) = w.channel.threads
    assert thread._channel.type == discord.ChannelType.private_thread.value

    # vote 1, the cube: the majority (two of three) keeps it in the middle
    board = w.board()
    assert "Crew" in board.content and "the team votes" in board.content and not board.mentions
    refused = await dave.click(board, custom_id=vote_button(board))
    assert refused.ephemeral and "Only the team's members vote" in w.private(refused)
    with pytest.raises(SetupError):
        thread.history(viewer=dave)  # the team's thread is the team's
    await ballot(w, w.alice, board, "no double")
    await ballot(w, w.bob, board, "no double")
    await ballot(w, w.carol, board, "double")
    await close_vote(w, clock)
    tally = thread_texts(thread)[-1]
    assert "3 members voted" in tally and "No double · 2 votes ← played" in tally

    # vote 2, the play (2-1 rolled at once): two ballots stand across a restart mid-vote
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.game.dice is not None and (state.game.dice.high, state.game.dice.low) == (2, 1)
    plays = state.legal_play_texts()
    assert len(plays) > 1
    board = w.board()
    await ballot(w, w.bob, board, plays[0])
    await ballot(w, w.carol, board, plays[0])
    await ballot(w, w.alice, board, plays[1])
    prompts = [t for t in thread_texts(thread) if "decides" in t]
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())
    w.bot.table.computer.pause = 0
    await settle(w)
    assert [t for t in thread_texts(thread) if "decides" in t] == prompts  # no prompt posted twice
    await close_vote(w, clock)
    assert (
        f"`{plays[0]}` · 2 votes ← played" in thread_texts(thread)[-2 if "decides" in thread_texts(thread)[-1] else -1]
    )

    # the computer, hopeless, offers to resign; vote 3 is a tie the captain breaks
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.game.phase.value == "resignation", state.game.phase
    board = w.board()
    await ballot(w, w.alice, board, "accept")
    await ballot(w, w.bob, board, "reject")
    await close_vote(w, clock)
    tally = thread_texts(thread)[-1]
    assert "A tie: the captain's vote decided." in tally and "Accept the resignation · 1 vote ← played" in tally
    over = await w.service.archive.summary_of(state.id) if hasattr(w.service.archive, "summary_of") else None
    assert over is None or over.winner_seat == 0

    # every message posted once; the outbox is empty; nothing of the votes in the public channel
    assert await w.service.store.outbox.owed() == []
    texts = thread_texts(thread)
    assert len(texts) == len(set(texts))
    for message in w.channel.history(viewer=dave):
        assert "Team vote" not in message.content and "Your vote" not in message.content
    for message in w.public():
        assert "Team vote" not in message.content

    # the team's record; no member rated
    record = await w.carol.slash(w.channel, "bgclub team", role=team)
    assert "1 won, 0 lost" in record.response.content
    rows = await w.service.store.db.fetchall(
        "SELECT user_id FROM ratings WHERE user_id IN (?, ?, ?, ?)", (w.alice.id, w.bob.id, w.carol.id, team.id)
    )
    assert rows == []
    owed_kinds = await w.service.store.db.fetchall(
        "SELECT kind FROM outbox WHERE kind IN (?, ?)", (PROMPT_KIND, TALLY_KIND)
    )
    assert len(owed_kinds) in (0, 6)  # delivered entries are kept or purged, never left owed


def test_the_majority_plays_and_a_tie_goes_to_the_captain():
    answers = ("no double", "double")
    assert decide(answers, {1: "double", 2: "double", 3: "no double"}, 3) == ("double", False)
    assert decide(answers, {1: "double", 3: "no double"}, 3) == ("no double", True)
    assert decide(answers, {1: "double", 2: "no double"}, 3) == ("no double", False)  # captain silent: the order
    assert decide(answers, {}, 3) == (None, False)
