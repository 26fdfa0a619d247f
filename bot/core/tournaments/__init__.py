"""Server tournaments: knockout, round robin and Swiss, run by the bot over days.

- :mod:`.pairing`: the pure part: each format's pairings, byes and standings
  (Buchholz, then Sonneborn-Berger), no storage, no clock;
- :mod:`.model`: the options, the views handed up, the refusals;
- :mod:`.service`: :class:`Tournaments` (``GameService.tournaments``): sign-up,
  rounds, matches opened through the game service, results, deadlines.
"""

from bot.core.tournaments.model import (
    Entrant,
    MatchToOpen,
    Pairing,
    StandingLine,
    TournamentError,
    TournamentOptions,
    TournamentRecord,
    TournamentView,
)
from bot.core.tournaments.pairing import FORMATS, KNOCKOUT, ROUND_ROBIN, SWISS, Pair, Played, Standing
from bot.core.tournaments.service import ROUND_KIND, UPDATE_KIND, Tournaments

__all__ = [
    "FORMATS",
    "KNOCKOUT",
    "ROUND_KIND",
    "ROUND_ROBIN",
    "SWISS",
    "UPDATE_KIND",
    "Entrant",
    "MatchToOpen",
    "Pair",
    "Played",
    "Standing",
    "StandingLine",
    "Pairing",
    "TournamentError",
    "TournamentOptions",
    "TournamentRecord",
    "TournamentView",
    "Tournaments",
]
