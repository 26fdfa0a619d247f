"""Provably fair dice: commitment, derivation, verification, uniformity; scripts/verify_dice.py."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine import Game, Match, Phase
from engine.fairdice import (
    FairDice,
    chi_square_survival,
    chi_square_uniform,
    commitment,
    dice_in_log,
    die_at,
    new_seed,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
SEED = bytes(range(32))
NONCE = "game-42"


def reference_die(seed: bytes, nonce: str, index: int) -> int:
    """The scheme as documented, written out independently."""
    attempt = 0
    while True:
        msg = f"{nonce}:{index}" if attempt == 0 else f"{nonce}:{index}:{attempt}"
        for byte in hmac.new(seed, msg.encode(), hashlib.sha256).digest():
            if byte < 252:
                return byte % 6 + 1
        attempt += 1


def played_game(seed: bytes = SEED, nonce: str = NONCE) -> Game:
    dice = FairDice(seed, nonce)
    game = Game(dice=dice)
    game.opening_roll()
    turns = 0
    while not game.is_over and turns < 30:
        if game.phase is Phase.ROLL:
            game.roll(game.turn)
            turns += 1
        elif game.phase is Phase.PLAY:
            game.play(game.turn, game.legal_plays()[0])
    if not game.is_over:
        game.forfeit(game.turn)
    return game


def test_die_at_follows_the_documented_scheme():
    for index in range(300):
        assert die_at(SEED, NONCE, index) == reference_die(SEED, NONCE, index)
    assert [die_at(SEED, "other", k) for k in range(40)] != [die_at(SEED, NONCE, k) for k in range(40)]


def test_commitment_is_sha256_and_binds_the_seed():
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert commitment(SEED) != commitment(SEED[:-1] + b"\x00")
    assert FairDice(SEED, NONCE).commitment == commitment(SEED)
    other = new_seed()
    assert len(other) == 32 and other != new_seed()
    assert commitment(other) != commitment(SEED)
    assert not verify(other.hex(), commitment(SEED), NONCE, []).ok


def test_fair_dice_counter_continues():
    dice = FairDice(SEED, NONCE)
    first = [dice.die() for _ in range(10)]
    assert first == [reference_die(SEED, NONCE, k) for k in range(10)]
    assert dice.counter == 10
    assert [FairDice(SEED, NONCE, counter=5).die() for _ in range(1)] == [first[5]]
    with pytest.raises(ValueError):
        FairDice(b"short", NONCE)


def test_dice_in_log_order_opening_then_rolls():
    game = played_game()
    log = [a.to_dict() for a in game.log]
    thrown = dice_in_log(log)
    expected: list[int] = []
    for action in game.log:
        if action.kind in ("opening", "roll"):
            assert action.dice is not None
            expected.extend(action.dice)
    assert thrown == expected
    assert log[0]["kind"] == "opening"
    assert thrown == [die_at(SEED, NONCE, k) for k in range(len(thrown))]
    # Each opening throw is (player 0's die, player 1's die), in the order drawn.
    assert tuple(thrown[:2]) == game.log[0].dice


def test_dice_in_log_of_a_match_skips_markers():
    match = Match(dice=FairDice(SEED, NONCE))
    game = match.new_game()
    game.opening_roll()
    game.forfeit(0)
    thrown = dice_in_log([a.to_dict() for a in match.log])
    assert thrown == [die_at(SEED, NONCE, k) for k in range(len(thrown))]
    assert dice_in_log(match.log) == thrown  # the engine's own entries read the same


def test_verify_accepts_the_true_dice_and_rejects_any_change():
    game = played_game()
    thrown = dice_in_log([a.to_dict() for a in game.log])
    assert len(thrown) > 20
    ok = verify(SEED.hex(), commitment(SEED), NONCE, thrown)
    assert ok.ok and ok.dice_checked == len(thrown) and ok.first_mismatch is None
    assert verify(SEED.hex().upper(), commitment(SEED).upper(), NONCE, thrown).ok
    for index in (0, 1, len(thrown) // 2, len(thrown) - 1):
        tampered = list(thrown)
        tampered[index] = tampered[index] % 6 + 1
        result = verify(SEED.hex(), commitment(SEED), NONCE, tampered)
        assert not result.ok and result.first_mismatch == index
        assert f"die {index + 1}" in result.reason
    # Another seed, even with its own matching commitment, does not give these dice.
    other = new_seed()
    assert not verify(other.hex(), commitment(other), NONCE, thrown).ok
    # The right seed against a wrong commitment, a wrong nonce, or junk.
    assert not verify(SEED.hex(), commitment(other), NONCE, thrown).ok
    assert not verify(SEED.hex(), commitment(SEED), "game-43", thrown).ok
    assert not verify("zz", commitment(SEED), NONCE, thrown).ok


def test_chi_square_survival_table_values():
    assert chi_square_survival(11.0705, 5) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_survival(15.0863, 5) == pytest.approx(0.01, abs=1e-5)
    assert chi_square_survival(3.8415, 1) == pytest.approx(0.05, abs=1e-5)
    assert chi_square_survival(20.5150, 5) == pytest.approx(0.001, abs=1e-6)
    assert chi_square_survival(2.0, 2) == pytest.approx(0.36787944, abs=1e-7)  # exp(-1)
    assert chi_square_survival(4.3515, 5) == pytest.approx(0.5, abs=1e-4)
    assert chi_square_survival(0.0, 5) == 1.0
    assert chi_square_survival(1000.0, 5) < 1e-100


def test_chi_square_uniform_statistic():
    assert chi_square_uniform([10] * 6) == (0.0, 1.0)
    stat, p = chi_square_uniform([20, 0, 10, 10, 10, 10])
    assert stat == pytest.approx(20.0)
    assert p == pytest.approx(chi_square_survival(20.0, 5))
    assert chi_square_uniform([]) == (0.0, 1.0)


N_DICE = 360_000


def _counts(seed: bytes) -> list[int]:
    dice = FairDice(seed, "chi-square")
    tally = Counter(dice.die() for _ in range(N_DICE))
    assert set(tally) == {1, 2, 3, 4, 5, 6}
    return [tally[face] for face in range(1, 7)]


def test_chi_square_with_a_fixed_seed():
    counts = _counts(SEED)
    stat, p = chi_square_uniform(counts)
    expected = N_DICE / 6
    assert stat == pytest.approx(sum((c - expected) ** 2 / expected for c in counts))
    # Pinned: the same seed always gives the same dice, hence the same statistic.
    assert counts == [59914, 60116, 59591, 59832, 60432, 60115]
    assert stat == pytest.approx(6.9367667, abs=1e-6)
    assert p == pytest.approx(0.2253857, abs=1e-6)


def test_chi_square_fresh_secure_seed_is_not_significant():
    # Random by design: the threshold makes a false alarm one run in ten thousand.
    stat, p = chi_square_uniform(_counts(new_seed()))
    assert p > 1e-4, (stat, p)


def _export(tmp_path: Path, actions: list[dict], seed: bytes = SEED) -> Path:
    path = tmp_path / "game.json"
    path.write_text(
        json.dumps(
            {
                "dice": {"commitment": commitment(seed), "nonce": NONCE, "seed": seed.hex()},
                "actions": actions,
            }
        )
    )
    return path


def _script(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-I", str(ROOT / "scripts" / "verify_dice.py"), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_verify_dice_script(tmp_path):
    game = played_game()
    actions = [a.to_dict() for a in game.log]
    result = _script(_export(tmp_path, actions))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK" in result.stdout
    # Tamper with one die of one roll.
    tampered = json.loads(json.dumps(actions))
    roll = next(a for a in tampered if a["kind"] == "roll")
    roll["dice"][1] = roll["dice"][1] % 6 + 1
    result = _script(_export(tmp_path, tampered))
    assert result.returncode == 1 and "FAIL" in result.stdout
    # Another seed, consistent with its own commitment, fails too.
    result = _script(_export(tmp_path, actions, seed=new_seed()))
    assert result.returncode == 1


def test_360000_rolls_from_the_production_source_look_fair():
    """360,000 rolls (two dice each) over the 36 ordered outcomes, from a fresh secure seed."""
    dice = FairDice(new_seed(), "rolls")
    tally = Counter((dice.die(), dice.die()) for _ in range(360_000))
    counts = [tally[(a, b)] for a in range(1, 7) for b in range(1, 7)]
    assert sum(counts) == 360_000 and min(counts) > 0
    stat, p = chi_square_uniform(counts)
    assert p > 1e-4, (stat, p)  # a false alarm once in ten thousand runs
    doubles = sum(tally[(d, d)] for d in range(1, 7)) / 360_000
    assert doubles == pytest.approx(1 / 6, abs=0.005)
