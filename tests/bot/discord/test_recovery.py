"""Nothing lost when the bot fails: what players are owed reaches them once, and
downtime is nobody's fault (SimCord, fake clock).

A "crash" here is the bot generation ending between a stored change and its
post: the change is made through the service (stored, with the message it
owes) and never posted; then a fresh bot starts on the same database.
"""

from __future__ import annotations

from datetime import timedelta

from bot.discord.boards import InChannel, picture_name


def live_boards(w, channel=None) -> list:
    """Messages in the channel that still carry game controls (not a challenge's or a leaderboard's)."""
    return [
        m
        for m in (channel or w.channel).history()
        if any(c.startswith("bg:") and not c.startswith(("bg:ch:", "bg:lb:")) for c in w.custom_ids(m))
    ]


async def stored_not_posted(w):
    """Alice's opening play, stored but never shown (the bot dies before posting)."""
    game = await w.service.lookups.game_in_channel(w.channel.id)
    actor = game.to_act()
    outcome = await w.service.play(game.id, actor.user_id, "8/5 6/5", version=game.version)
    return game, outcome


async def test_a_board_stored_but_never_posted_is_posted_after_a_restart(world, make_bot, clock):
    w = world
    old = await w.start_game()
    game, outcome = await stored_not_posted(w)
    assert w.board().id == old.id  # nothing shown yet
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())

    board = w.board()
    assert board.id != old.id and f"{w.bob.mention} to roll or double" in board.content
    assert "alice played 8/5 6/5" in board.content  # what happened meanwhile is told
    assert [m.id for m in live_boards(w)] == [board.id]  # one live board: the old one lost its buttons
    state = await w.service.lookups.get_game(game.id)
    assert state.board_message == (w.channel.id, board.id) and state.board_version == state.version
    assert await w.service.store.outbox.owed() == []
    rolled = await w.bob.click(board, label="Roll")
    assert not w.private(rolled)


async def test_a_board_posted_just_before_a_crash_is_taken_not_posted_twice(world, make_bot, clock):
    w = world
    old = await w.start_game()
    game, outcome = await stored_not_posted(w)
    # the post reached Discord, the bot died before it could record it
    payload = await w.bot.table.poster.payload(outcome.state, outcome.events)
    posted = await w.bot.get_partial_messageable(w.channel.id).send(
        **{k: v for k, v in payload.items() if v is not None}
    )
    assert posted.attachments[0].filename == picture_name(outcome.state)
    clock.advance(seconds=5)
    count = len(w.channel.history())
    await w.env.restart_bot(make_bot())

    assert len(w.channel.history()) == count  # nothing new: the board found is the board
    assert [m.id for m in live_boards(w)] == [posted.id] and w.board().id == posted.id
    state = await w.service.lookups.get_game(game.id)
    assert state.board_message == (w.channel.id, posted.id)
    assert await w.service.store.outbox.owed() == []
    assert old.id not in [m.id for m in live_boards(w)]


async def test_an_owed_board_is_not_posted_after_a_newer_board_went_up(world, clock):
    """The dispatcher words an owed board from the game as it stands, then waits its
    turn to post; if that board, or a newer one, goes up meanwhile it posts nothing
    (under load it posted it a turn late, with live buttons next to the newer board)."""
    w = world
    await w.start_game()
    await w.bot.dispatcher.stop()
    w.service.deliveries.wakers.clear()  # this test runs the dispatcher's steps itself
    game, outcome = await stored_not_posted(w)
    w.service.deliveries.release(outcome.owed)  # the command could not post it: the dispatcher's
    (owed,) = await w.service.deliveries.owed()
    assert owed.outcome.state.version == outcome.state.version
    # before the dispatcher posts it, the board goes up all the same, and Bob rolls on it
    where = InChannel(w.bot, w.channel.id, w.guild.id)
    await w.bot.table.poster.publish(outcome, where, old=game.board_message)
    rolled = await w.bob.click(w.board(), label="Roll")
    assert not w.private(rolled)
    count = len(w.channel.history())

    await w.bot.dispatcher.deliver(owed)

    assert len(w.channel.history()) == count  # nothing posted
    assert [m.id for m in live_boards(w)] == [w.board().id]
    assert f"{w.bob.mention} to play" in w.board().content
    assert await w.service.store.outbox.owed(clock.now + timedelta(hours=1)) == []


async def test_a_reminder_claimed_before_a_crash_is_posted_once(world, make_bot, clock):
    w = world
    await w.start_game(days=1)
    w.service.deliveries.wakers.clear()  # the bot dies before it posts anything owed
    clock.advance(hours=19)
    (notice,) = await w.bot.scheduler.run_once()
    assert notice.kind == "reminder"
    assert not any(m.content.startswith("⏰") for m in w.channel.history())
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())

    reminders = [m for m in w.channel.history() if m.content.startswith("⏰")]
    assert len(reminders) == 1 and w.alice.mention in reminders[0].content
    assert await w.bot.scheduler.run_once() == []
    await w.bot.dispatcher.idle()
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())
    assert len([m for m in w.channel.history() if m.content.startswith("⏰")]) == 1


async def test_a_failing_channel_waits_and_holds_up_no_other_game(world, make_bot, clock):
    w = world
    other = w.guild.create_text_channel("other")
    await w.start_game()
    await w.start_game(channel=other)
    for channel in (w.channel, other):
        game = await w.service.lookups.game_in_channel(channel.id)
        await w.service.play(game.id, game.to_act().user_id, "8/5 6/5", version=game.version)
    w.env.inject_error("POST", f"/channels/{w.channel.id}/messages", status=503, times=1)
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())

    assert "bob to roll" in w.board(other).content.replace(w.bob.mention, "bob")  # delivered
    (waiting,) = await w.service.store.outbox.owed(clock.now + timedelta(hours=1))
    assert waiting.channel_id == w.channel.id and waiting.attempts == 1
    assert await w.service.store.outbox.owed() == []  # not before its back-off ends
    clock.advance(seconds=10)
    await w.bot.dispatcher.run_once()
    assert "bob to roll" in w.board().content.replace(w.bob.mention, "bob")
    assert await w.service.store.outbox.owed(clock.now + timedelta(hours=1)) == []


async def test_a_deleted_board_is_posted_again_by_the_next_action(world):
    w = world
    board = await w.start_game()
    await w.mod.delete(board)
    played = await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert not w.private(played)
    assert f"{w.bob.mention} to roll" in w.board().content and len(live_boards(w)) == 1


# -- downtime ---------------------------------------------------------------------------------


async def test_time_the_bot_was_down_is_not_counted(world, make_bot, clock):
    w = world
    await w.start_game(days=1)
    game = await w.service.lookups.game_in_channel(w.channel.id)
    deadline = game.deadline
    clock.advance(days=2)  # the bot is down for two days: past the deadline
    await w.env.restart_bot(make_bot())

    assert await w.bot.scheduler.run_once() == []  # no forfeit, no reminder at once
    game = await w.service.lookups.get_game(game.id)
    assert game.is_active and game.deadline == deadline + timedelta(days=2)
    clock.advance(hours=19)  # 75 % of the turn, counted without the downtime
    (reminder,) = await w.bot.scheduler.run_once()
    assert reminder.kind == "reminder"
    clock.advance(hours=6)
    (timeout,) = await w.bot.scheduler.run_once()
    assert timeout.kind == "timeout"


async def test_time_cut_off_from_discord_is_not_counted(world, clock):
    w = world
    await w.start_game(days=1)
    game = await w.service.lookups.game_in_channel(w.channel.id)
    deadline = game.deadline
    await w.bot.on_disconnect()
    assert not w.bot.scheduler.gate.is_set()  # nobody can move: no clock may run out
    clock.advance(hours=30)
    await w.bot.on_resumed()
    await w.bot.come_back()
    assert w.bot.scheduler.gate.is_set()
    assert (await w.service.lookups.get_game(game.id)).deadline == deadline + timedelta(hours=30)
    assert await w.bot.scheduler.run_once() == []


# -- a feature's own messages -----------------------------------------------------------------


async def test_a_notice_owed_by_a_feature_is_posted_once_pinging_only_whom_it_names(world):
    from bot.core.deliveries import notice
    from bot.store import outbox

    w = world
    owed = notice(w.guild.id, w.channel.id, "**Round 2** starts: @everyone <@1> see the bracket", ping=[w.alice.id])

    async def feature_change(tx):  # a feature's own transaction owes the message
        return await outbox.add(tx, owed, w.service.store.db.now())

    await w.service.store.db.transact(feature_change)
    w.service.deliveries.wake()
    await w.bot.dispatcher.idle()
    posted = w.channel.last_message
    assert posted.content.startswith(w.alice.mention) and "Round 2" in posted.content
    assert "@everyone" not in posted.content.replace("\\@", "")  # neutralised
    assert await w.service.store.outbox.owed() == []
    await w.bot.dispatcher.run_once()
    assert w.channel.last_message.id == posted.id  # once


async def test_a_kind_nobody_knows_is_dropped_not_retried_forever(world):
    from bot.store import Owed, outbox

    w = world

    async def change(tx):
        return await outbox.add(tx, Owed("from_the_future", w.guild.id, w.channel.id), w.service.store.db.now())

    await w.service.store.db.transact(change)
    assert await w.bot.dispatcher.run_once() == 0
    assert await w.service.store.outbox.owed() == []
