"""Animated GIF replays of a stored game (one frame per logged action)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.core.model import GameState
from bot.discord.errors import UserError
from renderer import render_replay, scenes_from_game

MAX_FRAMES = 600
"""About 15 MB and 10 s of rendering; a longer match is replayed game by game."""
DEFAULT_UPLOAD_LIMIT = 25 * 1024 * 1024
FRAME_MS = 1200


@dataclass(frozen=True, slots=True)
class Replay:
    gif: bytes
    frames: int
    games: tuple[int, ...]
    """Numbers (1-based) of the match's games shown."""
    note: str = ""


def _scenes(view: GameState, number: int) -> list:  # type: ignore[type-arg]
    game = view.match.games[number - 1]
    names = (view.players[0].name, view.players[1].name)
    stake = view.options.stake if not view.options.match_length else None
    return list(
        scenes_from_game(game.log, game.settings, names, score=game.score, crawford=game.crawford, stake=stake)
    )


def build_scenes(view: GameState, number: int | None) -> tuple[list, tuple[int, ...], str]:  # type: ignore[type-arg]
    games = view.match.games
    if not games:
        raise UserError(f"Game #{view.id} has no moves to replay yet.")
    if number is not None:
        if not 1 <= number <= len(games):
            raise UserError(f"Game #{view.id} has {len(games)} game{'s' if len(games) != 1 else ''}: pick 1 to {len(games)}.")
        return _scenes(view, number), (number,), ""
    scenes: list = []  # type: ignore[type-arg]
    shown: list[int] = []
    for n in range(1, len(games) + 1):
        scenes.extend(_scenes(view, n))
        shown.append(n)
    if len(scenes) <= MAX_FRAMES:
        return scenes, tuple(shown), ""
    last = len(games)
    note = (
        f"The whole match is too long for one GIF: this is game {last} of {last}; "
        f"pick another with `number`."
    )
    return _scenes(view, last), (last,), note


async def render(view: GameState, number: int | None = None, *, limit: int = DEFAULT_UPLOAD_LIMIT) -> Replay:
    """Render the replay in a thread; :raises UserError: if it would not fit in a message."""
    scenes, shown, note = build_scenes(view, number)
    if len(scenes) > MAX_FRAMES:
        scenes = scenes[-MAX_FRAMES:]
        note = (note + " " if note else "") + f"Only the last {MAX_FRAMES} moves are shown."
    gif = await asyncio.to_thread(render_replay, scenes, frame_ms=FRAME_MS)
    if len(gif) > limit:
        raise UserError(
            f"The replay would be {len(gif) / 1048576:.1f} MiB, more than Discord's {limit / 1048576:.0f} MiB: "
            "pick one game of the match with `number`."
        )
    return Replay(gif, len(scenes), shown, note)


def upload_limit(guild: object) -> int:
    limit = getattr(guild, "filesize_limit", None)
    return int(limit) if isinstance(limit, int) and limit > 0 else DEFAULT_UPLOAD_LIMIT
