"""Hypothesis: random legal and illegal action sequences against the service.

After every step the stored game equals the replay of its log (and the
service's own view of it); a refused action raises a typed ServiceError with a
message and changes nothing (same version, same log).  Runs on SQLite and
PostgreSQL: one database per backend, each example a fresh store (connection
or pool) and game in a channel of its own.
"""

from __future__ import annotations

import asyncio
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import ChallengeOptions, ServiceError
from engine import SeededDice
from tests.bot.core.helpers import ALICE, BOB, CAROL, assert_replays, open_env, start_game, stored_state  # noqa: E402
from tests.narrowing import present

OPS = [
    "roll",
    "roll",
    "play_legal",
    "play_legal",
    "play_legal",
    "play_text",
    "double",
    "take",
    "pass",
    "beaver",
    "resign",
    "accept_res",
    "reject_res",
    "forfeit",
]
OPTIONS = [
    ChallengeOptions(),
    ChallengeOptions(beavers=True, jacoby=True),
    ChallengeOptions(match_length=3),
    ChallengeOptions(match_length=1, opening_reroll=True),
    ChallengeOptions(automatic_doubles=True, stake=4),
]
notation = st.one_of(
    st.text(alphabet="0123456789/-*() bBaArRoOfF,", max_size=16),
    st.text(max_size=8),
    st.sampled_from(
        [
            "",
            "pass",
            "8/5 6/5",
            "24/18 13/10",
            "bar/20",
            "6/off",
            "13/7(2)",
            "25/0",
            "8/5(5)",
            "24-18 13-10",
            "24 18 13 10",
            "8/-1",
            "0/5",
            "26/20",
            "6/off(4)",
            "b/22*",
            "१३/७",
        ]
    ),
)
step = st.tuples(
    st.sampled_from(OPS),
    st.sampled_from(["actor", "actor", "actor", "other", "third"]),
    st.sampled_from(["current", "current", "none", "stale"]),
    st.integers(0, 40),
    notation,
)


CHANNELS = itertools.count(1)


async def run(db_url: str, seed: int, option: ChallengeOptions, steps: list) -> None:
    env = await open_env(db_url, dice=SeededDice(seed))
    try:
        s = env.service
        state = await start_game(s, channel=next(CHANNELS), options=option)
        await assert_replays(s, env.store, state.id)
        for op, who, ver, n, text in steps:
            state = await s.lookups.get_game(state.id)
            if not state.is_active:
                break
            actor = state.to_act()
            other = BOB if actor == ALICE else ALICE
            uid = present({"actor": actor, "other": other, "third": CAROL}[who]).user_id
            version = {"current": state.version, "none": None, "stale": state.version - 1 - n % 3}[ver]
            kw = {"version": version}
            legal = state.legal_play_texts()
            call = {
                "roll": lambda: s.roll(state.id, uid, **kw),
                "play_legal": lambda: s.play(state.id, uid, legal[n % len(legal)] if legal else text, **kw),
                "play_text": lambda: s.play(state.id, uid, text, **kw),
                "double": lambda: s.double(state.id, uid, **kw),
                "take": lambda: s.take(state.id, uid, **kw),
                "pass": lambda: s.pass_double(state.id, uid, **kw),
                "beaver": lambda: s.beaver(state.id, uid, **kw),
                "resign": lambda: s.resign(state.id, uid, n % 5, **kw),
                "accept_res": lambda: s.accept_resignation(state.id, uid, **kw),
                "reject_res": lambda: s.reject_resignation(state.id, uid, **kw),
                "forfeit": lambda: s.forfeit(state.id, uid),
            }[op]
            row_before, log_before, _ = await stored_state(s, env.store, state.id)
            try:
                out = await call()
            except ServiceError as error:
                assert error.message, (op, error)
                row_after, log_after, _ = await stored_state(s, env.store, state.id)
                assert row_after.version == row_before.version and log_after == log_before, op
                assert row_after.updated_at == row_before.updated_at
            else:
                assert out.state.version > row_before.version
                row_after, log_after, _ = await stored_state(s, env.store, state.id)
                assert log_after[: len(log_before)] == log_before
                assert row_after.version == out.state.version
            await assert_replays(s, env.store, state.id)
    finally:
        await env.store.close()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=False,
)
@given(
    seed=st.integers(0, 10_000),
    option=st.sampled_from(OPTIONS),
    steps=st.lists(step, min_size=1, max_size=30),
)
def test_random_action_sequences_keep_store_and_log_in_step(
    db_url: str, seed: int, option: ChallengeOptions, steps: list
) -> None:
    asyncio.run(run(db_url, seed, option, steps))
