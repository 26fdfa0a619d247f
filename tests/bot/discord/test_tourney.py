"""Tournaments in Discord (SimCord): create, join by button, start, each match in
its own thread with both players pinged once, a round played with scripted dice,
the bracket redrawn in the announcement, /bgtourney standings and bracket, stats."""

from __future__ import annotations

import discord
import pytest

from engine import ScriptedDice
from tests.bot.discord.test_hostile import pinged

OPENING = [3, 1]
ROLLS = [6, 5, 4, 2, 5, 3, 6, 4, 3, 2, 5, 1, 6, 2, 4, 1, 5, 2, 6, 3] * 8


@pytest.fixture
def world(world):
    world.bot.table.notes.available = lambda: False  # no analyses of the finished games: their own tests
    events = world.guild.create_role("Events", permissions=discord.Permissions(manage_events=True))
    world.olga = world.guild.add_member(world.env.create_user("olga"), roles=[events])
    return world


def threads(w) -> list:
    return sorted(w.channel.threads, key=lambda t: t.id)


def attachment_names(message) -> list[str]:
    return [a.filename for a in message.attachments]


async def create(w, **options):
    made = await w.olga.slash(w.channel, "bgtourney create", name="Spring Cup", **options)
    assert made.response is not None and not made.ephemeral, w.private(made)
    return w.channel.last_message


@pytest.mark.parametrize("dice", [ScriptedDice(OPENING + ROLLS)])
async def test_a_knockout_from_announcement_to_bracket(world):
    w = world
    refused = await w.carol.slash(w.channel, "bgtourney create", name="Nope")
    assert "Manage Events" in w.private(refused)

    announcement = await create(w, match_length=1)
    assert w.labels(announcement) == ["Join", "Leave"]
    assert "Spring Cup" in announcement.content and "knockout, 1-point matches" in announcement.content
    tournament_id = int(w.custom_ids(announcement)[0].split(":")[-1])

    for member in (w.alice, w.bob, w.carol, w.mod):
        joined = await member.click(announcement, label="Join")
        assert "You're in Spring Cup" in w.private(joined)
    again = await w.alice.click(announcement, label="Join")
    assert "already" in w.private(again)
    announcement = w.channel.history()[0]
    assert "In (4/128):** alice, bob, carol, mod" in announcement.content
    left = await w.mod.click(announcement, label="Leave")
    assert "You left Spring Cup" in w.private(left)
    await w.mod.click(w.channel.history()[0], label="Join")

    not_yours = await w.alice.slash(w.channel, "bgtourney start")
    assert "organiser" in w.private(not_yours)
    started = await w.olga.slash(w.channel, "bgtourney start")
    assert "has started" in w.private(started)
    await w.bot.dispatcher.idle()

    # the announcement: no more buttons, the bracket drawn, round 1's tables in words
    announcement = w.channel.history()[0]
    assert w.labels(announcement) == []
    assert attachment_names(announcement) == [f"tournament-{tournament_id}-bracket-r1.png"]
    assert "Now playing round 1 of 2" in announcement.content and "playing in <#" in announcement.content
    assert any("round 1 of 2 has begun, 2 matches" in m.content for m in w.public())

    # each match in its own thread, its first board pinging both players, once
    match_threads = threads(w)
    assert len(match_threads) == 2
    states = []
    for thread in match_threads:
        board = w.board(thread)
        state = await w.service.lookups.game_in_channel(thread.id)
        assert state is not None and state.options.tournament == tournament_id
        assert thread.history()[0].id == board.id  # the first message is the board
        assert sorted(pinged(w, board)) == sorted(p.user_id for p in state.players)
        assert "Spring Cup, round 1. Good luck!" in board.content
        assert len(thread.history()) == 1
        states.append((thread, state))

    # round 1: one match played to its end with the scripted dice (a move, then a resignation), one forfeited
    (thread, state), (other, other_state) = states
    mover = next(m for m in (w.alice, w.bob, w.carol, w.mod) if m.id == state.to_act().user_id)
    rival = next(m for m in (w.alice, w.bob, w.carol, w.mod) if m.id != mover.id and state.seat(m.id) is not None)
    play = state.legal_play_texts()[0]
    moved = await mover.slash(thread, "bg move", play=play)
    assert not moved.ephemeral, w.private(moved)
    resigned = await rival.slash(thread, "bg resign")
    assert not resigned.ephemeral, w.private(resigned)
    accepted = await mover.click(w.board(thread), label="Accept resignation")
    assert not w.private(accepted), w.private(accepted)
    loser = next(m for m in (w.alice, w.bob, w.carol, w.mod) if other_state.seat(m.id) == 1)
    await loser.slash(other, "bg forfeit")
    await w.bot.dispatcher.idle()

    # the final opens in a third thread; the announcement shows round 2
    assert len(threads(w)) == 3
    final_thread = threads(w)[-1]
    final = await w.service.lookups.game_in_channel(final_thread.id)
    assert {p.user_id for p in final.players} == {mover.id, other_state.players[0].user_id}
    announcement = w.channel.history()[0]
    assert attachment_names(announcement) == [f"tournament-{tournament_id}-bracket-r2.png"]
    assert "Now playing the final" in announcement.content
    assert f"playing in <#{final_thread.id}>" in announcement.content

    # the bracket on demand: the picture and the round in words
    shown = await w.carol.slash(w.channel, "bgtourney bracket")
    message = w.channel.last_message
    assert not shown.ephemeral and attachment_names(message) == [f"tournament-{tournament_id}-bracket-r2.png"]
    picture = message.attachments[0]
    data = await picture.read()
    assert data.startswith(b"\x89PNG")
    standings = await w.carol.slash(w.channel, "bgtourney standings")
    assert "1. " in w.channel.last_message.content and not standings.ephemeral

    # the final decided: the champion announced, pinged, and on /bg stats
    final_loser = next(m for m in (w.alice, w.bob, w.carol, w.mod) if final.seat(m.id) == 1)
    champion = next(m for m in (w.alice, w.bob, w.carol, w.mod) if final.seat(m.id) == 0)
    await final_loser.slash(final_thread, "bg forfeit")
    await w.bot.dispatcher.idle()
    crowned = next(m for m in w.public() if "wins Spring Cup" in m.content)
    assert pinged(w, crowned) == [champion.id]
    announcement = w.channel.history()[0]
    assert f"Champion: **{champion.name}**" in announcement.content
    stats = await champion.slash(w.channel, "bg stats")
    embed = w.channel.last_message.embeds[0]
    assert not stats.ephemeral
    assert any(f.name == "Tournaments" and f.value.startswith("1 title · best finish 1st of 4") for f in embed.fields)


async def test_swiss_standings_list_withdraw_and_cancel(world):
    w = world
    announcement = await create(w, format="swiss", rounds=2)
    for member in (w.alice, w.bob, w.carol):
        await member.click(announcement, label="Join")
    await w.olga.slash(w.channel, "bgtourney start")
    await w.bot.dispatcher.idle()
    announcement = w.channel.history()[0]
    assert attachment_names(announcement)[0].endswith("-standings-r1.png")
    assert len(threads(w)) == 1  # three players: one match and a bye
    listed = await w.carol.slash(w.channel, "bgtourney list")
    assert "Spring Cup" in w.channel.last_message.content and not listed.ephemeral
    stranger = await w.mod.slash(w.channel, "bgtourney withdraw")
    assert "not in a tournament" in w.private(stranger)
    quitter = await w.alice.slash(w.channel, "bgtourney withdraw")
    assert "You left Spring Cup" in w.private(quitter)
    await w.bot.dispatcher.idle()
    assert any("alice withdrew from Spring Cup" in m.content for m in w.public())
    cancelled = await w.bob.slash(w.channel, "bgtourney cancel")
    assert "organiser" in w.private(cancelled)
    await w.olga.slash(w.channel, "bgtourney cancel")
    await w.bot.dispatcher.idle()
    assert "cancelled" in w.channel.history()[0].content


async def test_the_organiser_role(world):
    w = world
    organisers = w.guild.create_role("Organisers")
    w.zed = w.guild.add_member(w.env.create_user("zed"), roles=[organisers])
    refused = await w.zed.slash(w.channel, "bgtourney create", name="Zed Cup")
    assert "Manage Events" in w.private(refused)
    no = await w.alice.slash(w.channel, "bgtourney role", role=organisers)
    assert "Manage Server" in w.private(no)
    owner = w.guild.owner
    member = next(m for m in [w.guild.add_member(owner)] if m)  # the owner may do anything
    await member.slash(w.channel, "bgtourney role", role=organisers)
    made = await w.zed.slash(w.channel, "bgtourney create", name="Zed Cup")
    assert not made.ephemeral, w.private(made)


async def test_sign_up_closes_by_itself_and_the_round_deadline_decides(world, clock):
    w = world
    announcement = await create(w, signup_hours=2, round_days=1, move_days=1)
    assert "Sign-up closes and it starts <t:" in announcement.content
    for member in (w.alice, w.bob):
        await member.click(announcement, label="Join")
    clock.advance(hours=2)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    (thread,) = threads(w)
    state = await w.service.lookups.game_in_channel(thread.id)
    mover = state.to_act()
    clock.advance(days=1)  # the round's (and the move's) time is up: the player to move loses
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    view = await w.service.tournaments.current(w.guild.id, int(w.custom_ids(announcement)[0].split(":")[-1]))
    assert view.status == "finished" and view.champion is not None and view.champion.user_id != mover.user_id
    assert any("wins Spring Cup" in m.content for m in w.public())
    assert w.board(thread).content.startswith("⌛")  # the game's last board says why it ended


async def test_a_restart_mid_tournament_loses_nothing(world, make_bot, clock):
    w = world
    announcement = await create(w, match_length=1)
    for member in (w.alice, w.bob, w.carol, w.mod):
        await member.click(announcement, label="Join")
    w.service.deliveries.wakers.clear()  # the process dies before its dispatcher posts what the start owes
    await w.olga.slash(w.channel, "bgtourney start")
    assert threads(w) == []
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())  # coming back, the outbox is delivered: the round's matches open
    first = threads(w)
    assert len(first) == 2
    states = [await w.service.lookups.game_in_channel(t.id) for t in first]
    assert all(s is not None and w.board(t) for s, t in zip(states, first))

    # the round's last result is stored, and the process dies before the round advances
    await w.service.forfeit(states[0].id, states[0].players[1].user_id)
    w.service.recorder.finish_listeners.clear()
    await w.service.forfeit(states[1].id, states[1].players[1].user_id)
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())
    await w.bot.scheduler.run_once()  # its pass finds the round complete and starts the final
    await w.bot.dispatcher.idle()
    assert len(threads(w)) == 3
    final = await w.service.lookups.game_in_channel(threads(w)[-1].id)
    assert {p.user_id for p in final.players} == {s.players[0].user_id for s in states}
    assert "Now playing the final" in w.channel.history()[0].content
