"""A member's notification preferences, and the clock rules behind them (pure).

Correspondence play means days between moves, so each member says how the
bot may reach them (``/bg settings``):

- ``turn``: ``ping`` (a mention on the board, the default), ``dm`` (a direct
  message with a link instead) or ``digest`` (nothing per turn: a daily list);
- ``reminders``: whether the reminder before a turn runs out comes at all;
- ``digest_hour``: the local hour of the daily digest (None: no digest);
- ``tz``: an IANA time zone name (``Europe/Paris``), read with :mod:`zoneinfo`;
- ``quiet``: quiet hours ``(start, end)`` in local whole hours, crossing
  midnight when ``start > end``: no pings then. The move clock keeps running;
  a reminder due then comes when they end.

Times are compared in the member's own zone, so a daylight-saving change
moves nothing a member chose: quiet hours from 22 to 7 stay 22 to 7 local.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.core.model import ServiceError
from i18n import _

TURN_MODES = ("ping", "dm", "digest")
DEFAULT_DIGEST_HOUR = 9
"""The digest's hour when a member picks ``turn: digest`` without choosing one."""


class PreferenceError(ServiceError):
    """A preference that cannot be kept (an unknown zone, an hour out of range)."""


def zone_named(name: str) -> ZoneInfo:
    """:raises PreferenceError: for a name the time zone database does not know."""
    if not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        raise PreferenceError(_("that is not a time zone: pick one from the list, e.g. Europe/London"))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise PreferenceError(
            _("{name} is not a time zone I know: pick one from the list, e.g. Europe/London").format(name=name[:64])
        ) from None


@functools.cache
def _zones() -> tuple[tuple[str, str], ...]:
    """Every zone name (and its lower case), sorted: read from the tz files once, not per keystroke."""
    return tuple((name, name.lower()) for name in sorted(available_timezones()))


def zone_names(typed: str, limit: int = 25) -> list[str]:
    """Time zone names containing ``typed`` (case-insensitive), the best matches first."""
    needle = typed.strip().lower().replace(" ", "_")[:64]
    zones = _zones()
    starting = [n for n, low in zones if low.startswith(needle)]
    inside = [n for n, low in zones if needle in low and not low.startswith(needle)]
    return (starting + inside)[:limit]


@dataclass(frozen=True, slots=True)
class Prefs:
    """One member's preferences (see the module)."""

    turn: str = "ping"
    reminders: bool = True
    digest_hour: int | None = None
    tz: str = "UTC"
    quiet: tuple[int, int] | None = None
    tutor: float | None = None
    """The tutor's threshold: a decision giving up this much equity or more is warned
    before it is made (:mod:`bot.core.tutor`); None: the tutor is off."""

    def __post_init__(self) -> None:
        if self.tutor is not None and not 0.001 <= self.tutor <= 1.0:
            raise PreferenceError(_("the tutor's threshold is an equity from 0.001 to 1, e.g. 0.08"))
        if self.turn not in TURN_MODES:
            raise PreferenceError(
                _("on your turn I can {join}: not {turn}").format(join=", ".join(TURN_MODES), turn=self.turn[:20])
            )
        if self.digest_hour is not None and not 0 <= self.digest_hour <= 23:
            raise PreferenceError(_("the digest's hour is 0 to 23"))
        if self.quiet is not None:
            start, end = self.quiet
            if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
                raise PreferenceError(_("quiet hours are two different hours from 0 to 23, e.g. 22 to 7"))
        zone_named(self.tz)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def changed(self, **changes: Any) -> Prefs:
        """These preferences with ``changes`` (``turn: digest`` brings a digest hour)."""
        prefs = replace(self, **changes)
        if prefs.turn == "digest" and prefs.digest_hour is None:
            prefs = replace(prefs, digest_hour=DEFAULT_DIGEST_HOUR)
        return prefs

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"turn": self.turn, "reminders": self.reminders, "tz": self.tz}
        if self.digest_hour is not None:
            data["digest_hour"] = self.digest_hour
        if self.quiet is not None:
            data["quiet"] = list(self.quiet)
        if self.tutor is not None:
            data["tutor"] = self.tutor
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Prefs:
        """Preferences as stored; anything unreadable falls back to the defaults."""
        if not data:
            return cls()
        try:
            quiet = data.get("quiet")
            return cls(
                turn=str(data.get("turn", "ping")),
                reminders=bool(data.get("reminders", True)),
                digest_hour=data.get("digest_hour"),
                tz=str(data.get("tz", "UTC")),
                quiet=(int(quiet[0]), int(quiet[1])) if quiet else None,
                tutor=float(data["tutor"]) if data.get("tutor") is not None else None,
            )
        except (PreferenceError, TypeError, ValueError, IndexError):
            return cls()

    # -- the clock rules ---------------------------------------------------------------------

    def is_quiet(self, at: datetime) -> bool:
        """Whether ``at`` falls in the member's quiet hours (local time)."""
        if self.quiet is None:
            return False
        start, end = self.quiet
        hour = at.astimezone(self.zone).hour
        return start <= hour < end if start < end else hour >= start or hour < end

    def quiet_ends(self, at: datetime) -> datetime:
        """When the quiet hours around ``at`` end (``at`` itself when not quiet)."""
        if not self.is_quiet(at):
            return at
        assert self.quiet is not None
        return self._next_local_hour(at, self.quiet[1])

    def pings_on_turn(self, at: datetime) -> bool:
        """Whether a board may mention the member when it is their turn at ``at``."""
        return self.turn == "ping" and not self.is_quiet(at)

    def pinged(self, at: datetime) -> bool:
        """Whether any message may mention the member at ``at`` (quiet hours: none)."""
        return not self.is_quiet(at)

    def messages_on_turn(self, at: datetime) -> bool:
        """Whether a direct message goes to the member when it is their turn at ``at``."""
        return self.turn == "dm" and not self.is_quiet(at)

    def next_digest(self, after: datetime) -> datetime | None:
        """The first digest strictly after ``after`` (None: no digest)."""
        if self.digest_hour is None:
            return None
        return self._next_local_hour(after, self.digest_hour)

    def _next_local_hour(self, after: datetime, hour: int) -> datetime:
        """The first moment strictly after ``after`` when the local clock reads ``hour``:00.

        On a day whose clock skips that hour (spring forward) it is the moment
        the clock jumps over it; a repeated hour (autumn) counts once, the first time.
        """
        zone = self.zone
        local = after.astimezone(zone)
        for days in range(3):
            day = local.date() + timedelta(days=days)
            # fold=0: a repeated hour is taken the first time; a skipped one maps
            # to the moment the clock jumps over it
            moment = datetime.combine(day, time(hour), tzinfo=zone).astimezone(UTC)
            if moment > after:
                return moment
        raise AssertionError("a local hour comes within three days")

    def describe(self) -> str:
        """The preferences in a few words, for ``/bg settings``."""
        turn = {
            "ping": _("a ping on the board"),
            "dm": _("a direct message"),
            "digest": _("nothing (the daily digest)"),
        }[self.turn]
        digest = _("at {time}").format(time=f"{self.digest_hour:02d}:00") if self.digest_hour is not None else _("off")
        quiet = (
            _("{start} to {end}").format(start=f"{self.quiet[0]:02d}:00", end=f"{self.quiet[1]:02d}:00")
            if self.quiet
            else _("none")
        )
        lines = [
            _("On your turn: {turn}").format(turn=turn),
            _("Reminders: {state}").format(state=_("on") if self.reminders else _("off")),
            _("Daily digest: {digest}").format(digest=digest),
            _("Quiet hours: {quiet}").format(quiet=quiet),
            _("Time zone: {zone}").format(zone=self.tz),
        ]
        if self.tutor is not None:
            lines.append(
                _("Tutor: a warning before a play or cube action giving up {equity} or more").format(
                    equity=f"{self.tutor:.3f}"
                )
            )
        else:
            lines.append(_("Tutor: off"))
        return "\n".join(lines)
