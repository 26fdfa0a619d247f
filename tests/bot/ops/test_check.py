"""``python -m bot check``: its lines and exit codes on real stores."""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot.ops.check import CRITICAL, OK, WARNING, main
from bot.store import SCHEMA_VERSION, open_store

ROOT = Path(__file__).resolve().parents[3]


async def make_store(path: Path, beat_age: float | None, *, shard=None, owed_age: float | None = None) -> None:
    store = await open_store(str(path))
    try:
        if beat_age is not None:
            at = datetime.fromtimestamp(time.time() - beat_age, UTC)
            await store.schedule.beat(shard, at, stale_after=90.0)
        if owed_age is not None:
            await store.db.transact(
                lambda tx: tx.execute(
                    "INSERT INTO outbox (channel_id, kind, created_at, next_attempt_at) VALUES (1, 'notice', ?, ?)",
                    (time.time() - owed_age, time.time()),
                )
            )
    finally:
        await store.close()


def run_check(path: Path, **env: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main({"DATABASE_PATH": str(path), **env}, out)
    return code, out.getvalue()


async def test_a_fresh_beat_is_ok(tmp_path) -> None:
    await make_store(tmp_path / "db.sqlite3", beat_age=5)
    code, text = await_check(tmp_path / "db.sqlite3")
    assert code == OK, text
    lines = text.splitlines()
    assert lines[0] == f"ok schema: version {SCHEMA_VERSION}"
    assert "ok heartbeat: shard 0 beat 5 s ago" in lines
    assert "ok outbox: nothing owed" in lines and "ok clock credit: nothing owed" in lines
    assert any(line.startswith("ok disk: ") for line in lines)


def await_check(path: Path, **env: str) -> tuple[int, str]:
    """The check runs its own event loop, as from the command line: on a thread here."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run_check, path, **env).result()


async def test_a_stale_beat_warns_naming_the_shard(tmp_path) -> None:
    await make_store(tmp_path / "db.sqlite3", beat_age=200, shard=(2, (1,)))
    code, text = await_check(tmp_path / "db.sqlite3", SHARD_COUNT="2", SHARD_IDS="1")
    assert code == WARNING, text
    assert "warning heartbeat: shard 1 beat 200 s ago" in text.splitlines()


async def test_a_beat_past_the_takeover_and_an_old_outbox_are_critical(tmp_path) -> None:
    await make_store(tmp_path / "db.sqlite3", beat_age=400, owed_age=7200)
    code, text = await_check(tmp_path / "db.sqlite3")
    assert code == CRITICAL, text
    assert "critical heartbeat: shard 0 beat 400 s ago" in text
    assert "critical outbox: 1 owed, the oldest for 2.0 h" in text


async def test_a_newer_schema_is_critical(tmp_path) -> None:
    path = tmp_path / "db.sqlite3"
    await make_store(path, beat_age=1)
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    code, text = await_check(path)
    assert code == CRITICAL
    assert text.startswith(f"critical schema: version {SCHEMA_VERSION + 1} is newer than this bot's {SCHEMA_VERSION}")


def test_no_database_is_critical_and_none_is_created(tmp_path) -> None:
    path = tmp_path / "missing" / "db.sqlite3"
    code, text = run_check(path)
    assert code == CRITICAL and "no database at" in text
    assert not path.parent.exists()


def test_the_command_line_runs_it_without_a_token(tmp_path) -> None:
    path = tmp_path / "missing.sqlite3"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "DATABASE_PATH": str(path)}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "check"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == CRITICAL, done.stderr
    assert done.stdout.startswith("critical database:")


async def test_a_problem_goes_to_the_alert_webhook_without_secrets(tmp_path) -> None:
    from aiohttp import web

    posts: list[dict] = []

    async def hook(request: web.Request) -> web.Response:
        posts.append(await request.json())
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/api/webhooks/{id}/{token}", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    url = f"http://127.0.0.1:{port}/api/webhooks/1/check-secret"
    await make_store(tmp_path / "db.sqlite3", beat_age=200)
    try:
        code, text = await asyncio.to_thread(run_check, tmp_path / "db.sqlite3", ALERT_WEBHOOK_URL=url)
    finally:
        await runner.cleanup()
    assert code == WARNING
    assert len(posts) == 1 and "warning heartbeat: shard 0 beat 200 s ago" in posts[0]["content"]
    assert "ok " not in posts[0]["content"] and "check-secret" not in str(posts)


def test_little_free_disk_beside_the_database_warns_then_is_critical(tmp_path) -> None:
    from bot.ops.check import judge
    from bot.store.health import Health

    health = Health(SCHEMA_VERSION, "sqlite", str(tmp_path / "db.sqlite3"), heartbeats={0: 1000.0})
    levels = {
        free: next(f for f in judge(health, 1000.0, free_bytes=_free(free)) if f.name == "disk").level
        for free in (5 << 30, 500 << 20, 50 << 20)
    }
    assert levels == {5 << 30: OK, 500 << 20: WARNING, 50 << 20: CRITICAL}
    postgres = Health(SCHEMA_VERSION, "postgresql", None, heartbeats={0: 1000.0})
    assert all(f.name != "disk" for f in judge(postgres, 1000.0))


def _free(amount: int) -> Callable[[str], int]:
    """A disk with ``amount`` bytes free wherever asked."""
    return lambda _: amount
