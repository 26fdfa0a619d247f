"""The analyst: checker play, cube decisions, evaluation and whole-game analysis.

Nothing here trusts an engine's move tuple: every answer is mapped back to one
of *our* engine's legal plays by the position it leads to. Blocking work runs
off the event loop: the ``a*`` coroutines use a thread for the cheap levels and
a process (one worker, created on first use, closed by :meth:`Analyst.close`)
for the expert level, whose 2-ply search holds the GIL. Whole games are
analysed in a separate low-priority process.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.ai.engines import (
    LowPriorityContext,
    _cube,
    _cubeful_equity,
    _gnubg,
    _is_over,
    _lower_priority,
    _probabilities,
    _rank,
    _warm_up,
    available,
    die_with_parent,
    gnubg_board,
    sage_mwc,
)
from bot.ai.met import ScoreValues
from bot.ai.pr import is_close_cube
from bot.ai.values import (
    BLUNDER_THRESHOLD,
    CHOICES_KEPT,
    DEFAULT_LEVEL,
    Candidate,
    CubeAdvice,
    CubeState,
    EngineMismatch,
    GameAnalysis,
    Hint,
    Level,
    LevelSpec,
    Mistake,
    MovePoint,
    PlayerAnalysis,
    Probabilities,
    equity_of,
    level_spec,
)
from engine import Game, GameSettings, Phase, Play, Position, Roll, WinKind, format_play, legal_plays
from engine.notation import match_play

_worker_analyst: Analyst | None = None


def _analyse_in_worker(game: Game, ply: int) -> GameAnalysis:
    """Whole-game analysis in a worker process (one Analyst per worker)."""
    global _worker_analyst
    if _worker_analyst is None:
        _worker_analyst = Analyst()
    return _worker_analyst.analyse_game(game, ply=ply)


def _analyse_log_in_worker(
    actions: list[dict[str, Any]], settings: dict[str, Any], score: tuple[int, int], crawford: bool, ply: int
) -> GameAnalysis:
    """The same, for a game given as its log: the worker replays it (not the bot's loop)."""
    game = Game.replay(actions, GameSettings.from_dict(settings), score=score, crawford=crawford)
    return _analyse_in_worker(game, ply)


def _play_equities_in_worker(position: Position, roll: Roll, ply: int) -> list[Candidate]:
    """Every legal play's equity in the expert's worker process (2-ply holds the GIL)."""
    global _worker_analyst
    if _worker_analyst is None:
        _worker_analyst = Analyst()
    return _worker_analyst.play_equities(position, roll, ply=ply)


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
        spec = level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return [Candidate(plays[0], self._play_equity(plays[0], 0))]
        return self._map(plays, _rank(position, roll, spec.checker_ply))[: max(n, 1)]

    def choose_play(
        self,
        position: Position,
        roll: Roll,
        *,
        level: Level | str | int = DEFAULT_LEVEL,
        rng: random.Random | None = None,
    ) -> Play:
        """The play the computer makes at ``level`` (the beginner's choice is noisy)."""
        spec = level_spec(level)
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
        return -equity_of(_probabilities(after.swap(), ply))

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
        spec = level_spec(level)
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
        win = (
            (probs.win - probs.win_gammon) * single
            + (probs.win_gammon - probs.win_backgammon) * gammon
            + probs.win_backgammon * backgammon
        )
        loss = (
            (probs.lose - probs.lose_gammon) * single
            + (probs.lose_gammon - probs.lose_backgammon) * gammon
            + probs.lose_backgammon * backgammon
        )
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
        self,
        game: Game,
        *,
        ply: int = 0,
        cube_level: str = "0ply",
        blunder_threshold: float = BLUNDER_THRESHOLD,
    ) -> GameAnalysis:
        """Replay ``game``'s log and grade every decision of both players.

        Checker plays are graded with gnubg-nn at ``ply``, cube decisions
        at ``cube_level``: at 0-ply from the same net's chances (bgsage's
        Janowski conversion, GNU Backgammon's 0-ply cube), deeper with bgsage's
        own search; luck is measured at 0-ply.
        """
        players = (PlayerAnalysis(0), PlayerAnalysis(1))
        replay = Game(game.settings, score=game.score, crawford=game.crawford)
        turns = [0, 0]
        moves: list[MovePoint] = []
        luck_of_next: dict[int, float] = {}
        """The luck of the roll of the move to come (by its mover)."""
        rolled: dict[int, tuple[int, int]] = {}
        for action in game.log:
            kind, who = action.kind, action.player
            upcoming = len(moves) + 1
            if kind == "roll" and who is not None and not action.auto:
                if replay.can_double(who):
                    self._grade_no_double(replay, players[who], turns[who] + 1, blunder_threshold, cube_level, upcoming)
                before = replay.position
                replay.apply(action)
                turns[who] += 1
                if action.dice:
                    rolled[who] = (action.dice[0], action.dice[1])
                    luck = self._luck(before, Roll(*action.dice))
                    players[who].luck += luck
                    luck_of_next[who] = luck
                continue
            if kind == "opening":
                replay.apply(action)
                if replay.phase is Phase.PLAY and replay.dice is not None:
                    starter = replay.player_on_roll
                    turns[starter] += 1
                    luck = self._luck(replay.position, replay.dice, opening=True)
                    players[starter].luck += luck
                    luck_of_next[starter] = luck
                continue
            if kind == "play" and who is not None and (action.auto or replay.dice is not None):
                # (a lost turn is an auto play the game made as the roll was applied: no dice left)
                dice = (replay.dice.die1, replay.dice.die2) if replay.dice is not None else rolled.get(who)
                if not action.auto:
                    self._grade_play(
                        replay, action.text or "", players[who], turns[who], ply, blunder_threshold, upcoming
                    )
                replay.apply(action)
                moves.append(self._after_move(replay, upcoming, who, dice, luck_of_next.pop(who, 0.0)))
                continue
            if kind == "double" and who is not None:
                self._grade_double(replay, players[who], turns[who] + 1, blunder_threshold, cube_level, upcoming)
            elif kind in ("take", "pass", "beaver") and who is not None:
                self._grade_answer(
                    replay, kind, players[who], turns[1 - who] + 1, blunder_threshold, cube_level, upcoming
                )
            replay.apply(action)
        return GameAnalysis(players, ply, moves)

    def _after_move(self, replay: Game, move: int, mover: int, dice: tuple[int, int] | None, luck: float) -> MovePoint:
        """The chances after a move: the position of the player to roll next (or the result)."""
        result = replay.result
        if result is not None:
            gammon = float(result.kind.value >= 2)
            gammons = (gammon, 0.0) if result.winner == 0 else (0.0, gammon)
            return MovePoint(move, mover, dice, float(result.winner == 0), gammons, luck)
        probs = self.evaluate(replay.position)
        if replay.player_on_roll == 1:
            probs = probs.flipped()
        return MovePoint(move, mover, dice, probs.win, (probs.win_gammon, probs.lose_gammon), luck)

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
        self,
        replay: Game,
        text: str,
        analysis: PlayerAnalysis,
        turn: int,
        ply: int,
        threshold: float,
        move: int = 0,
    ) -> None:
        plays = replay.legal_plays()
        if len(plays) <= 1:
            return
        assert replay.dice is not None
        chosen = match_play(replay.position, replay.dice, text, plays)
        ranked = self.play_equities(replay.position, replay.dice, ply=ply)
        if replay.settings.cube:
            ranked = self._cubeful(replay, ranked, ply)
        elif not replay.is_money:
            ranked = self._at_score(replay, ranked, ply)
        best = ranked[0]
        played = next(c for c in ranked if c.play == chosen)
        lost = max(best.equity - played.equity, 0.0)
        analysis.checker_decisions += 1
        analysis.equity_lost += lost
        if lost > 1e-6:
            kept = ranked[:CHOICES_KEPT]
            if played not in kept:
                kept = [*kept, played]
            mistake = Mistake(
                player=analysis.player,
                turn=turn,
                kind="checker",
                dice=(replay.dice.die1, replay.dice.die2),
                played=format_play(chosen),
                best=best.text,
                equity_lost=lost,
                position_id=replay.position.position_id(),
                move=move,
                gnubg_id=replay.gnubg_id(),
                choices=tuple((c.text, c.equity) for c in kept),
            )
            analysis.mistakes.append(mistake)
            if lost > threshold:
                analysis.blunders.append(mistake)

    def _at_score(self, replay: Game, ranked: list[Candidate], ply: int) -> list[Candidate]:
        """The plays re-ranked by their equity at the match score (EMG: gammons weigh what
        they are worth at this score and cube, as GNU Backgammon and XG grade match play)."""
        mover = replay.player_on_roll
        n = replay.settings.match_length
        # The cube's table (bgsage's Kazaross-XG2), so that plays and cube actions weigh a score alike.
        values = ScoreValues.at(n - replay.score[mover], n - replay.score[1 - mover], replay.cube_value, table=sage_mwc)
        at_score = [Candidate(c.play, values.emg(self._after_probabilities(c.play, ply))) for c in ranked]
        return sorted(at_score, key=lambda c: -c.equity)

    def _cubeful(self, replay: Game, ranked: list[Candidate], ply: int) -> list[Candidate]:
        """The plays re-ranked by their cubeful equity, as GNU Backgammon and XG grade checker
        play: after each play the opponent takes their best cube action (Janowski's formula
        on the chances after the play, in the cube's table at a match score), turned round to
        the mover. A play that ends the game keeps its cubeless value: no cube is left."""
        mover = replay.player_on_roll
        settings = replay.settings
        # The cube as the opponent, next to roll, sees it.
        if replay.cube_owner is None:
            owner = "centered"
        else:
            owner = "opponent" if replay.cube_owner == mover else "player"
        away = (0, 0)
        values: ScoreValues | None = None
        if not replay.is_money:
            n = settings.match_length
            away = (max(n - replay.score[1 - mover], 1), max(n - replay.score[mover], 1))
            values = ScoreValues.at(away[1], away[0], replay.cube_value, table=sage_mwc)
        cubeful = []
        for candidate in ranked:
            after = candidate.play.position
            if after.off[0] == 15:
                equity = (
                    candidate.equity if values is None else values.emg(self._after_probabilities(candidate.play, ply))
                )
            else:
                theirs = self.evaluate(after.swap(), ply=ply)
                state = CubeState(
                    after.swap(),
                    cube_value=replay.cube_value,
                    owner=owner,
                    away=away,
                    crawford=replay.crawford,
                    jacoby=replay.is_money and settings.jacoby,
                    beavers=replay.is_money and settings.beavers,
                )
                chances = (
                    theirs.win,
                    theirs.win_gammon,
                    theirs.win_backgammon,
                    theirs.lose_gammon,
                    theirs.lose_backgammon,
                )
                equity = -_cubeful_equity(state, chances, settings.cube_limit)
            cubeful.append(Candidate(candidate.play, equity))
        return sorted(cubeful, key=lambda c: -c.equity)

    def _after_probabilities(self, play: Play, ply: int) -> tuple[float, ...]:
        """The mover's cubeless chances after ``play`` (the opponent about to roll)."""
        after = self.evaluate(play.position.swap(), ply=ply).flipped()
        return (after.win, after.win_gammon, after.win_backgammon, after.lose_gammon, after.lose_backgammon)

    def _record_cube(
        self,
        analysis: PlayerAnalysis,
        replay: Game,
        turn: int,
        kind: str,
        played: str,
        best: str,
        lost: float,
        threshold: float,
        move: int = 0,
        choices: tuple[tuple[str, float], ...] = (),
    ) -> None:
        analysis.cube_decisions += 1
        analysis.equity_lost += lost
        if lost > 1e-6:
            mistake = Mistake(
                analysis.player,
                turn,
                kind,
                None,
                played,
                best,
                lost,
                replay.position.position_id(),
                move=move,
                gnubg_id=replay.gnubg_id(),
                choices=tuple(sorted(choices, key=lambda c: -c[1])),
            )
            analysis.mistakes.append(mistake)
            if lost > threshold:
                analysis.blunders.append(mistake)

    @staticmethod
    def _doubling(advice: CubeAdvice) -> tuple[tuple[str, float], ...]:
        """The doubler's two choices, with their cubeful equities."""
        return (("No double", advice.no_double), ("Double", min(advice.double_take, advice.double_pass)))

    def _grade_no_double(
        self, replay: Game, analysis: PlayerAnalysis, turn: int, threshold: float, level: str, move: int = 0
    ) -> None:
        if self._cube_dead(replay):
            return  # nothing to decide: no decision, as GNU Backgammon counts them (docs/analysis.md)
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        if not advice.double:
            # Held correctly: no error, but a close one still counts for PR (docs/analysis.md).
            if is_close_cube(advice.no_double, advice.double_take, advice.double_pass):
                analysis.close_no_doubles += 1
            return
        # A missed double counts for the error rate too.
        lost = min(advice.double_take, advice.double_pass) - advice.no_double
        self._record_cube(
            analysis,
            replay,
            turn,
            "double",
            "no double",
            "double",
            max(lost, 0.0),
            threshold,
            move,
            self._doubling(advice),
        )

    @staticmethod
    def _cube_dead(replay: Game) -> bool:
        """In a match, a cube the player to roll gains nothing by turning: the cube's value
        already wins them the match (GNU Backgammon's ``GetDPEq`` leaves such a cube out)."""
        n = replay.settings.match_length
        return bool(n) and replay.score[replay.turn] + replay.cube_value >= n

    def _grade_double(
        self, replay: Game, analysis: PlayerAnalysis, turn: int, threshold: float, level: str, move: int = 0
    ) -> None:
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        lost = 0.0 if advice.double else advice.no_double - min(advice.double_take, advice.double_pass)
        best = "double" if advice.double else ("too good, play on" if advice.too_good else "no double")
        self._record_cube(
            analysis, replay, turn, "double", "double", best, max(lost, 0.0), threshold, move, self._doubling(advice)
        )

    def _grade_answer(
        self, replay: Game, kind: str, analysis: PlayerAnalysis, turn: int, threshold: float, level: str, move: int = 0
    ) -> None:
        advice = self._advice(_cube(CubeState.from_game(replay), level))
        # Equities are the doubler's: the taker loses what the doubler gains.
        took = kind in ("take", "beaver")
        if took:
            lost = 0.0 if advice.take else advice.double_take - advice.double_pass
        else:
            lost = 0.0 if not advice.take else advice.double_pass - advice.double_take
        best = "take" if advice.take else "pass"
        choices = (("Take", -advice.double_take), ("Pass", -advice.double_pass))  # the taker's side
        self._record_cube(analysis, replay, turn, kind, kind, best, max(lost, 0.0), threshold, move, choices)

    # -- one decision (the tutor) ---------------------------------------------------------

    def decision_loss(
        self, game: Game, kind: str, text: str | None = None, *, ply: int = 0, cube_level: str = "0ply"
    ) -> Mistake | None:
        """What the player to act gives up by ``kind`` (``play`` of ``text``, ``double``,
        ``roll`` without doubling, ``take``, ``pass``, ``beaver``) now, graded as the game's
        analysis grades it; None when it is the best (or the only) choice. ``game`` is
        read only: the grading works on a copy of its position."""
        analysis = PlayerAnalysis(game.turn)
        never = float("inf")
        if kind == "play":
            if game.phase is not Phase.PLAY or game.dice is None:
                return None
            self._grade_play(game, text or "", analysis, 0, ply, never)
        elif kind == "double":
            self._grade_double(game, analysis, 0, never, cube_level)
        elif kind == "roll":
            if not game.can_double(game.turn):
                return None
            self._grade_no_double(game, analysis, 0, never, cube_level)
        elif kind in ("take", "pass", "beaver"):
            self._grade_answer(game, kind, analysis, 0, never, cube_level)
        else:
            raise ValueError(f"no decision called {kind!r}")
        return analysis.mistakes[0] if analysis.mistakes else None

    async def adecision_loss(
        self, game: Game, kind: str, text: str | None = None, *, ply: int = 0, cube_level: str = "0ply"
    ) -> Mistake | None:
        """:meth:`decision_loss` in a thread (0-ply plays and a 1-ply cube take milliseconds)."""
        return await asyncio.to_thread(self.decision_loss, game, kind, text, ply=ply, cube_level=cube_level)

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
        spec = level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return await asyncio.to_thread(self.best_plays, position, roll, level=0, n=n)
        ranked = await self._run(spec, _rank, position, roll, spec.checker_ply)
        return self._map(plays, ranked)[: max(n, 1)]

    async def aplay_equities(self, position: Position, roll: Roll, *, ply: int = 0) -> list[Candidate]:
        """:meth:`play_equities` off the event loop: 2-ply in the expert's worker process."""
        spec = level_spec(ply)
        if spec.in_process_pool:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor(), _play_equities_in_worker, position, roll, ply)
        return await asyncio.to_thread(self.play_equities, position, roll, ply=ply)

    async def achoose_play(
        self,
        position: Position,
        roll: Roll,
        *,
        level: Level | str | int = DEFAULT_LEVEL,
        rng: random.Random | None = None,
    ) -> Play:
        spec = level_spec(level)
        plays = legal_plays(position, roll)
        if len(plays) == 1:
            return plays[0]
        ranked = await self._run(spec, _rank, position, roll, spec.checker_ply)
        return self._pick(self._map(plays, ranked), spec, rng)

    async def acube_action(
        self, game_or_state: Game | CubeState, *, level: Level | str | int = DEFAULT_LEVEL
    ) -> CubeAdvice:
        state = game_or_state if isinstance(game_or_state, CubeState) else CubeState.from_game(game_or_state)
        spec = level_spec(level)
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
        return await self._analyse(_analyse_in_worker, game, ply)

    async def aanalyse_log(
        self,
        actions: list[dict[str, Any]],
        settings: dict[str, Any],
        *,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        ply: int = 0,
    ) -> GameAnalysis:
        """:meth:`aanalyse_game` of a game given as its logged actions and its
        settings (:meth:`GameSettings.to_dict`): the worker process replays it."""
        return await self._analyse(_analyse_log_in_worker, actions, settings, score, crawford, ply)

    async def _analyse(self, work: Any, *args: Any) -> GameAnalysis:
        loop = asyncio.get_running_loop()
        with self._pool_lock:
            if self._analysis_pool is None:
                self._analysis_pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=LowPriorityContext(),
                    initializer=_lower_priority,
                    initargs=(os.getpid(),),
                )
            pool = self._analysis_pool
        return await loop.run_in_executor(pool, work, *args)

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


def close_default() -> None:
    """Shut down the shared analyst's worker processes, if it was ever used."""
    global _default
    analyst, _default = _default, None
    if analyst is not None:
        analyst.close()
