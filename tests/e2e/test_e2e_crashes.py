"""SIGKILL the real bot at random points of full games, and start it again.

Kill points (seeded, in turn): just after a Roll click (before, during or
after its transaction), between a stored action and its post (the stand-in
makes the post but holds back Discord's answer, so the bot dies not knowing),
during a reminder (claimed and posted, the answer held back), and during the
computer's moves. After every restart:

- within 10 s each active game shows exactly one board with live controls,
  for the version stored, and no version of a game is shown twice;
- the stored log of a game between people equals its log at the kill (the
  computer's game may only have gone on);
- every reminder owed is posted exactly once.

``BG_CRASH_KILLS`` sets the number of kills (4 in the suite: each kind once;
``make soak`` runs 60).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.botproc import REAL_BOT, BotProcess
from tests.e2e.fake_discord import ACK_DEADLINE, FakeDiscord, select_options
from tests.e2e.players import actor_of, control, game_controls

KILLS = int(os.environ.get("BG_CRASH_KILLS", "4"))
CONTROL = re.compile(r"^bg:[a-z]+:(\d+):(\d+)")
PICTURE = re.compile(r"^board-(\d+)-(\d+)\.png$")
PLAYS_BEFORE_DOUBLE = 12
"""Plays in a game between people before its player on roll doubles and the other passes (games end)."""


def read_db(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def write_db(path: Path, sql: str, params: tuple[Any, ...] = ()) -> None:
    con = sqlite3.connect(path, timeout=10)
    try:
        con.execute(sql, params)
        con.commit()
    finally:
        con.close()


@dataclass
class Table:
    """One channel with one game at a time: two people, or a person and the computer."""

    channel: dict[str, Any]
    players: tuple[dict[str, Any], ...]
    computer: bool = False
    plays: int = 0


class Crashes:
    def __init__(self, fake: FakeDiscord, bot: BotProcess, rng: random.Random) -> None:
        self.fake = fake
        self.bot = bot
        self.rng = rng
        self.db = bot.database
        self.tables: list[Table] = []
        self.reminders_owed: Counter[int] = Counter()  # game id -> reminders it must have posted
        self.kills: list[float] = []  # when the bot was killed (monotonic)

    async def kill(self) -> None:
        self.kills.append(time.monotonic())
        await self.bot.kill()

    def missed_deadlines(self) -> list[int]:
        """Interactions not answered in time, but for those whose bot was killed before their
        deadline: nobody can answer those (Discord shows "This interaction failed")."""
        return [
            i.id
            for i in self.fake.missed_deadlines()
            if not any(i.dispatched_at <= kill <= i.dispatched_at + ACK_DEADLINE for kill in self.kills)
        ]

    # -- what the database and the channel say ---------------------------------------------

    def active(self) -> dict[int, tuple[int, int]]:
        """channel id -> (game id, version) of its active game."""
        rows = read_db(self.db, "SELECT channel_id, id, version FROM games WHERE status = 'active'")
        return {channel: (game, version) for channel, game, version in rows}

    def log(self, game_id: int) -> list[str]:
        return [r[0] for r in read_db(self.db, "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]

    def live_boards(self, channel: dict[str, Any]) -> list[dict[str, Any]]:
        return [m for m in self.fake.channel_history(channel) if game_controls(m)]

    def problems(self) -> list[str]:
        """What breaks "one live board per game, for the version stored" right now."""
        found = []
        active = self.active()
        for table in self.tables:
            channel_id = int(table.channel["id"])
            live = self.live_boards(table.channel)
            if channel_id not in active:
                if live:
                    found.append(f"channel {channel_id}: no game but {len(live)} live boards")
                continue
            game_id, version = active[channel_id]
            if table.computer and not live:
                continue  # the computer is to act: nothing to click (it plays by itself)
            if len(live) != 1:
                found.append(f"game {game_id}: {len(live)} live boards")
                continue
            shown = {seen.groups() for c in game_controls(live[0]) if (seen := CONTROL.match(c))}
            if shown != {(str(game_id), str(version))}:
                found.append(f"game {game_id} at version {version}: the live board's controls are for {shown}")
        return found

    def pictures(self) -> Counter[tuple[int, int]]:
        """How many messages show each (game, version)."""
        seen: Counter[tuple[int, int]] = Counter()
        for table in self.tables:
            for message in self.fake.channel_history(table.channel):
                for attachment in message.get("attachments", []):
                    named = PICTURE.match(attachment.get("filename", ""))
                    if named:
                        seen[(int(named[1]), int(named[2]))] += 1
        return seen

    def reminders(self) -> Counter[int]:
        seen: Counter[int] = Counter()
        for table in self.tables:
            for message in self.fake.channel_history(table.channel):
                named = re.search(r"move in game #(\d+)", message.get("content") or "")
                if message.get("content", "").startswith("⏰") and named:
                    seen[int(named[1])] += 1
        return seen

    async def settled(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            found = self.problems()
            if not found:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{timeout:.0f} s after the restart: {found}\n{self.fake.describe()}")
            await asyncio.sleep(0.05)

    # -- playing ---------------------------------------------------------------------------

    async def start(self, table: Table) -> None:
        if table.computer:
            inter = await self.fake.slash(table.players[0], table.channel, "bg computer", level="beginner")
        else:
            challenger, challenged = table.players
            inter = await self.fake.slash(challenger, table.channel, "bg challenge", opponent=challenged)
            message = await self.fake.wait_message(inter, lambda m: any(c.startswith("bg:ch:accept:") for c in _ids(m)))
            accept = next(c for c in _ids(message) if c.startswith("bg:ch:accept:"))
            inter = await self.fake.click(challenged, int(message["id"]), accept)
        await self.fake.wait_board(inter, timeout=10)
        table.plays = 0
        await self.settled()

    async def act(self, table: Table) -> Any:
        """The person to act in the table's game does one thing (a new game if there is none)."""
        if int(table.channel["id"]) not in self.active():
            await self.start(table)
        live = self.live_boards(table.channel)
        if not live:  # the computer is thinking
            return None
        (board,) = live
        actor = self.fake.users[actor_of(board)]  # type: ignore[index]
        board_id = int(board["id"])
        select = control(board, "play")
        if select is not None:
            table.plays += 1
            return await self.fake.click(actor, board_id, select, values=[select_options(board, select)[0]])
        roll, double = control(board, "roll"), control(board, "double")
        if roll is not None:
            if double is not None and not table.computer and table.plays >= PLAYS_BEFORE_DOUBLE:
                return await self.fake.click(actor, board_id, double)
            return await self.fake.click(actor, board_id, roll)
        for answer in ("pass", "take", "raccept"):
            found = control(board, answer)
            if found is not None:
                return await self.fake.click(actor, board_id, found)
        # too many plays for a menu: type the first legal one
        table.plays += 1
        auto = await self.fake.autocomplete(actor, table.channel, "bg move", "play", play="")
        await self.fake.first_response(auto)
        choices = [c["value"] for c in (auto.response_data or {}).get("choices", [])]
        assert choices, f"no legal plays offered for {board['content']!r}"
        return await self.fake.slash(actor, table.channel, "bg move", play=choices[0])

    async def act_and_wait(self, table: Table) -> None:
        inter = await self.act(table)
        if inter is not None:
            await self.fake.settle(inter)
        await self.settled()

    # -- killing -----------------------------------------------------------------------------

    async def restart_and_check(self, before: dict[int, list[str]], computer_games: set[int]) -> None:
        await self.bot.start()
        await self.settled()
        for game_id, log in before.items():
            after = self.log(game_id)
            if game_id in computer_games:
                assert after[: len(log)] == log, f"game {game_id}: the log changed under the computer"
            else:
                assert after == log, f"game {game_id}: stored {len(log)} actions at the kill, {len(after)} after"
        doubled = {shown: n for shown, n in self.pictures().items() if n > 1}
        assert not doubled, f"boards posted twice: {doubled}"

    def snapshot(self) -> tuple[dict[int, list[str]], set[int]]:
        active = self.active()
        computer = {
            active[int(t.channel["id"])][0] for t in self.tables if t.computer and int(t.channel["id"]) in active
        }
        return {game: self.log(game) for game, _ in active.values()}, computer

    async def kill_after_roll(self) -> str:
        table = self.rng.choice([t for t in self.tables if not t.computer])
        for _ in range(8):  # play on to a Roll
            board = next(iter(self.live_boards(table.channel)), None)
            if board is not None and control(board, "roll") is not None and table.plays < PLAYS_BEFORE_DOUBLE:
                break
            await self.act_and_wait(table)
        board = self.live_boards(table.channel)[0]
        actor = self.fake.users[actor_of(board)]  # type: ignore[index]
        roll = control(board, "roll")
        if roll is None:
            return "no roll to kill after"
        await self.fake.click(actor, int(board["id"]), roll)
        delay = self.rng.uniform(0, 0.06)
        await asyncio.sleep(delay)
        await self.kill()
        return f"{delay * 1000:.0f} ms after a Roll click"

    async def kill_between_store_and_post(self) -> str:
        table = self.rng.choice([t for t in self.tables if not t.computer])
        await self.act_and_wait(table)  # a settled board to act on
        channel = int(table.channel["id"])
        posts = self.fake.hold("POST", rf"/webhooks/\d+/[^/]+|/channels/{channel}/messages")
        edits = self.fake.hold("PATCH", rf"/webhooks/\d+/[^/]+/messages/[^/]+|/channels/{channel}/messages/\d+")
        try:
            await self.act(table)
            await self.fake.wait_for(lambda: posts.held or edits.held, 10, "a post of the bot to hold")
            await self.kill()
            return f"answer held back for {(posts.held or edits.held)[0]}"
        finally:
            posts.release()
            edits.release()
            self.fake.holds.clear()

    async def kill_during_a_reminder(self) -> str:
        table = self.rng.choice([t for t in self.tables if not t.computer])
        await self.act_and_wait(table)
        if int(table.channel["id"]) not in self.active():  # that action ended the game (the dice are random)
            await self.start(table)
        game_id, version = self.active()[int(table.channel["id"])]
        await self.kill()
        write_db(
            self.db, "UPDATE games SET reminder_at = ?, reminder_sent = 0 WHERE id = ?", (time.time() - 60, game_id)
        )
        self.reminders_owed[game_id] += 1
        posts = self.fake.hold("POST", rf"/channels/{table.channel['id']}/messages")
        try:
            await self.bot.start()
            await self.fake.wait_for(lambda: posts.held, 20, "the reminder's post to hold")
            await self.kill()
        finally:
            posts.release()
            self.fake.holds.clear()
        return f"reminder of game {game_id} posted, answer held back"

    async def kill_during_the_computers_move(self) -> str:
        table = next(t for t in self.tables if t.computer)
        for _ in range(6):
            if self.live_boards(table.channel) or int(table.channel["id"]) not in self.active():
                break
            await asyncio.sleep(0.5)  # the computer finishes its turn
        await self.act(table)
        delay = self.rng.uniform(0, 3.0)
        await asyncio.sleep(delay)
        await self.kill()
        return f"{delay:.1f} s into the computer's reply"


def _ids(message: dict[str, Any]) -> list[str]:
    return [
        i["custom_id"] for r in message.get("components", []) for i in r.get("components", []) if i.get("custom_id")
    ]


@pytest.mark.slow
async def test_killed_at_random_points_the_games_come_back_whole(fake, launch):
    bot = await launch(REAL_BOT)
    crashes = Crashes(fake, bot, random.Random(1925))
    users = [fake.add_user(name) for name in ("ann", "ben", "cat", "dan", "eve")]
    crashes.tables = [
        Table(fake.general, (users[0], users[1])),
        Table(fake.add_channel("table-2"), (users[2], users[3])),
        Table(fake.add_channel("table-3"), (users[4],), computer=True),
    ]
    for table in crashes.tables:
        await crashes.start(table)
    kinds = [
        crashes.kill_after_roll,
        crashes.kill_between_store_and_post,
        crashes.kill_during_a_reminder,
        crashes.kill_during_the_computers_move,
    ]
    tried: list[str] = []
    for number in range(KILLS):
        for table in crashes.tables:  # some play between the kills
            for _ in range(crashes.rng.randint(0, 2)):
                await crashes.act_and_wait(table)
        how = await kinds[number % len(kinds)]()
        tried.append(how)
        before, computer = crashes.snapshot()
        await crashes.restart_and_check(before, computer)
    # every reminder owed, exactly once
    seen = crashes.reminders()
    assert {g: seen[g] for g in crashes.reminders_owed} == dict(crashes.reminders_owed), (seen, tried)
    assert not crashes.missed_deadlines()
    print("\n".join(f"kill {n + 1}: {how}" for n, how in enumerate(tried)))
