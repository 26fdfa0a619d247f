"""Server tournaments: knockout, round robin and Swiss, run by the bot over days.

- :mod:`.pairing`: the pure part: each format's pairings, byes and standings
  (Buchholz, then Sonneborn-Berger), no storage, no clock.
"""

from bot.core.tournaments.pairing import FORMATS, KNOCKOUT, ROUND_ROBIN, SWISS, Pair, Played, Standing

__all__ = ["FORMATS", "KNOCKOUT", "ROUND_ROBIN", "SWISS", "Pair", "Played", "Standing"]
