"""The computer's levels and what the analysis answers: plays with their
equities, outcome chances, cube advice, a game's mistakes, a hint."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bot.ai.pr import format_pr, pr_of
from engine import Game, Play, Position, format_play

UNAVAILABLE_MESSAGE = "analysis is not available on this server"

BLUNDER_THRESHOLD = 0.08
"""Equity lost (cubeless, per cube) above which a decision counts as a blunder."""

KEPT_MISTAKE = 0.02
"""Equity lost from which a mistake is kept in an analysis's detail, with its position and choices
(charts mark them, puzzles and drills are made of them)."""
CHOICES_KEPT = 5
"""The best plays kept with a checker mistake (and the play made, if not among them)."""
DETAIL_VERSION = 1

BEGINNER_NOISE = 0.25
"""Standard deviation of the noise added to each play's equity at the beginner level."""


class AnalysisUnavailable(RuntimeError):
    """The engines (gnubg-nn, bgsage) are not installed on this server."""

    def __init__(self, message: str = UNAVAILABLE_MESSAGE) -> None:
        super().__init__(message)
        self.message = message


class EngineMismatch(RuntimeError):
    """An engine answered with a position none of our legal plays reaches."""


# -- levels ---------------------------------------------------------------------------


class Level(str, enum.Enum):  # noqa: UP042 (str() and format() of a member stay "Level.X")
    """How strong the computer plays."""

    BEGINNER = "beginner"
    """0-ply with noise: picks among the better plays, not always the best; 0-ply cube."""
    INTERMEDIATE = "intermediate"
    """1-ply best play, 1-ply (bgsage) cube."""
    EXPERT = "expert"
    """2-ply best play, 2-ply (bgsage) cube: the strongest setting under 0.5 s a decision here."""

    @classmethod
    def parse(cls, value: object) -> Level:
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


def level_spec(level: Level | str | int | None) -> LevelSpec:
    """A level name, or a bare ply number (0, 1, 2) for checker play without noise."""
    if isinstance(level, int) and not isinstance(level, bool):
        if level not in (0, 1, 2):
            raise ValueError("the ply is 0, 1 or 2")
        return LevelSpec(checker_ply=level, noise=0.0, cube=("0ply", "1ply", "2ply")[level], in_process_pool=level >= 2)
    return LEVELS[Level.parse(level)]


def equity_of(probs: tuple[float, ...] | list[float]) -> float:
    """Cubeless money equity of (win, win gammon, win backgammon, lose gammon, lose backgammon)."""
    w, wg, wb, lg, lb = probs[:5]
    return 2.0 * w - 1.0 + wg + wb - lg - lb


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
        return cls(w, wg, wb, lg, lb, equity_of((w, wg, wb, lg, lb)))

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
    move: int = 0
    """The game's move this decision belongs to (1-based, both players' moves counted;
    a cube decision belongs to the move it comes before)."""
    gnubg_id: str = ""
    """``PositionID:MatchID`` of the decision (dice, cube and score included)."""
    choices: tuple[tuple[str, float], ...] = ()
    """What there was to choose from, best first, with the equity of each for the
    player deciding: the best plays (and the one made), or the two cube actions."""

    def describe(self) -> str:
        roll = f" {max(self.dice)}-{min(self.dice)}" if self.dice else ""
        return f"turn {self.turn}{roll}: played {self.played}, better {self.best} (-{self.equity_lost:.3f})"


@dataclass(frozen=True, slots=True)
class MovePoint:
    """The game after one move (a roll and its play, a lost turn included)."""

    move: int
    """1-based, both players' moves counted."""
    player: int
    """Who moved."""
    dice: tuple[int, int] | None
    win: float
    """Player 0's chance of winning the game after the move (cubeless)."""
    gammons: tuple[float, float]
    """Each player's chance of winning a gammon or more after the move."""
    luck: float
    """The luck of the move's roll for the mover (0 for the rolls luck is not measured for)."""


@dataclass
class PlayerAnalysis:
    player: int
    checker_decisions: int = 0
    cube_decisions: int = 0
    close_no_doubles: int = 0
    """No-double decisions held correctly but close enough to count for PR (:func:`bot.ai.pr.is_close_cube`)."""
    equity_lost: float = 0.0
    luck: float = 0.0
    """Sum over this player's rolls of (best equity with the roll - average over all rolls)."""
    mistakes: list[Mistake] = field(default_factory=list)
    blunders: list[Mistake] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions

    @property
    def pr_decisions(self) -> int:
        """The decisions PR counts: the graded ones and the close no-doubles (docs/analysis.md)."""
        return self.decisions + self.close_no_doubles

    @property
    def pr(self) -> float | None:
        """Performance rating on XG's scale (None without a decision that counts)."""
        return pr_of(self.equity_lost, self.pr_decisions)

    @property
    def error_rate(self) -> float:
        """Equity lost per decision, in millipoints (GNU Backgammon's scale)."""
        return 1000.0 * self.equity_lost / self.decisions if self.decisions else 0.0

    @property
    def rating(self) -> str:
        """GNU Backgammon's words for an error rate."""
        rate = self.error_rate
        for limit, word in (
            (2, "supernatural"),
            (5, "world class"),
            (8, "expert"),
            (12, "advanced"),
            (18, "intermediate"),
            (26, "casual player"),
            (35, "beginner"),
        ):
            if rate < limit:
                return word
        return "awful!"


@dataclass
class GameAnalysis:
    players: tuple[PlayerAnalysis, PlayerAnalysis]
    ply: int
    moves: list[MovePoint] = field(default_factory=list)
    """The game after every move, in order."""

    def detail(self) -> dict[str, Any]:
        """The numbers behind :meth:`summary`, as JSON: every move's chances and
        luck, each player's totals, and the mistakes kept (:data:`KEPT_MISTAKE`)
        with their positions and choices."""
        mistakes = sorted(
            (m for p in self.players for m in p.mistakes if m.equity_lost >= KEPT_MISTAKE),
            key=lambda m: (m.move, m.player),
        )
        return {
            "v": DETAIL_VERSION,
            "ply": self.ply,
            "moves": [
                [
                    m.move,
                    m.player,
                    *(m.dice or (0, 0)),
                    round(m.win, 4),
                    round(m.gammons[0], 4),
                    round(m.gammons[1], 4),
                    round(m.luck, 4),
                ]
                for m in self.moves
            ],
            "players": [
                {
                    "decisions": p.decisions,
                    # Six places: PR pools stored games, 500 × lost over few decisions each.
                    "lost": round(p.equity_lost, 6),
                    "rate": round(p.error_rate, 2),
                    "pr_decisions": p.pr_decisions,
                    "luck": round(p.luck, 4),
                    "blunders": len(p.blunders),
                }
                for p in self.players
            ],
            "mistakes": [
                {
                    "move": m.move,
                    "player": m.player,
                    "turn": m.turn,
                    "kind": m.kind,
                    "dice": list(m.dice) if m.dice else None,
                    "played": m.played,
                    "best": m.best,
                    "lost": round(m.equity_lost, 4),
                    "id": m.gnubg_id,
                    "choices": [[text, round(equity, 4)] for text, equity in m.choices],
                }
                for m in mistakes
            ],
        }

    @property
    def blunders(self) -> list[Mistake]:
        return sorted((m for p in self.players for m in p.blunders), key=lambda m: (m.turn, m.player))

    def summary(self, names: tuple[str, str] = ("player 0", "player 1")) -> str:
        lines = []
        for p in self.players:
            lines.append(
                f"{names[p.player]}: {p.decisions} decisions, {format_pr(p.pr)}, error rate {p.error_rate:.1f} "
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
                f"win {100 * p.win:.1f}% (gammon {100 * p.win_gammon:.1f}%), lose gammon {100 * p.lose_gammon:.1f}%",
            ]
        return []
