"""Simulated players: read the bot's board messages and act on them like people do.

A :class:`GameDriver` runs one game in one channel between two users:
``/bg challenge`` -> Accept -> plays (the select menu, or ``/bg move`` after an
autocomplete) -> Roll -> ... -> Double -> Pass (or Take), reading whose turn it
is from the board's ``▶ <@id>`` line and what can be done from its components.
It waits for each board image and for the previous board to lose its buttons
(the bot's last step of an action) before the next player acts.
"""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field
from typing import Any

import i18n
from bot.discord.replies import POSTED_BELOW
from tests.e2e.fake_discord import EPHEMERAL, LOADING, FakeDiscord, Interaction, custom_ids, has_png, select_options

ACTOR = re.compile(r"▶ <@(\d+)>")
GAME_CONTROL = re.compile(r"^bg:(roll|double|take|pass|beaver|raccept|rreject|play|b|bc):")
"""Game controls (``b``/``bc``: the move builder's buttons)."""
POLL_BUTTON = re.compile(r"^bgkz:ask:(\d+):(\d+)$")
"""A board's kibitzer poll (:mod:`bot.discord.kibitzing`): its game and version."""


def poll_of_board(message: dict[str, Any] | None) -> tuple[int, int] | None:
    """The (game, version) of the kibitzer poll under a board, if it has one."""
    for custom_id in custom_ids(message) if message is not None else ():
        found = POLL_BUTTON.match(custom_id)
        if found:
            return int(found[1]), int(found[2])
    return None


def private_answer(message: dict[str, Any]) -> bool:
    """Whether ``message`` is a private answer with something to say (a refusal, an
    error): not a "thinking..." still loading, nor the note that the public answer
    follows (a busy bot's, :data:`bot.discord.replies.POSTED_BELOW`)."""
    return bool(
        message["flags"] & EPHEMERAL
        and not message["flags"] & LOADING
        and message.get("content")
        and message["content"] not in POSTED_BELOW_TEXTS
    )


def _in_every_language(message: str) -> frozenset[str]:
    found = set()
    for language in i18n.LANGUAGES:
        with i18n.speaking(language):
            found.add(i18n._(message))
    return frozenset(found)


POSTED_BELOW_TEXTS = _in_every_language(POSTED_BELOW)
"""The note that the public answer follows, in whatever language the players' clients speak."""


def actor_of(message: dict[str, Any]) -> int | None:
    found = ACTOR.search(message.get("content") or "")
    return int(found[1]) if found else None


def game_controls(message: dict[str, Any]) -> list[str]:
    return [c for c in custom_ids(message) if GAME_CONTROL.match(c)]


def control(message: dict[str, Any], action: str) -> str | None:
    return next((c for c in game_controls(message) if c.startswith(f"bg:{action}:")), None)


@dataclass
class GameDriver:
    fake: FakeDiscord
    channel: dict[str, Any]
    challenger: dict[str, Any]
    challenged: dict[str, Any]
    plays_before_double: int = 2
    """Plays made before the player on roll doubles (and the other passes)."""
    take: bool = False
    full: bool = False
    """Play the game to its end: every ``plays_before_double`` plays the player on roll
    doubles if they may, and the other takes (the first legal play is always chosen)."""
    use_slash_move: bool = False
    kibitzers: bool | None = None
    """The challenge's ``kibitzers:`` option (None: not given, the default)."""
    timeout: float = 15.0
    think: tuple[float, float] = (0.0, 0.0)
    """Seconds a player takes to act once the board is up (uniform between the two; 0: at once)."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    board: dict[str, Any] | None = None
    plays: int = 0
    actions: list[tuple[str, Interaction]] = field(default_factory=list)
    game_id: int | None = None
    acted_on: dict[tuple[int, int], float] = field(default_factory=dict)
    """The kibitzer polls the players answered by acting: (game, version) -> when their action was sent."""
    done: bool = False
    """The driver stopped (the game over, or an error)."""

    @property
    def users(self) -> dict[int, dict[str, Any]]:
        return {int(self.challenger["id"]): self.challenger, int(self.challenged["id"]): self.challenged}

    def live_boards(self) -> list[dict[str, Any]]:
        return [m for m in self.fake.with_components(self.channel) if game_controls(m)]

    async def _expect(self, inter: Interaction, predicate: Any, what: str) -> dict[str, Any]:
        """The message of ``inter`` matching ``predicate``; fails at once on a private (error) answer instead."""
        fake = self.fake

        def found() -> Any:
            ids = list(inter.messages) + ([inter.original_id] if inter.original_id not in inter.messages else [])
            for mid in ids:
                message = fake.messages.get(mid) if mid is not None else None
                if message is None:
                    continue
                if predicate(message):
                    return ("ok", message)
                if private_answer(message):
                    return ("private", message)
            return None

        try:
            kind, message = await fake.wait_for(
                found, self.timeout, f"{what} for interaction {inter.id}", channel=inter.channel_id
            )
        except TimeoutError as error:
            seen = [
                (fake.messages[m]["content"][:200], fake.messages[m]["flags"])
                for m in inter.messages
                if m in fake.messages
            ]
            raise TimeoutError(
                f"{error}\nresponse type {inter.response_type} after "
                f"{inter.first_response_latency}; its messages: {seen}"
            ) from None
        if kind == "private":
            raise AssertionError(f"expected {what}, got a private answer: {message['content']!r}\n{fake.describe()}")
        return message

    async def _after(self, inter: Interaction) -> dict[str, Any]:
        """Wait for the board of ``inter`` and for the previous board to lose its controls."""
        board = await self._expect(
            inter, lambda m: inter.board_at is not None and has_png(self.fake, m), "a board image"
        )
        try:
            await self.fake.wait_for(
                lambda: [int(m["id"]) for m in self.live_boards()] in ([], [int(board["id"])]),
                self.timeout,
                f"the old board of game {self.game_id} to lose its controls",
                channel=self.channel,
            )
        except TimeoutError as error:
            live = [(m["id"], (m.get("content") or "")[:120], game_controls(m)) for m in self.live_boards()]
            first, _, rest = str(error).partition("\n")
            raise TimeoutError(
                f"{first}\nnew board {board['id']} after {inter.payload.get('data', {}).get('custom_id') or 'a command'}; "
                f"boards with controls: {live}\n{rest}"
            ) from None
        self.board = board
        return board

    async def challenge(self) -> dict[str, Any]:
        options: dict[str, Any] = {} if self.kibitzers is None else {"kibitzers": self.kibitzers}
        inter = await self.fake.slash(
            self.challenger, self.channel, "bg challenge", opponent=self.challenged, **options
        )
        self.actions.append(("challenge", inter))
        return await self._expect(
            inter, lambda m: any(c.startswith("bg:ch:accept:") for c in custom_ids(m)), "the challenge"
        )

    async def accept(self, challenge_message: dict[str, Any]) -> dict[str, Any]:
        accept = next(c for c in custom_ids(challenge_message) if c.startswith("bg:ch:accept:"))
        inter = await self.fake.click(self.challenged, int(challenge_message["id"]), accept)
        self.actions.append(("accept", inter))
        board = await self._after(inter)
        found = re.search(r"Game #(\d+)", board["content"])
        self.game_id = int(found[1]) if found else None
        return board

    async def start(self) -> dict[str, Any]:
        challenge = await self.challenge()
        await self._think()
        return await self.accept(challenge)

    async def _think(self) -> None:
        low, high = self.think
        if high > 0:
            await asyncio.sleep(self.rng.uniform(low, high))

    def over(self) -> bool:
        return self.board is not None and actor_of(self.board) is None

    async def step(self) -> Interaction:
        """The player to act does one thing. Returns the interaction."""
        await self._think()
        board = self.board
        assert board is not None and not self.over(), "no game to play"
        poll = poll_of_board(board)
        acted = len(self.actions)
        try:
            return await self._act(board)
        finally:
            if poll is not None and len(self.actions) > acted:
                self.acted_on[poll] = self.actions[-1][1].dispatched_at

    async def _act(self, board: dict[str, Any]) -> Interaction:
        actor = self.users[actor_of(board)]  # type: ignore[index]
        board_id = int(board["id"])
        roll, double = control(board, "roll"), control(board, "double")
        if roll is not None:
            if double is not None and self.plays >= self.plays_before_double:
                if self.full:
                    self.plays = 0  # the next double some plays later
                return await self._click("double", actor, board_id, double)
            return await self._click("roll", actor, board_id, roll)
        if control(board, "pass") is not None:
            if self.take or self.full:
                return await self._click("take", actor, board_id, control(board, "take"))  # type: ignore[arg-type]
            return await self._click("pass", actor, board_id, control(board, "pass"))  # type: ignore[arg-type]
        select = control(board, "play")
        if select is not None or control(board, "b") is not None:  # a menu, or the builder when plays are many
            self.plays += 1
            if self.use_slash_move or select is None:
                # type the play: ask autocomplete for the legal ones, then /bg move the first
                auto = await self.fake.autocomplete(actor, self.channel, "bg move", "play", play="")
                self.actions.append(("autocomplete", auto))
                await self.fake.first_response(auto, self.timeout)
                choices = [c["value"] for c in (auto.response_data or {}).get("choices", [])]
                assert choices, f"no legal plays offered for {board['content']!r}"
                if select is not None:
                    assert set(choices) <= set(select_options(board, select)), (choices, select_options(board, select))
                inter = await self.fake.slash(actor, self.channel, "bg move", play=choices[0])
                self.actions.append(("move", inter))
                await self._after(inter)
                return inter
            options = select_options(board, select)
            inter = await self.fake.click(actor, board_id, select, values=[options[0]])
            self.actions.append(("play", inter))
            await self._after(inter)
            return inter
        raise AssertionError(
            f"don't know how to act on board {board['id']} {board['content']!r} with {custom_ids(board)}; "
            f"boards with controls: {[(m['id'], game_controls(m)) for m in self.live_boards()]}"
        )

    async def _click(self, name: str, user: dict[str, Any], message_id: int, custom_id: str) -> Interaction:
        inter = await self.fake.click(user, message_id, custom_id)
        self.actions.append((name, inter))
        await self._after(inter)
        return inter

    async def play_out(self, max_steps: int | None = None) -> dict[str, Any]:
        """Act until the game is over (at most ``max_steps``: 60, or 2,000 for a full game)."""
        for _ in range(max_steps or (2000 if self.full else 60)):
            if self.over():
                assert self.board is not None
                return self.board
            await self.step()
        raise AssertionError(f"game {self.game_id} not over after {max_steps} steps")


def is_ephemeral(message: dict[str, Any]) -> bool:
    return bool(message["flags"] & EPHEMERAL)


__all__ = ["GameDriver", "actor_of", "control", "game_controls", "has_png", "is_ephemeral"]
