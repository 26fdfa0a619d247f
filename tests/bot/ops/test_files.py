"""Secrets from files, private files, and a warning when others can read them."""

from __future__ import annotations

import asyncio
import logging
import os
import stat

import pytest

from bot.config import ConfigError, Settings
from bot.ops.files import warn_exposed
from bot.store import open_store

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret.token-of-the-bot"


def test_the_token_and_the_database_url_from_files(tmp_path) -> None:
    token, url = tmp_path / "token", tmp_path / "url"
    token.write_text(TOKEN + "\n")
    url.write_text("postgresql://bg:pw-in-a-file@db/bg\n")
    settings = Settings.from_env({"DISCORD_TOKEN_FILE": str(token), "DATABASE_URL_FILE": str(url)}, env_file=None)
    assert settings.token == TOKEN
    assert settings.database_url == "postgresql://bg:pw-in-a-file@db/bg"
    assert "pw-in-a-file" in settings.database_secrets
    assert settings.secret_files == (str(token), str(url))


def test_a_secret_and_its_file_together_are_refused(tmp_path) -> None:
    token = tmp_path / "token"
    token.write_text(TOKEN)
    with pytest.raises(ConfigError, match="DISCORD_TOKEN or DISCORD_TOKEN_FILE, not both"):
        Settings.from_env({"DISCORD_TOKEN": "x", "DISCORD_TOKEN_FILE": str(token)}, env_file=None)
    with pytest.raises(ConfigError, match="DISCORD_TOKEN_FILE: cannot read") as caught:
        Settings.from_env({"DISCORD_TOKEN_FILE": str(tmp_path / "missing")}, env_file=None)
    assert TOKEN not in str(caught.value)


def test_a_new_database_and_its_folder_are_private(tmp_path) -> None:
    path = tmp_path / "data" / "bg.sqlite3"
    old = os.umask(0o022)
    try:

        async def make() -> None:
            store = await open_store(str(path))
            await store.close()

        asyncio.run(make())
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    for extra in path.parent.iterdir():
        assert not stat.S_IMODE(extra.stat().st_mode) & 0o077, extra


def test_readable_env_and_database_warn_once_each(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.chdir(tmp_path)
    env, database = tmp_path / ".env", tmp_path / "bg.sqlite3"
    env.write_text("DISCORD_TOKEN=x\n")
    database.write_bytes(b"")
    env.chmod(0o644)
    database.chmod(0o640)
    settings = Settings.from_env({"DATABASE_PATH": str(database)}, env_file=env)
    with caplog.at_level(logging.WARNING, logger="bot.ops"):
        warnings = warn_exposed(settings.private_files)
    assert warnings == [
        ".env is readable by group and others: chmod 600 .env",
        f"{database} is readable by group: chmod 600 {database}",
    ]
    assert len(caplog.records) == 2
    env.chmod(0o600)
    database.chmod(0o600)
    assert warn_exposed(settings.private_files) == []
