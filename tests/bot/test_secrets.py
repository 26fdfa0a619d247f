"""Secrets never leave the process: database passwords in any spelling and the
bot token are hidden by parsing, in settings, error messages, logs and tracebacks."""

from __future__ import annotations

import logging

import pytest

from bot import __main__ as entry
from bot.config import ConfigError, Settings
from bot.store.drivers.url import parse_database_url, redact, secrets_of

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.nasty-token-value-0123456789"

NASTY = [
    # (DATABASE_URL, the password as written, what the redacted URL reads)
    ("postgresql://bg:pa#ss-W0rd@db/bg", "pa#ss-W0rd", "postgresql://bg:***@db/bg"),
    ("postgresql://bg:pa?ss-W0rd@db:5432/bg", "pa?ss-W0rd", "postgresql://bg:***@db:5432/bg"),
    ("postgresql://bg:pa/ss-W0rd@db/bg", "pa/ss-W0rd", "postgresql://bg:***@db/bg"),
    ("postgresql://bg:pa@ss-W0rd@db/bg", "pa@ss-W0rd", "postgresql://bg:***@db/bg"),
    ("postgresql://bg:pa%23ss%2FW0rd%40@db/bg", "pa%23ss%2FW0rd%40", "postgresql://bg:***@db/bg"),
    ("postgres://bg:pa:ss-W0rd@h1:5432,h2:5433/bg", "pa:ss-W0rd", "postgres://bg:***@h1:5432,h2:5433/bg"),
    ("postgresql://:pa$$-W0rd@db/bg", "pa$$-W0rd", "postgresql://:***@db/bg"),
    (
        "postgresql://bg@db/bg?password=pa%26ss-W0rd&sslmode=require",
        "pa%26ss-W0rd",
        "postgresql://bg@db/bg?password=***&sslmode=require",
    ),
    (
        "postgresql://bg@db/bg?sslmode=require&PASSWORD=pa+ss-W0rd",
        "pa+ss-W0rd",
        "postgresql://bg@db/bg?sslmode=require&PASSWORD=***",
    ),
    (
        "postgresql://bg:first-W0rd@db/bg?sslpassword=second-W0rd",
        "second-W0rd",
        "postgresql://bg:***@db/bg?sslpassword=***",
    ),
]


def spellings(password: str) -> set[str]:
    from urllib.parse import unquote, unquote_plus

    return {password, unquote(password), unquote_plus(password)}


def settings_of(url: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": url}, env_file=None)


@pytest.mark.parametrize(("url", "password", "redacted"), NASTY)
def test_redact_hides_every_spelling_of_the_password(url, password, redacted):
    assert redact(url) == redacted
    assert spellings(password) <= set(secrets_of(url))
    settings = settings_of(url)
    shown = settings.database_redacted + repr(settings)
    assert not any(form in shown for form in spellings(password)), shown
    assert spellings(password) <= set(settings.database_secrets)


@pytest.mark.parametrize(
    "url", ["postgresql://bg@db/bg", "postgresql://db/bg", "sqlite:///data/bg.sqlite3", "data/bg.sqlite3", ":memory:"]
)
def test_urls_without_password_are_left_alone(url):
    assert redact(url) == url and secrets_of(url) == ()


def test_a_raw_at_sign_later_on_hides_more_never_less():
    url = "postgresql://bg:pw-W0rd@db/bg?application_name=me@home"
    assert "pw-W0rd" not in redact(url)
    assert "pw-W0rd" in secrets_of(url)  # the password a standard parser would send is still filtered


@pytest.mark.parametrize(("url", "password", "_"), NASTY[:4])
def test_config_errors_show_no_password(url, password, _):
    bad = url.replace("postgresql", "mysql", 1).replace("postgres", "mysql", 1)
    with pytest.raises(ConfigError) as raised:
        settings_of(bad)
    assert password not in str(raised.value) and "***" in str(raised.value)
    with pytest.raises(ValueError) as refused:
        parse_database_url(bad)
    assert password not in str(refused.value)


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize(("url", "password", "_"), NASTY)
def test_logs_and_tracebacks_hide_the_password_and_the_token(url, password, _, capsys, restore_logging):
    handler = entry.setup_logging(settings_of(url))
    logger = logging.getLogger("asyncpg.somewhere")
    decoded = sorted(spellings(password))
    logger.warning("connect to %s failed (token %s)", url, TOKEN)
    try:
        try:
            raise ConnectionError(f"password {decoded} rejected for {url}")
        except ConnectionError as inner:
            raise RuntimeError(f"login with {TOKEN} failed") from inner
    except RuntimeError:
        logger.exception("could not start")
    logger.warning("where it happened", stack_info=True, extra={"why": TOKEN})
    handler.flush()
    err = capsys.readouterr().err
    assert "Traceback" in err and "ConnectionError" in err and "[redacted]" in err
    assert TOKEN not in err
    assert not any(form in err for form in spellings(password)), err


def test_a_traceback_without_secrets_keeps_its_exception_info(restore_logging):
    settings = settings_of(NASTY[0][0])
    redactor = entry.RedactFilter(settings.token, *settings.database_secrets)
    try:
        raise ValueError("nothing secret")
    except ValueError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, __file__, 1, "oops", (), __import__("sys").exc_info()
        )
    assert redactor.filter(record) and record.exc_info is not None
