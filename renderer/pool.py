"""Board pictures drawn in worker processes, over pipes the event loop reads itself.

Drawing a board holds the GIL for a few milliseconds, which the event loop
needs for everyone else's clicks, so boards are drawn by worker processes
(``python -m renderer.pipe``), one board at a time each. A request is one write
to a worker's stdin; its reply is read from its stdout by a reader callback on
the event loop. No helper threads: ``ProcessPoolExecutor``'s queue threads took
the GIL for every board, which cost this process about twice as much per board.

When every worker is busy, the board asked for earliest is drawn next, not
the one that reached the queue first: a click whose service call waited (for
the database, say) would otherwise wait again behind newer clicks. Under load
that evens out the wait, which is what keeps the slowest boards fast.

A worker that dies (killed, crashed, or stuck past :data:`DRAW_TIMEOUT_SECONDS`)
is replaced, and the board it was drawing is drawn by another. A worker ends by
itself when this process ends, however it ends: its stdin reaches end of file.

On Windows, whose event loop cannot watch pipes, boards are drawn in a thread
instead (:data:`PIPES`).

Works with one event loop at a time: a new loop (``asyncio.run`` again, as each
test does) takes the workers over, and ends those still drawing for the old one.
"""

from __future__ import annotations

import asyncio
import atexit
import heapq
import itertools
import logging
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import renderer
from engine import Position
from renderer import BoardScene, render_board
from renderer.pipe import DRAWN, REPLY, REQUEST

log = logging.getLogger(__name__)

DRAW_TIMEOUT_SECONDS = 30.0
"""A board takes milliseconds; a worker still drawing after this long is stuck."""
START_SECONDS = 30.0
"""More time for a new worker's first board: it imports and warms its caches first."""
ATTEMPTS = 2
"""A board whose worker died is drawn once more, by another worker."""
_READ_SIZE = 1 << 18
PIPES = sys.platform != "win32"
"""Whether the event loop can read the workers' pipes (``add_reader`` on a pipe)."""


class RenderError(Exception):
    """A board could not be drawn: the scene failed, or workers kept dying."""


class _WorkerGone(Exception):
    """The worker died before it answered."""


def _worker_command() -> tuple[list[str], dict[str, str]]:
    """How to start a worker running this very copy of ``renderer``."""
    root = str(Path(renderer.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    flags = ["-B"] if sys.flags.dont_write_bytecode else []
    return [sys.executable, *flags, "-m", "renderer.pipe"], env


class _Worker:
    """One worker process and the request it is drawing, if any."""

    def __init__(self, done: Callable[[_Worker, bool], None]) -> None:
        """``done(worker, alive)`` is called after each exchange, even one whose
        caller gave up: it hands the worker on (or replaces a dead one)."""
        command, env = _worker_command()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin.fileno()
        self.replies = self.process.stdout.fileno()
        os.set_blocking(self.replies, False)
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop reading the reply in flight (None: idle)."""
        self._reply: asyncio.Future[bytes] | None = None
        self._received = bytearray()
        self._timeout: asyncio.TimerHandle | None = None
        self._done = done
        self._fresh = True

    @property
    def busy(self) -> bool:
        return self.loop is not None

    def draw(self, request: bytes) -> asyncio.Future[bytes]:
        """Send ``request``; the future holds the reply."""
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[bytes] = loop.create_future()
        self.loop, self._reply = loop, reply
        self._received.clear()
        try:
            view = memoryview(request)
            while view:  # the pipe is empty (one request at a time): this does not block
                view = view[os.write(self.requests, view):]
        except OSError:
            self._finish(_WorkerGone())
            return reply
        loop.add_reader(self.replies, self._readable)
        self._timeout = loop.call_later(DRAW_TIMEOUT_SECONDS + (START_SECONDS if self._fresh else 0.0), self._stuck)
        self._fresh = False
        return reply

    def _readable(self) -> None:
        try:
            chunk = os.read(self.replies, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._finish(_WorkerGone())
            return
        self._received += chunk
        if len(self._received) < REPLY.size:
            return
        status, length = REPLY.unpack_from(self._received)
        end = REPLY.size + length
        if len(self._received) < end:
            return
        payload = bytes(self._received[REPLY.size:end])
        self._finish(payload if status == DRAWN else RenderError(payload.decode("utf-8", "replace")))

    def _stuck(self) -> None:
        log.warning("a board worker took over %.0f s: ending it", DRAW_TIMEOUT_SECONDS)
        self.kill()  # its stdout ends, and _readable finishes the request

    def _finish(self, outcome: bytes | Exception) -> None:
        loop, reply = self.loop, self._reply
        if self._timeout is not None:
            self._timeout.cancel()
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self.replies)
        self.loop, self._reply, self._timeout = None, None, None
        if reply is not None and not reply.done():
            if isinstance(outcome, Exception):
                reply.set_exception(outcome)
            else:
                reply.set_result(outcome)
        self._done(self, not isinstance(outcome, _WorkerGone))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()

    def close(self) -> None:
        """Close stdin: the worker finishes what it draws and ends."""
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and not stream.closed:
                stream.close()


class RenderWorkers:
    """A fixed number of drawing workers, started on first use."""

    def __init__(self, count: int = 2) -> None:
        self.count = count
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._waiting: list[tuple[float, int, asyncio.Future[_Worker]]] = []
        """A heap of (asked at, arrival number, waiter): the earliest asked is served first."""
        self._arrivals = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        atexit.register(self.close)

    async def render(self, scene: BoardScene, *, asked_at: float | None = None) -> bytes:
        """The PNG of ``scene``, drawn by a worker.

        ``asked_at`` (seconds since the epoch; default now) is when the player
        asked for it: while all workers are busy, earlier-asked boards go first.

        :raises RenderError: the scene could not be drawn, or its workers died.
        """
        if not PIPES:
            return await asyncio.to_thread(render_board, scene)
        body = pickle.dumps(scene, pickle.HIGHEST_PROTOCOL)
        request = REQUEST.pack(len(body)) + body
        if asked_at is None:
            asked_at = time.time()
        for attempt in range(1, ATTEMPTS + 1):
            worker = await self._acquire(asked_at)
            try:
                # The worker is handed on by _done, also if this task is cancelled meanwhile.
                return await worker.draw(request)
            except _WorkerGone:
                log.warning("a board worker died while drawing (attempt %d of %d)", attempt, ATTEMPTS)
        raise RenderError("the board workers keep dying")

    async def start(self) -> None:
        """Start every worker and let each draw a board (their caches warm up)."""
        scene = BoardScene(Position.start())
        if not PIPES:
            await self.render(scene)
            return
        self._this_loop()
        for _ in range(self.count - len(self._workers)):
            self._idle.append(self._spawn())
        await asyncio.gather(*(self.render(scene) for _ in range(self.count)))

    def close(self) -> None:
        """End the workers: each finishes its board and exits."""
        for worker in self._workers:
            worker.close()
        self._workers, self._idle = [], []
        for _, _, waiter in self._waiting:
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.cancel()
        self._waiting.clear()

    @property
    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [worker.process.pid for worker in self._workers]

    # -- the workers ---------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        worker = _Worker(self._done)
        self._workers.append(worker)
        return worker

    def _this_loop(self) -> None:
        """Take the workers over for the running loop: a request in flight on
        an earlier loop will never be read, so that worker is replaced."""
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return
        self._loop = loop
        self._waiting.clear()
        for worker in list(self._workers):
            if worker.busy:
                self._discard(worker)
        self._idle = [worker for worker in self._workers if worker.process.poll() is None]
        self._workers = list(self._idle)

    async def _acquire(self, asked_at: float) -> _Worker:
        self._this_loop()
        while self._idle:
            worker = self._idle.pop()
            if worker.process.poll() is None:
                return worker
            self._discard(worker)  # died while idle: not a failed attempt
        if len(self._workers) < self.count:
            return self._spawn()
        assert self._loop is not None
        waiter: asyncio.Future[_Worker] = self._loop.create_future()
        heapq.heappush(self._waiting, (asked_at, next(self._arrivals), waiter))
        try:
            return await waiter
        except asyncio.CancelledError:
            # a cancelled waiter stays in the heap, done: _hand_on skips it
            if waiter.done() and not waiter.cancelled():
                self._hand_on(waiter.result())  # it was handed to us just as we were cancelled
            raise

    def _done(self, worker: _Worker, alive: bool) -> None:
        if alive:
            self._hand_on(worker)
            return
        self._discard(worker)
        if any(not waiter.done() for _, _, waiter in self._waiting):
            # a replacement for whoever waits; else the next request starts one
            self._hand_on(self._spawn())

    def _discard(self, worker: _Worker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        worker.kill()
        worker.close()

    def _hand_on(self, worker: _Worker) -> None:
        while self._waiting:
            _, _, waiter = heapq.heappop(self._waiting)
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)
