"""Summaries: a finished match worked out once, when it ends.

Replaying a long match from its log takes a good fraction of a second, and a
finished match never changes. So the step that ends a match (or abandons it)
also writes its summary, in the same transaction (see :meth:`bot.core.recorder.Recorder.record`):

- the *card*: result, score, each game's result and length, the final
  position (``/bg history``, ``/bg analysis``, ``/bgtools verify``);
- each game's settings, starting score and log (replays, analyses: drawn or
  analysed in worker processes, which replay the log themselves);
- the ``.mat`` and JSON exports (``/bg export``).

Everything here is pure and synchronous: the service runs it in a thread
(off the event loop), from the finished match in hand or, for a game that
ended before summaries existed, from its stored log (the backfill).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from bot.core.model import (
    ChallengeOptions,
    GameLine,
    GameRecord,
    GameSummary,
    PlayerRef,
    RatingChange,
    records_of,
)
from bot.store import GameRow
from engine import Match, WinKind, export_match
from engine.variants import TablesGame, VariantMatch

CARD_VERSION = 1


def summarise(
    row: GameRow,
    match: Match,
    names: tuple[str, str],
    *,
    status: str,
    stored_actions: list[dict[str, Any]],
    fair_dice: dict[str, str] | None,
) -> dict[str, Any]:
    """The parts of a summary (``card``, ``games``, ``mat``, ``export``) of the match
    ``row`` holds, as it ends with ``status``. ``stored_actions`` is its whole log as
    stored (the service's own actions too); ``fair_dice`` its public dice, seed included."""
    games = []
    for game in match.games:
        games.append(
            {
                "result": game.result.to_dict() if game.result is not None else None,
                "actions": len(game.log),
            }
        )
    last = match.game
    card = {
        "v": CARD_VERSION,
        "status": status,
        "winner_seat": None if status == "abandoned" else _winner_seat(match),
        "score": list(match.score),
        "forfeited": status != "abandoned" and not match.is_over,
        "games": games,
        "final_position": final_position(last),
        "names": list(names),
    }
    options = ChallengeOptions.from_dict(row.settings)
    export = {
        "game": row.id,
        "variant": options.variant,
        "players": list(names),
        "settings": options.to_dict(),
        "status": status,
        "dice": fair_dice,
        "actions": stored_actions,
    }
    return {
        "card": card,
        "games": [record.to_dict() for record in records_of(match)],
        "mat": match_file(match, names, row.id),
        "export": json.dumps(export, indent=1),
    }


def final_position(game: Any) -> str | None:
    """The last position's ID: GNU Backgammon's, or plakoto's, fevga's or nardy's own."""
    if game is None:
        return None
    if isinstance(game, TablesGame):
        return game.position_id()
    return str(game.gnubg_id())


def match_file(match: Match, names: tuple[str, str], game_id: int) -> str:
    """The match as a ``.mat`` file; "" for plakoto, fevga, nardy and tavli, which the format cannot hold."""
    if isinstance(match, VariantMatch):
        return ""
    return export_match(match, names, event=f"Discord game #{game_id}")


def _winner_seat(match: Match) -> int:
    """Who won: the match's winner, or for a forfeited match the last game's."""
    if match.winner is not None:
        return match.winner
    last = match.game.result if match.game else None
    return last.winner if last else 0


def summary_of(
    row: GameRow,
    card: dict[str, Any],
    players: tuple[PlayerRef, PlayerRef],
    rating_changes: list[RatingChange] | tuple[RatingChange, ...] = (),
    finished_at: datetime | None = None,
) -> GameSummary:
    """The :class:`GameSummary` of a finished game, from its row and its card."""
    lines = []
    for number, game in enumerate(card.get("games") or [], start=1):
        result = game.get("result")
        lines.append(
            GameLine(
                number=number,
                winner=result["winner"] if result else None,
                kind=WinKind(result["kind"]) if result else None,
                points=int(result["points"]) if result else 0,
                reason=result.get("reason") if result else None,
                actions=int(game.get("actions") or 0),
            )
        )
    score = card.get("score") or [row.score0, row.score1]
    fair = row.settings.get("fair_dice")
    return GameSummary(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        players=players,
        options=ChallengeOptions.from_dict(row.settings),
        version=row.version,
        status=row.status,
        score=(int(score[0]), int(score[1])),
        winner_seat=card.get("winner_seat"),
        forfeited=bool(card.get("forfeited")),
        games=tuple(lines),
        final_position=card.get("final_position"),
        rating_changes=tuple(rating_changes),
        fair_dice={k: fair[k] for k in ("commitment", "nonce", "seed")} if fair else None,
        finished_at=finished_at or row.finished_at,
    )


def records_from(games: list[dict[str, Any]]) -> tuple[GameRecord, ...]:
    """The games part of a stored summary, as records."""
    return tuple(GameRecord.from_dict(game) for game in games)
