"""Playing over days without being pestered (SimCord, fake clock): turn pings,
direct messages or only a digest, reminders on or off, quiet hours, the daily
digest, closed direct messages, vacations and their yearly allowance, and
/bg games by urgency. The clock starts on Monday 2 March 2026 at 12:00 UTC;
alice starts every game with 3-1."""

from __future__ import annotations

from datetime import timedelta

import discord
import pytest

import bot.discord.direct as direct


def pinged(w, message) -> list[int]:
    return list(w.env.backend.messages[message.channel.id][message.id].ping_user_ids)


def dms(w, member) -> list[discord.Message]:
    return [m for m in member.user.dm_channel.history() if m.author.id == w.bot.user.id]


async def settings(w, member, **options):
    result = await member.slash(w.channel, "bg settings", **options)
    assert result.ephemeral, w.private(result)
    return w.private(result)


@pytest.fixture
def world(world):
    world.bot.table.notes.available = lambda: False
    return world


async def test_a_direct_message_instead_of_a_ping(world):
    w = world
    answer = await settings(w, w.bob, turn="dm")
    assert "On your turn: a direct message" in answer
    board = await w.start_game()
    assert pinged(w, board) == [w.alice.id]  # alice kept the default: pinged on her turn
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    board = w.board()
    assert pinged(w, board) == [] and w.bob.mention not in board.content  # bob's turn: no ping
    await w.env.settle()
    (told,) = dms(w, w.bob)
    assert "Your move in game #1 vs alice" in told.content
    assert f"https://discord.com/channels/{w.guild.id}/{w.channel.id}/{board.id}" in told.content
    await w.bob.click(board, label="Roll")  # still bob's turn (to play): no second message
    await w.env.settle()
    assert len(dms(w, w.bob)) == 1


async def test_digest_only_and_quiet_hours_mean_no_ping(world):
    w = world
    await settings(w, w.bob, turn="digest")
    await settings(w, w.alice, quiet_from=11, quiet_to=13)  # it is 12:00 UTC
    board = await w.start_game()
    assert pinged(w, board) == [] and w.alice.mention not in board.content
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert pinged(w, w.board()) == []
    await w.env.settle()
    assert dms(w, w.bob) == []
    # a challenge in alice's quiet hours does not ping her either
    challenge = await w.bob.slash(w.guild.create_text_channel("two"), "bg challenge", opponent=w.alice)
    assert pinged(w, challenge.response.message if hasattr(challenge.response, "message") else challenge.response) == []


async def test_reminders_off_wait_for_quiet_hours_or_come_by_direct_message(world, clock):
    w = world
    await settings(w, w.alice, reminders=False)
    await w.start_game(days=1)
    clock.advance(hours=19)
    assert await w.bot.scheduler.run_once() == []  # claimed, nothing said
    await w.bot.dispatcher.idle()
    assert not any("⏰" in m.content for m in w.channel.history())

    other = w.guild.create_text_channel("two")
    await settings(w, w.carol, quiet_from=6, quiet_to=10, timezone="UTC")  # reminder due at 07:00
    await w.start_game(w.carol, w.mod, channel=other, days=1)  # now 07:00 on 3 March: carol starts
    clock.advance(hours=19)  # 02:00 on the 4th: not quiet, the reminder is due at 02:00
    kinds = [(n.kind, n.state.id) for n in await w.bot.scheduler.run_once()]
    assert ("reminder", 2) in kinds  # carol's, in game 2 (game 1 runs out meanwhile)
    await w.bot.dispatcher.idle()


async def test_a_reminder_in_quiet_hours_comes_when_they_end(world, clock):
    w = world
    await settings(w, w.alice, quiet_from=6, quiet_to=9, timezone="Europe/London")
    await w.start_game(days=1)  # 12:00 on 2 March; reminder due at 07:00 on the 3rd (GMT): quiet
    clock.advance(hours=19)
    assert await w.bot.scheduler.run_once() == []
    row = await w.service.store.games.get(1)
    assert row.reminder_at.hour == 9 and not row.reminder_sent  # postponed to the end of the quiet hours
    clock.advance(hours=2)
    (notice,) = await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    reminder = next(m for m in w.channel.history() if m.content.startswith("⏰"))
    assert pinged(w, reminder) == [w.alice.id]
    clock.advance(hours=1)
    assert await w.bot.scheduler.run_once() == []  # once only


async def test_a_reminder_by_direct_message_and_the_channel_when_they_are_closed(world, clock, monkeypatch):
    w = world
    await settings(w, w.alice, turn="dm")
    await w.start_game(days=1)
    clock.advance(hours=19)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    reminders = [m for m in dms(w, w.alice) if m.content.startswith("⏰")]
    assert len(reminders) == 1 and "it's your move in game #1" in reminders[0].content
    assert not any(m.content.startswith("⏰") for m in w.channel.history())

    async def closed(client, user_id):
        raise discord.Forbidden(
            type("R", (), {"status": 403, "reason": "Forbidden"})(),
            {"code": 50007, "message": "Cannot send messages to this user"},
        )

    monkeypatch.setattr(direct, "open_dm", closed)
    other = w.guild.create_text_channel("two")
    await settings(w, w.carol, turn="dm")
    await w.start_game(w.carol, w.mod, channel=other, days=1)
    await w.env.settle()
    fallback = [m for m in other.history() if "couldn't send you a direct message" in m.content]
    assert len(fallback) == 1 and pinged(w, fallback[0]) == [w.carol.id]
    clock.advance(hours=19)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    reminder = next(m for m in other.history() if m.content.startswith("⏰"))
    assert pinged(w, reminder) == [w.carol.id]


async def test_the_daily_digest(world, clock):
    w = world
    await w.start_game()  # alice to play in #backgammon
    second = w.guild.create_text_channel("two")
    await w.start_game(w.alice, w.carol, channel=second, days=1)  # and here, with less time
    answer = await settings(w, w.alice, digest_hour=8, timezone="America/New_York")
    assert "Daily digest: at 08:00" in answer and "America/New_York" in answer
    clock.advance(hours=1)  # 13:00 UTC is 08:00 in New York
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    (digest,) = dms(w, w.alice)
    lines = digest.content.splitlines()
    assert lines[0] == "☀️ Your daily digest: 2 games waiting for your move."
    assert lines[1].startswith("• Game #2 vs carol: 23 hours left") and "[board](" in lines[1]
    assert lines[2].startswith("• Game #1 vs bob: 2 days left")
    clock.advance(hours=1)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    assert len(dms(w, w.alice)) == 1  # once a day
    clock.advance(hours=23)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    assert len(dms(w, w.alice)) == 2


async def test_vacation_pauses_deadlines_in_several_games_and_gives_back_unused_days(world, clock):
    w = world
    await w.start_game(days=1)  # alice to act in game 1
    second = w.guild.create_text_channel("two")
    await w.start_game(w.alice, w.carol, channel=second, days=2)  # and in game 2
    answer = await settings(w, w.alice, vacation_days=5)
    assert "On vacation here until" in answer and "9 days of this year's allowance left" in answer
    board = w.board()
    clock.advance(days=1, hours=1)  # game 1's deadline passed during the vacation: no forfeit
    await w.bot.scheduler.run_once()
    clock.advance(days=1)  # game 2's too
    await w.bot.scheduler.run_once()
    one, two = await w.service.lookups.get_game(1), await w.service.lookups.get_game(2)
    assert one.is_active and two.is_active
    start = clock() - timedelta(days=2, hours=1)
    assert one.deadline == start + timedelta(days=5) + timedelta(days=1)  # a day left when it began
    assert two.deadline == start + timedelta(days=5) + timedelta(days=2)
    # the opponent sees why on a new board
    refreshed = await w.bob.slash(w.channel, "bg board")
    assert "on vacation until" in w.board().content
    # a challenge to alice says she is away
    challenge = await w.carol.slash(w.guild.create_text_channel("three"), "bg challenge", opponent=w.alice)
    assert "is on vacation until" in challenge.response.content
    # back a day later: the unused days come off both deadlines again; each turn
    # keeps the time it had when the vacation began
    clock.advance(days=1)
    answer = await settings(w, w.alice, vacation_days=0)
    assert "Welcome back" in answer and "2 games given their time back" in answer
    one, two = await w.service.lookups.get_game(1), await w.service.lookups.get_game(2)
    assert one.deadline == clock() + timedelta(days=1)
    assert two.deadline == clock() + timedelta(days=2)
    # the year's allowance: 14 days, a little over 3 taken
    refused = await w.alice.slash(w.channel, "bg settings", vacation_days=11)
    assert "allows 14 days of vacation a year and you have 10 left" in w.private(refused)
    assert refreshed is not None and board is not None


async def test_a_server_sets_its_allowance(world):
    w = world
    refused = await w.alice.slash(w.channel, "bgtools vacation-allowance", days=3)
    assert refused.ephemeral and "manage this server" in w.private(refused)
    boss = w.guild.add_member(
        w.env.create_user("boss"),
        roles=[w.guild.create_role("Admins", permissions=discord.Permissions(manage_guild=True))],
    )
    done = await boss.slash(w.channel, "bgtools vacation-allowance", days=3)
    assert "3 day(s)" in w.private(done)
    too_long = await w.alice.slash(w.channel, "bg settings", vacation_days=4)
    assert "allows 3 days" in w.private(too_long)


async def test_games_by_urgency_with_buttons(world, clock):
    w = world
    await w.start_game(days=3)  # game 1: alice to act, 3 days
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")  # now bob's turn
    second = w.guild.create_text_channel("two")
    await w.start_game(w.alice, w.carol, channel=second, days=5)  # game 2: alice, 5 days
    third = w.guild.create_text_channel("three")
    await w.start_game(w.alice, w.mod, channel=third, days=1)  # game 3: alice, 1 day
    result = await w.alice.slash(w.channel, "bg games")
    text = result.response.embeds[0].description
    order = [line.split(" ")[0] for line in text.splitlines()]
    assert order == ["#3", "#2", "#1"]  # her turns first, least time first; then the others
    rows = result.response.components
    buttons = [c for row in rows for c in (row["components"] if isinstance(row, dict) else row.children)]
    label = lambda b: b["label"] if isinstance(b, dict) else b.label  # noqa: E731
    url = lambda b: b["url"] if isinstance(b, dict) else b.url  # noqa: E731
    assert [label(b) for b in buttons] == ["▶ #3 vs mod", "▶ #2 vs carol", "#1 vs bob"]
    assert all(url(b).startswith(f"https://discord.com/channels/{w.guild.id}/") for b in buttons)
