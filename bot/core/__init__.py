"""The application core: everything the bot does, with no Discord types and no pictures.

- :mod:`.games`: :class:`GameService`, every game action, with its parts
  :attr:`~GameService.challenges` (:mod:`.challenges`),
  :attr:`~GameService.deadlines` (:mod:`.deadlines`) and
  :attr:`~GameService.deliveries` (:mod:`.deliveries`),
  :attr:`~GameService.lookups` (:mod:`.lookups`: games as they stand, standings),
  :attr:`~GameService.archive` (:mod:`.archive`: finished matches, exports, the dice check),
  :attr:`~GameService.cache` (:mod:`.game_cache`: the games in memory, their rebuild) and
  :attr:`~GameService.recorder` (:mod:`.recorder`: each step stored in one transaction);
- :mod:`.model`: the values handed up (:class:`GameState`, :class:`Outcome`,
  :class:`Notice`, ...) and the :class:`ServiceError` family;
- :mod:`.narration`: what happened, in words;
- :mod:`.computer`, :mod:`.advice`: the computer player, hints and analyses,
  the only door to :mod:`bot.ai`;
- :mod:`.deliveries`: the messages the outbox owes, worded for the dispatcher;
- :mod:`.scheduler`: the loop that does what falls due;
- :mod:`.dice_stats`: whether a player's dice look fair;
- :mod:`.patience`: Serpent Poker Patience, the daily puzzle
  (:attr:`GameService.patience`).

The core reads and writes through :mod:`bot.store` and never imports
``discord`` or the renderer (``tests/test_layers.py`` holds it to that).
"""

from bot.core.advice import Advice
from bot.core.games import GameService
from bot.core.model import *  # noqa: F403  (the values and errors: see bot.core.model.__all__)
from bot.core.model import __all__ as _model_names

__all__ = ["Advice", "GameService", *_model_names]
