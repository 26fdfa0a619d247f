"""The computer plays through the game service like a person: complete games,
no refused action, every game ends."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import cast

import pytest

pytest.importorskip("gnubg_nn")
pytest.importorskip("bgsage")

from bot.ai import Analyst, Level  # noqa: E402
from bot.core import ChallengeOptions, GameService, GameState, PlayerRef, ServiceError  # noqa: E402
from bot.core.computer import ComputerPlayer  # noqa: E402
from bot.store import open_store  # noqa: E402
from engine import SeededDice  # noqa: E402

GAMES = int(os.environ.get("BG_COMPUTER_GAMES", "30"))
"""Through the service each action is a stored transaction (~10 ms here): 30 games
fit the time budget; BG_COMPUTER_GAMES=200 runs the full set."""
CPU_A = PlayerRef(9001, "Computer A")
CPU_B = PlayerRef(9002, "Computer B")


async def play_out(service: GameService, players: dict[int, ComputerPlayer], game_id: int) -> tuple[int, int]:
    """Let the two computers act until the match ends; return (actions, service errors)."""
    actions = errors = 0
    for _ in range(5000):
        state = await service.lookups.get_game(game_id)
        who = state.to_act()
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
    store = await open_store(str(tmp_path / "games.sqlite3"))
    try:
        service = GameService(store, dice=SeededDice(6))
        analyst = Analyst(rng=random.Random(6))
        players = {
            CPU_A.user_id: ComputerPlayer(
                service, CPU_A.user_id, Level.BEGINNER, analyst=analyst, rng=random.Random(1)
            ),
            CPU_B.user_id: ComputerPlayer(
                service, CPU_B.user_id, Level.BEGINNER, analyst=analyst, rng=random.Random(2)
            ),
        }
        started = time.perf_counter()
        errors = total_actions = 0
        results = []
        for number in range(GAMES):
            # Mostly money games (with beavers and Jacoby now and then), some short matches.
            options = ChallengeOptions(
                match_length=0,
                beavers=number % 10 in (1, 2),
                jacoby=number % 10 == 3,
            )
            a, b = (CPU_A, CPU_B) if number % 2 == 0 else (CPU_B, CPU_A)
            challenge = await service.challenges.create(1, 100, a, b, options)
            outcome = await service.challenges.accept(challenge.id, b.user_id)
            actions, err = await play_out(service, players, outcome.state.id)
            errors += err
            total_actions += actions
            final = await service.lookups.get_game(outcome.state.id)
            assert final.status == "finished"
            assert final.match.is_over
            results.append(final.result)
        elapsed = time.perf_counter() - started
        print(f"\n{GAMES} computer games, {total_actions} computer actions, {errors} refused, {elapsed:.1f} s")
        assert errors == 0
        assert len(results) == GAMES
    finally:
        await store.close()


NO_SERVICE = cast(GameService, None)
"""The computer's service where a test only asks it for decisions (it never reaches the service)."""


class _View:
    """Just enough of a GameState for ComputerPlayer.decide on a bare engine match."""

    def __init__(self, match, seats: tuple[int, int]) -> None:
        self.id = 1
        self.match = match
        self.seats = seats

    @property
    def game(self):
        return self.match.game

    def seat(self, user_id: int):
        return self.seats.index(user_id) if user_id in self.seats else None


def _view(match, seats: tuple[int, int]) -> GameState:
    """A :class:`_View` where ComputerPlayer.decide takes a GameState (it reads no more)."""
    return cast(GameState, _View(match, seats))


@pytest.mark.slow
async def test_computer_games_on_the_engine():
    """Twice GAMES money games at the fast level, every decision applied by the engine
    (which refuses anything illegal): none refused, all finish."""
    from engine import GameError, GameSettings, IllegalPlayError, Match, NotationError

    analyst = Analyst(rng=random.Random(7))
    dice = SeededDice(7)
    cpus = {
        0: ComputerPlayer(NO_SERVICE, 10, Level.BEGINNER, analyst=analyst, rng=random.Random(10)),
        1: ComputerPlayer(NO_SERVICE, 11, Level.BEGINNER, analyst=analyst, rng=random.Random(11)),
    }
    refused = 0
    started = time.perf_counter()
    kinds: dict[str, int] = {}
    for number in range(2 * GAMES):
        settings = GameSettings(beavers=number % 4 == 1, jacoby=number % 4 == 2)
        match = Match(settings, dice=dice)
        game = match.new_game()
        game.opening_roll()
        state = _view(match, (10, 11))
        for _ in range(2000):
            if game.is_over:
                break
            seat = game.turn
            decision = await cpus[seat].decide(state)
            try:
                if decision.startswith("play:"):
                    game.play(seat, decision[5:])
                elif decision == "resign":
                    game.offer_resignation(seat, 1)
                else:
                    answers: dict[str, Callable[[int], object]] = {
                        "double": game.double,
                        "roll": game.roll,
                        "beaver": game.beaver,
                        "take": game.take,
                        "pass": game.drop,
                        "accept": game.accept_resignation,
                        "reject": game.reject_resignation,
                    }
                    answers[decision](seat)
            except (GameError, IllegalPlayError, NotationError):
                refused += 1
                raise
        assert game.is_over, f"game {number} did not end"
        assert game.result is not None
        kinds[game.result.reason] = kinds.get(game.result.reason, 0) + 1
    elapsed = time.perf_counter() - started
    print(f"\n{2 * GAMES} engine games at the fast level in {elapsed:.1f} s, endings {kinds}, {refused} refused")
    assert refused == 0


@pytest.mark.parametrize("opening, expected", [((3, 1), "use_opening"), ((2, 1), "roll")])
async def test_the_computer_chooses_between_the_opening_dice_and_a_fresh_throw(opening, expected):
    """Hoyle's opening choice: the computer plays the opening dice when their best
    play is worth more than an average throw (3-1 makes the 5-point: the best
    opening there is), and throws again when it is worth less (2-1 is among the
    weakest openings)."""
    from engine import GameSettings, Match, ScriptedDice

    match = Match(GameSettings.hoyle(), dice=ScriptedDice(list(opening)))
    game = match.new_game()
    game.opening_roll()
    assert game.opening_offer is not None and game.turn == 0
    cpu = ComputerPlayer(NO_SERVICE, 10, Level.EXPERT, analyst=Analyst(rng=random.Random(1)))
    decision = await cpu.decide(_view(match, (10, 11)))
    assert decision == expected
    if decision == "use_opening":
        game.use_opening(0)
        assert game.dice is not None and (game.dice.high, game.dice.low) == opening
