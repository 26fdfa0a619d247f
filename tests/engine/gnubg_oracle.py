"""GNU Backgammon itself as an oracle: helpers for tests/engine/test_gnubg.py.

Random matches and money sessions are played with our engine, exported as
``.mat`` and imported by a real ``gnubg`` (one process for the whole batch,
running ``gnubg_dump.py``). What GNU Backgammon reads back (every record,
every game's result, the Position and Match ID after every record) is
compared with what our engine says. Notation is checked both ways on the
legal plays of the positions the games pass through.

Known, documented differences are normalised here and nowhere else:

* after a game ends, GNU Backgammon's Match ID carries the score past the
  match length; ours stops at it (docs/rules.md section 13);
* after a drop, GNU Backgammon's Position ID is seen from the player who
  dropped, while its Match ID names the doubler on roll;
* a beaver reads back as a redouble followed by a take inferred at the next
  roll; the state between the two is GNU Backgammon's own;
* a game resigned before any dice of it are shown reads back empty (the
  reader ignores a lone "Wins"), and our comparison expects that;
* a set-up game starts with GNU Backgammon's ``set`` records on the standard
  start; states are compared from the first real record on, and the boards
  ``gnubg.match()`` lists for its moves (one record late) are left out.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine import (
    Game,
    GameSettings,
    Match,
    Phase,
    Position,
    Roll,
    SeededDice,
    WinKind,
    format_play,
    parse_moves,
    parse_play,
)
from engine.gnubgid import MatchState, decode_match_id, encode_match_id
from engine.mat import export_games
from engine.moves import legal_plays
from engine.play import Play

HERE = Path(__file__).parent
DUMP_SCRIPT = HERE / "gnubg_dump.py"
ROOT = HERE.parent.parent


def find_gnubg() -> str | None:
    """The ``gnubg`` program: ``$GNUBG`` (only there; ``GNUBG=`` means none),
    on ``PATH``, or Debian's ``/usr/games/gnubg``."""
    if "GNUBG" in os.environ:
        named = os.environ["GNUBG"]
        return named if named and os.access(named, os.X_OK) else None
    found = shutil.which("gnubg")
    if found:
        return found
    return "/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None


def run_gnubg(program: str, job: dict, workdir: Path, timeout: float = 900, *, script: str = DUMP_SCRIPT.name) -> dict:
    """Run one batch job in one GNU Backgammon process (``script``, a file of this
    folder, reads the job) and return its answer."""
    job_path, out_path = workdir / "job.json", workdir / "answer.json"
    job_path.write_text(json.dumps(job))
    env = dict(os.environ, GNUBG_JOB=str(job_path), GNUBG_OUT=str(out_path), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [program, "-t", "-q", "-p", str(HERE / script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=workdir,
    )
    if not out_path.exists():
        raise RuntimeError(f"gnubg wrote no answer (status {result.returncode}):\n{result.stderr[-2000:]}")
    return json.loads(out_path.read_text())


# -- playing random games ----------------------------------------------------------


def _blitz_score(position: Position) -> int:
    """Taste for hitting and making home points: closed boards come up often."""
    b = position.board
    return 3 * position.bar[1] + 10 * sum(1 for n in b[:6] if n >= 2) - sum(n for n in b[12:] if n > 0)


@dataclass
class Stats:
    """What the random games went through (to report, and to check the sample)."""

    games: int = 0
    closed_out_rolls: int = 0
    dances: int = 0
    doubles: int = 0
    beavers: int = 0
    drops: int = 0
    resignations: int = 0
    rejected: int = 0
    forfeits: int = 0
    setups: int = 0
    hits_first: int = 0
    opening_choices: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def add(self, other: Stats) -> None:
        for name, value in vars(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)
        for kind, count in other.kinds.items():
            self.kinds[kind] = self.kinds.get(kind, 0) + count


def play_out(game: Game, rng: random.Random, stats: Stats, *, cube_rate: float = 0.08) -> None:
    """Play ``game`` to its end with random (often blitzing) players."""
    if game.phase is Phase.OPENING:
        game.opening_roll()
    for _ in range(5000):
        if game.is_over:
            break
        if game.phase is Phase.ROLL:
            player = game.turn
            if game.position.is_closed_out():
                stats.closed_out_rolls += 1
            if game.opening_offer is not None and rng.random() < 0.5:
                stats.opening_choices += 1
                game.use_opening(player)
            elif game.can_double(player) and rng.random() < cube_rate:
                stats.doubles += 1
                game.double(player)
            elif rng.random() < 0.01:
                game.offer_resignation(rng.randint(0, 1), rng.randint(1, 3))
            elif rng.random() < 0.001:
                stats.forfeits += 1
                game.forfeit(rng.randint(0, 1), WinKind(rng.randint(1, 3)))
            else:
                before = len(game.log)
                game.roll(player)
                if any(a.kind == "play" and a.auto for a in game.log[before:]):
                    stats.dances += 1
        elif game.phase is Phase.PLAY:
            if rng.random() < 0.004:
                game.offer_resignation(rng.randint(0, 1), rng.randint(1, 3))
                continue
            plays = sorted(game.legal_plays(), key=lambda p: (p.position.board, p.position.bar, p.position.off))
            if rng.random() < 0.8:
                best = max(_blitz_score(p.position) for p in plays)
                plays = [p for p in plays if _blitz_score(p.position) == best]
            game.play(game.turn, rng.choice(plays))
        elif game.phase is Phase.DOUBLED:
            r = rng.random()
            if game.can_beaver(game.turn) and r < 0.2:
                stats.beavers += 1
                game.beaver(game.turn)
            elif r < 0.8:
                game.take(game.turn)
            else:
                stats.drops += 1
                game.drop(game.turn)
        elif game.phase is Phase.RESIGNATION:
            if rng.random() < 0.5:
                stats.resignations += 1
                game.accept_resignation(game.turn)
            else:
                stats.rejected += 1
                game.reject_resignation(game.turn)
    assert game.is_over, "a random game did not end"
    stats.games += 1
    assert game.result is not None
    stats.kinds[game.result.reason] = stats.kinds.get(game.result.reason, 0) + 1


def random_setup(rng: random.Random, score: tuple[int, int], cube_limit: int = 64) -> str:
    """A GNU Backgammon ID to set a money game up from: a position reached by
    random play, a random cube (centred at 1 or owned), player and phase."""
    for _ in range(100):
        game = Game(dice=SeededDice(rng.random()))
        play_out_partly(game, rng, rng.randint(4, 60))
        position = game.position
        if 15 in position.off or (position.is_closed_out() and position.swap().is_closed_out()):
            continue
        on_roll = rng.randint(0, 1)
        owner = rng.choice([None, None, 0, 1])
        cube = 1 if owner is None else rng.choice([2, 4, 8])
        r = rng.random()
        dice = (0, 0)
        doubled = False
        if r < 0.25:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
        elif r < 0.35 and owner in (None, on_roll) and cube * 2 <= cube_limit:
            doubled = True
        state = MatchState(
            cube=cube,
            cube_owner=owner,
            player_on_roll=on_roll,
            game_state=1,
            turn=1 - on_roll if doubled else on_roll,
            double_offered=doubled,
            dice=dice,
            score=score,
            jacoby=False,
        )
        return f"{position.position_id()}:{encode_match_id(state)}"
    raise AssertionError("no position to set up")


def play_out_partly(game: Game, rng: random.Random, plies: int) -> None:
    """Some plies of cubeless random play (for positions to set up from)."""
    game.opening_roll()
    for _ in range(plies):
        if game.is_over or game.position.off[0] > 10 or game.position.off[1] > 10:
            return
        if game.phase is Phase.ROLL:
            game.roll(game.turn)
        elif game.phase is Phase.PLAY:
            game.play(game.turn, rng.choice(game.legal_plays()))


@dataclass
class Sample:
    """One match or money session, ready for GNU Backgammon."""

    name: str
    games: list[Game]
    length: int
    settings: GameSettings
    text: str = ""

    @property
    def gnubg_options(self) -> dict:
        return {"jacoby": self.settings.jacoby, "beavers": self.settings.beavers, "cube": self.settings.cube}


def random_match(seed: int) -> Sample:
    """A match of 1 to 11 points, or (one in eight) a Hoyle rubber."""
    rng = random.Random(seed)
    if rng.random() < 0.125:
        settings = GameSettings.hoyle()
    else:
        settings = GameSettings(match_length=rng.choice([1, 2, 3, 3, 5, 5, 7, 9, 11]))
    match = Match(settings, dice=SeededDice(seed))
    stats = Stats()
    while not match.is_over:
        play_out(match.new_game(), rng, stats, cube_rate=rng.choice([0.03, 0.1]))
    return Sample(f"match{seed}", match.games, settings.match_length, settings)


def random_session(seed: int) -> Sample:
    """A money session of 1 to 4 games (Jacoby and beavers or not), some set up from a position."""
    rng = random.Random(seed)
    settings = GameSettings(jacoby=rng.random() < 0.5, beavers=rng.random() < 0.5)
    dice = SeededDice(seed)
    games: list[Game] = []
    score = (0, 0)
    stats = Stats()
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.3:
            game = Game.from_gnubg_id(random_setup(rng, score), settings, dice=dice)
        else:
            game = Game(settings, dice=dice, score=score)
        play_out(game, rng, stats, cube_rate=rng.choice([0.05, 0.15]))
        games.append(game)
        assert game.result is not None
        won = list(score)
        won[game.result.winner] += game.result.points
        score = (won[0], won[1])
    return Sample(f"session{seed}", games, 0, settings)


def session_stats(samples: list[Sample]) -> Stats:
    """What the samples hold, read back from their logs."""
    stats = Stats()
    for sample in samples:
        for game in sample.games:
            stats.games += 1
            assert game.result is not None
            stats.kinds[game.result.reason] = stats.kinds.get(game.result.reason, 0) + 1
            replay = Game(game.settings, score=game.score, crawford=game.crawford, starter=game.starter)
            for action in game.log:
                if action.kind == "roll" and replay.position.is_closed_out():
                    stats.closed_out_rolls += 1
                replay.apply(action)
                stats.doubles += action.kind == "double"
                stats.beavers += action.kind == "beaver"
                stats.drops += action.kind == "pass"
                stats.resignations += action.kind == "accept"
                stats.rejected += action.kind == "reject"
                stats.forfeits += action.kind == "forfeit"
                stats.setups += action.kind == "setup"
                stats.hits_first += action.kind == "throws_first"
                stats.opening_choices += action.kind == "use_opening"
                stats.dances += action.kind == "play" and action.auto
    return stats


# -- what GNU Backgammon should read back ------------------------------------------


PLAYERS = ("X", "O")
"""GNU Backgammon's names for players 0 and 1 in ``gnubg.match()``."""


@dataclass
class Expected:
    """One game as GNU Backgammon should read it back."""

    records: list[tuple]
    states: list[str | None]
    """Before each record, then at the end: ``PositionID:MatchID``, or None where not compared."""
    info: dict


def _with_dice(game: Game, dice: Roll) -> str:
    """The ID GNU Backgammon shows for a roll about to be played (our game
    plays a dance at once, so that state is made here)."""
    shown = copy.deepcopy(game)
    shown.dice = dice
    shown.phase = Phase.PLAY
    return shown.gnubg_id()


def _steps(play: Play) -> list[list[int]]:
    return sorted(([m.source, m.destination] for m in play.moves), reverse=True)


def expected_game(game: Game, *, first: bool = True) -> Expected:
    """The records, states and result GNU Backgammon should read from our .mat of ``game``."""
    replay = Game(game.settings, score=game.score, crawford=game.crawford, starter=game.starter)
    records: list[tuple] = []
    states: list[str | None] = []
    before_roll: Game | None = None  # the game before a roll not yet played
    rolled: tuple[int | None, Roll] | None = None
    play_state: str | None = None  # before the coming move record
    play_board: str | None = None
    resign_state: str | None = None
    dice_written = False
    for action in game.log:
        before = replay.gnubg_id()
        kind = action.kind
        if kind in ("roll", "use_opening"):
            before_roll = copy.deepcopy(replay)
        elif kind == "resign":
            resign_state = before
        offer = replay.opening_offer
        choice = (
            kind in ("accept", "forfeit")
            and replay.dice is not None
            and len(legal_plays(replay.position, replay.dice)) > 1
        )
        replay.apply(action)
        if kind == "roll" and action.dice is not None:
            rolled = (action.player, Roll(*action.dice))
            assert rolled is not None
            play_state = _with_dice(before_roll, rolled[1]) if before_roll is not None else None
            play_board = before_roll.position.position_id() if before_roll is not None else None
        elif kind == "use_opening" and offer is not None:
            rolled = (action.player, offer)
            play_state = replay.gnubg_id()
            play_board = replay.position.position_id()
        elif kind == "opening" and replay.dice is not None:
            rolled = (replay.player_on_roll, replay.dice)
            play_state = replay.gnubg_id()
            play_board = replay.position.position_id()
            before_roll = copy.deepcopy(replay)  # the winner on roll, the dice not yet shown
            before_roll.dice, before_roll.phase = None, Phase.ROLL
        elif kind == "setup":
            state = decode_match_id((action.text or "").split(":")[1])
            if state.dice != (0, 0):
                rolled = (state.player_on_roll, Roll(*state.dice))
                play_state = None  # compared from the first record on (module docstring)
                play_board = replay.position_for(state.player_on_roll).position_id()
            if replay.phase is Phase.DOUBLED:
                records.append(("double", 1 - replay.turn))
                states.append(None)
        if kind == "play":
            assert replay.last_play is not None and rolled is not None
            player, play = replay.last_play
            records.append(("move", player, (rolled[1].high, rolled[1].low), _steps(play), play_board))
            states.append(play_state)
            rolled = before_roll = None
        elif kind == "double":
            records.append(("double", action.player))
            states.append(before)
        elif kind == "take":
            records.append(("take", action.player))
            states.append(before)
        elif kind == "beaver":
            # Read back as a redouble, then a take inferred at the next roll.
            records.append(("double", action.player))
            states.append(before)
            assert action.player is not None
            records.append(("take", 1 - action.player))
            states.append(None)
        elif kind == "pass":
            records.append(("drop", action.player))
            states.append(before)
        elif kind in ("accept", "forfeit"):
            assert replay.result is not None
            loser = 1 - replay.result.winner
            start = resign_state if kind == "accept" else before
            if rolled is not None and choice and before_roll is not None:
                records.append(("dice", rolled[0], (rolled[1].high, rolled[1].low)))
                states.append(before_roll.gnubg_id())
                dice_written = True
            elif rolled is not None and before_roll is not None:
                start = before_roll.gnubg_id()  # a forced play: its dice are not written
            records.append(("resign", loser, int(replay.result.kind)))
            states.append(start)
    end = replay.gnubg_id()
    if replay.unplayed_dice is not None and not dice_written:
        end = _without_dice(end)  # the .mat could not carry them
    states.append(end)
    if first and states[0] is not None:
        # A match's first state shows no dice: GNU Backgammon sets them when navigating.
        states[0] = _without_dice(states[0])
    result = replay.result
    info = {
        "score-X": game.score[0],
        "score-O": game.score[1],
        "winner": PLAYERS[result.winner] if result else None,
        "points-won": result.points if result else None,
    }
    if [r[0] for r in records] == ["resign"] and game.log[0].kind != "setup":
        # Resigned before any dice of the game were shown (after an opening
        # that only says who starts): GNU Backgammon's reader ignores a "Wins"
        # with no record before it (a "; Set Pos=" line is one). The .mat cannot say it.
        return Expected([], [None], {**info, "winner": None, "points-won": None})
    return Expected(records, states, info)


def _without_dice(gnubg_id: str) -> str:
    position_id, match_id = gnubg_id.split(":")
    state = decode_match_id(match_id)
    return f"{position_id}:{encode_match_id(MatchState(**{**vars_of(state), 'dice': (0, 0)}))}"


def gnubg_records(records: list[dict]) -> tuple[list[tuple], list[int]]:
    """GNU Backgammon's records in our shape, and the indexes of its ``set`` records for a set-up."""
    shaped: list[tuple] = []
    setup: list[int] = []
    for index, record in enumerate(records):
        action = record["action"]
        player = PLAYERS.index(record["player"]) if "player" in record else None
        if action == "move":
            dice = tuple(sorted(record["dice"], reverse=True))
            steps = sorted((list(step) for step in record["move"]), reverse=True)
            shaped.append(("move", player, dice, steps, record.get("board")))
        elif action == "set" and "dice" in record:
            shaped.append(("dice", player, tuple(sorted(record["dice"], reverse=True))))
        elif action == "set":
            setup.append(index)
        elif action == "resign":
            shaped.append(("resign", player, record["points"]))
        else:
            shaped.append((action, player))
    return shaped, setup


def _capped(match_id: str) -> str:
    """GNU Backgammon's game-over Match ID with the score stopped at the match length."""
    state = _raw_match_state(match_id)
    if state.match_length and max(state.score) > state.match_length:
        score = tuple(min(s, state.match_length) for s in state.score)
        state = MatchState(**{**vars_of(state), "score": score})
    return encode_match_id(state)


def vars_of(state: MatchState) -> dict:
    return {name: getattr(state, name) for name in MatchState.__dataclass_fields__}


def _raw_match_state(match_id: str) -> MatchState:
    """Decode even a score past the length (GNU Backgammon writes such IDs)."""
    try:
        return decode_match_id(match_id)
    except ValueError:
        import base64

        from engine.gnubgid import _FIELDS
        from engine.position import bytes_to_bits

        bits = bytes_to_bits(base64.b64decode(match_id))
        values, offset = {}, 0
        for name, width in _FIELDS:
            values[name] = sum(bits[offset + k] << k for k in range(width))
            offset += width
        return MatchState(
            cube=1 << values["cube_log"],
            cube_owner=values["owner"] if values["owner"] < 2 else None,
            player_on_roll=values["move"],
            crawford=bool(values["crawford"]),
            game_state=values["state"],
            turn=values["turn"],
            double_offered=bool(values["doubled"]),
            resignation=values["resign"],
            dice=(values["die1"], values["die2"]),
            match_length=values["length"],
            score=(values["score0"], values["score1"]),
            jacoby=not values["no_jacoby"],
        )


def compare_game(expected: Expected, seen: dict, where: str) -> Iterator[str]:
    """Every difference between our game and GNU Backgammon's reading of it."""
    records, setup = gnubg_records(seen["records"])
    ours = expected.records
    if setup:
        # gnubg.match() reports the boards of a set-up game one record late;
        # the positions navigated to (the states) are right and compared.
        records = [(*r[:4], None) if r[0] == "move" else r for r in records]
        ours = [(*r[:4], None) if r[0] == "move" else r for r in ours]
    states = [state for index, state in enumerate(seen["states"]) if index - 1 not in setup]
    if records != ours:
        for index, (mine, theirs) in enumerate(zip(ours, records)):
            if mine != theirs:
                yield f"{where} record {index}: ours {mine}, gnubg {theirs}"
                break
        else:
            yield f"{where}: {len(ours)} records ours, {len(records)} gnubg's"
        return
    info = {key: seen["info"].get(key) for key in expected.info}
    if info != expected.info:
        yield f"{where} result: ours {expected.info}, gnubg {info}"
    for index, (our_state, (position_id, match_id)) in enumerate(zip(expected.states, states)):
        if our_state is None or (setup and index == 0):
            continue  # not comparable (see the module's docstring)
        final = index == len(states) - 1
        their_state = f"{position_id}:{_capped(match_id) if final else match_id}"
        if final and our_state != their_state:
            # Once the game is over GNU Backgammon's board is seen from the
            # player to act, ours from the player on roll (after a drop they differ).
            swapped = Position.from_position_id(position_id).swap().position_id()
            their_state = f"{swapped}:{_capped(match_id)}"
        if our_state != their_state:
            yield f"{where} state {index} (before {_name(expected.records, index)}): ours {our_state}, gnubg {their_state}"
            return


def _name(records: list[tuple], index: int) -> str:
    return str(records[index]) if index < len(records) else "the end"


def compare_sample(sample: Sample, seen: dict) -> list[str]:
    if "error" in seen:
        return [f"{sample.name}: {seen['error']}"]
    if len(seen["games"]) != len(sample.games):
        return [f"{sample.name}: {len(sample.games)} games ours, {len(seen['games'])} gnubg's"]
    differences: list[str] = []
    for number, (game, theirs) in enumerate(zip(sample.games, seen["games"]), start=1):
        differences += compare_game(expected_game(game, first=number == 1), theirs, f"{sample.name} game {number}")
    return differences


# -- notation both ways ---------------------------------------------------------------


@dataclass
class NotationCase:
    position: Position
    roll: Roll
    plays: list[Play]

    def texts(self) -> list[str]:
        """Each play's canonical spelling, then the same with counts after a
        space and FIBS dashes (GNU Backgammon reads ``-`` as ``/``)."""
        canonical = [format_play(play) for play in self.plays]
        variants = [text.replace("(", " (").replace("/", "-") for text in canonical if "(" in text]
        return [text for text in canonical + variants if text]

    def job(self) -> dict:
        return {
            "position_id": self.position.position_id(),
            "texts": self.texts(),
            "moves": [[[m.source, m.destination] for m in play.moves] for play in self.plays if play.moves],
        }


def notation_cases(samples: list[Sample], every: int = 5) -> list[NotationCase]:
    """The positions and dice of every ``every``-th play of the samples' games, with their legal plays."""
    cases: list[NotationCase] = []
    count = 0
    for sample in samples:
        for game in sample.games:
            replay = Game(game.settings, score=game.score, crawford=game.crawford, starter=game.starter)
            for action in game.log:
                if replay.phase is Phase.PLAY and action.kind == "play" and not action.auto:
                    count += 1
                    if count % every == 0 and replay.dice is not None:
                        cases.append(NotationCase(replay.position, replay.dice, list(replay.legal_plays())))
                replay.apply(action)
    return cases


def compare_notation(case: NotationCase, seen: dict) -> Iterator[str]:
    """GNU Backgammon writes each play as we do, we read its text back to the
    same play, and it reads each of our spellings into the same moves."""
    where = f"{case.position.position_id()} {case.roll}"
    plays = [play for play in case.plays if play.moves]
    for play, written in zip(plays, seen["written"]):
        if written != format_play(play):
            yield f"{where}: gnubg writes {written!r}, we write {format_play(play)!r}"
        elif parse_play(case.position, case.roll, written) != play:
            yield f"{where}: we read gnubg's {written!r} as another play"
    for text, parsed in zip(case.texts(), seen["parsed"]):
        ours = sorted([source, destination] for source, destination, _ in parse_moves(text))
        if parsed is None or sorted(parsed) != ours:
            yield f"{where}: gnubg reads {text!r} as {parsed}, we read {ours}"


def write_samples(samples: list[Sample], folder: Path) -> list[dict]:
    """Export each sample to a .mat file; the job entries for GNU Backgammon."""
    cases = []
    for sample in samples:
        sample.text = export_games(sample.games, ("alice", "bob"), match_length=sample.length)
        path = folder / f"{sample.name}.mat"
        path.write_text(sample.text)
        cases.append({"path": str(path), **sample.gnubg_options})
    return cases
