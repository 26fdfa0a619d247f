"""Issue 18 in the core: a hostile member cannot stall, flood or game the bot.

- A finished match is summarised once, in the transaction that ends it; the
  queries that look back at it read the summary and never replay its log (old
  games are summarised once, in a thread, the first time asked).
- Pending challenges are limited per challenger and per target, also across
  two services on one database; expiries are tidied a few per pass.
- Nobody is seated in a game without accepting it; the stake has a ceiling; a
  forfeit or a timeout is a single game at the cube; nobody abandons their own
  game; a set-up position must be one still to play.

Every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from bot.core import (
    Advice,
    ChallengeError,
    ChallengeOptions,
    GameService,
    GameSummary,
    Limits,
    ServiceError,
)
from bot.store import open_store
from bot.store.summaries import Part
from engine import Game, Position, ScriptedDice, WinKind, encode_match_id
from engine.gnubgid import MatchState
from tests.bot.core.helpers import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    ROBOT,
    Env,
    open_env,
    play_out,
    start_game,
)
from tests.narrowing import found


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url)
    yield e
    await e.store.close()


async def finished_match(env: Env, channel: int = 100, length: int = 3, seed: int = 3) -> int:
    state = await start_game(env.service, channel=channel, options=ChallengeOptions(match_length=length))
    state = await play_out(env.service, state, random.Random(seed))
    assert state.status == "finished"
    return state.id


class Replays:
    """Counts every replay of a logged action (``Game.apply``), and in which threads."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self.threads: set[str] = set()
        apply = Game.apply

        def counted(game: Game, action: Any) -> None:
            self.calls += 1
            self.threads.add(threading.current_thread().name)
            apply(game, action)

        monkeypatch.setattr(Game, "apply", counted)


async def drop_summary(env: Env, game_id: int) -> None:
    """Make a game look as if it ended before summaries were kept."""
    await env.store.db.transact(lambda tx: tx.execute("DELETE FROM game_summaries WHERE game_id = ?", (game_id,)))


async def everything_looking_back(service: GameService, game_id: int) -> None:
    await service.archive.history(GUILD, ALICE.user_id)
    found = await service.archive.look_up(game_id)
    assert isinstance(found, GameSummary)
    await service.archive.export_mat(game_id)
    await service.archive.export_json(game_id)
    await service.archive.game_records(game_id)
    await service.archive.verify(game_id)


# -- summaries -------------------------------------------------------------------------


async def test_the_summary_is_written_in_the_transaction_that_ends_the_match(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    appends: list[dict[str, Any]] = []
    append = env.store.games.append

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        result = await append(*args, **kwargs)
        appends.append({"summary": kwargs.get("summary"), "status": result.game.status})
        return result

    monkeypatch.setattr(env.store.games, "append", recorded)
    game_id = await finished_match(env)
    assert [a["status"] for a in appends if a["summary"] is not None] == ["finished"]  # only the last append
    assert appends[-1]["summary"] is not None
    card = await env.store.summaries.part(game_id, "card")
    row = await env.store.games.get(game_id)
    assert row.result is not None
    assert card["score"] == [row.score0, row.score1] and card["winner_seat"] == row.result["winner_seat"]
    assert card["final_position"] and len(card["games"]) >= 1


async def test_looking_back_at_a_finished_match_never_replays_it(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = await finished_match(env)
    fresh = GameService(env.store, clock=env.clock)  # nothing cached: a restarted bot, or another process
    replays = Replays(monkeypatch)
    await everything_looking_back(fresh, game_id)
    (summary,) = await fresh.archive.history(GUILD, BOB.user_id)
    assert summary.id == game_id and summary.seat(BOB.user_id) == 1
    assert replays.calls == 0


async def test_an_old_game_is_summarised_once_in_a_thread_and_kept(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = await finished_match(env)
    parts: tuple[Part, ...] = ("card", "games", "mat", "export")
    written = {part: await env.store.summaries.part(game_id, part) for part in parts}
    await drop_summary(env, game_id)
    fresh = GameService(env.store, clock=env.clock)
    replays = Replays(monkeypatch)
    # everyone asks at once: one summary is made, off the event loop
    await asyncio.gather(*(everything_looking_back(fresh, game_id) for _ in range(3)))
    made = replays.calls
    assert made > 0 and threading.main_thread().name not in replays.threads
    assert replays.calls == made
    await everything_looking_back(GameService(env.store, clock=env.clock), game_id)
    assert replays.calls == made  # kept: never made again
    # the backfill is the very summary the match's end would have written
    assert {part: await env.store.summaries.part(game_id, part) for part in written} == written


async def test_an_abandoned_game_has_its_summary_too(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    state = await start_game(env.service)
    await env.service.abandon(state.id, CAROL.user_id)
    replays = Replays(monkeypatch)
    (summary,) = await GameService(env.store, clock=env.clock).archive.history(GUILD, ALICE.user_id)
    assert summary.status == "abandoned" and summary.winner_seat is None and replays.calls == 0
    assert "abandon" in await env.service.archive.export_json(state.id)


async def test_the_analysis_of_a_finished_match_sends_its_logs_to_the_worker(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await finished_match(env)
    analysed: list[tuple[int, int]] = []

    class Analyst:
        async def aanalyse_log(self, actions: list, settings: dict, *, score: tuple, crawford: bool, ply: int) -> Any:
            analysed.append((len(actions), sum(score)))
            return SimpleNamespace(
                summary=lambda names: f"{names[0]}: fine",
                detail=lambda: {"v": 1, "moves": [], "players": [], "mistakes": []},
            )

    fresh = GameService(env.store, clock=env.clock)
    advice = Advice(fresh, analyst=Analyst())  # type: ignore[arg-type]
    replays = Replays(monkeypatch)
    summary = await fresh.archive.look_up(game_id)
    assert isinstance(summary, GameSummary)
    first = await advice.analysis(summary)
    assert [n for n, _ in first] == summary.analysable() == list(range(1, summary.game_count + 1))
    assert len(analysed) == summary.game_count and replays.calls == 0
    assert await advice.analysis(summary) == first and len(analysed) == summary.game_count  # kept


# -- floods ---------------------------------------------------------------------------


async def test_a_member_has_three_challenges_waiting_at_most(env: Env) -> None:
    s = env.service
    targets = [BOB, CAROL, DAVE]
    made = [await s.challenges.create(GUILD, 10 + n, ALICE, t, ChallengeOptions()) for n, t in enumerate(targets)]
    with pytest.raises(ChallengeError, match="you already have 3 challenges waiting"):
        await s.challenges.create(GUILD, 20, ALICE, BOB, ChallengeOptions())
    await s.challenges.cancel(made[0].id, ALICE.user_id)
    await s.challenges.create(GUILD, 20, ALICE, BOB, ChallengeOptions())


async def test_five_challenges_may_wait_for_one_member_at_most(env: Env) -> None:
    s = env.service
    challengers = [ALICE, CAROL, DAVE] + [type(ALICE)(2000 + n, f"p{n}") for n in range(3)]
    for n, who in enumerate(challengers[:5]):
        await s.challenges.create(GUILD, 30 + n, who, BOB, ChallengeOptions())
    with pytest.raises(ChallengeError, match="Bob already has 5 challenges waiting"):
        await s.challenges.create(GUILD, 40, challengers[5], BOB, ChallengeOptions())


async def test_two_services_on_one_database_share_the_limits(env: Env) -> None:
    other = await open_store(env.path, clock=env.clock)
    try:
        services = [env.service, GameService(other, clock=env.clock)]
        results = await asyncio.gather(
            *(
                services[n % 2].challenges.create(
                    GUILD, 50 + n, ALICE, type(ALICE)(3000 + n, f"t{n}"), ChallengeOptions()
                )
                for n in range(10)
            ),
            return_exceptions=True,
        )
        assert sum(not isinstance(r, BaseException) for r in results) == 3
        assert all(isinstance(r, ChallengeError) for r in results if isinstance(r, BaseException)), results
    finally:
        await other.close()


async def test_expired_challenges_are_tidied_a_few_per_pass(db_url: str) -> None:
    env = await open_env(db_url)
    try:
        s = GameService(env.store, clock=env.clock, limits=Limits(expiries_per_sweep=4))
        for n in range(10):
            await s.challenges.create(
                GUILD, 60 + n, type(ALICE)(4000 + n, f"c{n}"), BOB if n < 5 else CAROL, ChallengeOptions()
            )
        env.clock.advance(hours=25)
        passes = [await s.deadlines.process_due() for _ in range(4)]
        assert [len(p) for p in passes] == [4, 4, 2, 0]
        assert {n.kind for p in passes for n in p} == {"challenge_expired"}
    finally:
        await env.store.close()


# -- consent and the leaderboard ----------------------------------------------------------


async def test_nobody_is_seated_in_a_practice_game_without_accepting(env: Env) -> None:
    s = env.service
    gnubg_id = "4HPwATDgc/ABMA:cAkAAAAAAAAA"
    with pytest.raises(ChallengeError, match="must accept"):
        await s.setup_practice(GUILD, 70, ALICE, BOB, gnubg_id)
    assert await s.lookups.game_in_channel(70) is None
    challenge = await s.challenges.create_practice(GUILD, 70, ALICE, BOB, gnubg_id)
    assert challenge.options.practice and challenge.options.gnubg_id == gnubg_id
    assert "practice game" in challenge.options.describe() and await s.lookups.game_in_channel(70) is None
    with pytest.raises(ChallengeError, match="only Bob can accept"):
        await s.challenges.accept(challenge.id, CAROL.user_id)
    state = (await s.challenges.accept(challenge.id, BOB.user_id)).state
    assert state.players == (ALICE, BOB) and not state.options.rated
    assert state.game.position.position_id() == gnubg_id.split(":")[0]


def _finished_position_id() -> str:
    """The player on roll has borne off all fifteen: nothing left to play."""
    return Position(tuple([0] * 18 + [-15] + [0] * 5), (0, 0), (15, 0)).position_id()


# The reasons may come from the engine's reading of the ID (which refuses more
# as it learns to) or from the bot's own checks: the refusal says which ID.
REFUSED = "not a GNU Backgammon ID I can set up"


@pytest.mark.parametrize(
    "gnubg_id",
    [
        "not-an-id",
        _finished_position_id(),
        f"4HPwATDgc/ABMA:{encode_match_id(MatchState(cube=1 << 15, game_state=1))}",
    ],
    ids=["unreadable", "already over", "cube of 2^15"],
)
async def test_a_position_that_cannot_be_played_is_refused_before_anything_is_written(env: Env, gnubg_id: str) -> None:
    s = env.service
    with pytest.raises(ChallengeError, match=REFUSED):
        await s.setup_practice(GUILD, 80, ALICE, ROBOT, gnubg_id, options=ChallengeOptions(computer_level="beginner"))
    with pytest.raises(ChallengeError, match=REFUSED):
        await s.challenges.create_practice(GUILD, 80, ALICE, BOB, gnubg_id)
    assert await s.lookups.game_in_channel(80) is None
    assert (await found(env.store.db.fetchone("SELECT COUNT(*) FROM challenges")))[0] == 0


async def test_the_stake_has_a_ceiling_the_core_checks(env: Env) -> None:
    s = env.service
    assert s.limits.max_stake == 100
    with pytest.raises(ChallengeError, match="from 1 to 100 per point"):
        await s.challenges.create(GUILD, 90, ALICE, BOB, ChallengeOptions(stake=101))
    await s.challenges.create(GUILD, 90, ALICE, BOB, ChallengeOptions(stake=100))
    generous = GameService(env.store, clock=env.clock, limits=Limits(max_stake=1000))
    await generous.challenges.create(GUILD, 91, CAROL, DAVE, ChallengeOptions(stake=1000))


async def test_a_forfeit_at_the_opening_is_a_single_game_at_the_cube(db_url: str) -> None:
    # alice throws 3, bob 1: alice is to play 3-1 with her back checkers in bob's home board
    env = await open_env(db_url, dice=ScriptedDice([3, 1]))
    try:
        state = await start_game(env.service, options=ChallengeOptions(stake=7))
        assert state.game.loss_value(0) is WinKind.BACKGAMMON  # what the position would say
        out = await env.service.forfeit(state.id, ALICE.user_id)
        result = out.state.game.result
        assert result is not None
        assert (result.winner, result.kind, result.points, result.cube) == (1, WinKind.SINGLE, 1, 1)
        bob = (await found(env.service.lookups.stats(GUILD, BOB.user_id))).stats
        assert bob.points_won == 7 and bob.backgammons == 0
    finally:
        await env.store.close()


async def test_a_forfeit_after_a_double_is_single_at_the_doubled_cube(db_url: str) -> None:
    env = await open_env(db_url, dice=ScriptedDice([3, 1, 6, 6]))
    try:
        state = await start_game(env.service, options=ChallengeOptions(opening_reroll=True))
        await env.service.double(state.id, ALICE.user_id)
        await env.service.take(state.id, BOB.user_id)
        out = await env.service.forfeit(state.id, BOB.user_id)
        result = out.state.game.result
        assert result is not None
        assert (result.winner, result.kind, result.points) == (0, WinKind.SINGLE, 2)
    finally:
        await env.store.close()


async def test_a_timeout_at_the_opening_is_a_single_game_at_the_cube(db_url: str) -> None:
    env = await open_env(db_url, dice=ScriptedDice([3, 1]))
    try:
        state = await start_game(env.service, options=ChallengeOptions(move_days=1))
        assert state.to_act() == ALICE
        env.clock.advance(days=1, seconds=1)
        (notice,) = await env.service.deadlines.process_due()
        assert notice.state is not None
        result = notice.state.game.result
        assert result is not None
        assert (notice.kind, result.winner, result.kind, result.points) == ("timeout", 1, WinKind.SINGLE, 1)
    finally:
        await env.store.close()


async def test_a_player_can_never_abandon_their_own_game(env: Env) -> None:
    state = await start_game(env.service)
    for player in (ALICE, BOB):
        with pytest.raises(ServiceError, match="you play in this game"):
            await env.service.abandon(state.id, player.user_id)
    assert (await env.service.lookups.get_game(state.id)).is_active
    out = await env.service.abandon(state.id, CAROL.user_id)  # another moderator may
    assert out.state.status == "abandoned"
