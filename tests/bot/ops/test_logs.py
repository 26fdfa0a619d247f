"""Logs off a terminal: no colour codes; LOG_FORMAT=json: one object per line, secrets redacted."""

from __future__ import annotations

import io
import json
import logging
import sys

import discord
import pytest

from bot import __main__ as entry
from bot.config import Settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret.token-of-the-bot"
WEBHOOK = "https://discord.com/api/webhooks/1234/webhook-secret-part"


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def run_logging(monkeypatch, settings: Settings, *, tty: bool = False) -> str:
    stream = io.StringIO()
    stream.isatty = lambda: tty  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(discord.utils, "is_docker", lambda: True)  # discord.py's colour whenever in Docker
    handler = entry.setup_logging(settings)
    log = logging.getLogger("bot.somewhere")
    log.warning("game #42 went wrong for %s", TOKEN)
    try:
        raise RuntimeError(f"boom with {TOKEN} and {WEBHOOK}")
    except RuntimeError:
        log.exception("unexpected error in game 7")
    logging.getLogger("discord.gateway").info("plain")
    handler.flush()
    return stream.getvalue()


def test_no_colour_off_a_terminal_even_in_docker(monkeypatch, restore_logging) -> None:
    text = run_logging(monkeypatch, Settings(token=TOKEN))
    assert "\x1b[" not in text
    assert "[WARNING ] bot.somewhere: game #42 went wrong for [redacted]" in text
    assert TOKEN not in text


def test_colour_stays_on_a_terminal(monkeypatch, restore_logging) -> None:
    text = run_logging(monkeypatch, Settings(token=TOKEN), tty=True)
    assert "\x1b[" in text and TOKEN not in text


def test_json_lines(monkeypatch, restore_logging) -> None:
    settings = Settings(token=TOKEN, log_format="json", shard_count=4, shard_ids=(1, 3), alert_webhook_url=WEBHOOK)
    text = run_logging(monkeypatch, settings)
    assert TOKEN not in text and WEBHOOK not in text and "webhook-secret-part" not in text
    entries = [json.loads(line) for line in text.splitlines()]
    assert len(entries) == 3
    warning, error, plain = entries
    assert warning["level"] == "WARNING" and warning["logger"] == "bot.somewhere"
    assert warning["message"] == "game #42 went wrong for [redacted]"
    assert warning["game"] == 42 and warning["shard"] == [1, 3]
    assert warning["time"].endswith("+00:00")
    assert error["game"] == 7 and "RuntimeError: boom with [redacted]" in error["exception"]
    assert "exception" not in plain and "game" not in plain


def test_log_format_is_checked() -> None:
    assert Settings.from_env({"DISCORD_TOKEN": "x", "LOG_FORMAT": "JSON"}, env_file=None).log_format == "json"
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        Settings.from_env({"DISCORD_TOKEN": "x", "LOG_FORMAT": "xml"}, env_file=None)
