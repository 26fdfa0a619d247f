"""Consultation games through Discord: a team of three (the members of a role) plays the
computer by vote to the end of the game; a tie goes to the captain; a member outside
the team is refused privately; nobody outside the team reads its thread or its
ballots; a restart mid-vote loses nothing and posts nothing twice; the result goes
to the team's record, and the members' ratings are untouched."""

from __future__ import annotations

import asyncio

import discord
import pytest

pytest.importorskip("gnubg_nn")

from simcord import SetupError  # noqa: E402

from bot.core.consultations import decide, question_of  # noqa: E402
from bot.discord.kibitzing import answer_words  # noqa: E402
from bot.store.consultations import PROMPT_KIND, TALLY_KIND  # noqa: E402
from engine import ScriptedDice  # noqa: E402
from engine.position import Position  # noqa: E402
from tests.bot.conftest import ROLLS, all_components  # noqa: E402

TEAM_VOTE = "bgcv:"
START = Position.from_counts({6: 1, 5: 1, 4: 1}, {6: 5, 5: 5, 4: 5}).position_id()
"""A race: the team (player 0, on roll, the cube in the middle) bears off its last three
checkers; the computer has not started: it passes the team's double."""


@pytest.fixture
def dice():
    return ScriptedDice([2, 1] + ROLLS)  # the team's roll after its cube vote: 2-1


@pytest.fixture
def team(world):
    w = world
    # conftest's 30 s makes SimCord wait (in real time) for the bot's 60 s beats once the virtual
    # clock nears them: every step then took 30 s; the analysis at the end is not waited for here
    w.env.settle_timeout = 10
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
    for _ in range(10):  # the team's roll wakes the computer, whose board wakes the team's next vote...
        await club.idle()
        await w.bot.table.computer.wait()
        await w.bot.dispatcher.drain()
        if not club._reveals and not w.bot.table.computer.busy:
            return


async def ballot(w, member, board, answer) -> None:
    await w.env.advance_time(5)  # no click within the members' cooldown
    asked = await member.click(board, custom_id=vote_button(board))
    assert asked.ephemeral and "Only you see it" in asked.response.content, w.private(asked)
    voted = await member.select(asked.response, [answer])
    assert "Your vote:" in w.private(voted) and "votes" not in w.private(voted)  # no count, no hint


async def close_vote(w, clock) -> None:
    clock.advance(days=2)  # past the vote's deadline (half of the 3 days per move)
    await w.env.advance_time(6)  # and past the clicks' cooldown
    await w.bot.scheduler.run_once()
    await settle(w)


def thread_texts(thread) -> list[str]:
    return [m.content for m in thread.history() if not m.flags.ephemeral]


def last_tally(thread) -> str:
    return [t for t in thread_texts(thread) if "voted" in t.split("\n", 1)[0]][-1]


async def test_a_team_plays_the_computer_by_vote_to_the_end(world, team, clock, make_bot):
    w = world
    dave = w.mod  # not in the team (and no right to read private threads)
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
    tally = last_tally(thread)
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

    # the computer has played; vote 3 (the cube, or the computer's offer to resign) is a tie the captain breaks
    state = await w.service.lookups.game_in_channel(w.channel.id)
    question = question_of(state)
    assert question is not None and question.kind in ("cube", "resignation"), state.game.phase
    captains, other = question.answers[1], question.answers[0]  # double, or reject
    board = w.board()
    await ballot(w, w.alice, board, captains)
    await ballot(w, w.bob, board, other)
    await close_vote(w, clock)
    tally = last_tally(thread)
    assert "A tie: the captain's vote decided." in tally and "· 1 vote ← played" in tally
    assert tally.index("← played") > tally.index(answer_words(captains))

    # on to the end, every decision by vote (all three agree on the first answer)
    for _ in range(4):
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None or not state.is_active:
            break
        question = question_of(state)
        if question is None:  # the computer's turn still under way
            await settle(w)
            continue
        board = w.board()
        for member in (w.alice, w.bob, w.carol):
            await ballot(w, member, board, question.answers[0])
        await close_vote(w, clock)
    game = await w.service.lookups.get_game(1)
    assert game.status == "finished" and game.result is not None
    assert (await w.service.store.games.get(1)).winner == team.id

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


async def test_a_slow_store_behind_the_vote_button_is_acknowledged_first(world, team, monkeypatch):
    """The ballot's picker waits on store reads and on Discord (the vote, the team's thread, the
    member's ballot so far): on a busy store the click is acknowledged first, like any slow call,
    and the picker follows privately (unacknowledged, the kibitzers' twin of this ran past
    Discord's 3 seconds under load)."""
    w = world
    await w.alice.slash(w.channel, "bgclub consult", role=team, level="beginner", position=START)
    await settle(w)
    club = w.bot.get_cog("ClubCog")
    read = club.consultations.ballot_of

    async def slow(*args):
        await asyncio.sleep(0.3)
        return await read(*args)

    monkeypatch.setattr(club.consultations, "ballot_of", slow)
    board = w.board()
    asked = await w.bob.click(board, custom_id=vote_button(board))
    assert asked.deferred  # the board untouched: its update deferred
    (menu,) = asked.followups
    assert menu.ephemeral and "Only you see it" in menu.content
    voted = await w.bob.select(menu, ["no double"])
    assert voted.deferred and "Your vote:" in w.private(voted)
