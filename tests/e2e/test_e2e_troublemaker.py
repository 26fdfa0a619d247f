"""Troublemakers against the real bot process while two members play a game.

mallory's nickname is bob's mention and eve's is ``@everyone``; they play in a
private thread. mallory types a 6,000-character and a binary ``/bg move``; carol,
who is not in the thread, reads their game by number (export, verify, replay,
analysis) and floods ``/bg stats``; dave asks for a puzzle (none from the private
thread's game) and a patience leaderboard of the year 1, and mallory makes a
tournament in the thread. Meanwhile alice and bob play a whole game.
Every interaction is answered within Discord's 3 seconds, the bot logs no
traceback, nobody is pinged by accident, and the stand-in's limits hold.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.e2e.botproc import REAL_BOT
from tests.e2e.fake_discord import EPHEMERAL, LOADING
from tests.e2e.players import GameDriver, actor_of

LOOKUPS = 3
READS = ("bg export", "bgtools verify", "bgtools replay", "bg analysis")
TURN = re.compile(r"▶ <@(\d+)>")
CHALLENGE = re.compile(r"^<@(\d+)>, <@\d+> challenges you")


async def private_answer(fake, inter) -> str:
    message = await fake.wait_message(
        inter,
        lambda m: bool(m["flags"] & EPHEMERAL) and not m["flags"] & LOADING and bool(m["content"]),
        what="a private answer",
    )
    return message["content"]


def intended(content: str) -> set[int]:
    """Whom a message of the bot means to ping: the player to act, the challenged member."""
    found = TURN.search(content) or CHALLENGE.search(content)
    return {int(found[1])} if found else set()


async def troublemakers(fake, alice, bob, mallory, eve, carol) -> dict:
    seen: dict = {}
    thread = fake.add_private_thread(fake.general, "secret", mallory, [eve])
    duel = GameDriver(fake, thread, mallory, eve, plays_before_double=99)
    challenge = await duel.challenge()
    seen["challenge"] = challenge
    board = await duel.accept(challenge)
    seen["board"] = board
    mover = fake.users[actor_of(board)]

    long_move = await fake.slash(mover, thread, "bg move", play="24/18 " * 1000)
    seen["long"] = await private_answer(fake, long_move)
    binary_move = await fake.slash(mover, thread, "bg move", play=f"\x00\x01\x7f<@{bob['id']}> @everyone \u202e\ufeff")
    seen["binary"] = await private_answer(fake, binary_move)
    forfeit = await fake.slash(eve, thread, "bg forfeit")
    seen["final"] = await fake.wait_board(forfeit)
    game_id = duel.game_id

    seen["outsider"] = [
        await private_answer(fake, await fake.slash(carol, fake.general, c, game=game_id)) for c in READS
    ]
    seen["missing"] = [await private_answer(fake, await fake.slash(carol, fake.general, c, game=9999)) for c in READS]
    player = await fake.slash(mallory, fake.general, "bg export", game=game_id)
    seen["player"] = await fake.wait_message(player, lambda m: bool(m["attachments"]), what="the export")

    # the newer features: a puzzle (never from the private thread's game), a day out of range,
    # a tournament made in a thread
    dave = fake.add_user("dave")  # carol's lookups are counted for the flood below
    newer = [
        await fake.slash(dave, fake.general, "bglearn puzzle"),
        await fake.slash(dave, fake.general, "patience leaderboard", day="0001-01-01"),
        await fake.slash(mallory, thread, "bgtourney create", name="@everyone <@&1> Cup"),
    ]
    seen["newer"] = [await private_answer(fake, inter) for inter in newer]

    flood = [await fake.slash(carol, fake.general, "bg stats") for _ in range(LOOKUPS + 2)]
    for inter in flood:
        await fake.settle(inter, idle=0.05)
    seen["flood"] = [
        fake.messages[m]["content"] for inter in flood for m in inter.messages if fake.messages[m]["flags"] & EPHEMERAL
    ]
    seen["game_id"] = game_id
    return seen


@pytest.mark.slow
async def test_troublemakers_cannot_stall_flood_snoop_or_ping(fake, launch):
    bot = await launch(REAL_BOT, extra_env={"COOLDOWN_LOOKUP": f"{LOOKUPS}/60", "COOLDOWN_REVIEW": "20/60"})
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    mallory = fake.add_user("mallory", nick=f"<@{bob['id']}>")
    eve = fake.add_user("eve", nick="@everyone")

    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=3)
    await game.start()
    played, seen = await asyncio.gather(game.play_out(), troublemakers(fake, alice, bob, mallory, eve, carol))
    assert played["embeds"][0]["title"].startswith("Game over")

    # what typed text and hostile names came back as
    assert (
        seen["long"].startswith("`play` takes at most 100 characters, not 6000: “24/18 24/18")
        and len(seen["long"]) < 200
    )
    assert seen["binary"].startswith("I can't read “␀␁␡\\<@\u200b"), seen["binary"]
    assert "\\x" not in seen["binary"] and "@everyone" not in seen["binary"]
    for message in (seen["board"], seen["final"]):
        assert "\\<@\u200b" in message["content"] and "@\u200beveryone" in message["content"]

    # the private thread's game does not exist for carol, and does for its player
    game_id = seen["game_id"]
    assert seen["outsider"] == [f"There is no game #{game_id} in this server."] * len(READS)
    assert seen["missing"] == ["There is no game #9999 in this server."] * len(READS)
    assert {a["filename"] for a in seen["player"]["attachments"]} >= {f"game-{game_id}.json"}

    # the newer features answer privately and clearly
    puzzle, day, tourney = seen["newer"]
    assert "no puzzle here yet" in puzzle, puzzle
    assert "no daily deal before 2000-01-01" in day, day
    assert "Manage Events" in tourney or "not in a thread" in tourney, tourney

    # the flood: the first LOOKUPS answered in public, the rest told to slow down
    assert len(seen["flood"]) == 2 and all(re.fullmatch(r"Slow down: try again in \d+ s\.", t) for t in seen["flood"])

    # every interaction answered in time; no traceback
    assert not fake.missed_deadlines()
    assert all(i.response_type is not None for i in fake.interactions.values())
    log = bot.log_text()
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]

    # nobody pinged by accident: each message pings exactly whom it means, and says so
    checked = 0
    for message_id, pings in fake.pings.items():
        message = fake.messages.get(message_id)
        if message is None or message["author"]["id"] != fake.bot_user["id"]:
            continue
        checked += 1
        content = pings["content"]  # as it appeared (edits notify nobody)
        assert pings["allowed_mentions"] is not None, content
        assert not pings["everyone"] and not pings["roles"], content
        assert set(pings["users"]) == (set() if pings["ephemeral"] else intended(content)), content
        assert "@everyone" not in content
    assert checked > 20
    pinged = [u for p in fake.pings.values() for u in p["users"]]
    assert int(bob["id"]) in pinged  # in his own game, on his turns
