"""Kibitzer polls through Discord: onlookers answer privately, the players see nothing of
it until they have acted, then the reveal with the net's verdict; the server's table;
a poll open at a restart stands, and its reveal is posted once."""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.core.kibitzers import NO_DOUBLE, VERDICT_PLY, poll_of
from bot.core.model import ServiceError
from bot.store.kibitzers import REVEAL_KIND
from tests.bot.conftest import ONLOOKERS, all_components

OPENING_PLAY = "8/5 6/5"
"""alice's 3-1 (conftest's dice): the play two of the three onlookers give."""
OTHER_PLAY = "24/23 13/10"


def poll_button(message: discord.Message) -> str:
    (custom_id,) = [c.custom_id for c in all_components(message) if str(c.custom_id or "").startswith(ONLOOKERS)]
    return custom_id


def seen_by(w, member) -> list[str]:
    """Every text ``member`` can read in the channel (ephemerals to them included): contents,
    embeds, and the labels and options of every component."""
    texts = []
    for message in w.channel.history(viewer=member):
        texts.append(message.content or "")
        for embed in message.embeds:
            texts += [embed.title or "", embed.description or "", embed.footer.text or ""]
            texts += [f"{f.name} {f.value}" for f in embed.fields]
        for component in all_components(message):
            texts.append(getattr(component, "label", None) or "")
            texts += [o.label for o in getattr(component, "options", [])]
    return texts


def assert_no_vote_shown(w, member, answers) -> None:
    """Nothing ``member`` reads tells of the poll's answers: no count, no reveal, no onlooker's
    acknowledgement."""
    refusal = "You play in this game: the poll is for the onlookers."
    for text in seen_by(w, member):
        if text == refusal:
            continue
        assert "Kibitzers" not in text and "vote" not in text.lower(), text
        assert "Your answer" not in text and "onlooker" not in text.lower(), text
    for result in answers:
        assert result.response.content == refusal and not result.followups


async def answer(w, member, board, play):
    asked = await member.click(board, custom_id=poll_button(board))
    assert asked.ephemeral and "Only you see your answer" in asked.response.content
    voted = await member.select(asked.response, [play])
    assert f"Your answer: `{play}`" in w.private(voted)
    assert "vote" not in w.private(voted).lower() and "onlooker" not in w.private(voted).lower()  # no count
    return asked


async def test_three_onlookers_answer_unseen_and_the_reveal_follows_the_play(world):
    w = world
    dave = w.guild.add_member(w.env.create_user("dave"))
    board = await w.start_game()
    custom_id = poll_button(board)
    assert custom_id == "bgkz:ask:1:2"

    # the players are turned away, privately, with no hint of any answer
    refusals = [await w.alice.click(board, custom_id=custom_id), await w.bob.click(board, custom_id=custom_id)]
    for refused in refusals:
        assert refused.ephemeral and refused.response.content.startswith("You play in this game")

    picker = await answer(w, w.carol, board, OPENING_PLAY)
    await answer(w, w.mod, board, OTHER_PLAY)  # a moderator is an onlooker like any other
    await answer(w, dave, board, OTHER_PLAY)
    again = await answer(w, dave, board, OPENING_PLAY)  # a change of mind: the last answer stands
    assert f"Your answer so far: `{OTHER_PLAY}`" in again.response.content

    club = w.bot.get_cog("ClubCog")
    await club.idle()
    await w.bot.dispatcher.drain()
    for player in (w.alice, w.bob):
        assert_no_vote_shown(w, player, refusals)
    # a moderator reads no more than anyone: their own answer, privately
    assert not any("Kibitzers" in text for text in seen_by(w, w.mod))

    played = await w.alice.select(board, [OPENING_PLAY])
    assert not w.private(played)
    await club.idle()
    await w.bot.dispatcher.drain()

    (reveal,) = [m for m in w.public() if m.content.startswith("🗳️")]
    text = reveal.content
    assert "game #1, board 2" in text and "3 onlookers answered before **alice** acted" in text
    assert f"`{OPENING_PLAY}` · 2 votes" in text and f"`{OTHER_PLAY}` · 1 vote" in text
    assert "the player's choice" in text and "the net's choice" in text
    assert "equity" in text and "The net (GNU Backgammon, 0-ply)" in text
    chosen_line = next(line for line in text.splitlines() if line.startswith(f"• `{OPENING_PLAY}`"))
    assert "the player's choice" in chosen_line
    assert reveal.mentions == [] and not reveal.flags.ephemeral

    # the reveal is posted once, the poll is closed, late answers are refused
    assert await w.service.store.outbox.owed() == []
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert not [c for c in all_components(old) if str(c.custom_id or "").startswith(ONLOOKERS)]  # gone
    late = await w.carol.select(picker.response, [OTHER_PLAY])  # a picker left open
    assert "the player has acted" in w.private(late).lower()
    await club.kibitzers.reveal_leftovers()
    await w.bot.dispatcher.drain()
    assert len([m for m in w.public() if m.content.startswith("🗳️")]) == 1

    # the server's table: three onlookers, one answer each, agreement with the net counted
    table = await w.carol.slash(w.channel, "bgclub kibitzers")
    (embed,) = table.response.embeds
    assert embed.title == "Kibitzers · Backgammon Club"
    assert embed.description.count("of 1 (") == 3
    net = reveal.content.split("The net (GNU Backgammon, 0-ply): ")[1]
    agreed = 2 if net.startswith(f"`{OPENING_PLAY}`") else 1 if net.startswith(f"`{OTHER_PLAY}`") else 0
    assert embed.description.count("agreed with the net 1 of 1") == agreed


async def test_no_poll_when_the_players_switch_it_off(world):
    w = world
    board = await w.start_game(kibitzers=False)
    assert not [c for c in all_components(board) if str(c.custom_id or "").startswith(ONLOOKERS)]
    assert "no kibitzer polls" in w.channel.history()[0].content


async def test_an_answer_open_at_a_restart_stands_and_is_revealed_once(world, make_bot, clock):
    w = world
    board = await w.start_game()
    await answer(w, w.carol, board, OPENING_PLAY)
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())  # the poll was open when the bot went away

    played = await w.alice.select(w.board(), [OPENING_PLAY])
    assert not w.private(played)
    club = w.bot.get_cog("ClubCog")
    await club.idle()
    await w.bot.dispatcher.drain()
    (reveal,) = [m for m in w.public() if m.content.startswith("🗳️")]
    assert "one onlooker answered" in reveal.content and f"`{OPENING_PLAY}` · 1 vote" in reveal.content

    # revealed, owed, and the bot killed before it posted: after the restart, posted once
    board = w.board()
    rolled = await w.bob.click(board, label="Roll")
    assert not w.private(rolled)
    board = w.board()
    (pick,) = [c for c in all_components(board) if isinstance(c, discord.SelectMenu)]
    await answer(w, w.carol, board, pick.options[0].value)
    store = w.service.store
    club.table.poster.listeners.remove(club.after_post)  # the reveal will not be posted by this bot
    await w.bob.select(board, [pick.options[1].value])
    poll = (await club.kibitzers.polls.moved_on())[0]
    await club.kibitzers.reveal_after(await w.service.lookups.get_game(poll.game_id))
    assert [e.kind for e in await store.outbox.owed()] == [REVEAL_KIND]
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())
    club = w.bot.get_cog("ClubCog")
    await club.idle()
    await w.bot.dispatcher.drain()
    reveals = [m for m in w.public() if m.content.startswith("🗳️")]
    assert len(reveals) == 2 and "bob" in reveals[-1].content
    assert await store.outbox.owed() == []


async def test_a_typed_play_is_read_in_the_menus_notation(world):
    """More plays than a menu holds are typed: any spelling of a legal play counts as that play."""
    w = world
    await w.start_game()
    club = w.bot.get_cog("ClubCog")
    state = await w.service.lookups.get_game(1)
    await club.kibitzers.vote(state, state.version, w.carol.id, "6/5 8/5")
    assert await club.kibitzers.answer_of(1, state.version, w.carol.id) == OPENING_PLAY
    with pytest.raises(ServiceError, match="not a legal play"):
        await club.kibitzers.vote(state, state.version, w.carol.id, "24/18")
    with pytest.raises(ServiceError, match="you play in this game"):
        await club.kibitzers.vote(state, state.version, w.alice.id, OPENING_PLAY)


async def test_a_cube_polls_verdict_is_the_0_ply_one_the_reveal_names(world, monkeypatch):
    """The net judges a cube poll at 0-ply, as the reveal says: not at the expert's 2-ply in its
    worker process (seconds on a cold pool, the reveal held back meanwhile)."""
    w = world
    await w.alice.select(await w.start_game(), [OPENING_PLAY])
    club = w.bot.get_cog("ClubCog")
    state = await w.service.lookups.get_game(1)
    poll = poll_of(state)
    assert poll is not None and poll.kind == "cube"
    menu = await w.carol.click(w.board(), custom_id=poll_button(w.board()))
    assert "Your answer: No double" in w.private(await w.carol.select(menu.response, [NO_DOUBLE]))
    analyst = club.kibitzers._advice().analyst
    asked, judge = [], analyst.acube_action

    async def spy(game, **kwargs):
        asked.append(kwargs.get("level", "the analyst's default: the expert's 2-ply"))
        return await judge(game, **kwargs)

    monkeypatch.setattr(analyst, "acube_action", spy)
    assert not w.private(await w.bob.click(w.board(), label="Roll"))
    await club.idle()
    await w.bot.dispatcher.drain()
    assert asked == [VERDICT_PLY] == [0]
    (reveal,) = [m for m in w.public() if m.content.startswith("🗳️")]
    assert "No double · 1 vote · equity" in reveal.content and "The net (GNU Backgammon, 0-ply)" in reveal.content


async def test_a_slow_read_of_an_onlookers_answer_is_deferred_first(world, monkeypatch):
    """The private menu waits on a read of the onlooker's earlier answer: on a busy store it
    is acknowledged first, like any slow call (unacknowledged, it ran past Discord's 3 seconds
    under the load bench's kibitzed games), and an answer is acknowledged without that read."""
    w = world
    board = await w.start_game()
    club = w.bot.get_cog("ClubCog")
    read = club.kibitzers.answer_of

    async def slow(*args):
        await asyncio.sleep(0.3)
        return await read(*args)

    monkeypatch.setattr(club.kibitzers, "answer_of", slow)
    asked = await w.carol.click(board, custom_id=poll_button(board))
    assert asked.deferred  # the board untouched: its update deferred
    (menu,) = asked.followups
    assert menu.ephemeral and "Only you see your answer" in menu.content
    started = asyncio.get_running_loop().time()
    voted = await w.carol.select(menu, [OPENING_PLAY])
    assert not voted.deferred and f"Your answer: `{OPENING_PLAY}`" in w.private(voted)
    assert asyncio.get_running_loop().time() - started < 0.3  # no read of it back
