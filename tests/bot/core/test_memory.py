"""Bounded memory: a service keeps at most ``Limits.cached_games`` active games
in memory; a game that dropped out is read again from its row and log (from its
stored snapshot and the actions after it) and is the same game, and the locks
of games no longer in memory are released."""

from __future__ import annotations

import copy
import gc
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import ChallengeOptions, GameService, Limits, PlayerRef
from bot.core.lru import Lru
from bot.store import open_store
from engine import Match, Phase, SeededDice
from engine.fairdice import FairDice
from engine.snapshot import FORMAT
from tests.bot.core.helpers import FakeClock, random_step, state_of
from tests.narrowing import present

PLAYERS = [PlayerRef(100 + n, f"p{n}") for n in range(12)]


def test_lru_keeps_the_most_recently_used():
    dropped: list[int] = []
    lru: Lru[int, str] = Lru(2, dropped.append)
    lru[1], lru[2] = "a", "b"
    assert lru.get(1) == "a"  # 1 is now the newest
    lru[3] = "c"
    assert dropped == [2] and 2 not in lru and len(lru) == 2
    assert lru.pop(1) == "a" and lru.pop(1) is None


def test_lru_keeps_its_weight_under_the_bound():
    lru: Lru[str, bytes] = Lru(10, weight=len, max_weight=10)
    lru["a"], lru["b"] = b"1234", b"5678"
    lru.get("a")  # a is the newest: b goes first
    lru["c"] = b"123"
    assert "b" not in lru and lru.total_weight == 7
    lru["c"] = b"1"  # rewriting an entry counts its new weight only
    assert lru.total_weight == 5
    lru["big"] = b"x" * 11  # heavier than the bound alone: nothing is kept
    assert len(lru) == 0 and lru.total_weight == 0


def test_lru_forgets_an_entry_past_its_time():
    now = [0.0]
    dropped: list[str] = []
    lru: Lru[str, int] = Lru(10, dropped.append, ttl=60, clock=lambda: now[0])
    lru["a"] = 1
    now[0] = 59.0
    assert lru.get("a") == 1  # reading does not extend its time
    lru["b"] = 2
    now[0] = 60.0
    assert lru.get("a") is None and "a" not in lru
    now[0] = 200.0
    lru["c"] = 3  # a write lets the oldest expired entries go without a read
    assert "b" not in lru and dropped == ["b"] and lru.get("c") == 3


@given(
    size=st.integers(1, 6),
    steps=st.lists(st.tuples(st.sampled_from(["set", "get", "pop"]), st.integers(0, 9), st.integers(1, 5))),
)
def test_lru_never_holds_more_than_its_bounds(size: int, steps: list[tuple[str, int, int]]) -> None:
    lru: Lru[int, int] = Lru(size, weight=lambda value: value, max_weight=8)
    for op, key, value in steps:
        if op == "set":
            lru[key] = value
        elif op == "get":
            lru.get(key)
        else:
            lru.pop(key)
        assert len(lru) <= size and lru.total_weight == sum(lru.values()) <= 8


def everything(match: Match) -> dict:
    """All a replay leaves in a match (only the caches of legal plays left out)."""
    games = [
        {k: v for k, v in vars(g).items() if k not in ("dice_source", "_plays", "_forgotten")} for g in match.games
    ]
    return {"settings": match.settings, "games": copy.deepcopy(games), "log": match.log}


def next_action(match: Match) -> None:
    """The same next step on either copy: what the player to act would do first."""
    game = match.game
    assert game is not None
    if game.phase is Phase.ROLL:
        game.roll(game.turn)  # the dice come from the game's fair dice, where the log left them
    elif game.phase is Phase.PLAY:
        game.play(game.turn, game.legal_plays()[-1])
    elif game.phase is Phase.DOUBLED:
        game.take(game.turn)
    elif game.phase is Phase.RESIGNATION:
        game.reject_resignation(game.turn)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.integers(10, 60), every=st.integers(2, 9))
async def test_evicted_games_come_back_the_same(tmp_path_factory, seed, steps, every):
    rng = random.Random(seed)
    path = tmp_path_factory.mktemp("lru") / "bg.sqlite3"
    clock = FakeClock()
    store = await open_store(str(path), clock=clock)
    try:
        limits = Limits(cached_games=2, snapshot_every=every)
        small = GameService(store, dice=SeededDice(seed), clock=clock, limits=limits)
        games = []
        for n in range(5):  # more games than the cache holds
            a, b = PLAYERS[2 * n], PLAYERS[2 * n + 1]
            challenge = await small.challenges.create(
                1, 500 + n, a, b, ChallengeOptions(match_length=rng.choice([0, 3]))
            )
            games.append((await small.challenges.accept(challenge.id, b.user_id)).state.id)
        for _ in range(steps):
            game_id = rng.choice(games)
            state = await small.lookups.get_game(game_id)
            if not state.is_active:
                continue
            if state.game.phase in (Phase.ROLL, Phase.PLAY) and rng.random() < 0.05:
                resigner = state.players[rng.randint(0, 1)].user_id
                await small.resign(game_id, resigner, rng.randint(1, 3), version=state.version)
            else:
                await random_step(small, state, rng)
            assert len(small.cache.matches) <= 2 and len(small.cache.rows) <= 2
            assert len(small.cache.locks) <= 4
        fresh = GameService(store, clock=clock, limits=limits)  # nothing in memory: everything from the store
        whole_logs_read = []
        read_all = store.games.actions

        def counted(*args: Any, **kwargs: Any) -> Any:
            whole_logs_read.append(args)
            return read_all(*args, **kwargs)

        store.games.actions = counted  # type: ignore[method-assign]  # counts the whole logs read
        snapshots = 0
        for game_id in games:
            mine, theirs = await small.lookups.get_game(game_id), await fresh.lookups.get_game(game_id)
            assert mine.version == theirs.version and mine.status == theirs.status
            snapshot = await store.games.snapshot(game_id)
            if not mine.is_active:
                assert snapshot is None  # gone with the game
                continue
            assert state_of(mine.match) == state_of(theirs.match)
            # The snapshot (written every `every` actions) and the tail after it
            # give exactly what replaying the whole log gives.
            if theirs.version >= every:
                assert snapshot is not None and snapshot.format == FORMAT
                assert theirs.version - every < snapshot.version <= theirs.version
                snapshots += 1
            else:
                assert snapshot is None
            row, actions = await store.games.with_actions(game_id)
            replayed = fresh.cache.rebuild(row.settings, [a.action for a in actions])
            rebuilt = theirs.match
            assert everything(rebuilt) == everything(replayed)
            assert rebuilt.game is not None
            assert replayed.game is not None
            assert rebuilt.game.legal_plays() == replayed.game.legal_plays()
            assert isinstance(rebuilt.dice_source, FairDice) and isinstance(replayed.dice_source, FairDice)
            assert rebuilt.dice_source.counter == replayed.dice_source.counter
            assert theirs.legal_play_texts() == mine.legal_play_texts()
            assert rebuilt.game.gnubg_id() == replayed.game.gnubg_id()
            # The same next action is accepted by both, with the same dice.
            rebuilt_copy, replayed_copy = copy.deepcopy(rebuilt), copy.deepcopy(replayed)
            next_action(rebuilt_copy)
            next_action(replayed_copy)
            assert everything(rebuilt_copy) == everything(replayed_copy)
            # ...and through the service, from the rebuilt game.
            await random_step(fresh, theirs, rng)
        assert whole_logs_read == []  # no snapshot was refused
    finally:
        await store.close()


async def test_names_in_memory_are_bounded_and_a_dropped_one_is_read_again(tmp_path) -> None:
    from bot.core.players import PlayerNames

    async with await open_store(tmp_path / "names.sqlite3") as store:
        names = PlayerNames(store, size=3)
        people = [PlayerRef(900 + i, f"member {i}") for i in range(6)]
        for person in people:
            await names.remember(person)
        assert len(names._known) == 3  # the three most recent only
        for person in people:  # the dropped ones come back from the store, the same
            assert await names.get(person.user_id) == person
        assert len(names._known) == 3
        renamed = PlayerRef(900, "member zero")
        await names.remember(renamed)
        assert await PlayerNames(store).get(900) == renamed  # the change was written


async def test_games_waiting_for_a_player_keep_no_legal_plays(tmp_path) -> None:
    """The collector scans every object alive, and a game waits far longer than
    it takes to act: in memory it holds none of the plays its dice allow (every
    view finds them when asked), and a play is still checked against them."""
    from engine import format_play, legal_plays

    rng = random.Random(5)
    async with await open_store(tmp_path / "plays.sqlite3") as store:
        service = GameService(store, dice=SeededDice(5))
        games = []
        for n in range(3):
            a, b = PLAYERS[2 * n], PLAYERS[2 * n + 1]
            challenge = await service.challenges.create(1, 700 + n, a, b, ChallengeOptions())
            games.append((await service.challenges.accept(challenge.id, b.user_id)).state.id)
        waiting_to_play = 0
        for _ in range(60):
            state = await service.lookups.get_game(rng.choice(games))
            if not state.is_active:
                continue
            outcome = await random_step(service, state, rng)
            cached = [match.game for _, match in service.cache.matches.values()]
            assert cached and all(present(game)._plays is None for game in cached)
            game = outcome.state.game
            if outcome.state.is_active and game.phase is Phase.PLAY:
                waiting_to_play += 1
                assert game.dice is not None
                found = legal_plays(game.position, game.dice)
                assert outcome.state.legal_plays() == found
                assert outcome.state.legal_play_texts() == sorted(format_play(play) for play in found)
                assert game._plays is None  # the view kept its own texts, not the game's plays
                # what the game keeps of them (to check the play without a search) is strings
                # and bytes, which the collector leaves alone once it has seen them
                kept = game._forgotten
                assert kept is not None and list(kept.moves) == outcome.state.legal_play_texts()
                gc.collect()
                assert not gc.is_tracked(kept.moves)
        assert waiting_to_play >= 10
