"""PR on XG's scale (bot/ai/pr.py, docs/analysis.md): the formula, the words,
which cube decisions count, and agreement with GNU Backgammon's own analysis."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ai.pr import PR_BANDS, format_pr, is_close_cube, pr_label, pr_of
from bot.ai.values import PlayerAnalysis
from bot.core.progress import ErrorPoint, error_points, recent_pr, timeline


def test_pr_is_500_times_the_equity_lost_per_decision() -> None:
    assert pr_of(0.25, 50) == pytest.approx(2.5)
    assert pr_of(1.0, 0) is None
    player = PlayerAnalysis(0, checker_decisions=40, cube_decisions=2, close_no_doubles=8, equity_lost=0.5)
    assert player.pr_decisions == 50
    assert player.pr == pytest.approx(5.0)
    assert player.error_rate == pytest.approx(1000 * 0.5 / 42)  # GNU Backgammon's rate keeps its own count


@pytest.mark.parametrize(
    ("pr", "words"),
    [
        (0.0, "world class+"),
        (2.49, "world class+"),
        (2.5, "world class"),
        (4.9, "world class"),
        (6.0, "expert"),
        (10.0, "advanced"),
        (15.0, "intermediate"),
        (20.0, "casual player"),
        (25.0, "beginner"),
        (30.0, "awful"),
        (None, "no decisions"),
    ],
)
def test_xg_words(pr: float | None, words: str) -> None:
    assert pr_label(pr) == words


@given(st.floats(0, 200), st.floats(0, 200))
def test_words_never_improve_as_pr_grows(a: float, b: float) -> None:
    order = [w for _, w in PR_BANDS] + ["awful"]
    low, high = sorted((a, b))
    assert order.index(pr_label(low)) <= order.index(pr_label(high))


def test_format() -> None:
    assert format_pr(6.04) == "PR 6.0 (expert)"
    assert format_pr(None) == "PR –"


@pytest.mark.parametrize(
    ("no_double", "double_take", "double_pass", "close"),
    [
        (0.30, 0.45, 1.0, True),  # a double: the actual best
        (0.10, -0.05, 1.0, True),  # no double by 0.15: close
        (0.10, -0.10, 1.0, False),  # no double by 0.20: not close
        (1.10, 1.40, 1.0, True),  # too good by 0.10: close
        (1.30, 1.40, 1.0, False),  # too good by 0.30: not close
        (-0.29, -0.29, 1.0, False),  # a dead cube: doubling changes nothing
        (0.20, 0.02, 2.0, True),  # normalised by double/pass: 0.09 of it
    ],
)
def test_which_no_doubles_count(no_double: float, double_take: float, double_pass: float, close: bool) -> None:
    assert is_close_cube(no_double, double_take, double_pass) is close


def test_stored_analyses_give_the_pr_trend() -> None:
    import json

    def row(game_id: int, lost: float, decisions: int, counted: int | None) -> dict:
        player = {"decisions": decisions, "lost": lost, "rate": 0, "luck": 0, "blunders": 0}
        if counted is not None:
            player["pr_decisions"] = counted
        other = {"decisions": 1, "lost": 9.0, "rate": 0, "luck": 0, "blunders": 0}
        return {
            "game_id": game_id,
            "players": [7, 8],
            "finished_at": float(game_id),
            "detail": json.dumps({"players": [player, other]}),
        }

    # An analysis stored before PR existed counts its graded decisions.
    points = error_points([row(1, 0.2, 40, 50), row(2, 0.3, 30, None)], 7)
    assert [p.pr for p in points] == [pytest.approx(2.0), pytest.approx(5.0)]
    assert recent_pr(points) == pytest.approx(500 * 0.5 / 80)  # pooled, not an average of PRs
    assert recent_pr(()) is None
    line = timeline(1, {"players": [json.loads(row(1, 0.2, 40, 50)["detail"])["players"][0]] * 2})
    assert line.players[0].pr == pytest.approx(2.0)
    assert ErrorPoint(1, 0.0, 1.0, 1).pr is None


# -- against GNU Backgammon -----------------------------------------------------------------


def test_pr_agrees_with_gnubg_on_a_computer_match(tmp_path) -> None:
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bench import pr_vs_gnubg as bench

    NAMES, bot_pr, computer_match, find_gnubg, gnubg_prs = (  # noqa: N806
        bench.NAMES,
        bench.bot_pr,
        bench.computer_match,
        bench.find_gnubg,
        bench.gnubg_prs,
    )

    program = find_gnubg()
    if program is None:
        pytest.skip("GNU Backgammon (gnubg) is not installed")
    from bot.ai.analyst import Analyst
    from engine.mat import export_games

    # A 3-point match of one game, doubled and taken twice: plays graded cubeful, and the cube
    # (the bot graded with bgsage's net and gnubg with Snowie's table, they were 2.7 PR apart)
    analyst = Analyst(rng=random.Random(8))
    match = computer_match(8, analyst, 3)
    assert [a.kind for g in match.games for a in g.log].count("take") == 2
    ours = bot_pr(match, analyst)
    (theirs,) = gnubg_prs(program, [export_games(match.games, NAMES, match_length=3)], tmp_path)
    for seat, name in enumerate(NAMES):
        gnubg_pr, gnubg_decisions = theirs[name]
        assert ours[seat][1] == gnubg_decisions, name
        assert pr_of(*ours[seat]) == pytest.approx(gnubg_pr, abs=0.5), name


def test_the_summary_shown_by_analysis_and_game_over_gives_pr_first() -> None:
    from bot.ai.values import GameAnalysis

    players = (
        PlayerAnalysis(0, checker_decisions=30, cube_decisions=2, close_no_doubles=8, equity_lost=0.4),
        PlayerAnalysis(1),
    )
    text = GameAnalysis(players, 0).summary(("alice", "bob"))
    assert "alice: 32 decisions, PR 5.0 (expert), error rate 12.5 (intermediate)" in text
    assert "bob: 0 decisions, PR –, error rate 0.0" in text
    detail = GameAnalysis(players, 0).detail()
    assert detail["players"][0]["pr_decisions"] == 40


def test_a_dead_cube_is_no_decision(monkeypatch) -> None:
    """A match cube that already wins the player to roll the match (GNU Backgammon's
    ``GetDPEq``): no cube decision for PR, however close the net calls it."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.ai import analyst as module
    from engine import Game, GameSettings, ScriptedDice

    asked: list[object] = []

    def close_call(state, level):
        asked.append(state)
        probs = (0.6, 0.1, 0.0, 0.1, 0.0)
        return {
            "nd": 0.5,
            "dt": 0.45,
            "dp": 1.0,
            "double": False,
            "take": True,
            "beaver": False,
            "action": "no double, take",
            "probs": probs,
            "level": level,
        }

    monkeypatch.setattr(module, "_cube", close_call)
    # 3-point match, 2-0 after the Crawford game: the leader's cube is dead, the trailer's is not
    game = Game(
        GameSettings(match_length=3), score=(2, 0), crawford=False, dice=ScriptedDice([3, 1] + [6, 5, 4, 2] * 3)
    )
    game.opening_roll()
    for _ in range(6):
        game.play(game.turn, game.legal_play_texts()[0])
        game.roll(game.turn)
    analysis = module.Analyst().analyse_game(game, ply=0, cube_level="0ply")
    leader, trailer = analysis.players
    assert leader.close_no_doubles == 0 and leader.cube_decisions == 0
    assert trailer.close_no_doubles > 0  # the trailer's cube is alive: its close no-doubles count


# -- GNU Backgammon's own figures, written by hand ----------------------------------------
# From the Debian gnubg 1.07 (`analyse match` at 0-ply, checker plays cubeless, its default
# Kazaross-XG2 table), converted from its match winning chances to EMG (double/pass = +1).
# The nets differ a little (gnubg-nn against gnubg 1.07's weights): a few thousandths.


@pytest.mark.parametrize(
    ("position_id", "away", "no_double", "double_take"),
    [
        ("mDP4AlBs1sEBCQ", 5, 0.991, 1.494),  # gammonish: MWC 0.57660 and 0.61554 at 5-away all
        ("1rYWAAzYth0AUA", 3, 0.931, 1.321),  # MWC 0.59258 and 0.63138 at 3-away all
    ],
)
def test_a_match_cube_at_0ply_is_gnubgs(position_id: str, away: int, no_double: float, double_take: float) -> None:
    """At 0-ply a match cube comes from gnubg-nn's chances, the net the plays are graded with,
    through GNU Backgammon's 0-ply method (bgsage's own net said 0.978 and 1.451 for the first)."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.ai.analyst import Analyst
    from bot.ai.values import CubeState
    from engine import Position

    state = CubeState(Position.from_position_id(position_id), away=(away, away))
    advice = Analyst().cube_action(state, level=0)
    assert advice.no_double == pytest.approx(no_double, abs=0.01)
    assert advice.double_take == pytest.approx(double_take, abs=0.01)
    assert advice.double_pass == pytest.approx(1.0, abs=1e-5)
    assert advice.double and not advice.take


def test_the_analysis_grades_a_match_take_as_gnubg_does() -> None:
    """A take of a pass at 5-away all: GNU Backgammon's wrong take costs 1.494 - 1 (EMG).
    The analysis's cube is the 0-ply one by default (bgsage's 1-ply net said 0.451)."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.ai.analyst import Analyst
    from engine import Game, Phase

    game = Game.from_gnubg_id("mDP4AlBs1sEBCQ:MBmgAAAAAAAE")  # 5-point match, 0-0, doubled to 2
    assert game.phase is Phase.DOUBLED
    analyst = Analyst()
    mistake = analyst.decision_loss(game, "take")
    assert mistake is not None and mistake.equity_lost == pytest.approx(0.494, abs=0.01)
    assert analyst.decision_loss(game, "pass") is None


@pytest.mark.parametrize(("play", "lost"), [("8/6 8/5", 0.114), ("24/22 4/1*", 0.039)])
def test_a_play_at_a_match_score_is_graded_cubeful_in_the_cubes_table(play: str, lost: float) -> None:
    """3-away against 5-away, a blitz: gnubg's cubeful 0-ply loss, in the cube's table
    (cubeless it says 0.110 and 0.043; cubeless with Snowie's table 0.118 and 0.047)."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.ai.analyst import Analyst
    from engine import Game

    game = Game.from_gnubg_id("mDP4AGjsNoMBIQ:cImpAAAAEAAE")  # 32 to play, 5-point match, 0-2
    mistake = Analyst().decision_loss(game, "play", play)
    assert mistake is not None and mistake.equity_lost == pytest.approx(lost, abs=0.003)


def test_a_play_that_hands_the_opponent_a_redouble_costs_what_gnubg_says() -> None:
    """3-point match, 0-0, the opponent owns the cube at 2: 7/3*(2) 6/2(2) leaves them a
    strong redouble. gnubg's cubeful 0-ply loss is 0.198 against 9/1 7/3*(2); cubeless
    (the opponent's cube ignored) it is 0.070 against 9/5 7/3*(3)."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    from bot.ai.analyst import Analyst
    from engine import Game

    game = Game.from_gnubg_id("1m0LBAiy2xkAMA:EQFyAAAAAAAE")  # 44 to play
    mistake = Analyst().decision_loss(game, "play", "7/3*(2) 6/2(2)")
    assert mistake is not None and mistake.equity_lost == pytest.approx(0.198, abs=0.01)
    assert "9/1" in mistake.best


def test_the_analysis_table_is_kazaross_xg2() -> None:
    pytest.importorskip("bgsage")
    from bot.ai.engines import sage_mwc
    from bot.ai.met import ScoreValues

    # Entries of GNU Backgammon's met/Kazaross-XG2.xml, by hand.
    assert sage_mwc(1, 2) == pytest.approx(0.67736, abs=1e-5)  # the Crawford game
    assert sage_mwc(2, 1, post_crawford=True) == pytest.approx(0.48803, abs=1e-5)
    assert sage_mwc(3, 1, post_crawford=True) == pytest.approx(0.32264, abs=1e-5)
    assert sage_mwc(0, 3) == 1.0 and sage_mwc(3, 0) == 0.0
    values = ScoreValues.at(3, 1, table=sage_mwc)  # post-Crawford, the trailer to play
    assert values.win[0] == pytest.approx(0.48803, abs=1e-5) and values.lose[0] == 0.0
    assert values.win[1] == 0.5  # a gammon: 1-away all


@st.composite
def _chances(draw: st.DrawFn) -> tuple[float, ...]:
    unit = st.floats(0, 1)
    win = draw(unit)
    win_gammon = win * draw(unit) * 0.6
    lose_gammon = (1 - win) * draw(unit) * 0.6
    return (win, win_gammon, win_gammon * draw(unit) * 0.3, lose_gammon, lose_gammon * draw(unit) * 0.3)


@given(
    _chances(),
    st.integers(2, 15),
    st.booleans(),
    st.sampled_from(["crawford", "dead"]),
)
def test_a_cube_nobody_can_turn_is_worth_the_plays_equity_at_the_score(
    chances: tuple[float, ...], away: int, leader_on_roll: bool, why: str
) -> None:
    """In the Crawford game, or with a cube that already decides the match for both, the
    cube's equity is the cubeless one in the table the plays are graded with: one table
    for both halves of a PR (Snowie's table would be up to 0.04 off)."""
    pytest.importorskip("bgsage")
    from bot.ai.engines import _cubeful_equity, sage_mwc
    from bot.ai.met import ScoreValues
    from bot.ai.values import CubeState
    from engine import Position

    if why == "crawford":
        aways, cube = ((1, away) if leader_on_roll else (away, 1)), 1
    else:
        aways, cube = (away, max(2, away - 1)), 1 << (away - 1).bit_length()
    state = CubeState(Position.start(), cube_value=cube, away=aways, crawford=why == "crawford")
    cubeless = ScoreValues.at(*aways, cube, table=sage_mwc).emg(chances)
    assert _cubeful_equity(state, chances) == pytest.approx(cubeless, abs=1e-4)
