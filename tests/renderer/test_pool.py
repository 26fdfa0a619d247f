"""Boards drawn by worker processes: the same bytes as drawing here, and no
board lost when a worker dies, hangs, fails a scene or its caller gives up."""

from __future__ import annotations

import asyncio
import io
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator

import pytest

from engine.position import Position
from renderer import pool as render_workers
from renderer.board import render_board
from renderer.pipe import NICE
from renderer.pool import RenderError, RenderWorkers
from renderer.scene import BoardScene

SCENES = [
    BoardScene(Position.start(), names=("Ann", "Bob"), dice=(6, 4)),
    BoardScene(Position.from_counts({6: 15}, {1: 15}), names=("Cy", "Di")),
    BoardScene(
        Position.from_counts({25: 2, 13: 3, 8: 3, 6: 7}, {24: 2, 13: 5, 8: 3, 6: 5}), cube_value=4, cube_owner=0
    ),
]


async def _started(count: int) -> AsyncIterator[RenderWorkers]:
    pool = RenderWorkers(count)
    await pool.start()
    yield pool
    pool.close()


@pytest.fixture
async def workers() -> AsyncIterator[RenderWorkers]:
    async for pool in _started(2):
        yield pool


@pytest.fixture
async def lowered(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[RenderWorkers]:
    """Two workers started as the bot starts them by default (``WORKER_PRIORITY=low``; the tests run
    with ``normal``, tests/conftest.py)."""
    monkeypatch.setenv("WORKER_PRIORITY", "low")
    async for pool in _started(2):
        yield pool


@pytest.fixture
async def pool() -> AsyncIterator[RenderWorkers]:
    """A pool of one started worker."""
    async for pool in _started(1):
        yield pool


def _stop(pid: int) -> None:
    """Stop the worker ``pid`` (SIGSTOP) and wait until it is stopped: the signal
    takes effect when the process next runs, and a worker woken by a request in
    that moment would read it first."""
    os.kill(pid, signal.SIGSTOP)
    if not os.path.exists(f"/proc/{pid}/stat"):  # not Linux: give it a moment
        time.sleep(0.05)
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                return
        time.sleep(0.001)
    raise AssertionError(f"worker {pid} did not stop")


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
        except ChildProcessError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


async def test_boards_are_the_bytes_drawn_here_by_the_same_two_workers(workers: RenderWorkers) -> None:
    pids = set(workers.pids)
    boards = await asyncio.gather(*(workers.render(SCENES[i % 3]) for i in range(12)))
    assert boards == [render_board(SCENES[i % 3]) for i in range(12)]
    assert set(workers.pids) == pids and len(pids) == 2


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux scheduling classes")
async def test_workers_run_as_batch_tasks_so_a_request_does_not_preempt_the_bot(lowered: RenderWorkers) -> None:
    assert all(os.sched_getscheduler(pid) == os.SCHED_BATCH for pid in lowered.pids)
    assert os.sched_getscheduler(0) != os.SCHED_BATCH  # the bot itself stays as it was


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="Unix priorities")
async def test_workers_yield_the_cpu_to_the_bot_when_it_is_short(lowered: RenderWorkers) -> None:
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert all(os.getpriority(os.PRIO_PROCESS, pid) == min(own + NICE, 19) for pid in lowered.pids)


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux scheduling classes")
async def test_workers_at_normal_priority_stay_at_the_bots(workers: RenderWorkers) -> None:
    assert os.environ["WORKER_PRIORITY"] == "normal"  # tests/conftest.py
    own = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)
    assert all((os.getpriority(os.PRIO_PROCESS, pid), os.sched_getscheduler(pid)) == own for pid in workers.pids)


async def test_a_worker_killed_while_idle_is_replaced(workers: RenderWorkers) -> None:
    for pid in workers.pids:
        os.kill(pid, signal.SIGKILL)
        assert _gone(pid)
    assert await workers.render(SCENES[0]) == render_board(SCENES[0])
    assert await workers.render(SCENES[1]) == render_board(SCENES[1])


async def test_a_worker_that_dies_mid_board_hands_the_board_to_another(pool: RenderWorkers) -> None:
    (pid,) = pool.pids
    _stop(pid)  # it holds the request unread...
    board = asyncio.ensure_future(pool.render(SCENES[1]))
    await asyncio.sleep(0.05)
    assert not board.done()
    os.kill(pid, signal.SIGKILL)  # ...and dies with it
    assert await asyncio.wait_for(board, 20) == render_board(SCENES[1])
    assert pool.pids != [pid]


def _unread(fd: int) -> int:
    """Bytes waiting in the pipe of ``fd`` (either end)."""
    import fcntl
    import struct
    import termios

    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="FIONREAD on a pipe")
async def test_a_busy_worker_already_holds_its_next_board(pool: RenderWorkers) -> None:
    """The next board is written to a worker while it draws, so it goes straight
    on to it without waiting for the event loop to read the reply first."""
    (pid,) = pool.pids
    (worker,) = pool._workers
    scenes = [SCENES[i % len(SCENES)] for i in range(render_workers.DEPTH + 1)]
    _stop(pid)  # it reads nothing more
    try:
        boards = [asyncio.ensure_future(pool.render(scene)) for scene in scenes]
        await asyncio.sleep(0.05)
        written = _unread(worker.requests)
        sizes = [render_workers.REQUEST.size + len(pickle.dumps(scene, pickle.HIGHEST_PROTOCOL)) for scene in scenes]
        assert render_workers.DEPTH >= 2
        assert written == sum(sizes[:-1])  # the one it draws and the next ones; the last waits here
    finally:
        os.kill(pid, signal.SIGCONT)
    assert await asyncio.wait_for(asyncio.gather(*boards), 20) == [render_board(scene) for scene in scenes]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ and FIONREAD on a pipe")
async def test_a_worker_draws_every_board_it_holds_while_the_event_loop_is_busy(pool: RenderWorkers) -> None:
    """When the event loop is late to read (busy, or paused by the garbage
    collector), a worker still draws every board it holds: their replies wait
    in its pipe, which has room for them all (a board is about 40 KB; a pipe
    holds 64 KiB unless asked for more)."""
    (worker,) = pool._workers
    scenes = [SCENES[i % len(SCENES)] for i in range(render_workers.DEPTH)]
    boards = [asyncio.ensure_future(pool.render(scene)) for scene in scenes]
    while worker.load < len(scenes):
        await asyncio.sleep(0)  # until every request is written
    replies = sum(render_workers.REPLY.size + len(render_board(scene)) for scene in scenes)
    assert replies > 1 << 16
    deadline = time.monotonic() + 10
    while _unread(worker.replies) < replies and time.monotonic() < deadline:
        time.sleep(0.01)  # holds the event loop: nothing reads the replies meanwhile
    assert _unread(worker.replies) == replies
    assert await asyncio.wait_for(asyncio.gather(*boards), 20) == [render_board(scene) for scene in scenes]


async def test_a_worker_that_dies_holding_boards_hands_each_to_another(pool: RenderWorkers) -> None:
    (pid,) = pool.pids
    _stop(pid)
    boards = [asyncio.ensure_future(pool.render(scene)) for scene in SCENES]
    await asyncio.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    assert await asyncio.wait_for(asyncio.gather(*boards), 20) == [render_board(scene) for scene in SCENES]
    assert len(pool.pids) == 1 and pool.pids != [pid]


async def test_a_worker_that_dies_after_its_place_is_handed_out_is_not_drawn_on(pool: RenderWorkers) -> None:
    """A place is handed to a waiting caller, and the worker dies (its death found
    through another board) before that caller resumes to use it. The worker's
    pipes are closed by then, and their numbers may already be a new worker's:
    the caller must not write or watch on them, and draws elsewhere."""
    (worker,) = pool._workers
    place = await pool._acquire(time.time())
    assert place is worker
    os.kill(pool.pids[0], signal.SIGKILL)
    assert _gone(worker.process.pid)
    pool._done(worker, False, False)  # what the pool does once it learns of the death
    assert worker.closed
    request = render_workers.REQUEST.pack(1) + b"x"
    with pytest.raises(render_workers._WorkerGone):
        await worker.draw(request)  # fails at once: no write to, or watch on, a closed pipe
    assert await asyncio.wait_for(pool.render(SCENES[1]), 30) == render_board(SCENES[1])


async def test_while_the_workers_are_full_the_board_asked_for_earliest_is_drawn_next(pool: RenderWorkers) -> None:
    (pid,) = pool.pids
    _stop(pid)  # the one worker holds its first requests
    try:
        busy = asyncio.gather(*(pool.render(SCENES[0]) for _ in range(render_workers.DEPTH)))
        await asyncio.sleep(0.05)
        drawn: list[float | None] = []

        async def board(asked_at: float | None) -> bytes:
            png = await pool.render(SCENES[1], asked_at=asked_at)
            drawn.append(asked_at)
            return png

        # asked at "now" (the default) comes first in the queue, but was asked last
        queued = [asyncio.ensure_future(board(t)) for t in (None, 300.0, 100.0, 200.0)]
        await asyncio.sleep(0.05)
    finally:
        os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(asyncio.gather(busy, *queued), 20)
    assert drawn == [100.0, 200.0, 300.0, None]


async def test_kept_up_for_says_how_long_every_board_has_found_a_place(pool: RenderWorkers) -> None:
    assert pool.kept_up_for() == float("inf")  # no board ever waited
    await pool.render(SCENES[0])
    assert pool.kept_up_for() == float("inf")  # one board, a place at once
    (pid,) = pool.pids
    _stop(pid)  # the one worker holds its first requests
    try:
        held = asyncio.gather(*(pool.render(SCENES[0]) for _ in range(render_workers.DEPTH)))
        await asyncio.sleep(0.05)
        assert pool.kept_up_for() == float("inf")  # full, but no board has had to wait yet
        queued = asyncio.ensure_future(pool.render(SCENES[1]))
        await asyncio.sleep(0.05)
        assert pool.kept_up_for() == 0.0  # a board waits
        await asyncio.sleep(0.2)
        assert pool.kept_up_for() == 0.0  # still waiting: however long ago it came
    finally:
        os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(asyncio.gather(held, queued), 20)
    after = pool.kept_up_for()
    assert 0.0 < after < 5.0  # since the last board that waited
    await asyncio.sleep(0.3)
    assert pool.kept_up_for() >= after + 0.25


async def test_a_stuck_worker_is_ended_and_its_board_drawn_by_another(
    pool: RenderWorkers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(render_workers, "DRAW_TIMEOUT_SECONDS", 0.3)
    (pid,) = pool.pids
    _stop(pid)
    assert await asyncio.wait_for(pool.render(SCENES[2]), 20) == render_board(SCENES[2])
    assert _gone(pid)


async def test_a_scene_that_cannot_be_drawn_is_an_error_and_the_worker_goes_on(pool: RenderWorkers) -> None:
    bad = BoardScene(Position.start())
    object.__setattr__(bad, "dice", (7, 9))
    with pytest.raises(RenderError, match="KeyError"):
        await pool.render(bad)
    pids = pool.pids
    assert await pool.render(SCENES[0]) == render_board(SCENES[0])
    assert pool.pids == pids


async def test_a_caller_that_gives_up_leaves_the_worker_free(pool: RenderWorkers) -> None:
    pids = pool.pids
    first = asyncio.ensure_future(pool.render(SCENES[0]))
    waiting = asyncio.ensure_future(pool.render(SCENES[1]))  # queued behind the first
    await asyncio.sleep(0)
    first.cancel()
    waiting.cancel()
    await asyncio.gather(first, waiting, return_exceptions=True)
    assert await asyncio.wait_for(pool.render(SCENES[2]), 20) == render_board(SCENES[2])
    assert pool.pids == pids


async def test_workers_that_cannot_start_give_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_workers, "_worker_command", lambda: ([sys.executable, "-c", "pass"], dict(os.environ)))
    pool = RenderWorkers(1)
    try:
        with pytest.raises(RenderError, match="dying"):
            await asyncio.wait_for(pool.render(SCENES[0]), 20)
    finally:
        pool.close()


async def test_without_pipes_boards_are_drawn_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_workers, "PIPES", False)  # as on Windows
    pool = RenderWorkers(2)
    try:
        await pool.start()
        assert await pool.render(SCENES[1]) == render_board(SCENES[1])
        assert pool.pids == []
    finally:
        pool.close()


def test_the_workers_serve_one_event_loop_after_another() -> None:
    pool = RenderWorkers(1)
    try:
        assert asyncio.run(pool.render(SCENES[0])) == render_board(SCENES[0])
        pids = pool.pids
        assert asyncio.run(pool.render(SCENES[1])) == render_board(SCENES[1])
        assert pool.pids == pids
    finally:
        pool.close()


def test_workers_end_when_the_bot_process_is_killed() -> None:
    script = textwrap.dedent("""
        import asyncio, os, signal, sys
        from renderer.pool import RenderWorkers
        pool = RenderWorkers(2)
        asyncio.run(pool.start())
        print(*pool.pids, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    parent = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    pids = [int(pid) for pid in parent.stdout.split()]
    assert len(pids) == 2
    assert all(_gone(pid) for pid in pids)


async def test_closing_ends_the_workers(workers: RenderWorkers) -> None:
    pids = workers.pids
    workers.close()
    assert all(_gone(pid) for pid in pids)


async def test_a_background_picture_waits_for_every_waiting_board(pool: RenderWorkers) -> None:
    """A picture nobody waits for (a game's chart for its game-over message) is
    drawn once no board waits, by an idle worker: it never sits in a worker's
    pipe ahead of a board. A picture asked for by someone goes in turn."""
    from tests.renderer.pictures_sample import Swatch

    (pid,) = pool.pids
    (worker,) = pool._workers
    done: list[str] = []

    async def board(n: int) -> None:
        await pool.render(SCENES[n % len(SCENES)])
        done.append(f"board {n}")

    async def picture(name: str, background: bool) -> None:
        await pool.picture(Swatch((len(name), 0, 0)), background=background)
        done.append(name)

    _stop(pid)  # the worker holds what it is given, and draws nothing
    try:
        first = [asyncio.ensure_future(board(n)) for n in range(render_workers.DEPTH)]
        late = asyncio.ensure_future(picture("chart", background=True))
        asked = asyncio.ensure_future(picture("asked", background=False))
        more = [asyncio.ensure_future(board(n)) for n in range(render_workers.DEPTH, render_workers.DEPTH + 3)]
        await asyncio.sleep(0.05)
        assert worker.load == render_workers.DEPTH  # the chart waits here, not in the worker's pipe
    finally:
        os.kill(pid, signal.SIGCONT)
    await asyncio.wait_for(asyncio.gather(*first, late, asked, *more), 20)
    boards = render_workers.DEPTH + 3
    assert done[: render_workers.DEPTH] == [f"board {n}" for n in range(render_workers.DEPTH)]
    assert "asked" in done[render_workers.DEPTH : -1]  # in turn with the boards
    assert done[-1] == "chart" and len(done) == boards + 2


async def test_a_picture_is_drawn_by_a_worker_process(workers: RenderWorkers) -> None:
    """Any :class:`renderer.pictures.Picture` (charts, brackets, card grids) goes to the
    same workers: drawn there, not in the bot's process."""
    from PIL import Image, PngImagePlugin

    from tests.renderer.pictures_sample import Swatch

    png = await workers.picture(Swatch((200, 30, 40)))
    image = Image.open(io.BytesIO(png))
    assert isinstance(image, PngImagePlugin.PngImageFile)
    assert image.getpixel((3, 3)) == (200, 30, 40)
    assert int(image.text["pid"]) != os.getpid()


async def test_replies_of_any_size_come_back_whole_and_in_order(pool: RenderWorkers) -> None:
    """Replies larger than the read buffer (a replay's), and small ones queued
    behind them in the same pipe, each reach their own caller intact."""
    from tests.renderer.pictures_sample import Bytes

    sizes = [3 * render_workers._READ_SIZE + 17, 5, render_workers._READ_SIZE, 1, 2 * render_workers._READ_SIZE - 3]
    jobs = [Bytes(size, start=i) for i, size in enumerate(sizes)]
    replies = await asyncio.wait_for(asyncio.gather(*(pool.picture(job) for job in jobs)), 30)
    assert replies == [job.draw() for job in jobs]
    assert await pool.render(SCENES[0]) == render_board(SCENES[0])  # and boards after them


async def test_a_crowd_of_boards_pictures_and_give_ups_each_get_their_own_reply(workers: RenderWorkers) -> None:
    """Boards and pictures of every size, some callers giving up and a worker
    killed midway: each caller still waiting gets exactly its own reply."""
    import random

    from tests.renderer.pictures_sample import Bytes

    rng = random.Random(24)
    asked: list[tuple[asyncio.Future[bytes], bytes]] = []
    given_up: list[asyncio.Future[bytes]] = []
    for i in range(80):
        job: asyncio.Future[bytes]
        if rng.random() < 0.5:
            scene = SCENES[i % 3]
            job, expected = asyncio.ensure_future(workers.render(scene)), render_board(scene)
        else:
            picture = Bytes(rng.choice([1, 100, 70_000, render_workers._READ_SIZE + 9]), start=i)
            job, expected = asyncio.ensure_future(workers.picture(picture)), picture.draw()
        if rng.random() < 0.2:
            given_up.append(job)
        else:
            asked.append((job, expected))
        if i == 40:
            await asyncio.sleep(0.01)
            os.kill(workers.pids[0], signal.SIGKILL)
        if rng.random() < 0.3:
            await asyncio.sleep(0)
    for job in given_up:
        job.cancel()
    replies = await asyncio.wait_for(asyncio.gather(*(job for job, _ in asked)), 60)
    assert replies == [expected for _, expected in asked]
    assert len(workers.pids) == 2
    assert await workers.render(SCENES[2]) == render_board(SCENES[2])
