"""Simulated onlookers of a kibitzed game, and the check that its players saw no vote.

An :class:`Onlooker` watches one game's channel and answers its kibitzer polls
(:mod:`bot.discord.kibitzing`): when a poll opens it reads the board (its think
time), presses "What would you play?" under the board in front of it then (the
game may have moved on meanwhile: that board's poll), reads the private menu (a
quarter of a think time) and picks one of its answers at random. A poll whose
player acted meanwhile is closed: the bot refuses the press or the answer. Then
it waits for the next poll, until the game is over.

:func:`privacy_violations` goes through every text the stand-in delivered
(:attr:`FakeDiscord.received`) to the two players of each kibitzed game (the
channel's public messages and their own ephemerals): a vote count, an
onlooker's answer or any word of the poll's answers there is a violation,
unless it is the reveal of a poll its player had already acted on.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.fake_discord import EPHEMERAL, LOADING, MODAL, FakeDiscord, Interaction, custom_ids, select_options
from tests.e2e.players import GameDriver, poll_of_board

VOTE_WORDS = re.compile(r"kibitzer|\bvotes?\b|onlooker|your answer", re.IGNORECASE)
"""Words that tell of a poll's answers (the reveal's, an onlooker's acknowledgement's)."""
REVEAL = re.compile(r"Kibitzers · game #(\d+), board (\d+)")
"""The head of a poll's reveal (:func:`bot.discord.kibitzing.reveal_text`)."""
CLOSED = re.compile(r"has acted", re.IGNORECASE)
"""The bot's refusal of an answer to a poll whose player acted already."""
TYPED = re.compile(r"type yours", re.IGNORECASE)
"""More plays than a menu holds, and a press the bot had to defer: press again to type one."""
VOTE_SELECT = "bgkz:vote:"


@dataclass
class PollCounts:
    """What one onlooker (or all, added up) did with the polls."""

    seen: int = 0
    """Polls the onlooker set out to answer (one opened; it began to read the board)."""
    gone: int = 0
    """Readings after which no poll was open (the game went on to a board without one)."""
    sent: int = 0
    """Answers sent (picked in the private menu)."""
    recorded: int = 0
    """Answers the bot acknowledged as kept."""
    closed: int = 0
    """Presses or answers refused because the player had acted meanwhile."""
    typed: int = 0
    """Polls with more plays than a menu holds (the bot asks for a typed play: not answered here)."""
    refused: list[str] = field(default_factory=list)
    """Any other private answer (an error, a cooldown): its text."""

    def add(self, other: PollCounts) -> None:
        for name in ("seen", "gone", "sent", "recorded", "closed", "typed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.refused += other.refused


@dataclass
class Onlooker:
    fake: FakeDiscord
    driver: GameDriver
    """The game watched (its channel, and whether it is over)."""
    user: dict[str, Any]
    think: tuple[float, float] = (1.0, 5.0)
    """Seconds to read the board before pressing the button (uniform); a quarter of a draw to pick."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    timeout: float = 30.0
    actions: list[tuple[str, Interaction]] = field(default_factory=list)
    counts: PollCounts = field(default_factory=PollCounts)
    answered: set[tuple[int, int]] = field(default_factory=set)
    """The polls (game, version) this onlooker's answer was kept for."""
    errors: list[str] = field(default_factory=list)
    """What went wrong with a poll (a missed deadline, no answer in time): the onlooker goes on."""

    async def _pause(self, share: float = 1.0) -> None:
        low, high = self.think
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high) * share)

    def _next_poll(self, after: int) -> tuple[str, dict[str, Any] | None] | None:
        if self.driver.done:
            return ("over", None)
        for message in reversed(self.fake.with_components(self.driver.channel)):  # the newest board first
            poll = poll_of_board(message)
            if poll is not None and poll[1] > after:
                return ("poll", message)
        return None

    async def run(self) -> None:
        """Answer the game's polls until it is over."""
        last = -1
        while True:
            try:
                what, _board = await self.fake.wait_for(
                    lambda: self._next_poll(last), self.timeout, "a poll", poll=0.5, channel=self.driver.channel
                )
            except TimeoutError:
                continue  # a stretch of the game with nothing to ask (forced plays, a dead cube)
            if what == "over":
                return
            self.counts.seen += 1
            await self._pause()  # read the board; the game may have moved on meanwhile
            found = self._next_poll(last)
            if found is None or found[1] is None:
                self.counts.gone += 1  # no poll open now: the board in front of the onlooker has none
                continue
            board = found[1]
            poll = poll_of_board(board)
            assert poll is not None
            last = poll[1]
            try:
                await self._answer(board, poll)
            except (AssertionError, TimeoutError) as error:
                self.errors.append(f"poll {poll}: {type(error).__name__}: {str(error)[:2000]}")

    async def _private_answer(self, inter: Interaction, besides: int | None) -> dict[str, Any] | None:
        """The private message answering ``inter`` (None: a modal instead)."""
        await self.fake.first_response(inter, self.timeout)
        if inter.response_type == MODAL:
            return None
        return await self.fake.wait_message(
            inter,
            lambda m: bool(m["flags"] & EPHEMERAL) and not m["flags"] & LOADING and int(m["id"]) != besides,
            self.timeout,
            "a private answer",
        )

    async def _answer(self, board: dict[str, Any], poll: tuple[int, int]) -> None:
        ask = await self.fake.click(self.user, int(board["id"]), f"bgkz:ask:{poll[0]}:{poll[1]}")
        self.actions.append(("kibitz-ask", ask))
        menu = await self._private_answer(ask, int(board["id"]))
        if menu is None:
            self.counts.typed += 1
            return
        select = next((c for c in custom_ids(menu) if c.startswith(VOTE_SELECT)), None)
        if select is None:
            self._refused(menu)
            return
        await self._pause(0.25)
        choice = self.rng.choice(select_options(menu, VOTE_SELECT))
        vote = await self.fake.click(self.user, int(menu["id"]), select, values=[choice])
        self.actions.append(("kibitz-vote", vote))
        self.counts.sent += 1
        answer = await self._private_answer(vote, int(menu["id"]))
        if answer is not None and (answer.get("content") or "").startswith("Your answer"):
            self.counts.recorded += 1
            self.answered.add(poll)
        elif answer is not None:
            self._refused(answer)

    def _refused(self, message: dict[str, Any]) -> None:
        text = message.get("content") or ""
        if CLOSED.search(text):
            self.counts.closed += 1
        elif TYPED.search(text):
            self.counts.typed += 1
        else:
            self.counts.refused.append(text)


@dataclass
class Reveals:
    """The reveals posted in the kibitzed games' channels."""

    posted: dict[tuple[int, int], float] = field(default_factory=dict)
    """(game, version) -> when its reveal reached the channel."""
    with_verdict: int = 0
    """Reveals that carry the net's verdict."""


def reveals(fake: FakeDiscord, drivers: list[GameDriver]) -> Reveals:
    channels = {int(d.channel["id"]) for d in drivers}
    found = Reveals()
    for item in fake.received:
        if item.recipient is None and item.channel_id in channels:
            head = REVEAL.search(item.text)
            if head is not None and (key := (int(head[1]), int(head[2]))) not in found.posted:
                found.posted[key] = item.at
                found.with_verdict += "The net (GNU Backgammon" in item.text
    return found


def privacy_violations(fake: FakeDiscord, drivers: list[GameDriver]) -> list[str]:
    """Texts the players of the kibitzed games (``drivers``) received that told of a poll's
    answers before they acted on it (needs :attr:`FakeDiscord.record_received`)."""
    games = {int(d.channel["id"]): d for d in drivers}
    violations = []
    for item in fake.received:
        driver = games.get(item.channel_id)
        if driver is None or (item.recipient is not None and item.recipient not in driver.users):
            continue
        if not VOTE_WORDS.search(item.text):
            continue
        head = REVEAL.search(item.text) if item.recipient is None else None
        if head is not None:
            acted = driver.acted_on.get((int(head[1]), int(head[2])))
            if acted is not None and acted <= item.at:
                continue  # the reveal of a poll its player had acted on
        who = "everyone in the channel" if item.recipient is None else f"player {item.recipient}"
        violations.append(f"{who} in {driver.channel['name']} received: {item.text[:300]!r}")
    return violations
