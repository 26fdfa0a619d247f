"""Consultation games against people: a team challenges a member (who accepts and plays
normally, the team by vote) or another team (any of whose members accepts and captains
it; each team votes in its own private thread, which the other cannot read); the result
goes to the team's record and nobody's rating moves. And a vote nobody answers is
reminded once in the team's thread, halfway to its close, never twice across a restart."""

from __future__ import annotations

import discord
import pytest

pytest.importorskip("gnubg_nn")

from bot.core.consultations import question_of  # noqa: E402
from bot.core.model import ChallengeError, PlayerRef  # noqa: E402
from engine import ScriptedDice  # noqa: E402
from engine.position import Position  # noqa: E402
from tests.bot.conftest import ROLLS, all_components  # noqa: E402
from tests.bot.discord.test_consultations import TEAM_VOTE, ballot, thread_texts  # noqa: E402

START = Position.from_counts({6: 1, 1: 1}, {6: 5, 5: 5, 4: 5}).position_id()
"""A race near its end: the team (player 0, on roll) has two checkers left; the other side
has not started bearing off."""


@pytest.fixture
def dice():
    return ScriptedDice([2, 1] + ROLLS)  # the team's first roll: 2-1


@pytest.fixture
def crew(world):
    w = world
    w.env.settle_timeout = 10
    w.bot.table.computer.pause = 0
    crew = w.guild.create_role("Crew", mentionable=True)  # its members let anyone mention it
    for member in (w.alice, w.bob):
        w.env.backend.add_member_role(w.guild.id, member.id, crew.id)
    return crew


async def settle(w) -> None:
    """Until the votes, boards and team messages owed are out. The dispatcher's pace is
    counted on the loop's clock, which SimCord makes virtual inside the bot's work and
    not here: its bucket starts afresh on each side of a drain from the test."""
    club = w.bot.get_cog("ClubCog")
    for _ in range(10):
        await club.idle()
        await w.bot.table.computer.wait()
        w.bot.dispatcher._bucket = None
        await w.bot.dispatcher.drain()
        w.bot.dispatcher._bucket = None
        if not club._reveals and not w.bot.table.computer.busy:
            return


async def close_vote(w, clock) -> None:
    clock.advance(days=2)  # past the vote's deadline (half of the 3 days per move)
    await w.env.advance_time(6)  # and past the clicks' cooldown
    await w.bot.scheduler.run_once()
    await settle(w)


def stored_message(w, message):
    """SimCord's record of a message: whom it pinged."""
    return w.env.backend.messages[message.channel.id][message.id]


def buttons(message: discord.Message) -> dict[str, str]:
    return {c.label: c.custom_id for c in all_components(message) if getattr(c, "label", None)}


async def play_the_team_turns(w, clock, voters) -> None:
    """Every decision the team waits for, by vote (all agree on the first answer), until the
    other side is to act or the game ends."""
    for _ in range(6):
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None or not state.is_active:
            return
        question = question_of(state)
        if question is None:
            return
        board = w.board()
        for member in voters:
            await ballot(w, member, board, question.answers[0])
        await close_vote(w, clock)


async def test_a_team_of_two_plays_a_member_to_the_end(world, crew, clock):
    w = world
    # a member of the team can't be its opponent; the level is the computer's
    refused = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.bob, position=START)
    assert refused.ephemeral and "is in the team" in w.private(refused)
    refused = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.carol, level="expert")
    assert refused.ephemeral and "The level is the computer's" in w.private(refused)

    await w.env.advance_time(31)  # past the challenge cooldown
    asked = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.carol, position=START)
    assert not asked.ephemeral, w.private(asked)
    challenge = w.public()[-1]
    assert f"<@{w.carol.id}>" in challenge.content and "unrated" in challenge.content
    stored = stored_message(w, challenge)
    assert stored.ping_user_ids == [w.carol.id] and not stored.ping_role_ids  # only carol is pinged
    assert not w.channel.threads  # no thread before the challenge is accepted

    # the team's members can't accept for carol; the team's captain may withdraw, nobody else
    wrong = await w.bob.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert wrong.ephemeral and "Only carol" in w.private(wrong)
    accepted = await w.carol.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert accepted.followups, w.private(accepted)
    await settle(w)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert [p.user_id for p in state.players] == [crew.id, w.carol.id]
    assert not state.options.rated and state.options.teams[0].captain_id == w.alice.id
    (thread,) = w.channel.threads
    assert thread._channel.type == discord.ChannelType.private_thread.value
    assert state.options.teams[0].thread_id == thread.id

    # carol can't vote for the team she plays, not even once she has its role
    board = w.board()
    vote_id = [c for c in w.custom_ids(board) if c.startswith(TEAM_VOTE)][0]
    refused = await w.carol.click(board, custom_id=vote_id)
    assert refused.ephemeral and "Only the team's members vote" in w.private(refused)
    w.env.backend.add_member_role(w.guild.id, w.carol.id, crew.id)
    await w.env.advance_time(5)
    refused = await w.carol.click(board, custom_id=vote_id)
    assert refused.ephemeral and "both sides" in w.private(refused)
    w.env.backend.remove_member_role(w.guild.id, w.carol.id, crew.id)

    # the team (no double, then 2-1) and carol by her own commands, to the end
    for _ in range(6):
        await play_the_team_turns(w, clock, (w.alice, w.bob))
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None or not state.is_active:
            break
        assert state.to_act().user_id == w.carol.id
        await w.env.advance_time(5)
        if state.game.dice is None:
            rolled = await w.carol.slash(w.channel, "bg roll")
            assert not rolled.ephemeral, w.private(rolled)
            state = await w.service.lookups.game_in_channel(w.channel.id)
        plays = state.legal_play_texts()
        if plays:
            moved = await w.carol.slash(w.channel, "bg move", play=plays[0])
            assert not moved.ephemeral, w.private(moved)
        await settle(w)
    game = await w.service.store.games.get(1)
    assert game.status == "finished" and game.winner == crew.id
    with pytest.raises(ChallengeError, match="played again with /bgclub consult"):  # not a challenge nobody answers
        await w.service.challenges.rematch(await w.service.archive.look_up(1), PlayerRef(w.carol.id, "carol"))

    await w.env.advance_time(6)
    record = await w.mod.slash(w.channel, "bgclub team", role=crew)
    assert "1 won, 0 lost" in record.response.content
    rows = await w.service.store.db.fetchall(
        "SELECT user_id FROM ratings WHERE user_id IN (?, ?, ?, ?)", (w.alice.id, w.bob.id, w.carol.id, crew.id)
    )
    assert rows == []
    assert await w.service.store.outbox.owed() == []
    texts = thread_texts(thread)
    assert len(texts) == len(set(texts)) and any("voted" in t for t in texts)


async def test_a_vote_nobody_answers_is_reminded_once_in_the_team_thread(world, crew, clock, make_bot):
    w = world
    asked = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.carol, position=START)
    challenge = w.public()[-1]
    assert not asked.ephemeral, w.private(asked)
    await w.env.restart_bot(make_bot())  # the challenge's buttons answer after a restart
    w.bot.table.computer.pause = 0
    accepted = await w.carol.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert accepted.followups, w.private(accepted)
    await settle(w)
    (thread,) = w.channel.threads
    first = question_of(await w.service.lookups.game_in_channel(w.channel.id))
    assert first is not None and first.kind == "cube"

    def reminders() -> list[discord.Message]:
        return [m for m in w.public(thread) if "nobody has voted yet" in m.content]

    clock.advance(hours=17)  # the vote closes in 36 hours: not halfway yet
    await w.bot.scheduler.run_once()
    await settle(w)
    assert reminders() == []
    clock.advance(hours=2)
    await w.bot.scheduler.run_once()
    await settle(w)
    (reminder,) = reminders()
    assert "closes" in reminder.content and f"<@&{crew.id}>" in reminder.content
    stored = stored_message(w, reminder)
    assert stored.ping_role_ids == [crew.id] and not stored.ping_user_ids  # the team's role, nobody else
    assert any(str(c.custom_id).startswith(TEAM_VOTE) for c in all_components(reminder))
    # nothing in the public channel: the game's own reminder is not sent to a team
    assert not [m for m in w.public() if "⏰" in m.content or "nobody has voted" in m.content]

    # once: not again on the next pass, nor after a restart
    await w.env.restart_bot(make_bot())
    w.bot.table.computer.pause = 0
    clock.advance(hours=1)
    await w.bot.scheduler.run_once()
    await settle(w)
    assert len(reminders()) == 1
    assert await w.service.store.outbox.owed() == []

    # the game's own reminder of the team's turn (between its reminder time and its timeout) goes nowhere
    row = await w.service.store.db.fetchone("SELECT reminder_at, turn_deadline FROM games WHERE id = 1")
    clock.advance(seconds=(row["reminder_at"] + row["turn_deadline"]) / 2 - clock().timestamp())
    await w.bot.scheduler.run_once()
    await settle(w)
    assert not [m for m in w.public() if "⏰" in m.content] and len(reminders()) == 1

    # a vote answered before halfway is not reminded (the first ballot after the deadline closes the cube's)
    board = w.board()
    await ballot(w, w.bob, board, "no double")
    await settle(w)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    question = question_of(state)
    assert question is not None and question.kind == "play"
    await ballot(w, w.bob, w.board(), question.answers[0])
    clock.advance(hours=20)
    rows = await w.service.store.db.fetchall("SELECT id, version, reminder_at, reminder_sent, turn_deadline FROM games")
    print("GAMES", [tuple(r) for r in rows], clock().timestamp(), flush=True)
    print("NOTICES", await w.bot.scheduler.run_once(), flush=True)
    rows = await w.service.store.db.fetchall("SELECT kind, payload FROM outbox")
    print("OUTBOX", [tuple(r) for r in rows], flush=True)
    await settle(w)
    assert len(reminders()) == 1


async def test_two_teams_play_each_in_its_own_private_thread(world, crew, clock):
    w = world
    from simcord import SetupError

    rivals = w.guild.create_role("Rivals")
    dave = w.guild.add_member(w.env.create_user("dave"))  # in both teams: votes for neither
    for member in (w.carol, w.mod, dave):
        w.env.backend.add_member_role(w.guild.id, member.id, rivals.id)
    w.env.backend.add_member_role(w.guild.id, dave.id, crew.id)
    seen: dict[int, list[str]] = {m.id: [] for m in (w.alice, w.bob, w.carol, w.mod)}

    def keep(member, result) -> None:
        seen[member.id].append(w.private(result))

    asked = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent_role=rivals, position=START)
    assert not asked.ephemeral, w.private(asked)
    challenge = w.public()[-1]
    assert f"<@&{rivals.id}>" in challenge.content
    stored = stored_message(w, challenge)
    assert not stored.ping_role_ids and not stored.ping_user_ids  # Rivals can't be mentioned by anyone: no ping

    refused = await w.bob.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert refused.ephemeral and "Only the members of Rivals" in w.private(refused)
    refused = await dave.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert refused.ephemeral and "the challenging team" in w.private(refused)
    accepted = await w.carol.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert accepted.followups, w.private(accepted)
    await settle(w)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    ours, theirs = state.options.teams
    assert [p.user_id for p in state.players] == [crew.id, rivals.id] and not state.options.rated
    assert (ours.captain_id, theirs.captain_id) == (w.alice.id, w.carol.id)
    threads = {t.id: t for t in w.channel.threads}
    assert set(threads) == {ours.thread_id, theirs.thread_id} and ours.thread_id != theirs.thread_id
    crew_thread, rival_thread = threads[ours.thread_id], threads[theirs.thread_id]
    voters = {crew.id: (w.alice, w.bob), rivals.id: (w.carol, w.mod)}

    dave_tried = False
    for _ in range(12):
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None or not state.is_active:
            break
        question = question_of(state)
        if question is None:
            await settle(w)
            continue
        board = w.board()
        if not dave_tried:  # in both teams: refused, whichever side is to act
            await w.env.advance_time(5)
            refused = await dave.click(board, custom_id=[c for c in w.custom_ids(board) if c.startswith(TEAM_VOTE)][0])
            assert refused.ephemeral and "both sides" in w.private(refused)
            dave_tried = True
        for member in voters[question.team.team_id]:
            await w.env.advance_time(5)
            clicked = await member.click(
                board, custom_id=[c for c in w.custom_ids(board) if c.startswith(TEAM_VOTE)][0]
            )
            keep(member, clicked)
            voted = await member.select(clicked.response, [question.answers[0]])
            keep(member, voted)
            assert "Your vote:" in w.private(voted)
        await close_vote(w, clock)
    game = await w.service.store.games.get(1)
    assert game.status == "finished" and game.winner in (crew.id, rivals.id)

    # each team's thread holds its own votes only, and the other team can't read it
    crew_texts, rival_texts = thread_texts(crew_thread), thread_texts(rival_thread)
    assert any("**Crew** decides" in t for t in crew_texts) and any("**Rivals** decides" in t for t in rival_texts)
    assert not any("Rivals" in t for t in crew_texts) and not any("Crew" in t for t in rival_texts)
    for member in (w.carol, w.mod):
        with pytest.raises(SetupError):
            crew_thread.history(viewer=member)
    for member in (w.alice, w.bob):
        with pytest.raises(SetupError):
            rival_thread.history(viewer=member)
    # every private answer a member had was about their own team's vote
    for member in (w.alice, w.bob, w.carol, w.mod):
        assert seen[member.id] and all("Your vote" in t or "Only you see it" in t for t in seen[member.id])
    for message in w.public():
        assert "Team vote" not in message.content

    readers = [w.guild.add_member(w.env.create_user(name)) for name in ("erin", "frank")]  # no cooldown running
    won = (await readers[0].slash(w.channel, "bgclub team", role=crew)).response.content
    lost = (await readers[1].slash(w.channel, "bgclub team", role=rivals)).response.content
    crew_won = game.winner == crew.id
    assert ("1 won, 0 lost" if crew_won else "0 won, 1 lost") in won
    assert ("0 won, 1 lost" if crew_won else "1 won, 0 lost") in lost


async def test_only_the_captain_withdraws_and_an_expired_challenge_leaves_no_thread(world, crew, clock):
    w = world
    await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.carol)
    first = w.public()[-1]
    refused = await w.bob.click(first, custom_id=buttons(first)["Withdraw"])
    assert refused.ephemeral and "Only the team's captain" in w.private(refused)
    withdrawn = await w.alice.click(first, custom_id=buttons(first)["Withdraw"])
    assert not withdrawn.ephemeral, w.private(withdrawn)
    assert "withdrew" in w.public()[-1].content and not all_components(w.public()[-1])

    pals = w.guild.create_role("Pals", mentionable=True)  # a role anyone may mention is pinged, alone
    w.env.backend.add_member_role(w.guild.id, w.carol.id, pals.id)
    await w.env.advance_time(31)
    await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent_role=pals)
    to_pals = w.public()[-1]
    stored = stored_message(w, to_pals)
    assert stored.ping_role_ids == [pals.id] and not stored.ping_user_ids
    await w.alice.click(to_pals, custom_id=buttons(to_pals)["Withdraw"])

    await w.env.advance_time(31)
    await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent=w.carol)
    second = w.public()[-1]
    clock.advance(days=8)  # past its lifetime, before the scheduler's pass marks it expired
    await w.env.advance_time(6)
    late = await w.carol.click(second, custom_id=buttons(second)["Accept"])
    assert "expired" in w.private(late)
    assert w.channel.threads == []  # the team's thread made for the game is deleted
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


def test_a_team_game_has_no_rematch_button():
    from types import SimpleNamespace

    from bot.core.model import ChallengeOptions, PlayerRef, TeamSeat
    from bot.discord.components import rematch_controls

    players = (PlayerRef(1, "Crew"), PlayerRef(2, "carol"))
    plain = SimpleNamespace(id=1, is_active=False, status="finished", options=ChallengeOptions(), players=players)
    assert rematch_controls(plain) is not None  # type: ignore[arg-type]
    team = ChallengeOptions(teams=(TeamSeat(0, 1, "role", 3, 4),))
    teams = SimpleNamespace(id=1, is_active=False, status="finished", options=team, players=players)
    assert rematch_controls(teams) is None  # type: ignore[arg-type]


async def test_a_thread_team_hears_of_its_challenge_in_its_thread_and_plays_there(world, crew):
    from simcord.builders import ChannelHandle
    from simcord.enums import ChannelType

    w = world
    backend = w.env.backend
    talk = backend.create_thread(w.channel.id, "Rival talk", w.carol.id, type=ChannelType.PRIVATE_THREAD)
    for member in (w.carol, w.mod, w.bot.user):
        backend.add_thread_member(talk.id, member.id)
    await w.env.settle()
    rivals = ChannelHandle(w.env, w.guild, talk)
    # Discord offers a private thread as an option only to its members and to those who manage threads
    staff = w.guild.create_role("Staff", permissions=discord.Permissions(manage_threads=True))
    backend.add_member_role(w.guild.id, w.alice.id, staff.id)
    asked = await w.alice.slash(w.channel, "bgclub consult", role=crew, opponent_thread=rivals, position=START)
    assert not asked.ephemeral, w.private(asked)
    challenge = w.public()[-1]
    stored = stored_message(w, challenge)
    assert not stored.ping_user_ids and not stored.ping_role_ids and "**Rival talk**" in challenge.content
    (pointer,) = [m for m in w.public(rivals) if "challenges this thread's team" in m.content]
    assert str(challenge.id) in pointer.content and not stored_message(w, pointer).ping_user_ids

    refused = await w.bob.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert refused.ephemeral and "Only the members of Rival talk" in w.private(refused)
    accepted = await w.mod.click(challenge, custom_id=buttons(challenge)["Accept"])
    assert accepted.followups, w.private(accepted)
    await settle(w)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    ours, theirs = state.options.teams
    assert (theirs.kind, theirs.team_id, theirs.thread_id, theirs.captain_id) == ("thread", talk.id, talk.id, w.mod.id)
    assert ours.thread_id not in (0, talk.id)  # the role team got a private thread of its own
