"""Privacy is one rule for what the newer features show (puzzles, tournaments, digests):
a game, a position taken from a game or a tournament is shown only where everyone who
reads the answer could see the channel it was played or announced in."""

from __future__ import annotations

from datetime import timedelta

import discord
import pytest

from bot.config import Settings
from tests.bot.core.test_puzzles import detail, mistake, position


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(token="fake-token", database_path=str(tmp_path / "data" / "bg.sqlite3"), cooldowns=())


@pytest.fixture
def quick(world):
    world.bot.table.computer.pause = 0
    world.bot.table.notes.available = lambda: False  # no background analyses: the tests save their own
    return world


def staff_only(w, *more) -> discord.TextChannel:
    """A channel only alice, bob, mod (and ``more``) can view."""
    everyone = w.guild.default_role
    return w.guild.create_text_channel(
        "staff-only",
        overwrites={
            everyone: discord.PermissionOverwrite(view_channel=False),
            **{m: discord.PermissionOverwrite(view_channel=True) for m in (w.alice, w.bob, w.mod, *more)},
        },
    )


async def analysed_game(w, channel, key: str) -> int:
    """alice and bob finish a game in ``channel`` whose analysis kept one error of alice's."""
    await w.start_game(channel=channel)
    game = await w.service.lookups.game_in_channel(channel.id)
    forfeited = await w.bob.slash(channel, "bg forfeit")
    assert not forfeited.ephemeral, w.private(forfeited)
    await w.service.archive.save_analysis(game.id, 1, 0, "summary", detail(mistake(2, 0, 0.05, key)))
    return game.id


def private_messages(result) -> list:
    return [m for m in ([result.response] if result.response else []) + list(result.followups) if m.ephemeral]


async def test_puzzles_come_only_from_games_the_readers_could_see(quick):
    w = quick
    hidden = staff_only(w)
    await w.env.settle()
    secret = await analysed_game(w, hidden, position((3, 1)))

    refused = await w.carol.slash(w.channel, "bglearn puzzle")
    assert "there is no puzzle here yet" in w.private(refused).lower(), w.private(refused)
    # alice played it: she may have it, privately
    mine = await w.alice.slash(w.channel, "bglearn puzzle")
    (message,) = private_messages(mine)
    assert message.attachments[0].filename.startswith("puzzle-")
    # the puzzle now taken from the hidden game is not served to carol either
    again = await w.carol.slash(w.channel, "bglearn puzzle")
    assert not [m for m in private_messages(again) if m.attachments], w.private(again)

    # the puzzle of the day in #backgammon: never from the hidden channel's game
    configured = await w.mod.slash(w.channel, "bglearn puzzle", daily="on")
    assert "on, in" in w.private(configured)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    assert not [m for m in w.public() if "Puzzle of the day" in m.content]
    rows = await w.bot.parts.puzzles.store.puzzles.latest(w.guild.id, limit=10)
    assert all(r.kind != "daily" for r in rows)

    # a game played in the open makes one
    public_game = await analysed_game(w, w.channel, position((4, 2)))
    w.bot.parts.puzzles._quiet.clear()
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    (daily,) = [r for r in await w.bot.parts.puzzles.store.puzzles.latest(w.guild.id, limit=10) if r.kind == "daily"]
    assert daily.game_id == public_game != secret


async def test_a_hidden_channels_tournament_is_not_listed_to_who_cannot_see_it(quick):
    w = quick
    events = w.guild.create_role("Events", permissions=discord.Permissions(manage_events=True))
    olga = w.guild.add_member(w.env.create_user("olga"), roles=[events])
    hidden = staff_only(w, olga)
    await w.env.settle()
    made = await olga.slash(hidden, "bgtourney create", name="Staff Secret Cup")
    assert not made.ephemeral, w.private(made)
    announcement = hidden.last_message
    for member in (w.alice, w.bob):
        await member.click(announcement, label="Join")

    for member, where in ((w.carol, w.channel), (w.alice, w.channel)):  # alice is in it: not in public
        listed = await member.slash(where, "bgtourney list", everything=True)
        assert "Staff Secret Cup" not in (listed.response.content if listed.response else ""), member
        for command in ("bgtourney standings", "bgtourney bracket"):
            shown = await member.slash(where, command, tournament=1)
            assert shown.ephemeral and "no tournament #1" in w.private(shown), w.private(shown)
    inside = await w.alice.slash(hidden, "bgtourney list")
    assert "Staff Secret Cup" in inside.response.content


async def closed(client, user_id):
    raise discord.Forbidden(
        type("R", (), {"status": 403, "reason": "Forbidden"})(),
        {"code": 50007, "message": "Cannot send messages to this user"},
    )


async def test_a_digest_outside_direct_messages_is_a_pointer_only(quick, clock, monkeypatch):
    import bot.discord.direct as direct

    w = quick
    hidden = staff_only(w)
    await w.env.settle()
    await w.start_game(w.alice, w.bob, channel=hidden)  # alice to play, in the hidden channel
    await w.start_game(w.alice, w.carol, days=1)  # and in #backgammon, the most urgent
    monkeypatch.setattr(direct, "open_dm", closed)
    answer = await w.alice.slash(w.channel, "bg settings", digest_hour=13, timezone="UTC")
    assert "Daily digest" in w.private(answer), w.private(answer)
    clock.advance(hours=1)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    (pointer,) = [m for m in w.public() if "digest" in m.content]
    text = pointer.content
    assert "could not be sent by direct message" in text and "`/bg games`" in text, text
    # no list, no count: nothing of games in channels (or servers) this channel's readers can't see
    assert "bob" not in text and "carol" not in text and str(hidden.id) not in text and "#" not in text
    assert not any(ch.isdigit() for ch in text.replace(w.alice.mention, "")), text
    assert not [m for m in w.public(hidden) if "digest" in m.content]


async def test_closed_direct_messages_are_remembered_for_a_while(quick, monkeypatch):
    import bot.discord.direct as direct

    w = quick
    tries = []

    async def refusing(client, user_id):
        tries.append(user_id)
        await closed(client, user_id)

    monkeypatch.setattr(direct, "open_dm", refusing)
    for _ in range(3):  # three turns, reminders, digests: one refused request, not three
        assert await direct.send_direct(w.bot, w.carol.id, "your move") is None
    assert tries == [w.carol.id]
    await w.carol.slash(w.channel, "bg settings", turn="dm")  # they may have opened them
    assert await direct.send_direct(w.bot, w.carol.id, "your move") is None
    assert tries == [w.carol.id, w.carol.id]


async def test_a_direct_message_sent_just_before_a_crash_is_not_sent_again(quick, make_bot, clock):
    w = quick
    await w.alice.slash(w.channel, "bg settings", turn="dm")
    await w.start_game(days=1)
    settle = w.service.deliveries.delivered

    async def crashed(entries):  # the DM went out; the bot died before it wrote so down
        return None

    w.service.deliveries.delivered = crashed
    clock.advance(hours=19)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    w.service.deliveries.delivered = settle

    def reminders():  # noqa: ANN202
        return [m for m in w.alice.user.dm_channel.history() if m.content.startswith("⏰")]

    assert len(reminders()) == 1
    clock.advance(seconds=5)
    await w.env.restart_bot(make_bot())
    await w.bot.dispatcher.idle()
    assert len(reminders()) == 1
    assert await w.service.store.outbox.owed(clock.now + timedelta(hours=1)) == []


async def test_at_least_as_visible(quick):
    from simcord.builders import ChannelHandle
    from simcord.enums import ChannelType

    from bot.discord.privacy import as_visible

    w = quick
    hidden = staff_only(w)
    other = w.guild.create_text_channel("other")
    no_carol = w.guild.create_text_channel(
        "no-carol", overwrites={w.carol: discord.PermissionOverwrite(view_channel=False)}
    )
    backend = w.env.backend
    public_thread = ChannelHandle(w.env, w.guild, backend.create_thread(hidden.id, "talk", w.alice.id))
    private = backend.create_thread(w.channel.id, "secret", w.alice.id, type=ChannelType.PRIVATE_THREAD)
    backend.add_thread_member(private.id, w.bot.user.id)
    await w.env.settle()
    guild = w.bot.get_guild(w.guild.id)
    assert as_visible(guild, other.id, w.channel.id)  # everyone sees it
    assert as_visible(guild, hidden.id, hidden.id) and as_visible(guild, public_thread.id, hidden.id)
    assert as_visible(guild, hidden.id, public_thread.id)  # a thread's readers all see its channel
    assert not as_visible(guild, hidden.id, w.channel.id) and not as_visible(guild, public_thread.id, w.channel.id)
    assert not as_visible(guild, no_carol.id, w.channel.id)  # someone is kept out
    assert not as_visible(guild, private.id, w.channel.id) and as_visible(guild, private.id, private.id)
    assert not as_visible(guild, 123, w.channel.id) and not as_visible(None, other.id, w.channel.id)
