"""``python -m bot`` and its settings: the token, ``.env``, clear failures, no secrets in logs."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import discord
import pytest

from bot import __main__ as entry
from bot.config import SETTING, SETTINGS, ConfigError, Limits, Settings, read_env_file
from bot.core import GameService
from tests.bot.bots import build_bot

SECRET = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.fake-secret-token-value-0123456789"


def test_settings_defaults():
    settings = Settings.from_env({"DISCORD_TOKEN": "abc"}, env_file=None)
    assert settings.token == "abc"
    assert settings.database_path == "data/backgammon.sqlite3"
    assert settings.dev_guild_id is None
    assert settings.default_move_days == 3
    assert settings.log_level == "INFO" and settings.log_level_number == logging.INFO
    assert settings.limits == Limits() and (
        settings.limits.max_stake,
        settings.limits.pending_per_challenger,
        settings.limits.pending_per_challenged,
    ) == (100, 3, 5)
    assert settings.http_connections == 100
    assert "abc" not in repr(settings)


def test_the_limits_against_floods_and_stakes_are_settings():
    settings = Settings.from_env(
        {"DISCORD_TOKEN": "t", "MAX_STAKE": "500", "MAX_PENDING_CHALLENGES": "2", "MAX_CHALLENGES_RECEIVED": "9"},
        env_file=None,
    )
    assert settings.limits == Limits(max_stake=500, pending_per_challenger=2, pending_per_challenged=9)


def test_settings_from_env_file(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\n"
        "export DISCORD_TOKEN='from-file'\n"
        "DATABASE_PATH=/tmp/x.sqlite3  # where\n"
        'DEV_GUILD_ID="42"\n'
        "DEFAULT_MOVE_DAYS=5\n"
        "LOG_LEVEL=debug\n"
        "not a setting\n",
        encoding="utf-8",
    )
    assert read_env_file(env_file)["DATABASE_PATH"] == "/tmp/x.sqlite3"
    settings = Settings.from_env({}, env_file=env_file)
    assert (settings.token, settings.database_path, settings.dev_guild_id) == ("from-file", "/tmp/x.sqlite3", 42)
    assert (settings.default_move_days, settings.log_level) == (5, "DEBUG")
    # the environment wins over the file; an empty variable does not wipe the file's value
    overridden = Settings.from_env({"DISCORD_TOKEN": "from-env", "DEV_GUILD_ID": ""}, env_file=env_file)
    assert overridden.token == "from-env" and overridden.dev_guild_id == 42


EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", ".env.example")


def documented_settings() -> dict[str, str]:
    """``NAME=value`` of ``.env.example``, set or commented out (``# NAME=value``)."""
    found: dict[str, str] = {}
    with open(EXAMPLE, encoding="utf-8") as lines:
        for line in lines:
            match = re.fullmatch(r"#?\s*([A-Z][A-Z0-9_]*)=(\S*)\s*", line.rstrip("\n"))
            if match:
                assert match[1] not in found, f"{match[1]} is documented twice"
                found[match[1]] = match[2]
    return found


def test_the_example_file_documents_exactly_the_settings_with_their_defaults():
    """``.env.example`` is the one list of settings admins read: every setting of the table is in
    it, nothing else is, and a value it shows for a setting with a default is that default."""
    documented = documented_settings()
    declared = {s.name for s in SETTINGS}
    assert not declared - set(documented), "settings missing from .env.example"
    assert not set(documented) - declared, ".env.example documents settings that do not exist"
    for name, text in documented.items():
        setting = SETTING[name]
        if not text:
            continue
        value = setting.parse(setting, text)  # every value shown is one the bot accepts
        if setting.default is not None and setting.default != "":
            assert value == setting.default, f"{name}={text} in .env.example, but the default is {setting.default!r}"
    set_there = read_env_file(EXAMPLE)
    assert set(set_there) == {"DISCORD_TOKEN", "DATABASE_PATH", "DEV_GUILD_ID", "DEFAULT_MOVE_DAYS", "LOG_LEVEL"}
    with pytest.raises(ConfigError):
        Settings.from_env(set_there, env_file=None)  # the example has no token


def test_every_setting_reaches_the_settings():
    """Each setting of the table, set to a value other than its default, shows in what from_env builds."""
    examples = {
        "DATABASE_URL": "postgresql://u:p@h:5432/d",
        "DATABASE_POOL_MIN": "2",
        "DATABASE_POOL_MAX": "20",
        "SHARD_COUNT": "4",
        "SHARD_IDS": "1,3",
        "DEV_GUILD_ID": "42",
        "DATABASE_PATH": "/srv/bg.sqlite3",
        "LOG_LEVEL": "debug",
        "SQLITE_CHECKPOINTS": "off",
        "SNAPSHOT_BEFORE_MIGRATION": "off",
        "SHARD_WAIT": "off",
        "LOW_DISK_MB": "10",
        "HEALTH_PORT": "9102",
        "HEALTH_HOST": "0.0.0.0",
        "LOG_FORMAT": "json",
        "WORKER_PRIORITY": "normal",
        "ALERT_WEBHOOK_URL": "https://discord.com/api/webhooks/1/x",
    }
    for setting in SETTINGS:
        if setting.name == "DISCORD_TOKEN" or setting.attr == "secret_files":
            continue  # the secret files are read in tests/bot/ops/test_files.py
        if setting.name in examples:
            text = examples[setting.name]
        elif setting.name.startswith("COOLDOWN_"):
            text = "7/11"
        else:
            text = str(int(setting.default) + 1)
        environ = {"DISCORD_TOKEN": "t", setting.name: text}
        if setting.name == "SHARD_IDS":
            environ["SHARD_COUNT"] = "4"
        built = Settings.from_env(environ, env_file=None)
        default = Settings.from_env({"DISCORD_TOKEN": "t"}, env_file=None)
        assert built != default, setting.name
        group, _, attr = setting.attr.partition(".")
        if group == "limits":
            assert getattr(built.limits, attr) == int(text), setting.name
        elif group == "cooldowns":
            assert (attr, 7, 11.0) in built.cooldowns, setting.name


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "DISCORD_TOKEN is not set"),
        ({"DISCORD_TOKEN": "   "}, "DISCORD_TOKEN is not set"),
        ({"DISCORD_TOKEN": "t", "DEV_GUILD_ID": "abc"}, "DEV_GUILD_ID"),
        ({"DISCORD_TOKEN": "t", "DEFAULT_MOVE_DAYS": "15"}, "DEFAULT_MOVE_DAYS must be 1 to 14"),
        ({"DISCORD_TOKEN": "t", "DEFAULT_MOVE_DAYS": "three"}, "DEFAULT_MOVE_DAYS"),
        ({"DISCORD_TOKEN": "t", "LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
        ({"DISCORD_TOKEN": "t", "MAX_STAKE": "0"}, "MAX_STAKE must be 1 to 1000000"),
        ({"DISCORD_TOKEN": "t", "MAX_PENDING_CHALLENGES": "many"}, "MAX_PENDING_CHALLENGES must be a whole number"),
        ({"DISCORD_TOKEN": "t", "MAX_CHALLENGES_RECEIVED": "0"}, "MAX_CHALLENGES_RECEIVED must be 1 to 100"),
        ({"DISCORD_TOKEN": "t", "HTTP_CONNECTIONS": "0"}, "HTTP_CONNECTIONS must be 1 to 10000"),
    ],
)
def test_bad_settings_say_what_to_fix(environ, expected):
    with pytest.raises(ConfigError, match=expected) as info:
        Settings.from_env(environ, env_file=None)
    if "TOKEN" in expected:
        assert ".env.example" in str(info.value)


def test_python_m_bot_without_a_token(tmp_path):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "SYSTEMROOT", "LANG")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "DISCORD_TOKEN" in lines[0] and "copy .env.example to .env" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_python_m_bot_reads_dotenv_in_cwd(tmp_path):
    (tmp_path / ".env").write_text("DISCORD_TOKEN=x\nDEFAULT_MOVE_DAYS=99\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "SYSTEMROOT", "LANG")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    # the token was found in .env; the bad setting next to it stops the start
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == ["bot: DEFAULT_MOVE_DAYS must be 1 to 14, not 99"]


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_rejected_token_one_line_and_never_logged(monkeypatch, capsys, caplog, tmp_path, restore_logging):
    """Start as for real with a fake token; Discord (faked at the HTTP layer) answers 401."""
    seen: list[str] = []

    async def refuse(self, route, **kwargs):
        seen.append(route.path)
        raise discord.HTTPException(
            SimpleNamespace(status=401, reason="Unauthorized"), {"message": "401: Unauthorized", "code": 0}
        )

    monkeypatch.setattr(discord.http.HTTPClient, "request", refuse)
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    code = entry.main(
        [], environ={"DISCORD_TOKEN": SECRET, "LOG_LEVEL": "DEBUG", "DATABASE_PATH": str(tmp_path / "bg.sqlite3")}
    )
    captured = capsys.readouterr()
    assert code != 0 and seen == ["/users/@me"]
    ours = [line for line in captured.err.splitlines() if line.startswith("bot:")]
    assert len(ours) == 1 and "rejected DISCORD_TOKEN" in ours[0] and ".env" in ours[0]
    assert "Traceback" not in captured.err
    assert SECRET not in captured.err and SECRET not in captured.out
    assert SECRET not in caplog.text
    assert caplog.records  # there were logs (at DEBUG), just no token in them


def test_the_token_is_redacted_if_anything_logs_it(capsys, restore_logging):
    settings = Settings(token=SECRET, log_level="INFO")
    handler = entry.setup_logging(settings)
    logging.getLogger("somewhere").warning("oops %s", SECRET)
    handler.flush()
    err = capsys.readouterr().err
    assert "oops [redacted]" in err and SECRET not in err


async def test_simcord_startup_logs_no_token(simcord_env, caplog):
    """A whole start-up (setup_hook, sync, READY) at DEBUG level with our settings' token."""
    caplog.set_level(logging.DEBUG)
    await simcord_env.restart_bot(
        build_bot(
            Settings(token=SECRET, database_path=simcord_env.bot.settings.database_path, log_level="DEBUG"),
            service=GameService(simcord_env.bot.service.store),
        )
    )
    assert caplog.records
    assert SECRET not in caplog.text


def test_the_loop_is_uvloop_where_installed_and_asyncio_otherwise(monkeypatch):
    import asyncio

    seen = []

    async def where() -> None:
        seen.append(type(asyncio.get_running_loop()).__module__)

    entry._run_loop(where())
    pytest.importorskip("uvloop")
    assert seen[-1].startswith("uvloop")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if not installed
    entry._run_loop(where())
    assert seen[-1].startswith("asyncio")


async def test_once_started_the_collector_leaves_startup_objects_alone_and_runs_less_often(monkeypatch):
    import gc

    seen: dict[str, tuple[int, tuple[int, ...]]] = {}

    class Bot:
        """Just the calls ``run`` makes (login runs setup_hook; connect serves until the end)."""

        async def __aenter__(self) -> Bot:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        async def login(self, token: str) -> None:
            seen["login"] = (gc.get_freeze_count(), gc.get_threshold())

        async def connect(self) -> None:
            seen["connect"] = (gc.get_freeze_count(), gc.get_threshold())

    async def open_bot(settings):
        return Bot()

    monkeypatch.setattr(entry, "open_bot", open_bot)
    default = gc.get_threshold()
    try:
        await entry.run(Settings(token="x"))
    finally:  # this test process goes on with Python's defaults
        gc.unfreeze()
        gc.set_threshold(*default)
    assert seen["login"] == (0, default)
    frozen, thresholds = seen["connect"]
    assert frozen > 1000 and thresholds == entry.GC_THRESHOLDS


def test_no_warnings_about_voice_libraries_at_start_up(monkeypatch, caplog):

    # as in a fresh process: discord.py warns once per process that it cannot do voice
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True)
    caplog.set_level(logging.DEBUG)
    build_bot(Settings(token="x"), scheduler=False)
    assert "voice" not in caplog.text.lower()


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_the_commands_and_starts_nothing(flag, capsys):
    code = entry.main([flag], environ={})  # no token: the help needs none, and nothing starts
    captured = capsys.readouterr()
    assert code == 0 and captured.err == ""
    assert captured.out.startswith("usage: python -m bot")
    assert "sync" in captured.out and ".env.example" in captured.out


def test_an_unknown_command_is_a_usage_error(capsys):
    code = entry.main(["frobnicate"], environ={"DISCORD_TOKEN": "t"})
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith("usage: python -m bot") and "frobnicate" in captured.err


def test_python_m_bot_help_in_a_process(tmp_path):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "SYSTEMROOT", "LANG")}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this tree's bot
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "sync" in proc.stdout and proc.stderr == ""
    assert not list(tmp_path.iterdir())  # no database made: nothing started


async def test_sync_goes_to_the_dev_guild_when_one_is_set(monkeypatch, tmp_path, capsys):
    """``python -m bot sync`` with DEV_GUILD_ID: the commands go to that server only (the
    global list is synced against the stand-in by tests/e2e/test_e2e_sync.py)."""
    from bot.discord.client import BackgammonBot

    logged_in: list[str] = []

    async def login(self, token):
        logged_in.append(token)
        await self.setup_hook()

    synced: list[object] = []

    async def tree_sync(self, *, guild=None):
        synced.append(guild)
        return self.get_commands(guild=guild)

    monkeypatch.setattr(BackgammonBot, "login", login)
    monkeypatch.setattr(discord.app_commands.CommandTree, "sync", tree_sync)
    settings = Settings(token="t", database_path=str(tmp_path / "bg.sqlite3"), dev_guild_id=1234)
    assert await entry.sync(settings) == 0
    assert logged_in == ["t"] and [g.id for g in synced] == [1234]  # type: ignore[attr-defined]
    assert capsys.readouterr().out == "synced 7 commands to server 1234\n"
