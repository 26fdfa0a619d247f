"""SIGKILL the real bot while the club plays together. During an open kibitzer vote: after the
restart the onlooker's answer and the player's deadline stand, and the reveal counts it once.
During a chouette's rotation: the game's end is stored with the running ledger and the next
board owed; after the restart each is posted once, and the session goes on."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from tests.e2e.botproc import REAL_BOT
from tests.e2e.fake_discord import custom_ids, has_png
from tests.e2e.players import GameDriver


def deadline_of(board: dict[str, Any]) -> str:
    found = re.search(r"<t:(\d+)", board["content"] or "")
    assert found, board["content"]
    return found[1]


@pytest.mark.slow
async def test_an_open_vote_and_a_chouette_rotation_stand_after_one_sigkill(fake, launch):
    """One kill for both (each bot start costs seconds): an onlooker has answered a poll, and a
    chouette's game was just conceded (its ledger and next board owed, posted or not yet)."""
    bot = await launch(REAL_BOT)
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    general = int(fake.general["id"])

    # an open vote: carol answers the poll on alice's opening play
    game = GameDriver(fake, fake.general, alice, bob, plays_before_double=99)
    board = await game.start()
    ask = next(c for c in custom_ids(board) if c.startswith("bgkz:ask:"))
    opened = await fake.click(carol, int(board["id"]), ask)  # the onlooker's private picker
    picker = await fake.wait_ephemeral(opened, timeout=20)
    vote = next(c for c in custom_ids(picker) if c.startswith("bgkz:vote:"))
    options = [
        o["value"] for row in picker["components"] for item in row["components"] for o in item.get("options", [])
    ]
    answered = await fake.click(carol, int(picker["id"]), vote, values=[options[0]])
    await fake.settle(answered, timeout=20)
    before = deadline_of(board)

    # a chouette in its thread: alice (box), bob (captain), carol (crew)
    started = await fake.slash(alice, fake.general, "bgclub chouette", box=alice, captain=bob, crew1=carol)
    await fake.first_response(started, timeout=20)

    def thread() -> dict[str, Any] | None:
        return next((c for c in fake.channels.values() if str(c.get("parent_id")) == str(general)), None)

    where = await fake.wait_for(thread, 20, "the chouette's thread")

    def pictures() -> list[str]:
        return [
            a["filename"]
            for m in fake.channel_history(where)
            if has_png(fake, m)
            for a in m["attachments"]
            if a["filename"].startswith("board-")
        ]

    def ledgers() -> list[str]:
        return [m["content"] for m in fake.channel_history(where) if "the ledger after game" in (m["content"] or "")]

    def games() -> set[str]:
        return {name.split("-")[1] for name in pictures()}

    await fake.wait_for(lambda: len(games()) == 1, 30, "the chouette's first board", channel=where)
    first = next(m for m in fake.channel_history(where) if has_png(fake, m))
    assert "a chouette's game: box alice against captain bob" in first["content"].lower(), first["content"]
    conceded = await fake.slash(alice, where, "bgclub result", winner="team")  # the box concedes game 1
    await fake.first_response(conceded, timeout=20)

    assert await bot.kill() == -9
    await bot.start()  # same DATABASE_PATH

    # the rotation: its ledger and the next board, once each; the session goes on
    await fake.wait_for(
        lambda: len(ledgers()) >= 1 and len(games()) == 2, 30, "the ledger and the next board", channel=where
    )
    asked = await fake.slash(bob, where, "bgclub ledger")
    shown = await fake.wait_message(asked, lambda m: "Chouette" in (m["content"] or ""), 20, "the ledger")
    text = shown["content"].lower()
    assert "game 2" in text and "box **bob** against captain **carol**" in text, text

    # the vote: the deadline stands, and the reveal counts the answer once
    look = await fake.slash(alice, fake.general, "bg board")
    again = await fake.wait_board(look, timeout=20)
    assert deadline_of(again) == before  # the player's time did not start again
    game.board = again
    await game.step()  # the player acts: the poll is revealed

    def reveals() -> list[str]:
        return [m["content"] for m in fake.channel_history(fake.general) if "Kibitzers · game" in (m["content"] or "")]

    await fake.wait_for(lambda: reveals(), 30, "the poll's reveal", channel=fake.general)
    await fake.settle(await fake.slash(alice, fake.general, "bg board"), timeout=20)
    assert len(reveals()) == 1, reveals()
    assert "one onlooker answered" in reveals()[0], reveals()[0]
    assert len(ledgers()) == 1, ledgers()
    assert "totals: **alice** -2 · **bob** +1 · **carol** +1" in ledgers()[0].lower()
    assert max(Counter(pictures()).values()) == 1, pictures()  # no board posted twice
    assert not fake.missed_deadlines()
