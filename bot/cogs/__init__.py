"""Slash-command cogs (one ``/bg`` group)."""
