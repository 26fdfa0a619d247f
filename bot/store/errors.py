"""Storage errors, shared by the repositories and the drivers.

``str(err)`` of every :class:`StorageError` is fit to show a player.  Each
driver turns its own library's errors into these, so nothing above the
drivers knows sqlite3 or asyncpg.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every storage error; ``str(err)`` is fit to show a player."""

    default_message = "Something went wrong while saving the game. Please try again."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.default_message)

    @property
    def message(self) -> str:
        """The player-facing message."""
        return str(self.args[0])


class StaleVersionError(StorageError):
    """The game changed since the caller read it (compare-and-set failed)."""

    default_message = "the game has moved on"

    def __init__(
        self,
        message: str | None = None,
        *,
        game_id: int | None = None,
        expected: int | None = None,
        actual: int | None = None,
    ) -> None:
        super().__init__(message)
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class ChannelBusyError(StorageError):
    """A second active game was about to be created in one channel."""

    default_message = "There is already a game in progress in this channel."

    def __init__(self, message: str | None = None, *, channel_id: int | None = None) -> None:
        super().__init__(message)
        self.channel_id = channel_id


class NotFoundError(StorageError):
    """The requested game, challenge or player does not exist."""

    default_message = "That game or challenge no longer exists."


class GameOverError(StorageError):
    """Actions were appended to a game that is no longer active."""

    default_message = "This game is already over."


class ChallengeClosedError(StorageError):
    """A challenge was answered after it stopped being pending."""

    default_message = "This challenge is no longer open."

    def __init__(self, message: str | None = None, *, status: str | None = None) -> None:
        super().__init__(message)
        self.status = status


class ChallengeLimitError(StorageError):
    """A new challenge would give its challenger, or its target, more challenges
    waiting for an answer than allowed; nothing was written."""

    default_message = "Too many challenges are waiting for an answer."

    def __init__(self, message: str | None = None, *, side: str = "challenger", limit: int = 0) -> None:
        super().__init__(message)
        self.side = side
        """``"challenger"`` or ``"challenged"``: whose limit it is; ``"rematch"``: the game
        has a rematch waiting for an answer already (one at a time)."""
        self.limit = limit


class DatabaseBusyError(StorageError):
    """The database stayed locked longer than the busy timeout (or a lock wait was aborted)."""

    default_message = "The bot is busy right now; please try again in a moment."


class DatabaseUnavailableError(StorageError):
    """The database server cannot be reached (down, restarting, connection lost).

    Nothing is known to have been written by the failed call, except when the
    connection was lost during COMMIT: then the write may or may not have
    been applied (a retried compare-and-set append tells which: it gets
    :class:`StaleVersionError` if the first one landed).  The store keeps
    working once the server is back; no restart of the bot is needed.
    """

    default_message = "The database is unavailable, try again in a moment."


class StorageFullError(StorageError):
    """The database cannot grow: its disk is full (or its size capped). Nothing was
    written; writes work again by themselves once there is room. The driver logs
    it once, when writes start failing, not once per failed write."""

    default_message = "The bot can't save anything right now; please try again later."


class ConstraintError(StorageError):
    """A statement broke an integrity constraint (the drivers raise it for their
    library's integrity errors); ``table`` and ``columns`` say which unique key,
    when the database tells."""

    def __init__(self, message: str | None = None, *, table: str | None = None, columns: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.table = table
        self.columns = columns

    def is_unique(self, table: str, *columns: str) -> bool:
        """True when this is a duplicate of the unique key ``table(columns)``."""
        return self.table == table and self.columns == columns
