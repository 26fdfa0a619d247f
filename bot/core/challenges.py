"""Challenges: one member invites another; the game starts when they accept.

A challenge stays pending for :data:`~bot.core.model.CHALLENGE_LIFETIME`.
Answering one is checked in the answer's own transaction, so a challenge
answered twice (two clicks, two bot processes) is answered once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime

from bot.core.model import (
    CHALLENGE_LIFETIME,
    KEPT_CHALLENGES,
    ChallengeError,
    ChallengeOptions,
    ChallengeView,
    Outcome,
    PlayerRef,
    storage_errors_as_service_errors,
)
from bot.core.players import PlayerNames
from bot.store import ChallengeClosedError, ChallengeRow, NotFoundError, Store

StartGame = Callable[..., Awaitable[Outcome]]
"""How an accepted challenge starts its game: ``(guild_id, channel_id, players, options, *, challenge_id)``."""


@storage_errors_as_service_errors
class Challenges:
    def __init__(
        self, store: Store, names: PlayerNames, clock: Callable[[], datetime], start_game: StartGame
    ) -> None:
        self.store = store
        self.names = names
        self.clock = clock
        self.start_game = start_game
        self._pending: dict[int, ChallengeView] = {}
        """Pending challenges this process made or read, oldest first. Answering
        one starts from here without a read: the answer's own transaction checks
        that it is still pending, which catches one another process answered."""

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        challenger: PlayerRef,
        challenged: PlayerRef,
        options: ChallengeOptions,
    ) -> ChallengeView:
        """Challenge ``challenged`` to a money game or a match in this channel."""
        if challenger.user_id == challenged.user_id:
            raise ChallengeError("you can't challenge yourself: pick another member")
        if challenged.is_bot:
            raise ChallengeError(f"{challenged.name} is a bot and can't play")
        options.validate()
        if not options.thread and await self.store.games.active_in(channel_id) is not None:
            raise ChallengeError(
                "there is already a game in this channel: finish it first, or challenge with thread=True"
            )
        await self.names.remember(challenger)
        await self.names.remember(challenged)
        row = await self.store.challenges.create(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=challenger.user_id,
            challenged=challenged.user_id,
            settings=options.to_dict(),
            match_length=options.match_length,
            expires_at=self.clock() + CHALLENGE_LIFETIME,
        )
        return self.keep(await self.view_of(row))

    async def get(self, challenge_id: int) -> ChallengeView:
        """A challenge as stored now (read from the database)."""
        try:
            row = await self.store.challenges.get(challenge_id)
        except NotFoundError:
            self._pending.pop(challenge_id, None)
            raise ChallengeError("that challenge does not exist any more") from None
        return self.keep(await self.view_of(row))

    async def pending(self, challenge_id: int) -> ChallengeView:
        """A challenge that can still be answered, as this service last saw it
        (no read if it made or read it before; answering it checks again).

        :raises ChallengeError: it was answered, withdrawn or expired, or never existed.
        """
        challenge = self._pending.get(challenge_id) or await self.get(challenge_id)
        if challenge.status != "pending":
            raise ChallengeError(f"this challenge is already {challenge.status}")
        return challenge

    def keep(self, challenge: ChallengeView) -> ChallengeView:
        """Remember a pending challenge, forget an answered one."""
        self._pending.pop(challenge.id, None)
        if challenge.status == "pending":
            self._pending[challenge.id] = challenge
            while len(self._pending) > KEPT_CHALLENGES:
                del self._pending[next(iter(self._pending))]
        return challenge

    async def accept(self, challenge_id: int, user_id: int, *, channel_id: int | None = None) -> Outcome:
        """The challenged player accepts: the game starts with the opening throw."""
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(f"only {challenge.challenged.name} can accept this challenge")
        if challenge.expires_at is not None and challenge.expires_at <= self.clock():
            raise ChallengeError("this challenge has expired: challenge again")
        self._pending.pop(challenge_id, None)  # answered now, or refused: the next look reads it
        try:
            return await self.start_game(
                challenge.guild_id,
                channel_id or challenge.channel_id,
                (challenge.challenger.user_id, challenge.challenged.user_id),
                challenge.options,
                challenge_id=challenge_id,
            )
        except ChallengeClosedError:
            raise ChallengeError("this challenge was already answered") from None

    async def decline(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(f"only {challenge.challenged.name} can decline this challenge")
        return await self._close_challenge(challenge_id, "declined")

    async def cancel(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenger.user_id:
            raise ChallengeError(f"only {challenge.challenger.name} can withdraw this challenge")
        return await self._close_challenge(challenge_id, "cancelled")

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        await self.store.challenges.set_message(challenge_id, message_id)
        kept = self._pending.get(challenge_id)
        if kept is not None:
            self._pending[challenge_id] = replace(kept, message_id=message_id)

    async def _close_challenge(self, challenge_id: int, status: str) -> ChallengeView:
        self._pending.pop(challenge_id, None)
        try:
            row = await self.store.challenges.set_status(challenge_id, status)  # type: ignore[arg-type]
        except ChallengeClosedError:
            raise ChallengeError("this challenge was already answered") from None
        return await self.view_of(row)

    async def view_of(self, row: ChallengeRow) -> ChallengeView:
        challenged = await self.names.get(row.challenged) if row.challenged is not None else PlayerRef(0, "anyone")
        return ChallengeView(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            challenger=await self.names.get(row.challenger),
            challenged=challenged,
            options=ChallengeOptions.from_dict(row.settings),
            status=row.status,
            expires_at=row.expires_at,
            game_id=row.game_id,
            message_id=row.message_id,
        )
