"""The Discord layer: slash commands, buttons and board messages over the core.

:mod:`.client` builds the parts; :mod:`.cogs` (``/bg``, ``/bgtools``) and the
persistent :mod:`.components` translate interactions into core calls through
:mod:`.table`; :mod:`.boards` draws and posts every board; :mod:`.presenter`
words the results; :mod:`.replies` answers within Discord's rules;
:mod:`.errors` is the one error path. Only this package imports ``discord``,
and it reaches the store and the AI only through :mod:`bot.core`.
"""
