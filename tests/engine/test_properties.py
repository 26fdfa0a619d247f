"""Property tests (hypothesis) for positions, legal plays, IDs and notation.

Legal plays are checked against a deliberately naive reference generator
written here from docs/rules.md 3-6: every order of the dice, every checker, no
pruning, then the maximum-dice and larger-die rules applied to the lot.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.dice import Roll
from engine.gnubgid import MatchState, decode_match_id, encode_match_id
from engine.moves import legal_plays, pack_moves, play_of_moves, unpack_moves
from engine.notation import parse_play
from engine.play import format_play
from engine.position import Position

SETTINGS = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# -- strategies ----------------------------------------------------------------


@st.composite
def positions(draw) -> Position:
    """Any valid position: 15 checkers a side on points, bar or off, no shared point.

    The checkers of a side are drawn from all 26 places, from a few places
    only (stacks, primes, closed boards), or, for us, from the home board and
    off with perhaps a straggler (bear-offs), so the rarer rules get exercised.
    """

    def places(allowed: list[int], mode: str) -> list[int]:
        if mode == "few":
            allowed = draw(st.lists(st.sampled_from(allowed), min_size=1, max_size=6, unique=True))
        return draw(st.lists(st.sampled_from(allowed), min_size=15, max_size=15))

    mode = draw(st.sampled_from(["all", "few", "home"]))
    if mode == "home":
        allowed = [0, 1, 2, 3, 4, 5, 6, *draw(st.lists(st.sampled_from([7, 8, 12, 25]), max_size=1))]
    else:
        allowed = list(range(0, 26))  # 0 = off, 25 = bar
    ours: dict[int, int] = {}
    for place in places(allowed, mode):
        ours[place] = ours.get(place, 0) + 1
    free = [p for p in range(1, 25) if not ours.get(25 - p)]  # their numbering
    theirs: dict[int, int] = {}
    for place in places([0, 25, *free], draw(st.sampled_from(["all", "few"]))):
        theirs[place] = theirs.get(place, 0) + 1
    ours.pop(0, None)
    theirs.pop(0, None)
    return Position.from_counts(ours, theirs)


rolls = st.builds(Roll, st.integers(1, 6), st.integers(1, 6))


@st.composite
def match_states(draw) -> MatchState:
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 9, 11, 13, 17, 25, 64]))
    if length:
        # A finished match's ID shows a score equal to the length.
        score = (draw(st.integers(0, length)), draw(st.integers(0, length)))
        crawford = draw(st.booleans())
    else:
        # A money session counts the points won over its games.
        score, crawford = (draw(st.integers(0, 500)), draw(st.integers(0, 500))), False
    rolled = draw(st.booleans())
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6))) if rolled else (0, 0)
    return MatchState(
        cube=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)),
        crawford=crawford,
        game_state=draw(st.integers(0, 4)),
        turn=draw(st.integers(0, 1)),
        double_offered=draw(st.booleans()),
        resignation=draw(st.integers(0, 3)),
        dice=(max(dice), min(dice)),  # the larger die first, as gnubg writes it
        match_length=length,
        score=score,
        jacoby=draw(st.booleans()),
    )


# -- the naive reference ---------------------------------------------------------


def _steps(a: list[int], die: int) -> list[list[int]]:
    """Every state one move of ``die`` can reach. a[0] = off, a[1..24] signed, a[25] = bar."""
    out = []
    if a[25] > 0:
        dest = 25 - die
        if a[dest] >= -1:
            b = a.copy()
            b[25] -= 1
            b[dest] = 1 if b[dest] == -1 else b[dest] + 1
            out.append(b)
        return out
    all_home = all(a[p] <= 0 for p in range(7, 25))
    for src in range(1, 25):
        if a[src] <= 0:
            continue
        dest = src - die
        if dest >= 1:
            if a[dest] < -1:
                continue
            b = a.copy()
            b[src] -= 1
            b[dest] = 1 if b[dest] == -1 else b[dest] + 1
            out.append(b)
        elif all_home and (dest == 0 or not any(a[p] > 0 for p in range(src + 1, 7))):
            b = a.copy()
            b[src] -= 1
            b[0] += 1
            out.append(b)
    return out


def reference_results(position: Position, roll: Roll) -> tuple[int, set[tuple[int, ...]]]:
    """(dice used, our side of every legal resulting position), by brute force."""
    start = [position.off[0], *position.board, position.bar[0]]
    orders = [roll.moves()] if roll.is_double else [(roll.die1, roll.die2), (roll.die2, roll.die1)]
    finals: list[tuple[int, int, tuple[int, ...]]] = []  # (dice used, first die, state)
    for order in orders:
        frontier = [(start, 0, 0)]
        while frontier:
            state, used, first = frontier.pop()
            following = _steps(state, order[used]) if used < len(order) else []
            if not following:
                finals.append((used, first, tuple(state)))
            for nxt in following:
                frontier.append((nxt, used + 1, first or order[used]))
    best = max(used for used, _, _ in finals)
    chosen = [f for f in finals if f[0] == best]
    if best == 1 and not roll.is_double and any(first == roll.high for _, first, _ in chosen):
        chosen = [f for f in chosen if f[1] == roll.high]
    return best, {state for _, _, state in chosen}


def key(position: Position) -> tuple[int, ...]:
    return (position.off[0], *position.board, position.bar[0])


# -- positions -------------------------------------------------------------------


def side_totals(position: Position) -> tuple[int, int]:
    ours = sum(n for n in position.board if n > 0) + position.bar[0] + position.off[0]
    theirs = -sum(n for n in position.board if n < 0) + position.bar[1] + position.off[1]
    return ours, theirs


@SETTINGS
@given(positions())
def test_swap_twice_is_identity(position):
    assert position.swap().swap() == position


@SETTINGS
@given(positions())
def test_pip_counts_swap(position):
    ours, theirs = position.pip_counts()
    assert position.swap().pip_counts() == (theirs, ours)
    assert 0 <= ours <= 15 * 25 and 0 <= theirs <= 15 * 25
    assert (ours == 0) == (position.off[0] == 15)


@SETTINGS
@given(positions())
def test_position_id_round_trip(position):
    pid = position.position_id()
    assert len(pid) == 14
    assert Position.from_position_id(pid) == position
    assert Position.from_position_id(position.swap().position_id()) == position.swap()


@SETTINGS
@given(match_states())
def test_match_id_round_trip(state):
    match_id = encode_match_id(state)
    assert len(match_id) == 12
    assert decode_match_id(match_id) == state


# -- legal plays -----------------------------------------------------------------


@SETTINGS
@given(positions(), rolls)
def test_checkers_are_conserved(position, roll):
    for play in legal_plays(position, roll):
        result = play.position
        assert side_totals(result) == (15, 15)
        assert min(result.bar) >= 0 and min(result.off) >= 0
        assert len(result.board) == 24
        result.validate()
        # the opponent only ever loses checkers to the bar, never moves otherwise
        assert result.off[1] == position.off[1]
        assert result.bar[1] == position.bar[1] + play.hits
        # pips: ours fall by the dice used (less when bearing off with a larger die)
        ours_before, theirs_before = position.pip_counts()
        ours_after, theirs_after = result.pip_counts()
        dice = roll.moves()[: play.dice_used]
        if any(m.destination == 0 for m in play.moves):
            assert ours_before - sum(dice) <= ours_after < ours_before
        else:
            assert ours_after == ours_before - sum(dice)
        assert theirs_after >= theirs_before and (theirs_after > theirs_before) == bool(play.hits)


@SETTINGS
@given(positions(), rolls)
def test_plays_are_distinct_and_all_use_the_same_number_of_dice(position, roll):
    plays = legal_plays(position, roll)
    assert plays
    assert len({p.position for p in plays}) == len(plays)
    assert len({p.dice_used for p in plays}) == 1
    if plays[0].dice_used == 0:
        assert plays[0].position == position


@SETTINGS
@given(positions(), rolls)
def test_legal_plays_match_the_naive_reference(position, roll):
    """Same dice count as the most that can be played, and the same result set."""
    best, expected = reference_results(position, roll)
    plays = legal_plays(position, roll)
    assert plays[0].dice_used == best
    assert {key(p.position) for p in plays} == expected


@SETTINGS
@given(positions(), rolls)
def test_each_move_is_one_die(position, roll):
    for play in legal_plays(position, roll):
        remaining = list(roll.moves())
        for move in play.moves:
            distance = move.source - move.destination
            if move.destination == 0:
                die = min((d for d in remaining if d >= distance), default=None)
            else:
                die = distance if distance in remaining else None
            assert die is not None, (play.moves, roll)
            remaining.remove(die)


@SETTINGS
@given(positions(), rolls)
def test_a_play_is_made_again_from_its_moves(position, roll):
    """What a game keeps of plays it forgot (their moves) gives back the very plays found."""
    plays = legal_plays(position, roll)
    assert [play_of_moves(position, play.moves) for play in plays] == plays
    for play in plays:  # kept as bytes, they come back as the very same moves
        back = unpack_moves(pack_moves(play.moves))
        assert back == play.moves and all(a is b for a, b in zip(back, play.moves, strict=True))
    # and every spelling names one play: a game may keep its plays by spelling
    assert len({format_play(play) for play in plays}) == len(plays)


# -- notation --------------------------------------------------------------------


@settings(SETTINGS, max_examples=80)
@given(positions(), rolls)
def test_format_then_parse_is_identity(position, roll):
    plays = legal_plays(position, roll)
    for play in plays[:: max(1, len(plays) // 12)]:  # parse_play regenerates the plays
        text = format_play(play)
        assert parse_play(position, roll, text) == play, text
