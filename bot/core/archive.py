"""Finished matches: their summaries, history, exports, dice check and analyses.

:class:`Archive` (``GameService.archive``) reads a finished match from the
summary written when it ended (:mod:`bot.core.summaries`), never replaying its
log; a match that ended before summaries were kept is summarised once, on
first asking (whoever asks meanwhile waits for the same work). The ``.mat``
and JSON exports and the fair-dice verification read the same summary; a game
still being played is exported from its match as it stands.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from bot.core.game_cache import GameCache, public_fair_dice
from bot.core.model import (
    ChallengeOptions,
    GameRecord,
    GameState,
    GameSummary,
    ServiceError,
    storage_errors_as_service_errors,
)
from bot.core.summaries import match_file, records_from, summarise, summary_of
from bot.store import ActionRow, GameRow, Store
from engine import Match
from engine.fairdice import Verification, dice_in_log
from engine.fairdice import verify as verify_dice
from i18n import _

log = logging.getLogger(__name__)


@storage_errors_as_service_errors
class Archive:
    """The finished matches of a :class:`~bot.store.Store`, and each match's kept analyses."""

    def __init__(self, store: Store, cache: GameCache) -> None:
        self.store = store
        self.cache = cache
        self.names = cache.names
        self._backfills: dict[int, asyncio.Future[dict[str, Any]]] = {}

    # -- summaries -------------------------------------------------------------------

    async def summary(
        self, row: GameRow, match: Match, status: str, service_actions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The summary of the match ``row`` holds as it ends now (in a thread: the
        ``.mat`` replays every game). ``match`` is the ending step's own copy:
        nothing else touches it meanwhile."""
        names = (await self.names.name(row.player0), await self.names.name(row.player1))
        return await self.cache.off_loop(self._summarise, row, match, names, status, service_actions)

    @staticmethod
    def _summarise(
        row: GameRow, match: Match, names: tuple[str, str], status: str, service_actions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        stored = [action.to_dict() for action in match.log] + service_actions
        return summarise(
            row, match, names, status=status, stored_actions=stored, fair_dice=public_fair_dice(row, revealed=True)
        )

    async def _part(self, game_id: int, part: str) -> Any:
        """One part of a finished game's summary (made now if the game has none yet)."""
        value = await self.store.summaries.part(game_id, part)  # type: ignore[arg-type]
        if value is None:
            value = (await self._backfill(game_id))[part]
        return value

    def _backfill(self, game_id: int) -> asyncio.Future[dict[str, Any]]:
        """Summarise a game that ended before summaries existed, once (whoever
        asks meanwhile waits for the same work), and keep the summary."""
        running = self._backfills.get(game_id)
        if running is None:
            running = self._backfills[game_id] = asyncio.ensure_future(self._summarise_stored(game_id))
            running.add_done_callback(lambda _: self._backfills.pop(game_id, None))
        return asyncio.shield(running)

    async def _summarise_stored(self, game_id: int) -> dict[str, Any]:
        row, actions = await self.store.games.with_actions(game_id)
        if row.is_active:
            raise ServiceError(_("game #{game_id} is still being played").format(game_id=game_id))
        names = (await self.names.name(row.player0), await self.names.name(row.player1))
        summary = await self.cache.off_loop(self._summarise_log, row, actions, names)
        await self.store.summaries.save(game_id, summary)
        log.info("summarised game %s, which ended before summaries were kept", game_id)
        return summary

    def _summarise_log(self, row: GameRow, actions: list[ActionRow], names: tuple[str, str]) -> dict[str, Any]:
        log_ = [a.action for a in actions]
        match = self.cache.rebuild(row.settings, log_)
        return summarise(
            row, match, names, status=row.status, stored_actions=log_, fair_dice=public_fair_dice(row, revealed=True)
        )

    # -- reading ---------------------------------------------------------------------

    async def history(self, guild_id: int, user_id: int, limit: int = 10) -> list[GameSummary]:
        """A player's finished games here, newest first, from their summaries (no log is replayed)."""
        rows = await self.store.games.finished_for(user_id, guild_id, limit=limit)
        ids = [row.id for row in rows]
        cards = await self.store.summaries.cards(ids)
        changes = await self.store.summaries.rating_changes(ids)
        found = []
        for row in rows:
            card = cards.get(row.id)
            if card is None:
                card = (await self._backfill(row.id))["card"]
            found.append(summary_of(row, card, await self.cache.players(row), changes.get(row.id, [])))
        return found

    async def look_up(self, game_id: int) -> GameState | GameSummary:
        """A game by its number: one still played as it stands, a finished one as
        summarised when it ended (its log is not replayed here)."""
        row = await self.cache.row(game_id)
        if row.is_active:
            return await self.cache.state_of(row)
        card = await self._part(game_id, "card")
        changes = await self.store.summaries.rating_changes([game_id])
        return summary_of(row, card, await self.cache.players(row), changes.get(game_id, []))

    async def game_records(self, game_id: int) -> tuple[GameRecord, ...]:
        """Each game of a match as logged (replays and analyses: drawn or analysed
        in other processes, which replay the logs themselves)."""
        found = await self.look_up(game_id)
        if isinstance(found, GameState):
            return await self.cache.off_loop(found.records)
        return records_from(await self._part(game_id, "games"))

    # -- exports and the dice ----------------------------------------------------------

    async def export_mat(self, game_id: int) -> str:
        """The match in the ``.mat`` format (GNU Backgammon, XG)."""
        found = await self.look_up(game_id)
        if isinstance(found, GameSummary):
            return str(await self._part(game_id, "mat"))
        names = (found.players[0].name, found.players[1].name)
        return await self.cache.off_loop(match_file, found.match, names, found.id)

    async def export_json(self, game_id: int) -> str:
        """The game's log with its dice commitment (and seed once over), for
        ``scripts/verify_dice.py`` and other tools."""
        row = await self.cache.row(game_id)
        if not row.is_active:
            return str(await self._part(game_id, "export"))
        row, actions = await self.store.games.with_actions(game_id)
        players = await self.cache.players(row)
        options = ChallengeOptions.from_dict(row.settings)
        export = {
            "game": row.id,
            "variant": options.variant,
            "players": [p.name for p in players],
            "settings": options.to_dict(),
            "status": row.status,
            "dice": public_fair_dice(row),
            "actions": [a.action for a in actions],
        }
        return await self.cache.off_loop(json.dumps, export, indent=1)

    async def verify(self, game_id: int) -> Verification:
        """Recompute every die of a finished game from its revealed seed."""
        row = await self.cache.row(game_id)
        fair = row.settings.get("fair_dice")
        if not fair:
            raise ServiceError(_("game #{game_id} was played before provably fair dice").format(game_id=game_id))
        if row.is_active:
            raise ServiceError(
                _(
                    "game #{game_id} is still being played: its seed is revealed when it ends (commitment {commitment}...)"
                ).format(game_id=game_id, commitment=fair["commitment"][:16])
            )
        records = records_from(await self._part(game_id, "games"))
        thrown = dice_in_log(action for record in records for action in record.actions)
        return await self.cache.off_loop(
            verify_dice, fair["seed"], fair["commitment"], fair["nonce"], thrown, salt=fair.get("salt")
        )

    # -- analyses --------------------------------------------------------------------

    async def save_analysis(
        self, game_id: int, game_number: int, ply: int, summary: str, detail: dict[str, Any] | None = None
    ) -> None:
        """Keep the analysis of one game of a match (numbered from 1), with the numbers behind it."""
        await self.store.stats.save_analysis(game_id, game_number, ply, summary, detail)

    async def analyses(self, game_id: int) -> dict[int, str]:
        """The kept analyses of a match's games: game number -> summary."""
        return await self.store.stats.analyses(game_id)

    async def analysis_details(self, game_id: int) -> dict[int, dict[str, Any]]:
        """The numbers behind the kept analyses of a match's games: game number -> detail."""
        return await self.store.stats.analysis_details(game_id)
