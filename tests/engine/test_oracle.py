"""Cross-check the rules engine against GNU Backgammon's move generator (gnubg_nn).

A fixed, seeded sample of positions is reached by self-play with our own
engine. For every (position, roll) in it, the *set* of positions our
``legal_plays`` can reach must equal the set gnubg_nn's ``moves`` reaches, and
our Position IDs must equal gnubg_nn's for the same boards.

One game in five is played by uniformly random players; the others by
"blitzers" that hit and make home-board points, so that the sample is rich in
checkers on the bar, closed boards and dances, not only in races.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import pytest

g = pytest.importorskip("gnubg_nn")

from engine.dice import Roll  # noqa: E402
from engine.moves import legal_plays  # noqa: E402
from engine.play import Play  # noqa: E402
from engine.position import Position  # noqa: E402

SAMPLE_SIZE = 20_500
SEED = 20240611
MIN_PER_CATEGORY = 200
MIN_CLOSED_BOARDS = 100  # closeouts are rare even between blitzers; dances are not

Board = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Case:
    position: Position
    roll: Roll
    plays: tuple[Play, ...]


def gnubg_board(position: Position) -> list[list[int]]:
    """``[side not on roll, side on roll]``, 25 counts each in its own numbering."""
    return [position.side_counts(on_roll=False), position.side_counts(on_roll=True)]


def as_key(board: list[list[int]]) -> Board:
    return tuple(board[0]), tuple(board[1])


def our_results(plays) -> set[Board]:
    return {as_key(gnubg_board(play.position)) for play in plays}


def gnubg_results(position: Position, roll: Roll) -> set[Board]:
    board = gnubg_board(position)
    keys = g.moves(board, roll.die1, roll.die2)
    results: set[Board] = {(tuple(a), tuple(b)) for a, b in (g.board_from_position_key(key) for key in keys)}
    return results or {as_key(board)}


def _blitz_score(position: Position) -> int:
    """Greedy taste for hitting and making home points (and coming home)."""
    b = position.board
    return (
        3 * position.bar[1]
        + 10 * sum(1 for n in b[:6] if n >= 2)
        + 2 * sum(1 for n in b[6:12] if n >= 2)
        - sum(n for n in b[12:] if n > 0)
    )


def _canonical(plays) -> list[Play]:
    # Choose from a canonically ordered list, so the sample depends only on the
    # *set* of legal plays, not on the order the engine happens to list them.
    return sorted(plays, key=lambda p: (p.position.board, p.position.bar, p.position.off))


def self_play_sample(size: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    game = 0
    while len(cases) < size:
        game += 1
        blitz = game % 5 != 0
        position = Position.start()
        for _ply in range(1000):
            roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
            plays = _canonical(legal_plays(position, roll))
            cases.append(Case(position, roll, tuple(plays)))
            if blitz and rng.random() < 0.95:
                best = max(_blitz_score(p.position) for p in plays)
                choice = rng.choice([p for p in plays if _blitz_score(p.position) == best])
            else:
                choice = rng.choice(plays)
            if choice.position.off[0] == 15 or len(cases) >= size:
                break
            position = choice.position.swap()
        else:  # pragma: no cover - a game cannot last 1000 plies
            raise AssertionError("a self-play game did not finish")
    return cases


def categories(case: Case) -> set[str]:
    pos, roll, plays = case.position, case.roll, case.plays
    found = set()
    if pos.bar[0]:
        found.add("bar entry")
    if pos.is_closed_out():
        found.add("closed board")
    if pos.bar[0] and plays[0].dice_used == 0:
        found.add("dance")
    if plays[0].dice_used == 0:
        found.add("no play")
    if any(move.destination == 0 for play in plays for move in play.moves):
        found.add("bear-off")
    if pos.all_home() and any(move.destination != 0 for play in plays for move in play.moves):
        found.add("move inside home while bearing off")
    if roll.is_double:
        found.add("doubles")
    if 0 < plays[0].dice_used < len(roll.moves()):
        found.add("partial roll")
    if not roll.is_double and plays[0].dice_used == 1:
        found.add("one die of two")
    if any(play.hits for play in plays):
        found.add("hit available")
    return found


@pytest.fixture(scope="module")
def sample() -> list[Case]:
    return self_play_sample(SAMPLE_SIZE, SEED)


def test_sample_covers_every_category(sample):
    counts = Counter(c for case in sample for c in categories(case))
    assert len(sample) >= 20_000
    expected = {
        "bar entry",
        "closed board",
        "dance",
        "no play",
        "bear-off",
        "move inside home while bearing off",
        "doubles",
        "partial roll",
        "one die of two",
        "hit available",
    }
    minimum = {name: MIN_PER_CATEGORY for name in expected} | {"closed board": MIN_CLOSED_BOARDS}
    missing = {name: counts[name] for name in expected if counts[name] < minimum[name]}
    assert not missing, f"too few cases: {missing} (all counts: {dict(counts)})"


def test_legal_plays_match_gnubg(sample):
    disagreements = []
    for case in sample:
        ours = our_results(case.plays)
        assert len(ours) == len(case.plays), "two plays lead to the same position"
        theirs = gnubg_results(case.position, case.roll)
        if ours != theirs:
            disagreements.append(
                f"{case.position.position_id()} roll {case.roll.die1}-{case.roll.die2}: "
                f"{len(ours)} ours vs {len(theirs)} gnubg; only ours "
                f"{sorted(ours - theirs)[:2]}, only gnubg {sorted(theirs - ours)[:2]}"
            )
    assert not disagreements, f"{len(disagreements)} disagreements, e.g.\n" + "\n".join(disagreements[:5])


def test_position_ids_match_gnubg(sample):
    mismatches = []
    seen: set[Position] = set()
    for case in sample:
        for position in (case.position, case.plays[-1].position):
            if position in seen:
                continue
            seen.add(position)
            board = gnubg_board(position)
            ours = position.position_id()
            if ours != g.position_id(board):
                mismatches.append((ours, g.position_id(board)))
            elif [list(side) for side in g.board_from_position_id(ours)] != board:
                mismatches.append((ours, "gnubg decodes it differently"))
            elif Position.from_position_id(ours) != position:
                mismatches.append((ours, "does not round-trip"))
    assert len(seen) > 20_000
    assert not mismatches, mismatches[:5]


def test_gnubg_vectors_decode_to_our_positions():
    """Our decoding of published IDs agrees with gnubg_nn's, side by side."""
    for pid in ("4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "4HPwAVDgc/ABUA", "6RoAALYtAAAAAA"):
        ours = gnubg_board(Position.from_position_id(pid))
        assert [list(side) for side in g.board_from_position_id(pid)] == ours, pid
