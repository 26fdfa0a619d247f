"""The two engines, loaded lazily, and the calls made to them.

* **gnubg-nn** (GNU Backgammon's neural nets) ranks checker plays at 0, 1 or
  2 ply and evaluates positions;
* **bgsage** answers cube decisions for money games and matches alike; at
  0-ply it turns gnubg-nn's chances into cubeful equities (Janowski's formula,
  in match winning chances at a score, as GNU Backgammon does at 0-ply), so a
  0-ply analysis grades plays and cube actions with the same net.

The calls are module-level functions so the expert's worker process can run
them; worker initializers here keep those processes from outliving the bot.
"""

from __future__ import annotations

import logging
import multiprocessing.context
import os
import threading
import time
from typing import Any

from bot.ai.values import AnalysisUnavailable, CubeState
from engine import Position, Roll

log = logging.getLogger(__name__)

# bgsage would otherwise start a thread per core for its multi-ply work.
os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")


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


# -- conversions ----------------------------------------------------------------------


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
    if level == "0ply":
        return _quick_cube(state) if state.away == (0, 0) else _quick_match_cube(state)
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


def _quick_cube(state: CubeState, chances: tuple[float, ...] | None = None) -> dict[str, Any]:
    """Money cube from gnubg-nn's 0-ply chances (or ``chances``) and bgsage's Janowski
    conversion (a tenth of a millisecond, against 50-100 ms for bgsage's own 1-ply cube)."""
    bgbot_cpp, probs, owner, x = _janowski_inputs(state, chances)
    nd = bgbot_cpp.cl2cf_money(probs, owner, x, jacoby_active=state.jacoby and state.owner == "centered")
    dt = 2.0 * bgbot_cpp.cl2cf_money(probs, bgbot_cpp.CubeOwner.OPPONENT, x, jacoby_active=False)
    dp = 1.0
    double = state.owner != "opponent" and min(dt, dp) > nd
    take = dt <= dp
    beaver = state.beavers and take and dt < 0
    return {
        "probs": tuple(probs),
        "nd": nd,
        "dt": dt,
        "dp": dp,
        "double": double,
        "take": take,
        "beaver": beaver,
        "action": "No Double"
        if not double
        else ("Double/Beaver" if beaver else ("Double/Take" if take else "Double/Pass")),
        "level": "0-ply",
    }


def _janowski_inputs(state: CubeState, chances: tuple[float, ...] | None) -> tuple[Any, list[float], Any, float]:
    """What bgsage's Janowski conversion takes, for the money and the match cube alike: its native
    module, the 0-ply chances (or ``chances``), the cube's owner and the cube's efficiency."""
    _import("bgsage")
    import bgbot_cpp  # bgsage's native module

    board = sage_board(state.position)
    probs = list(chances or _probabilities(state.position, 0))
    ours, theirs = state.position.pip_counts()
    x = bgbot_cpp.cube_efficiency(probs, bool(bgbot_cpp.is_race(board)), ours, theirs)
    owner = {
        "centered": bgbot_cpp.CubeOwner.CENTERED,
        "player": bgbot_cpp.CubeOwner.PLAYER,
        "opponent": bgbot_cpp.CubeOwner.OPPONENT,
    }[state.owner]
    return bgbot_cpp, probs, owner, x


def _quick_match_cube(state: CubeState, chances: tuple[float, ...] | None = None) -> dict[str, Any]:
    """Match cube from gnubg-nn's 0-ply chances (or ``chances``) and bgsage's Janowski
    conversion in match winning chances (GNU Backgammon's 0-ply match cube: live cube cash
    points, the cube's efficiency, the Kazaross-XG2 table). Equities are EMG: double/pass is +1."""
    bgbot_cpp, probs, owner, x = _janowski_inputs(state, chances)
    away, opponent_away = state.away
    result = bgbot_cpp.cube_decision_1ply(probs, state.cube_value, owner, x, away, opponent_away, state.crawford, False)
    nd, dt, dp = float(result.equity_nd), float(result.equity_dt), float(result.equity_dp)
    double = state.owner != "opponent" and min(dt, dp) > nd
    take = dt <= dp
    return {
        "probs": tuple(probs),
        "nd": nd,
        "dt": dt,
        "dp": dp,
        "double": double,
        "take": take,
        "beaver": False,
        "action": "No Double" if not double else ("Double/Take" if take else "Double/Pass"),
        "level": "0-ply",
    }


def _cubeful_equity(state: CubeState, chances: tuple[float, ...], cube_limit: int = 0) -> float:
    """The cubeful equity of the player on roll, about to roll, with ``chances`` (cubeless,
    theirs): their best cube action if they may turn the cube, else playing on (GNU
    Backgammon's 0-ply cubeful evaluation). Per unit of the cube; EMG at a match score."""
    _import("bgsage")
    import bgbot_cpp

    if state.away == (0, 0):
        raw = _quick_cube(state, chances)
        may_double = state.owner != "opponent"
    else:
        raw = _quick_match_cube(state, chances)
        owner = {
            "centered": bgbot_cpp.CubeOwner.CENTERED,
            "player": bgbot_cpp.CubeOwner.PLAYER,
            "opponent": bgbot_cpp.CubeOwner.OPPONENT,
        }[state.owner]
        may_double = bool(bgbot_cpp.can_double_match(*state.away, state.cube_value, owner, state.crawford))
    if cube_limit and state.cube_value * 2 > cube_limit:
        may_double = False
    no_double = float(raw["nd"])
    if not may_double:
        return no_double
    return max(no_double, min(float(raw["dt"]), float(raw["dp"])))


def sage_mwc(away: int, opponent_away: int, *, post_crawford: bool = False) -> float:
    """bgsage's match equity table (Kazaross-XG2): the chance to win the match ``away``
    points from winning against ``opponent_away`` (post-Crawford when a side is 1 away
    and ``post_crawford``)."""
    if away <= 0:
        return 1.0
    if opponent_away <= 0:
        return 0.0
    _import("bgsage")
    import bgbot_cpp

    return float(bgbot_cpp.get_met(away, opponent_away, post_crawford and (away == 1) != (opponent_away == 1)))


def _warm_up() -> bool:
    _gnubg()
    _sage("2ply")
    return True


def lowered() -> bool:
    """Whether the analysis workers yield the CPU: the ``WORKER_PRIORITY`` setting (``low``, the
    default, or ``normal``), which the drawing workers read too (:func:`renderer.pipe.lowered`)."""
    return os.environ.get("WORKER_PRIORITY", "low").lower() != "normal"


def _yield_cpu(pid: int) -> None:
    """Put process ``pid`` (0: this one) at nice 19 and, on Linux, in the idle class
    (unless ``WORKER_PRIORITY=normal``: :func:`lowered`)."""
    if not lowered():
        return
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 19)
    except OSError:
        pass
    if hasattr(os, "sched_setscheduler"):
        # Idle class: runs only on a core nothing else wants. At nice 19 alone an
        # analysis still got 0.2-0.33 of a core from a saturated bot while its
        # drawing workers waited to run (schedstat, bench/e2e_load.py).
        try:
            os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass


class _LowPriorityProcess(multiprocessing.context.SpawnProcess):
    """A spawned process lowered by its parent as soon as it exists, before its
    start-up: a fresh interpreter importing the bot and the engines, some 0.5 s of
    CPU at the bot's own priority when left to the worker's initializer. The first
    game to end under load started the analysis worker that way, and every board
    drawn in the next two seconds waited for it: the load bench's slowest boards."""

    def start(self) -> None:
        super().start()
        if self.pid is not None:
            _yield_cpu(self.pid)


class LowPriorityContext(multiprocessing.context.SpawnContext):
    """``spawn``, with every process lowered from its first moment (:class:`_LowPriorityProcess`)."""

    Process = _LowPriorityProcess


def _lower_priority(parent: int) -> None:
    """Worker initializer: analysis yields the CPU to the bot's own work, and
    the worker dies with the bot (a bot killed outright leaves no orphans)."""
    _yield_cpu(0)
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
