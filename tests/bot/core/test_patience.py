"""Patience in the core (issue 21): laying out a deal card by card, undo, bad
input changing nothing, one submission, the best score and layout, the same
daily deal for the whole server from a committed seed, leaderboards, streaks,
and layouts that survive a restart. On SQLite and PostgreSQL (``db_url``)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.core.patience import Attempt, PatienceError, StaleLayoutError, daily_nonce, streak_ending
from engine.patience import AMERICAN, ENGLISH, HOYLE_BEST, HOYLE_DEAL, Deal, Layout, deal_from_seed, solve
from tests.bot.core.helpers import ALICE, BOB, CAROL, GUILD, OTHER_GUILD, Env, FakeClock, open_env

SNAKE = "A1 B1 C1 D1 E1 E2 D2 C2 B2 A2 A3 B3 C3 D3 E3 E4 D4 C4 B4 A4 A5 B5 C5 D5 E5"
"""A rook's path over the whole grid, row by row: a layout of any deal."""
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, clock=FakeClock(START))
    yield e
    await e.store.close()


async def stored(env: Env, attempt: Attempt) -> tuple[str, int, bool]:
    row = await env.store.patience.get(attempt.id)
    assert row is not None
    return row.path, row.version, row.submitted


async def lay_all(env: Env, attempt: Attempt, path: str = SNAKE) -> Attempt:
    for square in path.split()[attempt.placed :]:
        attempt = await env.service.patience.place(attempt.id, attempt.user_id, square, version=attempt.version)
    return attempt


# -- laying out --------------------------------------------------------------------------------


async def test_cards_are_laid_one_by_one_and_stored(env: Env) -> None:
    patience = env.service.patience
    attempt = await patience.start(GUILD, ALICE, "hoyle")
    assert attempt.deal == HOYLE_DEAL and attempt.scoring == ENGLISH and attempt.placed == 0
    assert len(attempt.legal_cells) == 13  # a rook's path starts on a square of the corners' colour
    assert str(attempt.next_card) == "D6" and attempt.title == "Hoyle's deal"
    attempt = await patience.place(attempt.id, ALICE.user_id, "D4", version=0)
    assert attempt.placed == 1 and attempt.version == 1 and str(attempt.next_card) == "S5"
    assert [str(c) for c in attempt.legal_cells] == ["D3", "C4", "E4", "D5"]
    assert await stored(env, attempt) == ("D4", 1, False)
    attempt = await patience.place(attempt.id, ALICE.user_id, "d5")  # any case, no version: the latest
    assert str(attempt.layout) == "D4 D5" and await stored(env, attempt) == ("D4 D5", 2, False)
    # asked again, the same layout in progress comes back
    again = await patience.start(GUILD, ALICE, "hoyle")
    assert again.id == attempt.id and str(again.layout) == "D4 D5" and again.version == 2


async def test_undo_takes_cards_back_until_the_grid_is_empty(env: Env) -> None:
    patience = env.service.patience
    attempt = await lay_all(env, await patience.start(GUILD, ALICE, "hoyle"), "A1 B1 C1")
    attempt = await patience.undo(attempt.id, ALICE.user_id, version=attempt.version)
    assert str(attempt.layout) == "A1 B1" and await stored(env, attempt) == ("A1 B1", 4, False)
    attempt = await patience.undo(attempt.id, ALICE.user_id)
    attempt = await patience.undo(attempt.id, ALICE.user_id)
    assert attempt.placed == 0 and len(attempt.legal_cells) == 13
    with pytest.raises(PatienceError, match="no card to take back"):
        await patience.undo(attempt.id, ALICE.user_id)
    assert await stored(env, attempt) == ("", 6, False)


@pytest.mark.parametrize(
    ("square", "reason"),
    [
        ("E5", "rook's step"),  # not next to the last card
        ("B1", "already holds card"),  # taken
        ("Z9", "not a square"),
        ("", "not a square"),
        ("A3", "cannot all reach"),  # next to it, but A1 and A2 would be walled in
    ],
)
async def test_a_bad_square_is_refused_and_changes_nothing(env: Env, square: str, reason: str) -> None:
    patience = env.service.patience
    attempt = await lay_all(env, await patience.start(GUILD, ALICE, "hoyle"), "C1 B1 B2 B3")
    before = await stored(env, attempt)
    with pytest.raises(PatienceError, match=reason):
        await patience.place(attempt.id, ALICE.user_id, square, version=attempt.version)
    assert await stored(env, attempt) == before


async def test_a_stale_button_and_someone_elses_layout_change_nothing(env: Env) -> None:
    patience = env.service.patience
    attempt = await lay_all(env, await patience.start(GUILD, ALICE, "hoyle"), "A1 B1")
    with pytest.raises(StaleLayoutError) as stale:
        await patience.place(attempt.id, ALICE.user_id, "C1", version=1)  # what a second panel showed
    assert stale.value.attempt.version == 2 and str(stale.value.attempt.layout) == "A1 B1"
    with pytest.raises(PatienceError, match="someone else's"):
        await patience.place(attempt.id, BOB.user_id, "C1")
    with pytest.raises(PatienceError, match="someone else's"):
        await patience.undo(attempt.id, BOB.user_id)
    with pytest.raises(PatienceError, match="no longer exists"):
        await patience.place(9999, ALICE.user_id, "C1")
    assert await stored(env, attempt) == ("A1 B1", 2, False)


async def test_two_clicks_racing_lay_one_card(env: Env) -> None:
    patience = env.service.patience
    attempt = await patience.start(GUILD, ALICE, "hoyle")
    results = await asyncio.gather(
        *(patience.place(attempt.id, ALICE.user_id, square, version=0) for square in ("A1", "C3", "E5")),
        return_exceptions=True,
    )
    laid = [r for r in results if isinstance(r, Attempt)]
    assert len(laid) == 1 and all(isinstance(r, StaleLayoutError) for r in results if r not in laid)
    assert (await stored(env, attempt))[:2] == (str(laid[0].layout), 1)


async def test_a_typed_path_lays_all_its_cards_or_none(env: Env) -> None:
    patience = env.service.patience
    attempt = await patience.start(GUILD, ALICE, "hoyle")
    attempt = await patience.lay(GUILD, ALICE.user_id, "A1, B1 C1")
    assert str(attempt.layout) == "A1 B1 C1" and attempt.version == 1  # one write
    with pytest.raises(PatienceError, match="card 6 .*nothing was laid"):
        await patience.lay(GUILD, ALICE.user_id, "D1 E1 A5")
    with pytest.raises(PatienceError, match="not a square.*nothing was laid"):
        await patience.lay(GUILD, ALICE.user_id, "D1 X7")
    with pytest.raises(PatienceError, match="no square"):
        await patience.lay(GUILD, ALICE.user_id, "A1 B1 C1")
    assert await stored(env, attempt) == ("A1 B1 C1", 1, False)
    attempt = await patience.lay(GUILD, ALICE.user_id, SNAKE)  # the whole path, from card 1: goes on from card 4
    assert attempt.complete and str(attempt.layout) == SNAKE
    with pytest.raises(PatienceError, match="no random deal layout in progress"):
        await patience.lay(GUILD, ALICE.user_id, "A1", kind="random")
    with pytest.raises(PatienceError, match="no layout in progress"):
        await patience.lay(OTHER_GUILD, ALICE.user_id, "A1")


# -- submitting ------------------------------------------------------------------------------


async def test_submit_once_with_the_best_score_and_a_best_layout(env: Env) -> None:
    patience = env.service.patience
    attempt = await lay_all(env, await patience.start(GUILD, ALICE, "hoyle"), SNAKE[:-3])
    with pytest.raises(PatienceError, match="24 laid so far"):
        await patience.submit(attempt.id, ALICE.user_id, version=attempt.version)
    attempt = await lay_all(env, attempt)
    mine = Layout.parse(HOYLE_DEAL, SNAKE).score(ENGLISH)
    result = await patience.submit(attempt.id, ALICE.user_id, version=attempt.version)
    assert result.just_submitted and result.score == mine and result.best == HOYLE_BEST == 81
    assert result.best_layout is not None
    assert result.best_layout.is_complete and result.best_layout.score(ENGLISH) == 81
    assert result.streak is None and result.rank is None  # not a daily deal
    assert result.attempt.submitted and result.attempt.best == 81 and result.attempt.finished_at == START
    assert (await stored(env, attempt))[2]
    for again in (
        patience.submit(attempt.id, ALICE.user_id, version=result.attempt.version),
        patience.submit(attempt.id, ALICE.user_id),
        patience.undo(attempt.id, ALICE.user_id),
        patience.place(attempt.id, ALICE.user_id, "A1"),
    ):
        with pytest.raises(PatienceError, match="submitted already"):
            await again
    shown = await patience.result(attempt.id, ALICE.user_id)
    assert (shown.score, shown.best, shown.just_submitted) == (mine, 81, False)
    # the next Hoyle's deal is a new layout
    fresh = await patience.start(GUILD, ALICE, "hoyle")
    assert fresh.id != attempt.id and fresh.placed == 0


async def test_american_scoring_and_random_deals(env: Env) -> None:
    patience = env.service.patience
    hoyle = await patience.start(GUILD, BOB, "hoyle", scoring="american")
    assert hoyle.scoring == AMERICAN
    with pytest.raises(PatienceError, match="scored the American way"):
        await patience.start(GUILD, BOB, "hoyle", scoring="english")
    with pytest.raises(PatienceError, match="no score table"):
        await patience.start(GUILD, BOB, "hoyle", scoring="dutch", new=True)
    random = await patience.start(GUILD, BOB, "random")
    assert random.seed is not None and random.deal == deal_from_seed(bytes.fromhex(random.seed), "patience:random")
    assert random.deal != HOYLE_DEAL and random.title == "Random deal"
    assert (await patience.start(GUILD, BOB, "random")).id == random.id  # resumed
    other = await patience.start(GUILD, BOB, "random", new=True)
    assert other.id != random.id and other.deal != random.deal
    assert await env.store.patience.get(random.id) is None  # replaced
    other = await lay_all(env, other)
    result = await patience.submit(other.id, BOB.user_id)
    assert result.best == solve(other.deal, ENGLISH).score(ENGLISH) >= result.score


# -- the daily deal ----------------------------------------------------------------------------


async def test_the_daily_deal_is_the_same_for_everyone_and_committed(env: Env) -> None:
    patience = env.service.patience
    alice = await patience.start(GUILD, ALICE, "daily")
    bob = await patience.start(GUILD, BOB, "daily")
    assert alice.deal == bob.deal and alice.id != bob.id
    assert alice.day == "2026-03-02" and alice.title == "Daily deal 2026-03-02" and alice.scoring == ENGLISH
    assert alice.commitment is not None and alice.commitment == bob.commitment
    elsewhere = await patience.start(OTHER_GUILD, ALICE, "daily")
    assert elsewhere.deal != alice.deal  # each server its own
    # the seed behind the commitment makes the deal; it is shown once the day is over
    board = await patience.leaderboard(GUILD)
    assert board.seed is None and board.best is None and board.commitment == alice.commitment and not board.over
    env.clock.advance(days=1)
    board = await patience.leaderboard(GUILD, "2026-03-02")
    assert board.over and board.seed is not None
    seed = bytes.fromhex(board.seed)
    assert hashlib.sha256(seed).hexdigest() == alice.commitment
    assert deal_from_seed(seed, daily_nonce(GUILD, "2026-03-02")) == alice.deal == board.deal
    assert board.best == solve(alice.deal).score(ENGLISH)
    # a new day, a new deal
    today = await patience.start(GUILD, ALICE, "daily")
    assert today.day == "2026-03-03" and today.deal != alice.deal and today.id != alice.id
    with pytest.raises(PatienceError, match="daily deal is scored the English way"):
        await patience.start(GUILD, ALICE, "daily", scoring="american")


async def test_one_daily_submission_and_the_day_ends_at_midnight_utc(env: Env) -> None:
    patience = env.service.patience
    attempt = await lay_all(env, await patience.start(GUILD, ALICE, "daily"))
    result = await patience.submit(attempt.id, ALICE.user_id)
    assert (result.rank, result.entrants, result.streak) == (1, 1, 1)
    again = await patience.start(GUILD, ALICE, "daily")  # today's: the submitted one, not a new one
    assert again.id == attempt.id and again.submitted and again.score == result.score
    with pytest.raises(PatienceError, match="submitted already"):
        await patience.undo(attempt.id, ALICE.user_id)
    with pytest.raises(PatienceError, match="laid out once a day"):
        await patience.start(GUILD, ALICE, "daily", new=True)
    # bob's layout of today's deal can't be played once the day is over
    bobs = await lay_all(env, await patience.start(GUILD, BOB, "daily"), "A1 B1")
    env.clock.now = datetime(2026, 3, 3, 0, 0, 1, tzinfo=UTC)
    with pytest.raises(PatienceError, match="daily deal of 2026-03-02 is over"):
        await patience.place(bobs.id, BOB.user_id, "C1")
    with pytest.raises(PatienceError, match="no daily deal layout in progress"):
        await patience.current(GUILD, BOB.user_id, "daily")
    assert await stored(env, bobs) == ("A1 B1", 2, False)


async def test_streaks_count_consecutive_utc_days(env: Env) -> None:
    patience = env.service.patience

    async def play_daily(player, path=SNAKE):
        attempt = await lay_all(env, await patience.start(GUILD, player, "daily"), path)
        return await patience.submit(attempt.id, player.user_id)

    assert await patience.streak(GUILD, ALICE.user_id) == 0
    assert (await play_daily(ALICE)).streak == 1  # 2 March
    env.clock.advance(days=1)
    assert await patience.streak(GUILD, ALICE.user_id) == 1  # still standing: today is still to play
    assert (await play_daily(ALICE)).streak == 2  # 3 March
    env.clock.advance(days=1, hours=14)  # 4 March, 23:00
    assert (await play_daily(ALICE)).streak == 3
    assert await patience.streak(OTHER_GUILD, ALICE.user_id) == 0  # per server
    env.clock.advance(days=2)  # 6 March: the 5th went by
    assert await patience.streak(GUILD, ALICE.user_id) == 0
    assert (await play_daily(ALICE)).streak == 1
    assert streak_ending({"2026-03-01", "2026-03-02"}, datetime(2026, 3, 2).date()) == 2


async def test_the_daily_leaderboard(env: Env) -> None:
    patience = env.service.patience
    deal = (await patience.start(GUILD, CAROL, "daily")).deal
    best = solve(deal, ENGLISH)
    best_path = str(best)
    scores = {}
    for player, path in ((ALICE, SNAKE), (BOB, best_path), (CAROL, SNAKE)):
        attempt = await lay_all(env, await patience.start(GUILD, player, "daily"), path)
        result = await patience.submit(attempt.id, player.user_id)
        scores[player.user_id] = result.score
        env.clock.advance(minutes=5)
    assert scores[BOB.user_id] == best.score(ENGLISH) >= scores[ALICE.user_id] == scores[CAROL.user_id]
    board = await patience.leaderboard(GUILD)
    assert board.entrants == 3 and board.deal == deal
    assert [(s.name, s.score) for s in board.standings] == [
        ("Bob", scores[BOB.user_id]),
        ("Alice", scores[ALICE.user_id]),
        ("Carol", scores[CAROL.user_id]),
    ]
    if scores[BOB.user_id] > scores[ALICE.user_id]:
        assert [s.rank for s in board.standings] == [1, 2, 2]  # ties share a place
    assert all(s.streak == 1 for s in board.standings)
    assert [s.name for s in (await patience.leaderboard(GUILD, limit=1)).standings] == ["Bob"]
    empty = await patience.leaderboard(OTHER_GUILD)
    assert empty.standings == () and empty.deal is None and empty.entrants == 0
    with pytest.raises(PatienceError, match="has not come yet"):
        await patience.leaderboard(GUILD, "2026-03-03")
    with pytest.raises(PatienceError, match="not a day"):
        await patience.leaderboard(GUILD, "yesterday")


# -- restarts -----------------------------------------------------------------------------------


async def test_a_layout_survives_a_restart(env: Env) -> None:
    attempt = await lay_all(env, await env.service.patience.start(GUILD, ALICE, "daily"), "C3 C2 B2")
    hoyle = await lay_all(env, await env.service.patience.start(GUILD, ALICE, "hoyle"), "A1")
    await env.store.close()
    restarted = await open_env(env.path, clock=env.clock)
    try:
        patience = restarted.service.patience
        again = await patience.start(GUILD, ALICE, "daily")
        assert again.id == attempt.id and str(again.layout) == "C3 C2 B2" and again.version == attempt.version
        assert again.commitment == attempt.commitment and again.deal == attempt.deal
        assert (await patience.current(GUILD, ALICE.user_id)).id == hoyle.id  # the one touched last
        again = await patience.place(again.id, ALICE.user_id, "B1", version=again.version)  # the old panel's button
        assert str(again.layout) == "C3 C2 B2 B1"
        assert (await patience.attempt(hoyle.id, ALICE.user_id)).layout == hoyle.layout
        assert (await patience.start(GUILD, BOB, "daily")).deal == attempt.deal  # the same day's deal
    finally:
        await restarted.store.close()


async def test_the_solver_runs_off_the_event_loop(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from bot.core import patience as module

    threads = []
    real = module.solve

    def spy(deal: Deal, scoring=ENGLISH):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(deal, scoring)

    monkeypatch.setattr(module, "solve", spy)
    attempt = await lay_all(env, await env.service.patience.start(GUILD, ALICE, "hoyle"))
    await env.service.patience.submit(attempt.id, ALICE.user_id)
    await env.service.patience.result(attempt.id, ALICE.user_id)  # kept: not solved twice
    assert threads == [False]
