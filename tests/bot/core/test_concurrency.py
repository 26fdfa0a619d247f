"""Races on one game: one GameService, two services on one database, two processes; SIGKILL mid-stream.

Every test runs on SQLite and on PostgreSQL (the ``db_url`` fixture).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot.core import (
    ChallengeError,
    ChallengeOptions,
    GameService,
    NoGameError,
    NotYourTurnError,
    Outcome,
    StaleGameError,
)
from bot.store import Store, open_store
from engine import Phase, SeededDice
from tests.bot.core.helpers import (  # noqa: E402
    ALICE,
    BOB,
    Env,
    assert_replays,
    open_env,
    start_game,
    stored_state,
)
from tests.narrowing import present

WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, dice=SeededDice(11))
    yield e
    await e.store.close()


async def to_roll_phase(service: GameService, state):
    """Advance the game (playing the first legal play) until someone must roll."""
    while state.game.phase is not Phase.ROLL:
        assert state.game.phase is Phase.PLAY
        state = (await service.play(state.id, state.to_act().user_id, state.legal_play_texts()[0])).state
    return state


async def rolls(service: GameService, store: Store, game_id: int) -> int:
    _, log, _ = await stored_state(service, store, game_id)
    return sum(1 for a in log if a["kind"] == "roll")


def split(results: Sequence[object]) -> tuple[list[Outcome], list[BaseException]]:
    ok = [r for r in results if isinstance(r, Outcome)]
    errors = [r for r in results if isinstance(r, BaseException)]
    return ok, errors


async def test_double_click_rolls_once(env: Env) -> None:
    s = env.service
    state = await start_game(s)
    for _ in range(15):
        state = await to_roll_phase(s, state)
        uid = state.to_act().user_id
        before = await rolls(s, env.store, state.id)
        results = await asyncio.gather(
            s.roll(state.id, uid, version=state.version),
            s.roll(state.id, uid, version=state.version),
            return_exceptions=True,
        )
        ok, errors = split(results)
        assert len(ok) == 1 and len(errors) == 1, results
        assert isinstance(errors[0], StaleGameError) and errors[0].message == "the game has moved on"
        assert errors[0].state is not None and errors[0].state.version == ok[0].state.version
        assert await rolls(s, env.store, state.id) == before + 1
        await assert_replays(s, env.store, state.id)
        state = ok[0].state
        if not state.is_active:
            break


async def test_both_players_at_once(env: Env) -> None:
    s = env.service
    state = await to_roll_phase(s, await start_game(s))
    actor = state.to_act()
    other = BOB if actor == ALICE else ALICE
    before = await rolls(s, env.store, state.id)
    results = await asyncio.gather(
        s.roll(state.id, other.user_id, version=state.version),
        s.roll(state.id, actor.user_id, version=state.version),
        return_exceptions=True,
    )
    ok, errors = split(results)
    assert len(ok) == 1 and isinstance(errors[0], (NotYourTurnError, StaleGameError)), results
    assert await rolls(s, env.store, state.id) == before + 1
    state = await to_roll_phase(s, ok[0].state)
    # a roll and a resignation (allowed out of turn) race: exactly one applies
    actor = state.to_act()
    other = BOB if actor == ALICE else ALICE
    v = state.version
    results = await asyncio.gather(
        s.resign(state.id, other.user_id, version=v),
        s.roll(state.id, actor.user_id, version=v),
        return_exceptions=True,
    )
    ok, errors = split(results)
    assert len(ok) == 1 and isinstance(errors[0], StaleGameError), results
    row, log, _ = await stored_state(s, env.store, state.id)
    assert row.version == ok[0].state.version
    await assert_replays(s, env.store, state.id)


async def test_two_services_on_one_database(env: Env) -> None:
    other_store = await open_store(env.path, clock=env.clock)
    try:
        s1, s2 = env.service, GameService(other_store, dice=SeededDice(12), clock=env.clock)
        state = await start_game(s1)
        await s2.lookups.get_game(state.id)  # both caches warm
        for i in range(12):
            state = await to_roll_phase(s1, await s1.lookups.get_game(state.id))
            uid = state.to_act().user_id
            before = await rolls(s1, env.store, state.id)
            first, second = (s1, s2) if i % 2 else (s2, s1)
            results = await asyncio.gather(
                first.roll(state.id, uid, version=state.version),
                second.roll(state.id, uid, version=state.version),
                return_exceptions=True,
            )
            ok, errors = split(results)
            assert len(ok) == 1 and len(errors) == 1, results
            assert isinstance(errors[0], StaleGameError), results
            assert await rolls(s1, env.store, state.id) == before + 1
            # both services agree with the database afterwards
            await assert_replays(s1, env.store, state.id)
            await assert_replays(s2, other_store, state.id)
            state = ok[0].state
            if not state.is_active:
                break
    finally:
        await other_store.close()


async def test_a_challenge_answered_by_another_process_is_not_answered_again(env: Env) -> None:
    """A service answers from the challenge it remembers; the answer's transaction catches
    one that another process answered meanwhile, and nothing is written."""
    other_store = await open_store(env.path, clock=env.clock)
    try:
        s1, s2 = env.service, GameService(other_store, dice=SeededDice(12), clock=env.clock)
        declined = await s1.challenges.create(1, 100, ALICE, BOB, ChallengeOptions())
        accepted = await s1.challenges.create(1, 101, ALICE, BOB, ChallengeOptions())
        await s2.challenges.decline(declined.id, BOB.user_id)
        await s2.challenges.accept(accepted.id, BOB.user_id)
        for challenge in (declined, accepted):
            with pytest.raises(ChallengeError, match="already answered"):
                await s1.challenges.accept(challenge.id, BOB.user_id)
        # s1 now reads them again, and has started no game of its own
        with pytest.raises(ChallengeError, match="already accepted"):
            await s1.challenges.decline(accepted.id, BOB.user_id)
        with pytest.raises(ChallengeError, match="already declined"):
            await s1.challenges.pending(declined.id)
        assert await s1.lookups.game_in_channel(100) is None
        assert len(await env.store.games.active_for(BOB.user_id)) == 1
    finally:
        await other_store.close()


async def test_acting_from_a_row_another_process_moved_on(env: Env) -> None:
    """A service acts from the row it last saw; the compare-and-set catches a newer one."""
    other_store = await open_store(env.path, clock=env.clock)
    try:
        s1, s2 = env.service, GameService(other_store, dice=SeededDice(12), clock=env.clock)
        state = await to_roll_phase(s1, await start_game(s1))  # s1 now holds the newest row
        uid = state.to_act().user_id
        before = await rolls(s1, env.store, state.id)
        await s2.roll(state.id, uid, version=state.version)  # another process rolls
        with pytest.raises(StaleGameError) as stale:
            await s1.roll(state.id, uid, version=state.version)  # the same click, seen by s1
        fresh = stale.value.state
        assert fresh is not None
        assert fresh.version > state.version and fresh.game.phase is Phase.PLAY
        assert await rolls(s1, env.store, state.id) == before + 1
        # s1 goes on from the fresh row
        played = await s1.play(fresh.id, uid, fresh.legal_play_texts()[0], version=fresh.version)
        await assert_replays(s1, env.store, state.id)
        # a command without a version on s2's older row applies to the stored state
        await s2.forfeit(state.id, uid)
        stored = (await stored_state(s1, env.store, state.id))[:2]  # the row and the log
        with pytest.raises(NoGameError, match="over"):
            await s1.roll(state.id, present(played.state.to_act()).user_id, version=played.state.version)
        assert (await stored_state(s1, env.store, state.id))[:2] == stored
    finally:
        await other_store.close()


def _run_worker(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        **kw,
    )


async def test_two_processes_race_one_roll(env: Env) -> None:
    s = env.service
    state = await start_game(s)
    for _ in range(3):
        state = await to_roll_phase(s, await s.lookups.get_game(state.id))
        uid = state.to_act().user_id
        before = await rolls(s, env.store, state.id)
        start_at = time.time() + 1.5
        procs = [
            _run_worker("race", str(env.path), str(state.id), str(uid), str(state.version), str(start_at))
            for _ in range(2)
        ]
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=60)
            assert p.returncode == 0, err
            outs.append(json.loads(out.strip().splitlines()[-1]))
        assert sorted(o["result"] for o in outs) == ["ok", "stale"], outs
        assert await rolls(s, env.store, state.id) == before + 1
        await assert_replays(s, env.store, state.id)
        row, _, _ = await stored_state(s, env.store, state.id)
        assert row.version == [o for o in outs if o["result"] == "ok"][0]["version"]


async def test_sigkill_mid_stream_loses_no_acknowledged_action(db_url: str) -> None:
    db = db_url
    for attempt, wait_for in enumerate((40, 150, 400)):
        proc = _run_worker("stream", str(db), str(10_000 * (attempt + 1)), str(attempt))
        acked: dict[int, list[int]] = {}
        assert proc.stdout is not None
        deadline = time.time() + 60
        count = 0
        while count < wait_for and time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            gid, version = map(int, line.split())
            acked.setdefault(gid, []).append(version)
            count += 1
        os.kill(proc.pid, signal.SIGKILL)
        rest, err = proc.communicate(timeout=30)
        for line in rest.splitlines():  # flushed before the kill: acknowledged too
            gid, version = map(int, line.split())
            acked.setdefault(gid, []).append(version)
        assert count == wait_for, err
        store = await open_store(db)
        try:
            service = GameService(store, dice=SeededDice(0))
            assert await store.integrity_check() == "ok"
            for gid, versions in acked.items():
                row, log, rebuilt = await stored_state(service, store, gid)
                assert row.version == len(log)
                assert max(versions) <= row.version
                seqs = {a.seq for a in await store.games.actions(gid)}
                assert set(versions) <= seqs
                await assert_replays(service, store, gid)
                if row.is_active:
                    assert row.version - max(versions) <= 10  # at most the one unacknowledged commit
        finally:
            await store.close()
