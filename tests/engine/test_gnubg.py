"""GNU Backgammon (the real ``gnubg``) as an independent oracle.

Random matches (Crawford, doubles, resignations, Hoyle's rubber) and money
sessions (Jacoby, beavers, set-up games, several games with a running score)
are played with our engine and exported as ``.mat``; one ``gnubg`` process
imports them all, and every record, every game's result and the Position
and Match ID after every record must be what our engine says. The legal
plays met on the way are written by GNU Backgammon as we write them and read
by each of us as the other means them. Known, documented differences are
normalised in ``gnubg_oracle.py`` (its docstring lists them).

``make test`` installs Debian's ``gnubg`` where it can (scripts/ensure_gnubg.sh);
without it these tests skip, unless ``BG_REQUIRE_GNUBG=1``. By default 20
matches and 20 sessions are checked; ``BG_GNUBG_SAMPLES=200`` checks 200 of
each (about half a minute).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from engine import Game, GameSettings, Match, Position, WinKind
from engine.gnubgid import MatchState, encode_match_id
from tests.engine.gnubg_oracle import (
    NotationCase,
    Sample,
    compare_notation,
    compare_sample,
    find_gnubg,
    notation_cases,
    random_match,
    random_session,
    run_gnubg,
    session_stats,
    write_samples,
)

PROGRAM = find_gnubg()
if PROGRAM is None:
    REASON = (
        "GNU Backgammon (gnubg) is not installed: `make test` installs Debian's gnubg package "
        "where apt-get can, or set GNUBG=/path/to/gnubg"
    )
    if os.environ.get("BG_REQUIRE_GNUBG") == "1":
        pytest.fail(f"BG_REQUIRE_GNUBG=1 but {REASON}", pytrace=False)
    pytest.skip(REASON, allow_module_level=True)

SAMPLES = int(os.environ.get("BG_GNUBG_SAMPLES", "20"))
"""How many random matches, and how many money sessions, to check."""


# -- games made by hand, for what the issue named -------------------------------------


def issue_reproducer() -> Sample:
    """Issue 25: a double and a drop after a row with only a left column."""
    match = Match(GameSettings(match_length=5))
    game = match.new_game()
    game.opening_roll((6, 2))
    game.play(0, "13/7 13/11")
    game.roll(1, (6, 4))
    game.play(1, "24/18* 13/9")
    game.roll(0, (6, 5))
    game.play(0, "bar/20 13/7*")
    game.double(1)
    game.drop(0)
    return Sample("reproducer", match.games, 5, match.settings)


CLOSED = Position.from_counts({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {25: 1, 13: 14})


def closed_out_session() -> Sample:
    """A closed-out player doubles before rolling, then dances (closed_out = roll)."""
    rules = GameSettings(jacoby=True, beavers=True)
    state = MatchState(jacoby=True)
    game = Game.from_gnubg_id(f"{CLOSED.position_id()}:{encode_match_id(state)}", rules)
    game.roll(0, (2, 1))
    game.play(0, "10/8 10/9")
    game.double(1)
    game.take(0)
    game.roll(1, (6, 6))  # dances
    game.roll(0, (5, 4))
    game.play(0, "10/5 5/1")
    game.roll(1, (3, 3))  # dances again
    game.offer_resignation(1, 2)  # a gammon, with the cube turned: 4 points
    game.accept_resignation(0)
    jacoby = Game(rules, score=(0, 4))
    jacoby.opening_roll((3, 1))
    jacoby.play(0, "8/5 6/5")
    jacoby.offer_resignation(1, 2)  # under Jacoby, centred cube: single
    jacoby.accept_resignation(0)
    return Sample("closed", [game, jacoby], 0, rules)


def set_up_session() -> Sample:
    """The issue's set-up position: "65: 5/0 4/0" must not replay from the start."""
    game = Game.from_gnubg_id("6RoAALYtAAAAAA")
    game.roll(0, (6, 5))
    game.play(0, "5/off 4/off")
    while not game.is_over:
        game.roll(game.turn, (2, 1))
        game.play(game.turn, game.legal_plays()[0])
    return Sample("setup", [game], 0, game.settings)


def hoyle_rubber() -> Sample:
    match = Match(GameSettings.hoyle())
    game = match.new_game()
    game.opening_roll((6, 1))
    game.use_opening(0)
    game.play(0, "13/7 8/7")
    game.roll(1, (4, 2))
    game.play(1, "8/4 6/4")
    game.offer_resignation(0, 1)
    game.accept_resignation(1)
    game = match.new_game()  # the winner of the hit throws first
    game.roll(1, (5, 5))
    game.play(1, "13/3(2)")
    game.offer_resignation(0, 2)
    game.accept_resignation(1)
    return Sample("hoyle", match.games, 2, match.settings)


def beaver_and_resign_session() -> Sample:
    """A beaver the doubler resigns on at once, a resignation after the
    winner's dice, one right after the opening: then another game, read intact."""
    rules = GameSettings(beavers=True)
    first = Game(rules)
    first.opening_roll((3, 1))
    first.play(0, "8/5 6/5")
    first.double(1)
    first.beaver(0)
    first.offer_resignation(1, 1)
    first.accept_resignation(0)
    second = Game(rules, score=(4, 0))
    second.opening_roll((3, 1))
    second.play(0, "8/5 6/5")
    second.roll(1, (6, 4))
    second.offer_resignation(0, 2)
    second.accept_resignation(1)
    third = Game(rules, score=(4, 2))
    third.opening_roll((2, 5))
    third.offer_resignation(0, 1)
    third.accept_resignation(1)
    fourth = Game(rules, score=(4, 3))
    fourth.opening_roll((6, 5))
    fourth.play(0, "24/13")
    fourth.double(1)
    fourth.drop(0)
    return Sample("beaver", [first, second, third, fourth], 0, rules)


HAND_MADE = (issue_reproducer, closed_out_session, set_up_session, hoyle_rubber, beaver_and_resign_session)


@dataclass
class Reading:
    samples: list[Sample]
    answers: list[dict]
    notation: list[NotationCase]
    notation_answers: list[dict]

    def differences(self, names: tuple[str, ...]) -> list[str]:
        found: list[str] = []
        for sample, answer in zip(self.samples, self.answers):
            if sample.name.startswith(names):
                found += compare_sample(sample, answer)
        return found

    def answer(self, name: str) -> dict:
        return next(a for s, a in zip(self.samples, self.answers) if s.name == name)


@pytest.fixture(scope="module")
def reading(tmp_path_factory: pytest.TempPathFactory) -> Reading:
    """Everything in one GNU Backgammon process: its start-up is paid once."""
    samples = [make() for make in HAND_MADE]
    samples += [random_match(seed) for seed in range(SAMPLES)]
    samples += [random_session(10_000 + seed) for seed in range(SAMPLES)]
    cases = notation_cases(samples, every=10 if SAMPLES <= 20 else 25)
    folder = tmp_path_factory.mktemp("gnubg")
    job = {"matches": write_samples(samples, folder), "notation": [case.job() for case in cases]}
    assert PROGRAM is not None
    answer = run_gnubg(PROGRAM, job, folder)
    return Reading(samples, answer["matches"], cases, answer["notation"])


def test_random_matches_read_back_exactly(reading: Reading) -> None:
    differences = reading.differences(("match",))
    assert not differences, f"{len(differences)} differences:\n" + "\n".join(differences[:10])


def test_money_sessions_read_back_exactly(reading: Reading) -> None:
    differences = reading.differences(("session",))
    assert not differences, f"{len(differences)} differences:\n" + "\n".join(differences[:10])


def test_the_issues_cases_read_back_exactly(reading: Reading) -> None:
    differences = reading.differences(("reproducer", "closed", "setup", "hoyle", "beaver"))
    assert not differences, "\n".join(differences)
    # Not "double, drop, double, resign" as it once read.
    records = reading.answer("reproducer")["games"][0]["records"]
    assert [r["action"] for r in records] == ["move", "move", "move", "double", "drop"]
    # The closed-out player's roll is there, danced, after a double and a take.
    closed = reading.answer("closed")["games"][0]["records"]
    dances = [r for r in closed if r["action"] == "move" and not r["move"]]
    assert [tuple(r["dice"]) for r in dances] == [(6, 6), (3, 3)]
    assert reading.answer("closed")["games"][1]["info"]["points-won"] == 1  # Jacoby
    # After a beaver the doubler resigned on, the next game is read whole.
    beaver = reading.answer("beaver")["games"]
    assert [g["info"]["points-won"] for g in beaver] == [4, 2, 1, 1]
    assert [r["action"] for r in beaver[3]["records"]] == ["move", "double", "drop"]
    # The set-up game starts from its position, not from the standard start.
    setup = reading.answer("setup")["games"][0]
    assert setup["states"][3][0] == "6RoAALYtAAAAAA"


def test_the_sample_has_what_the_oracle_must_see(reading: Reading) -> None:
    stats = session_stats(reading.samples)
    print(f"\ngnubg oracle: {SAMPLES} matches + {SAMPLES} sessions + {len(HAND_MADE)} by hand: {stats}")
    for name in (
        "closed_out_rolls",
        "dances",
        "doubles",
        "beavers",
        "drops",
        "resignations",
        "rejected",
        "setups",
        "hits_first",
        "opening_choices",
    ):
        assert getattr(stats, name) > 0, name
    settings = [sample.settings for sample in reading.samples]
    assert any(s.jacoby for s in settings) and any(s.beavers for s in settings)
    assert any(s.match_length == 0 and len(sample.games) > 1 for s, sample in zip(settings, reading.samples))
    assert stats.kinds.keys() >= {"bearoff", "pass", "resign"}


def test_notation_both_ways(reading: Reading) -> None:
    differences = [
        d for case, seen in zip(reading.notation, reading.notation_answers) for d in compare_notation(case, seen)
    ]
    plays = sum(len(case.plays) for case in reading.notation)
    assert plays > 500
    assert not differences, f"{len(differences)} of {plays} plays differ:\n" + "\n".join(differences[:10])


def test_the_win_kinds_gnubg_scores(reading: Reading) -> None:
    """A Hoyle rubber's backgammon worth 3 and a match's gammons score the same in both."""
    for sample, answer in zip(reading.samples, reading.answers):
        if sample.name == "hoyle":
            assert [g["info"]["points-won"] for g in answer["games"]] == [1, 2]
            assert sample.games[1].result is not None
            assert sample.games[1].result.kind is WinKind.GAMMON
