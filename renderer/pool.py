"""Board pictures and replays drawn in worker processes, over pipes the event loop reads itself.

Drawing a board holds the GIL for a few milliseconds, which the event loop
needs for everyone else's clicks, so boards are drawn by worker processes
(``python -m renderer.pipe``), one board at a time each, with the next ones
already waiting in its pipe (:data:`DEPTH`). A request is one write to a
worker's stdin; its reply is read from its stdout by a reader callback on the
event loop. No helper threads: ``ProcessPoolExecutor``'s queue threads took
the GIL for every board, which cost this process about twice as much per board.

When every worker is full, the board asked for earliest is handed on next, not
the one that reached the queue first: a click whose service call waited (for
the database, say) would otherwise wait again behind newer clicks. Under load
that evens out the wait, which is what keeps the slowest boards fast.

Replays (animated GIFs of whole games, seconds of drawing each), and pictures
nobody waits for, go to the same workers, behind every board waiting, and at
most :attr:`RenderWorkers.replay_workers` at a time (all but one worker): the
boards of the games being played keep a worker of their own however many
replays are asked for.

A worker that dies (killed, crashed, or stuck past :data:`DRAW_TIMEOUT_SECONDS`)
is replaced, and the boards it held are drawn by another. A worker ends by
itself when this process ends, however it ends: its stdin reaches end of file.

On Windows, whose event loop cannot watch pipes, boards are drawn in a thread
instead (:data:`PIPES`).

Works with one event loop at a time: a new loop (``asyncio.run`` again, as each
test does) takes the workers over, and ends those still drawing for the old one.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
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
from renderer.pictures import Picture
from renderer.pipe import DRAWN, REPLY, REQUEST
from renderer.replay import ReplayGif, ReplayJob, draw_replay

log = logging.getLogger(__name__)

DRAW_TIMEOUT_SECONDS = 30.0
"""A board takes milliseconds; a worker still drawing after this long is stuck."""
REPLAY_TIMEOUT_SECONDS = 180.0
"""A replay takes seconds (a few hundred frames); a worker still on one after this long is stuck."""
START_SECONDS = 30.0
"""More time for a new worker's first board: it imports and warms its caches first."""
ATTEMPTS = 2
"""A board whose worker died is drawn once more, by another worker."""
_READ_SIZE = 1 << 18
"""Replies are read into a buffer of this size kept per worker (grown for a larger
reply, a replay's): ``os.read`` of this much made a fresh buffer of it for every
board, which the allocator maps and unmaps, about 30 µs a board against 7."""
DEPTH = 4
"""Boards a worker holds at once: the one it draws, and the next ones already in
its pipe, so it goes straight on to them instead of idling until the event loop,
busy for milliseconds at a time under load (and now and then paused by the
garbage collector), reads the reply and sends another. At 200 saturating games
on 2 cores, 2 against 1 took the interactions per second from 410-413 to
412-450; 4 against 2 (with :data:`REPLY_PIPE_BYTES`), in three interleaved
pairs, from 399-420 to 431-446, and the board's p99 from 598-644 ms to
562-582 ms. 8 did no better, and the first answers' p99 went over 100 ms
(``bench/e2e_load.py``)."""
REPLY_PIPE_BYTES = 1 << 20
"""The size asked for each worker's reply pipe (Linux; 64 KiB otherwise, and if
refused). A board's PNG is about 40 KB: the default pipe holds one, so a worker
with boards to draw stopped as soon as the event loop was late to read; this
holds every reply of the boards it holds, drawn meanwhile."""
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


class _Exchange:
    """A request sent to a worker and the future waiting for its reply."""

    __slots__ = ("replay", "reply", "timeout")

    def __init__(self, reply: asyncio.Future[bytes], timeout: float, replay: bool) -> None:
        self.reply, self.timeout, self.replay = reply, timeout, replay


class _Worker:
    """One worker process and the requests it holds: the one it draws, and up
    to :data:`DEPTH` - 1 boards queued in its pipe behind it."""

    def __init__(self, done: Callable[[_Worker, bool, bool], None]) -> None:
        """``done(worker, alive, replay)`` is called after each exchange, even one
        whose caller gave up (once for all of them when the worker dies): it hands
        the worker's free place on (or replaces a dead worker)."""
        command, env = _worker_command()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin.fileno()
        self.replies = self.process.stdout.fileno()
        os.set_blocking(self.replies, False)
        _widen(self.replies, REPLY_PIPE_BYTES)
        os.set_blocking(self.requests, False)  # a replay's request is larger than the pipe holds
        self.loop: asyncio.AbstractEventLoop | None = None
        """The loop reading the replies in flight (None: none in flight)."""
        self.replaying = False
        """Handed to a replay (counted in the pool's replays at work)."""
        self.reserved = 0
        """Places handed to callers that have not sent their request yet."""
        self._in_flight: collections.deque[_Exchange] = collections.deque()
        self._unsent = bytearray()
        self._received = bytearray(_READ_SIZE)
        self._filled = 0
        """How much of :attr:`_received` holds replies not yet taken."""
        self._timeout: asyncio.TimerHandle | None = None
        self._done = done
        self._fresh = True

    @property
    def closed(self) -> bool:
        """Its pipes are closed (it ended or was discarded): their numbers may already
        belong to another worker's pipes, so nothing may be written or watched on them."""
        return self.process.stdout is None or self.process.stdout.closed

    @property
    def busy(self) -> bool:
        return bool(self._in_flight)

    @property
    def load(self) -> int:
        """Requests sent or promised and not yet answered."""
        return len(self._in_flight) + self.reserved

    def draw(
        self, request: bytes, timeout: float = DRAW_TIMEOUT_SECONDS, *, replay: bool = False
    ) -> asyncio.Future[bytes]:
        """Send ``request`` (behind any the worker holds); the future holds the reply."""
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[bytes] = loop.create_future()
        self.reserved = max(0, self.reserved - 1)
        if self.closed:  # died after its place was handed out, before the caller came to use it
            reply.set_exception(_WorkerGone())
            return reply
        first = not self._in_flight
        self._in_flight.append(_Exchange(reply, timeout, replay))
        writing = bool(self._unsent)
        self._unsent += request
        if first:
            self.loop = loop
            loop.add_reader(self.replies, self._readable)
            self._time(self._in_flight[0])
        if not writing and self._send() and self._unsent:
            # the rest as the worker reads it, without waiting on the pipe
            loop.add_writer(self.requests, self._send)
        return reply

    def _time(self, head: _Exchange) -> None:
        """Time the request the worker is drawing now."""
        assert self.loop is not None
        if self._timeout is not None:
            self._timeout.cancel()
        self._timeout = self.loop.call_later(head.timeout + (START_SECONDS if self._fresh else 0.0), self._stuck)
        self._fresh = False

    def _send(self) -> bool:
        """Write what the pipe takes of the requests; False if the worker is gone."""
        try:
            while self._unsent:
                del self._unsent[: os.write(self.requests, self._unsent)]
        except BlockingIOError:
            return True
        except OSError:
            self._gone()
            return False
        if self.loop is not None and not self.loop.is_closed():
            self.loop.remove_writer(self.requests)
        return True

    def _readable(self) -> None:
        received = self._received
        try:
            with memoryview(received) as free:
                count = os.readv(self.replies, [free[self._filled :]])
        except BlockingIOError:
            return
        except OSError:
            count = 0
        if not count:
            self._gone()
            return
        self._filled += count
        taken, needed = 0, 0
        while self._in_flight and self._filled - taken >= REPLY.size:
            status, length = REPLY.unpack_from(received, taken)
            end = taken + REPLY.size + length
            if end > self._filled:
                needed = REPLY.size + length
                break
            with memoryview(received) as view:
                payload = bytes(view[taken + REPLY.size : end])
            taken = end
            self._answer(payload if status == DRAWN else RenderError(payload.decode("utf-8", "replace")))
        if not self._in_flight:  # answered, or the worker is gone
            self._filled = 0
        elif taken:
            received[: self._filled - taken] = received[taken : self._filled]
            self._filled -= taken
        if needed > len(received):
            received.extend(bytes(needed - len(received)))  # a replay's reply: room for all of it
        elif len(received) > _READ_SIZE and not self._filled:
            self._received = bytearray(_READ_SIZE)  # back to the usual size once a large one is taken

    def _answer(self, outcome: bytes | Exception) -> None:
        """The reply to the request drawn first: the worker goes on to the next one it holds."""
        exchange = self._in_flight.popleft()
        if self._in_flight:
            self._time(self._in_flight[0])
        else:
            self._stop_watching()
        _settle(exchange.reply, outcome)
        self._done(self, True, exchange.replay)

    def _stuck(self) -> None:
        log.warning("a drawing worker took too long: ending it")
        self.kill()  # its stdout ends, and _readable fails its requests

    def _stop_watching(self) -> None:
        loop = self.loop
        if self._timeout is not None:
            self._timeout.cancel()
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self.replies)
            if self._unsent:
                loop.remove_writer(self.requests)
        self.loop, self._timeout = None, None

    def _gone(self) -> None:
        """The worker died: every request it held fails, to be drawn by another."""
        self._stop_watching()
        self._unsent.clear()
        self._filled = 0
        in_flight, self._in_flight = self._in_flight, collections.deque()
        for exchange in in_flight:
            _settle(exchange.reply, _WorkerGone())
        self._done(self, False, any(exchange.replay for exchange in in_flight))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()

    def close(self) -> None:
        """Close stdin: the worker finishes what it draws and ends."""
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None and not stream.closed:
                stream.close()


def _widen(pipe: int, size: int) -> None:
    """Ask for a pipe of ``size`` bytes (``F_SETPIPE_SZ``, Linux only)."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, size)
    except (ImportError, AttributeError, OSError):
        pass  # elsewhere, or above the system's pipe-max-size: the worker pauses more often, that is all


def _settle(reply: asyncio.Future[bytes], outcome: bytes | Exception) -> None:
    if not reply.done():  # a caller that gave up has a cancelled future
        if isinstance(outcome, Exception):
            reply.set_exception(outcome)
        else:
            reply.set_result(outcome)


class RenderWorkers:
    """A fixed number of drawing workers, started on first use."""

    def __init__(self, count: int = 2) -> None:
        self.count = count
        self.replay_workers = max(1, count - 1)
        """How many workers may draw replays at once: the others are kept for boards."""
        self._workers: list[_Worker] = []
        self._waiting: list[tuple[float, int, asyncio.Future[_Worker]]] = []
        """A heap of (asked at, arrival number, waiter): the earliest asked is served first."""
        self._replays_waiting: list[tuple[float, int, asyncio.Future[_Worker]]] = []
        """The same for replays, served when no board waits."""
        self._replaying = 0
        self._arrivals = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_queued: float | None = None
        """When (``time.monotonic``) a board last found every worker full."""
        atexit.register(self.close)

    async def render(self, scene: BoardScene, *, asked_at: float | None = None) -> bytes:
        """The PNG of ``scene``, drawn by a worker.

        ``asked_at`` (seconds since the epoch; default now) is when the player
        asked for it: while all workers are full, earlier-asked boards go first.

        :raises RenderError: the scene could not be drawn, or its workers died.
        """
        if not PIPES:
            return await asyncio.to_thread(render_board, scene)
        return await self._exchange(scene, asked_at, replay=False)

    async def replay(self, job: ReplayJob) -> ReplayGif:
        """The animated GIF of ``job``, drawn by a worker once no board waits for one
        (see :func:`renderer.replay.draw_replay` for its limits).

        :raises RenderError: the replay could not be drawn (too large, a broken log),
            or its workers died.
        """
        if not PIPES:
            return await asyncio.to_thread(draw_replay, job)
        reply = await self._exchange(job, None, replay=True)
        gif = pickle.loads(reply)  # from our own worker process, over its private pipe
        assert isinstance(gif, ReplayGif)
        return gif

    async def picture(self, job: Picture, *, asked_at: float | None = None, background: bool = False) -> bytes:
        """The bytes of any other :class:`~renderer.pictures.Picture`, drawn by a worker
        in turn with the boards (``asked_at`` as for :meth:`render`); with
        ``background``, for a picture nobody waits for (a game's chart added to
        its game-over message), like a replay: once no board waits, by an idle
        worker, so no board queues behind its tens of milliseconds.

        :raises RenderError: it could not be drawn, or its workers died.
        """
        if not PIPES:
            return await asyncio.to_thread(job.draw)
        return await self._exchange(job, asked_at, replay=background)

    async def _exchange(self, job: object, asked_at: float | None, *, replay: bool) -> bytes:
        body = pickle.dumps(job, pickle.HIGHEST_PROTOCOL)
        request = REQUEST.pack(len(body)) + body
        if asked_at is None:
            asked_at = time.time()
        timeout = REPLAY_TIMEOUT_SECONDS if replay else DRAW_TIMEOUT_SECONDS
        attempt = 0
        while attempt < ATTEMPTS:
            worker = await self._acquire(asked_at, replay=replay)
            if worker.closed:
                continue  # it died while this caller waited to resume: not an attempt, another place
            attempt += 1
            try:
                # The worker's place is handed on by _done, also if this task is cancelled meanwhile.
                return await worker.draw(request, timeout, replay=replay)
            except _WorkerGone:
                log.warning("a drawing worker died while drawing (attempt %d of %d)", attempt, ATTEMPTS)
        raise RenderError("the drawing workers keep dying")

    async def start(self) -> None:
        """Start every worker and let each draw a board (their caches warm up)."""
        scene = BoardScene(Position.start())
        if not PIPES:
            await self.render(scene)
            return
        self._this_loop()
        for _ in range(self.count - len(self._workers)):
            self._spawn()
        await asyncio.gather(*(self.render(scene) for _ in range(self.count)))

    def close(self) -> None:
        """End the workers: each finishes its boards and exits."""
        for worker in self._workers:
            worker.close()
        self._workers = []
        for _, _, waiter in self._waiting + self._replays_waiting:
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.cancel()
        self._waiting.clear()
        self._replays_waiting.clear()
        self._replaying = 0

    def kept_up_for(self) -> float:
        """Seconds the workers have had a place for every board the moment it was
        asked for (0 while boards wait; ``inf`` if none ever did): how long the
        drawing has kept up. Work nobody waits for (a finished game's analysis)
        waits for a stretch of it, so it does not take the cores live games need."""
        if any(not waiter.done() for _, _, waiter in self._waiting):
            return 0.0
        if self._last_queued is None:
            return float("inf")
        return max(0.0, time.monotonic() - self._last_queued)

    @property
    def queued(self) -> int:
        """Drawings waiting for a worker (boards and pictures, replays)."""
        return sum(1 for _, _, waiter in self._waiting + self._replays_waiting if not waiter.done())

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
        self._replays_waiting.clear()
        self._replaying = 0
        for worker in list(self._workers):
            worker.replaying, worker.reserved = False, 0
            if worker.busy or worker.process.poll() is not None:
                self._discard(worker)

    def _place(self, replay: bool) -> _Worker | None:
        """A live worker that can take a request now, the least loaded first: a
        replay only an idle worker, and only while fewer than :attr:`replay_workers`
        draw replays; a board any worker holding fewer than :data:`DEPTH` boards
        (and no replay). An idle worker found dead is dropped (one drawing tells
        of its death by its pipe, without a wait call per board)."""
        if replay and self._replaying >= self.replay_workers:
            return None
        found: _Worker | None = None
        for worker in list(self._workers):
            if worker.replaying or worker.load >= (1 if replay else DEPTH):
                continue
            if not worker.busy and worker.process.poll() is not None:
                self._discard(worker)  # died while idle: not a failed attempt
                continue
            if found is None or worker.load < found.load:
                found = worker
        return found

    async def _acquire(self, asked_at: float, *, replay: bool = False) -> _Worker:
        self._this_loop()
        worker = self._place(replay)
        if worker is None and len(self._workers) < self.count and (not replay or self._replaying < self.replay_workers):
            worker = self._spawn()
        if worker is not None:
            return self._hand_to(worker, replay)
        assert self._loop is not None
        waiter: asyncio.Future[_Worker] = self._loop.create_future()
        if not replay:
            self._last_queued = time.monotonic()
        heapq.heappush(self._replays_waiting if replay else self._waiting, (asked_at, next(self._arrivals), waiter))
        try:
            return await waiter
        except asyncio.CancelledError:
            # a cancelled waiter stays in the heap, done: _hand_on skips it
            if waiter.done() and not waiter.cancelled():
                # it was handed to us just as we were cancelled: give the place back
                worker = waiter.result()
                worker.reserved -= 1
                if replay:
                    self._release(worker)
                self._hand_on()
            raise

    def _hand_to(self, worker: _Worker, replay: bool) -> _Worker:
        worker.reserved += 1
        if replay:
            worker.replaying = True
            self._replaying += 1
        return worker

    def _release(self, worker: _Worker) -> None:
        """The worker is done with its replay (it counts no more)."""
        if worker.replaying:
            worker.replaying = False
            self._replaying -= 1

    def _done(self, worker: _Worker, alive: bool, replay: bool) -> None:
        if replay:
            self._release(worker)
        if not alive:
            self._release(worker)
            self._discard(worker)
            if any(not waiter.done() for _, _, waiter in self._waiting + self._replays_waiting):
                self._spawn()  # a replacement for whoever waits; else the next request starts one
        self._hand_on()

    def _discard(self, worker: _Worker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        worker.kill()
        worker.close()

    def _hand_on(self) -> None:
        """Give free places to the earliest boards waiting, then to the earliest
        replays waiting while fewer than :attr:`replay_workers` draw replays."""
        for queue, replay in ((self._waiting, False), (self._replays_waiting, True)):
            while queue:
                if queue[0][2].done():  # its caller gave up
                    heapq.heappop(queue)
                    continue
                worker = self._place(replay)
                if worker is None:
                    break
                _, _, waiter = heapq.heappop(queue)
                waiter.set_result(self._hand_to(worker, replay))
