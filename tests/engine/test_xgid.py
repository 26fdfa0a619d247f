"""XGID (eXtreme Gammon's position ID): published examples, round trips on
10,000 random positions and states, agreement with the GNU Backgammon ID,
refusals, and the IDs found in a message. GNU Backgammon's own ``set xgid``
checks a sample in test_xgid_gnubg.py."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, GameSettings, IdError, Phase, Position, SeededDice, SetupError
from engine.gnubgid import MatchState, decode_match_id, decode_position_id, encode_match_id, encode_position_id
from engine.ids import find_ids, gnubg_id_of, read_id
from engine.mat import xg_position
from engine.xgid import (
    DEFAULT_MAX_CUBE,
    MAX_CUBE,
    MAX_SCORE,
    Xgid,
    XgidError,
    board_text,
    format_xgid,
    looks_like_xgid,
    parse_xgid,
)

P = Position.from_counts
START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"

# The published example (formats.md 3.3): a real eXtreme Gammon export from
# AnkiGammon issue #1, "Score is X:1 O:0 11 pt. match", "X to play 41".
ANKI = "XGID=----abF-B--BbB-Bacbd----A-:0:0:1:41:1:0:0:11:10"
ANKI_GNUBG = "4O3CgAXgZ8wMIA:cAlmAQAACAAE"
"""What GNU Backgammon 1.07's ``set xgid`` makes of it (checked by hand with
/usr/games/gnubg and by test_xgid_gnubg.py)."""
FORMATS_GNUBG = "4O3CgAXgZ8wMIA:cAlmAQAACAAA"
"""The GNU Backgammon ID formats.md computed for it ("not externally verified"):
the same but for bit 66, "Jacoby not in effect", which GNU Backgammon sets in
every match."""


# -- the published examples ------------------------------------------------------------------


def test_the_starting_position():
    xgid = parse_xgid(START)
    assert xgid.position == Position.start()
    assert xgid.state == MatchState(player_on_roll=1, turn=1, jacoby=False)
    assert xgid.gnubg_id() == "4HPwATDgc/ABMA:cAkAAAAAAAAE"
    assert str(xgid) == START
    assert board_text(Position.start()) == xg_position(Position.start()) == "-b----E-C---eE---c-e----B-"


def test_the_anki_gammon_export():
    xgid = parse_xgid(ANKI)
    x = {6: 6, 8: 2, 11: 2, 13: 2, 15: 2, 24: 1}  # the bottom player, on roll
    o = {6: 4, 7: 2, 8: 3, 9: 1, 13: 2, 20: 2, 21: 1}  # the top player, in its own numbering
    assert xgid.position == P(x, o)
    assert xgid.state == MatchState(
        cube=1,
        cube_owner=None,
        player_on_roll=1,
        turn=1,
        dice=(4, 1),
        match_length=11,
        score=(0, 1),
        jacoby=False,
    )
    assert xgid.beavers is False and xgid.max_cube == 1024
    assert xgid.gnubg_id() == ANKI_GNUBG
    assert str(xgid) == ANKI
    # formats.md's computed ID is the same position and state, but for the Jacoby bit
    position_id, match_id = FORMATS_GNUBG.split(":")
    assert decode_position_id(position_id) == xgid.position
    assert decode_match_id(match_id) == replace(xgid.state, jacoby=True)
    assert Game.from_gnubg_id(FORMATS_GNUBG).gnubg_id() == Game.from_xgid(ANKI).gnubg_id() == ANKI_GNUBG
    # and the way back
    assert Xgid.from_gnubg_id(ANKI_GNUBG) == Xgid.from_gnubg_id(FORMATS_GNUBG) == xgid
    assert Game.from_gnubg_id(ANKI_GNUBG, GameSettings(cube_limit=1024)).xgid() == ANKI


def test_money_rules_jacoby_and_beavers():
    # AnkiGammon #41: "Unlimited Game, Jacoby Beaver" is ...:0:0:3:0:10
    for rules, jacoby, beavers in ((0, False, False), (1, True, False), (2, False, True), (3, True, True)):
        xgid = parse_xgid(f"-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{rules}:0:10")
        assert (xgid.state.jacoby, xgid.beavers) == (jacoby, beavers)
        game = Game.from_xgid(str(xgid))
        assert (game.settings.jacoby, game.settings.beavers) == (jacoby, beavers)
        assert game.xgid() == f"XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{rules}:0:6"  # the game's cube limit


def test_crawford_rule_in_a_match():
    xgid = parse_xgid("-b----E-C---eE---c-e----B-:0:0:-1:00:4:2:1:5:10")
    assert xgid.state.crawford and xgid.state.score == (2, 4) and xgid.state.player_on_roll == 0
    game = Game.from_xgid(str(xgid))
    assert game.crawford and not game.can_double(0)


def test_a_double_offered():
    # the top player owns a 4-cube and redoubles: the cube field is the cube before the double
    xgid = parse_xgid("-b----E-C---eE---c-e----B-:2:-1:-1:D:3:5:2:0:10")
    assert xgid.state.double_offered and xgid.state.cube == 4 and xgid.state.cube_owner == 0
    assert xgid.state.player_on_roll == 0 and xgid.state.turn == 1
    game = Game.from_xgid(str(xgid))
    assert game.phase is Phase.DOUBLED and game.offered_cube == 8 and game.turn == 1
    game.beaver(1)  # the XGID allowed beavers; 16 is within the game's limit of 64
    assert game.cube_value == 16 and game.cube_owner == 1


def test_either_die_first_and_the_prefix_optional():
    reads = {
        parse_xgid(text) for text in (ANKI, ANKI.replace(":41:", ":14:"), ANKI[5:], "xgid=" + ANKI[5:], f"  {ANKI}\n")
    }
    assert len(reads) == 1


def test_beavers_and_raccoons_waiting_are_refused():
    for dice, what in (("B", "beaver"), ("R", "raccoon")):
        with pytest.raises(XgidError, match=f"a {what} waiting for an answer, which this engine cannot hold"):
            parse_xgid(f"-b----E-C---eE---c-e----B-:1:1:1:{dice}:0:0:2:0:10")


# -- malformed and impossible XGIDs ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "has 9"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10:1", "has 11"),
        ("-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("-b----E-C---eE---c-e----Bx-:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("-b----E-C---eE---c-e---+B-:0:0:1:00:0:0:0:0:10", "not '\\+'"),
        ("-b----E-C---eE---c-e---qB-:0:0:1:00:0:0:0:0:10", "not 'q'"),
        ("Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "character 0 is the top player's bar"),
        ("-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "character 25 is the bottom player's bar"),
        ("-b----F-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "bottom player has 16 checkers"),
        ("-b----E-C---eE---c-f----B-:0:0:1:00:0:0:0:0:10", "top player has 16 checkers"),
        ("-b------------------------:0:0:1:00:0:0:0:0:10", "bottom player has borne off all 15"),
        ("-------------------------O:0:0:1:00:0:0:0:0:10", "top player has borne off all 15"),
        ("-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "cube is a whole number"),
        ("-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:16", "cube is log2 of the cube, 0 \\(1\\) to 15"),
        ("-b----E-C---eE---c-e----B-:-1:0:1:00:0:0:0:0:10", "not -1"),
        ("-b----E-C---eE---c-e----B-:7:0:1:00:0:0:0:0:6", "past the XGID's own max cube 64"),
        ("-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube owner is 1 \\(bottom player\\)"),
        ("-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "turn is 1 \\(bottom player\\) or -1"),
        ("-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn is 1"),
        ("-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "the dice are 00"),
        ("-b----E-C---eE---c-e----B-:0:0:1:50:0:0:0:0:10", "00 \\(to roll\\) or two dice 1-6, not '50'"),
        ("-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:0:10", "not '5'"),
        ("-b----E-C---eE---c-e----B-:0:0:1:X:0:0:0:0:10", "not 'X'"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10", "bottom player's score is below the match length \\(7\\)"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:9:0:7:10", "top player's score"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:-1:0:0:10", "score is 0 to 32767, not -1"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:40000:0:0:10", "score is 0 to 32767, not 40000"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10", "in a match 1 \\(the Crawford game\\) or 0"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10", "for money 0 to 3"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:65:10", "0 \\(money\\) to 64 points"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:16", "max cube is log2 of the highest cube"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:1e3", "max cube is a whole number"),
    ],
)
def test_malformed_xgids(text, message):
    with pytest.raises(XgidError, match=message):
        parse_xgid(text)


def test_an_xgid_error_is_an_id_error_and_quotes_little():
    assert issubclass(XgidError, IdError) and issubclass(XgidError, ValueError)
    with pytest.raises(XgidError) as caught:
        parse_xgid("XGID=" + "-" * 5000)
    assert len(str(caught.value)) < 300


def test_states_an_xgid_cannot_show():
    position = Position.start()
    for state, message in (
        (MatchState(game_state=0), "opening throw is still to come"),
        (MatchState(game_state=2), "a finished game"),
        (MatchState(resignation=1, turn=1), "resignation"),
        (MatchState(turn=1), "the player on roll acting"),
        (MatchState(double_offered=True, turn=1, dice=(3, 1)), "before rolling"),
        (MatchState(match_length=5, score=(5, 0)), "already won a 5-point match"),
        (MatchState(crawford=True), "money game has no Crawford"),
        (MatchState(cube=3), "power of two"),
        (MatchState(cube=1 << 16), "power of two up to 32768"),
        (MatchState(cube=128), "past the max cube 64"),
    ):
        with pytest.raises(XgidError, match=message):
            format_xgid(position, state, max_cube=64)
    with pytest.raises(XgidError, match="beavers are for money games only"):
        format_xgid(position, MatchState(match_length=3), beavers=True)
    with pytest.raises(XgidError, match="borne off all 15"):
        format_xgid(P({}, {6: 15}), MatchState())


def test_a_games_xgid_when_it_has_one():
    game = Game(GameSettings(jacoby=True), dice=SeededDice(3))
    with pytest.raises(XgidError, match="opening throw"):
        game.xgid()
    game.opening_roll((3, 1))
    text = game.xgid()
    assert text == "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:0:0:1:0:6"  # player 0 (top) plays 3-1
    assert Game.from_xgid(text).gnubg_id() == game.gnubg_id()
    game.offer_resignation(1)
    with pytest.raises(XgidError, match="resignation"):
        game.xgid()
    game.accept_resignation(0)
    with pytest.raises(XgidError, match="finished game"):
        game.xgid()
    cubeless = Game(GameSettings(cube=False), dice=SeededDice(3))
    cubeless.opening_roll((3, 1))
    assert cubeless.xgid().endswith(":0")  # max cube 1: nobody may double


def test_set_up_refusals_are_the_gnubg_ids():
    with pytest.raises(SetupError, match="only the cube's owner may redouble"):
        Game.from_xgid("-b----E-C---eE---c-e----B-:1:1:-1:D:0:0:0:0:10")
    with pytest.raises(SetupError, match="past this game's limit of 64"):
        Game.from_xgid("-b----E-C---eE---c-e----B-:7:1:1:00:0:0:0:0:10")
    with pytest.raises(SetupError, match="a double would pass this game's cube limit of 8"):  # the XGID's max cube
        Game.from_xgid("-b----E-C---eE---c-e----B-:3:1:1:D:0:0:0:0:3", GameSettings(cube_limit=1024))


# -- round trips on 10,000 random positions and states ---------------------------------------------


@st.composite
def positions(draw) -> Position:
    """A position still in play: 1-15 checkers a side on points or the bar, no shared point.

    Each side's checkers are spread over all 26 places (0 = off, 25 = the
    bar) or over a few (stacks, primes); ours also over the home board and
    off (bear-offs). Hypothesis draws the seed of the spreading (drawing each
    of 30 checkers through Hypothesis made 10,000 examples ten times slower).
    """
    rng = draw(st.randoms(use_true_random=True))

    def places(allowed: list[int], mode: str) -> list[int]:
        if mode == "few":
            allowed = rng.sample(allowed, rng.randint(1, 6))
        return [rng.choice(allowed) for _ in range(15)]

    mode = rng.choice(["all", "few", "home"])
    allowed = [0, 1, 2, 3, 4, 5, 6, 25] if mode == "home" else list(range(26))
    ours: dict[int, int] = {}
    for place in places(allowed, mode):
        ours[place] = ours.get(place, 0) + 1
    free = [p for p in range(1, 25) if not ours.get(25 - p)]
    theirs: dict[int, int] = {}
    for place in places([0, 25, *free], rng.choice(["all", "few"])):
        theirs[place] = theirs.get(place, 0) + 1
    if ours.get(0) == 15:
        ours = {0: 14, 25: 1}
    if theirs.get(0) == 15:
        theirs = {0: 14, 25: 1}
    ours.pop(0, None)
    theirs.pop(0, None)
    return P(ours, theirs)


@st.composite
def xgids(draw) -> Xgid:
    """Any position and state an XGID can show."""
    length = draw(st.sampled_from([0, 0, 0, 1, 2, 3, 5, 7, 9, 11, 13, 17, 25, 64]))
    if length:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford, jacoby, beavers = draw(st.booleans()), False, False
    else:
        points = st.one_of(st.integers(0, 20), st.integers(0, MAX_SCORE))
        score = (draw(points), draw(points))
        crawford, jacoby, beavers = False, draw(st.booleans()), draw(st.booleans())
    max_log = draw(st.integers(0, 15))
    on_roll = draw(st.integers(0, 1))
    kind = draw(st.sampled_from(["to roll", "rolled", "doubled"]))
    dice = (0, 0)
    if kind == "rolled":
        dice = tuple(sorted((draw(st.integers(1, 6)), draw(st.integers(1, 6))), reverse=True))
    state = MatchState(
        cube=1 << draw(st.integers(0, max_log)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        player_on_roll=on_roll,
        crawford=crawford,
        turn=1 - on_roll if kind == "doubled" else on_roll,
        double_offered=kind == "doubled",
        dice=dice,
        match_length=length,
        score=score,
        jacoby=jacoby,
    )
    return Xgid(draw(positions()), state, beavers=beavers, max_cube=1 << max_log)


def independent_board(text: str) -> tuple[list[int], list[int]]:
    """Each side's 25 counts in its own numbering (index 24 its bar) from an
    XGID's board, written from the format's description, not from the codec."""
    bottom, top = [0] * 25, [0] * 25
    for index, cell in enumerate(text):
        if cell.isupper():
            bottom[24 if index == 25 else index - 1] = ord(cell) - 64
        elif cell.islower():
            top[24 if index == 0 else 24 - index] = ord(cell) - 96
    return bottom, top


@settings(max_examples=2_000, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(xgids())
def test_round_trips_and_the_gnubg_id_agrees(xgid):
    text = format_xgid(xgid.position, xgid.state, beavers=xgid.beavers, max_cube=xgid.max_cube)
    assert parse_xgid(text) == xgid
    assert str(xgid) == text and parse_xgid(text[len("XGID=") :]) == xgid
    # the board is the bottom player's (player 1's) view, field by field
    fields = text[len("XGID=") :].split(":")
    bottom_view = xgid.position if xgid.state.player_on_roll == 1 else xgid.position.swap()
    assert independent_board(fields[0]) == (
        bottom_view.side_counts(on_roll=True),
        bottom_view.side_counts(on_roll=False),
    )
    state = xgid.state
    assert int(fields[1]) == state.cube.bit_length() - 1
    assert int(fields[2]) == {None: 0, 1: 1, 0: -1}[state.cube_owner]
    assert int(fields[3]) == (1 if state.player_on_roll == 1 else -1)
    assert (int(fields[5]), int(fields[6])) == (state.score[1], state.score[0])
    # XGID <-> GNU Backgammon ID
    gnubg_id = xgid.gnubg_id()
    assert gnubg_id == f"{encode_position_id(xgid.position)}:{encode_match_id(state)}"
    assert gnubg_id_of(text) == gnubg_id and read_id(text) == (gnubg_id, xgid)
    assert Xgid.from_gnubg_id(gnubg_id, beavers=xgid.beavers, max_cube=xgid.max_cube) == xgid


def test_random_games_through_their_xgids():
    """States the engine reaches in play: every XGID sets up the same game."""
    rng = random.Random(23)
    checked = 0
    for seed in range(60):
        settings_ = GameSettings(match_length=rng.choice([0, 0, 3, 7]), cube_limit=rng.choice([64, 1024]))
        if not settings_.match_length:
            settings_ = replace(settings_, jacoby=rng.random() < 0.5, beavers=rng.random() < 0.5)
        game = Game(settings_, dice=SeededDice(seed), score=(0, 0))
        game.opening_roll()
        while not game.is_over and game.version < 400:
            if game.phase in (Phase.ROLL, Phase.PLAY, Phase.DOUBLED):
                copy = Game.from_xgid(game.xgid(), GameSettings(cube_limit=settings_.cube_limit))
                assert copy.gnubg_id() == game.gnubg_id()
                assert copy.xgid() == game.xgid()
                assert (copy.settings.jacoby, copy.settings.beavers) == (settings_.jacoby, settings_.beavers)
                checked += 1
            _step(game, rng)
    assert checked > 2000


def _step(game: Game, rng: random.Random) -> None:
    player = game.turn
    if game.phase is Phase.ROLL:
        if game.can_double(player) and rng.random() < 0.1:
            game.double(player)
        else:
            game.roll(player)
    elif game.phase is Phase.PLAY:
        plays = game.legal_plays()
        game.play(player, rng.choice(plays) if plays else "")
    elif game.phase is Phase.DOUBLED:
        if game.can_beaver(player) and rng.random() < 0.3:
            game.beaver(player)
        elif rng.random() < 0.8:
            game.take(player)
        else:
            game.drop(player)


# -- IDs in a message ----------------------------------------------------------------------------


def test_which_kind_of_id():
    assert looks_like_xgid(ANKI) and looks_like_xgid(ANKI[5:]) and looks_like_xgid("xgid=broken")
    assert not looks_like_xgid(ANKI_GNUBG) and not looks_like_xgid("4HPwATDgc/ABMA")
    assert gnubg_id_of(ANKI) == ANKI_GNUBG
    assert gnubg_id_of(f" {ANKI_GNUBG} ") == ANKI_GNUBG
    assert gnubg_id_of("4HPwATDgc/ABMA") == "4HPwATDgc/ABMA"
    with pytest.raises(XgidError):
        gnubg_id_of("XGID=nonsense")
    with pytest.raises(IdError, match="14 characters"):
        gnubg_id_of("nonsense")


def test_ids_found_in_a_message():
    text = (
        f"Look at this one: {ANKI}. Or in gnubg {ANKI_GNUBG}, or just 4HPwATDgc/ABMA. "
        "GNU Backgammon  Position ID: sGfwATDgc/ABMA\n                 Match ID   : cAkAAAAAAAAA\n"
    )
    found = find_ids(text)
    assert [(f.kind, f.text) for f in found] == [
        ("xgid", ANKI),
        ("gnubg", ANKI_GNUBG),
        ("gnubg", "sGfwATDgc/ABMA:cAkAAAAAAAAA"),
        ("position", "4HPwATDgc/ABMA"),
    ]
    assert [f.kind for f in find_ids(f"`{ANKI[5:]}`")] == ["xgid"]
    assert [(f.kind, f.text) for f in find_ids("XGID=-b----E-C---eE---c-e----B-:0:0:1.")] == [
        ("xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1")
    ]  # broken, but found: reading it says why
    assert find_ids("Position ID: 4HPwATDgc/ABMA")[0].text == "4HPwATDgc/ABMA"
    assert find_ids("nothing here, not even Understanding") == []
    assert find_ids("") == []


def test_xgid_max_cube_constants():
    assert DEFAULT_MAX_CUBE == 1024 and MAX_CUBE == 1 << 15
