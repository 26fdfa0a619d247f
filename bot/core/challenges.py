"""Challenges: one member invites another; the game starts when they accept.

A challenge stays pending for :data:`~bot.core.model.CHALLENGE_LIFETIME`.
Answering one is checked in the answer's own transaction, so a challenge
answered twice (two clicks, two bot processes) is answered once.

The game's dice are committed with the challenge: its secret seed is drawn
when the challenge is made and only its commitment is shown; accepting salts
it with what the bot cannot choose (the Accept click's Discord id, the
players' own seeds; :mod:`engine.fairdice`).

Nobody is seated in a game without accepting it, a practice game from a set-up
position included (:meth:`Challenges.create_practice`). And a member can't
flood others with challenges: a few may wait for an answer from one member,
and a few for one member's answer (:class:`~bot.core.model.Limits`), counted in
the transaction that makes a challenge, so two bot processes can't exceed it.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.core.lru import Lru
from bot.core.model import (
    CHALLENGE_LIFETIME,
    KEPT_CHALLENGES,
    ChallengeError,
    ChallengeOptions,
    ChallengeView,
    GameState,
    GameSummary,
    Limits,
    Outcome,
    PlayerRef,
    TeamSeat,
    storage_errors_as_service_errors,
)
from bot.core.players import PlayerNames
from bot.store import ChallengeClosedError, ChallengeLimitError, ChallengeRow, NotFoundError, Store
from engine import CHECKERS, Game
from engine.fairdice import commitment, new_seed, player_part
from engine.ids import gnubg_id_of
from engine.xgid import looks_like_xgid
from i18n import N_, _, ngettext, worded

CLOSED = {
    "accepted": N_("this challenge is already accepted"),
    "declined": N_("this challenge is already declined"),
    "cancelled": N_("this challenge is already cancelled"),
    "expired": N_("this challenge is already expired"),
    "answered": N_("this challenge was already answered"),
}
"""What a challenge no longer pending says, by its status: a whole sentence each."""

FairDice = dict[str, Any]
"""A game's dice record: ``commitment``, ``nonce``, ``seed`` (secret until the end), ``salt``."""


def new_fair_dice(seed: bytes, label: str) -> FairDice:
    """A fresh dice record for a seed: its commitment and a public nonce."""
    return {"commitment": commitment(seed), "nonce": f"bg-{label}-{secrets.token_hex(8)}", "seed": seed.hex()}


def seats(challenge: ChallengeView) -> tuple[int, int]:
    """The players' ids in seat order: the challenger at ``options.challenger_seat``."""
    pair = (challenge.challenger.user_id, challenge.challenged.user_id)
    return pair if challenge.options.challenger_seat == 0 else (pair[1], pair[0])


def salt_of(
    accepted_by: int | None, challenger_seed: str | None = None, accepter_seed: str | None = None
) -> str | None:
    """The salt an accepted challenge's dice are mixed with (see :mod:`engine.fairdice`)."""
    parts = [f"accept={accepted_by}"] if accepted_by else []
    if challenger_seed:
        parts.append(player_part("challenger", challenger_seed))
    if accepter_seed:
        parts.append(player_part("accepter", accepter_seed))
    return ";".join(parts) or None


StartGame = Callable[..., Awaitable[Outcome]]
"""How an accepted challenge starts its game: ``(guild_id, channel_id, players, options, *, challenge_id, gnubg_id)``."""


def practice_id(position_id: str) -> str:
    """The GNU Backgammon ID (``PositionID:MatchID``) a practice game starts
    from, given a GNU Backgammon ID or an XGID (told apart and converted by
    the engine), checked as :func:`practice_position` checks it.

    :raises ChallengeError: saying what is wrong with the ID.
    """
    position_id = position_id.strip()
    refusal = (
        _("that is not an XGID I can set up")
        if looks_like_xgid(position_id)
        else _("that is not a GNU Backgammon ID I can set up")
    )
    try:
        gnubg_id = gnubg_id_of(position_id)
    except ValueError as error:  # IdError, XgidError
        raise ChallengeError(f"{refusal}: {worded(error)}") from None
    practice_position(gnubg_id, refusal)
    return gnubg_id


def practice_position(gnubg_id: str, refusal: str | None = None) -> Game:
    """The game a practice starts from: a GNU Backgammon ID the engine reads, of a
    game still to be played, with a cube the bot plays with.

    :raises ChallengeError: saying what is wrong with the ID.
    """
    refusal = refusal or _("that is not a GNU Backgammon ID I can set up")
    try:
        game = Game.from_gnubg_id(gnubg_id)
    except ValueError as error:  # IdError, PositionError, GameError: the engine's refusals all are
        raise ChallengeError(f"{refusal}: {worded(error)}") from None
    # Checked here too, whatever the engine's reading allows: these are what
    # a practice game would be gamed with (a won game, a cube worth thousands).
    if game.is_over or CHECKERS in game.position.off:  # one side has borne every checker off
        raise ChallengeError(
            _("{refusal}: that game is already over, and a practice game needs checkers to play").format(
                refusal=refusal
            )
        )
    limit = game.settings.cube_limit
    if game.cube_value > limit or game.offered_cube is not None and game.offered_cube > limit:
        raise ChallengeError(
            _("{refusal}: its cube is above {limit}, the highest it goes").format(refusal=refusal, limit=limit)
        )
    return game


@storage_errors_as_service_errors
class Challenges:
    def __init__(
        self,
        store: Store,
        names: PlayerNames,
        clock: Callable[[], datetime],
        start_game: StartGame,
        seed_source: Callable[[], bytes] = new_seed,
        limits: Limits | None = None,
    ) -> None:
        self.store = store
        self.names = names
        self.clock = clock
        self.start_game = start_game
        self.seed_source = seed_source
        self._secrets: dict[int, tuple[FairDice | None, str | None]] = {}
        """The dice seed and the challenger's own seed of each challenge in :attr:`_pending`."""
        self.limits = limits or Limits()
        self._pending: Lru[int, ChallengeView] = Lru(KEPT_CHALLENGES, self._forgotten)
        """Pending challenges this process made or read (the least recently used forgotten first). Answering
        one starts from here without a read: the answer's own transaction checks
        that it is still pending, which catches one another process answered."""

    def _forgotten(self, challenge_id: int) -> None:
        self._secrets.pop(challenge_id, None)

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        challenger: PlayerRef,
        challenged: PlayerRef,
        options: ChallengeOptions,
        *,
        seed: str | None = None,
    ) -> ChallengeView:
        """Challenge ``challenged`` to a money game or a match in this channel;
        ``seed``: the challenger's own text for the dice (see the module).

        :raises ChallengeError: also when the challenger, or ``challenged``, already
            has as many challenges waiting for an answer as :attr:`limits` allow.
        """
        if challenger.user_id == challenged.user_id:
            raise ChallengeError(_("you can't challenge yourself: pick another member"))
        if challenged.is_bot:
            raise ChallengeError(_("{name} is a bot and can't play").format(name=challenged.name))
        options.validate(self.limits.max_stake)
        if options.gnubg_id is not None:
            practice_position(options.gnubg_id)
        if not options.thread and await self.store.games.active_in(channel_id) is not None:
            raise ChallengeError(
                _("there is already a game in this channel: finish it first, or challenge with thread=True")
            )
        await self.names.remember(challenger)
        await self.names.remember(challenged)
        try:
            row = await self.store.challenges.create(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger=challenger.user_id,
                challenged=challenged.user_id,
                settings={
                    **options.to_dict(),
                    "fair_dice": new_fair_dice(self.seed_source(), "challenge"),
                    **({"challenger_seed": seed} if seed else {}),
                },
                match_length=options.match_length,
                expires_at=self.clock() + CHALLENGE_LIFETIME,
                max_by_challenger=self.limits.pending_per_challenger,
                max_for_challenged=self.limits.pending_per_challenged,
                rematch_of=options.rematch_of,
            )
        except ChallengeLimitError as error:
            if error.side == "rematch":
                raise ChallengeError(
                    _("a rematch of game #{rematch_of} is already waiting for an answer: one at a time").format(
                        rematch_of=options.rematch_of
                    )
                ) from None
            if error.side == "challenger":
                raise ChallengeError(
                    ngettext(
                        "you already have {limit} challenge waiting for an answer: "
                        "withdraw one, or wait until one is answered or expires",
                        "you already have {limit} challenges waiting for an answer: "
                        "withdraw one, or wait until one is answered or expires",
                        error.limit,
                    ).format(limit=error.limit)
                ) from None
            raise ChallengeError(
                ngettext(
                    "{name} already has {limit} challenge waiting for an answer: try again once they have answered some",
                    "{name} already has {limit} challenges waiting for an answer: try again once they have answered some",
                    error.limit,
                ).format(name=challenged.name, limit=error.limit)
            ) from None
        return self.keep(await self.view_of(row))

    async def create_practice(
        self,
        guild_id: int,
        channel_id: int,
        challenger: PlayerRef,
        challenged: PlayerRef,
        position_id: str,
        *,
        options: ChallengeOptions | None = None,
    ) -> ChallengeView:
        """Challenge a member to an unrated practice game from a GNU Backgammon ID
        (``PositionID:MatchID``) or an XGID (kept as the GNU Backgammon ID it
        means): one game, the challenger seated as player 0 of the Match ID
        (the top player of the XGID), started only when ``challenged`` accepts."""
        options = replace(
            options or ChallengeOptions(),
            practice=True,
            gnubg_id=practice_id(position_id),
            match_length=0,
            jacoby=False,
            beavers=False,
            automatic_doubles=False,
            thread=False,
        )
        return await self.create(guild_id, channel_id, challenger, challenged, options)

    async def get(self, challenge_id: int) -> ChallengeView:
        """A challenge as stored now (read from the database)."""
        try:
            row = await self.store.challenges.get(challenge_id)
        except NotFoundError:
            self._pending.pop(challenge_id, None)
            raise ChallengeError(_("that challenge does not exist any more")) from None
        return self.keep(await self.view_of(row))

    async def pending(self, challenge_id: int) -> ChallengeView:
        """A challenge that can still be answered, as this service last saw it
        (no read if it made or read it before; answering it checks again).

        :raises ChallengeError: it was answered, withdrawn or expired, or never existed.
        """
        challenge = self._pending.get(challenge_id) or await self.get(challenge_id)
        if challenge.status != "pending":
            raise ChallengeError(_(CLOSED.get(challenge.status, CLOSED["answered"])))
        return challenge

    def keep(self, challenge: ChallengeView) -> ChallengeView:
        """Remember a pending challenge, forget an answered one."""
        self._pending.pop(challenge.id, None)
        if challenge.status == "pending":
            self._pending[challenge.id] = challenge  # the least recently used forgotten past KEPT_CHALLENGES
        else:
            self._secrets.pop(challenge.id, None)
        return challenge

    async def accept(
        self,
        challenge_id: int,
        user_id: int,
        *,
        channel_id: int | None = None,
        accepted_by: int | None = None,
        seed: str | None = None,
        teams: tuple[TeamSeat, ...] | None = None,
    ) -> Outcome:
        """The challenged player accepts: the game starts with the opening throw.

        ``accepted_by``: the Discord id of the accepting click; ``seed``: the
        accepter's own text. Both salt the committed dice. ``teams``: a consultation
        challenge's teams as they play (their threads and captains, known once accepted)."""
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(_("only {name} can accept this challenge").format(name=challenge.challenged.name))
        if challenge.expires_at is not None and challenge.expires_at <= self.clock():
            raise ChallengeError(_("this challenge has expired: challenge again"))
        self._pending.pop(challenge_id, None)  # answered now, or refused: the next look reads it
        secret = self._secrets.pop(challenge_id, None)
        if secret is None:  # made by another process, or forgotten: read it
            row = await self.store.challenges.get(challenge_id)
            secret = (row.settings.get("fair_dice"), row.settings.get("challenger_seed"))
        fair, challenger_seed = secret
        if fair is not None:
            fair = {**fair, "salt": salt_of(accepted_by, challenger_seed, seed)}
        try:
            return await self.start_game(
                challenge.guild_id,
                channel_id or challenge.channel_id,
                seats(challenge),
                challenge.options if teams is None else replace(challenge.options, teams=teams),
                challenge_id=challenge_id,
                fair=fair,
                gnubg_id=challenge.options.gnubg_id,
            )
        except ChallengeClosedError:
            raise ChallengeError(_("this challenge was already answered")) from None

    async def rematch(self, game: GameState | GameSummary, player: PlayerRef, *, double: bool = False) -> ChallengeView:
        """``player`` asks the other player of a finished game for a rematch:
        the same settings with the colours swapped (``double``: a money game at
        twice the stake, "double or nothing"). The other player accepts as any
        challenge, so nobody is seated without their consent.

        :raises ChallengeError: for a game still being played, a practice game, an
            asker who did not play it, an opponent who is the computer, or a double
            stake past the limit.
        """
        if game.is_active:
            raise ChallengeError(_("this game is still being played: a rematch comes when it ends"))
        seat = game.seat(player.user_id)
        if seat is None:
            raise ChallengeError(_("only its players can ask for a rematch of this game"))
        options = game.options
        if options.teams:
            raise ChallengeError(_("a team's game is played again with /bgclub consult"))
        if options.practice or options.gnubg_id:
            raise ChallengeError(_("a practice game is not played again: set it up anew with /bgtools setup"))
        opponent = game.players[1 - seat]
        if opponent.is_bot or options.computer_level:
            raise ChallengeError(_("against the computer, /bg computer starts a new game at once"))
        stake = options.stake
        if double:
            if options.match_length:
                raise ChallengeError(_("double or nothing is for money games: a match is played again as it was"))
            stake *= 2
            if stake > self.limits.max_stake:
                raise ChallengeError(
                    _("double or nothing would be {stake} per point, over this server's limit of {max_stake}").format(
                        stake=stake, max_stake=self.limits.max_stake
                    )
                )
        again = replace(
            options,
            stake=stake,
            thread=False,
            rematch_of=game.id,
            challenger_seat=1 - seat,
            tournament=None,
            unrated=False,
        )
        return await self.create(game.guild_id, game.channel_id, player, opponent, again)

    async def decline(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(_("only {name} can decline this challenge").format(name=challenge.challenged.name))
        return await self._close_challenge(challenge_id, "declined")

    async def cancel(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending(challenge_id)
        if user_id != challenge.challenger.user_id:
            raise ChallengeError(_("only {name} can withdraw this challenge").format(name=challenge.challenger.name))
        return await self._close_challenge(challenge_id, "cancelled")

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        await self.store.challenges.set_message(challenge_id, message_id)
        kept = self._pending.get(challenge_id)
        if kept is not None:
            self._pending[challenge_id] = replace(kept, message_id=message_id)

    async def _close_challenge(self, challenge_id: int, status: str) -> ChallengeView:
        self._pending.pop(challenge_id, None)
        self._secrets.pop(challenge_id, None)
        try:
            row = await self.store.challenges.set_status(challenge_id, status)  # type: ignore[arg-type]
        except ChallengeClosedError:
            raise ChallengeError(_("this challenge was already answered")) from None
        return await self.view_of(row)

    async def view_of(self, row: ChallengeRow) -> ChallengeView:
        if row.status == "pending":
            self._secrets[row.id] = (row.settings.get("fair_dice"), row.settings.get("challenger_seed"))
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
            fair_dice=_public(row.settings.get("fair_dice")),
        )


def _public(fair: FairDice | None) -> dict[str, str] | None:
    return None if not fair else {"commitment": fair["commitment"], "nonce": fair["nonce"]}
