"""The computer opponent, hints and analysis through Discord (SimCord).

The computer plays at the beginner level (0-ply) with no pause between its
posts, and analyses run in a thread, so each test stays well under a second.
Dice are scripted (conftest.OPENING + ROLLS): alice (player 0) starts with
3-1, then the computer rolls 6-5, alice 4-2, ...
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from simcord.actors import MemberActor  # noqa: E402
from simcord.builders import UserHandle  # noqa: E402

import bot.ai  # noqa: E402
from bot.ai import default_analyst  # noqa: E402
from engine import ScriptedDice  # noqa: E402
from tests.bot.conftest import ROLLS  # noqa: E402


@pytest.fixture
def fast(world, monkeypatch):
    """Beginner level, no pauses, analysis in a thread (no worker process in tests)."""
    seat = world.bot.table.computer
    seat.pause = 0
    seat.default_level = "beginner"
    advice = world.bot.parts.advice
    advice.hint_level = "beginner"

    async def in_thread(game, ply=0):
        return await asyncio.to_thread(default_analyst().analyse_game, game, ply=ply)

    monkeypatch.setattr(advice.analyst, "aanalyse_game", in_thread)
    return world


def bot_member(w) -> MemberActor:
    env = w.env
    return MemberActor(env, w.guild, UserHandle(env, env.backend.get_user(w.bot.user.id)))


def everything(w) -> str:
    return "\n".join(m.content for m in w.public())


async def test_play_the_computer_to_the_end(fast):
    w = fast
    started = await w.alice.slash(w.channel, "bg computer", level="beginner")
    assert not started.ephemeral, w.private(started)
    board = w.board()
    assert "Opening throw: alice 3, TestBot 1: alice starts" in board.content or "alice starts" in board.content
    assert f"{w.alice.mention} to play 3-1" in board.content
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.options.computer_level == "beginner" and not game.options.rated
    assert game.players[1].user_id == w.bot.user.id and game.players[1].is_bot

    played = await w.alice.select(board, ["8/5 6/5"])
    assert not w.private(played)
    new = w.board()
    bot_name = w.bot.user.display_name
    # the computer rolled and played by itself; its moves were posted; alice is notified
    assert f"{bot_name} rolled 6-5" in new.content
    assert f"{bot_name} played" in new.content or f"{bot_name} has only one play" in new.content
    assert f"{w.alice.mention} to roll" in new.content
    assert w.labels(new)[:1] == ["Roll"]
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.to_act().user_id == w.alice.id

    # no controls while the computer thinks; nobody else can act for it
    nosy = await w.bob.slash(w.channel, "bg roll")
    assert nosy.ephemeral

    # alice resigns a backgammon: the computer accepts, the game ends and is analysed
    resigned = await w.alice.slash(w.channel, "bg resign", level="backgammon")
    assert not resigned.ephemeral
    final = w.board()
    assert final.embeds, final.content
    assert f"{bot_name.lower()} wins a backgammon" in final.embeds[0].description.lower()
    assert "Unrated" in (final.embeds[0].footer.text or "")
    assert await w.service.lookups.game_in_channel(w.channel.id) is None
    analysis = next(e for m in w.public() for e in m.embeds if e.title and e.title.startswith("📊 Analysis"))
    assert "error rate" in analysis.description and "alice" in analysis.description
    assert "luck" in analysis.description

    # /bg analysis reuses it; the leaderboard has the computer's own line
    again = await w.carol.slash(w.channel, "bg analysis", game=1)
    assert not again.ephemeral and "error rate" in again.response.embeds[0].description
    board = await w.carol.slash(w.channel, "bg leaderboard")
    assert "🤖 Computer: 1 win, 0 losses" in board.response.embeds[0].description


async def test_the_computers_moves_go_out_through_the_players_interaction(fast, monkeypatch):
    """After a player's click, the computer's roll is edited in and its move posted
    through that click's interaction, not on the channel's routes, which Discord's
    global limit (50 requests a second) counts; with the tokens spent, in the channel."""
    import dataclasses

    import discord

    from bot.discord import boards

    w = fast
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    since = len(w.env.http_requests)
    await w.alice.select(w.board(), ["8/5 6/5"])
    assert f"{w.alice.mention} to roll" in w.board().content and "TestBot rolled 6-5" in w.board().content
    requests = w.env.http_requests[since:]
    assert [r for r in requests if r.path.startswith("/webhooks/") and r.method == "POST"]  # the new boards
    assert not [r for r in requests if r.path.startswith("/channels/")]

    def spent(cls, interaction, *rest):
        made = original(cls, interaction, *rest)
        return dataclasses.replace(made, usable_until=discord.utils.utcnow())

    original = boards.Voice.of.__func__  # type: ignore[attr-defined]  # the classmethod's function
    monkeypatch.setattr(boards.Voice, "of", classmethod(spent))
    rolled = await w.alice.click(w.board(), label="Roll")
    assert not w.private(rolled)
    play = (await w.service.lookups.game_in_channel(w.channel.id)).legal_play_texts()[0]
    since = len(w.env.http_requests)
    await w.alice.slash(w.channel, "bg move", play=play)
    assert f"{w.alice.mention} to roll" in w.board().content
    assert [r for r in w.env.http_requests[since:] if r.path.startswith("/channels/") and r.method == "POST"]


async def test_challenging_the_bot_starts_a_computer_game(fast):
    w = fast
    result = await w.alice.slash(w.channel, "bg challenge", opponent=bot_member(w), match_length=3)
    assert not result.ephemeral, w.private(result)
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game is not None and game.options.computer_level == "beginner" and game.options.match_length == 3
    assert "3-point match" in w.board().content
    thread = await w.carol.slash(w.channel, "bg challenge", opponent=bot_member(w), thread=True)
    assert thread.ephemeral


async def test_computer_doubles_and_takes_like_a_player(fast, monkeypatch):
    """The computer's cube answers go through the same posting path (forced to take here)."""
    w = fast

    async def always_take(self, state):
        from engine import Phase

        if state.game.phase is Phase.DOUBLED:
            return "take"
        return await original(self, state)

    from bot.core.computer import ComputerPlayer

    original = ComputerPlayer.decide
    monkeypatch.setattr(ComputerPlayer, "decide", always_take)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    doubled = await w.alice.slash(w.channel, "bg double")
    assert not doubled.ephemeral
    text = everything(w)
    assert f"{w.bot.user.display_name} takes" in text
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.game.cube_value == 2 and game.to_act().user_id == w.alice.id
    assert f"{w.alice.mention} to roll" in w.board().content


async def test_a_failing_computer_says_so(fast, monkeypatch):
    w = fast
    from bot.core.computer import ComputerPlayer

    async def broken(self, game_id):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(ComputerPlayer, "take_turn", broken)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    last = w.public()[-1]
    assert "could not make its move" in last.content and w.alice.mention in last.content
    monkeypatch.undo()
    w.bot.table.computer.pause = 0
    # /bg board nudges it again
    await w.alice.slash(w.channel, "bg board")
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.to_act().user_id == w.alice.id


async def test_hints(fast):
    w = fast
    # against the computer: always
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    hint = await w.alice.slash(w.channel, "bg hint")
    assert hint.ephemeral
    text = hint.response.content
    assert "Best plays for 3-1" in text and "1. " in text and "2. " in text
    assert "8/5 6/5" in text  # the best 3-1
    nosy = await w.carol.slash(w.channel, "bg hint")
    assert nosy.ephemeral and "not in this game" in nosy.response.content

    # between people: off unless agreed at challenge time
    other = w.guild.create_text_channel("people")
    await w.start_game(channel=other)
    refused = await w.alice.slash(other, "bg hint")
    assert refused.ephemeral and "Hints are off" in refused.response.content

    third = w.guild.create_text_channel("with-hints")
    result = await w.challenge(channel=third, hints=True)
    assert "Hints are on" in result.response.content
    await w.bob.click(result.response, label="Accept")
    allowed = await w.alice.slash(third, "bg hint")
    assert allowed.ephemeral and "1. " in allowed.response.content
    waiting = await w.bob.slash(third, "bg hint")
    assert waiting.ephemeral and "not your turn" in waiting.response.content
    await w.alice.slash(third, "bg move", play="8/5 6/5")
    cube = await w.bob.slash(third, "bg hint")
    assert "Cube action" in cube.response.content and "double" in cube.response.content


async def test_analysis_after_a_game_between_people(fast):
    w = fast
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="13/10 6/5")  # not the best 3-1
    await w.bob.slash(w.channel, "bg double")
    await w.alice.slash(w.channel, "bg pass")
    final = next(m for m in w.public() if m.embeds and "Game over" in (m.embeds[0].title or ""))
    titles = [e.title for e in final.embeds]
    assert any(t.startswith("📊 Analysis") for t in titles), titles
    analysis = final.embeds[-1].description
    assert "alice" in analysis and "bob" in analysis and "error rate" in analysis
    active = await w.alice.slash(w.guild.create_text_channel("x"), "bg analysis", game=99)
    assert active.ephemeral and "no game #99" in active.response.content


async def test_analysis_of_a_game_in_progress_is_refused(fast):
    w = fast
    await w.start_game()
    result = await w.alice.slash(w.channel, "bg analysis", game=1)
    assert result.ephemeral and "still being played" in result.response.content


async def test_without_the_engines_the_bot_says_so(fast, monkeypatch):
    w = fast
    await w.start_game()
    monkeypatch.setattr(bot.ai, "available", lambda: False)
    other = w.guild.create_text_channel("other")
    attempts: list[tuple[Any, Any, str, dict[str, Any]]] = [
        (w.alice, w.channel, "bg hint", {}),
        (w.alice, w.channel, "bg analysis", {"game": 1}),
        (w.carol, other, "bg computer", {}),
        (w.carol, other, "bg challenge", {"opponent": bot_member(w)}),
        (w.carol, other, "bgtools setup", {"position": "4HPwATDgc/ABMA:cAkAAAAAAAAA"}),
    ]
    for actor, channel, command, options in attempts:
        result = await actor.slash(channel, command, **options)
        assert result.ephemeral, command
        assert "analysis is not available on this server" in result.response.content.lower(), command
    assert await w.service.lookups.game_in_channel(other.id) is None
    # people still play
    played = await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert not played.ephemeral


async def test_a_restart_resumes_the_computers_turn(fast, monkeypatch):
    w = fast
    from bot.core.computer import ComputerPlayer

    async def nothing(self, game_id):
        return []  # the bot "stopped" before the computer moved

    monkeypatch.setattr(ComputerPlayer, "take_turn", nothing)
    await w.alice.slash(w.channel, "bg computer", level="beginner")
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.to_act().user_id == w.bot.user.id
    monkeypatch.undo()
    assert await w.bot.table.computer.resume() == 1
    await w.bot.table.idle()
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.to_act().user_id == w.alice.id
    assert f"{w.alice.mention} to roll" in w.board().content


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1] * 3 + ROLLS)])
async def test_after_a_restart_the_computer_catches_up_in_the_background_longest_waiting_first(
    fast, monkeypatch, clock
):
    """Three games wait for the computer when the bot comes back: coming back does not wait
    for them; they are resumed one at a time (here), the longest-waiting first; a game a
    member touches meanwhile goes at once, and each is played exactly once."""
    w = fast
    from bot.core.computer import ComputerPlayer

    real = ComputerPlayer.take_turn

    async def nothing(self, game_id):
        return []  # the bot "stopped" before the computer moved

    monkeypatch.setattr(ComputerPlayer, "take_turn", nothing)
    members = [w.alice, w.bob, w.carol]
    channels = [w.guild.create_text_channel(f"computer-{n}") for n in range(3)]
    for member, channel in zip(members, channels):
        await member.slash(channel, "bg computer", level="beginner")
    games = [(await w.service.lookups.game_in_channel(c.id)).id for c in channels]
    for n in (2, 0, 1):  # the last game's member played first: theirs has waited longest
        clock.advance(minutes=5)
        assert not (await members[n].slash(channels[n], "bg move", play="8/5 6/5")).ephemeral
    await w.bot.table.idle()
    for game_id in games:
        assert (await w.service.lookups.get_game(game_id)).to_act().user_id == w.bot.user.id

    played: list[int] = []
    first_held, release = asyncio.Event(), asyncio.Event()

    async def counted(self, game_id):
        played.append(game_id)
        if len(played) == 1:
            first_held.set()
            await release.wait()  # the first resumed turn takes its time
        return await real(self, game_id)

    monkeypatch.setattr(ComputerPlayer, "take_turn", counted)
    seat = w.bot.table.computer
    seat.resume_parallel = 1
    await w.bot.come_back()  # returns with the turns still to play
    await asyncio.wait_for(first_held.wait(), 30)
    assert played == [games[2]]

    # meanwhile the bot answers; the game touched goes before its place in the queue
    shown = await w.alice.slash(channels[0], "bg board")
    assert not shown.ephemeral
    on_demand = seat._running.get(games[0])
    if on_demand is not None:
        await on_demand
    assert played == [games[2], games[0]]
    assert f"{w.alice.mention} to roll" in w.board(channels[0]).content

    release.set()
    await w.bot.table.idle()
    assert played == [games[2], games[0], games[1]]  # each exactly once
    assert seat._resuming is not None and seat._resuming.result() == 2  # the third was taken on demand
    for member, channel, game_id in zip(members, channels, games):
        assert (await w.service.lookups.get_game(game_id)).to_act().user_id == member.id
        assert f"{member.mention} to roll" in w.board(channel).content
