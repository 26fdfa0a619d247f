"""GNU Backgammon's own ``set xgid`` as an oracle for our XGID reading.

The published example, random positions and states, and the XGIDs of states
random games pass through are each given to one ``gnubg`` process (``set
xgid``, then its Position ID and Match ID); what it makes of each must be the
GNU Backgammon ID our :func:`engine.xgid.parse_xgid` makes, but for two
things GNU Backgammon does on its own, normalised here:

* with the top player on roll it asks "Swap players so the player on roll
  appears on the bottom?" and, run from a script, answers yes: its players 0
  and 1 change places (scores, cube owner, who is on roll);
* it cannot hold a double offered ("SetMatchID cannot handle positions where
  a double has been offered"): it steps back to before the offer, the doubler
  to act with the cube as it was.

It also puts right Crawford flags no game could have (a cube turned in the
Crawford game, both players a point from the match): the sample keeps to
Crawford games as they are played, as the engine's do.

Skipped without ``gnubg`` (``make test`` installs Debian's where it can),
unless ``BG_REQUIRE_GNUBG=1``. ``BG_GNUBG_SAMPLES`` scales the sample (20:
200 random XGIDs).
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest

from engine import Game, GameSettings, Phase, Position, SeededDice
from engine.gnubgid import MatchState, decode_match_id
from engine.xgid import Xgid, format_xgid, parse_xgid
from tests.engine.gnubg_oracle import find_gnubg, run_gnubg

PROGRAM = find_gnubg()
if PROGRAM is None:
    REASON = (
        "GNU Backgammon (gnubg) is not installed: `make test` installs Debian's gnubg package "
        "where apt-get can, or set GNUBG=/path/to/gnubg"
    )
    if os.environ.get("BG_REQUIRE_GNUBG") == "1":
        pytest.fail(f"BG_REQUIRE_GNUBG=1 but {REASON}", pytrace=False)
    pytest.skip(REASON, allow_module_level=True)

RANDOM = 10 * int(os.environ.get("BG_GNUBG_SAMPLES", "20"))
"""How many random XGIDs (and as many from random games) to check."""

PUBLISHED = [
    "XGID=----abF-B--BbB-Bacbd----A-:0:0:1:41:1:0:0:11:10",  # AnkiGammon #1, a real XG export
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10",
    "-b----E-C---eE---c-e----B-:2:-1:-1:D:3:5:2:0:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:4:2:1:5:10",
]


def random_position(rng: random.Random) -> Position:
    ours: dict[int, int] = {}
    theirs: dict[int, int] = {}
    spots = rng.sample(range(0, 26), rng.randint(1, 8))
    for _ in range(15):
        place = rng.choice(spots)
        ours[place] = ours.get(place, 0) + 1
    free = [0, 25, *(p for p in range(1, 25) if not ours.get(25 - p))]
    spots = rng.sample(free, min(len(free), rng.randint(1, 8)))
    for _ in range(15):
        place = rng.choice(spots)
        theirs[place] = theirs.get(place, 0) + 1
    for side in (ours, theirs):
        if side.get(0) == 15:
            side[0], side[25] = 14, 1
        side.pop(0, None)
    return Position.from_counts(ours, theirs)


def random_xgid(rng: random.Random) -> str:
    length = rng.choice([0, 0, 1, 3, 5, 7, 11, 25])
    score = (rng.randrange(length), rng.randrange(length)) if length else (rng.randint(0, 30), rng.randint(0, 30))
    on_roll = rng.randint(0, 1)
    kind = rng.choice(["to roll", "rolled", "doubled"])
    cube_log = rng.randint(0, 6)
    owner = rng.choice([None, 0, 1]) if cube_log else None
    if kind == "doubled":
        owner = rng.choice([None, on_roll])  # a double the cube allows
    dice = (0, 0)
    if kind == "rolled":
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        dice = (max(dice), min(dice))
    # a Crawford game as one can be: one player a point from the match, the cube never turned
    crawford = bool(length) and kind != "doubled" and (score.count(length - 1) == 1) and rng.random() < 0.7
    if crawford:
        cube_log, owner = 0, None
    state = MatchState(
        cube=1 << cube_log,
        cube_owner=owner,
        player_on_roll=on_roll,
        crawford=crawford,
        turn=1 - on_roll if kind == "doubled" else on_roll,
        double_offered=kind == "doubled",
        dice=dice,
        match_length=length,
        score=score,
        jacoby=not length and rng.random() < 0.5,
    )
    return format_xgid(random_position(rng), state, beavers=not length and rng.random() < 0.5)


def game_xgids(count: int) -> list[str]:
    """XGIDs of states random games reach (money and matches)."""
    rng = random.Random(2023)
    found: list[str] = []
    seed = 0
    while len(found) < count:
        seed += 1
        length = rng.choice([0, 5])
        game = Game(GameSettings(match_length=length, jacoby=not length, beavers=not length), dice=SeededDice(seed))
        game.opening_roll()
        while not game.is_over and game.version < 300:
            if game.phase in (Phase.ROLL, Phase.PLAY, Phase.DOUBLED) and rng.random() < 0.1:
                found.append(game.xgid())
            player = game.turn
            if game.phase is Phase.ROLL:
                game.double(player) if game.can_double(player) and rng.random() < 0.15 else game.roll(player)
            elif game.phase is Phase.PLAY:
                plays = game.legal_plays()
                game.play(player, rng.choice(plays) if plays else "")
            else:
                game.take(player) if rng.random() < 0.8 else game.drop(player)
    return found[:count]


def expected(xgid: Xgid) -> tuple[str, MatchState]:
    """What GNU Backgammon's ``set xgid`` should leave: see the module."""
    state = xgid.state
    if state.double_offered:
        state = replace(state, double_offered=False, turn=state.player_on_roll)
    if state.player_on_roll == 0:
        owner = None if state.cube_owner is None else 1 - state.cube_owner
        state = replace(
            state, cube_owner=owner, player_on_roll=1, turn=1 - state.turn, score=(state.score[1], state.score[0])
        )
    return xgid.position_id(), state


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, list[str]]]:
    rng = random.Random(23)
    xgids = PUBLISHED + [random_xgid(rng) for _ in range(RANDOM)] + game_xgids(RANDOM)
    assert PROGRAM is not None
    answer = run_gnubg(PROGRAM, {"xgids": xgids}, tmp_path_factory.mktemp("gnubg-xgid"), timeout=300)
    return list(zip(xgids, answer["xgids"]))


def test_the_published_example_is_what_gnubg_reads(answers):
    text, (position_id, match_id) = answers[0]
    assert f"{position_id}:{match_id}" == parse_xgid(text).gnubg_id() == "4O3CgAXgZ8wMIA:cAlmAQAACAAE"


def test_gnubg_reads_every_xgid_as_we_do(answers):
    differences = []
    for text, (position_id, match_id) in answers:
        want_position, want_state = expected(parse_xgid(text))
        got = decode_match_id(match_id)
        if (position_id, got) != (want_position, want_state):
            differences.append(
                f"{text}: gnubg {position_id}:{match_id} = {got}, we expect {want_position} {want_state}"
            )
    assert not differences, f"{len(differences)} of {len(answers)} differ:\n" + "\n".join(differences[:10])


def test_the_sample_covers_what_matters(answers):
    states = [parse_xgid(text).state for text, _ in answers]
    assert any(s.double_offered for s in states) and any(all(s.dice) for s in states)
    assert any(s.player_on_roll == 0 for s in states) and any(s.player_on_roll == 1 for s in states)
    assert any(s.crawford for s in states) and any(s.match_length == 0 and s.jacoby for s in states)
    assert any(s.cube_owner == 0 for s in states) and any(s.cube_owner == 1 for s in states)
