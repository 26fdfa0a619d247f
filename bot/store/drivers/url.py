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
from urllib.parse import unquote, unquote_plus, urlsplit

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
        rest = text[len("sqlite:") :]
        if rest.startswith("///"):
            path = rest[3:]  # sqlite:///rel -> rel, sqlite:////abs -> /abs
        elif rest.startswith("//"):
            path = rest[2:]  # sqlite://:memory: and the like
        else:
            path = rest
        path = unquote(path.split("?", 1)[0])
        if not path:
            raise ValueError(f"no database path in {redact(text)!r}")
        return DatabaseTarget("sqlite", path)
    if re.match(r"^[a-z][a-z0-9+.-]*://", lowered):
        raise ValueError(f"unsupported database URL scheme in {redact(text)!r} (use sqlite:/// or postgresql://)")
    return DatabaseTarget("sqlite", text)


_SECRET_KEY = re.compile(
    r"""(?P<key>\b[\w.-]*(?:pass|secret|token)[\w.-]*\s*=\s*)(?P<value>[^&#;\s]*)""", re.IGNORECASE
)
"""``password=...`` (and ``sslpassword``, ``secret``, ``token``...) in a query or a keyword string."""


def _userinfo(rest: str) -> tuple[str, str] | None:
    """``(user info, what follows its '@')`` of the text after ``scheme://``, or None without an '@'.

    The ordinary case is the one ``urlsplit`` reads: an '@' in the host part and
    none after it. A password written with a raw '/', '?' or '#' (or an '@' further
    on) fools that parse, so then everything up to the *last* '@' counts as user
    info: more is hidden, never less.
    """
    delimiters = [i for i in (rest.find(c) for c in "/?#") if i >= 0]
    host_end = min(delimiters, default=len(rest))
    if "@" in rest[:host_end] and "@" not in rest[host_end:]:
        at = rest.rfind("@", 0, host_end)
    else:
        at = rest.rfind("@")
    if at < 0:
        return None
    return rest[:at], rest[at + 1 :]


def redact(url: str) -> str:
    """Hide the passwords of a database URL: ``postgresql://u:***@h/db?sslpassword=***``.

    The password of the user info and every ``...password=`` (``secret``,
    ``token``) value in the query are replaced, however they are spelled
    (raw ``#``, ``?``, ``/`` or ``@``, percent-encoded); plain paths come back unchanged.
    """
    if "://" not in url:
        return _hide_keys(url)
    scheme, rest = url.split("://", 1)
    found = _userinfo(rest)
    if found is not None:
        userinfo, after = found
        user, colon, _ = userinfo.partition(":")
        rest = f"{user}:***@{after}" if colon else f"{userinfo}@{after}"
    return f"{scheme}://{_hide_keys(rest)}"


def _hide_keys(text: str) -> str:
    return _SECRET_KEY.sub(r"\g<key>***", text)


def secrets_of(url: str) -> tuple[str, ...]:
    """The passwords in a database URL (see :func:`redact`), as written and as decoded; () if none."""
    found: list[str] = []
    rest = url.split("://", 1)[1] if "://" in url else url
    info = _userinfo(rest) if "://" in url else None
    if info is not None:
        _, colon, password = info[0].partition(":")
        if colon and password:
            found.append(password)
        try:
            found.append(urlsplit(url).password or "")  # what a standard parser would send, if it differs
        except ValueError:
            pass
    found += [m["value"] for m in _SECRET_KEY.finditer(rest) if m["value"]]
    spellings = [form for secret in found for form in (secret, unquote(secret), unquote_plus(secret))]
    return tuple(dict.fromkeys(s for s in spellings if s))
