"""Notification preferences and their clock rules: quiet hours across midnight
and daylight-saving changes, the digest's next hour, refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.notifications import PreferenceError, Prefs, zone_names

UTC = UTC
LONDON = "Europe/London"


def local(text: str, tz: str = LONDON) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz))


def test_quiet_hours_cross_midnight():
    prefs = Prefs(tz=LONDON, quiet=(22, 7))
    assert prefs.is_quiet(local("2026-01-10T22:00")) and prefs.is_quiet(local("2026-01-11T06:59"))
    assert not prefs.is_quiet(local("2026-01-10T21:59")) and not prefs.is_quiet(local("2026-01-11T07:00"))
    assert prefs.quiet_ends(local("2026-01-10T23:30")) == local("2026-01-11T07:00")
    assert prefs.quiet_ends(local("2026-01-11T03:00")) == local("2026-01-11T07:00")
    noon = local("2026-01-11T12:00")
    assert prefs.quiet_ends(noon) == noon  # not quiet: now
    day = Prefs(tz=LONDON, quiet=(9, 17))  # within one day
    assert day.is_quiet(local("2026-01-11T09:00")) and not day.is_quiet(local("2026-01-11T17:00"))


def test_quiet_hours_keep_the_local_clock_over_daylight_saving_changes():
    prefs = Prefs(tz=LONDON, quiet=(22, 7))
    # the clocks go forward on 29 March 2026 (01:00 GMT -> 02:00 BST): quiet ends at 07:00 BST = 06:00 UTC
    assert prefs.quiet_ends(datetime(2026, 3, 28, 23, 30, tzinfo=UTC)) == datetime(2026, 3, 29, 6, 0, tzinfo=UTC)
    # and back on 25 October (02:00 BST -> 01:00 GMT): 07:00 GMT = 07:00 UTC, a night an hour longer
    assert prefs.quiet_ends(datetime(2026, 10, 24, 21, 30, tzinfo=UTC)) == datetime(2026, 10, 25, 7, 0, tzinfo=UTC)
    assert prefs.is_quiet(datetime(2026, 10, 25, 6, 30, tzinfo=UTC))  # 06:30 GMT: still quiet
    assert not prefs.is_quiet(datetime(2026, 3, 29, 6, 30, tzinfo=UTC))  # 07:30 BST: awake


def test_the_next_digest_in_the_members_zone():
    prefs = Prefs(tz="America/New_York", digest_hour=8)
    after = datetime(2026, 1, 10, 14, 0, tzinfo=UTC)  # 09:00 in New York: today's has passed
    assert prefs.next_digest(after) == datetime(2026, 1, 11, 13, 0, tzinfo=UTC)
    assert prefs.next_digest(datetime(2026, 1, 10, 12, 59, tzinfo=UTC)) == datetime(2026, 1, 10, 13, 0, tzinfo=UTC)
    # New York springs forward on 8 March 2026: 08:00 EDT is 12:00 UTC
    assert prefs.next_digest(datetime(2026, 3, 8, 5, 0, tzinfo=UTC)) == datetime(2026, 3, 8, 12, 0, tzinfo=UTC)
    assert Prefs().next_digest(after) is None
    # a skipped hour (01:00 on London's spring-forward day) comes when the clock jumps over it
    early = Prefs(tz=LONDON, digest_hour=1)
    assert early.next_digest(datetime(2026, 3, 28, 23, 0, tzinfo=UTC)) == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)


@settings(max_examples=300, deadline=None)
@given(
    start=st.integers(0, 23),
    end=st.integers(0, 23),
    hour=st.integers(0, 23),
    at=st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 1, 1), timezones=st.just(UTC)),
    tz=st.sampled_from(["UTC", LONDON, "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Pacific/Chatham"]),
)
def test_invariants(start, end, hour, at, tz):
    """Quiet hours end after a moment that is quiet, at a time that is not; the
    next digest is within a day and a bit, strictly later, at the chosen local hour."""
    if start != end:
        prefs = Prefs(tz=tz, quiet=(start, end))
        ends = prefs.quiet_ends(at)
        if prefs.is_quiet(at):
            assert ends > at and not prefs.is_quiet(ends) and ends - at <= timedelta(hours=25)
        else:
            assert ends == at
    digest = Prefs(tz=tz, digest_hour=hour).next_digest(at)
    assert at < digest <= at + timedelta(hours=26)
    assert digest is not None
    local_hour = digest.astimezone(ZoneInfo(tz)).hour
    assert local_hour == hour or local_hour == (hour + 1) % 24  # or the jump over a skipped hour


def test_what_each_mode_allows():
    night = datetime(2026, 1, 11, 3, 0, tzinfo=UTC)
    noon = datetime(2026, 1, 11, 12, 0, tzinfo=UTC)
    ping = Prefs(quiet=(22, 7))
    assert ping.pings_on_turn(noon) and not ping.pings_on_turn(night) and not ping.messages_on_turn(noon)
    dm = Prefs(turn="dm", quiet=(22, 7))
    assert dm.messages_on_turn(noon) and not dm.messages_on_turn(night) and not dm.pings_on_turn(noon)
    digest = Prefs().changed(turn="digest")
    assert digest.digest_hour == 9 and not digest.pings_on_turn(noon) and not digest.messages_on_turn(noon)
    assert Prefs.from_dict(digest.to_dict()) == digest and Prefs.from_dict(ping.to_dict()) == ping
    assert Prefs.from_dict({"tz": "Mars/Olympus"}) == Prefs()  # unreadable: the defaults


@pytest.mark.parametrize(
    "bad",
    [
        {"tz": "Mars/Olympus"},
        {"tz": "../../etc/passwd"},
        {"tz": "x" * 500},
        {"quiet": (5, 5)},
        {"quiet": (0, 24)},
        {"digest_hour": 24},
        {"turn": "carrier pigeon"},
    ],
)
def test_refusals(bad):
    with pytest.raises(PreferenceError):
        Prefs().changed(**bad)


def test_zone_names_for_autocomplete():
    assert zone_names("europe/lon")[0] == LONDON
    assert "America/New_York" in zone_names("new york")
    assert len(zone_names("")) == 25
