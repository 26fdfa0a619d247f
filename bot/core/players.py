"""Players as the core knows them: a Discord user's id, name and bot flag."""

from __future__ import annotations

from bot.core.lru import Lru
from bot.core.model import PlayerRef
from bot.store import Store

KNOWN_NAMES = 10_000
"""Names kept in memory: the members of the games being played, with room to
spare; a server of 50,000 members would otherwise keep every one ever seen."""


class PlayerNames:
    """Names change rarely: each is read once and written only when it changed."""

    def __init__(self, store: Store, size: int = KNOWN_NAMES) -> None:
        self.store = store
        self._known: Lru[int, PlayerRef] = Lru(size)

    async def get(self, user_id: int) -> PlayerRef:
        """A player by id (``player 123`` if the bot never learnt their name)."""
        known = self._known.get(user_id)
        if known is not None:
            return known
        row = await self.store.players.get(user_id)
        name = row.display_name if row and row.display_name else f"player {user_id}"
        player = PlayerRef(user_id, name, bool(row.is_bot) if row else False)
        self._known[user_id] = player
        return player

    async def name(self, user_id: int) -> str:
        return (await self.get(user_id)).name

    async def remember(self, player: PlayerRef) -> None:
        """Store a player's current name (a write only when it changed since last seen)."""
        if self._known.get(player.user_id) == player:
            return
        await self.store.players.upsert(player.user_id, player.name, is_bot=player.is_bot)
        self._known[player.user_id] = player
