"""Whole games, restarts, the scheduler, tables, permissions and failures."""

from __future__ import annotations

import logging

import discord
import pytest

from bot.core import ChallengeOptions, PlayerRef

# -- a full game to the leaderboard ---------------------------------------------------------


async def test_from_challenge_to_the_leaderboard(world):
    w = world
    board = await w.start_game(stake=5)
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Roll")
    await w.bob.select(w.board(), ["24/13"])
    await w.alice.click(w.board(), label="Double")
    passed = await w.bob.click(w.board(), label="Pass")
    assert not w.private(passed)
    final = w.board()
    embed = final.embeds[0]
    assert "alice wins a single game (double passed)" in embed.description
    assert "alice wins the money game" in embed.description
    points = next(f for f in embed.fields if f.name == "Points")
    assert "alice 1 - 0 bob (x5 stake)" in points.value
    rating = next(f for f in embed.fields if f.name == "Rating")
    assert "alice:" in rating.value and "bob:" in rating.value and "+" in rating.value

    board_rating = await w.carol.slash(w.channel, "bg leaderboard")
    assert not board_rating.ephemeral
    text = board_rating.response.embeds[0].description
    assert text.index("alice") < text.index("bob")
    by_points = await w.carol.slash(w.channel, "bg leaderboard", kind="points")
    assert "**alice** · +5 points" in by_points.response.embeds[0].description
    assert by_points.response.components == []  # one page: no paging buttons

    stats = await w.carol.slash(w.channel, "bg stats", member=w.alice)
    fields = {f.name: f.value for f in stats.response.embeds[0].fields}
    assert fields["Rank"] == "1 of 2" and "1 won" in fields["Matches"]
    mine = await w.bob.slash(w.channel, "bg stats")
    assert "Stats · bob" == mine.response.embeds[0].title
    nobody = await w.bob.slash(w.channel, "bg stats", member=w.carol)
    assert "No finished games" in nobody.response.embeds[0].description

    history = await w.bob.slash(w.channel, "bg history")
    assert history.ephemeral
    assert "#1 vs alice · money · **lost** 0-1" in history.response.embeds[0].description

    exported = await w.bob.slash(w.channel, "bg export")
    assert exported.ephemeral
    attachment, *others = exported.response.attachments  # then the JSON and the replay GIF
    assert attachment.filename == "backgammon-game-1.mat"
    mat = (await attachment.read()).decode()
    assert "alice" in mat and "bob" in mat and "8/5 6/5" in mat
    by_number = await w.carol.slash(w.channel, "bg export", game=1)
    assert by_number.response.attachments
    missing = await w.carol.slash(w.channel, "bg export", game=99)
    assert missing.ephemeral and "no game #99" in missing.response.content
    nothing = await w.carol.slash(w.channel, "bg export")
    assert "No game to export" in nothing.response.content


async def test_export_of_the_game_in_progress(world):
    w = world
    await w.start_game(match_length=3)
    exported = await w.carol.slash(w.channel, "bg export")
    assert exported.response.attachments[0].filename == "backgammon-game-1.mat"


async def test_leaderboard_pages(world):
    w = world
    service = w.service
    for i in range(12):
        a = PlayerRef(1000 + 2 * i, f"p{2 * i:02d}")
        b = PlayerRef(1001 + 2 * i, f"p{2 * i + 1:02d}")
        challenge = await service.challenges.create(w.guild.id, 5000 + i, a, b, ChallengeOptions())
        outcome = await service.challenges.accept(challenge.id, b.user_id)
        await service.forfeit(outcome.state.id, b.user_id)
    first = await w.carol.slash(w.channel, "bg leaderboard")
    message = first.response
    assert message.embeds[0].footer.text.startswith("Page 1 of 3 · 24 ranked")
    assert w.labels(message.message) == ["◀ Prev", "Next ▶"]
    prev = next(c for row in message.message.components for c in row.children if c.label == "◀ Prev")
    assert prev.disabled
    await w.alice.click(message, label="Next ▶")
    page2 = w.channel.history()[-1]
    assert page2.embeds[0].footer.text.startswith("Page 2 of 3")
    assert "` 11`" in page2.embeds[0].description
    await w.bob.click(page2, label="Next ▶")
    page3 = w.channel.history()[-1]
    assert page3.embeds[0].footer.text.startswith("Page 3 of 3")
    nxt = next(c for row in page3.components for c in row.children if c.label == "Next ▶")
    assert nxt.disabled
    await w.bob.click(page3, label="◀ Prev")
    assert w.channel.history()[-1].embeds[0].footer.text.startswith("Page 2 of 3")


# -- restarts ---------------------------------------------------------------------------------


async def test_buttons_work_after_a_restart(world, make_bot):
    w = world
    board = await w.start_game()
    await w.env.restart_bot(make_bot())
    played = await w.alice.select(board, ["8/5 6/5"])
    assert not w.private(played)
    board = w.board()
    assert f"{w.bob.mention} to roll or double" in board.content
    await w.env.restart_bot(make_bot())
    rolled = await w.bob.click(board, label="Roll")
    assert not w.private(rolled) and "bob rolled " in w.board().content
    # a challenge posted before a restart can still be accepted
    other = w.guild.create_text_channel("later")
    challenge = await w.challenge(w.carol, w.mod, channel=other)
    await w.env.restart_bot(make_bot())
    accepted = await w.mod.click(challenge.response, label="Accept")
    assert accepted.followups and w.board(other)


# -- the scheduler ---------------------------------------------------------------------------------


async def test_reminder_then_timeout(world, clock):
    w = world
    board = await w.start_game(days=1)
    assert await w.bot.scheduler.run_once() == []
    clock.advance(hours=19)  # 75 % of a day has passed
    await w.env.advance_time(61)  # the scheduler's own loop wakes up
    reminder = w.channel.last_message
    assert reminder.content.startswith(f"⏰ {w.alice.mention} alice, it's your move in game #1")
    assert f"/channels/{w.guild.id}/{w.channel.id}/{board.id}" in reminder.content
    assert await w.bot.scheduler.run_once() == []  # once only

    clock.advance(hours=6)
    (notice,) = await w.bot.scheduler.run_once()
    assert notice.kind == "timeout"
    await w.bot.dispatcher.idle()  # the dispatcher posts the final board
    posted = w.board()
    assert posted.content.startswith(f"⌛ {w.alice.mention} alice ran out of time")
    assert w.bob.mention in posted.content
    assert "bob wins" in posted.embeds[0].description
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert w.custom_ids(old) == [] and w.labels(posted) == ["Rematch", "Double or nothing"]
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_an_expired_challenge_says_so_in_place(world, clock):
    w = world
    result = await w.challenge()
    before = len(w.channel.history())
    clock.advance(hours=25)
    (notice,) = await w.bot.scheduler.run_once()
    assert notice.kind == "challenge_expired"
    await w.bot.dispatcher.idle()
    challenge = next(m for m in w.channel.history() if m.id == result.response.id)
    assert "expired" in challenge.content and not challenge.components
    assert len(w.channel.history()) == before  # edited in place: no new message, no ping
    assert await w.service.store.outbox.owed() == []


async def test_scheduler_sleeps_at_most_a_minute(world, clock):
    w = world
    assert await w.bot.scheduler.delay() == 60
    await w.start_game(days=1)
    assert await w.bot.scheduler.delay() == 60
    clock.advance(hours=17, minutes=59, seconds=30)
    assert await w.bot.scheduler.delay() == pytest.approx(30)
    clock.advance(minutes=5)
    assert await w.bot.scheduler.delay() == 1


# -- permissions and failures ------------------------------------------------------------------------


async def test_missing_permissions_are_named(world):
    w = world
    me = w.guild.me
    locked = w.guild.create_text_channel(
        "no-files", overwrites={me: discord.PermissionOverwrite(attach_files=False, embed_links=False)}
    )
    result = await w.alice.slash(locked, "bg challenge", opponent=w.bob)
    assert result.ephemeral
    assert "Attach Files, Embed Links permissions" in result.response.content
    no_threads = w.guild.create_text_channel(
        "no-threads", overwrites={me: discord.PermissionOverwrite(create_public_threads=False)}
    )
    result = await w.alice.slash(no_threads, "bg challenge", opponent=w.bob, thread=True)
    assert result.ephemeral and "Create Public Threads" in result.response.content


async def test_unexpected_errors_are_logged_and_answered_privately(world, caplog, monkeypatch):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])

    async def broken(*args, **kwargs):
        raise RuntimeError("database on fire")

    monkeypatch.setattr(w.service, "roll", broken)
    monkeypatch.setattr(w.service, "double", broken)
    caplog.set_level(logging.ERROR)
    before = [(m.id, m.content) for m in w.public()]
    slash = await w.bob.slash(w.channel, "bg roll")
    assert slash.ephemeral and slash.response.content.startswith("Something went wrong")
    w.env.expected_errors = len(w.env.errors)
    click = await w.bob.click(w.board(), label="Double")
    assert w.private(click).startswith("Something went wrong")
    assert [(m.id, m.content) for m in w.public()] == before
    assert caplog.text.count("database on fire") >= 2


async def test_slow_calls_are_deferred_first(world, monkeypatch):
    """When the service is slow, commands acknowledge at once ("thinking...") and answer after."""
    import bot.discord.table as table
    from bot.discord.replies import POSTED_BELOW

    monkeypatch.setattr(table, "SLOW_CALL_SECONDS", 0)
    w = world

    def last_callback_type() -> int | None:
        calls = [r for r in w.env.http_requests if r.path.endswith("/callback")]
        return (calls[-1].json or {}).get("type")

    since = len(w.env.http_requests)
    challenged = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)
    assert last_callback_type() == 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
    posted = w.channel.last_message
    assert "challenges you" in posted.content and not posted.flags.ephemeral
    # the private "thinking..." says where the answer went, and the answer came through the
    # interaction: nothing on the channel's routes, which Discord's global limit counts
    assert w.private(challenged) == POSTED_BELOW
    assert not [r for r in w.env.http_requests[since:] if r.path.startswith("/channels/")]
    await w.bob.click(posted, label="Accept")
    assert last_callback_type() == 6  # DEFERRED_UPDATE_MESSAGE, then the challenge is edited
    board = w.board()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert last_callback_type() == 5
    assert "alice played 8/5 6/5" in w.board().content and w.board().id != board.id
    # a refusal after a public "thinking..." is still private, and leaves nothing public behind
    count = len(w.public())
    refused = await w.alice.slash(w.channel, "bg roll")
    assert "not your turn" in w.private(refused).lower()
    assert len(w.public()) == count
    games = await w.alice.slash(w.channel, "bg games")
    assert last_callback_type() == 5 and games.ephemeral and games.response.embeds
    await w.alice.slash(w.channel, "bg leaderboard")
    assert last_callback_type() == 5
    assert w.channel.last_message.embeds[0].title.startswith("Leaderboard")


async def test_a_quick_click_that_passes_the_turn_is_answered_by_taking_the_buttons_off(world):
    """One request acknowledges the click and retires the old board; the new board follows."""
    w = world

    def callbacks() -> list[dict]:
        return [r.json or {} for r in w.env.http_requests if r.path.endswith("/callback")]

    await w.alice.slash(w.channel, "bg challenge", opponent=w.bob)
    challenge = w.channel.last_message
    words = challenge.content
    await w.bob.click(challenge, label="Accept")
    accepted = callbacks()[-1]
    assert accepted["type"] == 7 and accepted["data"]["components"] == []  # UPDATE_MESSAGE without buttons
    assert "content" not in accepted["data"]  # the challenge keeps its words (the dice commitment)
    assert next(m for m in w.channel.history() if m.id == challenge.id).content == words
    board = w.board()
    await w.alice.select(board, ["8/5 6/5"])
    played = callbacks()[-1]
    assert played["type"] == 7 and played["data"]["components"] == []
    assert w.board().id != board.id and not w.custom_ids(w.channel.history()[-2])


async def test_a_busy_bot_acknowledges_at_once(world):
    """With many service calls waiting, clicks and commands are deferred before their call ends."""
    import bot.discord.table as table

    w = world

    def last_callback_type() -> int | None:
        calls = [r for r in w.env.http_requests if r.path.endswith("/callback")]
        return (calls[-1].json or {}).get("type")

    board = await w.start_game()
    w.bot.table.waiting_calls = table.BUSY_CALLS  # as if that many were in flight
    await w.alice.select(board, ["8/5 6/5"])
    assert last_callback_type() == 6  # DEFERRED_UPDATE_MESSAGE, then the new board
    assert w.board().id != board.id and not w.custom_ids(w.channel.history()[-2])
    await w.bob.slash(w.channel, "bg roll")
    assert last_callback_type() == 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
    assert "bob rolled" in w.board().content and f"{w.bob.mention} to play" in w.board().content


async def test_thread_games_cannot_start_inside_a_thread(world):
    w = world
    result = await w.challenge(thread=True)
    await w.bob.click(result.response, label="Accept")
    (thread,) = w.channel.threads
    nested = await w.carol.slash(thread, "bg challenge", opponent=w.mod, thread=True)
    assert nested.ephemeral and "already a thread" in nested.response.content
