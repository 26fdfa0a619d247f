"""``DATABASE_URL`` parsing: which backend, and where.

* ``postgresql://user:pass@host:port/db`` (or ``postgres://``) -> PostgreSQL;
  the URL is handed to asyncpg unchanged (query parameters such as
  ``?sslmode=require`` work).
* ``sqlite:///relative/path.sqlite3``, ``sqlite:////absolute/path.sqlite3``,
  ``sqlite:///:memory:`` -> SQLite (SQLAlchemy's spelling).
* Anything else is a plain SQLite path (``data/backgammon.sqlite3``,
  ``:memory:``, ``file:...`` URIs).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit, urlunsplit

Backend = Literal["sqlite", "postgresql"]

_PG_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    """A parsed ``DATABASE_URL``: the backend and its path (SQLite) or DSN (PostgreSQL)."""

    backend: Backend
    location: str

    @property
    def redacted(self) -> str:
        """The location with any password replaced by ``***`` (for logs)."""
        return redact(self.location)


def parse_database_url(url_or_path: str | os.PathLike[str]) -> DatabaseTarget:
    """Classify a ``DATABASE_URL`` or plain SQLite path (see the module docstring)."""
    text = os.fspath(url_or_path)
    lowered = text.lower()
    if lowered.startswith(_PG_SCHEMES):
        return DatabaseTarget("postgresql", text)
    if lowered.startswith("sqlite:"):
        rest = text[len("sqlite:"):]
        if rest.startswith("///"):
            path = rest[3:]  # sqlite:///rel -> rel, sqlite:////abs -> /abs
        elif rest.startswith("//"):
            path = rest[2:]  # sqlite://:memory: and the like
        else:
            path = rest
        path = unquote(path.split("?", 1)[0])
        if not path:
            raise ValueError(f"no database path in {text!r}")
        return DatabaseTarget("sqlite", path)
    if re.match(r"^[a-z][a-z0-9+.-]*://", lowered):
        raise ValueError(f"unsupported database URL scheme in {redact(text)!r} (use sqlite:/// or postgresql://)")
    return DatabaseTarget("sqlite", text)


def redact(url: str) -> str:
    """Hide the password of a URL (``postgresql://u:***@h/db``); paths come back unchanged."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[-1]}"))
