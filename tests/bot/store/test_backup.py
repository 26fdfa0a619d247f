"""Online backups of a SQLite store, and the snapshot kept before a migration."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.store import SCHEMA_VERSION, open_store
from bot.store.backup import BackupError, backup_sqlite, snapshot_path
from tests.bot.core.helpers import ALICE, BOB, FakeClock, open_env, random_step, start_game

ROOT = Path(__file__).resolve().parents[3]


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    return conn


async def test_a_backup_taken_while_moves_go_on_is_whole_and_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "live" / "bg.sqlite3"
    env = await open_env(db)
    rng = random.Random(5)
    states = [await start_game(env.service, channel=100 + n) for n in range(6)]
    for _ in range(40):  # enough pages that the copy takes many steps
        n = rng.randrange(len(states))
        if states[n].is_active:
            states[n] = (await random_step(env.service, states[n], rng)).state
    stop = asyncio.Event()
    moves_during = 0

    async def keep_playing() -> None:
        nonlocal moves_during
        while not stop.is_set():
            n = rng.randrange(len(states))
            if states[n].is_active:
                states[n] = (await random_step(env.service, states[n], rng)).state
                moves_during += 1
            await asyncio.sleep(0)

    committed = {row["id"]: row["version"] for row in await env.store.db.fetchall("SELECT id, version FROM games")}
    player = asyncio.create_task(keep_playing())
    try:
        result = await asyncio.to_thread(backup_sqlite, str(db), tmp_path / "copy.sqlite3", pages=2, pause=0.002)
    finally:
        stop.set()
        await player
    await env.store.close()
    assert moves_during > 0  # the bot played while the copy was made
    assert result.schema_version == SCHEMA_VERSION and result.pages > 10
    copy = _open(result.path)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert copy.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
    copied = {row["id"]: row["version"] for row in copy.execute("SELECT id, version FROM games")}
    assert set(copied) == set(committed)
    assert all(copied[game] >= version for game, version in committed.items())
    for game, version in copied.items():  # whole games: the log matches the row
        assert copy.execute("SELECT count(*) FROM actions WHERE game_id = ?", (game,)).fetchone()[0] == version
    copy.close()
    assert not list(tmp_path.glob("*.partial"))

    # restored: the bot opens the copy and the games go on from it
    restored = await open_env(result.path, clock=FakeClock())
    try:
        for game in copied:
            state = await restored.service.lookups.get_game(game)
            if state.is_active:
                after = (await random_step(restored.service, state, rng)).state
                assert after.version > state.version
                break
        else:
            raise AssertionError("no active game in the backup")
        fresh = await start_game(restored.service, channel=999, a=ALICE, b=BOB)
        assert fresh.is_active
    finally:
        await restored.store.close()


async def test_a_folder_gets_timestamped_backups_and_keep_rotates_them(tmp_path: Path) -> None:
    db = tmp_path / "bg.sqlite3"
    await (await open_store(db)).close()
    folder = tmp_path / "backups"
    (folder).mkdir()
    (folder / "notes.txt").write_text("kept")
    made = [backup_sqlite(str(db), folder, keep=2).path for _ in range(3)]
    left = sorted(p.name for p in folder.iterdir())
    assert len(set(made)) == 3 and all(p.name.startswith("bg-") for p in made)
    assert left == sorted([made[1].name, made[2].name, "notes.txt"])
    with pytest.raises(BackupError, match="--keep needs a folder"):
        backup_sqlite(str(db), tmp_path / "one.sqlite3", keep=2)
    with pytest.raises(BackupError, match="no SQLite store"):
        backup_sqlite(str(tmp_path / "missing.sqlite3"), folder)
    assert not (tmp_path / "missing.sqlite3").exists()
    with pytest.raises(BackupError, match="cannot replace the store"):
        backup_sqlite(str(db), db)


async def test_a_copy_that_fails_its_integrity_check_replaces_nothing(tmp_path: Path, monkeypatch) -> None:
    import bot.store.backup as backup

    db = tmp_path / "bg.sqlite3"
    await (await open_store(db)).close()
    good = backup_sqlite(str(db), tmp_path / "b.sqlite3").path
    before = good.read_bytes()
    real_connect = sqlite3.connect

    checks = []

    def reports_damage(conn: sqlite3.Connection, sql: str):
        if sql.startswith("PRAGMA integrity_check"):
            checks.append(sql)
            return real_connect(":memory:").execute("SELECT 'row 3 missing from index'")
        return sqlite3.Connection.execute(conn, sql)

    class Damaged(sqlite3.Connection):
        execute = reports_damage  # type: ignore[assignment]  # a damaged file's integrity check

    def connect(path, *args, **kwargs):
        if str(path).endswith(".partial"):
            kwargs["factory"] = Damaged
        return real_connect(path, *args, **kwargs)

    monkeypatch.setattr(backup.sqlite3, "connect", connect)
    with pytest.raises(BackupError, match="integrity check: row 3 missing"):
        backup_sqlite(str(db), good)
    assert checks
    monkeypatch.undo()
    assert good.read_bytes() == before and not list(tmp_path.glob("*.partial"))


def test_the_command_backs_up_sqlite_and_sends_postgresql_to_pg_dump(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .env but the test's
    # The command lowers its own process: here that process is the test worker, which would
    # stay lowered for the rest of the suite (and fall behind the other workers).
    niced: list[int] = []
    monkeypatch.setattr(os, "nice", niced.append)
    db = tmp_path / "bg.sqlite3"
    asyncio.run(_make_store(db))
    env = {"DATABASE_PATH": str(db)}
    assert main(["backup", str(tmp_path / "out") + "/", "--keep", "1"], env) == 0
    assert niced == [10]  # the copy and its check yield the CPU to the bot
    assert "integrity ok" in capsys.readouterr().out
    assert len(list((tmp_path / "out").iterdir())) == 1
    code = main(["backup", str(tmp_path / "x.dump")], {"DATABASE_URL": "postgresql://bg:s3cret@db/bg"})
    err = capsys.readouterr().err
    assert code == 2 and "pg_dump -Fc" in err and "s3cret" not in err
    assert main(["backup", str(tmp_path / "y")], {"DATABASE_PATH": str(tmp_path / "none.sqlite3")}) == 2
    assert main(["backup", str(tmp_path / "y")], {"DATABASE_URL": "mysql://x"}) == 2


def test_python_m_bot_backup(tmp_path: Path) -> None:
    db = tmp_path / "bg.sqlite3"
    asyncio.run(_make_store(db))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")}
    env |= {"DATABASE_PATH": str(db), "PYTHONPATH": str(ROOT)}  # no token: a backup needs none
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(tmp_path / "b.sqlite3")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"schema {SCHEMA_VERSION}, integrity ok" in proc.stdout


async def _make_store(db: Path) -> None:
    await (await open_store(db)).close()


async def test_a_store_at_an_older_schema_leaves_its_pre_migration_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "bg.sqlite3"
    old = await open_store(db, migrate_to=SCHEMA_VERSION - 1)
    await old.games.create(guild_id=1, channel_id=2, player0=1, player1=2)
    await old.close()
    await (await open_store(db)).close()
    snapshot = snapshot_path(str(db), SCHEMA_VERSION - 1)
    assert snapshot.exists()
    copy = _open(snapshot)
    assert copy.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION - 1
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert copy.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    copy.close()
    # a store at the current schema, a new store, or the setting off: no snapshot
    fresh = tmp_path / "new.sqlite3"
    await (await open_store(fresh)).close()
    await (await open_store(fresh)).close()
    other = tmp_path / "off.sqlite3"
    await (await open_store(other, migrate_to=SCHEMA_VERSION - 1)).close()
    await (await open_store(other, snapshot_before_migration=False)).close()
    assert sorted(p.name for p in tmp_path.iterdir() if "pre-migration" in p.name) == [snapshot.name]


async def test_checkpoints_off_leaves_the_wal_to_another_tool(tmp_path: Path) -> None:
    from bot.store.drivers import sqlite as driver

    db = tmp_path / "bg.sqlite3"
    store = await open_store(db, checkpoints=False)
    try:
        for n in range(driver.CHECKPOINT_EVERY + 10):
            await store.games.create(guild_id=1, channel_id=n + 1, player0=1, player1=2)
        assert store.db.driver._checkpoint is None  # type: ignore[attr-defined]
    finally:
        await store.close()


def test_the_settings_reach_the_store() -> None:
    from bot.config import ConfigError, Settings

    def options(**environ: str) -> dict[str, object]:
        found = Settings.from_env({"DISCORD_TOKEN": "t", **environ}, env_file=None).store_options
        assert found.pop("run_shards") is True
        return found

    plain = {"shard": None, "shard_count": None}
    assert options() == plain
    assert options(SQLITE_CHECKPOINTS="off", SNAPSHOT_BEFORE_MIGRATION="0", DATABASE_POOL_MAX="4") == plain | {
        "min_size": 1,
        "max_size": 4,
        "checkpoints": False,
        "snapshot_before_migration": False,
    }
    assert options(SQLITE_CHECKPOINTS="on") == plain
    assert options(SHARD_COUNT="4", SHARD_IDS="2,1", SHARD_WAIT="off") == {
        "shard": (4, (1, 2)),
        "shard_count": 4,
        "shard_wait": False,
    }
    with pytest.raises(ConfigError, match="SQLITE_CHECKPOINTS must be on or off"):
        options(SQLITE_CHECKPOINTS="sometimes")


def test_copies_of_one_store_made_at_once_do_not_spoil_each_other(tmp_path):
    """Processes that open an old store together each copy it before migrating: every copy
    writes a file of its own, so none unlinks or overwrites another's half-made copy."""
    import sqlite3
    from concurrent.futures import ThreadPoolExecutor

    from bot.store.backup import copy_database

    source = tmp_path / "store.sqlite3"
    with sqlite3.connect(source) as conn:
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4000,) for _ in range(2000)])
    final = tmp_path / "store.sqlite3.pre-migration-1"

    def copy(_: int) -> None:
        conn = sqlite3.connect(source, isolation_level=None, check_same_thread=False)
        try:
            copy_database(conn, final, pause=0)
        finally:
            conn.close()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(copy, range(8)))
    with sqlite3.connect(final) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (2000,)
    assert not list(tmp_path.glob("*.partial"))
