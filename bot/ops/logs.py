"""Log lines an operator can use: plain text off a terminal, or one JSON object per line.

discord.py's console logging colours its lines whenever it thinks it runs in
Docker, terminal or not (``discord.utils.stream_supports_colour``), which fills
files and ``docker logs`` with escape codes: colour here only on a terminal.
``LOG_FORMAT=json`` writes one object per line for a log shipper: ``time``
(UTC, ISO 8601), ``level``, ``logger``, ``message``, ``shard`` (this process's
shards, when sharded), ``game`` (when the record names one) and ``exception``
(the traceback). The redaction filter runs before any of these formatters.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

TEXT_FORMAT = "[{asctime}] [{levelname:<8}] {name}: {message}"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
GAME = re.compile(r"\bgame #?(\d+)", re.IGNORECASE)


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def __init__(self, shard: list[int] | None = None) -> None:
        super().__init__()
        self.shard = shard

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        shard = getattr(record, "shard", None)
        if shard is None:
            shard = self.shard
        if shard is not None:
            entry["shard"] = shard
        game = getattr(record, "game_id", None)
        if game is None and (found := GAME.search(message)) is not None:
            game = int(found[1])
        if game is not None:
            entry["game"] = game
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter_for(log_format: str, stream: Any, shard: list[int] | None = None) -> logging.Formatter | None:
    """The formatter for a handler on ``stream``: JSON, plain text, or None for discord.py's
    coloured one (a terminal, text format)."""
    if log_format == "json":
        return JsonFormatter(shard)
    if hasattr(stream, "isatty") and stream.isatty():
        return None
    return logging.Formatter(TEXT_FORMAT, DATE_FORMAT, style="{")
