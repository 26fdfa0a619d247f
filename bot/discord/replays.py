"""Animated GIF replays of a game: chosen here, drawn by the drawing workers, kept a while.

A replay of a long match is seconds of drawing, so it is never drawn in the
bot's process: the drawing worker processes do it (:mod:`renderer.pool`),
behind the boards of the games being played, within a number of frames and of
bytes (under Discord's default upload limit). A replay asked for twice is
drawn once: replays are kept by game, version and the games shown (a bounded
number and size), and whoever asks for one being drawn waits for that drawing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.core.games import GameService
from bot.core.lru import Lru
from bot.core.model import GameRecord, GameState, GameSummary
from bot.discord.refusals import UserError
from i18n import _, current, ngettext
from renderer import ReplayGame, ReplayGif, ReplayJob
from renderer.pool import RenderError
from renderer.replay import MAX_BYTES, MAX_FRAMES

FRAME_MS = 1200
DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024
"""Discord's upload limit in a server without boosts."""
KEPT_REPLAYS = 32
KEPT_BYTES = 96 * 1024 * 1024
"""Replays kept for asking again: at most this many, and this many bytes in all."""

Key = tuple[int, int, int | None, str]
"""(game id, version, the game of the match asked for: None for all that fit, the
language its boards are worded in: a replay drawn for a Greek asker is no answer
to an English one)."""
Draw = Callable[[ReplayJob], Awaitable[ReplayGif]]


@dataclass(frozen=True, slots=True)
class Replay:
    gif: bytes
    frames: int
    games: tuple[int, ...]
    """Numbers (1-based) of the match's games shown."""
    note: str = ""


def check_number(game: GameState | GameSummary, number: int | None) -> None:
    """Refuse at once a replay that can't be drawn (before anything is drawn)."""
    count = game.game_count
    if not count:
        raise UserError(_("Game #{id} has no moves to replay yet.").format(id=game.id))
    if number is not None and not 1 <= number <= count:
        raise UserError(
            ngettext(
                "Game #{id} has {count} game: pick 1 to {count}.",
                "Game #{id} has {count} games: pick 1 to {count}.",
                count,
            ).format(id=game.id, count=count)
        )


def choose(records: Sequence[GameRecord], number: int | None) -> tuple[tuple[GameRecord, ...], str]:
    """The games to show: the one asked for; else the whole match if it fits in
    :data:`MAX_FRAMES`, else its last game (a note says how to pick another)."""
    if number is not None:
        return (records[number - 1],), ""
    if sum(_replay_game(r).frames for r in records) <= MAX_FRAMES:
        return tuple(records), ""
    last = len(records)
    return (records[-1],), _(
        "The whole match is too long for one GIF: this is game {number} of {count}; pick another with `number`."
    ).format(number=last, count=last)


def _replay_game(record: GameRecord) -> ReplayGame:
    return ReplayGame(record.actions, record.settings, record.score, record.crawford)


class Replays:
    """Draws replays in the drawing workers and keeps the recent ones.

    :param service: where the games' logs come from.
    :param draw: draws a :class:`ReplayJob` (the drawing workers; tests count them).
    """

    def __init__(self, service: GameService, draw: Draw) -> None:
        self.service = service
        self.draw = draw
        self._kept: Lru[Key, Replay] = Lru(KEPT_REPLAYS, weight=lambda replay: len(replay.gif), max_weight=KEPT_BYTES)
        self._drawing: dict[Key, asyncio.Future[Replay]] = {}

    async def render(
        self, game: GameState | GameSummary, number: int | None = None, *, limit: int = DEFAULT_UPLOAD_LIMIT
    ) -> Replay:
        """The replay of ``game`` (of its game ``number``, else of all that fit).

        :raises UserError: if it can't be drawn, or would not fit in ``limit`` bytes.
        """
        check_number(game, number)
        key: Key = (game.id, game.version, number, current())
        replay = self._kept.get(key)
        if replay is None:
            drawing = self._drawing.get(key)
            if drawing is None:
                drawing = self._drawing[key] = asyncio.ensure_future(self._draw(game, number, key[3]))
                drawing.add_done_callback(lambda done: self._finished(key, done))
            replay = await asyncio.shield(drawing)
        if len(replay.gif) > limit:
            raise UserError(
                _(
                    "The replay would be {number:.1f} MiB, more than this server's {number2:.0f} MiB: pick one game of the match with `number`."
                ).format(number=len(replay.gif) / 1048576, number2=limit / 1048576)
            )
        return replay

    async def _draw(self, game: GameState | GameSummary, number: int | None, language: str) -> Replay:
        shown, note = choose(await self.service.archive.game_records(game.id), number)
        names = (game.players[0].name, game.players[1].name)
        stake = game.options.stake if not game.options.match_length else None
        job = ReplayJob(
            tuple(_replay_game(r) for r in shown),
            names,
            stake,
            frame_ms=FRAME_MS,
            max_frames=MAX_FRAMES,
            max_bytes=MAX_BYTES,
            language=language,
        )
        try:
            gif = await self.draw(job)
        except RenderError as error:
            raise UserError(
                _("I couldn't draw that replay ({error}): pick one game of the match with `number`.").format(
                    error=error
                )
            ) from None
        if gif.frames < gif.positions:
            sampled = _("{frames} of its {positions} positions are shown, evenly spread, to keep it small.").format(
                frames=gif.frames, positions=gif.positions
            )
            note = f"{note} {sampled}".strip()
        return Replay(gif.gif, gif.frames, tuple(r.number for r in shown), note)

    def _finished(self, key: Key, done: asyncio.Future[Replay]) -> None:
        self._drawing.pop(key, None)
        if done.cancelled() or done.exception() is not None:
            return
        self._kept[key] = done.result()


def upload_limit(guild: object) -> int:
    limit = getattr(guild, "filesize_limit", None)
    return int(limit) if isinstance(limit, int) and limit > 0 else DEFAULT_UPLOAD_LIMIT
