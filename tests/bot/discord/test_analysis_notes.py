"""When a finished game's analysis runs (bot.discord.analysis_notes): nobody waits
for it, so it waits for the bot. It starts once the drawing has kept up with every
board for a moment, or once its game has been over for its patience; one at a
time, in the order the games ended. (That the analysis reaches the game-over
message: tests/bot/discord/test_learn.py and test_computer_seat.py.)"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot.core.advice import Advice
from bot.core.model import ChallengeOptions
from bot.discord.analysis_notes import AnalysisNotes
from renderer.pool import RenderWorkers


class Bot:
    """What the notes look at: how long the drawing has kept up, and the time."""

    def __init__(self) -> None:
        self.kept_up = 0.0  # boards queue
        self.now = 1000.0


@pytest.fixture
def bot() -> Bot:
    return Bot()


@pytest.fixture
def notes(bot: Bot) -> Any:
    notes: Any = AnalysisNotes(  # with the counters below: what the test reads
        cast(Advice, SimpleNamespace(available=lambda: True)),
        cast(RenderWorkers, SimpleNamespace()),  # no drawing: the test's annotate draws nothing
        kept_up_for=lambda: bot.kept_up,
        clock=lambda: bot.now,
    )
    notes.poll = 0.005
    notes.started = []  # the games whose analysis started, in order
    notes.running = 0
    notes.most_at_once = 0
    notes.hold = asyncio.Event()  # an analysis runs until it is set
    notes.hold.set()

    async def annotate(view: Any, ended: int, message: Any, embeds: list[Any]) -> None:
        notes.started.append(view.id)
        notes.running += 1
        notes.most_at_once = max(notes.most_at_once, notes.running)
        try:
            await notes.hold.wait()
        finally:
            notes.running -= 1

    notes._annotate = annotate
    return notes


def end(notes: AnalysisNotes, game_id: int) -> None:
    """Game ``game_id`` ends: its game-over message is up."""
    outcome = SimpleNamespace(
        events=[SimpleNamespace(kind="game_over")],
        state=SimpleNamespace(id=game_id, status="finished", options=ChallengeOptions()),
    )
    notes.after_game(outcome, SimpleNamespace(id=game_id), [])  # type: ignore[arg-type]


async def a_while() -> None:
    await asyncio.sleep(0.05)


async def test_an_analysis_waits_while_boards_queue_and_starts_once_the_drawing_keeps_up(notes: Any, bot: Bot) -> None:
    end(notes, 1)
    await a_while()
    assert notes.busy and notes.started == []
    bot.kept_up = notes.quiet / 2  # a moment of room is not enough
    await a_while()
    assert notes.started == []
    bot.kept_up = notes.quiet
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started == [1] and not notes.busy


async def test_a_bot_busy_for_longer_than_the_patience_still_analyses(notes: Any, bot: Bot) -> None:
    end(notes, 1)
    bot.now += notes.patience - 1
    await a_while()
    assert notes.started == []
    bot.now += 1
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started == [1]


async def test_each_game_has_its_own_patience_from_its_end(notes: Any, bot: Bot) -> None:
    end(notes, 1)
    bot.now += 60
    end(notes, 2)
    bot.now += notes.patience - 60  # game 1's patience is out, not game 2's
    await a_while()
    assert notes.started == [1]
    bot.now += 60
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started == [1, 2]


async def test_analyses_run_one_at_a_time_in_the_order_the_games_ended(notes: Any, bot: Bot) -> None:
    bot.kept_up = float("inf")
    notes.hold.clear()
    for game_id in (3, 1, 2):
        end(notes, game_id)
    await a_while()
    assert notes.started == [3]  # the others wait their turn
    end(notes, 4)  # ended while one runs: after the others
    notes.hold.set()
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started == [3, 1, 2, 4] and notes.most_at_once == 1
    end(notes, 5)  # and once all are done, the next starts at once
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started[-1] == 5


async def test_a_board_queueing_again_holds_the_next_analysis(notes: Any, bot: Bot) -> None:
    bot.kept_up = float("inf")
    notes.hold.clear()
    end(notes, 1)
    end(notes, 2)
    await a_while()
    bot.kept_up = 0.0  # boards queue while game 1's analysis runs
    notes.hold.set()
    await a_while()
    assert notes.started == [1] and notes.busy
    bot.kept_up = float("inf")
    await asyncio.wait_for(notes.wait(), 5)
    assert notes.started == [1, 2]


async def test_closing_drops_the_games_waiting_and_stops_the_one_running(notes: Any, bot: Bot) -> None:
    bot.kept_up = float("inf")
    notes.hold.clear()
    end(notes, 1)
    end(notes, 2)
    await a_while()
    await asyncio.wait_for(notes.close(), 5)
    assert notes.started == [1] and notes.running == 0 and not notes.busy
    notes.hold.set()
    await a_while()
    assert notes.started == [1]


async def test_nothing_is_queued_without_a_game_over_or_a_message(notes: Any, bot: Bot) -> None:
    bot.kept_up = float("inf")
    no_end = SimpleNamespace(
        events=[SimpleNamespace(kind="moved")], state=SimpleNamespace(id=1, status="active", options=ChallengeOptions())
    )
    notes.after_game(no_end, SimpleNamespace(id=1), [])
    ended = SimpleNamespace(
        events=[SimpleNamespace(kind="game_over")],
        state=SimpleNamespace(id=2, status="finished", options=ChallengeOptions()),
    )
    notes.after_game(ended, None, [])
    abandoned = SimpleNamespace(
        events=[SimpleNamespace(kind="game_over")],
        state=SimpleNamespace(id=3, status="abandoned", options=ChallengeOptions()),
    )
    notes.after_game(abandoned, SimpleNamespace(id=3), [])
    assert not notes.busy
    await a_while()
    assert notes.started == []
