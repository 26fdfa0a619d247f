"""Which games a replay shows, its caps, and the cache that draws each replay once
(pure: a stub service and a stub drawing, no Discord, no workers)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from bot.core.model import ChallengeOptions, GameRecord, PlayerRef
from bot.discord import replays
from bot.discord.refusals import UserError
from bot.discord.replays import Replays, choose
from i18n import speaking
from renderer import ReplayGif, ReplayJob
from renderer.pool import RenderError


def record(number: int, plays: int) -> GameRecord:
    """A game of ``plays`` logged rolls (each worth a frame)."""
    actions = tuple({"kind": "roll", "player": 0, "dice": [3, 1]} for _ in range(plays))
    return GameRecord(number=number, settings={}, score=(0, 0), crawford=False, actions=actions)


def game(game_id: int = 7, version: int = 40, count: int = 2) -> Any:
    return SimpleNamespace(
        id=game_id,
        version=version,
        game_count=count,
        players=(PlayerRef(1, "Ann"), PlayerRef(2, "Bob")),
        options=ChallengeOptions(match_length=5),
    )


class Drawing:
    """Draws a GIF of as many bytes as frames asked for, counting the drawings."""

    def __init__(self, size: int = 100, fail: bool = False) -> None:
        self.jobs: list[ReplayJob] = []
        self.size = size
        self.fail = fail
        self.gate = asyncio.Event()
        self.gate.set()

    async def __call__(self, job: ReplayJob) -> ReplayGif:
        self.jobs.append(job)
        await self.gate.wait()
        if self.fail:
            raise RenderError("the workers keep dying")
        frames = sum(g.frames for g in job.games)
        shown = min(frames, job.max_frames)
        return ReplayGif(b"G" * self.size, shown, frames)


def service(records: tuple[GameRecord, ...]) -> Any:
    async def game_records(game_id: int) -> tuple[GameRecord, ...]:
        return records

    return SimpleNamespace(archive=SimpleNamespace(game_records=game_records))


def test_the_whole_match_when_it_fits_else_its_last_game() -> None:
    short = (record(1, 10), record(2, 10))
    assert choose(short, None) == (short, "")
    assert choose(short, 1) == ((short[0],), "")
    long = tuple(record(n, 120) for n in range(1, 4))
    shown, note = choose(long, None)
    assert shown == (long[-1],) and "game 3 of 3" in note and "`number`" in note


async def test_asked_twice_or_at_once_it_is_drawn_once() -> None:
    draw = Drawing()
    cache = Replays(service((record(1, 10), record(2, 10))), draw)
    draw.gate.clear()
    together = [asyncio.ensure_future(cache.render(game())) for _ in range(8)]
    await asyncio.sleep(0)
    draw.gate.set()
    results = await asyncio.gather(*together)
    again = await cache.render(game())
    assert len(draw.jobs) == 1 and all(r is results[0] for r in results) and again is results[0]
    assert results[0].games == (1, 2) and draw.jobs[0].names == ("Ann", "Bob") and draw.jobs[0].stake is None
    await cache.render(game(version=41))  # the game moved on: a new replay
    await cache.render(game(), 2)  # one game of the match: another
    assert len(draw.jobs) == 3


async def test_a_replay_is_kept_per_language_and_drawn_in_it() -> None:
    draw = Drawing()
    cache = Replays(service((record(1, 10),)), draw)
    with speaking("el"):
        greek = await cache.render(game(count=1))
    english = await cache.render(game(count=1))
    with speaking("el"):
        assert await cache.render(game(count=1)) is greek
    assert english is not greek
    assert [job.language for job in draw.jobs] == ["el", "en"]


async def test_the_cache_keeps_a_bounded_number_of_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replays, "KEPT_REPLAYS", 3)
    draw = Drawing()
    cache = Replays(service((record(1, 5),)), draw)
    for game_id in range(5):
        await cache.render(game(game_id, count=1))
    assert len(draw.jobs) == 5 and len(cache._kept) == 3
    await cache.render(game(4, count=1))  # kept
    await cache.render(game(0, count=1))  # forgotten: drawn again
    assert len(draw.jobs) == 6


async def test_the_cache_keeps_a_bounded_number_of_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replays, "KEPT_BYTES", 250)
    cache = Replays(service((record(1, 5),)), Drawing(size=100))
    for game_id in range(4):
        await cache.render(game(game_id, count=1))
    assert sum(len(r.gif) for r in cache._kept.values()) <= 250


async def test_caps_are_asked_of_the_drawing_and_sampling_is_told() -> None:
    draw = Drawing()
    cache = Replays(service((record(1, 400),)), draw)
    replay = await cache.render(game(count=1))
    job = draw.jobs[0]
    assert (job.max_frames, job.max_bytes) == (replays.MAX_FRAMES, replays.MAX_BYTES)
    assert replays.MAX_BYTES < replays.DEFAULT_UPLOAD_LIMIT
    assert replay.frames == replays.MAX_FRAMES and "of its 401 positions are shown" in replay.note


async def test_refusals_are_for_the_player() -> None:
    cache = Replays(service((record(1, 5),)), Drawing(size=2 * 1024 * 1024))
    with pytest.raises(UserError, match="pick 1 to 2"):
        await cache.render(game(count=2), 3)
    with pytest.raises(UserError, match="no moves"):
        await cache.render(game(count=0))
    with pytest.raises(UserError, match="more than this server's 1 MiB"):
        await cache.render(game(count=1), limit=1024 * 1024)
    failing = Replays(service((record(1, 5),)), Drawing(fail=True))
    with pytest.raises(UserError, match="couldn't draw"):
        await failing.render(game(count=1))
    assert not failing._kept  # a failure is not kept: the next ask tries again
