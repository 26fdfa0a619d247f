"""``/bglearn met``'s numbers (bot/core/met.py): take points at ten scores against
gnubg-nn's match equity table, its entries copied here by hand."""

from __future__ import annotations

import pytest

pytest.importorskip("gnubg_nn")

from bot.ai.met import MET_NAME, ScoreValues, mwc  # noqa: E402
from bot.core.met import ScoreError, match_equity, parse_score, take_point  # noqa: E402
from engine import Game, GameSettings  # noqa: E402

# gnubg_nn.equities.value(a, b): the a-away side's equity (2 × match winning chance − 1)
# against b-away, as gnubg-nn's default table (Snowie's) prints it.
E = {
    (7, 6): -0.116, (7, 5): -0.242, (5, 7): 0.242,
    (5, 2): -0.470, (5, 1): -0.686, (3, 3): 0.0,
    (3, 4): 0.144, (1, 5): 0.686,
    (2, 1): -0.370,
    (4, 1): -0.638,
    (2, 3): 0.188, (2, 2): 0.0,
    (4, 2): -0.328,
    (5, 4): -0.146, (5, 3): -0.290, (3, 5): 0.290,
    (3, 2): -0.188, (3, 1): -0.496, (1, 3): 0.496,
    (6, 3): -0.414, (6, 2): -0.582, (4, 4): 0.0,
}  # fmt: skip


def chance(a: int, b: int) -> float:
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    return (1.0 + E[(a, b)]) / 2.0


def by_hand(taker: int, doubler: int, cube: int) -> float:
    """Risk over risk + gain: (pass − lose) / (win − lose) after the cube goes to 2 × cube."""
    passed, lost, won = (
        chance(taker, doubler - cube),
        chance(taker, doubler - 2 * cube),
        chance(taker - 2 * cube, doubler),
    )
    return (passed - lost) / (won - lost)


CASES = [
    # (length, score, cube, taker's side, taker away, doubler away)
    (7, (0, 0), 1, 0, 7, 7),
    (7, (2, 4), 1, 0, 5, 3),
    (7, (2, 4), 1, 1, 3, 5),
    (7, (5, 5), 1, 0, 2, 2),
    (7, (3, 5), 1, 0, 4, 2),
    (7, (5, 3), 1, 0, 2, 4),
    (7, (3, 3), 2, 1, 4, 4),
    (5, (0, 0), 1, 1, 5, 5),
    (5, (2, 2), 1, 0, 3, 3),
    (9, (3, 5), 1, 0, 6, 4),
]


@pytest.mark.parametrize(("length", "score", "cube", "side", "taker", "doubler"), CASES)
def test_take_points_at_ten_scores(
    length: int, score: tuple[int, int], cube: int, side: int, taker: int, doubler: int
) -> None:
    equity = match_equity(length, score, cube)
    assert equity.sides[side].away == taker and equity.sides[1 - side].away == doubler
    assert equity.sides[side].take_point == pytest.approx(by_hand(taker, doubler, cube), abs=1e-5)
    assert equity.table_name == MET_NAME == "Snowie"


def test_known_figures() -> None:
    # 2-away/2-away: the taker needs the chance of winning the Crawford game at 1-away/2-away's other side.
    assert take_point(2, 2, 1) == pytest.approx(0.315, abs=1e-5)
    assert mwc(1, 2) == pytest.approx(0.685, abs=1e-5) and mwc(0, 3) == 1.0 and mwc(3, 0) == 0.0
    assert take_point(7, 7, 1) == pytest.approx(0.2603, abs=1e-4)  # about money's 25% plus a little


def test_crawford_and_gammon_values() -> None:
    crawford = match_equity(7, (6, 3))
    assert crawford.crawford and all(s.take_point is None for s in crawford.sides)
    assert crawford.sides[0].gammon_value == pytest.approx(0.0)  # a single game wins the match
    post = match_equity(7, (6, 3), post_crawford=True)
    assert post.post_crawford and post.sides[0].take_point is not None and post.sides[1].take_point is None
    money_like = ScoreValues.at(25, 25)
    assert 0.4 < money_like.gammon_values[0] < 0.7


def test_the_grid_marks_the_score() -> None:
    equity = match_equity(11, (1, 8))
    first, second = equity.origin
    size = len(equity.grid)
    assert size == 7 and first <= 10 < first + size and second <= 3 < second + size
    assert equity.grid[10 - first][3 - second] == pytest.approx(mwc(10, 3))


def test_bad_input_is_refused_in_words() -> None:
    for call in (
        lambda: match_equity(0, (0, 0)),
        lambda: match_equity(7, (7, 0)),
        lambda: match_equity(7, (0, 0), 3),
        lambda: parse_score("two-four"),
    ):
        with pytest.raises(ScoreError):
            call()
    assert parse_score(" 2-4 ") == (2, 4)


def test_for_a_game() -> None:
    from bot.core.met import for_game

    game = Game(GameSettings(match_length=5), score=(1, 3))
    equity = for_game(game)
    assert (equity.sides[0].away, equity.sides[1].away) == (4, 2)
    with pytest.raises(ScoreError):
        for_game(Game(GameSettings()))


def test_after_the_crawford_game_the_table_s_post_crawford_row() -> None:
    # Snowie's post-Crawford row: 2-away against 1-away is 48.5% (the free drop), 3-away 31.5%.
    assert mwc(2, 1, post_crawford=True) == pytest.approx(0.485)
    assert mwc(1, 3, post_crawford=True) == pytest.approx(1 - 0.315)
    assert mwc(2, 1) == pytest.approx(0.315, abs=1e-5)  # before it: the Crawford game's entry
    # In the Crawford game a single win by the 3-away trailer leads to 2-away, post-Crawford.
    trailer = ScoreValues.at(3, 1)
    assert trailer.win[0] == pytest.approx(0.485) and trailer.win[1] == pytest.approx(0.5)  # a gammon: DMP
    post = match_equity(7, (6, 4), post_crawford=True)  # 3-away trailer doubles, the leader takes or not
    assert post.sides[0].take_point == pytest.approx((0.515 - 0.5) / (1.0 - 0.5))  # pass, lose at DMP, win
