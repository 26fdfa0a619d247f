"""Hostile members through the real command paths (SimCord): mention-shaped and markdown
nicknames, ``@everyone`` as a name, binary text. Nothing pings by accident, every name is
shown as typed, and every request the bot makes is within Discord's limits."""

from __future__ import annotations

import re

import pytest

from tests.e2e.limits import message_errors

MESSAGE_ROUTES = re.compile(
    r"^/(channels/\d+/messages(/\d+)?|webhooks/\d+/[^/]+(/messages/.+)?|interactions/\d+/[^/]+/callback)$"
)


@pytest.fixture
def hostile(world):
    """mallory's nickname is bob's mention, eve's is @everyone, zed's a markdown link."""
    w = world
    w.bot.table.computer.pause = 0
    w.bot.table.notes.available = lambda: False
    w.mallory = w.guild.add_member(w.env.create_user("mallory"), nick=f"<@{w.bob.id}>")
    w.eve = w.guild.add_member(w.env.create_user("eve"), nick="@everyone")
    w.zed = w.guild.add_member(w.env.create_user("zed"), nick="[free nitro](http://evil.example) `x`")
    w.huge = w.guild.add_member(w.env.create_user("huge"), nick="*_~`|" * 200)  # Discord stops at 32; a bug might not
    return w


def bot_messages(w) -> list:
    me = w.bot.user.id
    return [m for channel in w.env.backend.messages.values() for m in channel.values() if m.author_id == me]


def pinged(w, message) -> list[int]:
    message = getattr(message, "message", message)  # a SimCord response, or a discord.Message
    return list(w.env.backend.messages[message.channel.id][message.id].ping_user_ids)


def unsafe(text: str, bob: int) -> list[str]:
    """Raw markup the hostile names could smuggle in: bob's mention, @everyone, a link, code."""
    return re.findall(rf"(?<!\\)<@!?{bob}>|@everyone|(?<!\\)\[free nitro\]\(|(?<!\\)`x(?<!\\)`", text)


def everything_shown(message) -> str:
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        parts += [f"{f.name} {f.value}" for f in embed.fields]
    return "\n".join(parts)


async def test_hostile_names_ping_nobody_and_are_shown_as_typed(hostile, clock):
    w = hostile
    challenge = await w.mallory.slash(w.channel, "bg challenge", opponent=w.eve)
    assert pinged(w, challenge.response) == [w.eve.id]
    accepted = await w.eve.click(challenge.response, label="Accept")
    assert accepted.followups
    board = w.board()
    assert pinged(w, board) == [w.mallory.id]  # the player to act, by her real id
    assert "\\<@\u200b" in board.content and "@\u200beveryone" in board.content  # the names, shown as typed

    await w.mallory.select(board, ["8/5 6/5"])
    assert pinged(w, w.board()) == [w.eve.id]
    await w.eve.click(w.board(), label="Roll")
    binary = await w.eve.slash(w.channel, "bg move", play="\x00\x01<@123456789012345678> @everyone \u202e")
    answer = w.private(binary)
    assert answer.startswith("I can't read “␀␁\\<@\u200b123456789012345678> @\u200beveryone ”"), answer
    assert "\\x" not in answer
    forfeited = await w.eve.slash(w.channel, "bg forfeit")
    assert not forfeited.ephemeral
    final = w.board()
    assert final.embeds and pinged(w, final) == []

    for command, options in [
        ("bg stats", {"member": w.mallory}),
        ("bg history", {"member": w.eve}),
        ("bg leaderboard", {}),
        ("bgtools dice", {"member": w.zed}),
        ("bg games", {}),
    ]:
        result = await w.zed.slash(w.channel, command, **options)
        assert result.response is not None, command

    # a reminder and a timeout in a second game
    other = w.guild.create_text_channel("slow")
    challenge = await w.zed.slash(other, "bg challenge", opponent=w.mallory, days=1)
    await w.mallory.click(challenge.response, label="Accept")
    clock.advance(hours=19)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    reminder = other.last_message
    assert reminder.content.startswith("⏰") and pinged(w, reminder) == [w.zed.id]  # zed starts (3-1)
    clock.advance(hours=6)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    timeout = w.board(other)
    assert timeout.content.startswith("⌛") and sorted(pinged(w, timeout)) == sorted([w.zed.id, w.mallory.id])

    for message in bot_messages(w):
        assert w.bob.id not in message.ping_user_ids, message.content
        assert not message.mention_everyone and not message.ping_role_ids, message.content
    for message in [*w.public(), *w.public(other)]:
        assert unsafe(everything_shown(message), w.bob.id) == [], everything_shown(message)


async def test_every_request_fits_discord_and_names_its_pings(hostile):
    w = hostile
    await every_kind_of_answer(w)
    checked = 0
    for request in w.env.http_requests:
        if request.method not in ("POST", "PATCH") or not MESSAGE_ROUTES.match(request.path):
            continue
        body = request.json or {}
        if "/callback" in request.path:
            body = body.get("data") or {}
        if not {"content", "embeds", "components"} & set(body):
            continue  # a deferral
        checked += 1
        assert message_errors(body) == {}, (request.path, body)
        assert body.get("allowed_mentions", {}).get("parse") == [], (request.path, body)
        assert set(body["allowed_mentions"]) <= {"parse", "users", "replied_user"}
    assert checked > 20


async def every_kind_of_answer(w) -> None:
    """Boards, clicks, the builder, refusals, hints, tables, files: one of each."""
    board = await w.start_game(w.mallory, w.eve, match_length=3)
    await w.mallory.select(board, ["8/5 6/5"])
    await w.eve.click(w.board(), label="Roll")
    await w.eve.click(w.board(), label="Move checker by checker")
    await w.carol.click(w.board(), label="Roll") if "Roll" in w.labels(w.board()) else None
    await w.eve.slash(w.channel, "bg move", play="24/1 1/0")
    await w.eve.slash(w.channel, "bg move", play="“" * 100)
    await w.zed.slash(w.channel, "bg roll")
    await w.zed.slash(w.channel, "bg hint")
    await w.zed.slash(w.channel, "bg board")
    await w.zed.slash(w.channel, "bg rules")
    await w.zed.slash(w.channel, "bgtools position")
    await w.eve.slash(w.channel, "bg resign", level="gammon")
    await w.mallory.slash(w.channel, "bg accept-resign")
    await w.zed.slash(w.channel, "bg leaderboard")
    await w.zed.slash(w.channel, "bg export", game=1)
    huge = w.guild.create_text_channel("huge")
    board = await w.start_game(w.huge, w.zed, channel=huge, match_length=5)
    assert "5-point match, \\*\\_\\~\\`\\|" in board.content and "…" in board.content  # clipped, escaped
    await w.huge.select(board, ["8/5 6/5"])
    await w.huge.slash(huge, "bg forfeit")
    await w.zed.slash(huge, "bg stats", member=w.huge)
    await w.zed.slash(huge, "bg history", member=w.huge)
    await w.zed.slash(huge, "bg leaderboard", kind="points")
    await w.zed.slash(huge, "bgtools replay", game=2)
