"""Boards and replays drawn for another process: jobs in on stdin, pictures out on stdout.

    python -m renderer.pipe

is a drawing worker for the bot (``renderer.pool``), not a command for
people: the bot writes requests to its stdin and reads the replies from its
stdout. Requests are drawn one at a time, in the order written; the bot may
write the next before the last is answered.

- A request is a 4-byte big-endian length, then a pickled job: a
  :class:`BoardScene` (a board), a :class:`~renderer.replay.ReplayJob` (a
  replay), or a :class:`~renderer.pictures.Picture` (any other picture: its
  ``draw()`` returns the image's bytes).
- A reply is a status byte (:data:`DRAWN` or :data:`FAILED`), a 4-byte
  big-endian length, then the PNG of a board or the pickled
  :class:`~renderer.replay.ReplayGif` of a replay, or for a job that could not
  be drawn the reason in UTF-8. A failed job does not end the worker.

The worker ends when its stdin ends, which is also what happens when the bot
process dies however it dies: the pipe's other end closes with it. Pickles
come only from the process that started the worker, over a private pipe.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from typing import BinaryIO

from renderer.board import render_board
from renderer.pictures import Picture
from renderer.replay import ReplayJob, draw_replay

REQUEST = struct.Struct(">I")
"""A request's header: the pickle's length."""
REPLY = struct.Struct(">BI")
"""A reply's header: the status and the payload's length."""
DRAWN = 0
FAILED = 1


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """``size`` bytes, or None when the stream ends first."""
    data = stream.read(size)
    while data is not None and 0 < len(data) < size:
        more = stream.read(size - len(data))
        if not more:
            return None
        data += more
    return data if data and len(data) == size else None


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """Answer requests until ``requests`` ends."""
    while True:
        header = _read_exactly(requests, REQUEST.size)
        if header is None:
            return
        (length,) = REQUEST.unpack(header)
        body = _read_exactly(requests, length)
        if body is None:
            return
        try:
            payload, status = draw(pickle.loads(body)), DRAWN
        except Exception as error:  # noqa: BLE001 - one bad job is reported, the next is drawn
            payload, status = f"{type(error).__name__}: {error}".encode(), FAILED
        try:
            replies.write(REPLY.pack(status, len(payload)))
            replies.write(payload)
            replies.flush()
        except BrokenPipeError:
            return  # nobody reads the replies any more: the bot closed the pool, or is gone


def draw(job: object) -> bytes:
    """A board's PNG, a replay's pickled :class:`~renderer.replay.ReplayGif`, or a picture's bytes."""
    if isinstance(job, ReplayJob):
        return pickle.dumps(draw_replay(job), pickle.HIGHEST_PROTOCOL)
    if isinstance(job, Picture):
        return job.draw()
    return render_board(job)  # type: ignore[arg-type]


NICE = 15
"""How far below the bot's the workers' priority is. When every core is busy the
bot's event loop, which answers each click within Discord's 3 seconds and hands
the workers their boards, goes first, and the boards get the rest (the analyses,
in the idle class, only what nobody else wants). Each worker holds its next
board already (``renderer.pool.DEPTH``), so a low priority costs it no turns
waiting for the loop. At 200 saturating games on 2 cores, 15 against 5 gave
448-449 interactions/s against 415-471, and the first answer's p99 73-95 ms
against 108-116 ms (``bench/e2e_load.py``)."""


PRIORITY = "WORKER_PRIORITY"
"""The environment variable (the bot's setting of that name, which the workers inherit): ``low``
(the default) lowers the workers as above; ``normal`` leaves them at the bot's priority, for a
machine where other CPU-heavy work at normal priority would starve them (a test run on more
workers than cores: every board waited behind the other tests)."""


def lowered() -> bool:
    """Whether the bot's worker processes yield the CPU (:data:`PRIORITY`)."""
    return os.environ.get(PRIORITY, "low").lower() != "normal"


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group; the bot ends us by closing stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lowered():
        _lower()
    # Replies own the real stdout; a stray print() goes to stderr instead of into a PNG.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, replies)
    try:
        replies.close()
    except BrokenPipeError:
        pass  # what was left unwritten has no reader


def _lower() -> None:
    if hasattr(os, "sched_setscheduler"):  # Linux
        # A batch task keeps its fair share of the CPU but does not preempt the
        # bot when a request wakes it: the bot's event loop answers everyone.
        try:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        except OSError:
            pass
    try:
        os.nice(NICE)
    except (OSError, AttributeError):  # not on this system: drawing at the bot's priority is fine
        pass


if __name__ == "__main__":
    main()
