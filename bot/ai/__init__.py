"""The computer opponent's brain and the analysis behind hints: an adapter to
GNU Backgammon's neural nets (gnubg-nn) and bgsage, over our engine.

Both engines are optional. They are imported lazily; :func:`available` says
whether they can be used, and every call raises :class:`AnalysisUnavailable`
(whose message is :data:`UNAVAILABLE_MESSAGE`) when they cannot, so the bot
still runs without them. Only the application core (:mod:`bot.core.advice`,
the computer's seat) talks to this package.
"""

from bot.ai.analyst import Analyst, close_default, default_analyst
from bot.ai.engines import available, gnubg_board, sage_board
from bot.ai.values import (
    BLUNDER_THRESHOLD,
    DEFAULT_LEVEL,
    LEVELS,
    UNAVAILABLE_MESSAGE,
    AnalysisUnavailable,
    Candidate,
    CubeAdvice,
    CubeState,
    EngineMismatch,
    GameAnalysis,
    Hint,
    Level,
    Mistake,
    PlayerAnalysis,
    Probabilities,
)

__all__ = [
    "AnalysisUnavailable",
    "Analyst",
    "BLUNDER_THRESHOLD",
    "Candidate",
    "CubeAdvice",
    "CubeState",
    "DEFAULT_LEVEL",
    "EngineMismatch",
    "GameAnalysis",
    "Hint",
    "LEVELS",
    "Level",
    "Mistake",
    "PlayerAnalysis",
    "Probabilities",
    "UNAVAILABLE_MESSAGE",
    "available",
    "close_default",
    "default_analyst",
    "gnubg_board",
    "sage_board",
]
