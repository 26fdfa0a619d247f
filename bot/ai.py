"""The computer opponent's brain and the analysis behind ``/bg hint``.

Two engines from PyPI do the thinking; this module only translates:

* **gnubg-nn** (GNU Backgammon's neural nets) ranks checker plays at 0, 1 or
  2 ply and evaluates positions (win, gammon and backgammon chances);
* **bgsage** answers cube decisions (double? take? beaver?) for money games
  and matches alike.

Nothing here trusts an engine's move tuple: every answer is mapped back to
one of *our* engine's legal plays by the position it leads to. Only
positions our engine built (and so validated) are handed to gnubg-nn.

Both engines are optional. They are imported lazily; :func:`available` says
whether they can be used, and every call raises :class:`AnalysisUnavailable`
(whose message is :data:`UNAVAILABLE_MESSAGE`) when they cannot, so the bot
still runs without them.

Blocking work runs off the event loop: the ``a*`` coroutines of
:class:`Analyst` use a thread for the cheap levels and a process pool (one
worker, created on first use, closed by :meth:`Analyst.close`) for the
expert level, whose 2-ply search holds the GIL.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import multiprocessing
import os
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine import Game, Phase, Play, Position, Roll, WinKind, format_play, legal_plays
from engine.notation import match_play

log = logging.getLogger(__name__)

UNAVAILABLE_MESSAGE = "analysis is not available on this server"

BLUNDER_THRESHOLD = 0.08
"""Equity lost (cubeless, per cube) above which a decision counts as a blunder."""

BEGINNER_NOISE = 0.25
"""Standard deviation of the noise added to each play's equity at the beginner level."""

# bgsage would otherwise start a thread per core for its multi-ply work.
os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")


class AnalysisUnavailable(RuntimeError):
    """The engines (gnubg-nn, bgsage) are not installed on this server."""

    def __init__(self, message: str = UNAVAILABLE_MESSAGE) -> None:
        super().__init__(message)
        self.message = message


class EngineMismatch(RuntimeError):
    """An engine answered with a position none of our legal plays reaches."""


# -- lazy engine loading ------------------------------------------------------------

_engine_lock = threading.Lock()
_engines: dict[str, Any] = {}
_sage_analyzers: dict[str, Any] = {}


def _import(name: str) -> Any:
    with _engine_lock:
        if name not in _engines:
            try:
                if name == "gnubg_nn":
                    import gnubg_nn as module
                else:
                    import bgsage as module
            except Exception as error:  # ImportError, or a broken native build
                log.warning("%s cannot be loaded: %s", name, error)
                _engines[name] = None
            else:
                _engines[name] = module
        module = _engines[name]
    if module is None:
        raise AnalysisUnavailable()
    return module


def _gnubg() -> Any:
    return _import("gnubg_nn")


def _sage(level: str) -> Any:
    """A bgsage analyzer at ``level`` (``1ply`` .. ``4ply``), one thread, cached."""
    bgsage = _import("bgsage")
    with _engine_lock:
        analyzer = _sage_analyzers.get(level)
        if analyzer is None:
            analyzer = _sage_analyzers[level] = bgsage.create_analyzer(level, parallel_threads=1)
        return analyzer


def available() -> bool:
    """Whether both engines can be used on this server."""
    try:
        _gnubg()
        _import("bgsage")
    except AnalysisUnavailable:
        return False
    return True


def _reset_engines_for_tests() -> None:
    with _engine_lock:
        _engines.clear()
        _sage_analyzers.clear()


# -- levels ---------------------------------------------------------------------------


class Level(str, enum.Enum):
    """How strong the computer plays."""

    BEGINNER = "beginner"
    """0-ply with noise: picks among the better plays, not always the best; 0-ply cube."""
    INTERMEDIATE = "intermediate"
    """1-ply best play, 1-ply (bgsage) cube."""
    EXPERT = "expert"
    """2-ply best play, 2-ply (bgsage) cube: the strongest setting under 0.5 s a decision here."""

    @classmethod
    def parse(cls, value: Level | str | None) -> Level:
        if value is None:
            return DEFAULT_LEVEL
        if isinstance(value, Level):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(f"the level is beginner, intermediate or expert, not {value!r}") from None


@dataclass(frozen=True, slots=True)
class LevelSpec:
    checker_ply: int
    """gnubg-nn ply for checker play."""
    noise: float
    """Standard deviation of the noise added to play equities (0 = always the best)."""
    cube: str
    """bgsage evaluation level for cube decisions."""
    in_process_pool: bool
    """Whether the asynchronous calls go to the process pool (else a thread)."""


LEVELS: dict[Level, LevelSpec] = {
    Level.BEGINNER: LevelSpec(checker_ply=0, noise=BEGINNER_NOISE, cube="0ply", in_process_pool=False),
    Level.INTERMEDIATE: LevelSpec(checker_ply=1, noise=0.0, cube="1ply", in_process_pool=False),
    Level.EXPERT: LevelSpec(checker_ply=2, noise=0.0, cube="2ply", in_process_pool=True),
}
DEFAULT_LEVEL = Level.EXPERT
FAST_LEVEL = Level.BEGINNER


def _level_spec(level: Level | str | int | None) -> LevelSpec:
    """A level name, or a bare ply number (0, 1, 2) for checker play without noise."""
    if isinstance(level, int) and not isinstance(level, bool):
        if level not in (0, 1, 2):
            raise ValueError("the ply is 0, 1 or 2")
        return LevelSpec(checker_ply=level, noise=0.0, cube=("0ply", "1ply", "2ply")[level],
                         in_process_pool=level >= 2)
    return LEVELS[Level.parse(level)]


# -- values ---------------------------------------------------------------------------


class Candidate(NamedTuple):
    """A legal play and its equity (cubeless, money, from the mover's side)."""

    play: Play
    equity: float

    @property
    def text(self) -> str:
        return format_play(self.play)


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Outcome chances for the player on roll (gammons include backgammons)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float
    """Cubeless money equity: 2*win - 1 + win_gammon + win_backgammon - lose_gammon - lose_backgammon."""

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    @classmethod
    def from_tuple(cls, probs: tuple[float, ...] | list[float]) -> Probabilities:
        w, wg, wb, lg, lb = (float(x) for x in probs[:5])
        return cls(w, wg, wb, lg, lb, _equity((w, wg, wb, lg, lb)))

    def flipped(self) -> Probabilities:
        """The same chances seen from the other side."""
        return Probabilities.from_tuple(
            (1.0 - self.win, self.lose_gammon, self.lose_backgammon, self.win_gammon, self.win_backgammon)
        )


@dataclass(frozen=True, slots=True)
class CubeState:
    """Everything a cube decision depends on, from the side of the player on roll (the doubler)."""

    position: Position
    cube_value: int = 1
    owner: str = "centered"
    """``centered``, ``player`` (the player on roll owns it) or ``opponent``."""
    away: tuple[int, int] = (0, 0)
    """Points the player on roll and the opponent still need (0, 0 for money)."""
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    @classmethod
    def from_game(cls, game: Game) -> CubeState:
        roller = game.player_on_roll
        if game.cube_owner is None:
            owner = "centered"
        else:
            owner = "player" if game.cube_owner == roller else "opponent"
        away = (0, 0)
        if not game.is_money:
            n = game.settings.match_length
            away = (max(n - game.score[roller], 1), max(n - game.score[1 - roller], 1))
        return cls(
            position=game.position,
            cube_value=game.cube_value,
            owner=owner,
            away=away,
            crawford=game.crawford,
            jacoby=game.is_money and game.settings.jacoby,
            beavers=game.is_money and game.settings.beavers,
        )


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """A cube decision. Equities are cubeful, per unit of the current cube, for the doubler."""

    double: bool
    """The player on roll should double."""
    take: bool
    """The doubled player should take (if doubled)."""
    beaver: bool
    """The doubled player should beaver (money, beavers allowed)."""
    too_good: bool
    """Not doubling because playing on for a gammon is worth more than the cube."""
    no_double: float
    double_take: float
    double_pass: float
    action: str
    """bgsage's summary: ``No Double``, ``Double/Take``, ``Double/Pass``, ``Double/Beaver``."""
    probabilities: Probabilities
    level: str

    @property
    def best_equity(self) -> float:
        return max(self.no_double, min(self.double_take, self.double_pass)) if not self.too_good else self.no_double


@dataclass(frozen=True, slots=True)
class Mistake:
    """One decision where a player lost equity."""

    player: int
    turn: int
    """1-based index of the player's turn in the game."""
    kind: str
    """``checker``, ``double`` (doubled wrongly or missed a double), ``take`` or ``pass``."""
    dice: tuple[int, int] | None
    played: str
    best: str
    equity_lost: float
    position_id: str

    def describe(self) -> str:
        roll = f" {max(self.dice)}-{min(self.dice)}" if self.dice else ""
        return f"turn {self.turn}{roll}: played {self.played}, better {self.best} (-{self.equity_lost:.3f})"


@dataclass
class PlayerAnalysis:
    player: int
    checker_decisions: int = 0
    cube_decisions: int = 0
    equity_lost: float = 0.0
    luck: float = 0.0
    """Sum over this player's rolls of (best equity with the roll - average over all rolls)."""
    mistakes: list[Mistake] = field(default_factory=list)
    blunders: list[Mistake] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions

    @property
    def error_rate(self) -> float:
        """Equity lost per decision, in millipoints (GNU Backgammon's scale)."""
        return 1000.0 * self.equity_lost / self.decisions if self.decisions else 0.0

    @property
    def rating(self) -> str:
        """GNU Backgammon's words for an error rate."""
        rate = self.error_rate
        for limit, word in ((2, "supernatural"), (5, "world class"), (8, "expert"), (12, "advanced"),
                            (18, "intermediate"), (26, "casual player"), (35, "beginner")):
            if rate < limit:
                return word
        return "awful!"


@dataclass
class GameAnalysis:
    players: tuple[PlayerAnalysis, PlayerAnalysis]
    ply: int

    @property
    def blunders(self) -> list[Mistake]:
        return sorted((m for p in self.players for m in p.blunders), key=lambda m: (m.turn, m.player))

    def summary(self, names: tuple[str, str] = ("player 0", "player 1")) -> str:
        lines = []
        for p in self.players:
            lines.append(
                f"{names[p.player]}: {p.decisions} decisions, error rate {p.error_rate:.1f} "
                f"({p.rating}), equity lost {p.equity_lost:.3f}, luck {p.luck:+.3f}, "
                f"{len(p.blunders)} blunder{'s' if len(p.blunders) != 1 else ''}"
            )
            for b in p.blunders:
                lines.append(f"  {b.describe()}")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Hint:
    """What the engines advise for the player to act in a game."""

    phase: str
    plays: list[Candidate] = field(default_factory=list)
    cube: CubeAdvice | None = None

    def lines(self) -> list[str]:
        if self.plays:
            best = self.plays[0].equity
            return [
                f"{i}. {c.text}  {c.equity:+.3f}" + ("" if i == 1 else f" ({c.equity - best:+.3f})")
                for i, c in enumerate(self.plays, start=1)
            ]
        if self.cube is not None:
            c = self.cube
            if self.phase == "doubled":
                verdict = "beaver" if c.beaver else ("take" if c.take else "pass")
            else:
                verdict = "too good to double, play on" if c.too_good else ("double" if c.double else "no double, roll")
            p = c.probabilities
            return [
                f"{verdict}: no double {c.no_double:+.3f}, double/take {c.double_take:+.3f}, "
                f"double/pass {c.double_pass:+.3f}",
                f"win {100 * p.win:.1f}% (gammon {100 * p.win_gammon:.1f}%), "
                f"lose gammon {100 * p.lose_gammon:.1f}%",
            ]
        return []


# -- conversions ----------------------------------------------------------------------


def _equity(probs: tuple[float, ...] | list[float]) -> float:
    w, wg, wb, lg, lb = probs[:5]
    return 2.0 * w - 1.0 + wg + wb - lg - lb


def gnubg_board(position: Position) -> list[list[int]]:
    """gnubg-nn's board: ``[side not on roll, side on roll]``, 25 counts each (24 = bar)."""
    return [position.side_counts(on_roll=False), position.side_counts(on_roll=True)]


def sage_board(position: Position) -> list[int]:
    """bgsage's 26-element board from the mover's side: points 1-24 signed (+ ours),
    25 = our bar, 0 = their bar (a positive count, as bgsage writes it after a hit)."""
    return [position.bar[1], *position.board, position.bar[0]]


def _is_over(position: Position) -> bool:
    return position.off[0] == 15 or position.off[1] == 15


# -- engine calls (module level, so the process pool can run them) --------------------


def _rank(position: Position, roll: Roll, ply: int) -> list[tuple[str, float]]:
    """gnubg-nn's ranked list: (position key after the play, equity for the mover)."""
    g = _gnubg()
    result = g.best_move(gnubg_board(position), roll.die1, roll.die2, n=ply, list=1)
    return [(entry[0], float(entry[3])) for entry in result[1]]


def _probabilities(position: Position, ply: int) -> tuple[float, ...]:
    g = _gnubg()
    return tuple(g.probabilities(gnubg_board(position), ply))


def _cube(state: CubeState, level: str) -> dict[str, Any]:
    if level == "0ply" and state.away == (0, 0):
        return _quick_cube(state)
    analyzer = _sage("1ply" if level == "0ply" else level)
    result = analyzer.cube_action(
        sage_board(state.position),
        state.cube_value,
        state.owner,
        away1=state.away[0],
        away2=state.away[1],
        is_crawford=state.crawford,
        jacoby=state.jacoby,
        beaver=state.beavers,
    )
    p = result.probs
    return {
        "probs": (p.win, p.gammon_win, p.backgammon_win, p.gammon_loss, p.backgammon_loss),
        "nd": float(result.equity_nd),
        "dt": float(result.equity_dt),
        "dp": float(result.equity_dp),
        "double": bool(result.should_double),
        "take": bool(result.should_take),
        "beaver": bool(result.is_beaver),
        "action": str(result.optimal_action),
        "level": str(result.eval_level),
    }


def _quick_cube(state: CubeState) -> dict[str, Any]:
    """Money cube from gnubg-nn's 0-ply chances and bgsage's Janowski conversion
    (about a millisecond, against 50-100 ms for bgsage's own 1-ply cube)."""
    _import("bgsage")
    import bgbot_cpp  # bgsage's native module

    board = sage_board(state.position)
    probs = list(_probabilities(state.position, 0))
    ours, theirs = state.position.pip_counts()
    x = bgbot_cpp.cube_efficiency(probs, bool(bgbot_cpp.is_race(board)), ours, theirs)
    owner = {"centered": bgbot_cpp.CubeOwner.CENTERED, "player": bgbot_cpp.CubeOwner.PLAYER,
             "opponent": bgbot_cpp.CubeOwner.OPPONENT}[state.owner]
    nd = bgbot_cpp.cl2cf_money(probs, owner, x, jacoby_active=state.jacoby and state.owner == "centered")
    dt = 2.0 * bgbot_cpp.cl2cf_money(probs, bgbot_cpp.CubeOwner.OPPONENT, x, jacoby_active=False)
    dp = 1.0
    double = state.owner != "opponent" and min(dt, dp) > nd
    take = dt <= dp
    beaver = state.beavers and take and dt < 0
    return {
        "probs": tuple(probs), "nd": nd, "dt": dt, "dp": dp, "double": double, "take": take,
        "beaver": beaver,
        "action": "No Double" if not double else ("Double/Beaver" if beaver else ("Double/Take" if take else "Double/Pass")),
        "level": "0-ply",
    }


def _warm_up() -> bool:
    _gnubg()
    _sage("2ply")
    return True


def _lower_priority(parent: int) -> None:
    """Worker initializer: analysis yields the CPU to the bot's own work, and
    the worker dies with the bot (a bot killed outright leaves no orphans)."""
    try:
        os.nice(19)
    except OSError:
        pass
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """Worker initializer (``initargs=(os.getpid(),)``): the worker ends when the
    bot process ``parent`` dies, however it dies, even before the worker started."""
    if os.getppid() != parent:
        os._exit(0)
    try:  # Linux: the kernel sends SIGTERM when the parent exits
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        # Belt and braces (other systems, or a signal that never came): an
        # orphan is re-parented, so a changed parent id means the bot is gone.
        while True:
            time.sleep(2.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


_worker_analyst: Analyst | None = None


def _analyse_in_worker(game: Game, ply: int) -> GameAnalysis:
    """Whole-game analysis in a worker process (one Analyst per worker)."""
    global _worker_analyst
    if _worker_analyst is None:
        _worker_analyst = Analyst()
    return _worker_analyst.analyse_game(game, ply=ply)


# -- the analyst ----------------------------------------------------------------------


class Analyst:
    """Checker play, cube decisions, evaluation and game analysis behind one small interface.

    :param rng: where the beginner's noise comes from (inject a seeded
        ``random.Random`` for reproducible games).
    :param pool_workers: processes for the expert level's asynchronous calls.
    """

    def __init__(self, *, rng: random.Random | None = None, pool_workers: int = 1) -> None:
        self.rng = rng or random.Random()
        self._pool_workers = max(1, min(pool_workers, 2))
        self._pool: ProcessPoolExecutor | None = None
        self._analysis_pool: ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @staticmethod
    def available() -> bool:
        return available()

    # -- checker play ------------------------------------------------------------------

    def best_plays(
        self, position: Position, roll: Roll, *, level: Level | str | int = DEFAULT_LEVEL, n: int = 3
    ) -> list[Candidate]:
        """The ``n`` best legal plays, best first, by gnubg-nn at the level's ply (no noise)."""
        spec = _level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return [Candidate(plays[0], self._play_equity(plays[0], 0))]
        return self._map(plays, _rank(position, roll, spec.checker_ply))[: max(n, 1)]

    def choose_play(
        self, position: Position, roll: Roll, *, level: Level | str | int = DEFAULT_LEVEL,
        rng: random.Random | None = None,
    ) -> Play:
        """The play the computer makes at ``level`` (the beginner's choice is noisy)."""
        spec = _level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return plays[0]
        ranked = self._map(plays, _rank(position, roll, spec.checker_ply))
        return self._pick(ranked, spec, rng)

    def _pick(self, ranked: list[Candidate], spec: LevelSpec, rng: random.Random | None) -> Play:
        if spec.noise <= 0 or len(ranked) == 1:
            return ranked[0].play
        rng = rng or self.rng
        noisy = [(c.equity + rng.gauss(0.0, spec.noise), i) for i, c in enumerate(ranked)]
        return ranked[max(noisy)[1]].play

    def _map(self, plays: list[Play], ranked: list[tuple[str, float]]) -> list[Candidate]:
        g = _gnubg()
        # gnubg-nn keys the position after the play with the opponent on roll.
        by_key = {g.key_of_board(gnubg_board(play.position.swap())): play for play in plays}
        out: list[Candidate] = []
        for key, equity in ranked:
            play = by_key.get(key)
            if play is None:
                raise EngineMismatch(f"gnubg-nn proposed a position no legal play reaches ({key})")
            out.append(Candidate(play, equity))
        if not out:
            raise EngineMismatch("gnubg-nn proposed no play")
        return out

    def _play_equity(self, play: Play, ply: int) -> float:
        """Equity for the mover after ``play``, evaluating the opponent's pre-roll position."""
        after = play.position
        if after.off[0] == 15:
            return float(self._result_points(after))
        return -_equity(_probabilities(after.swap(), ply))

    @staticmethod
    def _result_points(after: Position) -> int:
        """Cubeless points the mover wins by bearing off the last checker."""
        opponent = after.swap()
        if opponent.off[0] > 0:
            return 1
        if opponent.bar[0] > 0 or any(n > 0 for n in opponent.board[18:]):
            return 3
        return 2

    def play_equities(self, position: Position, roll: Roll, *, ply: int = 0) -> list[Candidate]:
        """Every legal play with its equity at ``ply``, best first."""
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return [Candidate(plays[0], self._play_equity(plays[0], ply))]
        ranked = self._map(plays, _rank(position, roll, ply))
        if len(ranked) < len(plays):  # gnubg prunes at 1+ ply: evaluate the rest ourselves
            seen = {c.play for c in ranked}
            extra = [Candidate(p, self._play_equity(p, ply)) for p in plays if p not in seen]
            ranked = sorted(ranked + extra, key=lambda c: -c.equity)
        return ranked

    # -- evaluation --------------------------------------------------------------------

    def evaluate(self, position: Position, *, ply: int = 0) -> Probabilities:
        """Cubeless chances for the player on roll, about to roll."""
        if position.off[0] == 15:
            kind = self._result_points(position)
            return Probabilities.from_tuple((1.0, float(kind >= 2), float(kind >= 3), 0.0, 0.0))
        if position.off[1] == 15:
            kind = self._result_points(position.swap())
            return Probabilities.from_tuple((0.0, 0.0, 0.0, float(kind >= 2), float(kind >= 3)))
        return Probabilities.from_tuple(_probabilities(position, ply))

    # -- the cube ----------------------------------------------------------------------

    def cube_action(self, game_or_state: Game | CubeState, *, level: Level | str | int = DEFAULT_LEVEL) -> CubeAdvice:
        """Should the player on roll double, and should the doubled player take?

        A :class:`Game` in phase ROLL or DOUBLED (the position is the doubler's),
        or a :class:`CubeState`.
        """
        state = game_or_state if isinstance(game_or_state, CubeState) else CubeState.from_game(game_or_state)
        spec = _level_spec(level)
        return self._advice(_cube(state, spec.cube))

    @staticmethod
    def _advice(raw: dict[str, Any]) -> CubeAdvice:
        nd, dt, dp = raw["nd"], raw["dt"], raw["dp"]
        too_good = not raw["double"] and nd >= dp
        return CubeAdvice(
            double=raw["double"],
            take=raw["take"],
            beaver=raw["beaver"] and raw["take"],
            too_good=too_good,
            no_double=nd,
            double_take=dt,
            double_pass=dp,
            action=raw["action"],
            probabilities=Probabilities.from_tuple(raw["probs"]),
            level=raw["level"],
        )

    def resignation_verdict(self, game: Game, player: int) -> bool:
        """Whether ``player`` should accept the resignation offered to them."""
        assert game.resignation is not None
        _, level = game.resignation
        offered = game.points_for(WinKind(level))
        return offered >= self.expected_points(game, player) - 1e-9

    def expected_points(self, game: Game, player: int) -> float:
        """What ``player`` expects to win (net of losses) by playing on: cubeless, at the cube's value, 0-ply."""
        on_roll = game.player_on_roll
        if game.phase is Phase.PLAY or (game.phase is Phase.RESIGNATION and game.dice is not None):
            # The dice are out: value the best play of them.
            assert game.dice is not None
            best = self.play_equities(game.position, game.dice, ply=0)[0]
            probs = self.evaluate(best.play.position.swap()).flipped()
        else:
            probs = self.evaluate(game.position)
        if player != on_roll:
            probs = probs.flipped()
        single = game.points_for(WinKind.SINGLE)
        gammon = game.points_for(WinKind.GAMMON)
        backgammon = game.points_for(WinKind.BACKGAMMON)
        win = (probs.win - probs.win_gammon) * single + (probs.win_gammon - probs.win_backgammon) * gammon \
            + probs.win_backgammon * backgammon
        loss = (probs.lose - probs.lose_gammon) * single + (probs.lose_gammon - probs.lose_backgammon) * gammon \
            + probs.lose_backgammon * backgammon
        return win - loss

    # -- hints -------------------------------------------------------------------------

    def hint(self, game: Game, *, level: Level | str | int = DEFAULT_LEVEL, n: int = 3) -> Hint:
        """Advice for whoever must act now: plays to consider, or the cube."""
        if game.phase is Phase.PLAY and game.dice is not None:
            return Hint("play", plays=self.best_plays(game.position, game.dice, level=level, n=n))
        if game.phase is Phase.ROLL:
            return Hint("roll", cube=self.cube_action(game, level=level))
        if game.phase is Phase.DOUBLED:
            return Hint("doubled", cube=self.cube_action(game, level=level))
        return Hint(game.phase.value)

    # -- game analysis -----------------------------------------------------------------

    def analyse_game(
        self, game: Game, *, ply: int = 0, cube_level: str = "1ply",
        blunder_threshold: float = BLUNDER_THRESHOLD,
    ) -> GameAnalysis:
        """Replay ``game``'s log and grade every decision of both players.

        Checker plays are graded with gnubg-nn at ``ply``, cube decisions
        with bgsage at ``cube_level``; luck is measured at 0-ply.
        """
        players = (PlayerAnalysis(0), PlayerAnalysis(1))
        replay = Game(game.settings, score=game.score, crawford=game.crawford)
        turns = [0, 0]
        for action in game.log:
            kind, who = action.kind, action.player
            if kind == "roll" and who is not None and not action.auto:
                if replay.can_double(who):
                    self._grade_no_double(replay, players[who], turns[who] + 1, blunder_threshold, cube_level)
                before = replay.position
                replay.apply(action)
                turns[who] += 1
                if action.dice:
                    players[who].luck += self._luck(before, Roll(*action.dice))
                continue
            if kind == "opening":
                replay.apply(action)
                if replay.phase is Phase.PLAY and replay.dice is not None:
                    starter = replay.player_on_roll
                    turns[starter] += 1
                    players[starter].luck += self._luck(replay.position, replay.dice, opening=True)
                continue
            if kind == "play" and not action.auto and who is not None and replay.dice is not None:
                self._grade_play(replay, action.text or "", players[who], turns[who], ply, blunder_threshold)
                replay.apply(action)
                continue
            if kind == "double" and who is not None:
                self._grade_double(replay, players[who], turns[who] + 1, blunder_threshold, cube_level)
            elif kind in ("take", "pass", "beaver") and who is not None:
                self._grade_answer(replay, kind, players[who], turns[1 - who] + 1, blunder_threshold, cube_level)
            replay.apply(action)
        return GameAnalysis(players, ply)

    def _luck(self, position: Position, dice: Roll, *, opening: bool = False) -> float:
        if _is_over(position):
            return 0.0
        values: dict[tuple[int, int], float] = {}
        total = weight = 0.0
        for high in range(1, 7):
            for low in range(1, high + 1):
                if opening and high == low:
                    continue
                value = self._best_value(position, Roll(high, low))
                values[(high, low)] = value
                w = 1.0 if high == low else 2.0
                total += w * value
                weight += w
        return values[(dice.high, dice.low)] - total / weight

    def _best_value(self, position: Position, roll: Roll) -> float:
        return self.play_equities(position, roll, ply=0)[0].equity

    def _grade_play(
        self, replay: Game, text: str, analysis: PlayerAnalysis, turn: int, ply: int, threshold: float
    ) -> None:
        plays = replay.legal_plays()
        if len(plays) <= 1:
            return
        assert replay.dice is not None
        chosen = match_play(replay.position, replay.dice, text, plays)
        ranked = self.play_equities(replay.position, replay.dice, ply=ply)
        best = ranked[0]
        played = next(c for c in ranked if c.play == chosen)
        lost = max(best.equity - played.equity, 0.0)
        analysis.checker_decisions += 1
        analysis.equity_lost += lost
        if lost > 1e-6:
            mistake = Mistake(
                player=analysis.player, turn=turn, kind="checker",
                dice=(replay.dice.die1, replay.dice.die2), played=format_play(chosen), best=best.text,
                equity_lost=lost, position_id=replay.position.position_id(),
            )
            analysis.mistakes.append(mistake)
            if lost > threshold:
                analysis.blunders.append(mistake)

    def _record_cube(
        self, analysis: PlayerAnalysis, replay: Game, turn: int, kind: str, played: str, best: str,
        lost: float, threshold: float,
    ) -> None:
        analysis.cube_decisions += 1
        analysis.equity_lost += lost
        if lost > 1e-6:
            mistake = Mistake(analysis.player, turn, kind, None, played, best, lost, replay.position.position_id())
            analysis.mistakes.append(mistake)
            if lost > threshold:
                analysis.blunders.append(mistake)

    def _grade_no_double(self, replay: Game, analysis: PlayerAnalysis, turn: int, threshold: float,
                         level: str) -> None:
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        if advice.double:  # only a missed double counts as a decision
            lost = min(advice.double_take, advice.double_pass) - advice.no_double
            self._record_cube(analysis, replay, turn, "double", "no double", "double", max(lost, 0.0), threshold)

    def _grade_double(self, replay: Game, analysis: PlayerAnalysis, turn: int, threshold: float,
                      level: str) -> None:
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        lost = 0.0 if advice.double else advice.no_double - min(advice.double_take, advice.double_pass)
        best = "double" if advice.double else ("too good, play on" if advice.too_good else "no double")
        self._record_cube(analysis, replay, turn, "double", "double", best, max(lost, 0.0), threshold)

    def _grade_answer(self, replay: Game, kind: str, analysis: PlayerAnalysis, turn: int, threshold: float,
                      level: str) -> None:
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        # Equities are the doubler's: the taker loses what the doubler gains.
        took = kind in ("take", "beaver")
        if took:
            lost = 0.0 if advice.take else advice.double_take - advice.double_pass
        else:
            lost = 0.0 if not advice.take else advice.double_pass - advice.double_take
        best = "take" if advice.take else "pass"
        self._record_cube(analysis, replay, turn, kind, kind, best, max(lost, 0.0), threshold)

    # -- asynchronous wrappers -----------------------------------------------------------

    def _executor(self) -> ProcessPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self._pool_workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,
                    initargs=(os.getpid(),),
                )
            return self._pool

    async def _run(self, spec: LevelSpec, func: Any, *args: Any) -> Any:
        if spec.in_process_pool:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor(), func, *args)
        return await asyncio.to_thread(func, *args)

    async def abest_plays(
        self, position: Position, roll: Roll, *, level: Level | str | int = DEFAULT_LEVEL, n: int = 3
    ) -> list[Candidate]:
        spec = _level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return await asyncio.to_thread(self.best_plays, position, roll, level=0, n=n)
        ranked = await self._run(spec, _rank, position, roll, spec.checker_ply)
        return self._map(plays, ranked)[: max(n, 1)]

    async def achoose_play(
        self, position: Position, roll: Roll, *, level: Level | str | int = DEFAULT_LEVEL,
        rng: random.Random | None = None,
    ) -> Play:
        spec = _level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return plays[0]
        ranked = await self._run(spec, _rank, position, roll, spec.checker_ply)
        return self._pick(self._map(plays, ranked), spec, rng)

    async def acube_action(
        self, game_or_state: Game | CubeState, *, level: Level | str | int = DEFAULT_LEVEL
    ) -> CubeAdvice:
        state = game_or_state if isinstance(game_or_state, CubeState) else CubeState.from_game(game_or_state)
        spec = _level_spec(level)
        return self._advice(await self._run(spec, _cube, state, spec.cube))

    async def aevaluate(self, position: Position, *, ply: int = 0) -> Probabilities:
        return await asyncio.to_thread(self.evaluate, position, ply=ply)

    async def ahint(self, game: Game, *, level: Level | str | int = DEFAULT_LEVEL, n: int = 3) -> Hint:
        if game.phase is Phase.PLAY and game.dice is not None:
            return Hint("play", plays=await self.abest_plays(game.position, game.dice, level=level, n=n))
        if game.phase in (Phase.ROLL, Phase.DOUBLED):
            return Hint(game.phase.value, cube=await self.acube_action(game, level=level))
        return Hint(game.phase.value)

    async def aanalyse_game(self, game: Game, *, ply: int = 0) -> GameAnalysis:
        """Analyse a whole game in a separate low-priority process: a game has
        hundreds of decisions, and in a thread they would hold the GIL the
        bot's event loop needs."""
        loop = asyncio.get_running_loop()
        with self._pool_lock:
            if self._analysis_pool is None:
                self._analysis_pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_lower_priority,
                    initargs=(os.getpid(),),
                )
            pool = self._analysis_pool
        return await loop.run_in_executor(pool, _analyse_in_worker, game, ply)

    async def warm_up(self) -> None:
        """Load the engines (and start the expert's worker) before the first game needs them."""
        await asyncio.to_thread(available)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor(), _warm_up)

    def close(self) -> None:
        """Shut the process pool down (waits for work in progress)."""
        with self._pool_lock:
            pools = [self._pool, self._analysis_pool]
            self._pool = self._analysis_pool = None
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)


_default: Analyst | None = None


def default_analyst() -> Analyst:
    """A shared :class:`Analyst` for the bot process."""
    global _default
    if _default is None:
        _default = Analyst()
    return _default


def unavailable_message() -> str:
    return UNAVAILABLE_MESSAGE


__all__ = [
    "AnalysisUnavailable", "Analyst", "BLUNDER_THRESHOLD", "Candidate", "CubeAdvice", "CubeState",
    "DEFAULT_LEVEL", "EngineMismatch", "FAST_LEVEL", "GameAnalysis", "Hint", "LEVELS", "Level",
    "Mistake", "PlayerAnalysis", "Probabilities", "UNAVAILABLE_MESSAGE", "available", "default_analyst",
    "gnubg_board", "sage_board", "unavailable_message",
]
