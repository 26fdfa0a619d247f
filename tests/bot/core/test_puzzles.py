"""Puzzles of the day and drills (bot.core.puzzles), on both backends: which
position is chosen, answers once per member, the reveal, streaks, drills."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.model import ChallengeOptions, ServiceError
from bot.core.puzzles import AGAIN, DRILL_INTERVALS, PuzzleDelivery, Puzzles, next_midnight
from engine import Game, GameSettings, ScriptedDice
from tests.narrowing import found

from .helpers import ALICE, BOB, CAROL, GUILD, OTHER_GUILD, ROBOT, Env, FakeClock, open_env, start_game

CHANNEL = 4242
DAY1 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def position(dice: tuple[int, int]) -> str:
    """A real GNU Backgammon ID: the opening position with ``dice`` to play."""
    game = Game(GameSettings(), dice=ScriptedDice([dice[0], dice[1]] if dice[0] != dice[1] else [6, 5]))
    game.opening_roll()
    return game.gnubg_id()


def mistake(move: int, player: int, lost: float, key: str, kind: str = "checker") -> dict:
    if kind == "checker":
        choices = [["8/5 6/5", 0.2], ["13/10 6/5", round(0.2 - lost, 4)], ["24/21 6/5", 0.2 - lost - 0.05]]
        played, best = "13/10 6/5", "8/5 6/5"
    else:
        choices = [["Take", 0.3], ["Pass", round(0.3 - lost, 4)]]
        played, best = "pass", "take"
    return {
        "move": move,
        "player": player,
        "turn": move,
        "kind": kind,
        "dice": [3, 1] if kind == "checker" else None,
        "played": played,
        "best": best,
        "lost": lost,
        "id": key,
        "choices": choices,
    }


def detail(*mistakes: dict) -> dict:
    return {
        "v": 1,
        "ply": 0,
        "moves": [[1, 0, 3, 1, 0.5, 0.1, 0.1, 0.0]],
        "players": [{"decisions": 5, "lost": 0.3, "rate": 60.0, "luck": 0.0, "blunders": 1}] * 2,
        "mistakes": list(mistakes),
    }


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, clock=FakeClock(DAY1))
    yield e
    await e.store.close()


def puzzles_of(env: Env) -> Puzzles:
    return Puzzles(env.store, env.clock, env.service.names, env.service.deliveries)


async def analysed(
    env: Env, *mistakes: dict, a=ALICE, b=BOB, guild: int = GUILD, channel: int = 100, finish: bool = True
) -> int:
    """A match between ``a`` and ``b`` (finished by a forfeit unless ``finish`` is off)
    whose game 1 was analysed with these mistakes."""
    if b.is_bot:
        options = ChallengeOptions(computer_level="beginner")
        state = (await env.service.play_computer(guild, channel, a, b, options)).state
    else:
        state = await start_game(env.service, guild=guild, channel=channel, a=a, b=b)
    if finish:
        await env.service.forfeit(state.id, b.user_id)
    await env.service.archive.save_analysis(state.id, 1, 0, "summary", detail(*mistakes))
    return state.id


async def test_the_days_biggest_error_of_a_member_never_from_a_running_game(env: Env) -> None:
    puzzles = puzzles_of(env)
    k = [position(d) for d in ((3, 1), (4, 2), (6, 5), (5, 3), (6, 1))]
    env.clock.now = DAY1 - timedelta(days=2)
    older = await analysed(env, mistake(3, 0, 0.075, k[0]), channel=101)
    env.clock.now = DAY1
    today = await analysed(
        env,
        mistake(2, 0, 0.05, k[1]),
        mistake(4, 1, 0.02, k[2]),
        mistake(5, 1, 0.07, k[3]),
        a=ALICE,
        b=ROBOT,
        channel=102,
    )  # the computer's 0.07 is no member's error; 0.02 is no real error
    running = await analysed(env, mistake(2, 0, 0.078, k[4]), a=CAROL, b=BOB, channel=103, finish=False)
    await puzzles.configure(GUILD, channel_id=CHANNEL)

    await puzzles.run_due(env.clock())
    first = (await env.store.puzzles.latest(GUILD))[0]
    assert (first.game_id, first.user_id, first.position_key) == (today, ALICE.user_id, k[1])
    assert first.day == "2024-03-01" and first.kind == "daily" and first.channel_id == CHANNEL
    assert first.reveal_at == next_midnight(DAY1).timestamp()
    assert first.payload["names_shown"] is False
    (owed,) = await env.service.deliveries.owed()
    assert isinstance(owed, PuzzleDelivery) and owed.kind == "puzzle"
    assert owed.puzzle is not None and owed.puzzle.id == first.id
    assert owed.channel_id == CHANNEL
    await env.service.deliveries.delivered(owed.entries)
    await puzzles.run_due(env.clock())  # one a day
    assert len(await env.store.puzzles.latest(GUILD, limit=10)) == 1

    # the next day: yesterday's is revealed, and with no new game the biggest older error is asked
    env.clock.now = next_midnight(DAY1) + timedelta(minutes=1)
    await puzzles.run_due(env.clock())
    second = (await env.store.puzzles.latest(GUILD))[0]
    assert (second.game_id, second.position_key, second.day) == (older, k[0], "2024-03-02")
    kinds = [d.kind for d in await env.service.deliveries.owed()]
    assert kinds == ["puzzle_reveal", "puzzle"]  # the reveal first
    assert (await found(env.store.puzzles.get(first.id))).revealed_at is not None

    # nothing left: no puzzle (the running game's error is never asked)
    env.clock.now += timedelta(days=1)
    await puzzles.run_due(env.clock())
    assert [p.game_id for p in await env.store.puzzles.latest(GUILD, limit=10)] == [older, today]
    assert running not in [p.game_id for p in await env.store.puzzles.latest(GUILD, limit=10)]


async def test_never_the_same_position_twice_in_a_server(env: Env) -> None:
    puzzles = puzzles_of(env)
    key = position((3, 1))
    await analysed(env, mistake(2, 0, 0.05, key), channel=101)
    await analysed(env, mistake(6, 1, 0.06, key), a=CAROL, channel=102)
    await analysed(env, mistake(6, 1, 0.06, key), guild=OTHER_GUILD, channel=201)
    await puzzles.configure(GUILD, channel_id=CHANNEL)
    await puzzles.configure(OTHER_GUILD, channel_id=CHANNEL + 1, names=True)
    await puzzles.run_due(env.clock())
    env.clock.now = next_midnight(env.clock()) + timedelta(hours=1)
    await puzzles.run_due(env.clock())
    mine = await env.store.puzzles.latest(GUILD, limit=10)
    assert [p.position_key for p in mine] == [key]  # the other game's same position is not asked again
    theirs = await env.store.puzzles.latest(OTHER_GUILD, limit=10)
    assert [p.position_key for p in theirs] == [key]  # another server may have it
    assert theirs[0].payload["names_shown"] is True and theirs[0].payload["names"] == ["Alice", "Bob"]


async def test_answers_once_each_the_reveal_and_streaks(env: Env) -> None:
    puzzles = puzzles_of(env)
    k1, k2 = position((3, 1)), position((4, 2))
    await analysed(env, mistake(2, 0, 0.05, k1), channel=101)
    await puzzles.configure(GUILD, channel_id=CHANNEL)
    await puzzles.run_due(env.clock())
    (row,) = await env.store.puzzles.latest(GUILD)
    puzzle = await puzzles.get(row.id)
    labels = [c.label for c in puzzle.decision.choices]
    assert labels == sorted(labels)  # offered in notation order: nothing given away
    right = labels.index("8/5 6/5")
    wrong = labels.index("13/10 6/5")

    _, alice = await puzzles.answer(row.id, ALICE.user_id, right)
    assert alice.counted and alice.right and not alice.shown  # the answer waits for the reveal
    _, again = await puzzles.answer(row.id, ALICE.user_id, wrong)
    assert again.before is not None
    assert not again.counted and again.before.label == "8/5 6/5" and again.right  # the first answer stands
    _, bob = await puzzles.answer(row.id, BOB.user_id, wrong)
    assert bob.counted and not bob.right and bob.choice.loss == pytest.approx(0.05)
    await puzzles.answer(row.id, CAROL.user_id, right)
    with pytest.raises(ServiceError):
        await puzzles.answer(row.id, CAROL.user_id, 9)

    env.clock.now = next_midnight(env.clock()) + timedelta(minutes=1)
    await analysed(env, mistake(2, 0, 0.06, k2), channel=102)
    await puzzles.run_due(env.clock())
    revealed = await puzzles.get(row.id)
    reveal = await puzzles.reveal_of(revealed)
    assert revealed.revealed and set(reveal.right) == {ALICE.user_id, CAROL.user_id}
    assert dict((c.label, users) for c, users in reveal.chosen)["13/10 6/5"] == (BOB.user_id,)
    scores = {s.user_id: s for s in await puzzles.leaderboard(GUILD)}
    assert (scores[ALICE.user_id].correct, scores[ALICE.user_id].streak) == (1, 1)
    assert (scores[BOB.user_id].answered, scores[BOB.user_id].correct, scores[BOB.user_id].streak) == (1, 0, 0)
    assert not await env.store.puzzles.reveal(await found(env.store.puzzles.get(row.id)))  # revealed once

    # day 2: alice right again, carol does not answer: her streak ends
    day2 = (await env.store.puzzles.latest(GUILD))[0]
    assert day2.id != row.id
    best = [c.best for c in (await puzzles.get(day2.id)).decision.choices].index(True)
    await puzzles.answer(day2.id, ALICE.user_id, best)
    env.clock.now = next_midnight(env.clock()) + timedelta(minutes=1)
    await puzzles.run_due(env.clock())
    board = await puzzles.leaderboard(GUILD)
    assert [s.user_id for s in board] == [ALICE.user_id, CAROL.user_id, BOB.user_id]
    alice_score = board[0]
    assert (alice_score.correct, alice_score.streak, alice_score.best_streak, alice_score.answered) == (2, 2, 2, 2)
    carol_score = board[1]
    assert (carol_score.correct, carol_score.streak, carol_score.best_streak) == (1, 0, 1)
    reveal2 = await puzzles.reveal_of(await puzzles.get(day2.id))
    assert reveal2.streaks == ((ALICE.user_id, 2),)


async def test_a_puzzle_on_demand(env: Env) -> None:
    puzzles = puzzles_of(env)
    k1, k2 = position((3, 1)), position((4, 2))
    with pytest.raises(ServiceError, match="no puzzle here yet"):
        await puzzles.on_demand(GUILD, CAROL.user_id)
    await analysed(env, mistake(2, 0, 0.05, k1), mistake(4, 1, 0.07, k2, kind="take"), channel=101)
    await puzzles.configure(GUILD, channel_id=CHANNEL)
    await puzzles.run_due(env.clock())
    today = (await env.store.puzzles.latest(GUILD))[0]
    assert today.position_key == k2  # the take/pass error was the bigger
    served = await puzzles.on_demand(GUILD, CAROL.user_id)
    assert served.id == today.id and served.decision.kind == "take"
    assert [c.label for c in served.decision.choices] == ["Take", "Pass"] and served.decision.played == "Pass"
    await puzzles.answer(today.id, CAROL.user_id, 0)
    extra = await puzzles.on_demand(GUILD, CAROL.user_id)  # answered today's: a new one
    assert extra.kind == "extra" and extra.decision.gnubg_id == k1 and extra.answered_at_once
    _, answered = await puzzles.answer(extra.id, CAROL.user_id, 0)
    assert answered.shown
    assert (await puzzles.on_demand(GUILD, BOB.user_id)).id == today.id
    with pytest.raises(ServiceError):
        await puzzles.on_demand(GUILD, CAROL.user_id)  # nothing left for carol
    assert (await puzzles.on_demand(GUILD, ALICE.user_id)).id == today.id


async def test_drills_come_back_until_learned(env: Env) -> None:
    puzzles = puzzles_of(env)
    k1, k2, k3 = position((3, 1)), position((4, 2)), position((6, 5))
    await analysed(env, mistake(2, 0, 0.10, k1), mistake(3, 1, 0.3, k3), mistake(4, 0, 0.2, k2), channel=101)
    first = await puzzles.next_drill(ALICE.user_id)
    assert first is not None
    assert first.decision.gnubg_id == k2 and (first.due, first.later, first.learned) == (2, 0, 0)  # the biggest
    assert (await found(puzzles.next_drill(BOB.user_id))).decision.gnubg_id == k3  # bob's own
    with pytest.raises(ServiceError, match="not yours"):
        await puzzles.answer_drill(first.id, BOB.user_id, 0)

    wrong = [c.best for c in first.decision.choices].index(False)
    _, answered = await puzzles.answer_drill(first.id, ALICE.user_id, wrong)
    assert not answered.right and answered.next_due == env.clock() + AGAIN
    with pytest.raises(ServiceError, match="already"):
        await puzzles.answer_drill(first.id, ALICE.user_id, wrong)
    assert (await found(puzzles.next_drill(ALICE.user_id))).decision.gnubg_id == k1  # the other one meanwhile
    env.clock.advance(minutes=11)
    drill = await puzzles.next_drill(ALICE.user_id)
    assert drill is not None
    assert drill.decision.gnubg_id == k1  # due before: k2 came back after it

    # right answers: up a box and further off each time, until learned
    key = drill.decision.gnubg_id
    for step, interval in enumerate([*DRILL_INTERVALS, None]):
        right = [c.best for c in drill.decision.choices].index(True)
        _, answered = await puzzles.answer_drill(drill.id, ALICE.user_id, right)
        assert answered.right
        if interval is None:
            assert answered.learned and answered.next_due is None
            break
        assert answered.next_due == env.clock() + interval
        env.clock.advance(days=interval.days, minutes=1)
        while True:  # the other drill is due too: answer it right as well
            drill = await puzzles.next_drill(ALICE.user_id)
            assert drill is not None
            if drill.decision.gnubg_id == key:
                break
            best = [c.best for c in drill.decision.choices].index(True)
            await puzzles.answer_drill(drill.id, ALICE.user_id, best)
    due, later, learned = await puzzles.drill_counts(ALICE.user_id)
    assert learned >= 1 and due == 0


async def test_the_puzzle_of_the_day_is_never_an_error_the_analysis_spells_out(env: Env) -> None:
    """The game-over analysis and ``/bg analysis`` say "played X, better Y" for each error
    over the blunder threshold: a daily puzzle from one would have its answer public."""
    from bot.ai import BLUNDER_THRESHOLD
    from bot.core.puzzles import PUBLISHED

    assert PUBLISHED == BLUNDER_THRESHOLD
    puzzles = puzzles_of(env)
    published, quiet = position((3, 1)), position((4, 2))
    await analysed(env, mistake(2, 0, 0.30, published), mistake(4, 0, 0.05, quiet), channel=101)
    await puzzles.configure(GUILD, channel_id=CHANNEL)
    await puzzles.run_due(env.clock())
    (daily,) = await env.store.puzzles.latest(GUILD)
    assert daily.position_key == quiet
    served = await puzzles.get(daily.id)
    assert not served.names_now  # names, game and move wait for the reveal


async def test_candidates_are_built_off_the_loop_and_kept_a_while(env: Env, monkeypatch) -> None:
    import threading

    import bot.core.puzzles as module

    puzzles = puzzles_of(env)
    await analysed(env, mistake(2, 0, 0.05, position((3, 1))), channel=101)
    threads, reads = [], []
    decision = module.decision_of

    def recorded(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        threads.append(threading.current_thread() is threading.main_thread())
        return decision(*args, **kwargs)

    monkeypatch.setattr(module, "decision_of", recorded)
    read = env.store.stats.analysed_games

    async def counted(**kwargs):  # noqa: ANN003, ANN202
        reads.append(kwargs)
        return await read(**kwargs)

    monkeypatch.setattr(env.store.stats, "analysed_games", counted)
    first = await puzzles.candidates(guild_id=GUILD)
    again = await puzzles.candidates(guild_id=GUILD, sees=lambda channel, players: channel != 101)
    assert len(first) == 1 and again == []  # kept, then filtered for who reads
    assert len(reads) == 1 and threads == [False]
