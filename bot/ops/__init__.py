"""Running the bot as a service: clean stops, the health check, probes and metrics, logs and alerts.

Nothing here knows Discord: the Discord layer and the composition root
(``bot/__main__.py``) hand in what to watch as plain callables.
"""
