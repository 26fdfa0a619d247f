"""Lookups: the games being played, by number, channel or player, and the standings.

:class:`Lookups` (``GameService.lookups``) answers the questions that change
nothing: a game as it stands (from memory when :class:`~bot.core.game_cache.GameCache`
holds it), a member's games, the games waiting for a player, the leaderboards,
a player's record and dice, the computer's record.
"""

from __future__ import annotations

from bot.core.game_cache import GameCache
from bot.core.model import GameListing, GameState, ServiceError, storage_errors_as_service_errors
from bot.store import GLOBAL_SCOPE, DiceStats, LeaderboardPage, PlayerStats, Store
from engine.variants import FAMILIES
from i18n import _


@storage_errors_as_service_errors
class Lookups:
    """Read-only questions over a :class:`~bot.store.Store` and the games in memory."""

    def __init__(self, store: Store, cache: GameCache) -> None:
        self.store = store
        self.cache = cache

    # -- games being played ------------------------------------------------------------

    async def get_game(self, game_id: int) -> GameState:
        """A game by its number, as it stands (a finished one at its end)."""
        return await self.cache.state_of(await self.cache.row(game_id))

    async def game_in_channel(self, channel_id: int) -> GameState | None:
        row = await self.store.games.active_in(channel_id)
        if row is None:
            return None
        return await self.cache.state_of(row)

    async def active_games(self, guild_id: int, user_id: int) -> list[GameState]:
        rows = await self.store.games.active_for(user_id, guild_id)
        return [await self.cache.state_of(row) for row in rows]

    async def game_list(self, guild_id: int, user_id: int) -> list[GameListing]:
        """A member's active games here, oldest first, from their rows: whose turn it
        is is kept with every action, so no match is rebuilt (a game last moved before
        turns were kept is rebuilt once, and its turn kept)."""
        listed = []
        for row in await self.store.games.active_for(user_id, guild_id):
            turn = row.turn
            if turn is None:
                game = (await self.cache.match(row)).game
                if game is not None and not game.is_over:
                    turn = game.turn
                    await self.store.games.note_turn(row.id, row.version, turn)
            listed.append(
                GameListing(
                    row.id,
                    row.guild_id,
                    row.channel_id,
                    await self.cache.players(row),
                    turn,
                    row.turn_deadline,
                    row.board_message,
                )
            )
        return listed

    async def waiting_for(
        self, user_id: int, *, after: tuple[float, int] | None = None, limit: int = 200, their_turn: bool = False
    ) -> list[tuple[int, int, tuple[float, int]]]:
        """A page of the active games a player sits in, the longest untouched first:
        ``(game id, guild id, key)``; pass the last key as ``after`` for the next page.
        ``their_turn``: only those waiting for this player (the turn kept in each row)."""
        return await self.store.games.waiting_page(user_id, after=after, limit=limit, their_turn=their_turn)

    # -- standings ---------------------------------------------------------------------

    async def leaderboard(
        self, guild_id: int | None, kind: str = "rating", offset: int = 0, limit: int = 10, family: str = "backgammon"
    ) -> LeaderboardPage:
        """A page of a game family's standings (:data:`engine.variants.FAMILIES`)."""
        if family not in FAMILIES:
            raise ServiceError(_("the leaderboards are of {games}").format(games=", ".join(FAMILIES)))
        if kind not in ("rating", "points"):
            raise ServiceError(_("the leaderboard is by rating or by points"))
        if not 1 <= limit <= 100:
            raise ServiceError(_("a leaderboard page shows 1 to 100 players"))
        scope = GLOBAL_SCOPE if guild_id is None else guild_id
        return await self.store.ratings.leaderboard(
            scope,
            order=kind,  # type: ignore[arg-type]
            offset=max(offset, 0),
            limit=limit,
            family=family,
        )

    async def stats(self, guild_id: int | None, user_id: int, family: str = "backgammon") -> PlayerStats | None:
        if family not in FAMILIES:
            raise ServiceError(_("the ratings are of {games}").format(games=", ".join(FAMILIES)))
        scope = GLOBAL_SCOPE if guild_id is None else guild_id
        return await self.store.ratings.player_stats(user_id, scope, family=family)

    async def dice_stats(self, guild_id: int | None, user_id: int) -> DiceStats:
        return await self.store.stats.dice_stats(user_id, guild_id)

    async def computer_record(self, guild_id: int | None, computer_id: int) -> tuple[int, int]:
        """The computer's (wins, losses) against people in a server (None: everywhere)."""
        return await self.store.stats.computer_record(computer_id, guild_id)
