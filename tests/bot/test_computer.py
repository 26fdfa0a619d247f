"""The computer plays through the game service like a person: complete games,
no refused action, every game ends."""

from __future__ import annotations

import os
import random
import time

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot.ai import Analyst, Level  # noqa: E402
from bot.computer import ComputerPlayer  # noqa: E402
from bot.service import ChallengeOptions, GameService, PlayerRef, ServiceError  # noqa: E402
from bot.storage import Store  # noqa: E402
from engine import SeededDice  # noqa: E402

GAMES = int(os.environ.get("BG_COMPUTER_GAMES", "200"))
CPU_A = PlayerRef(9001, "Computer A")
CPU_B = PlayerRef(9002, "Computer B")


async def play_out(service: GameService, players: dict[int, ComputerPlayer], game_id: int) -> tuple[int, int]:
    """Let the two computers act until the match ends; return (actions, service errors)."""
    actions = errors = 0
    for _ in range(5000):
        view = await service.get_game(game_id)
        who = view.to_act()
        if who is None:
            return actions, errors
        try:
            outcomes = await players[who.user_id].take_turn(game_id)
        except ServiceError:
            errors += 1
            raise
        assert outcomes, "the computer was to act but did nothing"
        actions += len(outcomes)
    raise AssertionError(f"game {game_id} did not end")


@pytest.mark.slow
async def test_computer_vs_computer_through_the_service(tmp_path):
    store = await Store.open(str(tmp_path / "games.sqlite3"))
    try:
        service = GameService(store, dice=SeededDice(6))
        analyst = Analyst(rng=random.Random(6))
        players = {
            CPU_A.user_id: ComputerPlayer(service, CPU_A.user_id, Level.BEGINNER, analyst=analyst, rng=random.Random(1)),
            CPU_B.user_id: ComputerPlayer(service, CPU_B.user_id, Level.BEGINNER, analyst=analyst, rng=random.Random(2)),
        }
        started = time.perf_counter()
        errors = total_actions = 0
        results = []
        for number in range(GAMES):
            # Mostly money games (with beavers and Jacoby now and then), some short matches.
            options = ChallengeOptions(
                match_length=3 if number % 10 == 9 else 0,
                beavers=number % 10 in (1, 2),
                jacoby=number % 10 == 3,
            )
            a, b = (CPU_A, CPU_B) if number % 2 == 0 else (CPU_B, CPU_A)
            challenge = await service.challenge(1, 100, a, b, options)
            outcome = await service.accept(challenge.id, b.user_id)
            actions, err = await play_out(service, players, outcome.view.id)
            errors += err
            total_actions += actions
            final = await service.get_game(outcome.view.id)
            assert final.status == "finished"
            assert final.match.is_over
            results.append(final.result)
        elapsed = time.perf_counter() - started
        print(f"\n{GAMES} computer games, {total_actions} computer actions, {errors} refused, {elapsed:.1f} s")
        assert errors == 0
        assert len(results) == GAMES
    finally:
        await store.close()
