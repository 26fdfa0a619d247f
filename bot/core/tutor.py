"""The tutor: a warning before a play or cube action the net rates as a blunder.

A member turns it on with ``/bg settings tutor:`` at a threshold of their choice
(blunders: 0.08 equity, errors: 0.04, or a figure of their own), kept in their
preferences. It speaks only where advice is allowed anyway: against the
computer, in practice games, and in games whose players both agreed to hints;
never in a rated game between members with hints off. The decision is graded as
the game's analysis grades it (the same net, ply and match-score equity), in a
thread, on a copy of the game: the game itself is only read. An answer that does
not come in time, or engines that are missing, let the action through unwarned:
the tutor never stands in the way of a move.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from dataclasses import dataclass

from bot import ai
from bot.core.advice import Advice
from bot.core.members import Members
from bot.core.model import GameState
from engine import Phase

log = logging.getLogger(__name__)

THRESHOLDS: dict[str, float] = {"blunders": 0.08, "errors": 0.04}
"""The named thresholds of ``/bg settings tutor:`` (equity given up, the analysis's scale)."""
TUTOR_SECONDS = 8.0
"""How long the tutor may think before the action goes through unwarned (the interaction is
deferred before it starts, so this bounds the member's wait, not Discord's deadline)."""
DECISIONS = ("play", "roll", "double", "take", "pass", "beaver")
"""What the tutor can grade: a play, rolling without doubling, doubling, and the answers to a double."""


def parse_threshold(value: str) -> float | None:
    """The threshold from what a member typed: ``off``, ``blunders``, ``errors`` or a figure
    (``0.06``). :raises ValueError: for anything else, or a figure out of 0.001 to 1."""
    word = value.strip().lower()
    if word in ("off", "none", "0"):
        return None
    if word in THRESHOLDS:
        return THRESHOLDS[word]
    figure = float(word.replace(",", "."))
    if not 0.001 <= figure <= 1.0:
        raise ValueError(f"threshold out of range: {figure}")
    return figure


def allowed_in(state: GameState) -> bool:
    """Whether the tutor may speak in this game: against the computer, a practice game,
    or a game both players agreed to hints in. Never in a rated game between members
    with hints off."""
    if not state.is_active:
        return False
    options = state.options
    return bool(options.computer_level or options.practice or options.hints or any(p.is_bot for p in state.players))


def decision_due(state: GameState, kind: str) -> bool:
    """Whether ``kind`` is the kind of decision the game waits for now."""
    if state.match.game is None:
        return False
    phase = state.game.phase
    if kind == "play":
        return phase is Phase.PLAY and state.game.dice is not None
    if kind in ("roll", "double"):
        return phase is Phase.ROLL and state.game.opening_offer is None
    return phase is Phase.DOUBLED and kind in ("take", "pass", "beaver")


@dataclass(frozen=True, slots=True)
class TutorWarning:
    """A decision the tutor warns about."""

    kind: str
    """``play``, ``roll`` (without doubling), ``double``, ``take``, ``pass`` or ``beaver``."""
    chosen: str
    """What the member chose: the play in canonical notation, or the cube action."""
    best: str
    """What the net prefers."""
    lost: float
    """The equity the choice gives up."""
    threshold: float


class Tutor:
    """Grades one decision before it is made, for the members who asked for it.

    :param advice: the door to the engines (the analysis's ply is used).
    :param members: the members' preferences (the threshold).
    :param timeout: see :data:`TUTOR_SECONDS`.
    """

    def __init__(self, advice: Advice, members: Members, *, timeout: float = TUTOR_SECONDS) -> None:
        self.advice = advice
        self.members = members
        self.timeout = timeout

    async def threshold(self, state: GameState, user_id: int, kind: str) -> float | None:
        """The member's threshold when the tutor may grade this decision of theirs now; else None."""
        if kind not in DECISIONS or not allowed_in(state) or not decision_due(state, kind):
            return None
        actor = state.to_act()
        if actor is None or actor.user_id != user_id or actor.is_bot:
            return None
        threshold = (await self.members.prefs(user_id)).tutor
        if threshold is None or not self.advice.available():
            return None
        return threshold

    async def warning(self, state: GameState, kind: str, text: str | None, threshold: float) -> TutorWarning | None:
        """The warning for ``kind`` (``text``: the play) when it gives up ``threshold`` or more."""
        game = copy.deepcopy(state.game)  # graded in a thread: never the game the service keeps
        try:
            mistake = await asyncio.wait_for(
                self.advice.analyst.adecision_loss(game, kind, text, ply=self.advice.ply), self.timeout
            )
        except TimeoutError:
            log.info("the tutor ran out of time on game %s: no warning", state.id)
            return None
        except (ai.AnalysisUnavailable, ai.EngineMismatch):
            log.warning("the tutor could not grade game %s's decision", state.id, exc_info=True)
            return None
        except Exception:  # a play the rules refuse: the service answers it, not the tutor
            log.debug("the tutor did not grade %r in game %s", text, state.id, exc_info=True)
            return None
        if mistake is None or mistake.equity_lost < threshold:
            return None
        return TutorWarning(kind, mistake.played, mistake.best, mistake.equity_lost, threshold)
